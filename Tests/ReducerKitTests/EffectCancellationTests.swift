import ReducerKit
import ReducerKitTesting
import Testing

@Suite(.testStoreIssues) struct EffectCancellationTests {
  @Test func timerIsCancelledByID() async {
    struct Feature: Reducer {
      struct State: Equatable {
        var isOn = false
        var ticks = 0
      }
      enum Action: Equatable, Sendable { case toggle, tick }
      enum CancelID { case timer }
      @Dependency(\.continuousClock) var clock
      func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .toggle:
          state.isOn.toggle()
          guard state.isOn else { return .cancel(id: CancelID.timer) }
          return .run { send in
            while true {
              try await clock.sleep(for: .seconds(1))
              await send(.tick)
            }
          }
          .cancellable(id: CancelID.timer)
        case .tick:
          state.ticks += 1
          return .none
        }
      }
    }
    let clock = TestClock()
    let store = TestStore(initialState: Feature.State()) { Feature() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.toggle) { $0.isOn = true }
    await store.settle()
    await clock.advance(by: .seconds(2))
    await store.receive(.tick) { $0.ticks = 1 }
    await store.receive(.tick) { $0.ticks = 2 }
    await store.send(.toggle) { $0.isOn = false }
    #expect(clock.sleeperCount == 0)  // cancelling removed the sleeper at once
    await clock.advance(by: .seconds(10))  // nothing sleeps any more: no tick arrives
    await store.finish()
    #expect(clock.sleeperCount == 0)
  }

  @Test func cancelInFlightKeepsOnlyTheLatestRequest() async {
    enum Action: Equatable, Sendable { case search(String), response(String) }
    enum CancelID { case search }
    let clock = TestClock()
    let store = TestStore(initialState: "") {
      Reduce<String, Action> { state, action in
        switch action {
        case let .search(query):
          return .run { send in
            try await clock.sleep(for: .seconds(1))
            await send(.response(query))
          }
          .cancellable(id: CancelID.search, cancelInFlight: true)
        case let .response(result):
          state = result
          return .none
        }
      }
    }
    await store.send(.search("a"))
    await store.send(.search("ab"))
    await store.send(.search("abc"))
    await store.settle()
    #expect(clock.sleeperCount == 1)
    await clock.advance(by: .seconds(1))
    await store.receive(.response("abc")) { $0 = "abc" }
    await store.finish()
  }

  @Test func withoutCancelInFlightEveryRequestCompletes() async {
    enum Action: Equatable, Sendable { case search(String), response(String) }
    enum CancelID { case search }
    let clock = TestClock()
    let store = TestStore(initialState: [String]()) {
      Reduce<[String], Action> { state, action in
        switch action {
        case let .search(query):
          return .run { send in
            try await clock.sleep(for: .seconds(query.count == 1 ? 1 : 2))
            await send(.response(query))
          }
          .cancellable(id: CancelID.search)
        case let .response(result):
          state.append(result)
          return .none
        }
      }
    }
    await store.send(.search("a"))
    await store.send(.search("ab"))
    await store.settle()
    #expect(clock.sleeperCount == 2)
    await clock.advance(by: .seconds(1))
    await store.receive(.response("a")) { $0 = ["a"] }
    await clock.advance(by: .seconds(1))
    await store.receive(.response("ab")) { $0 = ["a", "ab"] }
    await store.finish()
  }

  @Test func cancelStopsEveryPartOfAMergedEffectWithThatID() async {
    enum Action: Equatable, Sendable { case start, stop, tick(Int) }
    let clock = TestClock()
    let store = TestStore(initialState: 0) {
      Reduce<Int, Action> { state, action in
        switch action {
        case .start:
          return .merge(
            .run { send in
              try await clock.sleep(for: .seconds(1))
              await send(.tick(1))
            },
            .run { send in
              try await clock.sleep(for: .seconds(2))
              await send(.tick(2))
            }
          )
          .cancellable(id: "work")
        case .stop:
          return .cancel(id: "work")
        case .tick:
          state += 1
          return .none
        }
      }
    }
    await store.send(.start)
    await store.settle()
    #expect(clock.sleeperCount == 2)
    await store.send(.stop)
    await store.finish()
    #expect(clock.sleeperCount == 0)
  }

  @Test func cancelIDsOfDifferentTypesDoNotCollide() async {
    enum Action: Equatable, Sendable { case start, stopEnum, stopString, fired(String) }
    enum CancelID { case timer }
    let clock = TestClock()
    let store = TestStore(initialState: [String]()) {
      Reduce<[String], Action> { state, action in
        switch action {
        case .start:
          return .merge(
            .run { send in
              try await clock.sleep(for: .seconds(1))
              await send(.fired("enum"))
            }.cancellable(id: CancelID.timer),
            .run { send in
              try await clock.sleep(for: .seconds(1))
              await send(.fired("string"))
            }.cancellable(id: "timer"))
        case .stopEnum: return .cancel(id: CancelID.timer)
        case .stopString: return .cancel(id: "timer")
        case let .fired(name):
          state.append(name)
          return .none
        }
      }
    }
    await store.send(.start)
    await store.settle()
    await store.send(.stopEnum)
    await store.settle()
    #expect(clock.sleeperCount == 1)
    await clock.advance(by: .seconds(1))
    await store.receive(.fired("string")) { $0 = ["string"] }
    await store.send(.stopString)  // nothing left to cancel: harmless
    await store.finish()
  }

  @Test func cancelManyIDsAtOnce() async {
    enum Action: Equatable, Sendable { case start, stopAll }
    let clock = TestClock()
    let store = TestStore(initialState: 0) {
      Reduce<Int, Action> { _, action in
        switch action {
        case .start:
          return .merge((1...3).map { id in
            .run { _ in try await clock.sleep(for: .seconds(60)) }.cancellable(id: id)
          })
        case .stopAll:
          return .cancel(ids: [1, 2, 3])
        }
      }
    }
    await store.send(.start)
    await store.settle()
    #expect(clock.sleeperCount == 3)
    #expect(store.effectCount == 3)
    await store.send(.stopAll)
    await store.finish()
    #expect(clock.sleeperCount == 0)
  }

  @Test func cancelledEffectDropsItsLaterSends() async {
    enum Action: Equatable, Sendable { case start, stop, progress(Int) }
    let clock = TestClock()
    let store = TestStore(initialState: 0) {
      Reduce<Int, Action> { state, action in
        switch action {
        case .start:
          return .run { send in
            for step in 1... {
              try? await clock.sleep(for: .seconds(1))  // swallows cancellation on purpose
              await send(.progress(step))  // dropped once cancelled
              if Task.isCancelled { return }
            }
          }
          .cancellable(id: "progress")
        case .stop:
          return .cancel(id: "progress")
        case let .progress(step):
          state = step
          return .none
        }
      }
    }
    await store.send(.start)
    await store.settle()
    await clock.advance(by: .seconds(1))
    await store.receive(.progress(1)) { $0 = 1 }
    await store.send(.stop)
    await store.finish()
  }
}
