#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import CustomDump
import IssueReporting
@_spi(Testing) import ReducerKitFFI
import ReducerKitWire

/// A scenario file (`*.scenario.json`): one test of a feature written as data, run alike by
/// this runner, the C program `reducerkit-check` and Python's `run_scenario` (format:
/// `Tests/scenarios/README.md` of the ReducerKit repository).
///
/// The runner drives an exhaustive ``TestStore`` of the feature's reducer, with a
/// ``TestClock`` and the feature's host endpoints answered by the scenario's steps; every
/// failure is reported like a `TestStore` failure (it fails the running Swift Testing or
/// XCTest test), with a diff of the state.
///
/// ```swift
/// import ReducerKitFFI
/// import ReducerKitTesting
/// import Scoreboard
/// import Testing
///
/// @Test(arguments: Scenario.files(in: "Tests/scenarios", relativeTo: #filePath))
/// func scenario(_ path: String) async throws {
///   try await Scenario(contentsOfFile: path).run(features: [.scoreboard])
/// }
/// ```
public struct Scenario: Sendable, CustomStringConvertible {
  /// The scenario's `name`.
  public let name: String
  /// The feature it tests (a `Feature`'s `name`).
  public let feature: String
  /// The file it was read from, if any.
  public let path: String?
  let value: JSONValue

  /// Reads and checks a scenario file.
  ///
  /// - Throws: ``ScenarioError`` for a file that cannot be read, is not JSON, or is not a
  ///   well-formed scenario (the message says what and where).
  public init(contentsOfFile path: String) throws(ScenarioError) {
    guard let bytes = readFile(path) else {
      throw ScenarioError("\(path): cannot read the file: \(String(cString: strerror(errno)))")
    }
    try self.init(bytes: bytes, path: path)
  }

  /// A scenario from its JSON text.
  public init(json: String, path: String? = nil) throws(ScenarioError) {
    try self.init(bytes: Array(json.utf8), path: path)
  }

  init(bytes: [UInt8], path: String?) throws(ScenarioError) {
    let label = path.map { "\($0): " } ?? ""
    let value: JSONValue
    do {
      value = try parseJSON(bytes)
    } catch {
      throw ScenarioError("\(label)not JSON: \(error.message)")
    }
    do throws(ScenarioError) {
      try ScenarioFormat.validate(value)
    } catch {
      throw ScenarioError(label + error.message)
    }
    guard case let .string(name)? = value["name"], case let .string(feature)? = value["feature"]
    else { throw ScenarioError("\(label)\"name\" and \"feature\" are required strings at $") }
    self.name = name
    self.feature = feature
    self.path = path
    self.value = value
  }

  public var description: String { path ?? name }

  /// The `*.scenario.json` files under `directory` (recursively), sorted. A relative
  /// `directory` is taken from the directory of `relativeTo` (pass `#filePath` to name a
  /// directory beside the test file's package), else from the current directory.
  ///
  /// ```swift
  /// @Test(arguments: Scenario.files(in: "../scenarios", relativeTo: #filePath))
  /// ```
  public static func files(in directory: String, relativeTo file: String? = nil) -> [String] {
    var root = directory
    if !directory.hasPrefix("/"), let file {
      let base = file.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        .joined(separator: "/")
      root = base.isEmpty ? directory : base + "/" + directory
    }
    var found: [String] = []
    collectFiles(root, into: &found)
    return found.sorted()
  }

  /// Runs the scenario against the feature named by its `feature` among `features`
  /// (default: every feature the process registered with `FeatureRegistry`), reporting each
  /// failure as an issue of the running test, located at the caller.
  ///
  /// - Parameters:
  ///   - features: the features the scenario may name: the same `Feature` values a package
  ///     registers in its `reducerkit_register_features`.
  ///   - timeout: how long a step waits for running effects (default 1 s).
  public func run(
    features: [Feature] = FeatureRegistry.all,
    timeout: Duration = .seconds(1),
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = ScenarioLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard let feature = features.first(where: { $0.name == self.feature }) else {
      let known = features.map { "\"\($0.name)\"" }.joined(separator: ", ")
      location.report(
        "scenario \"\(name)\" (\(description)): unknown feature \"\(self.feature)\"; the "
          + "features given are: \(known.isEmpty ? "none" : known)")
      return
    }
    await run(feature._types, feature: feature, timeout: timeout, location)
  }

  private func run<Types: _FeatureTypes>(
    _ types: Types, feature: Feature, timeout: Duration, _ location: ScenarioLocation
  ) async {
    let runner = ScenarioRunner<Types.Body>(
      scenario: self, types: types, feature: feature, timeout: timeout, location: location)
    await runner.run()
  }
}

/// A scenario that is not well-formed, or cannot be read.
public struct ScenarioError: Error, Sendable, CustomStringConvertible {
  /// What is wrong, and where (`$.steps[2]`).
  public let message: String
  init(_ message: String) { self.message = message }
  public var description: String { message }
}

// MARK: - Files

private func readFile(_ path: String) -> [UInt8]? {
  guard let file = fopen(path, "rb") else { return nil }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
    if count > 0 { bytes += chunk[0..<count] }
    if count < chunk.count { break }
  }
  return ferror(file) == 0 ? bytes : nil
}

private func collectFiles(_ directory: String, into found: inout [String]) {
  guard let dir = opendir(directory) else { return }
  defer { closedir(dir) }
  while let entry = readdir(dir) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
    if name.hasPrefix(".") { continue }
    let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
    var info = stat()
    guard stat(path, &info) == 0 else { continue }
    if (info.st_mode & S_IFMT) == S_IFDIR {
      collectFiles(path, into: &found)
    } else if name.hasSuffix(".scenario.json") {
      found.append(path)
    }
  }
}

// MARK: - The format

enum ScenarioFormat {
  static let topKeys = ["name", "feature", "options", "exhaustive", "steps", "final_state"]
  static let optionKeys = ["clock", "initial_state", "provide"]
  static let stepKinds = ["send", "receive", "advance_ms", "request", "resolve", "fail", "cancelled", "finish"]
  static let statuses = [
    "RK_ERR_INVALID_ARGUMENT", "RK_ERR_JSON", "RK_ERR_ACTION", "RK_ERR_STATE", "RK_ERR_UNKNOWN_FEATURE",
    "RK_ERR_INVALID_HANDLE", "RK_ERR_TIMEOUT", "RK_ERR_INTERNAL", "RK_ERR_MISUSE", "RK_ERR_RESPONSE",
  ]

  /// The rules of `scenario.schema.json`, with the same messages as the C and Python runners.
  static func validate(_ value: JSONValue) throws(ScenarioError) {
    guard case let .object(members) = value else {
      throw ScenarioError("not a scenario: expected a JSON object at $")
    }
    for (key, _) in members where !topKeys.contains(key) {
      let hint = optionKeys.contains(key) ? " (it belongs in \"options\")" : ""
      throw ScenarioError("unknown key \"\(key)\" at $\(hint); expected \(topKeys.joined(separator: ", "))")
    }
    if let exhaustive = value["exhaustive"], case .bool = exhaustive {} else if value["exhaustive"] != nil {
      throw ScenarioError("\"exhaustive\" is true or false")
    }
    if let options = value["options"] {
      guard case let .object(given) = options else { throw ScenarioError("\"options\" is an object") }
      for (key, _) in given where !optionKeys.contains(key) {
        throw ScenarioError("unknown option \"\(key)\" at $.options; expected \(optionKeys.joined(separator: ", "))")
      }
      if let clock = options["clock"], clock != .string("test"), clock != .string("live") {
        throw ScenarioError("$.options.clock is \"test\" or \"live\"")
      }
      switch options["initial_state"] {
      case nil, .null?, .object?: break
      default: throw ScenarioError("$.options.initial_state is null or an object")
      }
      if let provide = options["provide"] {
        guard case let .array(names) = provide, names.allSatisfy({ if case .string = $0 { true } else { false } })
        else { throw ScenarioError("$.options.provide is an array of endpoint names") }
      }
    }
    guard case let .array(steps)? = value["steps"] else {
      throw ScenarioError("\"steps\" is a required array at $")
    }
    for (index, step) in steps.enumerated() {
      if let problem = problem(step) {
        throw ScenarioError("malformed step $.steps[\(index)] \(step.serialized().prefix(120)): \(problem)")
      }
    }
  }

  static func isRequestID(_ value: JSONValue?) -> Bool {
    if case let .int(id)? = value { return id >= 1 }
    return false
  }

  static func problem(_ step: JSONValue) -> String? {
    guard case let .object(members) = step else { return "a step is an object" }
    let kinds = members.map(\.key).filter { stepKinds.contains($0) }
    guard kinds.count == 1, let kind = kinds.first else {
      return "a step has exactly one of \(stepKinds.joined(separator: ", "))"
    }
    let extras: [String: [String]] = [
      "state": ["send", "receive"], "response": ["resolve"], "message": ["fail"],
      "error": ["send", "resolve", "fail"],
    ]
    for (key, _) in members where key != kind {
      guard extras[key]?.contains(kind) == true else {
        return "unknown key \"\(key)\" in a \(kind) step: \"state\" belongs to send and receive, "
          + "\"response\" to resolve, \"message\" to fail, \"error\" to send, resolve and fail"
      }
    }
    if kind == "send", step["state"] != nil, step["error"] != nil {
      return "a send step has \"state\" or \"error\", not both"
    }
    switch kind {
    case "advance_ms":
      guard case let .int(ms)? = step["advance_ms"], ms >= 0 else {
        return "advance_ms is a whole number of milliseconds >= 0"
      }
    case "request":
      guard let request = step["request"], case let .object(keys) = request,
        case .string? = request["name"], request["payload"] != nil
      else { return "a request step is {\"request\": {\"id\": N (optional), \"name\": \"...\", \"payload\": ...}}" }
      if keys.contains(where: { !["id", "name", "payload"].contains($0.key) }) {
        return "a request has only \"id\", \"name\" and \"payload\""
      }
      if request["id"] != nil, !isRequestID(request["id"]) { return "a request id is a whole number >= 1" }
    case "resolve", "fail", "cancelled":
      guard isRequestID(step[kind]) else { return "a request id is a whole number >= 1" }
      if kind == "resolve", step["response"] == nil { return "a resolve step needs a \"response\"" }
      if kind == "fail", case .string? = step["message"] {} else if kind == "fail" {
        return "a fail step needs a \"message\" string"
      }
    case "finish":
      guard step["finish"] == .bool(true) else { return "a finish step is {\"finish\": true}" }
    default: break
    }
    if let error = step["error"] {
      guard case let .object(keys) = error, case let .string(status)? = error["status"] else {
        return "\"error\" is {\"status\": \"RK_ERR_...\", \"message\": \"a fragment\" (optional)}"
      }
      guard statuses.contains(status) else {
        return "\"error\".\"status\" is one of \(statuses.joined(separator: ", "))"
      }
      if keys.contains(where: { $0.key != "status" && $0.key != "message" }) {
        return "\"error\" has only \"status\" and \"message\""
      }
      if let message = error["message"], case .string = message {} else if error["message"] != nil {
        return "\"error\".\"message\" is a string"
      }
    }
    return nil
  }
}

// MARK: - Running

struct ScenarioLocation: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  func report(_ message: String) {
    reportIssue(message, fileID: fileID, filePath: filePath, line: line, column: column)
  }
}

/// A value compared as its wire JSON, so any feature's `Codable` state and actions can go
/// through a ``TestStore`` (which needs `Equatable`); dumped and diffed as the value itself.
struct WireValue<Value: Codable & Sendable>: Equatable, Sendable, CustomDumpRepresentable {
  var value: Value

  static func == (lhs: Self, rhs: Self) -> Bool {
    let encoder = WireEncoder(explicitNulls: true)
    return (try? encoder.encode(lhs.value)) == (try? encoder.encode(rhs.value))
  }

  var customDumpValue: Any { value }
}

/// The feature's reducer on ``WireValue``s.
struct WireReducer<Base: Reducer>: Reducer
where Base.State: Codable & Sendable, Base.Action: Codable & Sendable {
  let base: Base

  func reduce(
    into state: inout WireValue<Base.State>, action: WireValue<Base.Action>
  ) -> Effect<WireValue<Base.Action>> {
    base.reduce(into: &state.value, action: action.value).map { WireValue(value: $0) }
  }
}

/// One run of a scenario against one feature.
final class ScenarioRunner<R: Reducer> where R.State: Codable & Sendable, R.Action: Codable & Sendable {
  typealias State = WireValue<R.State>
  typealias Action = WireValue<R.Action>

  let scenario: Scenario
  let makeReducer: () -> R
  let defaultState: R.State
  let feature: Feature
  let timeout: Duration
  let location: ScenarioLocation
  let exhaustive: Bool
  var events: [JSONValue] = []
  var host: _TestHost?

  init<Types: _FeatureTypes>(
    scenario: Scenario, types: Types, feature: Feature, timeout: Duration, location: ScenarioLocation
  ) where Types.Body == R {
    self.scenario = scenario
    self.makeReducer = { types.makeReducer() }
    self.defaultState = types.makeInitialState()
    self.feature = feature
    self.timeout = timeout
    self.location = location
    self.exhaustive = scenario.value["exhaustive"] != .bool(false)
  }

  private var label: String { "scenario \"\(scenario.name)\" (\(scenario.description))" }

  /// Put before every failure message: the scenario and the running step.
  var prefix = ""

  func fail(_ message: String) { location.report(prefix + message) }

  func run() async {
    let options = scenario.value["options"]
    let initialState: R.State
    do {
      let given: JSONValue? = options?["initial_state"].flatMap { $0 == .null ? nil : $0 }
      initialState = try Feature._initialState(given, default: defaultState)
      var names: [String] = []
      if case let .array(items)? = options?["provide"] {
        for case let .string(name) in items { names.append(name) }
      }
      host = try _TestHost(feature: feature, provide: names)
    } catch {
      fail("\(label): the store could not be created: \(error)")
      return
    }
    guard let host else { return }
    defer { host.close() }
    let clock = TestClock()
    let liveClock = options?["clock"] == .string("live")
    let store = TestStore<State, Action>(
      initialState: WireValue(value: initialState),
      reducer: { WireReducer(base: makeReducer()) },
      withDependencies: { values in
        if !liveClock {
          values.continuousClock = clock
          values.suspendingClock = clock
        }
        host.provide(into: &values)
      },
      fileID: location.fileID, filePath: location.filePath, line: location.line, column: location.column)
    store.timeout = timeout
    if !exhaustive { store.exhaustivity = .off }
    guard case let .array(steps)? = scenario.value["steps"] else { return }
    var finished = false
    for (index, step) in steps.enumerated() {
      let shown = step.serialized()
      let prefix = "\(label), step \(index + 1) \(shown.count > 120 ? shown.prefix(117) + "..." : shown):\n"
      self.prefix = prefix
      store.issuePrefix = prefix
      await self.step(step, store: store, clock: clock, host: host)
      finished = step["finish"] != nil
    }
    prefix = "\(label), after the last step:\n"
    store.issuePrefix = prefix
    await end(store: store, host: host, finished: finished)
  }

  // MARK: Steps

  func decodeState(_ value: JSONValue) -> R.State? {
    do {
      return try WireDecoder(rootNoun: "state").decode(R.State.self, from: value)
    } catch {
      fail("the expected state is not a state of the feature: \(error.message)")
      return nil
    }
  }

  /// The assertion for a step's `state`: nil (no change) when it equals the current state.
  func assertion(_ step: JSONValue, current: State) -> ((inout State) -> Void)?? {
    guard let given = step["state"] else { return .some(nil) }
    guard let expected = decodeState(given) else { return nil }
    let value = WireValue(value: expected)
    if exhaustive, value == current { return .some(nil) }
    return .some({ $0 = value })
  }

  func expectError(_ step: JSONValue, _ call: String, _ outcome: _HostError?) {
    let expected = step["error"]
    switch (expected, outcome) {
    case (nil, nil): break
    case (nil, let error?): fail("\(call) failed: \(error)")
    case (let expected?, nil): fail("expected \(call) to fail with \(expected["status"]?.serialized() ?? "?"), but it succeeded")
    case (let expected?, let error?):
      if case let .string(status)? = expected["status"], status != error.status {
        fail("expected \(call) to fail with \(status), but it failed with \(error)")
      } else if case let .string(fragment)? = expected["message"], !error.message.contains(fragment) {
        fail("expected the error of \(call) to contain \"\(fragment)\", but it is: \(error.message)")
      }
    }
  }

  func step(_ step: JSONValue, store: TestStore<State, Action>, clock: TestClock, host: _TestHost) async {
    let here = location
    if let action = step["send"] {
      let decoded: R.Action
      do {
        decoded = try Feature._decodeAction(R.Action.self, action.serializedBytes())
      } catch {
        expectError(step, "the send", error)
        return
      }
      if step["error"] != nil {
        expectError(step, "the send", nil)
      }
      guard let assertion = assertion(step, current: store.state) else { return }
      await store.send(
        WireValue(value: decoded), assert: assertion,
        fileID: here.fileID, filePath: here.filePath, line: here.line, column: here.column)
    } else if let action = step["receive"] {
      let decoded: R.Action
      do {
        decoded = try Feature._decodeAction(R.Action.self, action.serializedBytes())
      } catch {
        fail("the received action is not an action of the feature: \(error)")
        return
      }
      guard let assertion = assertion(step, current: store.state) else { return }
      await store.receive(
        WireValue(value: decoded), assert: assertion,
        fileID: here.fileID, filePath: here.filePath, line: here.line, column: here.column)
    } else if case let .int(milliseconds)? = step["advance_ms"] {
      await clock.advance(by: .milliseconds(milliseconds))
    } else if let expected = step["request"] {
      while true {
        guard let event = await nextEvent(store: store, host: host) else {
          fail("expected the request \(expected.serialized()), but the host got no request event within \(timeout)")
          return
        }
        let matches = event["cancelled"] == nil && event["name"] == expected["name"]
          && event["payload"] == expected["payload"]
        if matches, let id = expected["id"], event["id"] != id {
          fail("expected the request \(expected.serialized()), but its id is \(event["id"]?.serialized() ?? "?")")
        }
        if matches { return }
        if exhaustive {
          fail("expected the request \(expected.serialized()), but the next host event is \(event.serialized())")
          return
        }
      }
    } else if case let .int(id)? = step["resolve"] {
      var outcome: _HostError?
      do { try host.resolve(UInt64(id), step["response"] ?? .null) } catch { outcome = error }
      expectError(step, "rk_store_resolve(\(id))", outcome)
    } else if case let .int(id)? = step["fail"], case let .string(message)? = step["message"] {
      var outcome: _HostError?
      do { try host.fail(UInt64(id), message: message) } catch { outcome = error }
      expectError(step, "rk_store_fail(\(id))", outcome)
    } else if case let .int(id)? = step["cancelled"] {
      while true {
        guard let event = await nextEvent(store: store, host: host) else {
          fail("expected the cancellation of request \(id), but the host got no event within \(timeout)")
          return
        }
        if event["cancelled"] == .bool(true), event["id"] == .int(id) { return }
        if exhaustive {
          fail("expected the cancellation of request \(id), but the next host event is \(event.serialized())")
          return
        }
      }
    } else if step["finish"] != nil {
      await store.finish(fileID: here.fileID, filePath: here.filePath, line: here.line, column: here.column)
      collectEvents(host)
      if exhaustive, !events.isEmpty {
        fail("\(events.count) host event(s) were not asserted: \(events.map { $0.serialized() }.joined(separator: ", "))")
      }
      events.removeAll()
    }
  }

  func collectEvents(_ host: _TestHost) {
    if case let .array(taken) = host.takeEvents() { events += taken }
  }

  /// The next host event, waiting (up to `timeout`) while effects run.
  func nextEvent(store: TestStore<State, Action>, host: _TestHost) async -> JSONValue? {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    collectEvents(host)
    while events.isEmpty, ContinuousClock.now < deadline {
      if store.isIdle {
        collectEvents(host)
        break
      }
      try? await Task.sleep(for: .milliseconds(1))
      collectEvents(host)
    }
    return events.isEmpty ? nil : events.removeFirst()
  }

  // MARK: The end

  func end(store: TestStore<State, Action>, host: _TestHost, finished: Bool) async {
    let here = location
    if !finished {
      collectEvents(host)
      if exhaustive, !events.isEmpty {
        fail("\(events.count) host event(s) were not asserted: \(events.map { $0.serialized() }.joined(separator: ", "))")
      }
      events.removeAll()
      // Effects may still run at the end of a scenario without a finish step: cancel them,
      // then check (exhaustive) that every action they sent was received.
      await store.cancelEffects()
      await store.finish(fileID: here.fileID, filePath: here.filePath, line: here.line, column: here.column)
    }
    if let given = scenario.value["final_state"], let expected = decodeState(given) {
      let actual = store.state.value
      if WireValue(value: expected) != store.state {
        let difference = diff(expected, actual, format: .proportional)
          .map { "\($0)\n(Expected: −, Actual: +)" } ?? "expected \(expected), actual \(actual)"
        fail("the final state is not the expected one:\n\(difference)")
      }
    }
  }
}
