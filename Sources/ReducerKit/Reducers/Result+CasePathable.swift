extension Result: CasePathable {
  /// The case paths of `Result`: `success` and `failure`, so a test writes
  /// `await store.receive(\.response.success, 42)`.
  public struct AllCasePaths: Sendable {
    /// `.success(value)`.
    public var success: AnyCasePath<Result, Success> {
      ._enumCase(
        name: "success",
        embed: { .success($0) },
        extract: { if case let .success(value) = $0 { value } else { nil } })
    }
    /// `.failure(error)`.
    public var failure: AnyCasePath<Result, Failure> {
      ._enumCase(
        name: "failure",
        embed: { .failure($0) },
        extract: { if case let .failure(error) = $0 { error } else { nil } })
    }
  }

  /// The case paths of `Result`.
  public static var allCasePaths: AllCasePaths { AllCasePaths() }
}

extension Result where Failure == any Error {
  /// The result of an asynchronous throwing body, as TCA effects write it:
  ///
  /// ```swift
  /// return .run { send in
  ///   await send(.factResponse(Result { try await numberFact.fetch(count) }))
  /// }
  /// ```
  public init(catching body: () async throws -> Success) async {
    do {
      self = .success(try await body())
    } catch {
      self = .failure(error)
    }
  }
}
