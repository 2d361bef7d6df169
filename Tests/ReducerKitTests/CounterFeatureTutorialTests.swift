// The TCA tutorial's counter: `CounterFeature` with `Reduce`, `.run` capturing
// `[count = state.count]`, `.send(.nextAction)`-style chaining, `private enum CancelID`,
// `.cancellable(id: CancelID.timer)`, `StoreOf`, and `Store(initialState:) { CounterFeature() }`.
import ReducerKit
import ReducerKitTesting
import Testing

struct CounterFeature: Reducer {
  struct State: Equatable {
    var count = 0
    var fact: String?
    var isLoading = false
    var isTimerOn = false
    var factsShown = 0
  }

  enum Action: Equatable, Sendable {
    // Named after what happened in the UI.
    case decrementButtonTapped
    case factResponse(String)
    case getFactButtonTapped
    case incrementButtonTapped
    case nextAction
    case timerTick
    case toggleTimerButtonTapped
  }

  private enum CancelID { case timer }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.numberFact) var numberFact

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .decrementButtonTapped:
        state.count -= 1
        state.fact = nil
        return .none

      case .getFactButtonTapped:
        state.fact = nil
        state.isLoading = true
        // `state` is inout: capture the value the effect needs.
        return .run { [count = state.count] send in
          let fact = try await numberFact.fetch(count)
          await send(.factResponse(fact))
        }

      case let .factResponse(fact):
        state.fact = fact
        state.isLoading = false
        return .send(.nextAction)

      case .incrementButtonTapped:
        state.count += 1
        state.fact = nil
        return .none

      case .nextAction:
        state.factsShown += 1
        return .none

      case .timerTick:
        state.count += 1
        state.fact = nil
        return .none

      case .toggleTimerButtonTapped:
        state.isTimerOn.toggle()
        if state.isTimerOn {
          return .run { send in
            while true {
              try await clock.sleep(for: .seconds(1))
              await send(.timerTick)
            }
          }
          .cancellable(id: CancelID.timer)
        } else {
          return .cancel(id: CancelID.timer)
        }
      }
    }
  }
}

/// The tutorial's view holds `let store: StoreOf<CounterFeature>`; no SwiftUI here.
struct ContentView {
  let store: StoreOf<CounterFeature>

  var countText: String { "\(store.count)" }
  func incrementTapped() { store.send(.incrementButtonTapped) }
  func decrementTapped() { store.send(.decrementButtonTapped) }
}

@Suite(.testStoreIssues) struct SeedCounterFeatureTests {
  @Test func viewWithStoreOfCounterFeature() {
    let view = ContentView(
      store: Store(initialState: CounterFeature.State()) {
        CounterFeature()
      }
    )
    #expect(view.countText == "0")
    view.incrementTapped()
    view.incrementTapped()
    view.decrementTapped()
    #expect(view.countText == "1")
    #expect(view.store.state == CounterFeature.State(count: 1))
  }

  @Test func incrementAndDecrement() async {
    let store = TestStore(initialState: CounterFeature.State()) { CounterFeature() }
    await store.send(.incrementButtonTapped) { $0.count = 1 }
    await store.send(.decrementButtonTapped) { $0.count = 0 }
    await store.finish()
  }

  @Test func getFactCapturesTheCountAndChainsNextAction() async {
    let store = TestStore(initialState: CounterFeature.State(count: 3)) { CounterFeature() } withDependencies: {
      $0.numberFact = NumberFactClient { "\($0) is the number of the tutorial." }
    }
    await store.send(.getFactButtonTapped) { $0.isLoading = true }
    await store.receive(.factResponse("3 is the number of the tutorial.")) {
      $0.isLoading = false
      $0.fact = "3 is the number of the tutorial."
    }
    await store.receive(.nextAction) { $0.factsShown = 1 }
    await store.finish()
  }

  @Test func timerTicksEverySecondUntilToggledOff() async {
    let clock = TestClock()
    let store = TestStore(initialState: CounterFeature.State()) { CounterFeature() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.toggleTimerButtonTapped) { $0.isTimerOn = true }
    await store.settle()
    await clock.advance(by: .seconds(1))
    await store.receive(.timerTick) { $0.count = 1 }
    await clock.advance(by: .seconds(2))
    await store.receive(.timerTick) { $0.count = 2 }
    await store.receive(.timerTick) { $0.count = 3 }
    await store.send(.getFactButtonTapped) { $0.isLoading = true }
    await store.receive(.factResponse("3 is a test number.")) {
      $0.isLoading = false
      $0.fact = "3 is a test number."
    }
    await store.receive(.nextAction) { $0.factsShown = 1 }
    await store.send(.toggleTimerButtonTapped) { $0.isTimerOn = false }
    await clock.advance(by: .seconds(5))  // cancelled: no more ticks
    await store.finish()
  }

  @Test func factFailureWithoutCatchIsReportedNotLost() async {
    struct Offline: Error {}
    let reported = Log<EffectError>()
    let store = Store(initialState: CounterFeature.State()) {
      CounterFeature()
    } withDependencies: {
      $0.numberFact = NumberFactClient { _ in throw Offline() }
      $0.reportEffectError = EffectErrorReporter { reported.append($0) }
    }
    await store.send(.getFactButtonTapped).finish()
    #expect(reported.count == 1)
    #expect(reported.values.first?.error is Offline)
    #expect(store.isLoading)  // no response arrived
  }

  @Test func liveStoreFetchesTheFactThroughTheLiveClient() async {
    let store = Store(initialState: CounterFeature.State(count: 7)) { CounterFeature() }
    await store.send(.getFactButtonTapped).finish()
    #expect(store.fact == "7 is a good number.")
    #expect(store.factsShown == 1)
  }
}
