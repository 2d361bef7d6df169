/// Embeds a value into an enum case and extracts it back: the "key path" of an enum case.
///
/// ```swift
/// let counter = AnyCasePath<AppAction, Counter.Action>(
///   embed: AppAction.counter,
///   extract: { if case let .counter(action) = $0 { action } else { nil } }
/// )
/// ```
///
/// Composition operators also take a writable key path to an optional computed property
/// (`action: \.counter`), which is how you get TCA's `\.case` syntax without macros:
///
/// ```swift
/// enum Action {
///   case counter(Counter.Action)
///   var counter: Counter.Action? {
///     get { if case let .counter(action) = self { action } else { nil } }
///     set { if let newValue { self = .counter(newValue) } }
///   }
/// }
/// ```
public struct AnyCasePath<Root, Value>: Sendable {
  @usableFromInline let _embed: @Sendable (Value) -> Root
  @usableFromInline let _extract: @Sendable (Root) -> Value?
  /// The case's name, when known (what `@CasePathable` writes): for messages.
  @usableFromInline var _name: String?

  /// A case path from an embedding (usually the case itself) and an extraction.
  @inlinable
  public init(
    embed: @escaping @Sendable (Value) -> Root,
    extract: @escaping @Sendable (Root) -> Value?
  ) {
    _embed = embed
    _extract = extract
    _name = nil
  }

  /// Wraps `value` in the case.
  @inlinable public func embed(_ value: Value) -> Root { _embed(value) }

  /// The case's payload, when `root` is that case.
  @inlinable public func extract(from root: Root) -> Value? { _extract(root) }
}

/// How a composition operator reaches a child's actions: a case path, or a key path to an
/// optional computed property (whose setter embeds, using the parent action as the base).
@usableFromInline
struct _ActionPath<Root, Value>: Sendable {
  @usableFromInline let extract: @Sendable (Root) -> Value?
  @usableFromInline let embed: @Sendable (Value, Root) -> Root

  @inlinable
  init(_ path: AnyCasePath<Root, Value>) {
    extract = path._extract
    let embed = path._embed
    self.embed = { value, _ in embed(value) }
  }

  @inlinable
  init(_ keyPath: WritableKeyPath<Root, Value?> & Sendable) {
    extract = { $0[keyPath: keyPath] }
    embed = { value, base in
      var root = base
      root[keyPath: keyPath] = value
      return root
    }
  }
}
