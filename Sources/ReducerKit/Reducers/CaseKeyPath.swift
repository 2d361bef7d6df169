/// An enum whose cases are reachable by case key paths (`\Action.Cases.child` spelled
/// `\.child`), as in TCA and swift-case-paths.
///
/// Apply `@CasePathable` (from the `ReducerKitMacros` product) to an enum rather than
/// conforming by hand; the macro writes ``allCasePaths`` and the ``AllCasePaths`` type, with
/// one `AnyCasePath` property per case:
///
/// ```swift
/// @CasePathable
/// enum Action {
///   case child(Child.Action)
///   case tapped
/// }
/// let path: CaseKeyPath<Action, Child.Action> = \.child
/// Action.child(.reset)[case: \.child]  // .reset
/// ```
public protocol CasePathable {
  /// The type holding one case path per case (written by `@CasePathable`).
  associatedtype AllCasePaths: Sendable

  /// The case paths of every case.
  static var allCasePaths: AllCasePaths { get }
}

extension CasePathable {
  /// The root of this enum's case key paths: `\Action.Cases.child`.
  public typealias Cases = Case<Self>

  /// The case's associated value, or nil when `self` is another case, by member syntax on an
  /// enum marked `@dynamicMemberLookup` (`@Reducer` marks an enum `State` so):
  /// `state.loggedIn` is `LoggedIn.State?`.
  /// Setting a value while `self` is that case replaces it (so a test writes
  /// `$0.destination?.add?.name = "Blob"`); setting nil, or setting while `self` is another
  /// case, does nothing.
  public subscript<Value>(
    dynamicMember keyPath: KeyPath<AllCasePaths, AnyCasePath<Self, Value>>
  ) -> Value? {
    get { Self.allCasePaths[keyPath: keyPath].extract(from: self) }
    set {
      let path = Self.allCasePaths[keyPath: keyPath]
      guard let newValue, path.extract(from: self) != nil else { return }
      self = path.embed(newValue)
    }
  }
}

/// A case of an enum, as the value a case key path points to: `CaseKeyPath<Root, Value>` is
/// `KeyPath<Case<Root>, Case<Value>>`. You rarely name it; write `\.caseName`.
@dynamicMemberLookup
public struct Case<Value>: Sendable {
  @usableFromInline let _embed: @Sendable (Value) -> Any
  @usableFromInline let _extract: @Sendable (Any) -> Value?
  /// The path from the root, as written (`.factResponse.success`), for messages.
  @usableFromInline let _path: String

  @usableFromInline
  init(
    _embed: @escaping @Sendable (Value) -> Any, _extract: @escaping @Sendable (Any) -> Value?,
    _path: String
  ) {
    self._embed = _embed
    self._extract = _extract
    self._path = _path
  }

  /// A case from a way to embed a value into a root and to extract it back.
  public init<Root>(
    embed: @escaping @Sendable (Value) -> Root,
    extract: @escaping @Sendable (Root) -> Value?
  ) {
    _embed = { embed($0) }
    _extract = { ($0 as? Root).flatMap(extract) }
    _path = ""
  }

  /// The identity case: the root of every case key path.
  public init() {
    self.init(embed: { $0 }, extract: { $0 })
  }

  /// Embeds `value`, type-erased (what a key path's root then casts back).
  /// The case of one element's actions in a collection's action enum (`IdentifiedAction`,
  /// `StackAction`): `element(id, action)` builds such an action, `match` reads one.
  @usableFromInline
  func _element<ID: Equatable & Sendable, Action>(
    id: ID, label: String, element: @escaping @Sendable (ID, Action) -> Value,
    match: @escaping @Sendable (Value) -> (id: ID, action: Action)?
  ) -> Case<Action> {
    let embed = _embed
    let extract = _extract
    return Case<Action>(
      _embed: { embed(element(id, $0)) },
      _extract: {
        guard let found = extract($0).flatMap(match), found.id == id else { return nil }
        return found.action
      },
      _path: _path + "[id: \(label)]")
  }

  @inlinable public func embed(_ value: Value) -> Any { _embed(value) }

  /// Extracts this case's value from a root, if the root is this case.
  @inlinable public func extract(from root: Any) -> Value? { _extract(root) }

  /// Appends a case of `Value` (`\.child.grandchild`).
  public subscript<Member>(
    dynamicMember keyPath: KeyPath<Value.AllCasePaths, AnyCasePath<Value, Member>>
  ) -> Case<Member> where Value: CasePathable {
    _appending(Value.allCasePaths[keyPath: keyPath])
  }

  /// This case, then `path` (outside the `CasePathable` context, so that the closures capture
  /// no conformance).
  @usableFromInline
  func _appending<Member>(_ path: AnyCasePath<Value, Member>) -> Case<Member> {
    let (embed, extract) = (_embed, _extract)
    let (embedMember, extractMember) = (path._embed, path._extract)
    return Case<Member>(
      _embed: { embed(embedMember($0)) },
      _extract: { extract($0).flatMap(extractMember) },
      _path: _path + "." + (path._name ?? "?")
    )
  }
}

/// A key path to an enum case: `\Action.Cases.child`, written `\.child` where the type is known.
///
/// ```swift
/// Scope(state: \.child, action: \.child) { Child() }
/// ```
public typealias CaseKeyPath<Root, Value> = KeyPath<Case<Root>, Case<Value>>

/// A case key path whose value type is not known: what `is(_:)` takes.
public typealias PartialCaseKeyPath<Root> = PartialKeyPath<Case<Root>>

extension AnyCasePath {
  /// A case path from closures that only build and match an enum case: what `@CasePathable`
  /// writes. Not `@Sendable`, so that an enum with generic parameters (whose conformances a
  /// `@Sendable` closure may not capture in Swift 6) gets case paths too; building and
  /// matching a case touches no shared state.
  @inlinable
  public static func _enumCase(
    name: String? = nil,
    embed: @escaping (Value) -> Root,
    extract: @escaping (Root) -> Value?
  ) -> Self {
    let closures = _UncheckedCaseClosures((embed, extract))
    var path = AnyCasePath(
      embed: { closures.value.0($0) },
      extract: { closures.value.1($0) })
    path._name = name
    return path
  }

  /// The case path a case key path stands for (built once; use it where a path runs per
  /// action).
  public init(_ keyPath: CaseKeyPath<Root, Value>) {
    let `case` = Case<Root>()[keyPath: keyPath]
    self.init(
      embed: { `case`.embed($0) as! Root },
      extract: { `case`.extract(from: $0) }
    )
    _name = `case`._path
  }
}

extension KeyPath {
  /// Embeds a value in the case: `(\Action.Cases.setCount)(5)` is `Action.setCount(5)`.
  public func callAsFunction<Enum, AssociatedValue>(_ value: AssociatedValue) -> Enum
  where Root == Case<Enum>, Value == Case<AssociatedValue> {
    Case<Enum>()[keyPath: self].embed(value) as! Enum
  }

  /// The case without an associated value: `(\Action.Cases.tapped)()` is `Action.tapped`.
  public func callAsFunction<Enum>() -> Enum where Root == Case<Enum>, Value == Case<Void> {
    Case<Enum>()[keyPath: self].embed(()) as! Enum
  }
}

extension CasePathable {
  /// The case's associated value, or nil when `self` is another case; setting a value when
  /// `self` is that case replaces it (setting nil, or setting on another case, does nothing).
  ///
  /// ```swift
  /// action[case: \.child]  // Child.Action?
  /// ```
  public subscript<Value>(case keyPath: CaseKeyPath<Self, Value>) -> Value? {
    get { Case<Self>()[keyPath: keyPath].extract(from: self) }
    set {
      let `case` = Case<Self>()[keyPath: keyPath]
      guard let newValue, `case`.extract(from: self) != nil else { return }
      self = `case`.embed(newValue) as! Self
    }
  }

  /// Whether `self` is the case `keyPath` points to.
  ///
  /// ```swift
  /// if action.is(\.child) { … }
  /// ```
  public func `is`(_ keyPath: PartialCaseKeyPath<Self>) -> Bool {
    let value = Case<Self>()[keyPath: keyPath]
    guard let `case` = value as? any _AnyCase else { return false }
    return `case`._extractAny(from: self) != nil
  }
}

/// `Case<Value>` with `Value` erased, for `is(_:)`.
@usableFromInline protocol _AnyCase {
  func _extractAny(from root: Any) -> Any?
}

extension Case: _AnyCase {
  @usableFromInline func _extractAny(from root: Any) -> Any? {
    extract(from: root).map { $0 as Any }
  }
}

/// How messages name a case key path: `\.factResponse.success`.
package func _describe<Root, Value>(_ keyPath: CaseKeyPath<Root, Value>) -> String {
  "\\" + Case<Root>()[keyPath: keyPath]._path
}

extension _ActionPath {
  /// From a case key path (converted once).
  @inlinable
  init(_ keyPath: CaseKeyPath<Root, Value>) {
    self.init(AnyCasePath(keyPath))
  }
}

/// A value the compiler cannot prove `Sendable` that is (see `AnyCasePath._enumCase`).
@usableFromInline
struct _UncheckedCaseClosures<Value>: @unchecked Sendable {
  @usableFromInline let value: Value
  @inlinable init(_ value: Value) { self.value = value }
}
