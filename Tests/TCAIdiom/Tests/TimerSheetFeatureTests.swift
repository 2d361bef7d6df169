import ReducerKitMacros
import ReducerKitTesting
import Testing

@MainActor
struct TimerSheetFeatureTests {
  @Test func hidingTheChildCancelsItsEffects() async {
    let clock = TestClock()
    let store = TestStore(initialState: TimerSheetFeature.State()) {
      TimerSheetFeature()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.toggleTickerButtonTapped) {
      $0.ticker = TickerFeature.State()
    }
    await store.send(\.ticker.onAppear)
    await clock.advance(by: .seconds(1))
    await store.receive(\.ticker.tick) {
      $0.ticker?.ticks = 1
    }
    await store.send(.toggleTickerButtonTapped) {
      $0.ticker = nil
    }
    // The ticker's effect was cancelled with it: nothing more arrives, nothing is left running.
    await clock.advance(by: .seconds(5))
  }

  @Test func dashboardScopesBothChildren() async {
    let store = TestStore(initialState: DashboardFeature.State()) {
      DashboardFeature()
    }
    await store.send(\.counter.incrementButtonTapped) {
      $0.counter.count = 1
    }
    await store.send(.timerSheet(.toggleTickerButtonTapped)) {
      $0.timerSheet.ticker = TickerFeature.State()
    }
  }
}
