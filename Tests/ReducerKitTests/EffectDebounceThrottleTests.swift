import ReducerKit
import ReducerKitTesting
import Testing

@Suite(.testStoreIssues) struct EffectDebounceTests {
  struct Search: Reducer {
    struct State: Equatable {
      var query = ""
      var results: [String] = []
    }
    enum Action: Equatable, Sendable { case queryChanged(String), response(String), clear }
    enum CancelID { case search }
    @Dependency(\.continuousClock) var clock

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .clear:
        state.query = ""
        return .cancel(id: CancelID.search)
      case let .queryChanged(query):
        state.query = query
        return .run { send in await send(.response(query.uppercased())) }
          .debounce(id: CancelID.search, for: .milliseconds(300), clock: clock)
      case let .response(result):
        state.results.append(result)
        return .none
      }
    }
  }

  @Test func onlyTheLastOfRapidEffectsRunsAfterTheDelay() async {
    let clock = TestClock()
    let store = TestStore(initialState: Search.State()) { Search() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.queryChanged("s")) { $0.query = "s" }
    await store.send(.queryChanged("sw")) { $0.query = "sw" }
    await store.send(.queryChanged("swi")) { $0.query = "swi" }
    await store.send(.queryChanged("swift")) { $0.query = "swift" }
    await store.settle()
    #expect(clock.sleeperCount == 1)
    await clock.advance(by: .milliseconds(299))
    #expect(store.effectCount == 1)  // still waiting: nothing was sent yet
    await clock.advance(by: .milliseconds(1))
    await store.receive(.response("SWIFT")) { $0.results = ["SWIFT"] }
    await store.finish()
  }

  @Test func aNewEffectRestartsTheDelay() async {
    let clock = TestClock()
    let store = TestStore(initialState: Search.State()) { Search() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.queryChanged("a")) { $0.query = "a" }
    await store.settle()
    await clock.advance(by: .milliseconds(200))
    await store.send(.queryChanged("ab")) { $0.query = "ab" }
    await store.settle()
    await clock.advance(by: .milliseconds(200))  // 400 ms after "a", 200 ms after "ab"
    #expect(store.effectCount == 1)
    await clock.advance(by: .milliseconds(100))
    await store.receive(.response("AB")) { $0.results = ["AB"] }
    // Spaced further apart than the delay: each one runs.
    await store.send(.queryChanged("x")) { $0.query = "x" }
    await store.settle()
    await clock.advance(by: .milliseconds(300))
    await store.receive(.response("X")) { $0.results = ["AB", "X"] }
    await store.finish()
  }

  @Test func aPendingDebouncedEffectIsCancelledByItsID() async {
    let clock = TestClock()
    let store = TestStore(initialState: Search.State()) { Search() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.queryChanged("a")) { $0.query = "a" }
    await store.settle()
    await clock.advance(by: .milliseconds(100))
    await store.send(.clear) { $0.query = "" }
    #expect(clock.sleeperCount == 0)
    await clock.advance(by: .seconds(1))
    await store.finish()  // no response was ever sent
  }

  @Test func debounceOfNoneIsNone() {
    #expect(Effect<Int>.none.debounce(id: "x", for: .seconds(1), clock: TestClock()).isNone)
  }
}

@Suite(.testStoreIssues) struct EffectThrottleTests {
  struct Scroll: Reducer {
    struct State: Equatable { var received: [Int] = [] }
    enum Action: Equatable, Sendable { case scrolled(Int), throttled(Int) }
    enum CancelID { case scroll }
    let latest: Bool
    let clock: TestClock

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .scrolled(offset):
        return .run { send in await send(.throttled(offset)) }
          .throttle(id: CancelID.scroll, for: .seconds(1), clock: clock, latest: latest)
      case let .throttled(offset):
        state.received.append(offset)
        return .none
      }
    }
  }

  /// Sends `offset` and waits for the throttled effect to have decided (sent, dropped or
  /// scheduled), so that the next send sees its decision.
  private func scroll(_ store: TestStore<Scroll.State, Scroll.Action>, _ offset: Int) async {
    await store.send(.scrolled(offset)).finish()
    await store.settle()
  }

  @Test(arguments: [true, false])
  func firstActionPassesAtOnce(latest: Bool) async {
    let clock = TestClock()
    let store = TestStore(initialState: Scroll.State()) { Scroll(latest: latest, clock: clock) }
    await scroll(store, 1)
    await store.receive(.throttled(1)) { $0.received = [1] }
    await store.finish()
  }

  @Test func latestTrueSendsTheNewestActionAtTheEndOfTheWindow() async {
    let clock = TestClock()
    let store = TestStore(initialState: Scroll.State()) { Scroll(latest: true, clock: clock) }
    await scroll(store, 1)
    await store.receive(.throttled(1)) { $0.received = [1] }
    await clock.advance(by: .milliseconds(100))
    await scroll(store, 2)
    await clock.advance(by: .milliseconds(100))
    await scroll(store, 3)
    await clock.advance(by: .milliseconds(100))
    await scroll(store, 4)
    await clock.advance(by: .milliseconds(699))  // t = 999 ms: window still open
    #expect(clock.sleeperCount == 1)  // the newest action still waits for the window's end
    await clock.advance(by: .milliseconds(1))  // t = 1 s
    await store.receive(.throttled(4)) { $0.received = [1, 4] }
    // Long after the window: passes at once again.
    await clock.advance(by: .seconds(5))
    await scroll(store, 5)
    await store.receive(.throttled(5)) { $0.received = [1, 4, 5] }
    await store.finish()
  }

  @Test func latestFalseSendsTheFirstActionOfTheWindowAtItsEnd() async {
    let clock = TestClock()
    let store = TestStore(initialState: Scroll.State()) { Scroll(latest: false, clock: clock) }
    await scroll(store, 1)
    await store.receive(.throttled(1)) { $0.received = [1] }
    await clock.advance(by: .milliseconds(100))
    await scroll(store, 2)
    await clock.advance(by: .milliseconds(100))
    await scroll(store, 3)
    await scroll(store, 4)
    await clock.advance(by: .milliseconds(800))  // t = 1 s
    await store.receive(.throttled(2)) { $0.received = [1, 2] }
    await clock.advance(by: .seconds(5))
    await scroll(store, 5)
    await store.receive(.throttled(5)) { $0.received = [1, 2, 5] }
    await store.finish()
  }

  @Test(arguments: [true, false])
  func theWindowRestartsWhenTheDelayedActionIsSent(latest: Bool) async {
    let clock = TestClock()
    let store = TestStore(initialState: Scroll.State()) { Scroll(latest: latest, clock: clock) }
    await scroll(store, 1)
    await store.receive(.throttled(1)) { $0.received = [1] }
    await scroll(store, 2)
    await clock.advance(by: .seconds(1))  // t = 1 s: 2 is sent, a new window starts
    await store.receive(.throttled(2)) { $0.received = [1, 2] }
    await clock.advance(by: .milliseconds(500))
    await scroll(store, 3)  // t = 1.5 s: inside the new window, delayed to t = 2 s
    await clock.advance(by: .milliseconds(499))
    #expect(clock.sleeperCount == 1)
    await clock.advance(by: .milliseconds(1))
    await store.receive(.throttled(3)) { $0.received = [1, 2, 3] }
    await store.finish()
  }

  @Test func throttleOfNoneIsNone() {
    #expect(Effect<Int>.none.throttle(id: "x", for: .seconds(1), clock: TestClock(), latest: true).isNone)
  }
}
