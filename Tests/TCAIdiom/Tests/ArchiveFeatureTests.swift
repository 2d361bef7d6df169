import ReducerKitMacros
import ReducerKitTesting
import Testing

@MainActor
struct ArchiveFeatureTests {
  @Test func anAlertCaseIsClearedAfterItsAction() async {
    let store = TestStore(initialState: ArchiveFeature.State(items: ["a", "b"])) {
      ArchiveFeature()
    }
    await store.send(.clearButtonTapped) {
      $0.destination = .alert(
        AlertState {
          TextState("Clear 2 items?")
        } actions: {
          ButtonState(role: .destructive, action: .confirmClear) { TextState("Clear") }
          ButtonState(role: .cancel) { TextState("Cancel") }
        })
    }
    #expect(store.state.destination?.alert?.buttons.count == 2)
    await store.send(\.destination.alert.confirmClear) {
      $0.items = []
      $0.destination = nil
    }
  }

  @Test func aFeatureCaseStaysAfterItsActions() async {
    let store = TestStore(initialState: ArchiveFeature.State()) {
      ArchiveFeature()
    }
    await store.send(.tickerButtonTapped) {
      $0.destination = .ticker(TickerFeature.State())
    }
    await store.send(\.destination.ticker.tick) {
      $0.destination?.ticker?.ticks = 1
    }
    await store.send(.destination(.dismiss)) {
      $0.destination = nil
    }
  }
}
