// The containers `_DecoderImpl` hands to `init(from:)` implementations.

// MARK: - Keyed container

enum _KeyedStorage {
  /// The decoder's current value: an object, or (for an enum) a bare case string.
  case current
  /// A JSON object.
  case object([(key: String, value: JSONValue)])
  /// An enum case written as a bare string: the single key `name` with an empty payload.
  case bareCase(String)
  /// The value of a case's single unlabeled associated value, written bare: key `_0`.
  case payloadBare(JSONValue)
  /// A case's unlabeled associated values written as an array: keys `_0`, `_1`, …
  case payloadArray([JSONValue])
}

struct _KeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
  /// Objects with more members than this get a lookup table.
  static var indexThreshold: Int { 12 }

  let impl: _DecoderImpl
  let storage: _KeyedStorage
  /// Lookup table for large objects.
  let index: [String: Int]?
  /// This is the container of an enum value: nested containers are case payloads.
  let isEnum: Bool
  /// Path depth of the value this container reads.
  let base: Int
  let nested: _NestedPath

  init(impl: _DecoderImpl, storage: _KeyedStorage, isEnum: Bool, base: Int, nested: _NestedPath) {
    self.impl = impl
    self.storage = storage
    self.isEnum = isEnum
    self.base = base
    self.nested = nested
    if case .object(let members) = storage, members.count > Self.indexThreshold {
      var index: [String: Int] = [:]
      index.reserveCapacity(members.count)
      for (i, member) in members.enumerated() { index[member.key] = i }  // last wins
      self.index = index
    } else {
      self.index = nil
    }
  }

  var pathEntries: [_PathEntry] { impl.pathEntries(depth: base) + nested.entries }

  var codingPath: [any CodingKey] { pathEntries.map(\.key) }

  /// The storage with `.current` resolved against the decoder's current value.
  @inline(__always)
  var effectiveStorage: _KeyedStorage {
    guard case .current = storage else { return storage }
    let impl = self.impl
    guard impl.path.count == base else { return .object([]) }  // used after its value finished
    switch impl.value {
    case .object(let members): return .object(members)
    case .string(let name) where isEnum: return .bareCase(name)
    default: return .object([])
    }
  }

  var allKeys: [Key] {
    switch effectiveStorage {
    case .object(let members):
      if members.count == 1 {
        if let key = Key(stringValue: members[0].key) { return [key] }
        return []
      }
      var keys: [Key] = []
      keys.reserveCapacity(members.count)
      for member in members {
        if let key = Key(stringValue: member.key) { keys.append(key) }
      }
      return keys
    case .bareCase(let name):
      if let key = Key(stringValue: name) { return [key] }
      return []
    case .payloadBare:
      if let key = Key(stringValue: "_0") { return [key] }
      return []
    case .payloadArray(let elements):
      var keys: [Key] = []
      keys.reserveCapacity(elements.count)
      for i in elements.indices {
        if let key = Key(stringValue: "_\(i)") { keys.append(key) }
      }
      return keys
    case .current:
      return []
    }
  }

  @inline(__always)
  func lookup(_ key: Key) -> (JSONValue, _PathStyle)? {
    switch effectiveStorage {
    case .object(let members):
      let name = key.stringValue
      if let index {
        guard let i = index[name] else { return nil }
        return (members[i].value, .key)
      }
      var i = members.count - 1
      while i >= 0 {
        if members[i].key == name { return (members[i].value, .key) }
        i -= 1
      }
      return nil
    case .bareCase(let name):
      return key.stringValue == name ? (.object([]), .key) : nil
    case .payloadBare(let value):
      return key.stringValue == "_0" ? (value, .hidden) : nil
    case .payloadArray(let elements):
      guard let i = _positionalIndex(key.stringValue), i < elements.count else { return nil }
      return (elements[i], .index)
    case .current:
      return nil
    }
  }

  func contains(_ key: Key) -> Bool { lookup(key) != nil }

  /// The value for `key`, or the error for its absence.
  @inline(__always)
  func value(for key: Key) throws -> (JSONValue, _PathStyle) {
    if let found = lookup(key) { return found }
    throw missing(key)
  }

  func missing(_ key: Key) -> any Error {
    _missingKeyError(key, in: effectiveStorage, at: pathEntries)
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    if case .null = try value(for: key).0 { return true }
    return false
  }

  @inline(__always)
  func decodeInteger<I: FixedWidthInteger>(_ type: I.Type, forKey key: Key) throws -> I {
    let (v, style) = try value(for: key)
    guard let i = _integer(v, as: I.self) else {
      throw impl.mismatch(v, expected: I.self, base: base, nested: nested, key: key, style: style)
    }
    return i
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    let (v, style) = try value(for: key)
    guard case .bool(let b) = v else {
      throw impl.mismatch(v, expected: Bool.self, base: base, nested: nested, key: key, style: style)
    }
    return b
  }
  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    let (v, style) = try value(for: key)
    guard case .string(let s) = v else {
      throw impl.mismatch(v, expected: String.self, base: base, nested: nested, key: key, style: style)
    }
    return s
  }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    let (v, style) = try value(for: key)
    guard let d = _double(v) else {
      throw impl.mismatch(v, expected: Double.self, base: base, nested: nested, key: key, style: style)
    }
    return d
  }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    let (v, style) = try value(for: key)
    guard let f = _float(v) else {
      throw impl.mismatch(v, expected: Float.self, base: base, nested: nested, key: key, style: style)
    }
    return f
  }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeInteger(Int.self, forKey: key) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeInteger(Int8.self, forKey: key) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeInteger(Int16.self, forKey: key) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeInteger(Int32.self, forKey: key) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeInteger(Int64.self, forKey: key) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeInteger(UInt.self, forKey: key) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeInteger(UInt8.self, forKey: key) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeInteger(UInt16.self, forKey: key) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeInteger(UInt32.self, forKey: key) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeInteger(UInt64.self, forKey: key) }
  func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 {
    let (v, style) = try value(for: key)
    guard let i = _int128(v) else {
      throw impl.mismatch(v, expected: Int128.self, base: base, nested: nested, key: key, style: style)
    }
    return i
  }
  func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 {
    let (v, style) = try value(for: key)
    guard let i = _uint128(v) else {
      throw impl.mismatch(v, expected: UInt128.self, base: base, nested: nested, key: key, style: style)
    }
    return i
  }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    let (v, style) = try value(for: key)
    return try impl.unbox(v, as: T.self, base: base, nested: nested, key: key, style: style)
  }

  // `decodeIfPresent`: absent or null is nil.
  @inline(__always)
  func present(_ key: Key) -> Bool {
    guard let (v, _) = lookup(key) else { return false }
    if case .null = v { return false }
    return true
  }
  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? { present(key) ? try decode(type, forKey: key) : nil }
  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    guard let (v, style) = lookup(key) else { return nil }
    if case .null = v, !(T.self == JSONValue.self) { return nil }
    return try impl.unbox(v, as: T.self, base: base, nested: nested, key: key, style: style)
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    let (v, style) = try value(for: key)
    let entry = _PathEntry(key: key, style: style)
    let nestedPath = nested.appending(entry)
    if isEnum {
      var bare = false
      if case .bareCase = effectiveStorage { bare = true }
      let storage = try impl.payloadStorage(
        v, keys: NestedKey.self, caseName: key.stringValue, bare: bare, path: { pathEntries + [entry] })
      return KeyedDecodingContainer(
        _KeyedDecoder<NestedKey>(impl: impl, storage: storage, isEnum: false, base: base, nested: nestedPath))
    }
    guard case .object(let members) = v else {
      throw impl.mismatch(v, expectedName: "object", nilType: [String: JSONValue].self, path: pathEntries + [entry])
    }
    try impl.checkKeys(members, NestedKey.self) { pathEntries + [entry] }
    return KeyedDecodingContainer(
      _KeyedDecoder<NestedKey>(impl: impl, storage: .object(members), isEnum: false, base: base, nested: nestedPath))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    let (v, style) = try value(for: key)
    let entry = _PathEntry(key: key, style: style)
    guard case .array(let elements) = v else {
      throw impl.mismatch(v, expectedName: "array", nilType: [JSONValue].self, path: pathEntries + [entry])
    }
    return _UnkeyedDecoder(impl: impl, elements: elements, base: base, nested: nested.appending(entry))
  }

  func superDecoder() throws -> any Decoder {
    let key = _StringKey("super")
    let value = lookupString("super") ?? .null
    return _DecoderImpl(value: value, rootNoun: impl.rootNoun, path: pathEntries + [_PathEntry(key: key, style: .key)])
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    let (value, style) = lookup(key) ?? (.null, .key)
    return _DecoderImpl(value: value, rootNoun: impl.rootNoun, path: pathEntries + [_PathEntry(key: key, style: style)])
  }

  private func lookupString(_ name: String) -> JSONValue? {
    guard case .object(let members) = effectiveStorage else { return nil }
    return members.last(where: { $0.key == name })?.value
  }
}

// MARK: - Unkeyed container

struct _UnkeyedDecoder: UnkeyedDecodingContainer {
  let impl: _DecoderImpl
  let elements: [JSONValue]
  let base: Int
  let nested: _NestedPath
  var currentIndex = 0

  init(impl: _DecoderImpl, elements: [JSONValue], base: Int, nested: _NestedPath) {
    self.impl = impl
    self.elements = elements
    self.base = base
    self.nested = nested
  }

  var pathEntries: [_PathEntry] { impl.pathEntries(depth: base) + nested.entries }
  var codingPath: [any CodingKey] { pathEntries.map(\.key) }
  var count: Int? { elements.count }
  var isAtEnd: Bool { currentIndex >= elements.count }

  @inline(__always)
  func next<T>(_ type: T.Type) throws -> JSONValue {
    guard currentIndex < elements.count else {
      throw _missingElementError(T.self, index: currentIndex, count: elements.count, at: pathEntries)
    }
    return elements[currentIndex]
  }

  mutating func decodeNil() throws -> Bool {
    if case .null = try next(Never.self) {
      currentIndex += 1
      return true
    }
    return false
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let v = try next(T.self)
    let result = try impl.unbox(
      v, as: T.self, base: base, nested: nested, key: _IndexKey(index: currentIndex), style: .index)
    currentIndex += 1
    return result
  }

  mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeScalar(type) }
  mutating func decode(_ type: String.Type) throws -> String { try decodeScalar(type) }
  mutating func decode(_ type: Double.Type) throws -> Double { try decodeScalar(type) }
  mutating func decode(_ type: Int.Type) throws -> Int { try decodeScalar(type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeScalar(type) }

  @inline(__always)
  mutating func decodeScalar<T: Decodable>(_ type: T.Type) throws -> T {
    let v = try next(T.self)
    let result = try impl.unbox(
      v, as: T.self, base: base, nested: nested, key: _IndexKey(index: currentIndex), style: .index)
    currentIndex += 1
    return result
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    let v = try next(JSONValue.self)
    let entry = _PathEntry(key: _IndexKey(index: currentIndex), style: .index)
    guard case .object(let members) = v else {
      throw impl.mismatch(v, expectedName: "object", nilType: [String: JSONValue].self, path: pathEntries + [entry])
    }
    try impl.checkKeys(members, NestedKey.self) { pathEntries + [entry] }
    currentIndex += 1
    return KeyedDecodingContainer(
      _KeyedDecoder<NestedKey>(impl: impl, storage: .object(members), isEnum: false, base: base, nested: nested.appending(entry)))
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let v = try next(JSONValue.self)
    let entry = _PathEntry(key: _IndexKey(index: currentIndex), style: .index)
    guard case .array(let inner) = v else {
      throw impl.mismatch(v, expectedName: "array", nilType: [JSONValue].self, path: pathEntries + [entry])
    }
    currentIndex += 1
    return _UnkeyedDecoder(impl: impl, elements: inner, base: base, nested: nested.appending(entry))
  }

  mutating func superDecoder() throws -> any Decoder {
    let v = try next(JSONValue.self)
    let entry = _PathEntry(key: _IndexKey(index: currentIndex), style: .index)
    currentIndex += 1
    return _DecoderImpl(value: v, rootNoun: impl.rootNoun, path: pathEntries + [entry])
  }
}

// MARK: - Single value container

struct _SingleDecoder: SingleValueDecodingContainer {
  let impl: _DecoderImpl
  let value: JSONValue
  let base: Int

  var codingPath: [any CodingKey] { impl.pathEntries(depth: base).map(\.key) }

  func decodeNil() -> Bool {
    if case .null = value { return true }
    return false
  }

  @inline(__always)
  func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
    guard let i = _integer(value, as: I.self) else {
      throw impl.mismatch(value, expected: I.self, base: base, nested: .none, key: nil, style: .key)
    }
    return i
  }

  func decode(_ type: Bool.Type) throws -> Bool {
    guard case .bool(let b) = value else {
      throw impl.mismatch(value, expected: Bool.self, base: base, nested: .none, key: nil, style: .key)
    }
    return b
  }
  func decode(_ type: String.Type) throws -> String {
    guard case .string(let s) = value else {
      throw impl.mismatch(value, expected: String.self, base: base, nested: .none, key: nil, style: .key)
    }
    return s
  }
  func decode(_ type: Double.Type) throws -> Double {
    guard let d = _double(value) else {
      throw impl.mismatch(value, expected: Double.self, base: base, nested: .none, key: nil, style: .key)
    }
    return d
  }
  func decode(_ type: Float.Type) throws -> Float {
    guard let f = _float(value) else {
      throw impl.mismatch(value, expected: Float.self, base: base, nested: .none, key: nil, style: .key)
    }
    return f
  }
  func decode(_ type: Int.Type) throws -> Int { try integer(type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
  func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
  func decode(_ type: Int128.Type) throws -> Int128 {
    guard let i = _int128(value) else {
      throw impl.mismatch(value, expected: Int128.self, base: base, nested: .none, key: nil, style: .key)
    }
    return i
  }
  func decode(_ type: UInt128.Type) throws -> UInt128 {
    guard let i = _uint128(value) else {
      throw impl.mismatch(value, expected: UInt128.self, base: base, nested: .none, key: nil, style: .key)
    }
    return i
  }
  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try impl.unbox(value, as: T.self, base: base, nested: .none, key: nil, style: .key)
  }
}
