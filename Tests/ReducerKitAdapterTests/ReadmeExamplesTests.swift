import ReducerKit
import ReducerKitTesting
import Testing

// The examples of docs/coming-from.md ("From ReactorKit / Reducer", "From ReSwift") and the
// host endpoint of docs/host-effects.md, verbatim, so that they keep compiling and doing what the
// docs say.

// MARK: Effects the host fulfils (the Swift part; the registration line needs ReducerKitFFI)

enum NumberFactEndpoint: DependencyKey {
  static let liveValue = HostEndpoint<Int, String>("numberFact") { n in "\(n) is a good number." }
}
extension DependencyValues {
  var numberFact: HostEndpoint<Int, String> {
    get { self[NumberFactEndpoint.self] }
    set { self[NumberFactEndpoint.self] = newValue }
  }
}

struct Fact: Reducer {
  struct State: Codable, Equatable, Sendable { var count = 0; var fact: String? }
  enum Action: Codable, Equatable, Sendable { case factButtonTapped, factResponse(String) }
  @Dependency(\.numberFact) var numberFact

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .factButtonTapped:
      return .run { [count = state.count] send in
        await send(.factResponse(try await numberFact(count)))
      } catch: { error, send in
        await send(.factResponse("No fact: \((error as? HostEndpointError)?.message ?? "\(error)")"))
      }
    case let .factResponse(fact):
      state.fact = fact
      return .none
    }
  }
}

enum Readme {
  // MARK: Coming from ReactorKit / Reducer

  struct CounterReduce: MutationReducer {
    enum Action: Sendable { case increase, load }
    enum Mutation: Sendable { case setCount(Int) }
    struct State: Sendable, Equatable { var count = 0 }

    let initialState = State()
    @Dependency(\.continuousClock) var clock

    func mutate(action: Action) async throws {
      switch action {
      case .increase:
        mutate(.setCount(currentState.count + 1))
      case .load:
        try await clock.sleep(for: .seconds(1))  // cancellable, drivable by a TestClock
        mutate(.setCount(42))
      }
    }

    func reduce(state: State, mutation: Mutation) -> State {
      var state = state
      switch mutation {
      case let .setCount(count): state.count = count
      }
      return state
    }

    func shouldCancel(_ current: Action, _ upcoming: Action) -> Bool {
      if case .load = current, case .load = upcoming { return true }
      return false
    }
  }

  // MARK: Coming from ReSwift

  struct AppState: Equatable { var counter = 0 }

  enum CounterAction: ReduxAction { case increase, increaseLater }

  struct AppEnvironment: Sendable {
    var wait: @Sendable () async throws -> Void
  }

  static func counterReducer(
    state: inout AppState, action: any ReduxAction, environment: AppEnvironment
  ) -> Task<any ReduxAction, Error>? {
    switch action as? CounterAction {
    case .increase?:
      state.counter += 1
      return nil
    case .increaseLater?:
      return Task {
        try await environment.wait()
        return CounterAction.increase
      }
    case nil:
      return nil
    }
  }

  static let logger: Middleware<AppState, any ReduxAction> = { dispatch, getState in
    { next in
      { action in
        print("dispatching", action)
        next(action)
      }
    }
  }

  @MainActor final class CounterLabel: StoreSubscriber {
    var text = ""
    func newState(state: Int) { text = "\(state)" }
  }
}

@Suite("README examples", .testStoreIssues)
struct ReadmeExamplesTests {
  @Test func comingFromReactorKit() async {
    let store = MutationStore(Readme.CounterReduce())
    await store.action(.increase).finish()
    #expect(store.count == 1)

    let subscription = store.subscribe(select: \.count) { print("count:", $0) }
    defer { subscription.cancel() }

    // The adapter is a core reducer: test it exhaustively with the core's TestStore.
    let clock = TestClock()
    let test = TestStore(initialState: Readme.CounterReduce.State()) {
      MutationAdapter(Readme.CounterReduce())
    } withDependencies: {
      $0.continuousClock = clock
    }
    await test.send(.action(.load))
    await test.send(.action(.load))  // shouldCancel: the first load is cancelled
    await test.settle()
    await clock.advance(by: .seconds(1))
    await test.receive(.mutation(.setCount(42))) { $0.count = 42 }
    await test.finish()
  }

  @MainActor
  @Test func comingFromReSwift() async {
    let store = ReduxStore<Readme.AppState, any ReduxAction, Readme.AppEnvironment>(
      reducer: Readme.counterReducer,
      state: Readme.AppState(),
      environment: Readme.AppEnvironment(wait: {}),
      middleware: [Readme.logger]
    )
    let label = Readme.CounterLabel()
    store.subscribe(label) { $0.select(\.counter) }

    store.dispatch(Readme.CounterAction.increase)
    #expect(label.text == "1")
    store.dispatch(Readme.CounterAction.increaseLater)
    await store.core.finishEffects()  // the task is an effect of the core store
    #expect(label.text == "2")
  }

  /// The suite trait turns `TestStore` failures into Swift Testing issues (this target does not
  /// link IssueReportingTestSupport): a wrong assertion must fail the test.
  @Test func hostEndpointInSwift() async {
    let live = TestStore(initialState: Fact.State(count: 3)) { Fact() }
    await live.send(.factButtonTapped)
    await live.receive(.factResponse("3 is a good number.")) { $0.fact = "3 is a good number." }
    let overridden = TestStore(initialState: Fact.State()) { Fact() } withDependencies: {
      $0.numberFact.implementation = { _ in "a test fact" }
    }
    await overridden.send(.factButtonTapped)
    await overridden.receive(.factResponse("a test fact")) { $0.fact = "a test fact" }
    let failing = TestStore(initialState: Fact.State()) { Fact() } withDependencies: {
      $0.numberFact.implementation = { _ in throw HostEndpointError(endpoint: "numberFact", message: "offline") }
    }
    await failing.send(.factButtonTapped)
    await failing.receive(.factResponse("No fact: offline")) { $0.fact = "No fact: offline" }
  }

  @Test func testStoreFailuresFailTheTest() async {
    await withKnownIssue {
      let store = TestStore(initialState: Readme.CounterReduce.State()) {
        MutationAdapter(Readme.CounterReduce())
      }
      await store.send(.action(.increase))
      await store.receive(.mutation(.setCount(2))) { $0.count = 2 }
      await store.finish()
    }
  }
}

extension Readme.CounterReduce.Action: Equatable {}
extension Readme.CounterReduce.Mutation: Equatable {}
