import ReducerKitMacros
import ReducerKitTesting
import Testing

@MainActor
struct CounterFeatureTests {
  @Test func increments() async {
    let store = TestStore(initialState: CounterFeature.State()) {
      CounterFeature()
    }
    await store.send(.incrementButtonTapped) {
      $0.count = 1
    }
    await store.send(.decrementButtonTapped) {
      $0.count = 0
    }
  }

  @Test func timer() async {
    let clock = TestClock()
    let store = TestStore(initialState: CounterFeature.State()) {
      CounterFeature()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.toggleTimerButtonTapped) {
      $0.isTimerRunning = true
    }
    await clock.advance(by: .seconds(1))
    await store.receive(\.timerTick) {
      $0.count = 1
    }
    await clock.advance(by: .seconds(1))
    await store.receive(\.timerTick) {
      $0.count = 2
    }
    await store.send(.toggleTimerButtonTapped) {
      $0.isTimerRunning = false
    }
  }

  @Test func numberFact() async {
    let store = TestStore(initialState: CounterFeature.State()) {
      CounterFeature()
    } withDependencies: {
      $0.numberFact.fetch = { "\($0) is a good number." }
    }
    await store.send(.factButtonTapped) {
      $0.isLoading = true
    }
    await store.receive(\.factResponse.success, "0 is a good number.") {
      $0.isLoading = false
      $0.fact = "0 is a good number."
    }
  }

  @Test func numberFactFailure() async {
    struct Offline: Error {}
    let store = TestStore(initialState: CounterFeature.State(count: 7)) {
      CounterFeature()
    } withDependencies: {
      $0.numberFact.fetch = { _ in throw Offline() }
    }
    await store.send(.factButtonTapped) {
      $0.isLoading = true
    }
    await store.receive(\.factResponse.failure) {
      $0.isLoading = false
    }
  }

  /// A wrong expectation is a test failure (the TestStore reaches Swift Testing without any
  /// setup in the test target).
  @Test func wrongExpectationFails() async {
    let store = TestStore(initialState: CounterFeature.State()) {
      CounterFeature()
    }
    await withKnownIssue {
      await store.send(.incrementButtonTapped) {
        $0.count = 2
      }
    }
  }
}
