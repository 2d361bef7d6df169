import ReducerKitMacros
import ReducerKitTesting
import Testing

@MainActor
struct SearchFeatureTests {
  @Test func debouncedSearch() async {
    let clock = TestClock()
    let store = TestStore(initialState: SearchFeature.State()) {
      SearchFeature()
    } withDependencies: {
      $0.continuousClock = clock
      $0.searchClient.search = { [SearchResult(name: "\($0) Bay")] }
    }
    await store.send(\.queryChanged, "S") {
      $0.query = "S"
    }
    await clock.advance(by: .milliseconds(200))
    await store.send(\.queryChanged, "San") {
      $0.query = "San"
    }
    await clock.advance(by: .milliseconds(300))
    await store.receive(\.searchResponse.success, [SearchResult(name: "San Bay")]) {
      $0.results = [SearchResult(name: "San Bay")]
    }
  }

  @Test func clearingCancels() async {
    let clock = TestClock()
    let store = TestStore(initialState: SearchFeature.State()) {
      SearchFeature()
    } withDependencies: {
      $0.continuousClock = clock
      $0.searchClient.search = { [SearchResult(name: $0)] }
    }
    await store.send(.queryChanged("San")) {
      $0.query = "San"
    }
    await store.send(.queryChanged("")) {
      $0.query = ""
    }
    await clock.advance(by: .seconds(1))
  }
}
