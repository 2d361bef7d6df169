import Dispatch
#if canImport(Glibc)
  import Glibc
#endif
import ReducerKit
import ReducerKitTesting
import Synchronization
import Testing

/// Where the store follows TCA: the order `await send` reduces in, one notification per outer
/// send, per-child priorities in `.concatenate`, `scope`, and observers outside the lock.
@Suite struct StoreSemanticsTests {
  enum Chain: Sendable, Equatable { case start, b1, b2, b3, c1 }

  static func chainReducer(suspendFirst: Bool) -> Reduce<[Chain], Chain> {
    Reduce { state, action in
      state.append(action)
      switch action {
      case .start:
        return .run { send in
          if suspendFirst { await Task.yield() }
          await send(.b1)
          await send(.c1)
        }
      case .b1:
        return .concatenate(.send(.b2), .send(.b3))
      case .b2, .b3, .c1:
        return .none
      }
    }
  }

  @Test(arguments: [false, true])
  func awaitSendReducesTheActionsItQueuesBeforeReturning(suspendFirst: Bool) async {
    // TCA: b1, then b2 and b3 (queued by b1's .send effects), then c1. On 0.1.0 an effect that
    // started on the sending thread gave b1, c1, b2, b3.
    let store = Store(initialState: [Chain](), reducer: Self.chainReducer(suspendFirst: suspendFirst))
    await store.send(.start).finish()
    #expect(store.state == [.start, .b1, .b2, .b3, .c1])
  }

  @Test func testStoreReceivesInTCAOrder() async {
    let store = TestStore(initialState: [Chain]()) { Self.chainReducer(suspendFirst: false) }
    await store.send(.start) { $0 = [.start] }
    await store.receive(.b1) { $0.append(.b1) }
    await store.receive(.b2) { $0.append(.b2) }
    await store.receive(.b3) { $0.append(.b3) }
    await store.receive(.c1) { $0.append(.c1) }
    await store.finish()
  }

  enum Counting: Sendable { case start, increment }
  static var threeFollowUps: Reduce<Int, Counting> {
    Reduce { state, action in
    switch action {
    case .start: return .merge(.send(.increment), .send(.increment), .send(.increment))
    case .increment:
      state += 1
      return .none
    }
    }
  }

  @Test func subscribersSeeTheFinalStateOncePerOuterSend() {
    let store = Store(initialState: 0, reducer: Self.threeFollowUps)
    let seen = Log<Int>()
    let all = Log<Int>()
    let a = store.subscribe(select: { $0 }) { seen.append($0) }
    let b = store.subscribe { all.append($0) }
    store.send(.start)
    #expect(seen.values == [0, 3])
    #expect(all.values == [0, 3])
    #expect(store.version == 4)  // every action still counts
    a.cancel()
    b.cancel()
  }

  @Test func theStatesSequenceSeesTheFinalStateOncePerOuterSend() async {
    let store = Store(initialState: 0, reducer: Self.threeFollowUps)
    var iterator = store.states.makeAsyncIterator()
    #expect(await iterator.next() == 0)
    store.send(.start)
    store.send(.increment)
    #expect(await iterator.next() == 3)
    #expect(await iterator.next() == 4)
  }

  @Test func concatenatedEffectsRunAtTheirOwnPriority() async {
    enum Action: Sendable, Equatable { case go, ran(String, TaskPriority) }
    let store = Store(
      initialState: [String](),
      reducer: Reduce<[String], Action> { state, action in
        switch action {
        case .go:
          return .concatenate(
            .run(priority: .low) { send in await send(.ran("low", Task.currentPriority)) },
            .run(priority: .high) { send in await send(.ran("high", Task.currentPriority)) },
            .run(priority: .medium) { send in await send(.ran("medium", Task.currentPriority)) }
          )
        case let .ran(name, priority):
          state.append("\(name)=\(priority.rawValue)")
          return .none
        }
      })
    await store.send(.go).finish()
    #expect(
      store.state == [
        "low=\(TaskPriority.low.rawValue)", "high=\(TaskPriority.high.rawValue)",
        "medium=\(TaskPriority.medium.rawValue)",
      ])
  }

  // MARK: Scope

  struct Parent: Reducer {
    struct State: Equatable, Sendable {
      var child = Child.State()
      var log: [String] = []
    }
    enum Action: Sendable, Equatable {
      case child(Child.Action)
      case note(String)
    }
    var body: some ReducerOf<Self> {
      Scope(state: \.child, action: AnyCasePath(embed: Action.child, extract: {
        if case let .child(action) = $0 { action } else { nil }
      })) {
        Child()
      }
      Reduce { state, action in
        if case let .note(text) = action { state.log.append(text) }
        return .none
      }
    }
  }

  struct Child: Reducer {
    struct State: Equatable, Sendable {
      var count = 0
      var grandchild = Grandchild()
    }
    struct Grandchild: Equatable, Sendable { var count = 0 }
    enum Action: Sendable, Equatable { case increment, load, loaded(Int) }
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .increment:
        state.count += 1
        state.grandchild.count += 1
        return .none
      case .load:
        return .run { send in
          await Task.yield()
          await send(.loaded(42))
        }
      case let .loaded(value):
        state.count = value
        return .none
      }
    }
  }

  @Test func aScopedStoreSharesTheRootsStateAndEffects() async {
    let root = Store(initialState: Parent.State()) { Parent() }
    let child = root.scope(state: \.child, action: Parent.Action.child)
    child.send(.increment)
    #expect(root.state.child.count == 1)
    #expect(child.count == 1)
    root.send(.child(.increment))
    #expect(child.state.count == 2)
    #expect(child.version == root.version)
    await child.send(.load).finish()
    #expect(root.state.child.count == 42)
    #expect(root.effectCount == 0)

    let seen = Log<Int>()
    let subscription = child.subscribe(select: \.count) { seen.append($0) }
    root.send(.child(.increment))
    root.send(.note("parent only"))  // the child's count does not change: no duplicate
    #expect(seen.values == [42, 43])
    subscription.cancel()
  }

  @Test func releasingAnIntermediateScopedStoreBreaksNeitherADeeperOneNorItsEffects() async {
    let root = Store(initialState: Parent.State()) { Parent() }
    var child: Store<Child.State, Child.Action>? = root.scope(
      state: \.child, action: Parent.Action.child)
    let grandchild = child!.scope(state: \.grandchild, action: { (_: Void) in .increment })
    weak let weakChild = child
    let task = child!.send(.load)
    child = nil
    #expect(weakChild == nil)
    grandchild.send(())
    #expect(grandchild.count == 1)
    #expect(root.state.child.grandchild.count == 1)
    await task.finish()
    #expect(root.state.child.count == 42)
  }

  // MARK: Observers outside the lock

  @Test func storesWhoseObserversSendToEachOtherDoNotDeadlock() async {
    // A's observer sends to B, B's to A; one thread sends to A while another sends to B. With
    // observers called under the store's lock this deadlocked at once (lock-order inversion).
    enum Action: Sendable { case tick, echo }
    struct Counts: Equatable, Sendable {
      var ticks = 0
      var echoes = 0
    }
    let reducer = Reduce<Counts, Action> { state, action in
      switch action {
      case .tick: state.ticks += 1
      case .echo: state.echoes += 1
      }
      return .none
    }
    let a = Store(initialState: Counts(), reducer: reducer)
    let b = Store(initialState: Counts(), reducer: reducer)
    let lastTicks = Mutex<(a: Int, b: Int)>((0, 0))
    let subA = a.subscribe { [weak b] state in
      let isNewTick = lastTicks.withLock { last in
        defer { last.a = state.ticks }
        return state.ticks != last.a
      }
      if isNewTick { b?.send(.echo) }
    }
    let subB = b.subscribe { [weak a] state in
      let isNewTick = lastTicks.withLock { last in
        defer { last.b = state.ticks }
        return state.ticks != last.b
      }
      if isNewTick { a?.send(.echo) }
    }
    let rounds = 10_000
    let done = Latch()
    DispatchQueue.global().async {
      DispatchQueue.concurrentPerform(iterations: 2) { index in
        let store = index == 0 ? a : b
        for _ in 0..<rounds { store.send(.tick) }
      }
      done.open()
    }
    #expect(await done.wait(timeout: .seconds(60)), "deadlocked")
    #expect(a.state.ticks == rounds && b.state.ticks == rounds)
    #expect(a.state.echoes >= 1 && a.state.echoes <= rounds)
    subA.cancel()
    subB.cancel()
  }

  @Test func unsubscribingManySubscribersIsNotQuadratic() {
    // 0.1.0 removed each subscriber with a linear scan: 30,000 removals took about 65 s.
    let store = Store(initialState: 0, reducer: Self.threeFollowUps)
    let calls = Atomic<Int>(0)
    var subscriptions = (0..<30_000).map { _ in
      store.subscribe(select: { $0 }, removeDuplicates: false) { _ in
        calls.add(1, ordering: .relaxed)
      }
    }
    #expect(store.subscriberCount == 30_000)
    // Remove every other one, then the rest from the back: order of delivery is kept.
    for index in stride(from: 0, to: subscriptions.count, by: 2) { subscriptions[index].cancel() }
    #expect(store.subscriberCount == 15_000)
    calls.store(0, ordering: .relaxed)
    store.send(.increment)
    let afterHalf = calls.load(ordering: .relaxed)
    #expect(afterHalf == 15_000)
    while let last = subscriptions.popLast() { last.cancel() }
    #expect(store.subscriberCount == 0)
    calls.store(0, ordering: .relaxed)
    store.send(.increment)
    let afterAll = calls.load(ordering: .relaxed)
    #expect(afterAll == 0)
  }

  @Test func deliveryOrderIsSubscriptionOrder() {
    let store = Store(initialState: 0, reducer: Self.threeFollowUps)
    let order = Log<Int>()
    var subscriptions = (0..<100).map { index in
      store.subscribe(select: { $0 }, removeDuplicates: false) { value in
        if value > 0 { order.append(index) }
      }
    }
    for index in stride(from: 0, to: 100, by: 3) { subscriptions[index].cancel() }
    store.send(.increment)
    #expect(order.values == (0..<100).filter { $0 % 3 != 0 })
    subscriptions.removeAll()
  }

  @Test func cancellingFromAnotherThreadWaitsForARunningCallback() async {
    let store = Store(initialState: 0, reducer: Self.threeFollowUps)
    let entered = Latch()
    let release = Latch()
    let finished = Atomic<Bool>(false)
    let subscription = store.subscribe(select: { $0 }) { value in
      guard value > 0 else { return }
      entered.open()
      while !release.isOpen { sched_yield() }
      finished.store(true, ordering: .sequentiallyConsistent)
    }
    DispatchQueue.global().async { store.send(.increment) }
    #expect(await entered.wait())
    let cancelled = Latch()
    DispatchQueue.global().async {
      subscription.cancel()
      // The callback was running when cancel started: cancel returns only after it ended.
      let callbackHadFinished = finished.load(ordering: .sequentiallyConsistent)
      #expect(callbackHadFinished)
      cancelled.open()
    }
    try? await Task.sleep(for: .milliseconds(50))
    #expect(!cancelled.isOpen)
    release.open()
    #expect(await cancelled.wait())
  }
}
