import Synchronization

/// Where misuse that ReducerKit survives is reported (TCA's runtime warnings: a child action
/// without child state, a test clock whose sleepers never settle). Standard error by default;
/// linking ReducerKitTesting installs a handler that fails the running Swift Testing or XCTest
/// test.
private let runtimeIssueHandler = Mutex<(@Sendable (String) -> Void)?>(nil)

/// Installs where runtime issues go (nil: standard error). Not API: ReducerKitTesting calls it.
@_spi(Testing) public func _setRuntimeIssueHandler(_ handler: (@Sendable (String) -> Void)?) {
  runtimeIssueHandler.withLock { $0 = handler }
}

/// Reports a runtime issue to the installed handler, or to standard error.
@usableFromInline
func _reportRuntimeIssue(_ message: String) {
  if let handler = runtimeIssueHandler.withLock({ $0 }) {
    handler(message)
  } else {
    _writeToStandardError("ReducerKit warning: \(message)")
  }
}
