extension Effect where Action: Sendable {
  /// Delays this effect by `duration` on `clock`, restarting the delay whenever another effect
  /// with the same `id` arrives first; only the last one runs.
  ///
  /// ```swift
  /// return .run { send in await send(.searchResponse(try await search(query))) }
  ///   .debounce(id: CancelID.search, for: .milliseconds(300), clock: clock)
  /// ```
  public func debounce<C: Clock>(
    id: some Hashable & Sendable,
    for duration: C.Duration,
    clock: C
  ) -> Self {
    switch operation {
    case .none:
      return .none
    default:
      let effect = self
      return Self.run { send in
        try await clock.sleep(for: duration)
        await EffectRuntime.runNested(effect, send: send)
      }
      .cancellable(id: id, cancelInFlight: true)
    }
  }
}
