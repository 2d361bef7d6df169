import Observation
import ReducerKit
import ReducerKitTesting
import Testing
import ReducerKitTestSupport

/// A core feature that composes a mutation-style child and a ReSwift-style child with `Scope`:
/// both adapters are plain core reducers.
struct OneApp: Reducer {
  struct State: Equatable {
    var timer = TimerReduce.State()
    var fetch = FetchState()
  }

  enum Action: Sendable, Equatable {
    case timer(MutationAdapter<TimerReduce>.Action)
    case fetch(FetchAction)
  }

  // Stored, not created inline in `body`: the mutation adapter keeps per-feature bookkeeping.
  let timer = MutationAdapter(TimerReduce())
  let fetch: FunctionReducer<FetchState, FetchAction, UserService>

  init(userService: UserService) {
    fetch = FunctionReducer(fetchReducer, environment: userService)
  }

  var body: some ReducerOf<Self> {
    Scope(
      state: \.timer,
      action: AnyCasePath(
        embed: Action.timer, extract: { if case let .timer(action) = $0 { action } else { nil } })
    ) { timer }
    Scope(
      state: \.fetch,
      action: AnyCasePath(
        embed: Action.fetch, extract: { if case let .fetch(action) = $0 { action } else { nil } })
    ) { fetch }
  }
}

/// The ReactorKit-style counter with the delay read from the core's dependencies instead of an
/// environment.
func dependencyClockReducer(
  state: inout AppState, action: any ReduxAction, environment: Void
) -> Task<any ReduxAction, Error>? {
  guard let action = action as? CounterAction else { return nil }
  switch action {
  case .increase:
    state.counter += 1
    return nil
  case .increaseAsync:
    return Task {
      @Dependency(\.continuousClock) var clock
      try await clock.sleep(for: .seconds(1))
      return CounterAction.increase
    }
  default:
    return nil
  }
}

@Suite("Both adapters run on the one core", .testStoreIssues)
struct OneCoreTests {
  @Test func bothAdaptersComposeInOneCoreTestStore() async {
    let clock = TestClock()
    let store = TestStore(initialState: OneApp.State()) {
      OneApp(userService: UserService { [User(id: 1, name: "Blob")] })
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.timer(.action(.tick)))
    await store.settle()
    await clock.advance(by: .seconds(1))
    await store.receive(.timer(.mutation(.increment))) { $0.timer.ticks = 1 }

    await store.send(.fetch(.fetch)) { $0.fetch.isLoading = true }
    await store.receive(.fetch(.response([User(id: 1, name: "Blob")]))) {
      $0.fetch.isLoading = false
      $0.fetch.users = [User(id: 1, name: "Blob")]
    }
    await store.finish()
  }

  @Test func oneEffectSystemAndOneCancellation() async {
    let clock = TestClock()
    let fetchCancelled = Gate()
    let store = Store(
      initialState: OneApp.State(),
      reducer: OneApp(
        userService: UserService {
          try await withTaskCancellationHandler {
            try await ContinuousClock().sleep(for: .seconds(3600))
            return []
          } onCancel: {
            fetchCancelled.open()
          }
        }),
      withDependencies: { $0.continuousClock = clock }
    )
    store.send(.timer(.action(.tick)))  // mutate(action:) sleeps on the test clock
    store.send(.fetch(.never))  // the reducer's task waits for an hour
    #expect(store.effectCount == 2)  // both are effects of the one store
    #expect(!store.isIdle)  // the ReSwift task is running

    store.invalidate()  // one cancellation reaches both
    await fetchCancelled.wait()
    #expect(await store.finishEffects(timeout: cap(.seconds(10))))
    #expect(store.effectCount == 0)
    #expect(clock.sleeperCount == 0)
    #expect(store.timer.ticks == 0)
  }

  @Test func mutationStoreIsACoreStoreAndObservable() async {
    let store = MutationStore(CounterReduce())
    let core: StoreOf<MutationAdapter<CounterReduce>> = store.core
    #expect(core.version == 1)  // `.start`, reduced by the core

    let changed = Locked(false)
    withObservationTracking {
      _ = store.state.count
    } onChange: {
      changed.withLock { $0 = true }
    }
    await store.action(.increase).finish()
    #expect(changed.value)
    #expect(core.count == 1)
  }

  @MainActor
  @Test func reduxStoreIsACoreStoreAndObservable() async {
    let store = ReduxStore<FetchState, FetchAction, UserService>(
      reducer: fetchReducer, state: FetchState(), environment: UserService())
    let core: Store<FetchState, FetchAction> = store.core

    let changed = Locked(false)
    withObservationTracking {
      _ = store.state.users
    } onChange: {
      changed.withLock { $0 = true }
    }
    store.dispatch(.response([User(id: 1, name: "Blob")]))
    #expect(changed.value)
    #expect(core.users.count == 1)

    core.send(.failed("sent to the core"))  // on the main actor: subscribers still run
    #expect(store.state.failure == "sent to the core")
  }

  @MainActor
  @Test func aTestClockInTheCoreDependenciesDrivesReduxTasks() async {
    // The reducer's task inherits the core store's dependencies, so it sleeps on this clock.
    // The core cannot see inside that task (it is not an effect the store started), so the
    // store is not idle while it sleeps, and `advance` first waits `settleTimeout` for an
    // idleness that never comes: keep that wait short. `finishEffects` is the sync point.
    let clock = TestClock(settleTimeout: .milliseconds(50))
    let store = ReduxStore<AppState, any ReduxAction, Void>(
      reducer: dependencyClockReducer, state: AppState(), environment: ()
    ) {
      $0.continuousClock = clock
    }
    store.dispatch(CounterAction.increaseAsync)
    #expect(store.core.effectCount == 1)  // the reducer's task is an effect of the core store
    #expect(await eventually { clock.sleeperCount == 1 })  // it sleeps on the test clock
    #expect(store.state.counter == 0)
    await clock.advance(by: .seconds(1))
    #expect(await store.core.finishEffects(timeout: cap(.seconds(10))))
    #expect(store.state.counter == 1)
  }

  @Test func mutationStoreTeardownCancelsRunningWork() async {
    let clock = TestClock()
    var store: MutationStore<TimerReduce>? = MutationStore(TimerReduce()) {
      $0.continuousClock = clock
    }
    store!.action(.tick)
    store!.action(.tick)
    let core = store!.core
    await core.idle()
    #expect(core.effectCount == 2)
    #expect(clock.sleeperCount == 2)

    store = nil
    #expect(await core.finishEffects(timeout: cap(.seconds(10))))
    #expect(clock.sleeperCount == 0)
    #expect(core.effectCount == 0)
    #expect(core.ticks == 0)
  }
}
