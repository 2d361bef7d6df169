/// A type-erased cancellation identifier.
@usableFromInline
struct CancelID: Hashable, @unchecked Sendable {
  // Safe: `base` is only ever built from a value that is `Hashable & Sendable` (see the
  // initializer), so the erased value is Sendable even though `AnyHashable` is not marked so.
  let base: AnyHashable
  init(_ id: some Hashable & Sendable) { base = AnyHashable(id) }
}

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
