import CustomDump
import IssueReporting
@_exported import ReducerKit
import ReducerKitPlatform

/// An exhaustive test harness for a reducer, like TCA's `TestStore`.
///
/// Every state change and every action an effect sends must be asserted; effects must have
/// finished by the end of the test. Failures carry a readable diff.
///
/// ```swift
/// @Test func counter() async {
///   let clock = TestClock()
///   let store = TestStore(initialState: Counter.State()) {
///     Counter()
///   } withDependencies: {
///     $0.continuousClock = clock
///     $0.numberFact = NumberFactClient { "\($0) is a good number." }
///   }
///   await store.send(.increment) { $0.count = 1 }
///   await store.send(.factButtonTapped)
///   await store.receive(.factResponse("1 is a good number.")) { $0.fact = "1 is a good number." }
///   await store.finish()
/// }
/// ```
public final class TestStore<State: Equatable, Action: Sendable> {
  /// How strictly the test store checks.
  public enum Exhaustivity: Equatable, Sendable {
    /// Every change and every received action must be asserted (the default).
    case on
    /// Only what the test asserts is checked; unasserted changes and actions are allowed.
    case off
  }

  /// How strictly this store checks (default ``Exhaustivity/on``).
  public var exhaustivity: Exhaustivity = .on

  /// How long ``receive(_:timeout:assert:fileID:filePath:line:column:)`` and ``finish(timeout:fileID:filePath:line:column:)`` wait for effects that run on
  /// live clocks. Effects sleeping on a ``TestClock`` are not waited for: advance the clock.
  public var timeout: Duration = .seconds(1)

  /// The state as of the last assertion.
  public private(set) var state: State
  /// Which reduce `state` is from (states only move forward).
  private var stateSequence = 0

  private let store: Store<State, _TestAction<Action>>
  private let recorder: _Recorder<State, Action>
  private let location: _Location
  private var finished = false
  /// Put before every failure message (the scenario runner names the scenario and step).
  package var issuePrefix = ""
  /// The scenario runner's check of the state after the next send or receive, by the scenario
  /// format's rule: nil when the state is as expected, else what differs. When set, it
  /// replaces the assertion closure's comparison (which is then nil).
  package var expectedState: ((_ actual: State) -> String?)?

  /// A test store for the reducer `reducer` builds.
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - reducer: The reducer under test.
  ///   - prepareDependencies: Overrides dependencies (in ``DependencyContext/test``).
  public init<R: Reducer>(
    initialState: State,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) where R.State == State, R.Action == Action {
    _reducerKitTestingInstallIssueReporting()
    let recorder = _Recorder<State, Action>()
    let location = _Location(fileID: fileID, filePath: filePath, line: line, column: column)
    self.recorder = recorder
    self.location = location
    self.state = initialState
    self.store = Store(
      initialState: initialState,
      reducer: _TestReducer(base: reducer(), recorder: recorder),
      withDependencies: { values in
        values.context = .test
        values.reportEffectError = EffectErrorReporter { error in
          reportIssue(
            "An effect threw an error that no catch handler took: \(error.error) (effect created at \(error.location))",
            fileID: location.fileID, filePath: location.filePath,
            line: location.line, column: location.column)
        }
        prepareDependencies(&values)
      }
    )
  }

  deinit {
    guard !finished, exhaustivity == .on else { return }
    let unreceived = recorder.unreceivedCount
    if unreceived > 0 {
      reportIssue(
        "The test store ended with \(unreceived) received action(s) that were not asserted: "
          + recorder.describeUnreceived()
          + ". Assert them with 'receive', or call 'skipReceivedActions()'.",
        fileID: location.fileID, filePath: location.filePath, line: location.line,
        column: location.column)
    }
    // An effect cancelled by id is over for the test even while its task winds down.
    let running = store._uncancelledEffectCount
    if running > 0 {
      reportIssue(
        "The test store ended with \(running) effect(s) still running. Let them finish "
          + "(advance the test clock, or 'await store.finish()'), or cancel them.",
        fileID: location.fileID, filePath: location.filePath, line: location.line,
        column: location.column)
    }
    store.invalidate()
  }

  /// Sends `action` and asserts how the state changes.
  ///
  /// ```swift
  /// await store.send(.increment) { $0.count = 1 }
  /// ```
  ///
  /// - Parameters:
  ///   - action: The action to send.
  ///   - updateStateToExpectedResult: Mutates the previous state into the expected one. Omit it
  ///     when the state must not change.
  /// - Returns: The effects the action started.
  @discardableResult
  nonisolated(nonsending) public func send(
    _ action: Action,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> TestStoreTask {
    let here = _Location(fileID: fileID, filePath: filePath, line: line, column: column)
    if exhaustivity == .on, recorder.unreceivedCount > 0 {
      fail(
        "Must handle \(recorder.unreceivedCount) received action(s) before sending an action: "
          + recorder.describeUnreceived(), here)
    }
    let task = store.send(.send(action))
    guard let (after, sequence) = recorder.takeSentState() else {
      fail("The store did not reduce \(describe(action)): it was invalidated.", here)
      return TestStoreTask(task: task)
    }
    check(
      "send(\(describe(action)))", before: state, after: after,
      update: updateStateToExpectedResult, here)
    advance(to: after, sequence)
    return TestStoreTask(task: task)
  }

  /// Asserts that an effect sent `expectedAction` next, and how it changed the state.
  ///
  /// Waits (up to ``timeout``) for running effects to finish or to sleep on a ``TestClock``
  /// when the action has not arrived yet.
  nonisolated(nonsending) public func receive(
    _ expectedAction: Action,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async where Action: Equatable {
    await receive(
      describe(expectedAction), { $0 == expectedAction }, timeout: timeout,
      assert: updateStateToExpectedResult,
      _Location(fileID: fileID, filePath: filePath, line: line, column: column),
      expected: expectedAction)
  }

  /// Asserts that an effect sent an action matching `isMatching` next.
  ///
  /// ```swift
  /// await store.receive({ if case .response = $0 { true } else { false } }) { $0.isLoading = false }
  /// ```
  nonisolated(nonsending) public func receive(
    _ isMatching: @escaping (Action) -> Bool,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await receive(
      "an action matching the predicate", isMatching, timeout: timeout,
      assert: updateStateToExpectedResult,
      _Location(fileID: fileID, filePath: filePath, line: line, column: column),
      expected: nil)
  }

  /// Asserts that an effect sent an action matching `isMatching` next, described by `label`
  /// in failures (the scenario runner: the expected action as JSON).
  nonisolated(nonsending) package func receive(
    _ label: String,
    _ isMatching: (Action) -> Bool,
    timeout: Duration?,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)?,
    _ here: _Location,
    expected: Action?
  ) async {
    if recorder.unreceivedCount == 0 || (exhaustivity == .off && !recorder.hasMatch(isMatching)) {
      await store.idle(timeout: timeout ?? self.timeout)
    }
    if exhaustivity == .off {
      // Skip actions the test does not care about, keeping their state changes.
      while let (action, stateAfter, sequence) = recorder.peek(), !isMatching(action) {
        _ = recorder.popFirst()
        advance(to: stateAfter, sequence)
      }
    }
    guard let (action, after, sequence) = recorder.popFirst() else {
      let running = store.effectCount
      fail(
        "Expected to receive \(label), but received none"
          + (running > 0
            ? " (\(running) effect(s) still running or sleeping on a test clock: advance the clock?)."
            : "."),
        here)
      return
    }
    if !isMatching(action) {
      if let expected, let difference = diff(expected, action, format: .proportional) {
        fail(
          "Received unexpected action:\n\(difference)\n(Expected: −, Received: +)", here)
      } else {
        fail("Received unexpected action: \(describe(action)); expected \(label).", here)
      }
      advance(to: after, sequence)
      return
    }
    check(
      "receive(\(describe(action)))", before: state, after: after,
      update: updateStateToExpectedResult, here)
    advance(to: after, sequence)
  }

  /// Moves `state` to a recorded state, never back to an older one.
  private func advance(to newState: State, _ sequence: Int) {
    guard sequence > stateSequence else { return }
    state = newState
    stateSequence = sequence
  }

  /// Waits for every effect to finish (up to `timeout`); fails if some still run, or if
  /// received actions were not asserted.
  nonisolated(nonsending) public func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let here = _Location(fileID: fileID, filePath: filePath, line: line, column: column)
    finished = true
    let done = await store.finishEffects(timeout: timeout ?? self.timeout)
    if exhaustivity == .on {
      if recorder.unreceivedCount > 0 {
        fail(
          "The store received \(recorder.unreceivedCount) action(s) that were not asserted: "
            + recorder.describeUnreceived(), here)
      }
      if !done {
        fail(
          "\(store.effectCount) effect(s) still running at the end of the test. An effect "
            + "sleeping on a TestClock needs the clock advanced; a timer needs cancelling.",
          here)
      }
    } else {
      for (_, after, sequence) in recorder.drain() { advance(to: after, sequence) }
    }
    store.invalidate()
  }

  /// Drops the received actions not asserted yet (their state changes are kept).
  public func skipReceivedActions() {
    for (_, after, sequence) in recorder.drain() { advance(to: after, sequence) }
  }

  /// Cancels every running effect.
  nonisolated(nonsending) public func cancelEffects() async {
    store.cancelEffects()
    await store.finishEffects(timeout: timeout)
  }

  /// Whether effects are running (not counting ones asleep on a ``TestClock``).
  public var isIdle: Bool { store.isIdle }

  /// Waits (up to ``timeout``) until no effect runs: what the scenario runner does after a
  /// host's answer on the test clock, as `rk_store_resolve` does, so that answers given one
  /// after the other are reduced in that order.
  nonisolated(nonsending) package func settle() async {
    _ = await store.idle(timeout: timeout)
  }

  /// How many effects have not finished.
  public var effectCount: Int { store.effectCount }

  // MARK: Checking

  private func check(
    _ step: String,
    before: State,
    after: State,
    update: ((inout State) throws -> Void)?,
    _ here: _Location
  ) {
    if let expectedState {
      if let difference = expectedState(after) {
        fail("A state change does not match expectation after \(step):\n\(difference.indent(by: 2))", here)
      }
      return
    }
    var expected = exhaustivity == .on ? before : after
    if let update {
      do {
        try update(&expected)
      } catch {
        fail("Threw error in the assertion of \(step): \(error)", here)
        return
      }
    }
    guard expected != after else {
      if exhaustivity == .on, update != nil, before == after {
        fail(
          "Expected state to change after \(step), but no change occurred: the assertion "
            + "closure made no difference. Omit it when the state does not change.", here)
      }
      return
    }
    let difference =
      diff(expected, after, format: .proportional)
      .map { "\($0.indent(by: 4))\n\n(Expected: −, Actual: +)" }
      ?? "Expected:\n\(String(customDumping: expected).indent(by: 2))\nActual:\n\(String(customDumping: after).indent(by: 2))"
    if update == nil {
      fail("State was not expected to change after \(step), but a change occurred:\n\(difference)", here)
    } else {
      fail("A state change does not match expectation after \(step):\n\(difference)", here)
    }
  }

  private func fail(_ message: String, _ here: _Location) {
    reportIssue(
      issuePrefix + message, fileID: here.fileID, filePath: here.filePath, line: here.line, column: here.column)
  }

  private func describe(_ action: Action) -> String {
    var text = ""
    customDump(action, to: &text, maxDepth: 3)
    return text
  }
}

/// The effects a ``TestStore/send(_:assert:fileID:filePath:line:column:)`` started.
public struct TestStoreTask: Sendable {
  /// The underlying store task.
  public let rawValue: StoreTask
  init(task: StoreTask) { rawValue = task }
  /// Waits for the effects to finish.
  public func finish() async { await rawValue.finish() }
  /// Cancels the effects.
  public func cancel() async {
    rawValue.cancel()
    await rawValue.finish()
  }
  /// Whether the effects were cancelled.
  public var isCancelled: Bool { rawValue.isCancelled }
}

// MARK: - Internals

enum _TestAction<Action: Sendable>: Sendable {
  case send(Action)
  case receive(Action)
}

package struct _Location {
  package let fileID: StaticString
  package let filePath: StaticString
  package let line: UInt
  package let column: UInt

  package init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }
}

/// Records what the reducer saw; written under the store's lock from any thread.
final class _Recorder<State, Action>: Sendable {
  private struct Log {
    var sequence = 0
    var sentState: (State, Int)?
    var received: [(Action, State, Int)] = []
  }
  private let log = LockedValue(Log())

  func recordSent(_ state: State) {
    log.withLock {
      $0.sequence += 1
      $0.sentState = (state, $0.sequence)
    }
  }
  func recordReceived(_ action: Action, _ state: State) {
    log.withLock {
      $0.sequence += 1
      $0.received.append((action, state, $0.sequence))
    }
  }
  func takeSentState() -> (State, Int)? {
    log.withLock { log in
      defer { log.sentState = nil }
      return log.sentState
    }
  }
  var unreceivedCount: Int { log.withLock { $0.received.count } }
  func peek() -> (Action, State, Int)? { log.withLock { $0.received.first } }
  func popFirst() -> (Action, State, Int)? {
    log.withLock { $0.received.isEmpty ? nil : $0.received.removeFirst() }
  }
  func hasMatch(_ isMatching: (Action) -> Bool) -> Bool {
    log.withLock { $0.received.contains { isMatching($0.0) } }
  }
  func drain() -> [(Action, State, Int)] {
    log.withLock { log in
      defer { log.received.removeAll() }
      return log.received
    }
  }
  func describeUnreceived() -> String {
    log.withLock { log in
      log.received.map { action, _, _ in
        var text = ""
        customDump(action, to: &text, maxDepth: 3)
        return text
      }.joined(separator: ", ")
    }
  }
}

struct _TestReducer<Base: Reducer>: Reducer where Base.Action: Sendable {
  let base: Base
  let recorder: _Recorder<Base.State, Base.Action>

  func reduce(into state: inout Base.State, action: _TestAction<Base.Action>) -> Effect<_TestAction<Base.Action>> {
    switch action {
    case let .send(action):
      let effect = base.reduce(into: &state, action: action)
      recorder.recordSent(state)
      return effect.map { .receive($0) }
    case let .receive(action):
      let effect = base.reduce(into: &state, action: action)
      recorder.recordReceived(action, state)
      return effect.map { .receive($0) }
    }
  }
}

extension String {
  fileprivate func indent(by count: Int) -> String {
    let prefix = String(repeating: " ", count: count)
    return split(separator: "\n", omittingEmptySubsequences: false)
      .map { prefix + $0 }.joined(separator: "\n")
  }
}

// MARK: - Case key paths (TCA's spelling)

extension TestStore where Action: CasePathable {
  /// Sends the case `caseKeyPath` with `value`: `await store.send(\.setCount, 5) { … }`.
  @discardableResult
  nonisolated(nonsending) public func send<Value>(
    _ caseKeyPath: CaseKeyPath<Action, Value>,
    _ value: Value,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> TestStoreTask {
    await send(
      caseKeyPath(value), assert: updateStateToExpectedResult,
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Sends the case `caseKeyPath`, which has no associated value: `await store.send(\.tapped)`.
  @discardableResult
  nonisolated(nonsending) public func send(
    _ caseKeyPath: CaseKeyPath<Action, Void>,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> TestStoreTask {
    await send(
      caseKeyPath(()), assert: updateStateToExpectedResult,
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Asserts that an effect sent an action of the case `caseKeyPath` next, whatever its
  /// associated value: `await store.receive(\.response) { $0.isLoading = false }`.
  nonisolated(nonsending) public func receive<Value>(
    _ caseKeyPath: CaseKeyPath<Action, Value>,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let path = AnyCasePath(caseKeyPath)
    await receive(
      "an action of the case \(_describe(caseKeyPath))",
      { path.extract(from: $0) != nil }, timeout: timeout, assert: updateStateToExpectedResult,
      _Location(fileID: fileID, filePath: filePath, line: line, column: column), expected: nil)
  }

  /// Asserts that an effect sent the case `caseKeyPath` with `value` next:
  /// `await store.receive(\.response, 42) { $0.fact = 42 }`.
  nonisolated(nonsending) public func receive<Value: Equatable>(
    _ caseKeyPath: CaseKeyPath<Action, Value>,
    _ value: Value,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let path = AnyCasePath(caseKeyPath)
    await receive(
      "\(describe(path.embed(value)))", { path.extract(from: $0) == value }, timeout: timeout,
      assert: updateStateToExpectedResult,
      _Location(fileID: fileID, filePath: filePath, line: line, column: column),
      expected: path.embed(value))
  }
}
