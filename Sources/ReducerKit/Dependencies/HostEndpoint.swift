import ReducerKitPlatform
/// An operation an effect calls that a host program may answer instead of Swift: a name, a
/// `Codable` payload and a `Codable` response, with a Swift implementation that runs when no
/// host answers it.
///
/// Declare an endpoint as a dependency, and call it from an effect:
///
/// ```swift
/// extension DependencyValues {
///   var numberFact: HostEndpoint<Int, String> {
///     get { self[NumberFactEndpoint.self] }
///     set { self[NumberFactEndpoint.self] = newValue }
///   }
/// }
/// private enum NumberFactEndpoint: DependencyKey {
///   static let liveValue = HostEndpoint<Int, String>("numberFact") { n in "\(n) is a good number." }
/// }
///
/// // In the reducer:
/// @Dependency(\.numberFact) var numberFact
/// return .run { [count = state.count] send in
///   await send(.factResponse(try await numberFact(count)))
/// }
/// ```
///
/// In Swift the implementation runs (override it in tests with ``withDependencies(_:operation:)-(_,()->R)``
/// or a store's `withDependencies:`, as any dependency). A feature exposed through the C ABI
/// lists its endpoints at registration (`Feature(…, endpoints: [.endpoint(\.numberFact)])`); a
/// host store created with `"provide": ["numberFact"]` then sends each call to the host as a
/// request and returns the host's answer.
public struct HostEndpoint<Payload: Codable & Sendable, Response: Codable & Sendable>: Sendable {
  /// The name hosts see in requests and pass in `"provide"`.
  public let name: String
  /// What a call does: the Swift implementation, or (in a store whose host provides this
  /// endpoint) a request to the host.
  public var implementation: @Sendable (Payload) async throws -> Response

  /// An endpoint named `name` whose Swift implementation is `implementation`.
  public init(
    _ name: String,
    implementation: @escaping @Sendable (Payload) async throws -> Response
  ) {
    self.name = name
    self.implementation = implementation
  }

  /// Calls the endpoint: returns its response, or throws what the implementation threw (a
  /// ``HostEndpointError`` when the host failed the request, `CancellationError` when the
  /// effect was cancelled while waiting).
  public func callAsFunction(_ payload: Payload) async throws -> Response {
    try await implementation(payload)
  }
}

/// The error a call of a ``HostEndpoint`` throws when the host failed the request
/// (`rk_store_fail`, or a Python provider that raised).
public struct HostEndpointError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The endpoint's name.
  public var endpoint: String
  /// The host's message.
  public var message: String

  public init(endpoint: String, message: String) {
    self.endpoint = endpoint
    self.message = message
  }

  public var description: String { "the host failed the \(endpoint) request: \(message)" }
}

// MARK: - Waiting outside Swift (for hosts)

/// Lets code that suspends an effect on something outside the store (a host's answer) mark
/// the effect as waiting, so that the store counts it as idle, as it does an effect asleep on
/// a ``TestClock``. Call ``current()`` on the effect's task before suspending, then
/// ``willSuspend()`` once the wait is registered (so whoever ends the wait can find it), and
/// ``willResume()`` right before resuming the continuation. For a task that is not an
/// effect's own task (a structured child of it, or code outside any store) both are no-ops.
@_spi(Host)
public struct _EffectWait: Sendable {
  let unit: EffectRuntime.Unit?

  /// The wait of the calling task.
  public static func current() -> _EffectWait {
    if let unit = EffectRuntime.currentUnit, unit.isCurrentTask {
      return _EffectWait(unit: unit)
    }
    return _EffectWait(unit: nil)
  }

  /// The effect stops counting as running.
  public func willSuspend() { unit?.runtime.unitWillSleep() }

  /// The effect counts as running again (call before resuming it).
  public func willResume() { unit?.runtime.unitWillWake() }

  /// The effect got an answer from outside: if its task's next action is dropped because the
  /// task was cancelled, or the task ends cancelled before sending one, `report` runs (on
  /// that task), so that the answer is never lost silently. Call it on the effect's task.
  public func holdAnswer(report: @escaping @Sendable () -> Void) {
    guard let unit else { return }
    unit.holdAnswer(report)
    _heldAnswerCount.add(1, ordering: .relaxed)
  }
}

/// Whether the calling thread is running a host callback (a state observer's delivery, or a
/// host request callback): code that would wait for another thread's callback must not, there.
@_spi(Host)
public enum _HostCallbackScope {
  /// The calling thread starts running a host callback.
  public static func enter() { _DeliveryDepth.enter() }
  /// The calling thread returned from a host callback.
  public static func exit() { _DeliveryDepth.exit() }
  /// Whether the calling thread is inside a host callback of any store.
  public static var isInside: Bool { _DeliveryDepth.isDelivering }
}
