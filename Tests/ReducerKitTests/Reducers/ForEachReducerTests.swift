// forEach over IdentifiedArray needs the IdentifiedCollections trait (`make test-swift` turns
// it on: `swift test --traits IdentifiedCollections`); a plain `swift test` skips this file.
#if IdentifiedCollections
import ReducerKit
import ReducerKitTesting
import Testing

@Suite(.testStoreIssues) struct ForEachReducerTests {
  struct Row: Reducer {
    struct State: Equatable, Identifiable {
      let id: Int
      var title = ""
      var isDone = false
    }
    enum Action: Hashable, Sendable { case toggle, load, loaded(String) }
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .toggle:
        state.isDone.toggle()
        return .none
      case .load:
        return .run { [id = state.id] send in await send(.loaded("row \(id)")) }
      case let .loaded(title):
        state.title = title
        return .none
      }
    }
  }

  struct List: Reducer {
    struct State: Equatable {
      var rows: IdentifiedArrayOf<Row.State> = []
      var doneCount = 0
    }
    enum Action: Equatable, Sendable {
      case rows(IdentifiedActionOf<Row>)
      case add(Int)
      case loadAll
      var rows: IdentifiedActionOf<Row>? {
        get { if case let .rows(action) = self { action } else { nil } }
        set { if let newValue { self = .rows(newValue) } }
      }
      static let rowsCase = AnyCasePath<Action, IdentifiedActionOf<Row>>(
        embed: { .rows($0) }, extract: { $0.rows })
    }
    var useCasePath = false

    var body: some ReducerOf<Self> {
      let core = Reduce<State, Action> { state, action in
        switch action {
        case let .add(id):
          state.rows.append(Row.State(id: id))
          return .none
        case .loadAll:
          return .merge(state.rows.ids.map { .send(.rows(.element(id: $0, action: .load))) })
        case .rows:
          // Runs after the element: counts the rows as they are now.
          state.doneCount = state.rows.filter(\.isDone).count
          return .none
        }
      }
      if useCasePath {
        core.forEach(\.rows, action: Action.rowsCase) { Row() }
      } else {
        core.forEach(\.rows, action: \.rows) { Row() }
      }
    }
  }

  static let threeRows = List.State(rows: [Row.State(id: 1), Row.State(id: 2), Row.State(id: 3)])

  @Test(arguments: [false, true])
  func elementActionChangesOnlyThatElementBeforeTheParentRuns(useCasePath: Bool) async {
    let store = TestStore(initialState: Self.threeRows) { List(useCasePath: useCasePath) }
    await store.send(.rows(.element(id: 2, action: .toggle))) {
      $0.rows[id: 2]?.isDone = true
      $0.doneCount = 1
    }
    await store.send(.rows(.element(id: 3, action: .toggle))) {
      $0.rows[id: 3]?.isDone = true
      $0.doneCount = 2
    }
    await store.finish()
  }

  @Test(arguments: [false, true])
  func elementEffectsMapBackWithTheRightID(useCasePath: Bool) async {
    let store = TestStore(initialState: Self.threeRows) { List(useCasePath: useCasePath) }
    await store.send(.rows(.element(id: 2, action: .load)))
    await store.receive(.rows(.element(id: 2, action: .loaded("row 2")))) {
      $0.rows[id: 2]?.title = "row 2"
    }
    await store.finish()
  }

  @Test func everyElementLoadsIndependently() async {
    let store = TestStore(initialState: Self.threeRows) { List() }
    store.exhaustivity = .off  // the three responses arrive in any order
    await store.send(.loadAll)
    await store.finish()
    #expect(store.state.rows.map(\.title) == ["row 1", "row 2", "row 3"])
  }

  @Test func actionForAMissingIDIsIgnoredAndReported() async {
    let store = TestStore(initialState: Self.threeRows) { List() }
    await withKnownIssue {  // no row 99: nothing changes
      await store.send(.rows(.element(id: 99, action: .toggle)))
      await store.send(.rows(.element(id: 99, action: .load)))
    } matching: { text(of: $0).contains("no element with id 99") }
    #expect(store.effectCount == 0)
    await store.finish()
  }

  @Test func rowsAddedLaterAreReduced() async {
    let store = TestStore(initialState: List.State()) { List() }
    await store.send(.add(7)) { $0.rows = [Row.State(id: 7)] }
    await store.send(.rows(.element(id: 7, action: .toggle))) {
      $0.rows[id: 7]?.isDone = true
      $0.doneCount = 1
    }
    await store.finish()
  }

  @Test func identifiedActionIsEquatableAndHashable() {
    let a = IdentifiedAction<Int, Row.Action>.element(id: 1, action: .toggle)
    #expect(a == .element(id: 1, action: .toggle))
    #expect(a != .element(id: 2, action: .toggle))
    #expect(Set([a, a, .element(id: 1, action: .load)]).count == 2)
  }
}
#endif
