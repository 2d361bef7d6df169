extension Task where Success == Never, Failure == Never {
  /// Suspends until the calling task is cancelled, then throws `CancellationError`: an
  /// endpoint that never answers (`$0.factClient.fetch = { _ in try await Task.never() }`), as
  /// swift-concurrency-extras' `Task.never()`.
  public static func never() async throws -> Never {
    // A stream nobody yields to: iteration ends only when the task is cancelled.
    let (stream, continuation) = AsyncStream<Never>.makeStream()
    for await _ in stream {}
    // Used after the loop, so the stream cannot finish early by losing its continuation.
    continuation.finish()
    throw Swift.CancellationError()
  }
}
