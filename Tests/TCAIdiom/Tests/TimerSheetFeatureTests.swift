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

@MainActor
struct SheetsFeatureTests {
  @Test func presentedPlainFeature() async {
    let store = TestStore(initialState: SheetsFeature.State()) {
      SheetsFeature()
    }
    await store.send(.showCounterButtonTapped) {
      $0.counter = CounterFeature.State()
    }
    await store.send(\.counter.incrementButtonTapped) {
      $0.counter?.count = 1
    }
    await store.send(.counter(.dismiss)) {
      $0.counter = nil
    }
  }

  @Test func dismissingCancelsThePresentedFeaturesEffects() async {
    let clock = TestClock()
    let store = TestStore(initialState: SheetsFeature.State()) {
      SheetsFeature()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.showCounterButtonTapped) {
      $0.counter = CounterFeature.State()
    }
    await store.send(\.counter.toggleTimerButtonTapped) {
      $0.counter?.isTimerRunning = true
    }
    await clock.advance(by: .seconds(1))
    await store.receive(\.counter.timerTick) {
      $0.counter?.count = 1
    }
    await store.send(.counter(.dismiss)) {
      $0.counter = nil
    }
    await clock.advance(by: .seconds(3))
  }

  @Test func optionalEnumOfFeatures() async {
    let clock = TestClock()
    let store = TestStore(initialState: SheetsFeature.State()) {
      SheetsFeature()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.showTickerModeButtonTapped) {
      $0.mode = .ticker(TickerFeature.State())
    }
    await store.send(\.mode.ticker.onAppear)
    await clock.advance(by: .seconds(1))
    await store.receive(\.mode.ticker.tick) {
      $0.mode?.ticker?.ticks = 1
    }
    await withKnownIssue {
      await store.send(\.mode.search.queryChanged, "not shown")
    }
    await store.send(\.mode.ticker.tick) {
      $0.mode?.ticker?.ticks = 2
    }
    await store.cancelEffects()
  }
}
