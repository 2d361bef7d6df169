import Synchronization

/// A key for a dependency: its type and its default values.
///
/// ```swift
/// struct NumberFactClient: Sendable { var fetch: @Sendable (Int) async throws -> String }
/// extension NumberFactClient: DependencyKey {
///   static let liveValue = NumberFactClient { "\($0) is a good number." }
/// }
/// extension DependencyValues {
///   var numberFact: NumberFactClient {
///     get { self[NumberFactClient.self] }
///     set { self[NumberFactClient.self] = newValue }
///   }
/// }
/// ```
public protocol DependencyKey {
  /// The dependency's type.
  associatedtype Value: Sendable
  /// The value used when running for real.
  static var liveValue: Value { get }
  /// The value used under ``DependencyContext/test`` (default: ``liveValue``).
  static var testValue: Value { get }
}

extension DependencyKey {
  public static var testValue: Value { liveValue }
}

/// Whether dependencies resolve to live or test values.
public enum DependencyContext: Sendable, Equatable {
  case live
  case test
}

/// The dependencies reducers and effects read with ``Dependency``. Values are overridden per
/// store (`Store(initialState:reducer:withDependencies:)`) or per scope (``withDependencies(_:operation:)-(_,()->R)``).
public struct DependencyValues: Sendable {
  @TaskLocal static var _current = DependencyValues()

  @usableFromInline var storage: [ObjectIdentifier: any Sendable] = [:]

  /// Live or test: which default a key without an override resolves to.
  public var context: DependencyContext = .live

  /// Empty dependencies: every key resolves to its default.
  public init() {}

  /// The dependencies in effect for the current task (or thread).
  public static var current: DependencyValues { _current }

  /// Whether nothing is overridden, so a store can skip binding its dependencies.
  var isDefault: Bool { storage.isEmpty && context == .live }

  /// Whether the dependencies in effect right now are the defaults (no `withDependencies`).
  /// Cheap while no scope with overrides is active anywhere in the process.
  @usableFromInline
  static var _isAmbientDefault: Bool {
    _overriddenScopes.load(ordering: .relaxed) == 0 || _current.isDefault
  }

  /// How many scopes bind non-default dependencies right now, process-wide.
  static let _overriddenScopes = Atomic<Int>(0)

  /// Binds `values` for `operation`, counting scopes with overrides.
  @usableFromInline
  static func _with<R>(_ values: DependencyValues, _ operation: () throws -> R) rethrows -> R {
    guard !values.isDefault else { return try $_current.withValue(values, operation: operation) }
    _overriddenScopes.add(1, ordering: .relaxed)
    defer { _overriddenScopes.subtract(1, ordering: .relaxed) }
    return try $_current.withValue(values, operation: operation)
  }

  /// Async form of `_with`.
  static func _with<R>(
    _ values: DependencyValues, isolation: isolated (any Actor)? = #isolation,
    _ operation: () async throws -> R
  ) async rethrows -> R {
    guard !values.isDefault else { return try await $_current.withValue(values, operation: operation) }
    _overriddenScopes.add(1, ordering: .relaxed)
    defer { _overriddenScopes.subtract(1, ordering: .relaxed) }
    return try await $_current.withValue(values, operation: operation)
  }

  /// The value for `key`: the override, else the context's default.
  public subscript<Key: DependencyKey>(key: Key.Type) -> Key.Value {
    get {
      if let value = storage[ObjectIdentifier(key)], let typed = value as? Key.Value {
        return typed
      }
      return context == .test ? Key.testValue : Key.liveValue
    }
    set { storage[ObjectIdentifier(key)] = newValue }
  }
}

/// Reads a dependency from the current ``DependencyValues``.
///
/// ```swift
/// struct Feature: Reducer {
///   @Dependency(\.continuousClock) var clock
///   @Dependency(\.numberFact) var numberFact
/// }
/// ```
@propertyWrapper
public struct Dependency<Value>: Sendable {
  private let read: @Sendable (DependencyValues) -> Value

  /// A dependency at a key path of ``DependencyValues``.
  public init(_ keyPath: KeyPath<DependencyValues, Value> & Sendable) {
    read = { $0[keyPath: keyPath] }
  }

  /// A dependency by its key type.
  public init<Key: DependencyKey & SendableMetatype>(_ key: Key.Type) where Key.Value == Value {
    read = { $0[Key.self] }
  }

  /// The current value (read each time, from the running store's dependencies).
  public var wrappedValue: Value { read(DependencyValues._current) }
}

/// Runs `operation` with dependencies changed by `update`.
///
/// ```swift
/// let store = withDependencies { $0.continuousClock = TestClock() } operation: {
///   Store(initialState: Feature.State()) { Feature() }
/// }
/// ```
///
/// A store created inside captures the dependencies in effect, for its reducer and effects.
public func withDependencies<R>(
  _ update: (inout DependencyValues) throws -> Void,
  operation: () throws -> R
) rethrows -> R {
  var values = DependencyValues._current
  try update(&values)
  return try DependencyValues._with(values, operation)
}

/// Runs async `operation` with dependencies changed by `update`.
public func withDependencies<R>(
  isolation: isolated (any Actor)? = #isolation,
  _ update: (inout DependencyValues) throws -> Void,
  operation: () async throws -> R
) async rethrows -> R {
  var values = DependencyValues._current
  try update(&values)
  return try await DependencyValues._with(values, operation)
}
