import IssueReporting
import Testing

/// Forwards IssueReporting's `reportIssue` (used by `TestStore`) to Swift Testing's `Issue.record`.
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

/// Makes `TestStore` failures (reported through IssueReporting) Swift Testing issues, whether or
/// not the test target links `IssueReportingTestSupport`.
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
