import ReducerKit
import ReducerKitTesting
import Testing
import ReducerKitTestSupport

@Suite(.testStoreIssues) struct TestClockTests {
  struct Timer: Reducer {
    struct State: Equatable {
      var isOn = false
      var ticks = 0
    }
    enum Action: Equatable, Sendable { case toggle, tick }
    enum CancelID { case timer }
    @Dependency(\.continuousClock) var clock

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .toggle:
        state.isOn.toggle()
        guard state.isOn else { return .cancel(id: CancelID.timer) }
        return .run { send in
          while true {
            try await clock.sleep(for: .seconds(1))
            await send(.tick)
          }
        }
        .cancellable(id: CancelID.timer)
      case .tick:
        state.ticks += 1
        return .none
      }
    }
  }

  @Test func advanceRunsSleepersInDeadlineOrder() async {
    enum Action: Equatable, Sendable { case start, woke(Int) }
    let clock = TestClock()
    let store = TestStore(initialState: [Int]()) {
      Reduce<[Int], Action> { state, action in
        switch action {
        case .start:
          return .merge([3, 1, 2].map { seconds in
            .run { send in
              try await clock.sleep(for: .seconds(seconds))
              await send(.woke(seconds))
            }
          })
        case let .woke(seconds):
          state.append(seconds)
          return .none
        }
      }
    }
    await store.send(.start)
    await store.settle()
    #expect(clock.sleeperCount == 3)
    #expect(clock.nextDeadline == TestClock.Instant(offset: .seconds(1)))
    await clock.advance(by: .seconds(3))
    await store.receive(.woke(1)) { $0 = [1] }
    await store.receive(.woke(2)) { $0 = [1, 2] }
    await store.receive(.woke(3)) { $0 = [1, 2, 3] }
    #expect(clock.now == TestClock.Instant(offset: .seconds(3)))
    await store.finish()
  }

  @Test func oneSecondTimerAdvancedByThreeSecondsTicksExactlyThreeTimes() async {
    let clock = TestClock()
    let store = Store(initialState: Timer.State()) { Timer() } withDependencies: {
      $0.continuousClock = clock
    }
    store.send(.toggle)
    await store.idle()
    await clock.advance(by: .seconds(3))
    #expect(store.ticks == 3)
    await clock.advance(by: .milliseconds(999))
    #expect(store.ticks == 3)
    await clock.advance(by: .milliseconds(1))
    #expect(store.ticks == 4)
    store.send(.toggle)
    await store.finishEffects()
    #expect(store.effectCount == 0)
  }

  @Test func storeIsIdleWhenEveryEffectSleepsOnTheTestClock() async {
    let clock = TestClock()
    let store = Store(initialState: Timer.State()) { Timer() } withDependencies: {
      $0.continuousClock = clock
    }
    #expect(store.isIdle)
    store.send(.toggle)
    #expect(await store.idle(timeout: cap(.seconds(10))))
    #expect(store.isIdle)
    #expect(store.effectCount == 1)  // idle, yet not finished: it sleeps on the clock
    #expect(clock.sleeperCount == 1)
    #expect(clock.nextDeadline == TestClock.Instant(offset: .seconds(1)))
    await clock.advance(by: .seconds(1))
    #expect(store.isIdle)  // advancing returns once the woken effect sleeps again
    #expect(store.ticks == 1)
    store.send(.toggle)
    await store.finishEffects()
  }

  @Test func timerTestIsDeterministicFiftyTimesInARow() async {
    for iteration in 0..<50 {
      let clock = TestClock()
      let store = TestStore(initialState: Timer.State()) { Timer() } withDependencies: {
        $0.continuousClock = clock
      }
      // Exactly the documented pattern: send, then advance; no settle(), no yields.
      await store.send(.toggle) { $0.isOn = true }
      await clock.advance(by: .seconds(3))
      await store.receive(.tick) { $0.ticks = 1 }
      await store.receive(.tick) { $0.ticks = 2 }
      await store.receive(.tick) { $0.ticks = 3 }
      await store.send(.toggle) { $0.isOn = false }
      await store.finish()
      #expect(clock.now == TestClock.Instant(offset: .seconds(3)), "iteration \(iteration)")
    }
  }

  /// `advance` first lets the effects of stores that use the clock (as a dependency) reach it:
  /// an effect that does async work before its first sleep is not skipped by an `advance`
  /// right after `send`.
  @Test func advanceRightAfterSendWaitsForTheFirstSleeper() async {
    enum Action: Equatable, Sendable { case start, tick }
    // `advance` waits for the effect to reach its sleep up to `settleTimeout`, a cap on wall
    // time: on a loaded machine (a full `swift test` on 2 busy cores, the pool's threads
    // blocked by other tests) the default 10 s ran out before the effect's yields did, and
    // `advance` moved on without the sleeper. The cap is generous and scaled.
    let clock = TestClock(settleTimeout: cap(.seconds(60)))
    let store = TestStore(initialState: 0) {
      Reduce<Int, Action> { state, action in
        switch action {
        case .start:
          return .run { send in
            for _ in 0..<100 { await Task.yield() }  // async work before the first sleep
            try await clock.sleep(for: .seconds(1))
            await send(.tick)
          }
        case .tick:
          state += 1
          return .none
        }
      }
    } withDependencies: {
      $0.continuousClock = clock
    }
    store.timeout = cap(.seconds(60))  // advance settles the tick: receive finds it at once
    for _ in 0..<20 {
      await store.send(.start)
      await clock.advance(by: .seconds(1))  // no settle(): what the documentation shows
      await store.receive(.tick) { $0 += 1 }
    }
    await store.finish()
  }

  @Test func advanceToAnInstantAndRunUntilNoSleeperIsLeft() async {
    enum Action: Equatable, Sendable { case start, step(Int) }
    let clock = TestClock()
    let store = Store(initialState: [Int](), reducer: Reduce<[Int], Action> { state, action in
      switch action {
      case .start:
        return .run { send in
          for step in 1...5 {
            try await clock.sleep(for: .seconds(10))
            await send(.step(step))
          }
        }
      case let .step(step):
        state.append(step)
        return .none
      }
    })
    store.send(.start)
    await store.idle()
    await clock.advance(to: TestClock.Instant(offset: .seconds(25)))
    #expect(store.state == [1, 2])
    #expect(clock.now == TestClock.Instant(offset: .seconds(25)))
    await clock.run()
    #expect(store.state == [1, 2, 3, 4, 5])
    #expect(clock.now == TestClock.Instant(offset: .seconds(50)))
    #expect(clock.sleeperCount == 0)
    await store.finishEffects()
  }

  @Test func runStopsAfterTheLimitForEndlessTimers() async {
    let clock = TestClock()
    let store = Store(initialState: Timer.State()) { Timer() } withDependencies: {
      $0.continuousClock = clock
    }
    store.send(.toggle)
    await store.idle()
    await withKnownIssue {
      await clock.run(limit: 7)
    } matching: { text(of: $0).contains("still suspended after 7 wake-ups") }
    #expect(store.ticks == 7)
    #expect(clock.now == TestClock.Instant(offset: .seconds(7)))
    store.invalidate()
    await store.finishEffects()
  }

  @Test func sleepingUntilNowOrForZeroWaitsForTheNextAdvance() async throws {
    // As swift-clocks' TestClock: a due deadline does not return at once (0.1.0 did).
    let clock = TestClock()
    await clock.advance(by: .seconds(5))
    for sleep in [
      { @Sendable in try await clock.sleep(until: clock.now) },
      { @Sendable in try await clock.sleep(for: .zero) },
      { @Sendable in try await clock.sleep(until: TestClock.Instant(offset: .seconds(1))) },
    ] {
      let woke = Latch()
      let task = Task {
        try await sleep()
        woke.open()
      }
      #expect(await eventually { clock.sleeperCount == 1 })
      try await Task.sleep(for: .milliseconds(20))
      #expect(!woke.isOpen)
      await clock.advance()
      #expect(await woke.wait())
      try await task.value
    }
    #expect(clock.sleeperCount == 0)
    #expect(clock.now == TestClock.Instant(offset: .seconds(5)))
  }

  @Test func sleepersDueTogetherWakeInTheOrderTheySleptEveryTime() async {
    // TCA's check: square at 1 s; increment, then square, at 2 s: 2 -> 4 -> 5 -> 25. Waking
    // the two 2-second sleepers at once let them race (17 now and then on 0.1.0).
    enum Action: Equatable, Sendable { case squareAfter(Int), incrementAfter(Int), square, increment }
    struct Feature: Reducer {
      let clock: TestClock
      func reduce(into state: inout Int, action: Action) -> Effect<Action> {
        switch action {
        case let .squareAfter(seconds):
          return .run { send in
            try await clock.sleep(for: .seconds(seconds))
            await send(.square)
          }
        case let .incrementAfter(seconds):
          return .run { send in
            try await clock.sleep(for: .seconds(seconds))
            await send(.increment)
          }
        case .square:
          state *= state
          return .none
        case .increment:
          state += 1
          return .none
        }
      }
    }
    var outcomes: [Int: Int] = [:]
    for _ in 0..<20_000 {
      let clock = TestClock()
      let store = Store(initialState: 2, reducer: Feature(clock: clock))
      store.send(.squareAfter(1))
      store.send(.incrementAfter(2))
      store.send(.squareAfter(2))
      await clock.advance(by: .seconds(2))
      outcomes[store.state, default: 0] += 1
    }
    #expect(outcomes == [25: 20_000])
  }

  @Test func cancellingASleeperRemovesItAndThrows() async {
    let clock = TestClock()
    let task = Task {
      do {
        try await clock.sleep(for: .seconds(1))
        return "woke"
      } catch is CancellationError {
        return "cancelled"
      } catch {
        return "other"
      }
    }
    #expect(await eventually { clock.sleeperCount == 1 })
    task.cancel()
    #expect(await task.value == "cancelled")
    #expect(clock.sleeperCount == 0)
  }

  @Test func advanceWakesSleepersThatNoStoreStarted() async throws {
    let clock = TestClock()
    let task = Task {
      try await clock.sleep(for: .seconds(1))
      return clock.now
    }
    #expect(await eventually { clock.sleeperCount == 1 })
    await clock.advance(by: .milliseconds(500))
    #expect(clock.sleeperCount == 1)
    await clock.advance(by: .milliseconds(500))
    #expect(try await task.value == TestClock.Instant(offset: .seconds(1)))
  }

  @Test func instantArithmetic() {
    let start = TestClock.Instant()
    let later = start.advanced(by: .seconds(2))
    #expect(start < later)
    #expect(start.duration(to: later) == .seconds(2))
    #expect(later.offset == .seconds(2))
    #expect(TestClock().minimumResolution == .zero)
  }

  @Test func immediateClockSleepsReturnAtOnceAndMoveItsTime() async throws {
    let clock = ImmediateClock()
    try await clock.sleep(for: .seconds(60))
    #expect(clock.now == TestClock.Instant(offset: .seconds(60)))
    try await clock.sleep(until: TestClock.Instant(offset: .seconds(10)))  // in the past
    #expect(clock.now == TestClock.Instant(offset: .seconds(60)))
    let cancelled = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      do {
        try await clock.sleep(for: .seconds(1))
        return false
      } catch {
        return error is CancellationError
      }
    }
    #expect(await cancelled.value)
  }

  @Test func immediateClockRunsATimerFeatureWithoutWaiting() async {
    enum Action: Equatable, Sendable { case start, tick }
    let store = TestStore(initialState: 0) {
      Reduce<Int, Action> { state, action in
        switch action {
        case .start:
          return .run { send in
            @Dependency(\.continuousClock) var clock
            for _ in 1...3 {
              try await clock.sleep(for: .seconds(60))
              await send(.tick)
            }
          }
        case .tick:
          state += 1
          return .none
        }
      }
    } withDependencies: {
      $0.continuousClock = ImmediateClock()
    }
    await store.send(.start)
    await store.receive(.tick) { $0 = 1 }
    await store.receive(.tick) { $0 = 2 }
    await store.receive(.tick) { $0 = 3 }
    await store.finish()
  }
}
