import ReducerKit
import ReducerKitTesting
import Testing

@Suite(.testStoreIssues) struct CombineReducersTests {
  enum Action: Equatable, Sendable { case go, done(String) }

  static func logging(_ name: String) -> Reduce<[String], Action> {
    Reduce { state, action in
      guard action == .go else { return .none }
      state.append(name)
      return .none
    }
  }

  static func finishing(_ name: String) -> Reduce<[String], Action> {
    Reduce { _, action in
      guard action == .go else { return .none }
      return .run { send in await send(.done(name)) }
    }
  }

  @Test func runsReducersInOrderOnTheSameState() async {
    let store = TestStore(initialState: [String]()) {
      CombineReducers {
        Self.logging("a")
        Self.logging("b")
        Self.logging("c")
      }
    }
    await store.send(.go) { $0 = ["a", "b", "c"] }
    await store.finish()
  }

  @Test func mergesTheEffectsOfEveryReducer() async {
    let store = TestStore(initialState: [String]()) {
      CombineReducers {
        Self.finishing("x")
        EmptyReducer()
        Self.finishing("y")
        Reduce { state, action in
          if case let .done(name) = action { state.append(name) }
          return .none
        }
      }
    }
    store.exhaustivity = .off  // the two effects finish in any order
    await store.send(.go)
    await store.finish()
    #expect(store.state.sorted() == ["x", "y"])
  }

  @Test func emptyBuilderIsEmptyReducer() async {
    var state = ["unchanged"]
    let reducer = CombineReducers<[String], Action, EmptyReducer<[String], Action>> {}
    #expect(reducer.reduce(into: &state, action: .go).isNone)
    #expect(state == ["unchanged"])
  }

  struct Feature: Reducer {
    typealias State = [String]
    typealias Action = CombineReducersTests.Action
    var isVerbose: Bool
    var extraSteps: Int
    var withOptional: Bool

    var body: some ReducerOf<Self> {
      CombineReducersTests.logging("start")
      if isVerbose {
        CombineReducersTests.logging("verbose")
      } else {
        CombineReducersTests.logging("quiet")
      }
      for step in 0..<extraSteps {
        CombineReducersTests.logging("step \(step)")
      }
      if withOptional {
        CombineReducersTests.logging("optional")
      }
      CombineReducers {
        CombineReducersTests.logging("nested")
      }
      Reduce(CombineReducersTests.logging("erased"))
    }
  }

  @Test func bodyBuiltWithIfElseAndForLoops() async {
    let verbose = TestStore(initialState: [String]()) {
      Feature(isVerbose: true, extraSteps: 3, withOptional: true)
    }
    await verbose.send(.go) {
      $0 = ["start", "verbose", "step 0", "step 1", "step 2", "optional", "nested", "erased"]
    }
    await verbose.finish()

    let quiet = TestStore(initialState: [String]()) {
      Feature(isVerbose: false, extraSteps: 0, withOptional: false)
    }
    await quiet.send(.go) { $0 = ["start", "quiet", "nested", "erased"] }
    await quiet.finish()
  }

  @Test func sequencedReducersReturnTheOnlyNonNoneEffectUnchanged() {
    let run = Effect<Action>.run { _ in }
    let reducer = CombineReducers {
      Self.logging("a")
      Reduce<[String], Action> { _, _ in run }
      Self.logging("b")
    }
    var state: [String] = []
    #expect(reducer.reduce(into: &state, action: .go) == run)
    #expect(state == ["a", "b"])
  }

  @Test func forLoopReducersMergeTheirEffects() async {
    struct Many: Reducer {
      typealias State = [String]
      typealias Action = CombineReducersTests.Action
      var body: some ReducerOf<Self> {
        for name in ["p", "q", "r"] {
          CombineReducersTests.finishing(name)
        }
        Reduce { state, action in
          if case let .done(name) = action { state.append(name) }
          return .none
        }
      }
    }
    let store = TestStore(initialState: [String]()) { Many() }
    store.exhaustivity = .off
    await store.send(.go)
    await store.finish()
    #expect(store.state.sorted() == ["p", "q", "r"])
  }
}
