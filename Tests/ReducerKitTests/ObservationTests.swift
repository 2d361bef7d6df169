import Observation
import ReducerKit
import Testing

@Suite struct ObservationTests {
  struct State: Equatable, Sendable {
    var count = 0
    var text = ""
  }
  enum Action: Sendable { case increment, setText(String), noop }

  static func makeStore() -> Store<State, Action> {
    Store(initialState: State(), reducer: Reduce<State, Action> { state, action in
      switch action {
      case .increment: state.count += 1
      case let .setText(text): state.text = text
      case .noop: break
      }
      return .none
    })
  }

  @Test func subscribeSelectCallsOnceNowThenOnlyOnChange() {
    let store = Self.makeStore()
    let counts = Log<Int>()
    let subscription = store.subscribe(select: \.count) { counts.append($0) }
    #expect(counts.values == [0])
    store.send(.setText("a"))  // count unchanged
    store.send(.noop)
    #expect(counts.values == [0])
    store.send(.increment)
    #expect(counts.values == [0, 1])
    store.send(.setText("b"))
    store.send(.increment)
    #expect(counts.values == [0, 1, 2])
    subscription.cancel()
  }

  @Test func subscribeWithoutRemovingDuplicatesCallsAfterEveryAction() {
    let store = Self.makeStore()
    let counts = Log<Int>()
    let subscription = store.subscribe(select: \.count, removeDuplicates: false) { counts.append($0) }
    store.send(.noop)
    store.send(.increment)
    store.send(.setText("x"))
    #expect(counts.values == [0, 0, 1, 1])
    subscription.cancel()
  }

  @Test func subscribeWithCustomDuplicatePredicate() {
    let store = Self.makeStore()
    let seen = Log<Int>()
    // Only report when the count moved by 2 or more since the last delivered value.
    let subscription = store.subscribe(
      select: { $0.count }, removeDuplicates: { old, new in abs(new - old) < 2 }
    ) { seen.append($0) }
    for _ in 0..<5 { store.send(.increment) }
    #expect(seen.values == [0, 2, 4])
    subscription.cancel()
  }

  @Test func subscribeToTheWholeStateCallsAfterEveryAction() {
    let store = Self.makeStore()
    let states = Log<State>()
    let subscription = store.subscribe { states.append($0) }
    store.send(.increment)
    store.send(.noop)
    #expect(states.values == [State(), State(count: 1), State(count: 1)])
    subscription.cancel()
  }

  @Test func cancelStopsCallbacks() {
    let store = Self.makeStore()
    let counts = Log<Int>()
    let subscription = store.subscribe(select: \.count) { counts.append($0) }
    #expect(store.subscriberCount == 1)
    store.send(.increment)
    subscription.cancel()
    subscription.cancel()  // idempotent
    #expect(store.subscriberCount == 0)
    store.send(.increment)
    store.send(.increment)
    #expect(counts.values == [0, 1])
    #expect(store.count == 3)
  }

  @Test func droppingTheSubscriptionCancelsIt() {
    let store = Self.makeStore()
    let counts = Log<Int>()
    do {
      let subscription = store.subscribe(select: \.count) { counts.append($0) }
      store.send(.increment)
      withExtendedLifetime(subscription) {}
    }
    #expect(store.subscriberCount == 0)
    store.send(.increment)
    #expect(counts.values == [0, 1])
  }

  @Test func subscriptionCancelledInsideItsCallbackIsNotCalledAgain() {
    let store = Self.makeStore()
    let counts = Log<Int>()
    let holder = Locked<StoreSubscription?>(nil)
    holder.value = store.subscribe(select: \.count) { count in
      counts.append(count)
      if count == 1 { holder.value?.cancel() }
    }
    store.send(.increment)
    store.send(.increment)
    #expect(counts.values == [0, 1])
    #expect(store.subscriberCount == 0)
  }

  @Test func severalSubscribersAreCalledInOrderOfSubscription() {
    let store = Self.makeStore()
    let calls = Log<String>()
    let a = store.subscribe(select: \.count) { calls.append("a\($0)") }
    let b = store.subscribe(select: \.count) { calls.append("b\($0)") }
    store.send(.increment)
    #expect(calls.values == ["a0", "b0", "a1", "b1"])
    a.cancel()
    b.cancel()
  }

  @Test func statesStreamYieldsTheCurrentStateThenEachNewState() async {
    let store = Self.makeStore()
    var iterator = store.states.makeAsyncIterator()
    #expect(await iterator.next() == State())
    store.send(.increment)
    store.send(.setText("hi"))
    #expect(await iterator.next() == State(count: 1))
    #expect(await iterator.next() == State(count: 1, text: "hi"))
  }

  @Test func statesStreamStopsObservingWhenTheConsumerGoesAway() async {
    let store = Self.makeStore()
    let received = Locked(0)
    let consumer = Task {
      for await _ in store.states {
        received.withLock { $0 += 1 }
      }
    }
    #expect(await eventually { store.subscriberCount == 1 && received.value == 1 })
    consumer.cancel()
    await consumer.value
    #expect(await eventually { store.subscriberCount == 0 })
  }

  @Test func observationTrackingFiresAfterASend() {
    let store = Self.makeStore()
    let changed = Locked(0)
    withObservationTracking {
      _ = store.state
    } onChange: {
      changed.withLock { $0 += 1 }
    }
    #expect(changed.value == 0)
    store.send(.increment)
    #expect(changed.value == 1)
    store.send(.increment)  // tracking is one-shot, as with any Observable
    #expect(changed.value == 1)
  }

  @Test func observationTrackingThroughDynamicMemberLookup() {
    let store = Self.makeStore()
    let changed = Latch()
    withObservationTracking {
      _ = store.count
    } onChange: {
      changed.open()
    }
    store.send(.setText("x"))
    #expect(changed.isOpen)
  }

  @Test func observersAreNotifiedOncePerOuterSend() {
    // Like TCA: the actions one send queues are reduced first, then observers see the final
    // state once.
    enum ChainAction: Sendable { case start, next }
    let store = Store(initialState: 0, reducer: Reduce<Int, ChainAction> { state, action in
      state += 1
      return action == .start ? .send(.next) : .none
    })
    let seen = Log<Int>()
    let subscription = store.subscribe(select: { $0 }) { seen.append($0) }
    store.send(.start)
    #expect(seen.values == [0, 2])
    subscription.cancel()
  }
}
