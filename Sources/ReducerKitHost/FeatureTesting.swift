import ReducerKit
import ReducerKitWire

// What test runners (ReducerKitTesting's `Scenario`) need of a feature: its Swift types, the
// host-request table a C host's store uses, and the errors a C host would get. SPI: not API.

/// A feature's reducer and state types, opened by a test runner with a generic function.
/// (Public because `Feature`'s inlinable initializer stores one; underscored: not API.)
public protocol _FeatureTypes: Sendable {
  associatedtype Body: Reducer
  where Body.State: Codable & Sendable, Body.Action: Codable & Sendable
  /// The feature's default state.
  func makeInitialState() -> Body.State
  /// A new reducer of the feature.
  func makeReducer() -> Body
}

@usableFromInline
package struct _FeatureTypesBox<R: Reducer>: _FeatureTypes
where R: SendableMetatype, R.State: Codable & Sendable, R.Action: Codable & Sendable {
  @usableFromInline package let initialState: @Sendable () -> R.State
  @usableFromInline package let reducer: @Sendable () -> R

  @inlinable
  package init(initialState: @escaping @Sendable () -> R.State, reducer: @escaping @Sendable () -> R) {
    self.initialState = initialState
    self.reducer = reducer
  }

  @usableFromInline package func makeInitialState() -> R.State { initialState() }
  @usableFromInline package func makeReducer() -> R { reducer() }
}

/// An error as a C host sees it: the `rk_status` name (`"RK_ERR_ACTION"`) and the message of
/// `rk_last_error()`.
package struct _HostError: Error, Sendable, CustomStringConvertible {
  public let status: String
  public let message: String

  init(_ error: HostError) {
    let text = "\(error.status.staticText)"
    self.status = String(text.prefix { $0 != ":" })
    self.message = error.message
  }

  public var description: String { "\(status): \(message)" }
}

extension Feature {
  /// The feature's types (for test runners).
    package var _types: any _FeatureTypes { types }

  /// Decodes an action from JSON text as `rk_store_send` does, with its errors.
    package static func _decodeAction<Action: Decodable>(
    _ type: Action.Type, _ json: [UInt8]
  ) throws(_HostError) -> Action {
    do {
      return try WireDecoder(rootNoun: "action").decode(Action.self, from: json)
    } catch {
      throw _HostError(HostError(error, otherwise: .action, context: nil))
    }
  }

  /// The state `initial_state` (an object, or nil for the default) gives, as
  /// `rk_store_create` makes it, with its errors.
    package static func _initialState<State: Codable>(
    _ initialState: JSONValue?, default state: State
  ) throws(_HostError) -> State {
    var options = StoreOptions()
    options.initialState = initialState
    do {
      return try options.resolveInitialState(default: state)
    } catch {
      throw _HostError(error)
    }
  }
}

/// The host side of a test store's provided endpoints: the same request table (ids, events,
/// answers and their errors) as a C host's store.
package final class _TestHost: Sendable {
  let requests = HostRequests()
  let provided: [Feature.Endpoint]

  /// Routes the endpoints named `provide` of `feature` to this host; throws (as
  /// `rk_store_create` would) for a name the feature does not have.
  public init(feature: Feature, provide: [String]) throws(_HostError) {
    do {
      provided = try Feature.Endpoint.select(provide, from: feature.endpoints, feature: feature.name)
    } catch {
      throw _HostError(error)
    }
  }

  /// Overrides the provided endpoints' dependencies in `values`.
  public func provide(into values: inout DependencyValues) {
    Feature.Endpoint.provide(provided, in: &values, requests: requests)
  }

  /// The queued request events as a JSON array (`rk_store_take_requests`).
  public func takeEvents() -> JSONValue {
    (try? parseJSON(requests.take())) ?? .array([])
  }

  /// Answers request `id` with `response` (`rk_store_resolve`).
  public func resolve(_ id: UInt64, _ response: JSONValue) throws(_HostError) {
    let bytes = response.serializedBytes()
    let failure: HostError? = bytes.withUnsafeBytes { buffer in
      do throws(HostError) {
        try requests.resolve(id, buffer)
        return nil
      } catch {
        return error
      }
    }
    if let failure { throw _HostError(failure) }
  }

  /// Fails request `id` with `message` (`rk_store_fail`).
  public func fail(_ id: UInt64, message: String) throws(_HostError) {
    do {
      try requests.fail(id, message: message)
    } catch {
      throw _HostError(error)
    }
  }

  /// Cancels every pending request (as destroying a store does).
  public func close() { requests.close() }
}
