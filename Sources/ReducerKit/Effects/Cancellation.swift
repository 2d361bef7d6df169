import Synchronization

/// A type-erased cancellation identifier, scoped to the child reducer that declared it.
///
/// `path` lists the child scopes (outermost first) between the store's root reducer and the
/// reducer that returned the effect: `ifLet`, `ifCaseLet` and `forEach` prefix their child's
/// ids with their own component. Cancelling `(path, base)` reaches every effect with that
/// `base` declared at `path` or deeper: a row's cancel stays in the row; a parent's reaches its
/// children.
@usableFromInline
struct CancelID: Hashable, @unchecked Sendable {
  // Safe: `base` and every path component are only ever built from values that are
  // `Hashable & Sendable` (see the initializers and `_ScopeComponent`), so the erased values
  // are Sendable even though `AnyHashable` is not marked so.
  let base: AnyHashable
  let path: [AnyHashable]

  init(_ id: some Hashable & Sendable) {
    base = AnyHashable(id)
    path = []
  }

  init(base: AnyHashable, path: [AnyHashable]) {
    self.base = base
    self.path = path
  }

  /// This id as seen from the parent of the scope `component`.
  func inScope(_ component: AnyHashable) -> CancelID {
    CancelID(base: base, path: [component] + path)
  }

  /// Whether cancelling `self` cancels an effect marked with `other`.
  func covers(_ other: CancelID) -> Bool {
    base == other.base && other.path.starts(with: path)
  }

  /// The id every effect of the child at `component` carries, so that the child's effects
  /// can be cancelled together when it goes away.
  static func lifetime(of component: AnyHashable) -> CancelID {
    CancelID(base: AnyHashable(_ChildLifetime()), path: [component])
  }

  var isLifetime: Bool { base == AnyHashable(_ChildLifetime()) }
}

/// The base of the id that marks a child's effects (see ``CancelID/lifetime(of:)``).
struct _ChildLifetime: Hashable, Sendable {}

/// Identifies one child of a composition operator: which child state (a key path, or the
/// child's types for an enum case) and, when the child is `Identifiable` or an element of a
/// collection, its id.
@usableFromInline
struct _ScopeComponent: Hashable, @unchecked Sendable {
  // Safe: built only from key paths, object identifiers and `Hashable & Sendable` ids.
  let state: AnyHashable
  let id: AnyHashable?

  @usableFromInline init(state: AnyHashable, id: AnyHashable?) {
    self.state = state
    self.id = id
  }
}

extension Effect {
  /// This effect as returned by the child at `component`: its cancel ids are scoped to the
  /// child, and everything but its synchronous sends is marked with the child's lifetime id.
  @usableFromInline
  func _scoped(to component: _ScopeComponent) -> Self {
    if _isSynchronous && !_hasCancel { return self }
    let key = AnyHashable(component)
    let scoped = _prefixingIDs(with: key)
    if scoped._isSynchronous { return scoped }
    return Self(operation: .cancellable(id: .lifetime(of: key), cancelInFlight: false, scoped))
  }

  private func _prefixingIDs(with key: AnyHashable) -> Self {
    switch operation {
    case .none, .send, .run:
      return self
    case let .merge(effects):
      return Self(operation: .merge(effects.map { $0._prefixingIDs(with: key) }))
    case let .concatenate(effects):
      return Self(operation: .concatenate(effects.map { $0._prefixingIDs(with: key) }))
    case let .cancellable(id, cancelInFlight, inner):
      return Self(
        operation: .cancellable(
          id: id.inScope(key), cancelInFlight: cancelInFlight, inner._prefixingIDs(with: key)))
    case let .cancel(ids):
      return Self(operation: .cancel(ids: ids.map { $0.inScope(key) }))
    }
  }

  private var _hasCancel: Bool {
    switch operation {
    case .none, .send, .run: return false
    case .cancel, .cancellable: return true
    case let .merge(effects), let .concatenate(effects): return effects.contains { $0._hasCancel }
    }
  }
}

extension Effect {
  /// Cancels every effect of the child at `component` (it went away).
  @usableFromInline
  static func _cancelChild(_ component: _ScopeComponent) -> Self {
    Self(operation: .cancel(ids: [.lifetime(of: AnyHashable(component))]))
  }

  /// The effects of a composition operator: the child's, the parent's, then the cancellation
  /// of a child that went away (after the child's, so that it reaches them too).
  @inlinable
  static func _combine(child: Self, parent: Self, cancel: Self) -> Self {
    if child.isNone && cancel.isNone { return parent }
    return .merge(child, parent, cancel)
  }
}

/// The identity of a child state for its scope: its `id` when it is `Identifiable`, so that a
/// child replaced by another one has its effects cancelled.
@usableFromInline
func _childIdentity<T>(_ value: T) -> AnyHashable? {
  guard let identifiable = value as? any Identifiable else { return nil }
  return _erasedID(identifiable)
}

private func _erasedID<T: Identifiable>(_ value: T) -> AnyHashable { AnyHashable(value.id) }

/// Reports a child action that found no child state (TCA's runtime warning), and decides
/// whether a child's effects must be cancelled after its parent ran.
@usableFromInline
enum _ChildScopes {
  /// Whether any effect started by a child scope is in flight, in any store. While none is,
  /// composition operators skip comparing a child before and after the parent ran.
  @usableFromInline static var anyChildEffectInFlight: Bool {
    _childEffectsInFlight.load(ordering: .relaxed) > 0
  }

  @usableFromInline
  static func reportMissingChild(
    operator name: String, parent: Any.Type, action: Any, detail: String
  ) {
    _reportRuntimeIssue(
      """
      A "\(name)" in "\(parent)" received a child action when \(detail). The action was \
      ignored:

        \(action)

      This usually means the parent removed or changed the child state while an effect of the \
      child was still running, or the host sent an action for a child that does not exist.
      """)
  }
}

/// Effects in flight that carry a child lifetime id, across all stores.
let _childEffectsInFlight = Atomic<Int>(0)

extension Effect {
  /// Makes this effect cancellable with ``cancel(id:)``.
  ///
  /// ```swift
  /// private enum CancelID { case timer }
  /// return .run { send in … }.cancellable(id: CancelID.timer, cancelInFlight: true)
  /// ```
  ///
  /// - Parameters:
  ///   - id: Any hashable value; effects with equal ids are cancelled together.
  ///   - cancelInFlight: Cancel effects already running with this id before starting this one.
  public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Self {
    switch operation {
    case .none: return .none
    default:
      return Self(operation: .cancellable(id: CancelID(id), cancelInFlight: cancelInFlight, self))
    }
  }

  /// An effect that cancels every running effect marked with `id`.
  public static func cancel(id: some Hashable & Sendable) -> Self {
    Self(operation: .cancel(ids: [CancelID(id)]))
  }

  /// An effect that cancels every running effect marked with any of `ids`.
  public static func cancel(ids: some Sequence<some Hashable & Sendable>) -> Self {
    Self(operation: .cancel(ids: ids.map(CancelID.init)))
  }
}
