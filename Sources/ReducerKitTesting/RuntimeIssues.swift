import IssueReporting
import ReducerKit

/// Routes ReducerKit's runtime issues (TCA's runtime warnings) to IssueReporting, which fails
/// the running Swift Testing or XCTest test and prints a warning outside tests. Called when the
/// binary loads (see CReducerKitTestingSupport) and by every `TestStore`.
@_cdecl("reducerkit_testing_install_issue_reporting")
public func _reducerKitTestingInstallIssueReporting() {
  _setRuntimeIssueHandler { message in reportIssue(message) }
}
