/// A JSON document as a Swift value. Object members keep their order.
///
/// ```swift
/// let value = try parseJSON(#"{"setCount": 5}"#)
/// value["setCount"]        // .int(5)
/// value.serialized()       // {"setCount":5}
/// ```
///
/// Numbers keep integers exact: an integer that fits `Int64` is `.int`, a number with a
/// fraction or exponent is `.double`, and any other valid number (an integer beyond `Int64`,
/// a magnitude beyond `Double`, or a fraction or exponent whose `Double` would be a different
/// whole number, such as `1.0000000000000001` or `1e-400`) is `.number` with its original text.
public enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  /// An integer written without fraction or exponent that fits `Int64`.
  case int(Int64)
  /// A number written with a fraction or exponent. Should be finite; `serialized()` writes
  /// non-finite values as `null`.
  case double(Double)
  /// A valid JSON number kept as its text because it fits neither `Int64` nor a finite
  /// `Double`, e.g. `18446744073709551615` or `1e400`, or because its `Double` is a whole
  /// number it is not exactly, e.g. `1.0000000000000001`, `1e-400` or `9007199254740993.0`
  /// (so an integer field refuses it rather than taking a different integer).
  case number(String)
  case string(String)
  case array([JSONValue])
  /// Members in document order. `parseJSON` never produces duplicate keys; in values built
  /// otherwise, lookups use the last one.
  case object([(key: String, value: JSONValue)])

  public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): return true
    case (.bool(let a), .bool(let b)): return a == b
    case (.int(let a), .int(let b)): return a == b
    case (.double(let a), .double(let b)): return a == b
    case (.number(let a), .number(let b)): return a == b
    case (.string(let a), .string(let b)): return a == b
    case (.array(let a), .array(let b)): return a == b
    case (.object(let a), .object(let b)):
      return a.count == b.count
        && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    default: return false
    }
  }
}

extension JSONValue {
  /// For a `.number` written with a fraction or exponent whose `Double` is a different whole
  /// number (`1.0000000000000001`, `1e-400`): that `Double`. Nil for everything else, such as
  /// an integer beyond `Int64` or a magnitude beyond `Double` (`1e400`).
  package var _inexactDouble: Double? {
    guard case .number(let text) = self,
      text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }),
      let d = Double(text), d.isFinite
    else { return nil }
    return d
  }
}

// MARK: - Access

extension JSONValue {
  /// The value of the last member named `key`, if this is an object that has one.
  ///
  /// Setting it on an object replaces that member (or adds one at the end); setting `nil`
  /// removes every member named `key`. Setting it on anything but an object does nothing.
  /// (A state migration: `json["total"] = .int(0)`, `json["legacy"] = nil`.)
  public subscript(key: String) -> JSONValue? {
    get {
      guard case .object(let members) = self else { return nil }
      return members.last(where: { $0.key == key })?.value
    }
    set {
      guard case .object(var members) = self else { return }
      self = .null  // keep `members` uniquely referenced while it changes
      if let newValue {
        if let index = members.lastIndex(where: { $0.key == key }) {
          members[index].value = newValue
        } else {
          members.append((key: key, value: newValue))
        }
      } else {
        members.removeAll { $0.key == key }
      }
      self = .object(members)
    }
  }

  /// The element at `index`, if this is an array that long.
  ///
  /// Setting it on an array replaces the element at an existing index; anything else
  /// (another index, `nil`, not an array) leaves the value as it was.
  public subscript(index: Int) -> JSONValue? {
    get {
      guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
      return elements[index]
    }
    set {
      guard case .array(var elements) = self, elements.indices.contains(index), let newValue else { return }
      self = .null
      elements[index] = newValue
      self = .array(elements)
    }
  }
}

// MARK: - Releasing deep values

extension JSONValue {
  /// Sets this value to `null`, freeing its arrays and objects one at a time rather than by
  /// recursive release (which needs stack space for every level of nesting). Parts shared
  /// with other values stay intact.
  public mutating func releaseIteratively() {
    _dismantle()
  }

  mutating func _dismantle() {
    switch self {
    case .array, .object: break
    default: return
    }
    var pending: [JSONValue] = []
    pending.append(self)
    self = .null
    while var value = pending.popLast() {
      switch value {
      case .array(var elements):
        value = .null  // `elements` is now the only reference this function holds
        pending.append(contentsOf: elements)
        elements = []  // children survive: `pending` holds them
      case .object(var members):
        value = .null
        for member in members { pending.append(member.value) }
        members = []
      default:
        break
      }
    }
  }
}

// MARK: - Serialization

extension JSONValue {
  /// Compact JSON text (no whitespace), object members in order.
  public func serialized() -> String {
    var buffer = _ByteBuffer(capacity: 64)
    _write(into: &buffer)
    return buffer.makeString()
  }

  /// Compact JSON as UTF-8 bytes, object members in order.
  public func serializedBytes() -> [UInt8] {
    var buffer = _ByteBuffer(capacity: 64)
    _write(into: &buffer)
    return buffer.makeArray()
  }

  func _write(into out: inout _ByteBuffer) {
    switch self {
    case .null:
      out.append("null")
    case .bool(let b):
      out.append(b ? "true" : "false")
    case .int(let i):
      out.appendInt(i)
    case .double(let d):
      if d.isFinite {
        out.appendDouble(d)
      } else {
        out.append("null")
      }
    case .number(let text):
      out.append(utf8: text)
    case .string(let s):
      out.appendJSONString(s)
    case .array(let elements):
      out.append(UInt8(ascii: "["))
      for (i, element) in elements.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        element._write(into: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let members):
      out.append(UInt8(ascii: "{"))
      for (i, member) in members.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        out.appendJSONString(member.key)
        out.append(UInt8(ascii: ":"))
        member.value._write(into: &out)
      }
      out.append(UInt8(ascii: "}"))
    }
  }
}

extension JSONValue: CustomStringConvertible {
  public var description: String { serialized() }
}

// MARK: - Literals

extension JSONValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
  ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
  ExpressibleByDictionaryLiteral
{
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(integerLiteral value: Int64) { self = .int(value) }
  public init(floatLiteral value: Double) { self = .double(value) }
  public init(stringLiteral value: String) { self = .string(value) }
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  /// Members in the order written.
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(elements.map { (key: $0.0, value: $0.1) })
  }
}

// MARK: - Codable

/// `JSONValue` encodes as the JSON it holds and decodes from any JSON (so state and
/// payloads can carry free-form JSON). With `WireEncoder`/`WireDecoder` this is a copy;
/// with other coders it goes through their containers.
extension JSONValue: Codable {
  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .null:
      var c = encoder.singleValueContainer()
      try c.encodeNil()
    case .bool(let b):
      var c = encoder.singleValueContainer()
      try c.encode(b)
    case .int(let i):
      var c = encoder.singleValueContainer()
      try c.encode(i)
    case .double(let d):
      var c = encoder.singleValueContainer()
      try c.encode(d)
    case .number(let text):
      var c = encoder.singleValueContainer()
      if let d = Double(text), d.isFinite {
        try c.encode(d)
      } else {
        try c.encode(text)
      }
    case .string(let s):
      var c = encoder.singleValueContainer()
      try c.encode(s)
    case .array(let elements):
      var c = encoder.unkeyedContainer()
      for element in elements { try c.encode(element) }
    case .object(let members):
      var c = encoder.container(keyedBy: _StringKey.self)
      for member in members { try c.encode(member.value, forKey: _StringKey(member.key)) }
    }
  }

  public init(from decoder: any Decoder) throws {
    if let impl = decoder as? _DecoderImpl {
      self = impl.value
      return
    }
    if let c = try? decoder.container(keyedBy: _StringKey.self) {
      self = .object(try c.allKeys.map { (key: $0.stringValue, value: try c.decode(JSONValue.self, forKey: $0)) })
      return
    }
    if var c = try? decoder.unkeyedContainer() {
      var elements: [JSONValue] = []
      while !c.isAtEnd { elements.append(try c.decode(JSONValue.self)) }
      self = .array(elements)
      return
    }
    let c = try decoder.singleValueContainer()
    if c.decodeNil() {
      self = .null
    } else if let b = try? c.decode(Bool.self) {
      self = .bool(b)
    } else if let i = try? c.decode(Int64.self) {
      self = .int(i)
    } else if let d = try? c.decode(Double.self) {
      self = .double(d)
    } else {
      self = .string(try c.decode(String.self))
    }
  }
}
