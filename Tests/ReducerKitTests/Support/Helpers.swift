import ReducerKit
import ReducerKitTesting
import Synchronization
import Testing
import ReducerKitTestSupport

/// A thread-safe, append-only log that tests use to record what happened, in order.
final class Log<Element: Sendable>: Sendable {
  private let storage = Mutex<[Element]>([])
  init() {}
  func append(_ element: Element) { storage.withLock { $0.append(element) } }
  var values: [Element] { storage.withLock { $0 } }
  var count: Int { storage.withLock { $0.count } }
}

/// A thread-safe mutable value.
final class Locked<Value: Sendable>: Sendable {
  private let storage: Mutex<Value>
  init(_ value: Value) { storage = Mutex(value) }
  var value: Value {
    get { storage.withLock { $0 } }
    set { storage.withLock { $0 = newValue } }
  }
  func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { storage.withLock { body(&$0) } }
}

/// A one-shot flag an async test can wait for, with a bounded timeout (for live concurrency).
final class Latch: Sendable {
  private let flag = Atomic<Bool>(false)
  init() {}
  func open() { flag.store(true, ordering: .sequentiallyConsistent) }
  var isOpen: Bool { flag.load(ordering: .sequentiallyConsistent) }
  /// Waits until ``open()`` was called, or `timeout` (scaled: ``cap(_:)``) passed. Returns
  /// whether it opened.
  func wait(timeout: Duration = .seconds(10)) async -> Bool {
    await eventually(timeout: timeout) { isOpen }
  }
}

/// Polls `condition` (live concurrency only), up to `timeout` (scaled: ``cap(_:)``). Returns
/// whether it became true.
func eventually(
  timeout: Duration = .seconds(10), _ condition: () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now.advanced(by: cap(timeout))
  while !condition() {
    if ContinuousClock.now >= deadline { return false }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return true
}

extension TestStore {
  /// Waits until every effect finished or sleeps on a `TestClock` (the `TestStore` analogue of
  /// `Store.idle()`), so that a following `clock.advance` sees the effects' sleepers.
  ///
  /// Works around the race described in `TestClockTests.advanceRightAfterSendMissesTheFirstSleeper`:
  /// `TestClock.advance` does not wait for effects that have not reached their first sleep yet.
  /// (`TestStore` has no public `idle()`; `isIdle` is exact, so polling it is not guesswork.)
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

/// The text of an issue's comments, for matching failure messages.
func text(of issue: Issue) -> String {
  issue.comments.map(\.rawValue).joined(separator: "\n") + "\n" + String(describing: issue)
}
