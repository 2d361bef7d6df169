import ReducerKit
import ReducerKitTesting
import Testing

@Suite(.testStoreIssues) struct OnChangeTests {
  struct Search: Reducer {
    struct State: Equatable {
      var query = ""
      var other = 0
      var changes: [String] = []
      var searched: [String] = []
    }
    enum Action: Equatable, Sendable { case setQuery(String), bumpOther, search(String) }

    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case let .setQuery(query): state.query = query
        case .bumpOther: state.other += 1
        case let .search(query): state.searched.append(query)
        }
        return .none
      }
      .onChange(of: \.query) { oldValue, newValue in
        Reduce { state, _ in
          state.changes.append("\(oldValue)->\(newValue)")
          return newValue.isEmpty ? .none : .send(.search(newValue))
        }
      }
    }
  }

  @Test func firesWithOldAndNewValueOnlyWhenTheValueChanges() async {
    let store = TestStore(initialState: Search.State()) { Search() }
    await store.send(.setQuery("a")) {
      $0.query = "a"
      $0.changes = ["->a"]
    }
    await store.receive(.search("a")) { $0.searched = ["a"] }
    await store.send(.setQuery("a"))  // same value: no change, nothing fires
    await store.send(.bumpOther) { $0.other = 1 }  // another field: nothing fires
    await store.send(.setQuery("ab")) {
      $0.query = "ab"
      $0.changes = ["->a", "a->ab"]
    }
    await store.receive(.search("ab")) { $0.searched = ["a", "ab"] }
    await store.send(.setQuery("")) {
      $0.query = ""
      $0.changes = ["->a", "a->ab", "ab->"]
    }
    await store.finish()
  }

  @Test func baseEffectAndChangeEffectAreMerged() async {
    struct State: Equatable {
      var value = 0
      var log: [String] = []
    }
    enum Action: Equatable, Sendable { case set(Int), base, changed(Int, Int) }
    let store = TestStore(initialState: State()) {
      Reduce<State, Action> { state, action in
        switch action {
        case let .set(value):
          state.value = value
          return .send(.base)
        case .base:
          state.log.append("base")
          return .none
        case let .changed(old, new):
          state.log.append("changed \(old)->\(new)")
          return .none
        }
      }
      .onChange(of: \.value) { old, new in
        Reduce { _, _ in .send(.changed(old, new)) }
      }
    }
    await store.send(.set(1)) { $0.value = 1 }
    await store.receive(.base) { $0.log = ["base"] }  // the base reducer's effect comes first
    await store.receive(.changed(0, 1)) { $0.log = ["base", "changed 0->1"] }
    await store.send(.set(1))  // unchanged: only the base effect
    await store.receive(.base) { $0.log = ["base", "changed 0->1", "base"] }
    await store.finish()
  }
}
