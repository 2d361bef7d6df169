/// A clock whose time moves only when a test (or host) advances it, deterministically.
///
/// Advancing resumes the sleepers that are due, in deadline order, and returns only when every
/// store effect it woke has finished or sleeps on the clock again: no yields, no retries.
///
/// ```swift
/// let clock = TestClock()
/// let store = TestStore(initialState: Feature.State()) { Feature() } withDependencies: {
///   $0.continuousClock = clock
/// }
/// await store.send(.toggleTimer) { $0.isTimerOn = true }
/// await clock.advance(by: .seconds(1))
/// await store.receive(.timerTick) { $0.count = 1 }
/// ```
///
/// Sleeps of tasks that a store did not start as effects (for example structured child tasks
/// inside one `.run`) are resumed too, but advancing cannot wait for what they do next.
public final class TestClock: Clock, Sendable {
  /// A point on a test clock: the time since the clock started.
  public struct Instant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
    /// Time since the clock's start.
    public var offset: Duration
    /// The instant `offset` after the clock's start.
    public init(offset: Duration = .zero) { self.offset = offset }
    public func advanced(by duration: Duration) -> Self { Self(offset: offset + duration) }
    public func duration(to other: Self) -> Duration { other.offset - offset }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }
    public var description: String { "TestClock.Instant(\(offset))" }
  }

  private struct Sleeper {
    let deadline: Instant
    let continuation: UnsafeContinuation<Void, any Error>
    let runtime: EffectRuntime?
  }

  private struct State {
    var now = Instant()
    var nextID: UInt64 = 0
    var sleepers: [UInt64: Sleeper] = [:]
    var cancelledBeforeSleeping: Set<UInt64> = []
  }

  private let state = _Protected(State())

  /// Stores created with this clock as a dependency: advancing first lets their running
  /// effects reach the clock, so an `advance` right after a `send` sees the new sleeper.
  private let attached = _Protected<[WeakRuntime]>([])

  private struct WeakRuntime {
    weak var runtime: EffectRuntime?
  }

  func attach(_ runtime: EffectRuntime) {
    attached.withLock { list in
      guard !list.contains(where: { $0.runtime === runtime }) else { return }
      list.removeAll { $0.runtime == nil }
      list.append(WeakRuntime(runtime: runtime))
    }
  }

  private var attachedRuntimes: [EffectRuntime] {
    attached.withLock { $0.compactMap(\.runtime) }
  }

  /// How long ``advance(by:)`` waits, at most, for woken effects to settle before moving on.
  public let settleTimeout: Duration

  /// A clock at instant zero.
  public init(settleTimeout: Duration = .seconds(10)) {
    self.settleTimeout = settleTimeout
  }

  public var now: Instant { state.withLock { $0.now } }
  public var minimumResolution: Duration { .zero }

  /// How many tasks sleep on this clock now.
  public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// The earliest deadline of a sleeper, if any.
  public var nextDeadline: Instant? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    var tracked: EffectRuntime?
    if let unit = EffectRuntime.currentUnit, unit.isCurrentTask {
      tracked = unit.runtime
      attach(unit.runtime)
    }
    let runtime = tracked
    let id: UInt64? = state.withLock { state in
      guard state.now < deadline else { return nil }
      state.nextID += 1
      return state.nextID
    }
    guard let id else { return }  // already due
    try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
        let registered = state.withLock { state -> Bool in
          if state.cancelledBeforeSleeping.remove(id) != nil { return false }
          state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation, runtime: runtime)
          return true
        }
        if registered {
          runtime?.unitWillSleep()
        } else {
          continuation.resume(throwing: CancellationError())
        }
      }
    } onCancel: {
      let sleeper = state.withLock { state -> Sleeper? in
        if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
        state.cancelledBeforeSleeping.insert(id)
        return nil
      }
      if let sleeper {
        sleeper.runtime?.unitWillWake()
        sleeper.continuation.resume(throwing: CancellationError())
      }
    }
  }

  /// Moves time forward by `duration`, running every sleeper that comes due, in order.
  public func advance(by duration: Duration = .zero) async {
    await advance(to: now.advanced(by: duration))
  }

  /// Moves time forward to `deadline`, running every sleeper that comes due, in order.
  public func advance(to deadline: Instant) async {
    for runtime in attachedRuntimes { _ = await runtime.idle(timeout: settleTimeout) }
    while let woken = wakeNext(upTo: deadline) {
      await settle(woken)
    }
  }

  /// Advances until no task sleeps on the clock (for example to let a timer run out).
  /// Stops after `limit` wake-ups, so an endless timer cannot hang a test.
  public func run(limit: Int = 10_000) async {
    for runtime in attachedRuntimes { _ = await runtime.idle(timeout: settleTimeout) }
    var remaining = limit
    while remaining > 0, let deadline = nextDeadline {
      remaining -= 1
      await advance(to: deadline)
    }
  }

  /// Blocking variant of ``advance(by:)`` for hosts on threads outside Swift concurrency.
  /// Returns false when woken effects did not settle within `timeoutNanoseconds` each.
  public func advanceBlocking(by duration: Duration, timeoutNanoseconds: Int64) -> Bool {
    for runtime in attachedRuntimes {
      if !runtime.waitUntilIdle(timeoutNanoseconds: timeoutNanoseconds) { return false }
    }
    let deadline = now.advanced(by: duration)
    while let woken = wakeNext(upTo: deadline) {
      for runtime in woken.runtimes {
        if !runtime.waitUntilIdle(timeoutNanoseconds: timeoutNanoseconds) { return false }
      }
    }
    return true
  }

  private struct Woken {
    var runtimes: [EffectRuntime]
    var untracked: Int
  }

  /// Wakes the sleepers due at the earliest deadline not after `limit`; sets `now`.
  /// Returns nil (after moving `now` to `limit`) when none is due.
  private func wakeNext(upTo limit: Instant) -> Woken? {
    let due: [Sleeper]? = state.withLock { state in
      let next = state.sleepers.values.map(\.deadline).filter { $0 <= limit }.min()
      guard let next else {
        if state.now < limit { state.now = limit }
        return nil
      }
      if state.now < next { state.now = next }
      let ids = state.sleepers.filter { $0.value.deadline <= next }.keys.sorted()
      return ids.compactMap { state.sleepers.removeValue(forKey: $0) }
    }
    guard let due else { return nil }
    var woken = Woken(runtimes: [], untracked: 0)
    for sleeper in due {
      if let runtime = sleeper.runtime {
        runtime.unitWillWake()
        if !woken.runtimes.contains(where: { $0 === runtime }) { woken.runtimes.append(runtime) }
      } else {
        woken.untracked += 1
      }
    }
    for sleeper in due { sleeper.continuation.resume() }
    return woken
  }

  private func settle(_ woken: Woken) async {
    for runtime in woken.runtimes {
      _ = await runtime.idle(timeout: settleTimeout)
    }
    if woken.untracked > 0 {
      // Not started by a store: nothing tells when they are done; give them a turn.
      for _ in 0..<100 { await Task.yield() }
    }
  }
}

/// A clock whose sleeps return at once (after checking for cancellation), advancing its time.
public final class ImmediateClock: Clock, Sendable {
  public typealias Instant = TestClock.Instant
  private let current = _Protected(Instant())

  /// A clock at instant zero.
  public init() {}

  public var now: Instant { current.withLock { $0 } }
  public var minimumResolution: Duration { .zero }

  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    current.withLock { if $0 < deadline { $0 = deadline } }
  }
}
