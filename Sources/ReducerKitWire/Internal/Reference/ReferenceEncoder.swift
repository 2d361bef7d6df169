// The reference encoder: the wire format stated plainly, to check the streaming encoder
// (`_EncoderImpl`) against and to fall back to. It builds a tree of the value, then renders
// the tree in the wire form (`_referenceRender`) and writes it (`_referenceWrite`). No
// byte-level rewrites, no direct paths; its only runtime read is `_referenceIsEnumType` (A1 in
// Internal/ABI/Runtime.swift). It keeps the streaming encoder's contract (each container is
// filled before the next member of its parent is written), so both fail on the same misuse
// with the same message.

/// A value under construction.
final class _RefNode {
  enum Kind {
    /// Nothing written yet (renders as `{}`).
    case empty
    case scalar
    case object
    /// The keyed container of an enum value: its members are cases.
    case enumObject
    /// A case's associated values (a nested keyed container of an enum value).
    case payload
    case array
  }
  var kind = Kind.empty
  var scalar = JSONValue.null
  var members: [(name: String, node: _RefNode)] = []
  var elements: [_RefNode] = []

  func set(_ value: JSONValue) {
    kind = .scalar
    scalar = value
  }
}

/// One `encode` call of the reference encoder.
final class _RefEncoding {
  let explicitNulls: Bool
  /// The first error, kept even if user code catches it.
  var failure: (any Error)?
  /// The containers that may still be written, outermost first.
  var open: [_RefNode] = []

  init(explicitNulls: Bool) {
    self.explicitNulls = explicitNulls
  }

  /// Encodes `value` as a tree in the wire form.
  static func encode<T: Encodable>(_ value: T, explicitNulls: Bool) throws -> JSONValue {
    let encoding = _RefEncoding(explicitNulls: explicitNulls)
    let root = _RefNode()
    try encoding.encode(value, into: root, path: [])
    if let failure = encoding.failure { throw failure }
    return _referenceRender(root)
  }

  @discardableResult
  func record(_ error: any Error) -> any Error {
    if failure == nil { failure = error }
    return error
  }

  @discardableResult
  func misuse(_ problem: String, at path: [_PathEntry]) -> any Error {
    record(_misuseError(problem, at: path))
  }

  /// Makes `node` the innermost open container (finishing those inside it), or fails when
  /// it was finished.
  func reopen(_ node: _RefNode?, at path: [_PathEntry]) throws -> _RefNode {
    guard let node, let i = open.lastIndex(where: { $0 === node }) else {
      throw misuse(_EncoderMisuse.finished, at: path)
    }
    open.removeSubrange((i + 1)...)
    return node
  }

  /// Encodes `value` into `node`, found at `path`.
  func encode<T: Encodable>(_ value: T, into node: _RefNode, path: [_PathEntry]) throws {
    if T.self == JSONValue.self {
      node.set(value as! JSONValue)
      return
    }
    let base = open.count
    let encoder = _RefEncoder(encoding: self, node: node, path: path, isEnum: _referenceIsEnumType(T.self), base: base)
    do {
      try value.encode(to: encoder)
    } catch {
      if open.count > base { open.removeSubrange(base...) }
      throw record(_wrapEncodingError(error, value: value, at: path))
    }
    if open.count > base { open.removeSubrange(base...) }
    if node.kind == .empty { node.kind = .object }  // the value wrote nothing: `{}`
  }

  func double(_ value: Double, at path: [_PathEntry]) throws -> JSONValue {
    guard value.isFinite else {
      throw record(_invalidValueError(value, "Double \(value) is not representable in JSON", at: path))
    }
    return .number(_referenceNumberText(value))
  }

  func float(_ value: Float, at path: [_PathEntry]) throws -> JSONValue {
    guard value.isFinite else {
      throw record(_invalidValueError(value, "Float \(value) is not representable in JSON", at: path))
    }
    return .number(_referenceNumberText(value))
  }
}

/// An integer as a JSON number.
func _referenceInteger<I: BinaryInteger>(_ value: I) -> JSONValue {
  if let small = Int64(exactly: value) { return .int(small) }
  return .number(String(value))
}

/// The shortest text that reads back as `value` (finite): integral values below 10^15
/// (10^7 for `Float`) as `N.0`, others as Swift's shortest round-trip description.
func _referenceNumberText<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F) -> String {
  let limit: F = F.significandBitCount > 23 ? 1e15 : 1e7
  if value.rounded(.towardZero) == value, value.magnitude < limit {
    let sign = value < 0 || (value == 0 && value.sign == .minus) ? "-" : ""
    return sign + String(Int64(value.magnitude)) + ".0"
  }
  return value.description
}

// MARK: - Rendering

/// The wire form of a tree: an enum case without values is a bare string, one unlabeled
/// value is written bare, several unlabeled values as an array, anything else as an object.
func _referenceRender(_ node: _RefNode) -> JSONValue {
  switch node.kind {
  case .empty:
    return .object([])
  case .scalar:
    return node.scalar
  case .array:
    return .array(node.elements.map(_referenceRender))
  case .object:
    return .object(node.members.map { (key: $0.name, value: _referenceRender($0.node)) })
  case .enumObject:
    if node.members.count == 1, node.members[0].node.kind == .payload, node.members[0].node.members.isEmpty {
      return .string(node.members[0].name)
    }
    return .object(node.members.map { (key: $0.name, value: _referenceRender($0.node)) })
  case .payload:
    let names = node.members.map(\.name)
    if names == ["_0"] { return _referenceRender(node.members[0].node) }
    if names.count >= 2, names == names.indices.map({ "_\($0)" }) {
      return .array(node.members.map { _referenceRender($0.node) })
    }
    return .object(node.members.map { (key: $0.name, value: _referenceRender($0.node)) })
  }
}

/// How a new payload member named `name` shows in paths, given the members written so far
/// (`_0` alone is written bare; `_0`, `_1`, … in order form an array).
private func _payloadStyle(_ name: String, after members: [(name: String, node: _RefNode)]) -> _PathStyle {
  if members.isEmpty { return name == "_0" ? .hidden : .key }
  let positional = members.indices.allSatisfy { members[$0].name == "_\($0)" }
  return positional && name == "_\(members.count)" ? .index : .key
}

// MARK: - Writing

/// Compact JSON for a tree: `"`, `\` and control characters escaped (`\n`, `\r`, `\t`, `\b`,
/// `\f`, else `\u00xx`), everything else as is; non-finite doubles as `null`.
func _referenceWrite(_ value: JSONValue, into out: inout [UInt8]) {
  switch value {
  case .null: out += "null".utf8
  case .bool(let b): out += (b ? "true" : "false").utf8
  case .int(let i): out += String(i).utf8
  case .double(let d): out += (d.isFinite ? _referenceNumberText(d) : "null").utf8
  case .number(let text): out += text.utf8
  case .string(let s): _referenceWriteString(s, into: &out)
  case .array(let elements):
    out.append(UInt8(ascii: "["))
    for (i, element) in elements.enumerated() {
      if i > 0 { out.append(UInt8(ascii: ",")) }
      _referenceWrite(element, into: &out)
    }
    out.append(UInt8(ascii: "]"))
  case .object(let members):
    out.append(UInt8(ascii: "{"))
    for (i, member) in members.enumerated() {
      if i > 0 { out.append(UInt8(ascii: ",")) }
      _referenceWriteString(member.key, into: &out)
      out.append(UInt8(ascii: ":"))
      _referenceWrite(member.value, into: &out)
    }
    out.append(UInt8(ascii: "}"))
  }
}

private func _referenceWriteString(_ s: String, into out: inout [UInt8]) {
  out.append(UInt8(ascii: "\""))
  for byte in s.utf8 {
    switch byte {
    case UInt8(ascii: "\""): out += #"\""#.utf8
    case UInt8(ascii: "\\"): out += #"\\"#.utf8
    case 0x0A: out += #"\n"#.utf8
    case 0x0D: out += #"\r"#.utf8
    case 0x09: out += #"\t"#.utf8
    case 0x08: out += #"\b"#.utf8
    case 0x0C: out += #"\f"#.utf8
    case 0..<0x20:
      let hex = Array("0123456789abcdef".utf8)
      out += #"\u00"#.utf8
      out.append(hex[Int(byte >> 4)])
      out.append(hex[Int(byte & 0xF)])
    default: out.append(byte)
    }
  }
  out.append(UInt8(ascii: "\""))
}

// MARK: - The encoder and its containers

struct _RefEncoder: Encoder {
  let encoding: _RefEncoding
  let node: _RefNode
  let path: [_PathEntry]
  let isEnum: Bool
  /// The open-container count when this value's encoding began (its own container, once
  /// open, sits at this index).
  let base: Int
  /// For a super encoder: the container whose member this value is (its slot stays writable
  /// until that container moves on).
  var parent: _RefNode? = nil

  var codingPath: [any CodingKey] { path.map(\.key) }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// The index this value's container has (or gets) among the open ones, or nil when a
  /// super encoder's parent moved on.
  func slotBase() -> Int? {
    guard let parent else { return base }
    guard let i = encoding.open.lastIndex(where: { $0 === parent }),
      parent.members.last?.node === node || parent.elements.last === node
    else { return nil }
    return i + 1
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    guard let base = slotBase() else {
      return _RefKeyed<Key>.failing(encoding, _EncoderMisuse.superMovedOn, path)
    }
    let open = encoding.open
    if open.count > base {
      guard open[base] === node, node.kind == .object || node.kind == .enumObject else {
        return _RefKeyed<Key>.failing(encoding, _EncoderMisuse.keyedOnUnkeyed, path)
      }
      return KeyedEncodingContainer(_RefKeyed<Key>(encoding: encoding, node: node, path: path))
    }
    guard node.kind == .empty, open.count == base else {
      return _RefKeyed<Key>.failing(encoding, _EncoderMisuse.keyedOnEncoded, path)
    }
    node.kind = isEnum && parent == nil ? .enumObject : .object
    encoding.open.append(node)
    return KeyedEncodingContainer(_RefKeyed<Key>(encoding: encoding, node: node, path: path))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    guard let base = slotBase() else {
      encoding.misuse(_EncoderMisuse.superMovedOn, at: path)
      return _RefUnkeyed(encoding: encoding, node: nil, path: path)
    }
    let open = encoding.open
    if open.count > base {
      guard open[base] === node, node.kind == .array else {
        encoding.misuse(_EncoderMisuse.unkeyedOnKeyed, at: path)
        return _RefUnkeyed(encoding: encoding, node: nil, path: path)
      }
      return _RefUnkeyed(encoding: encoding, node: node, path: path)
    }
    guard node.kind == .empty, open.count == base else {
      encoding.misuse(_EncoderMisuse.unkeyedOnEncoded, at: path)
      return _RefUnkeyed(encoding: encoding, node: nil, path: path)
    }
    node.kind = .array
    encoding.open.append(node)
    return _RefUnkeyed(encoding: encoding, node: node, path: path)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    _RefSingle(encoding: encoding, node: node, path: path, base: slotBase())
  }
}

struct _RefKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoding: _RefEncoding
  /// nil: a container whose every use fails (after a misuse was recorded).
  let node: _RefNode?
  let path: [_PathEntry]

  static func failing(_ encoding: _RefEncoding, _ problem: String, _ path: [_PathEntry]) -> KeyedEncodingContainer<Key> {
    encoding.misuse(problem, at: path)
    return KeyedEncodingContainer(_RefKeyed(encoding: encoding, node: nil, path: path))
  }

  var codingPath: [any CodingKey] { path.map(\.key) }

  /// Starts the member for `key`: its node and its path.
  func begin(_ key: Key) throws -> (_RefNode, [_PathEntry]) {
    let node = try encoding.reopen(node, at: path)
    let name = key.stringValue
    let style = node.kind == .payload ? _payloadStyle(name, after: node.members) : .key
    let child = _RefNode()
    node.members.append((name: name, node: child))
    return (child, path + [_PathEntry(key: key, style: style)])
  }

  func put(_ value: JSONValue, _ key: Key) throws { try begin(key).0.set(value) }

  mutating func encodeNil(forKey key: Key) throws { try put(.null, key) }
  mutating func encode(_ value: Bool, forKey key: Key) throws { try put(.bool(value), key) }
  mutating func encode(_ value: String, forKey key: Key) throws { try put(.string(value), key) }
  mutating func encode(_ value: Double, forKey key: Key) throws {
    let (child, path) = try begin(key)
    child.set(try encoding.double(value, at: path))
  }
  mutating func encode(_ value: Float, forKey key: Key) throws {
    let (child, path) = try begin(key)
    child.set(try encoding.float(value, at: path))
  }
  mutating func encode(_ value: Int, forKey key: Key) throws { try put(_referenceInteger(value), key) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { try put(_referenceInteger(value), key) }
  mutating func encode(_ value: Int16, forKey key: Key) throws { try put(_referenceInteger(value), key) }
  mutating func encode(_ value: Int32, forKey key: Key) throws { try put(_referenceInteger(value), key) }
  mutating func encode(_ value: Int64, forKey key: Key) throws { try put(_referenceInteger(value), key) }
  mutating func encode(_ value: Int128, forKey key: Key) throws { try put(_referenceInteger(value), key) }
  mutating func encode(_ value: UInt, forKey key: Key) throws { try put(_referenceInteger(value), key) }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(_referenceInteger(value), key) }
  mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(_referenceInteger(value), key) }
  mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(_referenceInteger(value), key) }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(_referenceInteger(value), key) }
  mutating func encode(_ value: UInt128, forKey key: Key) throws { try put(_referenceInteger(value), key) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    let (child, path) = try begin(key)
    try encoding.encode(value, into: child, path: path)
  }

  // `encodeIfPresent`: nil is left out, or `null` with `explicitNulls`.
  mutating func absent(_ key: Key) throws { if encoding.explicitNulls { try encodeNil(forKey: key) } }
  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try absent(key) }
  }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try absent(key) }
  }
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try absent(key) }
  }
  mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try absent(key) }
  }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try absent(key) }
  }
  mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try absent(key) }
  }
  mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try absent(key) }
  }
  mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try absent(key) }
  }
  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try absent(key) }
  }
  mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try absent(key) }
  }
  mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try absent(key) }
  }
  mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try absent(key) }
  }
  mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try absent(key) }
  }
  mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try absent(key) }
  }
  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try absent(key) }
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    do {
      let (child, path) = try begin(key)
      child.kind = node?.kind == .enumObject ? .payload : .object
      encoding.open.append(child)
      return KeyedEncodingContainer(_RefKeyed<NestedKey>(encoding: encoding, node: child, path: path))
    } catch {
      return KeyedEncodingContainer(_RefKeyed<NestedKey>(encoding: encoding, node: nil, path: path))
    }
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    do {
      let (child, path) = try begin(key)
      child.kind = .array
      encoding.open.append(child)
      return _RefUnkeyed(encoding: encoding, node: child, path: path)
    } catch {
      return _RefUnkeyed(encoding: encoding, node: nil, path: path)
    }
  }

  mutating func superEncoder() -> any Encoder {
    superEncoder(named: _StringKey("super"))
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    superEncoder(named: key)
  }

  private func superEncoder(named key: some CodingKey) -> any Encoder {
    do {
      let node = try encoding.reopen(node, at: path)
      let name = key.stringValue
      let style = node.kind == .payload ? _payloadStyle(name, after: node.members) : .key
      let child = _RefNode()
      node.members.append((name: name, node: child))
      return _RefEncoder(
        encoding: encoding, node: child, path: path + [_PathEntry(key: key, style: style)], isEnum: false,
        base: encoding.open.count, parent: node)
    } catch {
      return _RefEncoder(encoding: encoding, node: _RefNode(), path: path, isEnum: false, base: -1, parent: _RefNode())
    }
  }
}

struct _RefUnkeyed: UnkeyedEncodingContainer {
  let encoding: _RefEncoding
  /// nil: a container whose every use fails (after a misuse was recorded).
  let node: _RefNode?
  let path: [_PathEntry]

  var codingPath: [any CodingKey] { path.map(\.key) }
  var count: Int { node?.elements.count ?? 0 }

  func begin() throws -> (_RefNode, [_PathEntry]) {
    let node = try encoding.reopen(node, at: path)
    let child = _RefNode()
    node.elements.append(child)
    return (child, path + [_PathEntry(key: _IndexKey(index: node.elements.count - 1), style: .index)])
  }

  func put(_ value: JSONValue) throws { try begin().0.set(value) }

  mutating func encodeNil() throws { try put(.null) }
  mutating func encode(_ value: Bool) throws { try put(.bool(value)) }
  mutating func encode(_ value: String) throws { try put(.string(value)) }
  mutating func encode(_ value: Double) throws {
    let (child, path) = try begin()
    child.set(try encoding.double(value, at: path))
  }
  mutating func encode(_ value: Float) throws {
    let (child, path) = try begin()
    child.set(try encoding.float(value, at: path))
  }
  mutating func encode(_ value: Int) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: Int8) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: Int16) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: Int32) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: Int64) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: Int128) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: UInt) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: UInt8) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: UInt16) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: UInt32) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: UInt64) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: UInt128) throws { try put(_referenceInteger(value)) }
  mutating func encode<T: Encodable>(_ value: T) throws {
    let (child, path) = try begin()
    try encoding.encode(value, into: child, path: path)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    do {
      let (child, path) = try begin()
      child.kind = .object
      encoding.open.append(child)
      return KeyedEncodingContainer(_RefKeyed<NestedKey>(encoding: encoding, node: child, path: path))
    } catch {
      return KeyedEncodingContainer(_RefKeyed<NestedKey>(encoding: encoding, node: nil, path: path))
    }
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    do {
      let (child, path) = try begin()
      child.kind = .array
      encoding.open.append(child)
      return _RefUnkeyed(encoding: encoding, node: child, path: path)
    } catch {
      return _RefUnkeyed(encoding: encoding, node: nil, path: path)
    }
  }

  mutating func superEncoder() -> any Encoder {
    do {
      let node = try encoding.reopen(node, at: path)
      let child = _RefNode()
      node.elements.append(child)
      let entry = _PathEntry(key: _IndexKey(index: node.elements.count - 1), style: .index)
      return _RefEncoder(
        encoding: encoding, node: child, path: path + [entry], isEnum: false, base: encoding.open.count,
        parent: node)
    } catch {
      return _RefEncoder(encoding: encoding, node: _RefNode(), path: path, isEnum: false, base: -1, parent: _RefNode())
    }
  }
}

struct _RefSingle: SingleValueEncodingContainer {
  let encoding: _RefEncoding
  let node: _RefNode
  let path: [_PathEntry]
  /// The open-container count the value's slot has, or nil when it can no longer be written.
  let base: Int?

  var codingPath: [any CodingKey] { path.map(\.key) }

  func begin() throws {
    guard let base, encoding.open.count == base, node.kind == .empty else {
      throw encoding.misuse(_EncoderMisuse.singleTwice, at: path)
    }
  }

  func put(_ value: JSONValue) throws {
    try begin()
    node.set(value)
  }

  mutating func encodeNil() throws { try put(.null) }
  mutating func encode(_ value: Bool) throws { try put(.bool(value)) }
  mutating func encode(_ value: String) throws { try put(.string(value)) }
  mutating func encode(_ value: Double) throws {
    try begin()
    node.set(try encoding.double(value, at: path))
  }
  mutating func encode(_ value: Float) throws {
    try begin()
    node.set(try encoding.float(value, at: path))
  }
  mutating func encode(_ value: Int) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: Int8) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: Int16) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: Int32) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: Int64) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: Int128) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: UInt) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: UInt8) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: UInt16) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: UInt32) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: UInt64) throws { try put(_referenceInteger(value)) }
  mutating func encode(_ value: UInt128) throws { try put(_referenceInteger(value)) }
  mutating func encode<T: Encodable>(_ value: T) throws {
    try begin()
    try encoding.encode(value, into: node, path: path)
  }
}
