#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import CustomDump
import IssueReporting
// One import for a scenario test: the scenario runner, `Feature` (the host runtime) and the
// TestStore.
@_exported import ReducerKitHost
@_exported import ReducerKitTesting
import ReducerKitWire

/// A scenario file (`*.scenario.json`): one test of a feature written as data, run alike by
/// this runner, the C program `reducerkit-check` and Python's `run_scenario` (format:
/// `Tests/scenarios/README.md` of the ReducerKit repository).
///
/// The runner drives an exhaustive ``TestStore`` of the feature's reducer, with a
/// ``TestClock`` and the feature's host endpoints answered by the scenario's steps; every
/// failure is reported like a `TestStore` failure (it fails the running Swift Testing or
/// XCTest test), with the JSON paths where the state differs.
///
/// The format is defined once, in the library, for the three runners: the file is checked and
/// read in its normal form by the same code as `rk_scenario_parse`, and states, actions and
/// request payloads are compared by the same rule as `rk_json_match` (key order ignored, a
/// `null` member equal to an absent one, numbers by exact value).
///
/// ```swift
/// import ReducerKitHostTesting
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
  /// The scenario in its normal form (defaults filled in; each step's kind first).
  let value: JSONValue

  /// Reads and checks a scenario file.
  ///
  /// - Throws: ``ScenarioError`` for a file that cannot be read, is not JSON, or is not a
  ///   well-formed scenario (the message says what and where).
  public init(contentsOfFile path: String) throws(ScenarioError) {
    let bytes: [UInt8]
    switch readFile(path) {
    case let .success(read): bytes = read
    case let .failure(reason): throw ScenarioError("\(path): cannot read the file: \(reason.message)")
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
    do throws(ScenarioFormat.Failure) {
      value = try ScenarioFormat.normalForm(of: bytes)
    } catch {
      throw ScenarioError(label + error.message)
    }
    guard case let .string(name)? = value["name"], case let .string(feature)? = value["feature"]
    else { throw ScenarioError("\(label)the normal form has no \"name\" or \"feature\"") }
    self.name = name
    self.feature = feature
    self.path = path
    self.value = value
  }

  public var description: String { path ?? name }

  /// The `*.scenario.json` files under `directory` (recursively, skipping hidden entries;
  /// links to directories are not followed, links to files are), sorted. A relative
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
  /// What is wrong, and where (`malformed step at $.steps[2]: ...`): the message
  /// `rk_scenario_parse` gives C and Python for the same file, after the file's path.
  public let message: String
  init(_ message: String) { self.message = message }
  public var description: String { message }
}

// MARK: - Files

private struct ReadFailure: Error {
  let message: String
}

/// The bytes of a regular file (or a link to one). Anything else is refused before a byte is
/// read: a FIFO would block without a writer, /dev/zero would never end. The file is opened
/// without blocking, so a FIFO is seen and refused at once.
private func readFile(_ path: String) -> Result<[UInt8], ReadFailure> {
  let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
  guard fd >= 0 else { return .failure(ReadFailure(message: String(cString: strerror(errno)))) }
  defer { close(fd) }
  var info = stat()
  guard fstat(fd, &info) == 0 else { return .failure(ReadFailure(message: String(cString: strerror(errno)))) }
  let kind = info.st_mode & S_IFMT
  guard kind == S_IFREG else {
    let what =
      switch kind {
      case S_IFDIR: "a directory"
      case S_IFIFO: "a FIFO"
      case S_IFCHR: "a character device"
      case S_IFBLK: "a block device"
      case S_IFSOCK: "a socket"
      default: "an unknown kind of file"
      }
    return .failure(ReadFailure(message: "not a regular file (\(what))"))
  }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if count < 0 {
      if errno == EINTR { continue }
      return .failure(ReadFailure(message: String(cString: strerror(errno))))
    }
    if count == 0 { break }
    bytes += chunk[0..<count]
  }
  return .success(bytes)
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
    guard lstat(path, &info) == 0 else { continue }
    if (info.st_mode & S_IFMT) == S_IFDIR {
      collectFiles(path, into: &found)  // a link to a directory is not followed
    } else if name.hasSuffix(".scenario.json") {
      if (info.st_mode & S_IFMT) == S_IFLNK, stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
        continue
      }
      found.append(path)
    }
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
  /// Whether the store runs on the test clock (then, as the library does, an accepted answer
  /// lets the effects it resumed settle before the next step).
  var testClock = true

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
    // The normal form: every option is there, with its default.
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
    testClock = !liveClock
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
      finished = Self.kind(of: step) == "finish"
    }
    prefix = "\(label), after the last step:\n"
    store.issuePrefix = prefix
    await end(store: store, host: host, finished: finished)
  }

  // MARK: Steps

  /// A step's kind: the normal form puts it first.
  static func kind(of step: JSONValue) -> String {
    guard case let .object(members) = step, let first = members.first else { return "" }
    return first.key
  }

  /// `value` as JSON (the wire form a C host reads), or nil if it cannot be encoded.
  func json<T: Encodable>(_ value: T) -> JSONValue? {
    try? WireEncoder(explicitNulls: true).encodeToJSONValue(value)
  }

  /// The wire format's output form of an action: `{"increment": {}}` and `{"increment":
  /// null}` are `"increment"` (as the C and Python runners compare actions).
  static func outputForm(_ action: JSONValue) -> JSONValue {
    if case let .object(members) = action, members.count == 1 {
      switch members[0].value {
      case .null: return .string(members[0].key)
      case .object(let payload) where payload.isEmpty: return .string(members[0].key)
      default: break
      }
    }
    return action
  }

  /// Sets the store's check of the state after the next send or receive: the step's
  /// `"state"` by the format's rule (none: the store's own check, no change when exhaustive).
  func expectState(_ step: JSONValue, store: TestStore<State, Action>) {
    guard let written = step["state"] else {
      store.expectedState = nil
      return
    }
    store.expectedState = { [self] actual in
      guard let actual = json(actual.value) else { return "the state cannot be encoded" }
      return JSONMatch.describe(expected: written, actual: actual)
    }
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
    defer { store.expectedState = nil }
    switch Self.kind(of: step) {
    case "send":
      let decoded: R.Action
      do {
        decoded = try Feature._decodeAction(R.Action.self, (step["send"] ?? .null).serializedBytes())
      } catch {
        expectError(step, "the send", error)
        return
      }
      if step["error"] != nil {
        expectError(step, "the send", nil)
      }
      expectState(step, store: store)
      await store.send(
        WireValue(value: decoded),
        fileID: here.fileID, filePath: here.filePath, line: here.line, column: here.column)
    case "receive":
      let expected = Self.outputForm(step["receive"] ?? .null)
      let text = expected.serialized()
      let shown = text.count > 200 ? text.prefix(197) + "..." : text
      expectState(step, store: store)
      await store.receive(
        shown,
        { [self] action in
          guard let actual = json(action.value) else { return false }
          return JSONMatch.matches(expected, Self.outputForm(actual))
        },
        timeout: nil, assert: nil,
        _Location(fileID: here.fileID, filePath: here.filePath, line: here.line, column: here.column),
        expected: nil)
    case "advance_ms":
      guard let milliseconds = ScenarioFormat.milliseconds(step["advance_ms"]) else { return }
      await clock.advance(by: .milliseconds(milliseconds))
    case "request":
      guard let expected = step["request"] else { return }
      while true {
        guard let event = await nextEvent(store: store, host: host) else {
          fail("expected the request \(expected.serialized()), but the host got no request event within \(timeout)")
          return
        }
        let isRequest = event["cancelled"] == nil
        var difference: String?
        if isRequest {
          let want: JSONValue = ["name": expected["name"] ?? .null, "payload": expected["payload"] ?? .null]
          let got: JSONValue = ["name": event["name"] ?? .null, "payload": event["payload"] ?? .null]
          difference = JSONMatch.describe(expected: want, actual: got)
        }
        let matches = isRequest && difference == nil
        if matches, let id = ScenarioFormat.requestID(expected["id"]), ScenarioFormat.requestID(event["id"]) != id {
          fail("expected the request \(expected.serialized()), but its id is \(event["id"]?.serialized() ?? "?")")
        }
        if matches { return }
        if exhaustive {
          if let difference {
            fail("the next request is not the expected one:\n\(difference)")
          } else {
            fail("expected the request \(expected.serialized()), but the next host event is \(event.serialized())")
          }
          return
        }
      }
    case "resolve":
      guard let id = ScenarioFormat.requestID(step["resolve"]) else { return }
      var outcome: _HostError?
      do { try host.resolve(id, step["response"] ?? .null) } catch { outcome = error }
      if outcome == nil, testClock { await store.settle() }
      expectError(step, "rk_store_resolve(\(id))", outcome)
    case "fail":
      guard let id = ScenarioFormat.requestID(step["fail"]), case let .string(message)? = step["message"] else { return }
      var outcome: _HostError?
      do { try host.fail(id, message: message) } catch { outcome = error }
      if outcome == nil, testClock { await store.settle() }
      expectError(step, "rk_store_fail(\(id))", outcome)
    case "cancelled":
      guard let id = ScenarioFormat.requestID(step["cancelled"]) else { return }
      while true {
        guard let event = await nextEvent(store: store, host: host) else {
          fail("expected the cancellation of request \(id), but the host got no event within \(timeout)")
          return
        }
        if event["cancelled"] == .bool(true), ScenarioFormat.requestID(event["id"]) == id { return }
        if exhaustive {
          fail("expected the cancellation of request \(id), but the next host event is \(event.serialized())")
          return
        }
      }
    case "finish":
      await store.finish(fileID: here.fileID, filePath: here.filePath, line: here.line, column: here.column)
      collectEvents(host)
      if exhaustive, !events.isEmpty {
        fail("\(events.count) host event(s) were not asserted: \(events.map { $0.serialized() }.joined(separator: ", "))")
      }
      events.removeAll()
    default:
      fail("not a step of the normal form: \(step.serialized())")
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
    if let expected = scenario.value["final_state"] {
      guard let actual = json(store.state.value) else {
        fail("the final state cannot be encoded")
        return
      }
      if let difference = JSONMatch.describe(expected: expected, actual: actual) {
        fail("the final state is not the expected one:\n\(difference)")
      }
    }
  }
}
