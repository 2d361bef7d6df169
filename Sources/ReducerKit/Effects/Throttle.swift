import ReducerKitPlatform
extension Effect where Action: Sendable {
  /// Lets at most one action of effects with `id` through per `duration` on `clock`.
  ///
  /// The first action passes at once. Within the window that follows, later actions wait for
  /// the window's end: with `latest: true` the newest of them is sent then, with `false` the
  /// first of them; the others are dropped.
  ///
  /// ```swift
  /// return .run { send in await send(.scrolled(offset)) }
  ///   .throttle(id: CancelID.scroll, for: .milliseconds(100), clock: clock, latest: true)
  /// ```
  public func throttle<C: Clock>(
    id: some Hashable & Sendable,
    for duration: C.Duration,
    clock: C,
    latest: Bool
  ) -> Self {
    guard !isNone else { return .none }
    let effect = self
    let key = CancelID(id)
    let pendingKey = CancelID(ThrottlePendingID(key: key))
    return Self.run { send in
      guard let runtime = EffectRuntime.current else {
        await EffectRuntime.runNested(effect, send: send)
        return
      }
      let window = runtime.throttleState(for: key) { ThrottleWindow<C.Instant>() }
      await EffectRuntime.runNested(
        effect,
        send: Send { action in
          let now = clock.now
          let decision = window.offer(at: now, duration: duration, latest: latest)
          switch decision {
          case .sendNow:
            runtime.cancel([pendingKey])
            send.send(action)
          case .drop:
            break
          case let .sendAt(deadline):
            if latest { runtime.cancel([pendingKey]) }
            runtime.spawn(priority: nil, ids: [pendingKey]) {
              do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
              window.sent(at: clock.now)
              send.send(action)
            }
          }
        })
    }
  }
}

struct ThrottlePendingID: Hashable, Sendable {
  let key: CancelID
}

/// The throttle window of one id in one store.
final class ThrottleWindow<Instant: InstantProtocol>: Sendable {
  enum Decision { case sendNow, drop, sendAt(Instant) }
  private struct State {
    var lastSent: Instant?
    var hasPending = false
  }
  private let state = LockedValue(State())

  func offer(at now: Instant, duration: Instant.Duration, latest: Bool) -> Decision {
    state.withLock { state in
      if let last = state.lastSent, now < last.advanced(by: duration) {
        if state.hasPending && !latest { return .drop }
        state.hasPending = true
        return .sendAt(last.advanced(by: duration))
      }
      state.lastSent = now
      state.hasPending = false
      return .sendNow
    }
  }

  func sent(at now: Instant) {
    state.withLock { state in
      state.lastSent = now
      state.hasPending = false
    }
  }
}
