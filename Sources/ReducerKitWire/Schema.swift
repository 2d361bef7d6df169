/// A JSON Schema (draft 2020-12) for the wire form of `T`.
///
/// ```swift
/// jsonSchema(for: Counter.Action.self)
/// // {"$schema":…,"oneOf":[
/// //   {"anyOf":[{"const":"increment"},
/// //     {"type":"object","properties":{"increment":{"type":["object","null"],"maxProperties":0}},
/// //      "required":["increment"],"additionalProperties":false}]},
/// //   {"type":"object","properties":{"setCount":{"type":"integer","minimum":…,"maximum":…}},
/// //    "required":["setCount"],"additionalProperties":false}]}
/// ```
///
/// Found by running `T.init(from:)` against a probing decoder that answers every request
/// with a placeholder value and records what was asked: keyed containers become objects
/// (keys read with `decodeIfPresent` are optional; keys outside a `CodingKey` enum are
/// forbidden, as `WireDecoder` rejects them), unkeyed containers arrays, enums with
/// associated values a `oneOf` with one entry per case in the wire form (a case without
/// values accepts `"name"`, `{"name": {}}` and `{"name": null}`), payload-less enums
/// (including `String` raw-value enums) an `enum` of their encoded values, integers their
/// exact range. Recursive types are cut with a `{"$comment": "recursive reference to …"}`
/// placeholder.
///
/// Limitations: a custom `init(from:)` that validates values (and throws or traps on the
/// placeholders) yields a partial schema; a recorded schema shows what was asked, not every
/// value the type accepts.
public func jsonSchema<T: Decodable>(for type: T.Type) -> JSONValue {
  let schema = _ProbeSession().schema(of: T.self)
  guard case .object(var members) = schema else { return schema }
  members.insert((key: "$schema", value: "https://json-schema.org/draft/2020-12/schema"), at: 0)
  return .object(members)
}

/// The cases of enum `T` in the wire form a host types, with placeholders for values, as
/// shown in messages: `["\"increment\"", "{\"setCount\": <int>}",
/// "{\"addTodo\": {\"title\": <string>}}", "{\"move\": [<int>, <int>]}"]`; the encoded
/// values for payload-less enums (`["\"all\"", "\"active\""]` for a `String` raw-value enum);
/// empty when `T` is not an enum whose cases can be listed. Computed once per type (probing
/// `init(from:)`), then cached.
public func caseSignatures<T: Decodable>(of type: T.Type) -> [String] {
  _cases(of: T.self).signatures
}

/// The case names of enum `T` (`["increment", "setCount"]`), for "did you mean" suggestions.
func _caseNames<T: Decodable>(of type: T.Type) -> [String] {
  if let wire = _wireShaped(T.self), wire._wireIsEnum { return wire._wireCaseNames }
  return _cases(of: T.self).names
}

private func _cases<T: Decodable>(of type: T.Type) -> (names: [String], signatures: [String]) {
  let id = ObjectIdentifier(T.self)
  if let cached = _withWireTables({ _signatureCache[id] }) { return cached }
  let cases = _ProbeSession().enumCases(of: T.self) ?? []
  let result = (names: cases.map(\.name), signatures: cases.map(\.signature))
  _withWireTables { _signatureCache[id] = result }
  return result
}

// `nonisolated(unsafe)`: read and written only inside `_withWireTables` (a pthread mutex, which
// ThreadSanitizer sees; see DirectEncoding.swift).
nonisolated(unsafe) private var _signatureCache: [ObjectIdentifier: (names: [String], signatures: [String])] = [:]
