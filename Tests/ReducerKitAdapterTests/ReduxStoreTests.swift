import ReducerKit
import ReducerKitTesting
import Testing
import ReducerKitTestSupport

// MARK: - ReSwift-Effect example 1: counter

struct AppState {
  var counter: Int = 0
  var isLoading: Bool = false
}

enum CounterAction: ReduxAction {
  case increase
  case decrease
  case reset
  case increaseAsync
  case setLoading(Bool)
}

struct AppEnvironment {
  let delayService: DelayService

  init(delayService: DelayService = DelayService()) {
    self.delayService = delayService
  }

  func delay(seconds: Double) async throws -> CounterAction {
    await delayService.delay(seconds: seconds)
    return CounterAction.increase
  }
}

/// ReSwift-Effect's example sleeps with `Task.sleep`; here the clock is a dependency of the service.
struct DelayService {
  var clock: any Clock<Duration> = ContinuousClock()

  func delay(seconds: Double) async {
    try? await clock.sleep(for: .seconds(seconds))
  }
}

func counterReducer(
  state: inout AppState,
  action: any ReduxAction,
  environment: AppEnvironment
) -> Task<any ReduxAction, Error>? {
  guard let counterAction = action as? CounterAction else {
    return nil
  }

  switch counterAction {
  case .increase:
    state.counter += 1
    return nil

  case .decrease:
    state.counter -= 1
    return nil

  case .reset:
    state.counter = 0
    return nil

  case .increaseAsync:
    state.isLoading = true
    return Task {
      try await environment.delay(seconds: 1)
    }

  case .setLoading(let isLoading):
    state.isLoading = isLoading
    return nil
  }
}

@MainActor
final class CounterSubscriber: StoreSubscriber {
  typealias StoreSubscriberStateType = AppState

  var counters: [Int] = []

  func newState(state: AppState) {
    counters.append(state.counter)
  }
}

// MARK: - ReSwift-Effect example 2: user fetch

struct User: Sendable, Equatable, Identifiable {
  var id: Int
  var name: String
}

struct UserService {
  var fetchUsers: @Sendable () async throws -> [User] = { [] }
}

struct UsersState {
  var users: [User] = []
  var isLoading: Bool = false
  var error: Error?
}

struct UsersEnvironment {
  let userService: UserService

  init(userService: UserService = UserService()) {
    self.userService = userService
  }
}

enum UserAction: ReduxAction {
  case fetchUsers
  case setUsers([User])
  case setError(Error)
}

func appReducer(
  state: inout UsersState,
  action: any ReduxAction,
  environment: UsersEnvironment
) -> Task<any ReduxAction, Error>? {
  guard let userAction = action as? UserAction else {
    return nil
  }

  switch userAction {
  case .fetchUsers:
    state.isLoading = true
    state.error = nil

    return Task {
      do {
        let users = try await environment.userService.fetchUsers()
        return UserAction.setUsers(users)
      } catch {
        return UserAction.setError(error)
      }
    }

  case .setUsers(let users):
    state.users = users
    state.isLoading = false
    return nil

  case .setError(let error):
    state.error = error
    state.isLoading = false
    return nil
  }
}

// MARK: - ReSwift-Effect example 3: sub-state selection

@MainActor
final class UserListSubscriber: StoreSubscriber {
  typealias StoreSubscriberStateType = [User]

  var received: [[User]] = []

  func newState(state: [User]) {
    received.append(state)
  }
}

/// A selection that is not `Equatable`: no automatic skipping.
struct LoadingFlag {
  var isLoading: Bool
}

@MainActor
final class LoadingSubscriber: StoreSubscriber {
  var received: [Bool] = []
  func newState(state: LoadingFlag) { received.append(state.isLoading) }
}

@MainActor
final class CountSubscriber: StoreSubscriber {
  var received: [Int] = []
  func newState(state: Int) { received.append(state) }
}

// MARK: - Typed actions (an enum instead of `any ReduxAction`)

enum FetchAction: Sendable, Equatable {
  case fetch
  case response([User])
  case failed(String)
  case never
  case fail
}

struct FetchState: Equatable {
  var users: [User] = []
  var isLoading = false
  var failure: String?
}

func fetchReducer(
  state: inout FetchState, action: FetchAction, environment: UserService
) -> Task<FetchAction, Error>? {
  switch action {
  case .fetch:
    state.isLoading = true
    return Task {
      do {
        return .response(try await environment.fetchUsers())
      } catch {
        return .failed("\(error)")
      }
    }
  case let .response(users):
    state.isLoading = false
    state.users = users
    return nil
  case let .failed(message):
    state.isLoading = false
    state.failure = message
    return nil
  case .never:
    return Task {
      _ = try await environment.fetchUsers()
      return .never
    }
  case .fail:
    return Task { throw Boom() }
  }
}

// MARK: - Tests

@MainActor
@Suite("ReSwift-style stores", .testStoreIssues)
struct ReduxStoreTests {
  @Test func counter() async {
    let appStore = ReduxStore<AppState, any ReduxAction, AppEnvironment>(
      reducer: counterReducer,
      state: AppState(),
      environment: AppEnvironment()
    )
    let subscriber = CounterSubscriber()
    appStore.subscribe(subscriber)

    appStore.dispatch(CounterAction.increase)
    appStore.dispatch(CounterAction.increase)
    appStore.dispatch(CounterAction.decrease)
    #expect(appStore.state.counter == 1)
    appStore.dispatch(CounterAction.reset)
    #expect(appStore.state.counter == 0)
    appStore.dispatch(CounterAction.setLoading(true))
    #expect(appStore.state.isLoading)
    #expect(subscriber.counters == [0, 1, 2, 1, 0, 0])  // AppState is not Equatable
  }

  @Test func counterIncreaseAsyncRunsOnTheEnvironmentsClock() async {
    let clock = TestClock()
    let appStore = ReduxStore<AppState, any ReduxAction, AppEnvironment>(
      reducer: counterReducer,
      state: AppState(),
      environment: AppEnvironment(delayService: DelayService(clock: clock))
    )
    appStore.dispatch(CounterAction.increaseAsync)
    #expect(appStore.state.isLoading)
    #expect(appStore.core.effectCount == 1)  // the reducer's task is a core effect
    #expect(!appStore.core.isIdle)

    #expect(await eventually { clock.sleeperCount == 1 })
    await clock.advance(by: .milliseconds(999))
    #expect(appStore.state.counter == 0)
    await clock.advance(by: .milliseconds(1))
    #expect(await appStore.core.finishEffects(timeout: cap(.seconds(10))))
    #expect(appStore.state.counter == 1)
    #expect(appStore.core.effectCount == 0)
  }

  @Test func userFetchWithAnInjectedClient() async {
    let environment = UsersEnvironment(
      userService: UserService { [User(id: 1, name: "Blob"), User(id: 2, name: "Blob Jr.")] })
    let appStore = ReduxStore<UsersState, any ReduxAction, UsersEnvironment>(
      reducer: appReducer,
      state: UsersState(),
      environment: environment
    )

    appStore.dispatch(UserAction.fetchUsers)
    #expect(appStore.state.isLoading)
    await appStore.core.finishEffects()
    #expect(appStore.state.users.map(\.name) == ["Blob", "Blob Jr."])
    #expect(!appStore.state.isLoading)
    #expect(appStore.state.error == nil)
  }

  @Test func userFetchFailureBecomesAnAction() async {
    struct Offline: Error {}
    let appStore = ReduxStore<UsersState, any ReduxAction, UsersEnvironment>(
      reducer: appReducer,
      state: UsersState(),
      environment: UsersEnvironment(userService: UserService { throw Offline() })
    )
    appStore.dispatch(UserAction.fetchUsers)
    await appStore.core.finishEffects()
    #expect(appStore.state.error is Offline)
    #expect(!appStore.state.isLoading)
  }

  @Test func subStateSelectionSkipsRepeats() async {
    let appStore = ReduxStore<UsersState, any ReduxAction, UsersEnvironment>(
      reducer: appReducer,
      state: UsersState(),
      environment: UsersEnvironment(userService: UserService { [User(id: 1, name: "Blob")] })
    )
    let subscriber = UserListSubscriber()
    appStore.subscribe(subscriber) { subscription in
      subscription.select { $0.users }
    }
    #expect(subscriber.received == [[]])  // the current value, at once

    appStore.dispatch(UserAction.fetchUsers)  // isLoading changes; users do not
    #expect(subscriber.received == [[]])
    await appStore.core.finishEffects()
    #expect(subscriber.received == [[], [User(id: 1, name: "Blob")]])

    appStore.dispatch(UserAction.setUsers([User(id: 1, name: "Blob")]))  // same users
    #expect(subscriber.received.count == 2)

    appStore.unsubscribe(subscriber)
    appStore.dispatch(UserAction.setUsers([]))
    #expect(subscriber.received.count == 2)
    #expect(appStore.subscriberCount == 0)
    #expect(appStore.core.subscriberCount == 0)
  }

  @Test func selectionsThatAreNotEquatableAreDeliveredAfterEveryAction() async {
    let appStore = ReduxStore<UsersState, any ReduxAction, UsersEnvironment>(
      reducer: appReducer, state: UsersState(), environment: UsersEnvironment())
    let loading = LoadingSubscriber()
    appStore.subscribe(loading, select: { LoadingFlag(isLoading: $0.isLoading) })
    appStore.dispatch(UserAction.setUsers([]))
    appStore.dispatch(UserAction.setUsers([]))
    #expect(loading.received == [false, false, false])

    // Explicit steps still work on anything.
    let changes = LoadingSubscriber()
    appStore.subscribe(changes) {
      $0.select { LoadingFlag(isLoading: $0.isLoading) }.skipRepeats { $0.isLoading == $1.isLoading }
    }
    appStore.dispatch(UserAction.setUsers([]))
    appStore.dispatch(UserAction.fetchUsers)
    #expect(changes.received == [false, true])
    await appStore.core.finishEffects()
    #expect(changes.received == [false, true, false])
  }

  @Test func subscribingAgainReplacesTheSubscriptionAndDeliversTheStateAgain() async {
    // ReSwift: a second subscribe of the same subscriber replaces its subscription (0.1.0
    // ignored it, so the new selection never took effect and no state was delivered).
    let store = ReduxStore<FetchState, FetchAction, UserService>(
      reducer: fetchReducer, state: FetchState(), environment: UserService())
    let count = CountSubscriber()
    store.subscribe(count, select: \.users.count)
    store.subscribe(count, select: \.users.count)
    #expect(count.received == [0, 0])
    #expect(store.subscriberCount == 1)
    store.subscribe(count, select: { $0.users.count + 100 })  // the new selection applies
    #expect(count.received == [0, 0, 100])
    store.dispatch(.response([User(id: 1, name: "Ada")]))
    #expect(count.received == [0, 0, 100, 101])
    #expect(store.subscriberCount == 1)
    #expect(store.core.subscriberCount == 1)
  }

  @Test func equatableSelectionsAndStatesSkipRepeatsUnlessTurnedOff() async {
    let store = ReduxStore<FetchState, FetchAction, UserService>(
      reducer: fetchReducer, state: FetchState(), environment: UserService())
    let whole = WholeFetchStateSubscriber()
    let count = CountSubscriber()
    store.subscribe(whole)
    store.subscribe(count, select: \.users.count)
    store.dispatch(.response([]))  // no change
    store.dispatch(.failed("x"))
    #expect(whole.received.count == 2)
    #expect(count.received == [0])

    let every = ReduxStore<FetchState, FetchAction, UserService>(
      reducer: fetchReducer, state: FetchState(), environment: UserService(),
      automaticallySkipsRepeats: false)
    let everyCount = CountSubscriber()
    every.subscribe(everyCount, select: \.users.count)
    every.dispatch(.response([]))
    every.dispatch(.response([]))
    #expect(everyCount.received == [0, 0, 0])
  }

  @Test func subscribersAreHeldWeakly() async {
    let store = ReduxStore<FetchState, FetchAction, UserService>(
      reducer: fetchReducer, state: FetchState(), environment: UserService())
    var subscriber: CountSubscriber? = CountSubscriber()
    weak let weakSubscriber = subscriber
    store.subscribe(subscriber!, select: \.users.count)
    #expect(store.subscriberCount == 1)
    subscriber = nil
    #expect(weakSubscriber == nil)
    store.dispatch(.response([User(id: 1, name: "Blob")]))  // finds the subscriber gone
    #expect(store.subscriberCount == 0)
    #expect(store.core.subscriberCount == 0)
  }

  @Test func taskErrorsAreReportedNotLost() async {
    let log = ErrorLog()
    let store = ReduxStore<FetchState, FetchAction, UserService>(
      reducer: fetchReducer, state: FetchState(), environment: UserService()
    ) {
      $0.reportEffectError = log.reporter
    }
    store.dispatch(.fail)
    await store.core.finishEffects()
    let errors = log.errors.value
    #expect(errors.count == 1)
    #expect(errors.first?.error as? Boom == Boom())
    #expect(errors.first?.location.fileID == #fileID)  // where the store was created
  }

  @Test func tasksAreCancelledWhenTheStoreGoesAway() async {
    let cancelled = Gate()
    let log = ErrorLog()
    let service = UserService {
      try await withTaskCancellationHandler {
        try await ContinuousClock().sleep(for: .seconds(3600))
        return []
      } onCancel: {
        cancelled.open()
      }
    }
    var store: ReduxStore<FetchState, FetchAction, UserService>? = ReduxStore(
      reducer: fetchReducer, state: FetchState(), environment: service
    ) {
      $0.reportEffectError = log.reporter
    }
    weak let weakStore = store
    store!.dispatch(.never)
    store!.dispatch(.never)
    let core = store!.core
    #expect(core.effectCount == 2)

    store = nil
    #expect(weakStore == nil)
    await cancelled.wait()  // the reducer's task saw the cancellation
    #expect(await core.finishEffects(timeout: cap(.seconds(10))))
    #expect(core.effectCount == 0)
    #expect(log.errors.value.isEmpty)  // cancellation is not an error
    #expect(!core.isValid)
  }

  @Test func middlewareCanLogTransformDropAndDelayActions() async {
    let clock = TestClock()
    let log = Log()
    let store = ReduxStore<MiddlewareState, MiddlewareAction, Void>(
      reducer: middlewareReducer,
      state: MiddlewareState(),
      environment: (),
      middleware: [
        logging("first", log),
        transforming,
        logging("second", log),
        dropping,
        delaying(clock),
        redispatching,
        logging("third", log),
      ]
    )

    store.dispatch(.add(1))  // ×10 by `transforming`
    #expect(log.lines == ["first add(1)", "second add(10)", "third add(10)"])
    #expect(store.state.total == 10)

    log.lines = []
    store.dispatch(.secret)  // dropped before the reducer
    #expect(log.lines == ["first secret", "second secret"])
    #expect(store.core.version == 1)

    log.lines = []
    store.dispatch(.reset)  // `redispatching` first dispatches .add(-total) from the top
    #expect(log.lines == ["first reset", "second reset", "first add(-10)", "second add(-100)", "third add(-100)", "third reset"])
    #expect(store.state.total == -90)

    log.lines = []
    var states = store.core.states.makeAsyncIterator()
    store.dispatch(.slow(2))  // held for a second by `delaying`
    #expect(log.lines == ["first slow(2)", "second slow(2)"])
    #expect(await eventually { clock.sleeperCount == 1 })
    await clock.advance(by: .seconds(1))
    #expect(await first(&states, where: { $0.total == -88 }) != nil)
    #expect(log.lines == ["first slow(2)", "second slow(2)", "third add(2)"])
  }

  @Test func middlewareCanBeChangedAfterCreation() async {
    let log = Log()
    let store = ReduxStore<MiddlewareState, MiddlewareAction, Void>(
      reducer: middlewareReducer, state: MiddlewareState(), environment: ())
    store.dispatch(.add(1))
    store.middleware = [logging("added", log)]
    store.dispatch(.add(1))
    #expect(log.lines == ["added add(1)"])
    #expect(store.state.total == 2)
  }
}

@Suite("ReSwift-style reducers in the core TestStore", .testStoreIssues)
struct FunctionReducerTests {
  @Test func userFetchIsExhaustivelyTestableWithTheCoreTestStore() async {
    let store = TestStore(initialState: FetchState()) {
      FunctionReducer(fetchReducer, environment: UserService { [User(id: 1, name: "Blob")] })
    }
    await store.send(.fetch) { $0.isLoading = true }
    await store.receive(.response([User(id: 1, name: "Blob")])) {
      $0.isLoading = false
      $0.users = [User(id: 1, name: "Blob")]
    }
    await store.finish()
  }
}

@MainActor
final class WholeFetchStateSubscriber: StoreSubscriber {
  var received: [FetchState] = []
  func newState(state: FetchState) { received.append(state) }
}

// MARK: - Middleware fixtures

enum MiddlewareAction: Sendable, Equatable, CustomStringConvertible {
  case add(Int)
  case secret
  case slow(Int)
  case reset

  var description: String {
    switch self {
    case let .add(n): "add(\(n))"
    case .secret: "secret"
    case let .slow(n): "slow(\(n))"
    case .reset: "reset"
    }
  }
}

struct MiddlewareState: Sendable, Equatable {
  var total = 0
}

func middlewareReducer(
  state: inout MiddlewareState, action: MiddlewareAction, environment: Void
) -> Task<MiddlewareAction, Error>? {
  if case let .add(n) = action { state.total += n }
  return nil
}

@MainActor
final class Log {
  var lines: [String] = []
}

@MainActor
func logging(_ name: String, _ log: Log) -> Middleware<MiddlewareState, MiddlewareAction> {
  { dispatch, getState in
    { next in
      { action in
        log.lines.append("\(name) \(action)")
        next(action)
      }
    }
  }
}

@MainActor
let transforming: Middleware<MiddlewareState, MiddlewareAction> = { dispatch, getState in
  { next in
    { action in
      if case let .add(n) = action { next(.add(n * 10)) } else { next(action) }
    }
  }
}

@MainActor
let dropping: Middleware<MiddlewareState, MiddlewareAction> = { dispatch, getState in
  { next in
    { action in
      if action == .secret { return }
      next(action)
    }
  }
}

@MainActor
func delaying(_ clock: TestClock) -> Middleware<MiddlewareState, MiddlewareAction> {
  { dispatch, getState in
    { next in
      { action in
        guard case let .slow(n) = action else { return next(action) }
        Task {
          try await clock.sleep(for: .seconds(1))
          next(.add(n))
        }
      }
    }
  }
}

@MainActor
let redispatching: Middleware<MiddlewareState, MiddlewareAction> = { dispatch, getState in
  { next in
    { action in
      if action == .reset, let total = getState()?.total {
        dispatch(.add(-total))
      }
      next(action)
    }
  }
}
