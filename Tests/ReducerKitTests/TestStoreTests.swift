#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import ReducerKit
import ReducerKitTesting
import Synchronization
import Testing

@Suite(.testStoreIssues) struct TestStoreTests {
  struct Feature: Reducer {
    struct State: Equatable {
      var count = 0
      var text = ""
      var loaded: [Int] = []
    }
    enum Action: Equatable, Sendable {
      case increment, incrementAndLabel, noop, ping
      case chain, chained
      case load(Int), loaded(Int)
      case loadMany, startTimer, stopTimer, tick
      case fail
    }
    enum CancelID { case timer }
    struct Failure: Error {}
    @Dependency(\.continuousClock) var clock

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .increment:
        state.count += 1
        return .none
      case .incrementAndLabel:
        state.count += 1
        state.text = "count is \(state.count)"
        return .none
      case .noop:
        return .none
      case .ping:
        return .send(.noop)
      case .chain:
        return .send(.chained)
      case .chained:
        state.text = "chained"
        return .none
      case let .load(value):
        return .run { send in await send(.loaded(value)) }
      case let .loaded(value):
        state.loaded.append(value)
        return .none
      case .loadMany:
        return .run { send in
          for value in 1...3 { await send(.loaded(value)) }
        }
      case .startTimer:
        return .run { send in
          while true {
            try await clock.sleep(for: .seconds(1))
            await send(.tick)
          }
        }
        .cancellable(id: CancelID.timer)
      case .stopTimer:
        return .cancel(id: CancelID.timer)
      case .tick:
        state.count += 1
        return .none
      case .fail:
        return .run { _ in throw Failure() }
      }
    }
  }

  func makeStore(clock: TestClock = TestClock()) -> TestStore<Feature.State, Feature.Action> {
    TestStore(initialState: Feature.State()) { Feature() } withDependencies: {
      $0.continuousClock = clock
    }
  }

  // MARK: Passing

  @Test func exhaustiveHappyPath() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    await store.send(.increment) { $0.count = 1 }
    await store.send(.noop)
    await store.send(.chain)
    await store.receive(.chained) { $0.text = "chained" }
    await store.send(.load(7))
    await store.receive(.loaded(7)) { $0.loaded = [7] }
    let timer = await store.send(.startTimer)
    await store.settle()
    await clock.advance(by: .seconds(2))
    await store.receive(.tick) { $0.count = 2 }
    await store.receive(.tick) { $0.count = 3 }
    await store.send(.stopTimer)
    await timer.finish()
    #expect(store.state == Feature.State(count: 3, text: "chained", loaded: [7]))
    await store.finish()
  }

  @Test func receiveWithAPredicate() async {
    let store = makeStore()
    await store.send(.load(3))
    await store.receive({ if case .loaded = $0 { true } else { false } }) { $0.loaded = [3] }
    await store.finish()
  }

  @Test func sendReturnsATaskThatCanBeCancelled() async {
    let store = makeStore()
    let task = await store.send(.startTimer)
    await store.settle()
    #expect(store.effectCount == 1)
    #expect(store.isIdle)
    #expect(!task.isCancelled)
    await task.cancel()
    #expect(task.isCancelled)
    #expect(store.effectCount == 0)
    await store.finish()
  }

  // MARK: Failing (each failure must be reported, with a readable message)

  @Test func wrongStateAssertionFailsWithADiff() async {
    let store = makeStore()
    await withKnownIssue {
      await store.send(.increment) { $0.count = 2 }
    } matching: { issue in
      let message = text(of: issue)
      return message.contains("A state change does not match expectation")
        && message.contains("− ") && message.contains("+ ")
        && message.contains("count: 2") && message.contains("count: 1")
        && message.contains("(Expected: −, Actual: +)")
    }
    #expect(store.state.count == 1)  // the store moves on with the actual state
    await store.finish()
  }

  @Test func unassertedStateChangeFails() async {
    let store = makeStore()
    await withKnownIssue {
      await store.send(.increment)
    } matching: { issue in
      let message = text(of: issue)
      return message.contains("State was not expected to change")
        && message.contains("count: 0") && message.contains("count: 1")
    }
    await store.finish()
  }

  @Test func assertionThatChangesNothingWhenNothingChangedFails() async {
    let store = makeStore()
    await withKnownIssue {
      await store.send(.noop) { $0.count = 0 }
    } matching: { issue in
      text(of: issue).contains("Expected state to change")
    }
    await store.finish()
  }

  @Test func unexpectedReceivedActionFailsWithADiff() async {
    let store = makeStore()
    await store.send(.load(1))
    await withKnownIssue {
      await store.receive(.loaded(2)) { $0.loaded = [2] }
    } matching: { issue in
      let message = text(of: issue)
      return message.contains("Received unexpected action")
        && message.contains("loaded(2)") && message.contains("loaded(1)")
    }
    await store.finish()
  }

  @Test func receivingWhenNothingArrivesFails() async {
    let store = makeStore()
    store.timeout = .milliseconds(50)
    await withKnownIssue {
      await store.receive(.tick)
    } matching: { issue in
      text(of: issue).contains("Expected to receive") && text(of: issue).contains("tick")
    }
    await store.finish()
  }

  @Test func actionNotReceivedFailsAtFinish() async {
    let store = makeStore()
    await store.send(.load(5)).finish()
    await withKnownIssue {
      await store.finish()
    } matching: { issue in
      let message = text(of: issue)
      return message.contains("not asserted") && message.contains("loaded(5)")
    }
  }

  @Test func effectStillRunningFailsAtFinish() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    await store.send(.startTimer)
    await store.settle()
    await withKnownIssue {
      await store.finish(timeout: .milliseconds(20))
    } matching: { issue in
      text(of: issue).contains("still running")
    }
    #expect(clock.sleeperCount == 0)  // finish() tears the store down: the timer was cancelled
  }

  @Test func sendingWhileReceivedActionsAreUnhandledFails() async {
    let store = makeStore()
    await store.send(.ping)  // `.noop` is received synchronously and not asserted
    await withKnownIssue {
      await store.send(.increment) { $0.count = 1 }
    } matching: { issue in
      let message = text(of: issue)
      return message.contains("Must handle 1 received action(s)") && message.contains("noop")
    }
    store.skipReceivedActions()
    await store.finish()
  }

  @Test func uncaughtEffectErrorFails() async {
    let store = makeStore()
    await withKnownIssue {
      await store.send(.fail).finish()
    } matching: { issue in
      let message = text(of: issue)
      return message.contains("An effect threw an error that no catch handler took")
        && message.contains("Failure") && message.contains("TestStoreTests.swift")
    }
    await store.finish()
  }

  @Test func droppingAStoreWithUnassertedWorkFails() async {
    await withKnownIssue {
      let store = makeStore()
      await store.send(.startTimer)
      await store.settle()
      await store.send(.chain)
      // No finish(): deinit reports both the unreceived action and the running effect.
    } matching: { issue in
      let message = text(of: issue)
      return message.contains("ended with 1 received action(s) that were not asserted")
        && message.contains("chained")
        || message.contains("ended with 1 effect(s) still running")
    }
  }

  @Test func failureMessagesPointAtTheFailingLine() async {
    let store = makeStore()
    let line = #line + 2
    await withKnownIssue {
      await store.send(.increment) { $0.count = 5 }
    } matching: { issue in
      issue.sourceLocation?.line == line && issue.sourceLocation?.fileID.hasSuffix("TestStoreTests.swift") == true
    }
    await store.finish()
  }

  // MARK: Non-exhaustive

  @Test func nonExhaustivePassesWhenOnlySomeChangesAreAsserted() async {
    let store = makeStore()
    store.exhaustivity = .off
    await store.send(.incrementAndLabel) { $0.count = 1 }  // `text` changed too: not asserted
    await store.send(.incrementAndLabel)  // nothing asserted at all
    #expect(store.state.count == 2)
    #expect(store.state.text == "count is 2")
    await store.send(.loadMany)
    await store.receive(.loaded(3)) { $0.loaded = [1, 2, 3] }  // skips loaded(1) and loaded(2)
    await store.send(.chain)  // `.chained` is never asserted
    await store.send(.noop)  // sending with unhandled received actions is fine too
    await store.finish()
    #expect(store.state.text == "chained")
  }

  /// With `exhaustivity = .off`, skipping received actions never moves the state back in time.
  @Test func nonExhaustiveStateNeverGoesBackInTime() async {
    let store = makeStore()
    store.exhaustivity = .off
    await store.send(.chain)  // `.chained` is received at once and left unasserted
    await store.send(.increment) { $0.count = 1 }
    #expect(store.state.count == 1)
    #expect(store.state.text == "chained")
    store.skipReceivedActions()
    #expect(store.state.count == 1)
    await store.finish()
  }

  @Test func nonExhaustiveStillFailsOnAWrongAssertion() async {
    let store = makeStore()
    store.exhaustivity = .off
    await withKnownIssue {
      await store.send(.incrementAndLabel) { $0.count = 99 }
    } matching: { issue in
      text(of: issue).contains("count: 99")
    }
    await store.finish()
  }

  /// `cancelEffects()` cancels effects and leaves the store usable.
  @Test func cancelEffectsLeavesTheStoreUsable() async {
    let store = makeStore()
    await store.send(.startTimer)
    await store.settle()
    await store.cancelEffects()
    #expect(store.effectCount == 0)
    await store.send(.increment) { $0.count = 1 }
    await store.finish()
  }

  /// The test target links IssueReportingTestSupport, so TestStore failures fail tests on Linux.
  @Test func testTargetLinksIssueReportingTestSupport() {
    let symbol = "$s25IssueReportingTestSupport07_recordA0ypyF"  // what IssueReporting looks up
    let handle = dlopen("libIssueReportingTestSupport.so", RTLD_LAZY) ?? dlopen(nil, RTLD_LAZY)
    let linked = handle.flatMap { dlsym($0, symbol) } != nil
    #expect(linked, "TestStore failures are silently printed instead of failing the test")
  }

  /// An effect cancelled by id is over for the test even while its task still winds down (as
  /// in TCA, whose cancellation is immediate): ending the store then reports nothing.
  @Test func effectCancelledByIDDoesNotOutliveTheTest() async {
    enum Action { case start, stop }
    let gate = WindDownGate()
    do {
      let store = TestStore(initialState: 0) {
        Reduce<Int, Action> { _, action in
          switch action {
          case .start:
            return .run { _ in
              try? await Task.sleep(for: .seconds(3600))
              await gate.wait()  // ignores cancellation: the task outlives the store
            }
            .cancellable(id: "job")
          case .stop:
            return .cancel(id: "job")
          }
        }
      }
      await store.send(.start)
      await store.send(.stop)
    }
    gate.open()
  }
}

/// Suspends its waiters, whether cancelled or not, until opened.
private final class WindDownGate: Sendable {
  private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  func wait() async {
    await withCheckedContinuation { continuation in
      let resume = state.withLock { state in
        if state.isOpen { return true }
        state.waiters.append(continuation)
        return false
      }
      if resume { continuation.resume() }
    }
  }

  func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}
