/// What an endpoint of a `@DependencyClient` struct throws when it was called without being
/// given an implementation (a test that did not override it, or a `testValue` of `Self()`).
public struct UnimplementedDependencyError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The endpoint, as `Client.endpoint`.
  public let endpoint: String

  /// An error naming `endpoint`.
  public init(_ endpoint: String) { self.endpoint = endpoint }

  public var description: String { "Unimplemented: '\(endpoint)'" }
}

/// Reports that an endpoint without an implementation was called (a runtime issue: the running
/// test fails). Called by the code `@DependencyClient` writes; not for direct use.
public func _reportUnimplementedDependency(_ endpoint: String) {
  _reportRuntimeIssue("Unimplemented: '\(endpoint)' was called without an implementation")
}
