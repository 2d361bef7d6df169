import IssueReporting
import ReducerKit
import ReducerKitTesting
import Synchronization
import Testing
import ReducerKitTestSupport

/// A value shared between a test and the tasks it starts.
final class Locked<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>
  init(_ value: Value) { mutex = Mutex(value) }
  var value: Value { mutex.withLock { $0 } }
  func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

extension Locked where Value: RangeReplaceableCollection {
  func append(_ element: Value.Element) { mutex.withLock { $0.append(element) } }
}

/// A one-shot signal a test awaits: no sleeping, no polling. Waiting ignores cancellation on
/// purpose (it models work that does not stop when cancelled).
final class Gate: Sendable {
  private struct State {
    var isOpen = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }
  private let state = Mutex(State())

  func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters.removeAll() }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  var isOpen: Bool { state.withLock { $0.isOpen } }

  func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let resumeNow = state.withLock { state in
        if state.isOpen { return true }
        state.waiters.append(continuation)
        return false
      }
      if resumeNow { continuation.resume() }
    }
  }
}

/// Collects the errors a store reports through `reportEffectError`.
final class ErrorLog: Sendable {
  struct Reported: Sendable {
    var error: any Error
    var location: EffectError.Location
  }
  let errors = Locked<[Reported]>([])
  var reporter: EffectErrorReporter {
    EffectErrorReporter { [errors] in errors.append(Reported(error: $0.error, location: $0.location)) }
  }
}

struct Boom: Error, Equatable {}

/// Waits until `condition` holds, yielding, for at most `timeout` of wall time (scaled:
/// ``cap(_:)``). Only for work
/// no store tracks (a task a ReSwift reducer or a middleware created itself), to know that it
/// reached a `TestClock` sleep before the test advances the clock.
@discardableResult
func eventually(
  isolation: isolated (any Actor)? = #isolation,
  timeout: Duration = .seconds(10), _ condition: () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now.advanced(by: cap(timeout))
  while !condition() {
    if ContinuousClock.now >= deadline { return false }
    await Task.yield()
  }
  return true
}

/// Advances `states` to the first state that satisfies `predicate`, and returns it.
func first<State: Sendable>(
  isolation: isolated (any Actor)? = #isolation,
  _ states: inout AsyncStream<State>.Iterator, where predicate: (State) -> Bool
) async -> State? {
  while let state = await states.next(isolation: isolation) {
    if predicate(state) { return state }
  }
  return nil
}

extension TestStore {
  /// Waits until every effect finished or sleeps on a `TestClock` (`Store.idle()` for a
  /// `TestStore`), so that a following `clock.advance` sees the effects' sleepers: the core's
  /// `TestClock.advance` does not wait for effects that have not reached their first sleep.
  func settle(timeout: Duration = .seconds(10)) async {
    let deadline = ContinuousClock.now.advanced(by: cap(timeout))
    while !isIdle {
      if ContinuousClock.now >= deadline {
        Issue.record("TestStore did not become idle within \(cap(timeout))")
        return
      }
      await Task.yield()
    }
  }
}

// MARK: - TestStore failures as Swift Testing issues

/// Forwards IssueReporting's `reportIssue` (used by `TestStore`) to Swift Testing's
/// `Issue.record`: this test target does not link `IssueReportingTestSupport`, without which
/// a `TestStore` failure would only be printed on Linux.
struct SwiftTestingIssueReporter: IssueReporter {
  func reportIssue(
    _ message: @autoclosure () -> String?,
    severity: IssueSeverity,
    fileID: StaticString,
    filePath: StaticString,
    line: UInt,
    column: UInt
  ) {
    Issue.record(
      Comment(rawValue: message() ?? "Issue reported"),
      sourceLocation: SourceLocation(
        fileID: "\(fileID)", filePath: "\(filePath)", line: Int(line), column: Int(column)))
  }
}

/// Routes `TestStore` failures to Swift Testing for the tests of a suite.
struct TestStoreIssuesTrait: TestTrait, SuiteTrait, TestScoping {
  var isRecursive: Bool { true }
  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await withIssueReporters([SwiftTestingIssueReporter()]) { try await function() }
  }
}

extension Trait where Self == TestStoreIssuesTrait {
  /// Routes `TestStore` failures to Swift Testing (see ``TestStoreIssuesTrait``).
  static var testStoreIssues: Self { Self() }
}
