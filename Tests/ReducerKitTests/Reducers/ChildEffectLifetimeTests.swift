// forEach over IdentifiedArray needs the IdentifiedCollections trait (`make test-swift` turns
// it on: `swift test --traits IdentifiedCollections`); a plain `swift test` skips this file.
#if IdentifiedCollections
import ReducerKit
import ReducerKitTesting
import Testing

/// Child effects die with their child, and cancel ids are scoped to the child that declared
/// them (as in TCA). On 0.1.0 a removed child's timer kept ticking, and a row's
/// `.cancel(id:)` cancelled every row's effects and the parent's.
@Suite struct ChildEffectLifetimeTests {
  /// A row with a one-second timer (cancel id `TimerID.tick`, the same id in every row).
  struct Row: Reducer {
    struct State: Equatable, Identifiable, Sendable {
      let id: Int
      var ticks = 0
    }
    enum Action: Equatable, Sendable { case start, stop, tick }
    enum TimerID { case tick }
    @Dependency(\.continuousClock) var clock

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .start:
        return .run { [clock] send in
          while true {
            try await clock.sleep(for: .seconds(1))
            await send(.tick)
          }
        }
        .cancellable(id: TimerID.tick)
      case .stop:
        return .cancel(id: TimerID.tick)
      case .tick:
        state.ticks += 1
        return .none
      }
    }
  }

  struct Parent: Reducer {
    struct State: Equatable, Sendable {
      var rows: IdentifiedArrayOf<Row.State> = []
      var detail: Row.State?
      var parentTicks = 0
    }
    enum Action: Equatable, Sendable {
      case rows(IdentifiedActionOf<Row>)
      case detail(Row.Action)
      case removeRow(Int)
      case setDetail(Row.State?)
      case startParentTimer, parentTick, stopEverything
    }
    @Dependency(\.continuousClock) var clock

    var body: some ReducerOf<Self> {
      Reduce { state, action in
        switch action {
        case let .removeRow(id):
          state.rows.remove(id: id)
          return .none
        case let .setDetail(detail):
          state.detail = detail
          return .none
        case .startParentTimer:
          return .run { [clock] send in
            while true {
              try await clock.sleep(for: .seconds(1))
              await send(.parentTick)
            }
          }
          .cancellable(id: Row.TimerID.tick)
        case .parentTick:
          state.parentTicks += 1
          return .none
        case .stopEverything:
          return .cancel(id: Row.TimerID.tick)
        case .rows, .detail:
          return .none
        }
      }
      .forEach(\.rows, action: AnyCasePath(embed: Action.rows, extract: {
        if case let .rows(action) = $0 { action } else { nil }
      })) {
        Row()
      }
      .ifLet(\.detail, action: AnyCasePath(embed: Action.detail, extract: {
        if case let .detail(action) = $0 { action } else { nil }
      })) {
        Row()
      }
    }
  }

  /// An enum state with a child in one case.
  struct Modal: Reducer {
    enum State: Equatable, Sendable {
      case row(Row.State)
      case idle
    }
    enum Action: Equatable, Sendable { case row(Row.Action), close }
    var body: some ReducerOf<Self> {
      Reduce { state, action in
        if case .close = action { state = .idle }
        return .none
      }
      .ifCaseLet(
        AnyCasePath(embed: State.row, extract: { if case let .row(row) = $0 { row } else { nil } }),
        action: AnyCasePath(embed: Action.row, extract: {
          if case let .row(action) = $0 { action } else { nil }
        })
      ) {
        Row()
      }
    }
  }

  func makeStore(_ state: Parent.State, clock: TestClock) -> StoreOf<Parent> {
    Store(initialState: state) { Parent() } withDependencies: { $0.continuousClock = clock }
  }

  @Test func removingARowCancelsItsEffectsOnly() async {
    let clock = TestClock()
    let store = makeStore(Parent.State(rows: [Row.State(id: 1), Row.State(id: 2)]), clock: clock)
    store.send(.rows(.element(id: 1, action: .start)))
    store.send(.rows(.element(id: 2, action: .start)))
    await clock.advance(by: .seconds(1))
    #expect(store.rows.map(\.ticks) == [1, 1])
    store.send(.removeRow(1))
    await clock.advance(by: .seconds(3))
    #expect(store.rows.map(\.ticks) == [4])
    #expect(store.effectCount == 1)  // only row 2's timer
    store.send(.removeRow(2))
    await store.idle()
    #expect(store.effectCount == 0)
    #expect(clock.sleeperCount == 0)
  }

  @Test func aRowsCancelReachesThatRowOnly() async {
    let clock = TestClock()
    let store = makeStore(Parent.State(rows: [Row.State(id: 1), Row.State(id: 2)]), clock: clock)
    store.send(.rows(.element(id: 1, action: .start)))
    store.send(.rows(.element(id: 2, action: .start)))
    store.send(.startParentTimer)  // the same cancel id, declared in the parent
    store.send(.rows(.element(id: 1, action: .stop)))
    await clock.advance(by: .seconds(2))
    #expect(store.rows.map(\.ticks) == [0, 2])
    #expect(store.parentTicks == 2)
    // A parent's cancel still reaches its children.
    store.send(.stopEverything)
    await clock.advance(by: .seconds(2))
    #expect(store.rows.map(\.ticks) == [0, 2])
    #expect(store.parentTicks == 2)
    await store.idle()
    #expect(store.effectCount == 0)
  }

  @Test func settingAnOptionalChildToNilCancelsItsEffects() async {
    let clock = TestClock()
    let store = makeStore(Parent.State(detail: Row.State(id: 7)), clock: clock)
    store.send(.detail(.start))
    await clock.advance(by: .seconds(1))
    #expect(store.detail?.ticks == 1)
    store.send(.setDetail(nil))
    await store.idle()
    #expect(store.effectCount == 0)
    #expect(clock.sleeperCount == 0)
  }

  @Test func replacingAnIdentifiableChildCancelsTheOldOnesEffects() async {
    let clock = TestClock()
    let store = makeStore(Parent.State(detail: Row.State(id: 7)), clock: clock)
    store.send(.detail(.start))
    store.send(.setDetail(Row.State(id: 8)))
    await clock.advance(by: .seconds(2))
    #expect(store.detail == Row.State(id: 8, ticks: 0))
    #expect(store.effectCount == 0)
  }

  @Test func switchingAnEnumAwayFromTheChildCaseCancelsItsEffects() async {
    let clock = TestClock()
    let store = Store(initialState: Modal.State.row(Row.State(id: 3))) { Modal() } withDependencies: {
      $0.continuousClock = clock
    }
    store.send(.row(.start))
    await clock.advance(by: .seconds(1))
    #expect(store.state == .row(Row.State(id: 3, ticks: 1)))
    store.send(.close)
    await clock.advance(by: .seconds(2))
    #expect(store.state == .idle)
    await store.idle()
    #expect(store.effectCount == 0)
  }

  @Test func anEffectStartedAndRemovedInOneSendNeverRuns() async {
    // The child's effect is started, then cancelled by the same send that removed the child.
    struct Flow: Reducer {
      struct State: Equatable, Sendable { var detail: Row.State? = Row.State(id: 1) }
      enum Action: Equatable, Sendable { case detail(Row.Action) }
      var body: some ReducerOf<Self> {
        Reduce { state, action in
          if case .detail(.start) = action { state.detail = nil }  // the parent closes it
          return .none
        }
        .ifLet(\.detail, action: AnyCasePath(embed: Action.detail, extract: {
          if case let .detail(action) = $0 { action } else { nil }
        })) {
          Row()
        }
      }
    }
    let clock = TestClock()
    let store = Store(initialState: Flow.State()) { Flow() } withDependencies: {
      $0.continuousClock = clock
    }
    store.send(.detail(.start))
    await store.idle()
    #expect(store.effectCount == 0)
    #expect(clock.sleeperCount == 0)
  }

  // MARK: Actions for absent children

  @Test func aChildActionForANilChildIsReported() {
    let store = Store(initialState: Parent.State()) { Parent() }
    withKnownIssue {
      store.send(.detail(.tick))
    } matching: { issue in
      text(of: issue).contains("ifLet") && text(of: issue).contains("tick")
    }
    #expect(store.state == Parent.State())
  }

  @Test func anActionForAMissingRowIsReported() {
    let store = Store(initialState: Parent.State()) { Parent() }
    withKnownIssue {
      store.send(.rows(.element(id: 42, action: .tick)))
    } matching: { issue in
      text(of: issue).contains("forEach") && text(of: issue).contains("42")
    }
    #expect(store.state == Parent.State())
  }

  @Test func aChildActionForAnotherCaseIsReported() {
    let store = Store(initialState: Modal.State.idle) { Modal() }
    withKnownIssue {
      store.send(.row(.tick))
    } matching: { issue in
      text(of: issue).contains("ifCaseLet")
    }
    #expect(store.state == .idle)
  }

  @Test func aTestStoreFailsOnAChildActionForANilChild() async {
    let store = TestStore(initialState: Parent.State()) { Parent() }
    await withKnownIssue {
      await store.send(.detail(.tick))
    } matching: { issue in
      text(of: issue).contains("was nil")
    }
  }
}
#endif
