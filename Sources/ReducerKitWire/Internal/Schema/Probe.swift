// The probing decoder behind `jsonSchema(for:)` and `caseSignatures(of:)`: runs
// `init(from:)` answering every request with a placeholder while recording the requests.

// MARK: - Probe session

/// A type whose JSON Schema is given instead of probed: one whose `init(from:)` refuses part
/// of what it reads (a range of numbers), which the probe cannot see.
package protocol _WireSchemaProviding {
  /// The schema of the type's JSON, as `jsonSchema(for:)` writes it.
  static var _wireSchema: JSONValue { get }
}

struct _CaseInfo {
  var name: String
  var signature: String
  var schema: JSONValue
}

enum _ProbeMode {
  /// Record what is asked, to describe the type.
  case schema
  /// Only produce a value, with as little work (and recursion) as possible.
  case dummy
}

struct _ProbeExhausted: Error {}
struct _ProbeCycle: Error {}

/// One schema or signature computation: caches and recursion guards.
final class _ProbeSession {
  private var schemaStack: [ObjectIdentifier] = []
  private var schemaCache: [ObjectIdentifier: JSONValue] = [:]
  private var dummyDepth: [ObjectIdentifier: Int] = [:]
  private var dummyCache: [ObjectIdentifier: Any] = [:]
  /// Requests left before probing gives up (guards against inits that loop).
  private var budget = 200_000
  /// Whether a `WireCodable` type's keys come from its shape (else from A2/A3, as for other
  /// types: tests compare the two).
  let keysFromShapes: Bool

  init(keysFromShapes: Bool = true) {
    self.keysFromShapes = keysFromShapes
  }

  func spend() throws {
    budget -= 1
    if budget < 0 { throw _ProbeExhausted() }
  }

  func schema<T: Decodable>(of type: T.Type) -> JSONValue {
    if let primitive = _primitiveSchema(T.self) { return primitive }
    let id = ObjectIdentifier(T.self)
    if let cached = schemaCache[id] { return cached }
    if let given = T.self as? any _WireSchemaProviding.Type {
      schemaCache[id] = given._wireSchema
      return given._wireSchema
    }
    if schemaStack.contains(id) {
      return ["$comment": .string("recursive reference to \(_typeName(T.self))")]
    }
    schemaStack.append(id)
    defer { schemaStack.removeLast() }
    let result: JSONValue
    if let values = _payloadlessValues(T.self) {
      result = _enumSchema(values)
    } else if let cases = probeCases(T.self) {
      result = ["oneOf": .array(cases.map(\.schema))]
    } else {
      let root = _ProbeNode()
      _ = try? run(T.self, mode: .schema, node: root, forcedCase: 0)
      result = root.schema
    }
    schemaCache[id] = result
    return result
  }

  /// The cases of an enum `T`, or nil when `T` is not an enum whose cases can be listed.
  func enumCases<T: Decodable>(of type: T.Type) -> [_CaseInfo]? {
    if let values = _payloadlessValues(T.self) {
      return values.map { value in
        let name: String
        if case .string(let s) = value { name = s } else { name = value.serialized() }
        return _CaseInfo(name: name, signature: value.serialized(), schema: ["const": value])
      }
    }
    return probeCases(T.self)
  }

  /// Probes an enum with a keyed container once per case of its coding keys.
  private func probeCases<T: Decodable>(_ type: T.Type) -> [_CaseInfo]? {
    guard _typeIsEnum(T.self) else { return nil }
    let first = _ProbeNode()
    _ = try? run(T.self, mode: .schema, node: first, forcedCase: 0)
    guard first.switchesOnKeys, let names = first.caseNames, !names.isEmpty else { return nil }
    var cases = [_caseInfo(name: names[0], payload: first.payload)]
    for i in 1..<names.count {
      let node = _ProbeNode()
      _ = try? run(T.self, mode: .schema, node: node, forcedCase: i)
      cases.append(_caseInfo(name: names[i], payload: node.payload))
    }
    return cases
  }

  @discardableResult
  func run<T: Decodable>(_ type: T.Type, mode: _ProbeMode, node: _ProbeNode, forcedCase: Int) throws -> T {
    let decoder = _ProbeDecoder(
      session: self, mode: mode, node: node, forcedCase: forcedCase, isEnum: _typeIsEnum(T.self),
      owner: keysFromShapes ? T.self : nil)
    return try T(from: decoder)
  }

  /// A placeholder `T`.
  func dummy<T: Decodable>(_ type: T.Type) throws -> T {
    try spend()
    if let value = _primitiveDummy(T.self) { return value }
    if let cases = _valuesIfPayloadless(of: T.self) {
      guard let first = cases.first else { throw _ProbeCycle() }  // uninhabited
      return first
    }
    let id = ObjectIdentifier(T.self)
    if let cached = dummyCache[id] as? T { return cached }
    let depth = dummyDepth[id, default: 0]
    guard depth < 3 else { throw _ProbeCycle() }
    dummyDepth[id] = depth + 1
    defer { dummyDepth[id] = depth }
    var lastError: any Error = _ProbeCycle()
    var attempt = 0
    while attempt < 64 {
      let node = _ProbeNode()
      do {
        let value: T = try run(T.self, mode: .dummy, node: node, forcedCase: attempt)
        dummyCache[id] = value
        return value
      } catch is _ProbeExhausted {
        throw _ProbeExhausted()
      } catch {
        lastError = error
      }
      // Retry with the next case of an enum (the first may recurse or fail).
      guard node.switchesOnKeys, let names = node.caseNames, attempt + 1 < names.count else { break }
      attempt += 1
    }
    throw lastError
  }
}

/// The case description from a case's payload node. `signature` is the wire form a host
/// types, with placeholders: `"increment"`, `{"setCount": <int>}`,
/// `{"addTodo": {"title": <string>}}`, `{"move": [<int>, <int>]}`.
private func _caseInfo(name: String, payload: _ProbeNode?) -> _CaseInfo {
  let wrap = { (value: JSONValue) -> JSONValue in
    [
      "type": "object", "properties": .object([(key: name, value: value)]),
      "required": [.string(name)], "additionalProperties": false,
    ]
  }
  let quotedName = JSONValue.string(name).serialized()
  guard let payload, payload.kind == .object, !payload.properties.isEmpty else {
    // Also accepted: `{"name": {}}` and `{"name": null}`.
    let objectForm = wrap(["type": ["object", "null"], "maxProperties": 0])
    return _CaseInfo(
      name: name, signature: quotedName,
      schema: ["anyOf": [["const": .string(name)], objectForm]])
  }
  let properties = payload.properties
  let positional = properties.enumerated().allSatisfy { _positionalIndex($1.name) == $0 }
  let value: JSONValue
  let shape: String
  if positional, properties.count == 1 {
    value = properties[0].renderedSchema
    shape = _placeholder(properties[0])
  } else if positional {
    value = [
      "type": "array", "prefixItems": .array(properties.map(\.renderedSchema)),
      "minItems": .int(Int64(properties.count)), "maxItems": .int(Int64(properties.count)),
    ]
    shape = "[" + properties.map(_placeholder).joined(separator: ", ") + "]"
  } else {
    value = payload.schema
    shape = "{" + properties.map { "\(JSONValue.string($0.name).serialized()): \(_placeholder($0))" }
      .joined(separator: ", ") + "}"
  }
  return _CaseInfo(name: name, signature: "{\(quotedName): \(shape)}", schema: wrap(value))
}

/// How a value shows in a wire-form signature: `<int>`, `<string|null>`, `[<int>]`, `<Todo>`.
private func _placeholder(_ property: _ProbeNode.Property) -> String {
  var name = property.typeName
  var optional = !property.required || property.nullable
  if name.hasSuffix("?") {
    name.removeLast()
    optional = true
  }
  return _placeholder(typeName: name, optional: optional)
}

private func _placeholder(typeName name: String, optional: Bool) -> String {
  let suffix = optional ? "|null" : ""
  if name.hasPrefix("["), name.hasSuffix("]"), !name.contains(":") {
    let element = String(name.dropFirst().dropLast())
    let inner = element.hasSuffix("?")
      ? _placeholder(typeName: String(element.dropLast()), optional: true)
      : _placeholder(typeName: element, optional: false)
    return optional ? "[\(inner)]|null" : "[\(inner)]"
  }
  let basic: String
  switch name {
  case "Int", "Int8", "Int16", "Int32", "Int64", "Int128", "UInt", "UInt8", "UInt16", "UInt32",
    "UInt64", "UInt128":
    basic = "int"
  case "String": basic = "string"
  case "Bool": basic = "bool"
  case "Double", "Float": basic = "number"
  case "JSON", "JSONValue": basic = "json"
  default: basic = name
  }
  return "<\(basic)\(suffix)>"
}

// MARK: - Recording

/// What one value's `init(from:)` asked for.
final class _ProbeNode {
  enum Kind { case unknown, object, array, single }

  struct Property {
    var name: String
    var value: _ProbeValue
    var required: Bool
    var nullable: Bool
    var typeName: String { value.typeName }
    var renderedSchema: JSONValue { nullable ? _nullable(value.schema) : value.schema }
  }

  var kind = Kind.unknown
  var properties: [Property] = []
  /// Schema for the values of a dictionary-like object.
  var additional: _ProbeValue?
  /// Every key a keyed container's `CodingKey` enum knows: the decoder rejects any other.
  var closedKeys: [String]?
  /// The key presented as the only key of a dictionary-like object.
  var dynamicKey: String?
  var items: [_ProbeValue] = []
  var single: _ProbeValue?
  var nullable = false
  // Enum with a keyed container:
  var caseNames: [String]?
  var switchesOnKeys = false
  var payload: _ProbeNode?

  func setProperty(_ name: String, _ value: _ProbeValue?, required: Bool, nullable: Bool = false) {
    if let i = properties.firstIndex(where: { $0.name == name }) {
      if let value { properties[i].value = value }
      properties[i].required = properties[i].required && required
      properties[i].nullable = properties[i].nullable || nullable
    } else {
      properties.append(
        Property(name: name, value: value ?? .schema([:], typeName: "JSON"), required: required, nullable: nullable))
    }
  }

  var schema: JSONValue {
    var result: JSONValue
    switch kind {
    case .unknown:
      result = [:]
    case .object:
      var members: [(key: String, value: JSONValue)] = [(key: "type", value: "object")]
      var listed = properties.map { (key: $0.name, value: $0.renderedSchema) }
      if let closedKeys, additional == nil {
        // Keys the type knows but its `init(from:)` never read are accepted with any value.
        for key in closedKeys where !properties.contains(where: { $0.name == key }) {
          listed.append((key: key, value: [:]))
        }
      }
      if !listed.isEmpty {
        members.append((key: "properties", value: .object(listed)))
        let required = properties.filter(\.required).map { JSONValue.string($0.name) }
        if !required.isEmpty { members.append((key: "required", value: .array(required))) }
      }
      if let additional {
        members.append((key: "additionalProperties", value: additional.schema))
      } else if closedKeys != nil {
        members.append((key: "additionalProperties", value: false))
      }
      result = .object(members)
    case .array:
      switch items.count {
      case 0: result = ["type": "array"]
      case 1: result = ["type": "array", "items": items[0].schema]
      default: result = ["type": "array", "prefixItems": .array(items.map(\.schema))]
      }
    case .single:
      result = single?.schema ?? [:]
    }
    return nullable ? _nullable(result) : result
  }
}

enum _ProbeValue {
  case schema(JSONValue, typeName: String)
  case node(_ProbeNode, typeName: String)

  var schema: JSONValue {
    switch self {
    case .schema(let s, _): return s
    case .node(let n, _): return n.schema
    }
  }

  var typeName: String {
    switch self {
    case .schema(_, let name), .node(_, let name): return name
    }
  }
}

/// `schema` that also accepts null.
func _nullable(_ schema: JSONValue) -> JSONValue {
  guard case .object(var members) = schema, !members.isEmpty else { return schema }
  if members.contains(where: { $0.key == "enum" || $0.key == "const" || $0.key == "oneOf" || $0.key == "$comment" }) {
    return ["anyOf": [schema, ["type": "null"]]]
  }
  if let i = members.firstIndex(where: { $0.key == "type" }) {
    switch members[i].value {
    case .string(let type):
      members[i].value = [.string(type), "null"]
    case .array(var types):
      if !types.contains("null") { types.append("null") }
      members[i].value = .array(types)
    default:
      break
    }
    return .object(members)
  }
  return ["anyOf": [schema, ["type": "null"]]]
}

// MARK: - Primitives

private func _integerSchema(minimum: JSONValue, maximum: JSONValue) -> JSONValue {
  ["type": "integer", "minimum": minimum, "maximum": maximum]
}

private func _bound<I: FixedWidthInteger>(_ value: I) -> JSONValue {
  if let small = Int64(exactly: value) { return .int(small) }
  return .number(String(value))
}

private func _integerSchema<I: FixedWidthInteger>(_ type: I.Type) -> JSONValue {
  _integerSchema(minimum: _bound(I.min), maximum: _bound(I.max))
}

/// Schemas of the scalar types the decoder reads directly. Integers carry their exact range:
/// the decoder rejects values outside it.
func _primitiveSchema(_ type: Any.Type) -> JSONValue? {
  switch type {
  case is Bool.Type: return ["type": "boolean"]
  case is String.Type: return ["type": "string"]
  case is Double.Type, is Float.Type: return ["type": "number"]
  case is Int.Type: return _integerSchema(Int.self)
  case is Int64.Type: return _integerSchema(Int64.self)
  case is Int128.Type: return _integerSchema(Int128.self)
  case is Int8.Type: return _integerSchema(Int8.self)
  case is Int16.Type: return _integerSchema(Int16.self)
  case is Int32.Type: return _integerSchema(Int32.self)
  case is UInt8.Type: return _integerSchema(UInt8.self)
  case is UInt16.Type: return _integerSchema(UInt16.self)
  case is UInt32.Type: return _integerSchema(UInt32.self)
  case is UInt.Type: return _integerSchema(UInt.self)
  case is UInt64.Type: return _integerSchema(UInt64.self)
  case is UInt128.Type: return _integerSchema(UInt128.self)
  case is JSONValue.Type: return [:]
  default: return nil
  }
}

func _primitiveDummy<T>(_ type: T.Type) -> T? {
  switch T.self {
  case is Bool.Type: return false as? T
  case is String.Type: return "" as? T
  case is Double.Type: return 0.0 as? T
  case is Float.Type: return Float(0) as? T
  case is Int.Type: return 0 as? T
  case is Int8.Type: return Int8(0) as? T
  case is Int16.Type: return Int16(0) as? T
  case is Int32.Type: return Int32(0) as? T
  case is Int64.Type: return Int64(0) as? T
  case is Int128.Type: return Int128(0) as? T
  case is UInt.Type: return UInt(0) as? T
  case is UInt8.Type: return UInt8(0) as? T
  case is UInt16.Type: return UInt16(0) as? T
  case is UInt32.Type: return UInt32(0) as? T
  case is UInt64.Type: return UInt64(0) as? T
  case is UInt128.Type: return UInt128(0) as? T
  case is JSONValue.Type: return JSONValue.null as? T
  default: return nil
  }
}

/// The encoded value of every case of a payload-less `Encodable` enum, or nil.
func _payloadlessValues<T>(_ type: T.Type) -> [JSONValue]? {
  guard let cases = _valuesIfPayloadless(of: T.self), !cases.isEmpty else { return nil }
  var values: [JSONValue] = []
  for value in cases {
    guard let encodable = value as? any Encodable,
      let json = try? WireEncoder().encodeToJSONValue(encodable)
    else { return nil }
    values.append(json)
  }
  return values
}

private func _enumSchema(_ values: [JSONValue]) -> JSONValue {
  if values.allSatisfy({ if case .string = $0 { true } else { false } }) {
    return ["type": "string", "enum": .array(values)]
  }
  if values.allSatisfy({ if case .int = $0 { true } else { false } }) {
    return ["type": "integer", "enum": .array(values)]
  }
  return ["enum": .array(values)]
}

// MARK: - Probing decoder

final class _ProbeDecoder: Decoder {
  let session: _ProbeSession
  let mode: _ProbeMode
  let node: _ProbeNode
  let forcedCase: Int
  let isEnum: Bool
  /// The type whose `init(from:)` is probed (nil: a nested value's decoder): a
  /// `WireCodable` one's shape lists its keys.
  let owner: Any.Type?

  init(session: _ProbeSession, mode: _ProbeMode, node: _ProbeNode, forcedCase: Int, isEnum: Bool, owner: Any.Type? = nil) {
    self.session = session
    self.mode = mode
    self.node = node
    self.forcedCase = forcedCase
    self.isEnum = isEnum
    self.owner = owner
  }

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    try session.spend()
    node.kind = .object
    var cases: [Key]?
    let keys = _wireCodingKeys(Key.self, owner: owner, caseName: nil) ?? _codingKeyCases(of: Key.self)
    if isEnum {
      cases = keys
      node.caseNames = cases?.map(\.stringValue)
    } else {
      node.closedKeys = keys?.map(\.stringValue)
    }
    return KeyedDecodingContainer(_ProbeKeyed<Key>(decoder: self, node: node, enumCases: cases))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try session.spend()
    node.kind = .array
    return _ProbeUnkeyed(decoder: self, node: node)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    try session.spend()
    node.kind = .single
    return _ProbeSingle(decoder: self, node: node)
  }

  var recording: Bool { mode == .schema }

  /// Records (in schema mode) and returns a placeholder `T`.
  func value<T: Decodable>(_ type: T.Type, record: (_ProbeValue) -> Void) throws -> T {
    try session.spend()
    if recording {
      record(.schema(session.schema(of: T.self), typeName: _typeName(T.self)))
    }
    return try session.dummy(T.self)
  }

  func child(_ kind: _ProbeNode.Kind) -> _ProbeNode {
    let node = _ProbeNode()
    node.kind = kind
    return node
  }
}

struct _ProbeKeyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: _ProbeDecoder
  let node: _ProbeNode
  /// The keys of an enum's root container, one presented per run.
  let enumCases: [Key]?

  var codingPath: [any CodingKey] { [] }

  var allKeys: [Key] {
    if let enumCases {
      node.switchesOnKeys = true
      return decoder.forcedCase < enumCases.count ? [enumCases[decoder.forcedCase]] : []
    }
    // A container that takes any key (a dictionary): show one, to learn the value type.
    if decoder.recording, let key = Key(stringValue: "0") {
      node.dynamicKey = "0"
      return [key]
    }
    return []
  }

  func record(_ key: Key, _ value: _ProbeValue?, required: Bool, nullable: Bool = false) {
    guard decoder.recording else { return }
    let name = key.stringValue
    if enumCases == nil, node.dynamicKey == name {
      if let value { node.additional = value }
      return
    }
    node.setProperty(name, value, required: required, nullable: nullable)
  }

  func contains(_ key: Key) -> Bool {
    record(key, nil, required: false)
    return decoder.recording
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    try decoder.session.spend()
    record(key, nil, required: false, nullable: true)
    return !decoder.recording
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try decoder.value(T.self) { record(key, $0, required: true) }
  }

  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    try decoder.session.spend()
    if decoder.recording {
      record(key, .schema(decoder.session.schema(of: T.self), typeName: _typeName(T.self)), required: false, nullable: true)
    }
    return nil
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    try decoder.session.spend()
    let child = decoder.child(.object)
    // An enum's case payload: its keys from a `WireCodable` enum's shape.
    let owner = enumCases != nil ? decoder.owner : nil
    child.closedKeys =
      (_wireCodingKeys(NestedKey.self, owner: owner, caseName: key.stringValue) ?? _codingKeyCases(of: NestedKey.self))?
      .map(\.stringValue)
    record(key, .node(child, typeName: "object"), required: true)
    if enumCases != nil { node.payload = child }
    return KeyedDecodingContainer(_ProbeKeyed<NestedKey>(decoder: decoder, node: child, enumCases: nil))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try decoder.session.spend()
    let child = decoder.child(.array)
    record(key, .node(child, typeName: "array"), required: true)
    return _ProbeUnkeyed(decoder: decoder, node: child)
  }

  func superDecoder() throws -> any Decoder {
    try decoder.session.spend()
    let child = decoder.child(.unknown)
    if decoder.recording { node.setProperty("super", .node(child, typeName: "object"), required: true) }
    return _ProbeDecoder(session: decoder.session, mode: decoder.mode, node: child, forcedCase: 0, isEnum: false)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    try decoder.session.spend()
    let child = decoder.child(.unknown)
    record(key, .node(child, typeName: "object"), required: true)
    return _ProbeDecoder(session: decoder.session, mode: decoder.mode, node: child, forcedCase: 0, isEnum: false)
  }
}

struct _ProbeUnkeyed: UnkeyedDecodingContainer {
  let decoder: _ProbeDecoder
  let node: _ProbeNode
  var currentIndex = 0

  init(decoder: _ProbeDecoder, node: _ProbeNode) {
    self.decoder = decoder
    self.node = node
  }

  var codingPath: [any CodingKey] { [] }
  /// Schema mode shows one element (to learn its type); dummy mode none.
  var count: Int? { decoder.recording ? 1 : 0 }
  var isAtEnd: Bool { currentIndex >= (count ?? 0) }

  mutating func decodeNil() throws -> Bool {
    try decoder.session.spend()
    return false
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let node = self.node
    let value = try decoder.value(T.self) { node.items.append($0) }
    currentIndex += 1
    return value
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    try decoder.session.spend()
    let child = decoder.child(.object)
    child.closedKeys = _codingKeyCases(of: NestedKey.self)?.map(\.stringValue)
    if decoder.recording { node.items.append(.node(child, typeName: "object")) }
    currentIndex += 1
    return KeyedDecodingContainer(_ProbeKeyed<NestedKey>(decoder: decoder, node: child, enumCases: nil))
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try decoder.session.spend()
    let child = decoder.child(.array)
    if decoder.recording { node.items.append(.node(child, typeName: "array")) }
    currentIndex += 1
    return _ProbeUnkeyed(decoder: decoder, node: child)
  }

  mutating func superDecoder() throws -> any Decoder {
    try decoder.session.spend()
    let child = decoder.child(.unknown)
    if decoder.recording { node.items.append(.node(child, typeName: "object")) }
    currentIndex += 1
    return _ProbeDecoder(session: decoder.session, mode: decoder.mode, node: child, forcedCase: 0, isEnum: false)
  }
}

struct _ProbeSingle: SingleValueDecodingContainer {
  let decoder: _ProbeDecoder
  let node: _ProbeNode

  var codingPath: [any CodingKey] { [] }

  func decodeNil() -> Bool {
    if decoder.recording {
      node.nullable = true
      return false
    }
    return true
  }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let node = self.node
    return try decoder.value(T.self) { node.single = $0 }
  }
}
