import Foundation
import ReducerKitMacros
import ReducerKitTesting
import ReducerKitWire
import Testing

@MainActor
struct NavigationStackFeatureTests {
  @Test func pushesFromTheParentAndFromAScreen() async {
    let store = TestStore(initialState: NavigationStackFeature.State()) {
      NavigationStackFeature()
    }
    await store.send(.openMenuAndCounterTapped) {
      $0.path.append(.menu(MenuScreen.State()))
      $0.path.append(.counter(CounterFeature.State()))
    }
    // Ids count from 0 in the stack itself: the test's expected ids are the reducer's.
    await store.send(\.path[id: 0].menu.onAppear) {
      $0.path[id: 0, case: \.menu]?.visits = 1
    }
    await store.send(\.path[id: 1].counter.incrementButtonTapped) {
      $0.path[id: 1, case: \.counter]?.count = 1
    }
    await store.send(\.path[id: 0].menu.menuButtonTapped) {
      $0.path[id: 2] = .menu(MenuScreen.State())
    }
    await store.send(.backToScreen(id: 0)) {
      $0.path.pop(to: 0)
    }
    // A popped id is not given again.
    await store.send(\.path[id: 0].menu.counterButtonTapped) {
      $0.path[id: 3] = .counter(CounterFeature.State())
    }
    await store.send(.popToRoot) {
      $0.path = StackState()
    }
  }

  @Test func aHostPushesAndPopsWithStackActions() async {
    let store = TestStore(initialState: NavigationStackFeature.State()) {
      NavigationStackFeature()
    }
    await store.send(.path(.push(id: 5, state: .menu(MenuScreen.State())))) {
      $0.path[id: 5] = .menu(MenuScreen.State())
    }
    await store.send(.path(.element(id: 5, action: .menu(.counterButtonTapped)))) {
      $0.path[id: 6] = .counter(CounterFeature.State())
    }
    await store.send(.path(.popFrom(id: 5))) {
      $0.path = StackState()
    }
  }

  @Test func poppingAScreenCancelsItsEffects() async {
    let clock = TestClock()
    let store = TestStore(initialState: NavigationStackFeature.State()) {
      NavigationStackFeature()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.openMenuAndCounterTapped) {
      $0.path = [.menu(MenuScreen.State()), .counter(CounterFeature.State())]
    }
    await store.send(\.path[id: 1].counter.toggleTimerButtonTapped) {
      $0.path[id: 1, case: \.counter]?.isTimerRunning = true
    }
    await clock.advance(by: .seconds(1))
    await store.receive(\.path[id: 1].counter.timerTick) {
      $0.path[id: 1, case: \.counter]?.count = 1
    }
    await store.send(.path(.popFrom(id: 1))) {
      $0.path.removeLast()
    }
    // The timer ended with its screen: nothing more arrives, nothing is left running.
    await clock.advance(by: .seconds(5))
  }

  @Test func aScreenDismissesItselfFromTheStack() async {
    let store = TestStore(initialState: NavigationStackFeature.State()) {
      NavigationStackFeature()
    }
    await store.send(.openMenuAndCounterTapped) {
      $0.path = [.menu(MenuScreen.State()), .counter(CounterFeature.State())]
    }
    await store.send(\.path[id: 0].menu.closeButtonTapped)
    await store.receive(\.path.popFrom, 0) {
      $0.path = StackState()
    }
  }

  @Test func aPresentedFeatureDismissesItself() async {
    let store = TestStore(initialState: NavigationStackFeature.State()) {
      NavigationStackFeature()
    }
    await store.send(.aboutButtonTapped) {
      $0.about = MenuScreen.State()
    }
    await store.send(\.about.closeButtonTapped)
    await store.receive(\.about.dismiss) {
      $0.about = nil
    }
  }

  @Test func dismissWhereNothingIsPresentedIsReported() async {
    let store = TestStore(initialState: MenuScreen.State()) {
      MenuScreen()
    }
    await withKnownIssue {
      await store.send(.closeButtonTapped)
    }
  }

  @Test func anActionForAScreenNotInTheStackIsReported() async {
    let store = TestStore(initialState: NavigationStackFeature.State()) {
      NavigationStackFeature()
    }
    await withKnownIssue {
      await store.send(.path(.element(id: 7, action: .menu(.onAppear))))
    }
    await withKnownIssue {
      await store.send(.path(.popFrom(id: 7)))
    }
  }

  @Test func theStackIsWrittenWithItsIds() throws {
    var stack = StackState<Int>([10, 20, 30])
    stack.pop(from: 1)
    stack.append(40)
    #expect(Array(stack) == [10, 40])
    #expect(stack.ids == [0, 3])
    let text = String(decoding: try WireEncoder().encode(stack), as: UTF8.self)
    #expect(text == #"[{"id":0,"state":10},{"id":3,"state":40}]"#)
    let back = try WireDecoder().decode(StackState<Int>.self, from: text)
    #expect(back == stack)
    var next = back
    next.append(50)
    #expect(next.ids == [0, 3, 4])
  }

  @Test func aStackWithARepeatedIdIsRejected() {
    #expect(throws: WireError.self) {
      _ = try WireDecoder().decode(StackState<Int>.self, from: #"[{"id":1,"state":10},{"id":1,"state":20}]"#)
    }
    do {
      _ = try WireDecoder().decode(StackState<Int>.self, from: #"[{"id":1,"state":10},{"id":1,"state":20}]"#)
    } catch {
      #expect(error.description.contains("id 1 appears twice in the stack"))
    }
    #expect(throws: WireError.self) {
      _ = try WireDecoder().decode(StackState<Int>.self, from: #"[{"id":-1,"state":10}]"#)
    }
  }
}

// MARK: - Hostile ids and captured dismiss

/// A screen whose effect captures `dismiss` while it reduces (`[dismiss]`, as Swift 6 code
/// captures its dependencies), and a stack of them.
@Reducer
struct DismissCapturingScreen {
  struct State: Equatable {}
  enum Action { case close }
  @Dependency(\.dismiss) var dismiss
  var body: some ReducerOf<Self> {
    Reduce { _, action in
      switch action {
      case .close: return .run { [dismiss] _ in await dismiss() }
      }
    }
  }
}

@Reducer
struct DismissCapturingStack {
  struct State: Equatable { var path = StackState<DismissCapturingScreen.State>() }
  enum Action {
    case closeHere
    case path(StackActionOf<DismissCapturingScreen>)
    case push
  }
  @Dependency(\.dismiss) var dismiss
  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .closeHere: return .run { [dismiss] _ in await dismiss() }
      case .path: return .none
      case .push:
        state.path.append(DismissCapturingScreen.State())
        return .none
      }
    }
    .forEach(\.path, action: \.path) { DismissCapturingScreen() }
  }
}

@MainActor
struct StackHostileInputTests {
  @Test func aScreenWhoseEffectCapturedDismissPopsItself() async {
    let store = TestStore(initialState: DismissCapturingStack.State()) { DismissCapturingStack() }
    await store.send(.push) { $0.path.append(DismissCapturingScreen.State()) }
    await store.send(\.path[id: 0].close)
    await store.receive(\.path.popFrom) { $0.path = StackState() }
  }

  @Test func aCapturedDismissOutsideAPresentationIsStillAnIssue() async {
    let store = TestStore(initialState: DismissCapturingStack.State()) { DismissCapturingStack() }
    await withKnownIssue {
      await store.send(.closeHere)
      await store.finish()
    } matching: { $0.description.contains("not presented") }
  }

  @Test func aHostCannotPushAnIdTheStackWouldNotRead() {
    for id in ["-5", "9223372036854775807"] {
      #expect(throws: WireError.self) {
        _ = try WireDecoder().decode(StackAction<Int, Int>.self, from: #"{"push":{"id":\#(id),"state":1}}"#)
      }
      #expect(throws: WireError.self) {
        _ = try WireDecoder().decode(StackAction<Int, Int>.self, from: #"{"popFrom":{"id":\#(id)}}"#)
      }
    }
  }

  @Test func idsNeverRunPastIntMax() throws {
    var stack = try WireDecoder().decode(StackState<Int>.self, from: #"[{"id":9223372036854775806,"state":1}]"#)
    stack.append(2)
    stack.append(contentsOf: [3, 4])
    #expect(stack.ids == [9_223_372_036_854_775_806, 0, 1, 2])
    let text = String(decoding: try WireEncoder().encode(stack), as: UTF8.self)
    #expect(try WireDecoder().decode(StackState<Int>.self, from: text) == stack)
  }
}
