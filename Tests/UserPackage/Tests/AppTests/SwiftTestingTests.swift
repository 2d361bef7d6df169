// Only `import ReducerKitTesting`: it re-exports the core (TestStore, TestClock, Effect, …).
@testable import App
import ReducerKitTesting
import Testing

@Test func passes() async {
  let clock = TestClock()
  let store = TestStore(initialState: Counter.State()) { Counter() } withDependencies: {
    $0.continuousClock = clock
  }
  await store.send(.increment) { $0.count = 1 }
  await store.send(.toggleTimer) { $0.isTimerOn = true }
  await clock.advance(by: .seconds(1))
  await store.receive(.timerTick) { $0.count = 2 }
  await store.send(.toggleTimer) { $0.isTimerOn = false }
  await store.finish()
}

/// Deliberately wrong: `make test-user-package` runs it alone and expects `swift test` to fail.
@Test func wrongStateExpectation() async {
  let store = TestStore(initialState: Counter.State()) { Counter() }
  await store.send(.increment) { $0.count = 5 }
}

/// Deliberately wrong: an action an effect sent is never asserted.
@Test func unassertedReceivedAction() async {
  let clock = TestClock()
  let store = TestStore(initialState: Counter.State()) { Counter() } withDependencies: {
    $0.continuousClock = clock
  }
  await store.send(.toggleTimer) { $0.isTimerOn = true }
  await clock.advance(by: .seconds(1))
  await store.send(.toggleTimer) { $0.isTimerOn = false }
}
