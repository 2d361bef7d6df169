import Synchronization

/// A JSON Schema (draft 2020-12) for the wire form of `T`.
///
/// ```swift
/// jsonSchema(for: Counter.Action.self)
/// // {"$schema":…,"oneOf":[{"const":"increment"},
/// //   {"type":"object","properties":{"setCount":{"type":"integer"}},
/// //    "required":["setCount"],"additionalProperties":false}]}
/// ```
///
/// Found by running `T.init(from:)` against a probing decoder that answers every request
/// with a placeholder value and records what was asked: keyed containers become objects
/// (keys read with `decodeIfPresent` are optional), unkeyed containers arrays, enums with
/// associated values a `oneOf` with one entry per case in the wire form, payload-less enums
/// (including `String` raw-value enums) an `enum` of their encoded values. Recursive types
/// are cut with a `{"$comment": "recursive reference to …"}` placeholder.
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

/// The cases of enum `T` as shown in messages: `["increment", "setCount(Int)",
/// "addTodo(title: String)", "move(Int, Int)"]`; the encoded values for payload-less enums
/// (`["all", "active"]` for a `String` raw-value enum); empty when `T` is not an enum whose
/// cases can be listed. Computed once per type (probing `init(from:)`), then cached.
public func caseSignatures<T: Decodable>(of type: T.Type) -> [String] {
  let id = ObjectIdentifier(T.self)
  if let cached = _signatureCache.withLock({ $0[id] }) { return cached }
  let signatures = _ProbeSession().enumCases(of: T.self)?.map(\.signature) ?? []
  _signatureCache.withLock { $0[id] = signatures }
  return signatures
}

private let _signatureCache = Mutex<[ObjectIdentifier: [String]]>([:])
