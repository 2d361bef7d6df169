import ReducerKitPlatform
/// A clock whose time moves only when a test (or host) advances it, deterministically.
///
/// Advancing resumes the sleepers that are due one at a time, in deadline order (and, at the
/// same deadline, in the order they went to sleep), and moves on only when every store effect
/// it woke has finished or sleeps on the clock again: no yields, no retries, the same order
/// every run. A sleep until `now` (or for `.zero`) waits for the next advance, as in
/// swift-clocks. Instants saturate instead of overflowing.
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
    /// The instant `duration` later; saturates at the largest (or smallest) representable
    /// instant instead of overflowing.
    public func advanced(by duration: Duration) -> Self {
      Self(offset: _saturatingSum(offset, duration))
    }
    public func duration(to other: Self) -> Duration {
      _saturatingSum(other.offset, .zero - _clamped(offset))
    }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }
    public var description: String { "TestClock.Instant(\(offset))" }
    /// The latest instant: where arithmetic saturates. A sleep until it never ends.
    static var endOfTime: Self { Self(offset: _durationLimit(positive: true)) }
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

  private let state = LockedValue(State())

  /// Stores created with this clock as a dependency: advancing first lets their running
  /// effects reach the clock, so an `advance` right after a `send` sees the new sleeper.
  private let attached = LockedValue<[WeakRuntime]>([])

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
  public var nextDeadline: Instant? {
    state.withLock { $0.sleepers.values.map(\.deadline).filter { $0 < .endOfTime }.min() }
  }

  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    var tracked: EffectRuntime?
    if let unit = EffectRuntime.currentUnit, unit.isCurrentTask {
      tracked = unit.runtime
      attach(unit.runtime)
    }
    let runtime = tracked
    // A deadline that is already due still waits for the next advance (as swift-clocks'
    // TestClock does): time only moves, and sleepers only wake, when a test says so.
    let id: UInt64 = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
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
  ///
  /// Stops after `limit` wake-ups, so an endless timer cannot hang a test; stopping while
  /// sleepers keep re-arming is reported as an issue (a failure in a test that links
  /// ReducerKitTesting), like swift-clocks' `run(timeout:)`.
  public func run(
    limit: Int = 10_000, fileID: StaticString = #fileID, line: UInt = #line
  ) async {
    for runtime in attachedRuntimes { _ = await runtime.idle(timeout: settleTimeout) }
    var wakeUps = 0
    while let deadline = nextDeadline {
      guard wakeUps < limit else {
        _reportRuntimeIssue(
          "TestClock.run (\(fileID):\(line)): \(sleeperCount) sleep(s) still suspended after "
            + "\(limit) wake-ups; a timer that never stops? Advance by a fixed amount, or "
            + "cancel the effect.")
        return
      }
      guard let woken = wakeNext(upTo: deadline) else { continue }
      wakeUps += 1
      await settle(woken)
    }
  }

  /// How a blocking advance ended.
  @_spi(Host) public enum BlockingAdvanceResult: Equatable, Sendable {
    /// Time reached the target and every woken effect settled.
    case settled
    /// Woken effects stopped making progress without settling (an effect waiting on
    /// something other than the clock); time stopped at `reached`.
    case stalled(reached: Instant)
    /// `maxWakeUps` sleepers were woken and more were due (a timer firing more often than
    /// the span asked for allows to run); time stopped at `reached`.
    case tooManyWakeUps(reached: Instant)
  }

  /// Blocking variant of ``advance(by:)`` for hosts on threads outside Swift concurrency.
  /// Bounded by conditions, not by wall time: it stops when woken effects make no progress
  /// for `stallNanoseconds`, or after `maxWakeUps` wake-ups, so the same call ends the same
  /// way on a fast machine and on a loaded one.
  @_spi(Host) public func advanceBlocking(
    by duration: Duration, stallNanoseconds: Int64, maxWakeUps: Int
  ) -> BlockingAdvanceResult {
    for runtime in attachedRuntimes {
      if !runtime.waitUntilSettled(stallNanoseconds: stallNanoseconds) { return .stalled(reached: now) }
    }
    let deadline = now.advanced(by: duration)
    var wakeUps = 0
    while true {
      if wakeUps >= maxWakeUps, nextDeadline.map({ $0 <= deadline }) == true {
        return .tooManyWakeUps(reached: now)
      }
      guard let woken = wakeNext(upTo: deadline) else { break }
      wakeUps += 1
      for runtime in woken.runtimes {
        if !runtime.waitUntilSettled(stallNanoseconds: stallNanoseconds) {
          return .stalled(reached: now)
        }
      }
    }
    return .settled
  }

  private struct Woken {
    var runtimes: [EffectRuntime]
    var untracked: Int
  }

  /// Wakes the one sleeper due first (earliest deadline not after `limit`, then the first to
  /// go to sleep) and sets `now` to its deadline. Returns nil (after moving `now` to `limit`)
  /// when none is due. One at a time: waking two at once would let them race.
  private func wakeNext(upTo limit: Instant) -> Woken? {
    let due: Sleeper? = state.withLock { state in
      // A deadline saturated at the end of time (it overflowed) never comes due.
      let next = state.sleepers.filter { $0.value.deadline <= limit && $0.value.deadline < .endOfTime }
        .min { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
      guard let next else {
        if state.now < limit { state.now = limit }
        return nil
      }
      if state.now < next.value.deadline { state.now = next.value.deadline }
      return state.sleepers.removeValue(forKey: next.key)
    }
    guard let due else { return nil }
    var woken = Woken(runtimes: [], untracked: 0)
    if let runtime = due.runtime {
      runtime.unitWillWake()
      woken.runtimes.append(runtime)
    } else {
      woken.untracked += 1
    }
    due.continuation.resume()
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

/// `a + b`, clamped to ±`Int64.max` seconds instead of trapping on overflow.
func _saturatingSum(_ a: Duration, _ b: Duration) -> Duration {
  let (a, b) = (_clamped(a), _clamped(b))
  let attoseconds = a.components.attoseconds + b.components.attoseconds  // |each| < 10^18
  let (seconds, overflow) = a.components.seconds.addingReportingOverflow(b.components.seconds)
  if overflow { return _durationLimit(positive: a.components.seconds > 0) }
  let total = Duration(secondsComponent: seconds, attosecondsComponent: attoseconds)
  return _clamped(total)
}

/// `duration` clamped to ±`Int64.max` seconds.
func _clamped(_ duration: Duration) -> Duration {
  let limit = _durationLimit(positive: true)
  if duration > limit { return limit }
  if duration < .zero - limit { return .zero - limit }
  return duration
}

func _durationLimit(positive: Bool) -> Duration {
  positive ? .seconds(Int64.max) : .zero - .seconds(Int64.max)
}

/// A clock whose sleeps return at once (after checking for cancellation), advancing its time.
public final class ImmediateClock: Clock, Sendable {
  public typealias Instant = TestClock.Instant
  private let current = LockedValue(Instant())

  /// A clock at instant zero.
  public init() {}

  public var now: Instant { current.withLock { $0 } }
  public var minimumResolution: Duration { .zero }

  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    current.withLock { if $0 < deadline { $0 = deadline } }
  }
}
