#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import CReducerKitShims
import ReducerKit
@_exported import ReducerKitWire  // JSONValue, WireEncoder, SynthesizedCodable: the types a feature library uses beside this module
import Synchronization
import ReducerKitPlatform

/// A feature a host can create stores of: a name and a reducer with `Codable` state and actions.
///
/// Expose features from your own dynamic library by defining this one C symbol:
///
/// ```swift
/// import ReducerKitFFI
///
/// @_cdecl("reducerkit_register_features")
/// public func registerFeatures() {
///   FeatureRegistry.register(
///     Feature(name: "scoreboard", initialState: Scoreboard.State(),
///             endpoints: [.endpoint(\.leaderboard)]) { Scoreboard() }
///   )
/// }
/// ```
public struct Feature: Sendable {
  /// The name hosts pass to `rk_store_create`.
  public let name: String
  /// A sentence for `rk_features`.
  public let description: String
  /// The host endpoints the feature's effects call (hosts answer them with `"provide"`).
  public let endpoints: [Endpoint]
  @usableFromInline package let makeStore: @Sendable (StoreOptions) throws(HostError) -> HostStoreBox
  @usableFromInline package let describe: @Sendable () -> JSONValue
  /// The reducer and state types, for test runners (see `FeatureTesting.swift`).
  @usableFromInline package let types: any _FeatureTypes
  /// Its name, state version, migrations and schema hash (snapshots).
  @usableFromInline package let identity: FeatureIdentity

  /// A feature named `name` running the reducer `reducer` builds, starting (by default) from
  /// `initialState`, whose effects may call the host `endpoints`. Inlinable, so each
  /// feature's JSON path is specialized for its types.
  ///
  /// `stateVersion` numbers the shape of the state (start at 1; add one whenever a saved
  /// state of the previous shape would not decode), and `migrations` turn a snapshot's state
  /// from each older version into the next (``StateMigration/from(_:_:)``): a store created
  /// with `{"snapshot": …}` runs them in order.
  @inlinable
  public init<R: Reducer>(
    name: String,
    description: String = "",
    initialState: @autoclosure @escaping @Sendable () -> R.State,
    stateVersion: Int = 1,
    migrations: [StateMigration] = [],
    endpoints: [Endpoint] = [],
    reducer: @escaping @Sendable () -> R
  ) where R: SendableMetatype, R.State: Codable & Sendable, R.Action: Codable & Sendable {
    self.name = name
    self.description = description
    self.endpoints = endpoints
    let identity = FeatureIdentity(
      name: name, stateVersion: stateVersion, migrations: migrations,
      schemas: { featureSchemas(R.State.self, R.Action.self, endpoints: endpoints) })
    self.identity = identity
    let table = HostStore<R>.makeTable(identity: identity)
    self.makeStore = { options throws(HostError) in
      let provided = try Endpoint.select(options.provide, from: endpoints, feature: name)
      let (state, startVersion) = try options.resolveState(default: initialState(), feature: identity)
      // `"record": true`: a recorder, and a table of this store's own that tells it of sends
      // and clock advances (the feature's shared table stays free of any recording check).
      let recorder = options.record
        ? SessionRecorder(
          feature: name, options: options,
          initialState: (try? WireEncoder(explicitNulls: true).encode(state)) ?? Array("null".utf8))
        : nil
      return HostStore<R>(
        initialState: state, reducer: reducer(), options: options, provided: provided,
        table: recorder?.table(wrapping: table) ?? table, recorder: recorder, startVersion: startVersion
      ).boxed()
    }
    self.describe = {
      describeFeature(name, description, initialState(), R.Action.self, endpoints: endpoints, identity: identity)
    }
    self.types = _FeatureTypesBox(initialState: initialState, reducer: reducer)
  }

  /// A host endpoint of a feature: a ``HostEndpoint`` dependency, named by its key path.
  public struct Endpoint: Sendable {
    /// The endpoint's name (the ``HostEndpoint/name`` of its live value).
    public let name: String
    @usableFromInline package let describe: @Sendable () -> JSONValue
    @usableFromInline package let provide: @Sendable (inout DependencyValues, HostRequests) -> Void

    @usableFromInline
    package init(
      name: String, describe: @escaping @Sendable () -> JSONValue,
      provide: @escaping @Sendable (inout DependencyValues, HostRequests) -> Void
    ) {
      self.name = name
      self.describe = describe
      self.provide = provide
    }

    /// The endpoint at `keyPath` of the dependencies.
    ///
    /// ```swift
    /// Feature(name: "counter", initialState: Counter.State(),
    ///         endpoints: [.endpoint(\.numberFact)]) { Counter() }
    /// ```
    @inlinable
    public static func endpoint<Payload, Response>(
      _ keyPath: WritableKeyPath<DependencyValues, HostEndpoint<Payload, Response>> & Sendable
    ) -> Endpoint {
      let name = EndpointName(DependencyValues()[keyPath: keyPath].name)
      return Endpoint(
        name: name.name,
        describe: { describeEndpoint(name.name, Payload.self, Response.self) },
        provide: { values, requests in
          values[keyPath: keyPath] = HostEndpoint(name.name) { payload in
            try await requests.call(name, payload, Response.self)
          }
        }
      )
    }

    /// Routes each of `endpoints` to the host.
    @usableFromInline
    package static func provide(_ endpoints: [Endpoint], in values: inout DependencyValues, requests: HostRequests) {
      for endpoint in endpoints { endpoint.provide(&values, requests) }
    }

    /// The endpoints `names` asks for, in the feature's order.
    @usableFromInline
    package static func select(_ names: [String], from endpoints: [Endpoint], feature: String) throws(HostError) -> [Endpoint] {
      guard !names.isEmpty else { return [] }
      let known = endpoints.map(\.name)
      for (index, name) in names.enumerated() where !known.contains(name) {
        throw HostError(
          .invalidArgument,
          "options_json: unknown endpoint \(WireMessage.quoted(name)) at $.provide[\(index)]"
            + "\(WireMessage.didYouMean(name, among: known)); the feature \(WireMessage.quoted(feature)) has "
            + (known.isEmpty ? "no endpoints" : "the endpoints: " + WireMessage.listed(known.map(WireMessage.quoted))))
      }
      return endpoints.filter { names.contains($0.name) }
    }
  }
}

@usableFromInline
package func describeEndpoint<Payload: Decodable, Response: Decodable>(
  _ name: String, _ payload: Payload.Type, _ response: Response.Type
) -> JSONValue {
  .object([
    (key: "name", value: .string(name)),
    (key: "payload_schema", value: jsonSchema(for: Payload.self)),
    (key: "response_schema", value: jsonSchema(for: Response.self)),
  ])
}

@usableFromInline
package func describeFeature<State: Encodable & Decodable, Action: Decodable>(
  _ name: String, _ description: String, _ initialState: State, _ action: Action.Type,
  endpoints: [Feature.Endpoint], identity: FeatureIdentity
) -> JSONValue {
  let initial = (try? WireEncoder(explicitNulls: true).encodeToJSONValue(initialState)) ?? .null
  return .object([
    (key: "name", value: .string(name)),
    (key: "description", value: .string(description)),
    (key: "initial_state", value: initial),
    (key: "action_schema", value: jsonSchema(for: Action.self)),
    (key: "state_schema", value: jsonSchema(for: State.self)),
    (key: "requests", value: .array(endpoints.map { $0.describe() })),
    (key: "state_version", value: .int(Int64(identity.stateVersion))),
    (key: "schema_hash", value: .string(identity.schemaHash)),
  ])
}

/// What a feature's schema hash covers: its action, state and endpoint schemas.
@usableFromInline
package func featureSchemas<State: Decodable, Action: Decodable>(
  _ state: State.Type, _ action: Action.Type, endpoints: [Feature.Endpoint]
) -> JSONValue {
  .object([
    (key: "action_schema", value: jsonSchema(for: Action.self)),
    (key: "state_schema", value: jsonSchema(for: State.self)),
    (key: "requests", value: .array(endpoints.map { $0.describe() })),
  ])
}

/// The features this library exposes, by name.
public enum FeatureRegistry {
  private static let features = LockedValue<[String: Feature]>([:])
  private static let order = LockedValue<[String]>([])

  /// Adds features (a later feature with the same name replaces the earlier one).
  public static func register(_ newFeatures: Feature...) {
    register(newFeatures)
  }

  /// Adds features (a later feature with the same name replaces the earlier one).
  public static func register(_ newFeatures: [Feature]) {
    for feature in newFeatures {
      let isNew = features.withLock { table in
        defer { table[feature.name] = feature }
        return table[feature.name] == nil
      }
      if isNew { order.withLock { $0.append(feature.name) } }
    }
  }

  /// The feature named `name`.
  public static func feature(named name: String) -> Feature? {
    loadOnce
    return features.withLock { $0[name] }
  }

  /// Every registered feature, in registration order.
  public static var all: [Feature] {
    loadOnce
    let names = order.withLock { $0 }
    return features.withLock { table in names.compactMap { table[$0] } }
  }

  /// Calls the library's `reducerkit_register_features` once (looked up in this image).
  private static let loadOnce: Void = {
    if let hook = findRegistrationHook() { hook() }
  }()
}

private typealias RegistrationHook = @convention(c) () -> Void

/// Finds `reducerkit_register_features` in the image that contains this code (works when the
/// library was loaded with RTLD_LOCAL, as Python's ctypes does), else anywhere in the process.
private func findRegistrationHook() -> RegistrationHook? {
  guard let found = rk_shim_find_symbol("reducerkit_register_features") else {
    return nil
  }
  return unsafeBitCast(found, to: RegistrationHook.self)
}

/// What `options_json` asked for.
@usableFromInline
package struct StoreOptions: Sendable {
  @usableFromInline package var initialState: JSONValue?
  @usableFromInline package var testClock = false
  @usableFromInline package var recordActions = false
  /// `"record": true`: record the session for `rk_store_scenario` (see `Recording.swift`).
  @usableFromInline package var record = false
  /// The endpoints the host answers (checked against the feature's in `Feature.init`).
  @usableFromInline package var provide: [String] = []
  /// `"snapshot"`: a snapshot to restore (`rk_store_snapshot`'s document).
  @usableFromInline package var snapshot: JSONValue?

  static let keys = ["initial_state", "clock", "record_actions", "record", "provide", "snapshot"]

  package init(parsing bytes: UnsafeRawBufferPointer?) throws(HostError) {
    guard let bytes else { return }
    var value: JSONValue
    do {
      value = try parseJSON(bytes)
    } catch {
      throw HostError(error, otherwise: .invalidArgument, context: "options_json")
    }
    // `initial_state` may be deep: once `read` returned (holding nothing), free what it did
    // not keep without recursion, even when it rejected the options.
    var options = StoreOptions()
    let outcome = Result { () throws(HostError) in try options.read(value) }
    value.releaseIteratively()
    if case .failure(let error) = outcome {
      options.release()
      throw error
    }
    if options.snapshot != nil, options.initialState != nil {
      options.release()
      throw HostError(
        .invalidArgument,
        "options_json: give \"snapshot\" or \"initial_state\", not both (a snapshot holds the whole state)")
    }
    self = options
  }

  init() {}

  private mutating func read(_ value: JSONValue) throws(HostError) {
    guard case let .object(members) = value else {
      throw HostError(.invalidArgument, "options_json: expected an object at $, found \(value.kindName)")
    }
    for (key, member) in members {
      switch key {
      case "initial_state":
        if case .null = member { initialState = nil; continue }
        guard case .object = member else {
          throw HostError(.state, "options_json: expected an object at $.initial_state, found \(member.kindName)")
        }
        initialState = member
      case "clock":
        switch member {
        case .string("live"): testClock = false
        case .string("test"): testClock = true
        default:
          throw HostError(
            .invalidArgument,
            "options_json: expected \"live\" or \"test\" at $.clock, found \(member.kindShown)")
        }
      case "record_actions":
        guard case let .bool(flag) = member else {
          throw HostError(.invalidArgument, "options_json: expected true or false at $.record_actions, found \(member.kindShown)")
        }
        recordActions = flag
      case "record":
        guard case let .bool(flag) = member else {
          throw HostError(.invalidArgument, "options_json: expected true or false at $.record, found \(member.kindShown)")
        }
        record = flag
      case "provide":
        guard case let .array(items) = member else {
          throw HostError(.invalidArgument, "options_json: expected an array of endpoint names at $.provide, found \(member.kindName)")
        }
        var names: [String] = []
        for (index, item) in items.enumerated() {
          guard case let .string(name) = item else {
            throw HostError(.invalidArgument, "options_json: expected an endpoint name (a string) at $.provide[\(index)], found \(item.kindName)")
          }
          if let first = names.firstIndex(of: name) {
            throw HostError(.invalidArgument, "options_json: endpoint \(WireMessage.quoted(name)) given twice, at $.provide[\(first)] and $.provide[\(index)]")
          }
          names.append(name)
        }
        provide = names
      case "snapshot":
        snapshot = member
      default:
        throw HostError(
          .invalidArgument,
          "options_json: unknown option \(WireMessage.quoted(key)) at \(WireMessage.path([key]))"
            + "\(WireMessage.didYouMean(key, among: Self.keys)); expected one of: \(Self.keys.joined(separator: ", "))")
      }
    }
  }

  /// The feature's default state with `initial_state` merged over it.
  @usableFromInline
  package func resolveInitialState<State: Codable>(default state: State) throws(HostError) -> State {
    guard let given = initialState else { return state }
    let base: JSONValue
    do {
      base = try WireEncoder(explicitNulls: true).encodeToJSONValue(state)
    } catch {
      throw HostError(.internal, "encoding the default state: \(error.message)")
    }
    do {
      return try WireDecoder(rootNoun: "state").decode(State.self, from: merge(base, given))
    } catch {
      throw HostError(.state, "initial_state: \(error.message)")
    }
  }

  /// The state a store starts from, and its first version: the snapshot's (migrated), or
  /// the feature's default state with `initial_state` merged over it at version 0.
  @inlinable
  package func resolveState<State: Codable>(
    default state: @autoclosure () -> State, feature: FeatureIdentity
  ) throws(HostError) -> (State, UInt64) {
    guard let snapshot else { return (try resolveInitialState(default: state()), 0) }
    var (json, version) = try feature.restore(snapshot)
    defer { json.releaseIteratively() }
    let written: Int? = if case let .int(value)? = snapshot["state_version"] { Int(value) } else { nil }
    do {
      return (try WireDecoder(rootNoun: "state").decode(State.self, from: json), version)
    } catch {
      throw feature.notAState(error, migratedFrom: written)
    }
  }

  /// Frees `initial_state` and `snapshot` without recursion (they may be nested up to the
  /// parser's limit).
  package mutating func release() {
    initialState?.releaseIteratively()
    initialState = nil
    snapshot?.releaseIteratively()
    snapshot = nil
  }
}

/// `overlay` over `base`: object keys merge recursively; anything else replaces. Linear in
/// the number of keys (large objects are merged through a hash index of `base`'s keys);
/// recursion follows `base`, the encoded default state, so its depth is the state type's.
func merge(_ base: JSONValue, _ overlay: JSONValue) -> JSONValue {
  guard case var .object(members) = base, case let .object(overlayMembers) = overlay else {
    return overlay
  }
  if members.count * overlayMembers.count <= 64 {
    for (key, value) in overlayMembers {
      if let index = members.lastIndex(where: { $0.key == key }) {
        members[index].value = merge(members[index].value, value)
      } else {
        members.append((key: key, value: value))
      }
    }
    return .object(members)
  }
  var index: [String: Int] = [:]
  index.reserveCapacity(members.count + overlayMembers.count)
  for (i, member) in members.enumerated() { index[member.key] = i }  // the last wins, as in lookups
  for (key, value) in overlayMembers {
    if let i = index[key] {
      members[i].value = merge(members[i].value, value)
    } else {
      index[key] = members.count
      members.append((key: key, value: value))
    }
  }
  return .object(members)
}

