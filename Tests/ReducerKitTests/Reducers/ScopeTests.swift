import ReducerKit
import ReducerKitTesting
import Testing

@Suite(.testStoreIssues) struct ScopeTests {
  struct Counter: Reducer {
    struct State: Equatable { var count = 0 }
    enum Action: Equatable, Sendable { case increment, incrementLater, incremented }
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .increment, .incremented:
        state.count += 1
        return .none
      case .incrementLater:
        return .run { send in await send(.incremented) }
      }
    }
  }

  struct ParentState: Equatable {
    var counter = Counter.State()
    var log: [String] = []
  }

  enum ParentAction: Equatable, Sendable {
    case counter(Counter.Action)
    case other

    /// The key-path-to-optional-computed-property form of a case path (see CasePath.swift).
    var counter: Counter.Action? {
      get { if case let .counter(action) = self { action } else { nil } }
      set { if let newValue { self = .counter(newValue) } }
    }

    static let counterCase = AnyCasePath<ParentAction, Counter.Action>(
      embed: { .counter($0) },
      extract: { if case let .counter(action) = $0 { action } else { nil } }
    )
  }

  /// The parent logs what it sees after the child ran.
  static func parentLog() -> Reduce<ParentState, ParentAction> {
    Reduce { state, action in
      switch action {
      case .counter(let child): state.log.append("\(child) -> \(state.counter.count)")
      case .other: state.log.append("other")
      }
      return .none
    }
  }

  @Test func keyPathActionForm() async {
    let store = TestStore<ParentState, ParentAction>(initialState: ParentState()) {
      Scope(state: \.counter, action: \.counter) { Counter() }
      Self.parentLog()
    }
    await store.send(.counter(.increment)) {
      $0.counter.count = 1
      $0.log = ["increment -> 1"]  // the scope ran first, the parent saw its result
    }
    await store.send(.other) { $0.log.append("other") }
    await store.finish()
  }

  @Test func casePathActionForm() async {
    let store = TestStore<ParentState, ParentAction>(initialState: ParentState()) {
      Scope(state: \.counter, action: ParentAction.counterCase) { Counter() }
      Self.parentLog()
    }
    await store.send(.counter(.increment)) {
      $0.counter.count = 1
      $0.log = ["increment -> 1"]
    }
    await store.finish()
  }

  @Test(arguments: [false, true])
  func childEffectsAreMappedBackToTheParentAction(useCasePath: Bool) async {
    let store = TestStore<ParentState, ParentAction>(initialState: ParentState()) {
      if useCasePath {
        Scope(state: \.counter, action: ParentAction.counterCase) { Counter() }
      } else {
        Scope(state: \.counter, action: \.counter) { Counter() }
      }
    }
    await store.send(.counter(.incrementLater))
    await store.receive(.counter(.incremented)) { $0.counter.count = 1 }
    await store.finish()
  }

  @Test func otherActionsDoNotReachTheChild() {
    let childCalls = Log<Counter.Action>()
    var state = ParentState()
    let scope = Scope<ParentState, ParentAction, Reduce<Counter.State, Counter.Action>>(
      state: \.counter, action: \.counter
    ) {
      Reduce { state, action in
        childCalls.append(action)
        return .none
      }
    }
    #expect(scope.reduce(into: &state, action: .other).isNone)
    #expect(childCalls.values.isEmpty)
    _ = scope.reduce(into: &state, action: .counter(.increment))
    #expect(childCalls.values == [.increment])
  }

  @Test func parentBeforeScopeSeesTheStateBeforeTheChild() async {
    let store = TestStore<ParentState, ParentAction>(initialState: ParentState()) {
      Self.parentLog()
      Scope(state: \.counter, action: \.counter) { Counter() }
    }
    await store.send(.counter(.increment)) {
      $0.log = ["increment -> 0"]
      $0.counter.count = 1
    }
    await store.finish()
  }

  @Test(arguments: [false, true])
  func scopeOnAnEnumStateCase(useActionCasePath: Bool) async {
    enum Screen: Equatable {
      case counter(Counter.State)
      case empty
      static let counterCase = AnyCasePath<Screen, Counter.State>(
        embed: { .counter($0) },
        extract: { if case let .counter(state) = $0 { state } else { nil } }
      )
    }
    enum Action: Equatable, Sendable {
      case counter(Counter.Action)
      case show
      var counter: Counter.Action? {
        get { if case let .counter(action) = self { action } else { nil } }
        set { if let newValue { self = .counter(newValue) } }
      }
      static let counterCase = AnyCasePath<Action, Counter.Action>(
        embed: { .counter($0) }, extract: { $0.counter })
    }
    let store = TestStore(initialState: Screen.empty) {
      if useActionCasePath {
        Scope(state: Screen.counterCase, action: Action.counterCase) { Counter() }
      } else {
        Scope(state: Screen.counterCase, action: \Action.counter) { Counter() }
      }
      Reduce<Screen, Action> { state, action in
        if case .show = action { state = .counter(Counter.State()) }
        return .none
      }
    }
    // Not in the counter case: ignored, and reported (as TCA's Scope does; 031112b was silent).
    await withKnownIssue {
      await store.send(.counter(.increment))
    } matching: { issue in
      text(of: issue).contains("Scope") && text(of: issue).contains("another case")
    }
    await store.send(.show) { $0 = .counter(Counter.State()) }
    await store.send(.counter(.increment)) { $0 = .counter(Counter.State(count: 1)) }
    await store.send(.counter(.incrementLater))
    await store.receive(.counter(.incremented)) { $0 = .counter(Counter.State(count: 2)) }
    await store.finish()
  }

  @Test func nestedScopes() async {
    struct Middle: Reducer {
      struct State: Equatable { var counter = Counter.State() }
      enum Action: Equatable, Sendable {
        case counter(Counter.Action)
        var counter: Counter.Action? {
          get { if case let .counter(action) = self { action } else { nil } }
          set { if let newValue { self = .counter(newValue) } }
        }
      }
      var body: some ReducerOf<Self> {
        Scope(state: \.counter, action: \.counter) { Counter() }
      }
    }
    struct Root: Reducer {
      struct State: Equatable { var middle = Middle.State() }
      enum Action: Equatable, Sendable {
        case middle(Middle.Action)
        var middle: Middle.Action? {
          get { if case let .middle(action) = self { action } else { nil } }
          set { if let newValue { self = .middle(newValue) } }
        }
      }
      var body: some ReducerOf<Self> {
        Scope(state: \.middle, action: \.middle) { Middle() }
      }
    }
    let store = TestStore(initialState: Root.State()) { Root() }
    await store.send(.middle(.counter(.increment))) { $0.middle.counter.count = 1 }
    await store.send(.middle(.counter(.incrementLater)))
    await store.receive(.middle(.counter(.incremented))) { $0.middle.counter.count = 2 }
    await store.finish()
  }
}
