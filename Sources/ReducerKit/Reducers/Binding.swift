/// An action that sets one field of `Root` to a value, as TCA's `BindingAction`: what a UI
/// binding sends. Build one with ``set(_:_:)``; ``BindingReducer`` applies it.
///
/// ```swift
/// enum Action: BindableAction {
///   case binding(BindingAction<State>)
/// }
/// await store.send(.binding(.set(\.text, "hi"))) { $0.text = "hi" }
/// await store.send(\.binding.text, "hi")   // the same action
/// ```
///
/// Two binding actions are equal when they set the same key path to equal values.
///
/// A `BindingAction` has no wire form (it is not `Codable`): a feature whose actions hold one
/// cannot be registered for C and Python hosts (`Feature(…)` requires `Codable` actions, so
/// the registration does not compile).
public struct BindingAction<Root>: @unchecked Sendable {
  // @unchecked: the key path is immutable and `value` is `Sendable` (checked in `set`).

  /// The field this action sets.
  public let keyPath: PartialKeyPath<Root>

  @usableFromInline let value: any Sendable
  @usableFromInline let apply: @Sendable (inout Root) -> Void
  @usableFromInline let valueIsEqual: @Sendable (any Sendable) -> Bool

  @usableFromInline
  init(
    keyPath: PartialKeyPath<Root>, value: any Sendable,
    apply: @escaping @Sendable (inout Root) -> Void,
    valueIsEqual: @escaping @Sendable (any Sendable) -> Bool
  ) {
    self.keyPath = keyPath
    self.value = value
    self.apply = apply
    self.valueIsEqual = valueIsEqual
  }

  /// An action that sets the field at `keyPath` to `value`.
  @inlinable
  public static func set<Value: Equatable & Sendable>(
    _ keyPath: WritableKeyPath<Root, Value> & Sendable,
    _ value: Value
  ) -> Self {
    Self(
      keyPath: keyPath, value: value,
      apply: { $0[keyPath: keyPath] = value },
      valueIsEqual: { ($0 as? Value) == value })
  }

  /// Sets the field in `root`.
  @inlinable
  public func set(_ root: inout Root) { apply(&root) }

  /// Whether this action sets the field at `keyPath`: `case .binding(\.text):` in a `switch`.
  @inlinable
  public static func ~= <Value>(keyPath: WritableKeyPath<Root, Value>, bindingAction: Self) -> Bool {
    keyPath == bindingAction.keyPath
  }
}

extension BindingAction: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.keyPath == rhs.keyPath && lhs.valueIsEqual(rhs.value)
  }
}

extension BindingAction: CustomDebugStringConvertible {
  /// `.set(\State.text, "hi")`.
  public var debugDescription: String {
    var value = ""
    debugPrint(self.value, terminator: "", to: &value)
    return ".set(\(keyPath), \(value))"
  }
}

extension BindingAction: CasePathable {
  /// One case path per writable field of `Root`: `\.binding.text` embeds a value as
  /// `.set(\.text, value)` and extracts the value of an action that sets `\.text`.
  @dynamicMemberLookup
  public struct AllCasePaths: Sendable {
    /// The case path of the actions that set the field at `keyPath`.
    public subscript<Value: Equatable & Sendable>(
      dynamicMember keyPath: WritableKeyPath<Root, Value> & Sendable
    ) -> AnyCasePath<BindingAction, Value> {
      ._enumCase(
        name: "\(keyPath)",
        embed: { .set(keyPath, $0) },
        extract: { $0.keyPath == keyPath ? $0.value as? Value : nil })
    }
  }

  /// The case paths of ``BindingAction``.
  public static var allCasePaths: AllCasePaths { AllCasePaths() }
}

/// An action type with a case for ``BindingAction``s of its feature's state, as TCA's
/// `BindableAction`: `case binding(BindingAction<State>)` fulfils it.
public protocol BindableAction {
  /// The state the binding actions set.
  associatedtype State
  /// Wraps a binding action (the `binding` case).
  static func binding(_ action: BindingAction<State>) -> Self
  /// The binding action this action holds, if it is the `binding` case.
  var binding: BindingAction<State>? { get }
}

extension BindableAction {
  /// The payload of the case named `binding`, when this action is that case.
  public var binding: BindingAction<State>? {
    guard let (label, payload) = Mirror(reflecting: self).children.first, label == "binding"
    else { return nil }
    return payload as? BindingAction<State>
  }

  /// `.binding(.set(keyPath, value))`.
  @inlinable
  public static func set<Value: Equatable & Sendable>(
    _ keyPath: WritableKeyPath<State, Value> & Sendable,
    _ value: Value
  ) -> Self {
    binding(.set(keyPath, value))
  }
}

/// Applies a feature's ``BindingAction``s to its state, as TCA's `BindingReducer`. Put it first
/// in `body`, so the reducers after it see the field already set:
///
/// ```swift
/// var body: some ReducerOf<Self> {
///   BindingReducer()
///   Reduce { state, action in … }
/// }
/// ```
public struct BindingReducer<State, Action: BindableAction>: Reducer where Action.State == State {
  /// A reducer that applies binding actions.
  @inlinable public init() {}

  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    action.binding?.set(&state)
    return .none
  }
}
