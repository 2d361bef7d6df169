import ReducerKit
import ReducerKitTesting
import Testing

private struct Timer: Reducer {
  struct State: Equatable {
    var count = 0
    var isOn = false
    var fact: String?
  }
  enum Action: Equatable {
    case toggle, tick, fact, factResponse(String)
  }
  private enum CancelID { case timer }
  @Dependency(\.continuousClock) var clock

  var body: some ReducerOf<Self> {
    Reduce { state, action in
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
        state.count += 1
        return .none
      case .fact:
        return .run { [count = state.count] send in await send(.factResponse("\(count) is good")) }
      case let .factResponse(fact):
        state.fact = fact
        return .none
      }
    }
  }
}

@Test func smokeTimerWithTestClock() async {
  let clock = TestClock()
  let store = TestStore(initialState: Timer.State()) { Timer() } withDependencies: {
    $0.continuousClock = clock
  }
  await store.send(.toggle) { $0.isOn = true }
  await clock.advance(by: .seconds(1))
  await store.receive(.tick) { $0.count = 1 }
  await clock.advance(by: .seconds(2))
  await store.receive(.tick) { $0.count = 2 }
  await store.receive(.tick) { $0.count = 3 }
  await store.send(.fact)
  await store.receive(.factResponse("3 is good")) { $0.fact = "3 is good" }
  await store.send(.toggle) { $0.isOn = false }
  await store.finish()
}

@Test func smokeStoreSend() async {
  let store = Store(initialState: Timer.State()) { Timer() }
  store.send(.tick)
  #expect(store.count == 1)
  await store.send(.fact).finish()
  #expect(store.fact == "1 is good")
}
