import ReducerKitPlatform
/// Where misuse that ReducerKit survives is reported (TCA's runtime warnings: a child action
/// without child state, a test clock whose sleepers never settle). Standard error by default;
/// linking ReducerKitTesting installs a handler that fails the running Swift Testing or XCTest
/// test.
/// (A `Lock`, not `Synchronization.Mutex`: ThreadSanitizer cannot see the latter's locking on
/// Linux and reported concurrent `TestStore` set-ups as races.)
private let runtimeIssueLock = Lock()
// `nonisolated(unsafe)`: read and written only while holding `runtimeIssueLock`.
nonisolated(unsafe) private var runtimeIssueHandler: (@Sendable (String) -> Void)?

/// Installs where runtime issues go (nil: standard error). Not API: ReducerKitTesting calls it.
package func _setRuntimeIssueHandler(_ handler: (@Sendable (String) -> Void)?) {
  runtimeIssueLock.withLock { runtimeIssueHandler = handler }
}

/// Reports a runtime issue to the installed handler, or to standard error.
@usableFromInline
func _reportRuntimeIssue(_ message: String) {
  if let handler = runtimeIssueLock.withLock({ runtimeIssueHandler }) {
    handler(message)
  } else {
    _writeToStandardError("ReducerKit warning: \(message)")
  }
}
