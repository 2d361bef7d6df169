import ReducerKitMacros
import Testing

@Reducer
struct Child {
  struct State: Equatable { var n = 0 }
  enum Action: Equatable { case tap, set(Int), pair(a: Int, String) }
  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .tap: state.n += 1
      case let .set(n): state.n = n
      case .pair: break
      }
      return .none
    }
  }
}

@Reducer
struct Parent {
  struct State: Equatable { var child = Child.State(); var optional: Child.State? }
  enum Action: Equatable { case child(Child.Action), optional(Child.Action) }
  var body: some ReducerOf<Self> {
    Scope(state: \.child, action: \.child) { Child() }
    Reduce { _, _ in .none }
      .ifLet(\.optional, action: \.optional) { Child() }
  }
}

@Test func smoke() {
  let action = Parent.Action.child(.set(3))
  #expect(action[case: \.child] == .set(3))
  #expect(action.is(\.child))
  #expect(!action.is(\.optional))
  #expect(action[case: \.child.set] == 3)
  let path: CaseKeyPath<Parent.Action, Int> = \.child.set
  #expect(path(4) == .child(.set(4)))
}
