/// An error from parsing, encoding or decoding wire JSON.
///
/// `description` is a complete sentence naming where and what went wrong:
///
/// ```
/// unknown action "incremnt" at $ (did you mean "increment"?); expected one of: "increment", "decrement", {"setCount": <int>}
/// expected Int at $.setCount, found string "x"
/// missing key "title" at $.addTodo
/// unknown key "titel" at $.addTodo.titel (did you mean "title"?); expected keys at $.addTodo: "title"
/// duplicate key "title" at $.addTodo.title (line 1, column 28, byte offset 27)
/// expected ',' or '}' after object member at $.todos[3] (line 1, column 50, byte offset 49), found 'x'
/// ```
///
/// Input quoted in a message is JSON-escaped and cut after 64 characters.
public struct WireError: Error, CustomStringConvertible, Sendable, Equatable {
  /// What kind of problem this is.
  public enum Kind: String, Sendable, Equatable, CaseIterable {
    /// The input is not JSON (RFC 8259).
    case syntax
    /// The input is not valid UTF-8.
    case invalidUTF8
    /// Arrays and objects are nested deeper than the limit.
    case tooDeep
    /// An object has the same key twice.
    case duplicateKey
    /// An object has a key the type does not know (a typo, or a field of another version).
    case unknownKey
    /// A value has the wrong JSON type (or a number is out of range for the Swift type).
    case typeMismatch
    /// An enum value names no case of the enum.
    case unknownCase
    /// A required object key is absent.
    case missingKey
    /// Any other value the type rejects (including errors thrown by custom `Codable` code
    /// and values the encoder cannot represent, such as `Double.nan`).
    case invalidValue
  }

  /// What kind of problem this is.
  public let kind: Kind
  /// Where it is, as a JSONPath starting at `$` (e.g. `$.todos[3].title`).
  public let path: String
  /// The full human-readable message; the same text as `description`.
  public let message: String
  /// For input errors found while parsing: the byte offset into the input.
  public let offset: Int?
  /// For input errors found while parsing: 1-based line of `offset`.
  public let line: Int?
  /// For input errors found while parsing: 1-based column (in characters) of `offset`.
  public let column: Int?
  /// For `.unknownCase`: the valid cases in wire form (e.g. `["\"increment\"",
  /// "{\"setCount\": <int>}"]`, see `caseSignatures(of:)`), when known. For `.unknownKey`: the
  /// keys the object may have.
  public let expected: [String]

  public var description: String { message }

  init(
    kind: Kind, path: String, message: String, offset: Int? = nil, line: Int? = nil,
    column: Int? = nil, expected: [String] = []
  ) {
    self.kind = kind
    self.path = path
    self.message = message
    self.offset = offset
    self.line = line
    self.column = column
    self.expected = expected
  }
}

// MARK: - Describing JSON values in messages

extension JSONValue {
  /// A short description for messages: `string "x"`, `number 1.5`, `null`, `object`, …
  var _foundDescription: String {
    switch self {
    case .null: return "null"
    case .bool(let b): return "boolean \(b)"
    case .int(let i): return "number \(i)"
    case .double(let d): return "number \(d)"
    case .number(let text): return "number \(_truncated(text, to: 40))"
    case .string(let s): return "string \(_quoted(s, limit: 40))"
    case .array(let a): return a.isEmpty ? "empty array" : "array"
    case .object(let o): return o.isEmpty ? "empty object" : "object"
    }
  }
}
