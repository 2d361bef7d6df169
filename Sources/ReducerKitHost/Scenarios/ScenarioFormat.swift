import ReducerKitPlatform
import ReducerKitWire

// The scenario format (Tests/scenarios/README.md; JSON Schema: scenario.schema.json): the one
// definition of a well-formed scenario file, and the normal form the Swift, C and Python
// runners drive (C and Python through rk_scenario_parse). JSON in and out, no C types.

/// Reads scenario files: checks a file against the format and gives it in its normal form.
///
/// ```swift
/// let scenario = try ScenarioFormat.normalForm(of: Array(text.utf8))
/// scenario["options"]?["clock"]  // "test" (the default, filled in)
/// ```
///
/// A file is read with the library's strict JSON parser (valid UTF-8, no key twice in an
/// object, nesting at most ``maxDepth`` deep), then checked against the rules of
/// `scenario.schema.json`, which also says:
/// - the strings of the format itself (`name`, `feature`, endpoint names, `error`'s `status`
///   and `message`, `fail`'s `message`) contain no U+0000, and `name` and `feature` are not
///   empty;
/// - request ids are whole numbers from 1 to 2^64−1 and `advance_ms` one from 0 to 2^63−1
///   (`1.0` and `1e3` are whole numbers);
/// - a number written with a fraction or exponent is within the range of a double (so every
///   runner reads every value alike).
///
/// The normal form is the same document with the defaults filled in and members in a fixed
/// order, so a runner reads it without checking anything:
///
/// ```json
/// {"name": "...", "feature": "counter",
///  "options": {"clock": "test", "initial_state": null, "provide": []},
///  "exhaustive": true,
///  "steps": [{"send": "increment", "state": {"count": 1}}, {"advance_ms": 1000}, ...],
///  "final_state": {...}}
/// ```
///
/// Each step's first member is its kind (`send`, `receive`, `advance_ms`, `request`,
/// `resolve`, `fail`, `cancelled`, `finish`), followed by the members it has of `state`,
/// `response`, `message` and `error` in that order; a request is `{"name", "payload"}` and
/// `"id"` when given, an error `{"status"}` and `"message"` when given. `"state": null` and
/// `"final_state": null` stand for absent ones (a state is never null), and are left out.
/// Integers are written exactly; every other value is written as compact JSON.
package enum ScenarioFormat {
  /// The deepest nesting of a scenario file: a step's values may nest as deep as an action
  /// sent to a store (512) below the members that hold them.
  public static let maxDepth = 516

  /// The step kinds: each step has exactly one of these keys.
  public static let stepKinds = [
    "send", "receive", "advance_ms", "request", "resolve", "fail", "cancelled", "finish",
  ]

  /// The statuses an `"error"` may name (the names of `rk_status`, but `RK_OK`).
  public static let statuses = [
    "RK_ERR_INVALID_ARGUMENT", "RK_ERR_JSON", "RK_ERR_ACTION", "RK_ERR_STATE", "RK_ERR_UNKNOWN_FEATURE",
    "RK_ERR_INVALID_HANDLE", "RK_ERR_TIMEOUT", "RK_ERR_INTERNAL", "RK_ERR_MISUSE", "RK_ERR_RESPONSE",
  ]

  static let topKeys = ["name", "feature", "options", "exhaustive", "steps", "final_state"]
  static let optionKeys = ["clock", "initial_state", "provide"]
  /// The most bytes of a scenario's `name` and `feature`.
  static let nameLimit = 512
  /// The keys a step may have beside its kind, and the kinds they belong to, in the order of
  /// the normal form.
  static let stepExtras: [(key: String, kinds: [String])] = [
    ("state", ["send", "receive"]), ("response", ["resolve"]), ("message", ["fail"]),
    ("error", ["send", "resolve", "fail"]),
  ]

  /// A file that is not a well-formed scenario: what is wrong, and where.
  public struct Failure: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
      /// Not JSON: syntax, invalid UTF-8, nesting deeper than ``ScenarioFormat/maxDepth``, or
      /// an object with the same key twice.
      case json
      /// JSON that is not a scenario.
      case shape
    }
    public let kind: Kind
    /// A message naming the JSON path of the offending member and what was expected, e.g.
    /// `malformed step at $.steps[3].advance_ms: expected a whole number of milliseconds
    /// from 0 to 9223372036854775807, found -1` (input quoted bounded and escaped).
    public let message: String
    public var description: String { message }

    init(_ kind: Kind, _ message: String) {
      self.kind = kind
      self.message = message
    }
  }

  /// Parses a scenario file (UTF-8 JSON text) and returns its normal form.
  public static func normalForm(of bytes: UnsafeRawBufferPointer) throws(Failure) -> JSONValue {
    var document: JSONValue
    do {
      document = try parseJSON(bytes, maxDepth: maxDepth)
    } catch {
      throw Failure(.json, "not JSON: \(error.message)")
    }
    defer { JSONText.release(&document) }
    return try normalForm(of: document)
  }

  /// Parses a scenario file (UTF-8 JSON text) and returns its normal form.
  public static func normalForm(of bytes: [UInt8]) throws(Failure) -> JSONValue {
    try bytes.withUnsafeBytes { raw in
      Result { () throws(Failure) in try normalForm(of: raw) }
    }.get()
  }

  /// Checks a parsed scenario and returns its normal form.
  public static func normalForm(of scenario: JSONValue) throws(Failure) -> JSONValue {
    var checker = Checker()
    return try checker.scenario(scenario)
  }

  /// The normal form of a scenario file as compact JSON text (what `rk_scenario_parse`
  /// returns).
  public static func normalFormText(of bytes: UnsafeRawBufferPointer) throws(Failure) -> [UInt8] {
    var value = try normalForm(of: bytes)
    defer { JSONText.release(&value) }
    return JSONText.bytes(value)
  }

  /// A request id or `advance_ms` of a normal form as an integer (nil if it is not one).
  public static func requestID(_ value: JSONValue?) -> UInt64? {
    guard let value else { return nil }
    return wholeNumber(value, max: UInt64.max).flatMap { $0 >= 1 ? $0 : nil }
  }

  /// `advance_ms` of a normal form's step (nil if it is not one).
  public static func milliseconds(_ value: JSONValue?) -> Int64? {
    guard let value, let n = wholeNumber(value, max: UInt64(Int64.max)) else { return nil }
    return Int64(n)
  }

  /// The value of a number that is a whole number from 0 to `max` (written `7`, `7.0` or
  /// `7e0`), else nil.
  static func wholeNumber(_ value: JSONValue, max: UInt64) -> UInt64? {
    switch value {
    case .int(let i):
      return i >= 0 && UInt64(i) <= max ? UInt64(i) : nil
    case .double(let d):
      guard d.isFinite, d.rounded(.towardZero) == d, d >= 0, d < 18_446_744_073_709_551_616.0
      else { return nil }
      let n = UInt64(d)
      return n <= max ? n : nil
    case .number(let text):
      guard let n = UInt64(text) else { return nil }  // an integer beyond Int64 (or not one)
      return n <= max ? n : nil
    default:
      return nil
    }
  }
}

// MARK: - Checking

/// One check of one document: the first problem found, in document order, is thrown.
private struct Checker {
  typealias Failure = ScenarioFormat.Failure
  var paths = JSONPathTree()

  func shown(_ value: JSONValue) -> String { JSONText.shown(value, limit: 64) }

  func quoted(_ key: String) -> String { JSONText.shown(.string(key), limit: 64) }

  mutating func scenario(_ document: JSONValue) throws(Failure) -> JSONValue {
    try numbersInRange(document)
    let root = JSONPathTree.root
    guard case .object(let members) = document else {
      throw Failure(.shape, "not a scenario: expected a JSON object at $, found \(shown(document))")
    }
    for member in members where !ScenarioFormat.topKeys.contains(where: { $0.sameBytes(member.key) }) {
      let hint =
        ScenarioFormat.optionKeys.contains(where: { $0.sameBytes(member.key) }) ? " (it belongs in \"options\")" : ""
      throw Failure(
        .shape,
        "unknown key \(quoted(member.key)) at $\(hint)\(hint.isEmpty ? WireMessage.didYouMean(member.key, among: ScenarioFormat.topKeys) : ""); "
          + "expected \(ScenarioFormat.topKeys.joined(separator: ", "))")
    }
    for key in ["name", "feature", "steps"] where document[key] == nil {
      throw Failure(.shape, "missing key \"\(key)\" at $: a scenario has \"name\", \"feature\" and \"steps\"")
    }
    // (Each path is made before the call that uses it: `paths` may not change during a call
    // on `self`.)
    let namePath = paths.child(root, .key("name"))
    let name = try nonEmptyString(document["name"]!, at: namePath)
    let featurePath = paths.child(root, .key("feature"))
    let feature = try nonEmptyString(document["feature"]!, at: featurePath)
    var exhaustive = true
    if let given = document["exhaustive"] {
      guard case .bool(let flag) = given else {
        throw Failure(.shape, "$.exhaustive: expected true or false, found \(shown(given))")
      }
      exhaustive = flag
    }
    let options = try self.options(document["options"])
    guard case .array(let steps) = document["steps"]! else {
      throw Failure(.shape, "$.steps: expected an array of steps, found \(shown(document["steps"]!))")
    }
    let stepsPath = paths.child(root, .key("steps"))
    var normalSteps: [JSONValue] = []
    normalSteps.reserveCapacity(steps.count)
    for (index, step) in steps.enumerated() {
      let at = paths.child(stepsPath, .index(index))
      normalSteps.append(try self.step(step, at: at))
    }
    var normal: [(key: String, value: JSONValue)] = [
      ("name", .string(name)), ("feature", .string(feature)), ("options", options),
      ("exhaustive", .bool(exhaustive)), ("steps", .array(normalSteps)),
    ]
    if let finalState = document["final_state"], finalState != .null {
      normal.append(("final_state", finalState))
    }
    return .object(normal)
  }

  // MARK: Values

  /// Numbers with a fraction or exponent must be doubles: a runner reads them as doubles.
  mutating func numbersInRange(_ document: JSONValue) throws(Failure) {
    var stack: [(JSONValue, Int)] = [(document, JSONPathTree.root)]
    while let (value, path) = stack.popLast() {
      switch value {
      case .array(let elements):
        for (index, element) in elements.enumerated().reversed() {
          if case .array = element {} else if case .object = element {} else if case .number = element {} else {
            continue  // leaves that cannot be out of range need no path
          }
          stack.append((element, paths.child(path, .index(index))))
        }
      case .object(let members):
        for member in members.reversed() {
          switch member.value {
          case .array, .object, .number: stack.append((member.value, paths.child(path, .key(member.key))))
          default: continue
          }
        }
      case .number(let text):
        let isInteger = !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") })
        if !isInteger && value._inexactDouble == nil {
          throw Failure(
            .shape,
            "\(paths.render(path)): the number \(JSONText.shown(.string(text), limit: 64).dropFirst().dropLast()) is beyond the range "
              + "of a double; a scenario's numbers with a fraction or exponent are doubles")
        }
      default:
        continue
      }
    }
  }

  /// A string of the format itself: no U+0000 (C runners pass it as a C string).
  func formatString(_ value: JSONValue, at path: Int, what: String) throws(Failure) -> String {
    guard case .string(let text) = value, !text.utf8.contains(0) else {
      throw Failure(.shape, "\(paths.render(path)): expected \(what) (a string without U+0000), found \(shown(value))")
    }
    return text
  }

  /// `name` and `feature`: runners print them on their result line, so no control or format
  /// character (`_escapedInMessages`) may end that line early, forge another one, drive the
  /// terminal or reorder the line, and at most `nameLimit` bytes are printed.
  func nonEmptyString(_ value: JSONValue, at path: Int) throws(Failure) -> String {
    guard case .string(let text) = value, !text.isEmpty,
      !text.unicodeScalars.contains(where: _escapedInMessages)
    else {
      throw Failure(
        .shape,
        "\(paths.render(path)): expected a non-empty string without control or format characters, found \(shown(value))")
    }
    guard text.utf8.count <= ScenarioFormat.nameLimit else {
      throw Failure(
        .shape,
        "\(paths.render(path)): expected at most \(ScenarioFormat.nameLimit) bytes (runners print it on their result "
          + "line), found a string of \(text.utf8.count) bytes")
    }
    return text
  }

  // MARK: Options

  mutating func options(_ given: JSONValue?) throws(Failure) -> JSONValue {
    var clock: JSONValue = "test"
    var initialState: JSONValue = .null
    var provide: [JSONValue] = []
    guard let given else {
      return .object([("clock", clock), ("initial_state", initialState), ("provide", .array(provide))])
    }
    let path = paths.child(JSONPathTree.root, .key("options"))
    guard case .object(let members) = given else {
      throw Failure(.shape, "$.options: expected an object, found \(shown(given))")
    }
    for member in members where !ScenarioFormat.optionKeys.contains(where: { $0.sameBytes(member.key) }) {
      throw Failure(
        .shape,
        "unknown key \(quoted(member.key)) at $.options\(WireMessage.didYouMean(member.key, among: ScenarioFormat.optionKeys)); "
          + "expected \(ScenarioFormat.optionKeys.joined(separator: ", "))")
    }
    if let value = given["clock"] {
      guard value == "test" || value == "live" else {
        throw Failure(.shape, "$.options.clock: expected \"test\" or \"live\", found \(shown(value))")
      }
      clock = value
    }
    if let value = given["initial_state"] {
      switch value {
      case .null, .object: initialState = value
      default: throw Failure(.shape, "$.options.initial_state: expected an object or null, found \(shown(value))")
      }
    }
    if let value = given["provide"] {
      guard case .array(let names) = value else {
        throw Failure(.shape, "$.options.provide: expected an array of endpoint names, found \(shown(value))")
      }
      let provided = paths.child(path, .key("provide"))
      var seen: [String] = []
      for (index, name) in names.enumerated() {
        let at = paths.child(provided, .index(index))
        let text = try formatString(name, at: at, what: "an endpoint name")
        if seen.contains(where: { $0.sameBytes(text) }) {
          throw Failure(.shape, "\(paths.render(at)): \(quoted(text)) is given twice")
        }
        seen.append(text)
        provide.append(name)
      }
    }
    return .object([("clock", clock), ("initial_state", initialState), ("provide", .array(provide))])
  }

  // MARK: Steps

  mutating func step(_ step: JSONValue, at path: Int) throws(Failure) -> JSONValue {
    let kindsList = ScenarioFormat.stepKinds.joined(separator: ", ")
    guard case .object(let members) = step else {
      throw Failure(
        .shape, "malformed step at \(paths.render(path)): expected an object with exactly one of \(kindsList), found \(shown(step))")
    }
    let kinds = members.filter { member in ScenarioFormat.stepKinds.contains(where: { $0.sameBytes(member.key) }) }
    guard kinds.count == 1, let kind = ScenarioFormat.stepKinds.first(where: { $0.sameBytes(kinds[0].key) }) else {
      throw Failure(
        .shape, "malformed step at \(paths.render(path)): a step has exactly one of \(kindsList); found \(shown(step))")
    }
    for member in members where !member.key.sameBytes(kind) {
      guard let extra = ScenarioFormat.stepExtras.first(where: { $0.key.sameBytes(member.key) }),
        extra.kinds.contains(kind)
      else {
        throw Failure(
          .shape,
          "malformed step at \(paths.render(path)): unknown key \(quoted(member.key)) in a \(kind) step; \"state\" "
            + "belongs to send and receive, \"response\" to resolve, \"message\" to fail, \"error\" to send, "
            + "resolve and fail")
      }
    }
    if kind == "send", step["state"] != nil, step["error"] != nil {
      throw Failure(.shape, "malformed step at \(paths.render(path)): a send step has \"state\" or \"error\", not both")
    }
    let value = step[kind]!
    let valuePath = paths.child(path, .key(kind))
    var normal: [(key: String, value: JSONValue)] = []
    switch kind {
    case "send", "receive":
      normal.append((kind, value))
    case "advance_ms":
      guard let ms = ScenarioFormat.wholeNumber(value, max: UInt64(Int64.max)) else {
        throw Failure(
          .shape,
          "malformed step at \(paths.render(valuePath)): expected a whole number of milliseconds from 0 to "
            + "\(Int64.max), found \(shown(value))")
      }
      normal.append((kind, .int(Int64(ms))))
    case "request":
      normal.append((kind, try request(value, at: valuePath)))
    case "resolve", "fail", "cancelled":
      normal.append((kind, try requestID(value, at: valuePath)))
    default:  // finish
      guard value == .bool(true) else {
        throw Failure(.shape, "malformed step at \(paths.render(valuePath)): expected true, found \(shown(value))")
      }
      normal.append((kind, value))
    }
    if kind == "resolve", step["response"] == nil {
      throw Failure(.shape, "malformed step at \(paths.render(path)): a resolve step needs a \"response\"")
    }
    if kind == "fail", step["message"] == nil {
      throw Failure(.shape, "malformed step at \(paths.render(path)): a fail step needs a \"message\"")
    }
    if let state = step["state"], state != .null {
      normal.append(("state", state))
    }
    if let response = step["response"] {
      normal.append(("response", response))
    }
    if let message = step["message"] {
      let at = paths.child(path, .key("message"))
      _ = try formatStringInStep(message, at: at, what: "the failure's message")
      normal.append(("message", message))
    }
    if let error = step["error"] {
      let at = paths.child(path, .key("error"))
      normal.append(("error", try self.error(error, at: at)))
    }
    return .object(normal)
  }

  func requestID(_ value: JSONValue, at path: Int) throws(Failure) -> JSONValue {
    guard let id = ScenarioFormat.requestID(value) else {
      throw Failure(
        .shape,
        "malformed step at \(paths.render(path)): expected a request id, a whole number from 1 to "
          + "\(UInt64.max), found \(shown(value))")
    }
    return id <= UInt64(Int64.max) ? .int(Int64(id)) : .number(String(id))
  }

  mutating func request(_ value: JSONValue, at path: Int) throws(Failure) -> JSONValue {
    let shape = "{\"name\": \"...\", \"payload\": ..., \"id\": N (optional)}"
    guard case .object(let members) = value else {
      throw Failure(.shape, "malformed step at \(paths.render(path)): expected \(shape), found \(shown(value))")
    }
    for member in members where !["id", "name", "payload"].contains(where: { $0.sameBytes(member.key) }) {
      throw Failure(
        .shape,
        "malformed step at \(paths.render(path)): unknown key \(quoted(member.key)); a request has only "
          + "\"id\", \"name\" and \"payload\"")
    }
    for key in ["name", "payload"] where value[key] == nil {
      throw Failure(.shape, "malformed step at \(paths.render(path)): missing \"\(key)\"; a request is \(shape)")
    }
    let namePath = paths.child(path, .key("name"))
    let name = try formatStringInStep(value["name"]!, at: namePath, what: "an endpoint name")
    var normal: [(key: String, value: JSONValue)] = [("name", .string(name)), ("payload", value["payload"]!)]
    if let id = value["id"] {
      let at = paths.child(path, .key("id"))
      normal.append(("id", try requestID(id, at: at)))
    }
    return .object(normal)
  }

  mutating func error(_ value: JSONValue, at path: Int) throws(Failure) -> JSONValue {
    let shape = "{\"status\": \"RK_ERR_...\", \"message\": \"a fragment\" (optional)}"
    guard case .object(let members) = value else {
      throw Failure(.shape, "malformed step at \(paths.render(path)): expected \(shape), found \(shown(value))")
    }
    for member in members where !member.key.sameBytes("status") && !member.key.sameBytes("message") {
      throw Failure(
        .shape,
        "malformed step at \(paths.render(path)): unknown key \(quoted(member.key)); an error has only "
          + "\"status\" and \"message\"")
    }
    guard let status = value["status"] else {
      throw Failure(.shape, "malformed step at \(paths.render(path)): missing \"status\"; an error is \(shape)")
    }
    guard case .string(let name) = status, ScenarioFormat.statuses.contains(where: { $0.sameBytes(name) }) else {
      let at = paths.child(path, .key("status"))
      throw Failure(
        .shape,
        "malformed step at \(paths.render(at)): expected one of "
          + "\(ScenarioFormat.statuses.joined(separator: ", ")), found \(shown(status))")
    }
    var normal: [(key: String, value: JSONValue)] = [("status", status)]
    if let message = value["message"] {
      let at = paths.child(path, .key("message"))
      _ = try formatStringInStep(message, at: at, what: "a fragment of the message")
      normal.append(("message", message))
    }
    return .object(normal)
  }

  /// `formatString` for a member of a step: the message says "malformed step".
  func formatStringInStep(_ value: JSONValue, at path: Int, what: String) throws(Failure) -> String {
    do {
      return try formatString(value, at: path, what: what)
    } catch {
      throw Failure(.shape, "malformed step at " + error.message)
    }
  }
}
