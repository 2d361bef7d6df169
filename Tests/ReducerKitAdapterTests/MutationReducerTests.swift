import ReducerKit
import ReducerKitTesting
import Testing
import ReducerKitTestSupport

// MARK: - Mutation style: counter

/// The ReactorKit-style counter, as users write it (a `@MainActor` class), minus SwiftUI. The synchronous
/// parts the store calls on any thread are `nonisolated`.
@MainActor
final class CounterReduce: MutationReducer {
  enum Action: Sendable, Equatable {
    case increase
  }

  enum Mutation: Sendable, Equatable {
    case setCount(Int)
  }

  struct State: Sendable, Equatable {
    var count: Int = 0
  }

  let initialState: State

  nonisolated init() {
    self.initialState = State()
  }

  func mutate(action: Action) async throws {
    switch action {
    case .increase:
      mutate(.setCount(currentState.count + 1))
    }
  }

  nonisolated func reduce(state: State, mutation: Mutation) -> State {
    var state = state

    switch mutation {
    case let .setCount(count):
      state.count = count
      return state
    }
  }
}

// MARK: - Mutation style: sign-up (cancel on each keystroke)

struct EmailValidator: Sendable {
  var validate: @Sendable (String) async throws -> Bool
}

@MainActor
final class SignUpReduce: MutationReducer {
  enum Action: Sendable, Equatable {
    case updateEmail(String)
    case anyAction
  }

  enum Mutation: Sendable, Equatable {
    case canSignUp(Bool)
    case touched
  }

  struct State: Sendable, Equatable {
    var canSignUp: Bool
    var touches = 0
  }

  let initialState: State

  private let validator: EmailValidator

  nonisolated init(validator: EmailValidator) {
    initialState = State(canSignUp: false)
    self.validator = validator
  }

  func mutate(action: Action) async throws {
    switch action {
    case let .updateEmail(email):
      let result = try await validator.validate(email)
      try Task.checkCancellation()

      mutate(.canSignUp(result))

    case .anyAction:
      mutate(.touched)
    }
  }

  nonisolated func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case let .canSignUp(canSignUp): state.canSignUp = canSignUp
    case .touched: state.touches += 1
    }
    return state
  }

  nonisolated func shouldCancel(_ current: Action, _ upcoming: Action) -> Bool {
    switch (current, upcoming) {
    case (.updateEmail, .updateEmail):
      return true

    default:
      return false
    }
  }
}

// MARK: - Mutation style: list (internal mutating from start())

struct Item: Sendable, Equatable {
  var name: String
}

/// The list feature, with an `AsyncStream` the test controls in place of NotificationCenter.
@MainActor
final class ListReduce: MutationReducer {
  enum Action: Sendable, Equatable {
    case add(String)
  }

  enum Mutation: Sendable, Equatable {
    case setList([Item])
  }

  struct State: Sendable, Equatable {
    var list: [Item] = []
  }

  let initialState = State()
  private let dataChanged: AsyncStream<[Item]>
  private let started: Locked<Int>

  nonisolated init(dataChanged: AsyncStream<[Item]>, started: Locked<Int> = Locked(0)) {
    self.dataChanged = dataChanged
    self.started = started
  }

  func start() async throws {
    started.withLock { $0 += 1 }
    for await items in dataChanged {
      // Write any mutates here.
      mutate(.setList(items))
    }
  }

  func mutate(action: Action) async throws {
    switch action {
    case let .add(name):
      mutate(.setList(currentState.list + [Item(name: name)]))
    }
  }

  nonisolated func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case let .setList(list): state.list = list
    }
    return state
  }
}

/// A callback-based notifier, like NotificationCenter: observers run synchronously on `post`.
final class Notifier: Sendable {
  private let observers = Locked<[@Sendable ([Item]) -> Void]>([])
  func observe(_ observer: @escaping @Sendable ([Item]) -> Void) { observers.append(observer) }
  func post(_ items: [Item]) { for observer in observers.value { observer(items) } }
}

/// The list feature with a callback subscription made in `start()`, which returns at once.
@MainActor
final class CallbackListReduce: MutationReducer {
  typealias Action = ListReduce.Action
  typealias Mutation = ListReduce.Mutation
  typealias State = ListReduce.State

  let initialState = State()
  private let notifier: Notifier

  nonisolated init(notifier: Notifier) { self.notifier = notifier }

  func start() async throws {
    // Outside `start()` the task-local context is gone: capture the mutator.
    guard let mutate = mutator else { return }
    notifier.observe { items in mutate(.setList(items)) }
  }

  func mutate(action: Action) async throws {}

  nonisolated func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    if case let .setList(list) = mutation { state.list = list }
    return state
  }
}

// MARK: - A value-typed reducer that sleeps on the dependency clock and can fail

struct TimerReduce: MutationReducer {
  enum Action: Sendable, Equatable { case tick, fail, tickTwice }
  enum Mutation: Sendable, Equatable { case increment }
  struct State: Sendable, Equatable { var ticks = 0 }

  var initialState = State()
  @Dependency(\.continuousClock) var clock

  func mutate(action: Action) async throws {
    switch action {
    case .tick:
      try await clock.sleep(for: .seconds(1))
      mutate(.increment)
    case .tickTwice:
      try await clock.sleep(for: .seconds(1))
      mutate(.increment)
      // `currentState` sees the mutation just sent.
      if currentState.ticks > 0 { mutate(.increment) }
    case .fail:
      throw Boom()
    }
  }

  func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    state.ticks += 1
    return state
  }
}

// MARK: - Tests

@Suite("Mutation-style reducers", .testStoreIssues)
struct MutationReducerTests {
  @Test func counter() async {
    let store = MutationStore(CounterReduce())
    #expect(store.state.count == 0)
    await store.action(.increase).finish()
    #expect(store.state.count == 1)
    await store.action(.increase).finish()
    #expect(store.count == 2)
    #expect(store.initialState.count == 0)
  }

  @Test func counterIsExhaustivelyTestableWithTheCoreTestStore() async {
    let store = TestStore(initialState: CounterReduce.State()) {
      MutationAdapter(CounterReduce())
    }
    await store.send(.action(.increase))
    await store.receive(.mutation(.setCount(1))) { $0.count = 1 }
    await store.send(.action(.increase))
    await store.receive(.mutation(.setCount(2))) { $0.count = 2 }
    await store.finish()
  }

  @Test func counterIsObservableLikeAnyStore() async {
    let store = MutationStore(CounterReduce())
    let seen = Locked<[Int]>([])
    let subscription = store.subscribe(select: \.count) { seen.append($0) }
    await store.action(.increase).finish()
    await store.action(.increase).finish()
    #expect(seen.value == [0, 1, 2])
    subscription.cancel()
    await store.action(.increase).finish()
    #expect(seen.value == [0, 1, 2])

    var states = store.states.makeAsyncIterator()
    #expect(await states.next()?.count == 3)
    store.action(.increase)
    var next = await states.next()
    while next?.count == 3 { next = await states.next() }
    #expect(next?.count == 4)
  }

  @Test func signUpCancelsTheRunningValidationOnEachKeystroke() async {
    // The validator does not stop when cancelled: only `Task.checkCancellation()` stops the
    // cancelled validations from mutating.
    let gate = Gate()
    let probes = Locked<[String: Bool]>([:])
    let validator = EmailValidator { email in
      await gate.wait()
      probes.withLock { $0[email] = Task.isCancelled }
      return email.contains("@")
    }
    let store = TestStore(initialState: SignUpReduce.State(canSignUp: false)) {
      MutationAdapter(SignUpReduce(validator: validator))
    }
    await store.send(.action(.updateEmail("blob")))
    await store.send(.action(.updateEmail("blob@")))
    await store.send(.action(.updateEmail("blob@pointfree.co")))
    #expect(store.effectCount >= 1)
    gate.open()
    // Exhaustive: only the last keystroke's validation mutates.
    await store.receive(.mutation(.canSignUp(true))) { $0.canSignUp = true }
    await store.finish()
    #expect(probes.value == ["blob": true, "blob@": true, "blob@pointfree.co": false])
  }

  @Test func signUpCancellationGoesThroughTheCoreAndItsTestClock() async {
    let clock = TestClock()
    let validator = EmailValidator { email in
      @Dependency(\.continuousClock) var clock
      try await clock.sleep(for: .milliseconds(300))
      return email.contains("@")
    }
    let store = MutationStore(SignUpReduce(validator: validator)) {
      $0.continuousClock = clock
    }
    await store.core.finishEffects()  // start() (the default, a no-op) ran
    #expect(store.core.effectCount == 0)

    store.action(.updateEmail("a"))
    await store.core.idle()
    #expect(store.core.effectCount == 1)
    #expect(clock.sleeperCount == 1)

    await clock.advance(by: .milliseconds(200))
    store.action(.updateEmail("a@b.c"))  // cancels the sleeping validation of "a"
    await store.core.idle()
    #expect(store.core.effectCount == 1)
    #expect(clock.sleeperCount == 1)

    store.action(.anyAction)  // shouldCancel(.updateEmail, .anyAction) is false
    await store.core.idle()
    #expect(store.touches == 1)
    #expect(clock.sleeperCount == 1)

    await clock.advance(by: .milliseconds(299))
    #expect(store.canSignUp == false)
    await clock.advance(by: .milliseconds(1))
    #expect(store.canSignUp == true)
    #expect(store.core.effectCount == 0)
    #expect(store.core.isIdle)
  }

  @Test func listMutatesFromAStreamInStart() async {
    let (dataChanged, continuation) = AsyncStream<[Item]>.makeStream()
    let terminated = Gate()
    continuation.onTermination = { _ in terminated.open() }
    let started = Locked(0)
    var store: MutationStore<ListReduce>? = MutationStore(
      ListReduce(dataChanged: dataChanged, started: started))
    let core = store!.core
    var states = store!.states.makeAsyncIterator()

    continuation.yield([Item(name: "Milk")])
    #expect(await first(&states, where: { $0.list == [Item(name: "Milk")] }) != nil)
    await store!.action(.add("Eggs")).finish()
    #expect(store!.list == [Item(name: "Milk"), Item(name: "Eggs")])
    continuation.yield([Item(name: "Bread")])
    #expect(await first(&states, where: { $0.list == [Item(name: "Bread")] }) != nil)
    #expect(started.value == 1)  // once, when the store started
    #expect(core.effectCount == 1)  // start() is still running, as a core effect

    store = nil  // tearing down the store cancels start() through the core
    await terminated.wait()
    #expect(await core.finishEffects(timeout: cap(.seconds(10))))
    #expect(core.effectCount == 0)
    #expect(!core.isValid)
  }

  @Test func startMayMutateFromACallbackThroughTheCapturedMutator() async {
    let notifier = Notifier()
    let store = MutationStore(CallbackListReduce(notifier: notifier))
    await store.core.finishEffects()  // start() subscribed and returned
    notifier.post([Item(name: "Milk")])
    #expect(store.list == [Item(name: "Milk")])  // reduced before post returned
  }

  @Test func proxyStoreForPreviews() async {
    let store = MutationStore<CounterReduce>(proxy: .init(initialState: .init(count: 100)))
    #expect(store.state.count == 100)
    await store.action(.increase).finish()
    #expect(store.state.count == 100)  // the proxy's mutate does nothing
  }

  @Test func proxyStoreOverridesEveryPart() async {
    let clock = TestClock()
    let cancelChecks = Locked(0)
    let store = MutationStore<CounterReduce>(proxy: .init(
      initialState: .init(count: 0),
      start: { mutate in
        mutate(.setCount(1))
      },
      mutate: { state, action, mutate in
        try await clock.sleep(for: .seconds(1))
        mutate(.setCount(mutate.state.count + 10))
      },
      reduce: { state, mutation in
        guard case let .setCount(count) = mutation else { return state }
        return .init(count: count)
      },
      shouldCancel: { current, upcoming in
        cancelChecks.withLock { $0 += 1 }
        return current == upcoming
      }
    ))
    await store.core.idle()
    #expect(store.count == 1)  // start ran

    store.action(.increase)
    await store.core.idle()
    store.action(.increase)  // cancels the first
    await store.core.idle()
    #expect(cancelChecks.value == 1)
    await clock.advance(by: .seconds(1))
    #expect(store.count == 11)  // only one mutate ran to the end
    #expect(store.core.effectCount == 0)
  }

  @Test func errorsThrownByMutateAreReportedNotLost() async {
    let log = ErrorLog()
    let store = MutationStore(TimerReduce()) {
      $0.reportEffectError = log.reporter
    }
    await store.action(.fail).finish()
    let errors = log.errors.value
    #expect(errors.count == 1)
    #expect(errors.first?.error as? Boom == Boom())
    #expect(errors.first?.location.fileID == #fileID)  // where the store was created
  }

  @Test func currentStateSeesMutationsAsTheyAreReduced() async {
    let clock = TestClock()
    let store = TestStore(initialState: TimerReduce.State()) {
      MutationAdapter(TimerReduce())
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.action(.tickTwice))
    await store.settle()
    await clock.advance(by: .seconds(1))
    await store.receive(.mutation(.increment)) { $0.ticks = 1 }
    await store.receive(.mutation(.increment)) { $0.ticks = 2 }
    await store.finish()
  }

  @Test func mutateOutsideAStoreIsDroppedNotCrashing() {
    let reducer = TimerReduce()
    reducer.mutate(.increment)
    #expect(reducer.mutator == nil)
    #expect(reducer.currentState == TimerReduce.State())
  }
}
