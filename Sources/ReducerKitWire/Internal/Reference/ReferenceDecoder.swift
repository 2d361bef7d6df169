// The reference decoder: reads a parsed `JSONValue` tree plainly, to check the fast decoder
// (`_DecoderImpl`) against and to fall back to. A decoder value per JSON value, its path as an
// array, every typed read through the same generic one: no shared mutable decoder, no lookup
// tables, no unsafe casts. The rules for keys and payloads and every message come from
// DecodingErrors.swift, shared with the fast decoder; its only runtime reads are A1–A3 in
// Internal/ABI/Runtime.swift (enum or not, `_referenceIsEnumType`, for every type; a key
// enum's keys).

/// One `decode` call of the reference decoder.
final class _RefDecoding {
  let rootNoun: String
  /// The stack bound plus reserve, once deep input asked (see `_checkDecodingStack`).
  var stackFloor: UInt = 0

  init(rootNoun: String) {
    self.rootNoun = rootNoun
  }

  /// Decodes a `T` from `value`, found at `path`.
  func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: [_PathEntry]) throws -> T {
    if T.self == JSONValue.self { return value as! T }
    if path.count >= _stackCheckDepth {
      try _checkDecodingStack(T.self, floor: &stackFloor, depth: path.count) { path }
    }
    do {
      return try T(from: _RefDecoder(decoding: self, value: value, type: T.self, path: path))
    } catch {
      throw _translateDecodingError(
        error, decoding: T.self, from: value, at: path, noun: _noun(at: path, rootNoun: rootNoun))
    }
  }
}

struct _RefDecoder: Decoder {
  let decoding: _RefDecoding
  let value: JSONValue
  let type: Any.Type
  let path: [_PathEntry]

  var codingPath: [any CodingKey] { path.map(\.key) }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy keyType: Key.Type) throws -> KeyedDecodingContainer<Key> {
    let isEnum = _referenceIsEnumType(type)
    let storage: _KeyedStorage
    switch value {
    case .object(let members):
      if isEnum {
        if members.count > 1 {
          try _checkEnumKeys(members, Key.self, at: path, noun: _noun(at: path, rootNoun: decoding.rootNoun))
        }
      } else {
        try _checkKeys(members, Key.self) { path }
      }
      storage = .object(members)
    case .string(let name) where isEnum:
      storage = .bareCase(name)
    default:
      if isEnum {
        throw _enumShapeMismatch(value, type: type, at: path, noun: _noun(at: path, rootNoun: decoding.rootNoun))
      }
      throw _mismatchError(value, expectedName: "\(_typeName(type)) (object)", nilType: type, path: path)
    }
    return KeyedDecodingContainer(
      _RefKeyedDecoder<Key>(decoding: decoding, storage: storage, isEnum: isEnum, path: path))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let elements) = value else {
      throw _mismatchError(value, expectedName: "\(_typeName(type)) (array)", nilType: type, path: path)
    }
    return _RefUnkeyedDecoder(decoding: decoding, elements: elements, path: path)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    _RefSingleDecoder(decoding: decoding, value: value, path: path)
  }
}

struct _RefKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoding: _RefDecoding
  let storage: _KeyedStorage
  /// This is the container of an enum value: nested containers are case payloads.
  let isEnum: Bool
  let path: [_PathEntry]

  var codingPath: [any CodingKey] { path.map(\.key) }

  var allKeys: [Key] {
    switch storage {
    case .object(let members): return members.compactMap { Key(stringValue: $0.key) }
    case .bareCase(let name): return Key(stringValue: name).map { [$0] } ?? []
    case .payloadBare: return Key(stringValue: "_0").map { [$0] } ?? []
    case .payloadArray(let elements): return elements.indices.compactMap { Key(stringValue: "_\($0)") }
    case .current: return []
    }
  }

  /// The value for `key` (the last member of that name) and how its key shows in paths.
  func lookup(_ key: Key) -> (JSONValue, _PathStyle)? {
    let name = key.stringValue
    switch storage {
    case .object(let members):
      return members.last(where: { $0.key == name }).map { ($0.value, .key) }
    case .bareCase(let caseName):
      return name == caseName ? (.object([]), .key) : nil
    case .payloadBare(let value):
      return name == "_0" ? (value, .hidden) : nil
    case .payloadArray(let elements):
      guard let i = _positionalIndex(name), i < elements.count else { return nil }
      return (elements[i], .index)
    case .current:
      return nil
    }
  }

  func value(for key: Key) throws -> (JSONValue, [_PathEntry]) {
    guard let (value, style) = lookup(key) else { throw _missingKeyError(key, in: storage, at: path) }
    return (value, path + [_PathEntry(key: key, style: style)])
  }

  func contains(_ key: Key) -> Bool { lookup(key) != nil }

  func decodeNil(forKey key: Key) throws -> Bool {
    if case .null = try value(for: key).0 { return true }
    return false
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    let (value, path) = try value(for: key)
    return try decoding.decode(T.self, from: value, at: path)
  }

  /// `decodeIfPresent`: absent or null is nil (except for `JSONValue`, which holds `null`).
  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    guard let (value, _) = lookup(key) else { return nil }
    if case .null = value, T.self != JSONValue.self { return nil }
    return try decode(T.self, forKey: key)
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type, key) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type, key) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type, key) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type, key) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type, key) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type, key) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type, key) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type, key) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type, key) }
  func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try decode(type, key) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type, key) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type, key) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type, key) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type, key) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type, key) }
  func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try decode(type, key) }

  private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
    try decode(T.self, forKey: key)
  }

  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decodeIfPresent(type, key) }
  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decodeIfPresent(type, key) }
  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decodeIfPresent(type, key) }
  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try decodeIfPresent(type, key) }
  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decodeIfPresent(type, key) }
  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try decodeIfPresent(type, key) }
  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try decodeIfPresent(type, key) }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decodeIfPresent(type, key) }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decodeIfPresent(type, key) }
  func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? { try decodeIfPresent(type, key) }
  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try decodeIfPresent(type, key) }
  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try decodeIfPresent(type, key) }
  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try decodeIfPresent(type, key) }
  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try decodeIfPresent(type, key) }
  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try decodeIfPresent(type, key) }
  func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? { try decodeIfPresent(type, key) }

  private func decodeIfPresent<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
    try decodeIfPresent(T.self, forKey: key)
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    let (value, path) = try value(for: key)
    if isEnum {
      var bare = false
      if case .bareCase = storage { bare = true }
      let storage = try _payloadStorage(value, keys: NestedKey.self, caseName: key.stringValue, bare: bare) { path }
      return KeyedDecodingContainer(
        _RefKeyedDecoder<NestedKey>(decoding: decoding, storage: storage, isEnum: false, path: path))
    }
    guard case .object(let members) = value else {
      throw _mismatchError(value, expectedName: "object", nilType: [String: JSONValue].self, path: path)
    }
    try _checkKeys(members, NestedKey.self) { path }
    return KeyedDecodingContainer(
      _RefKeyedDecoder<NestedKey>(decoding: decoding, storage: .object(members), isEnum: false, path: path))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    let (value, path) = try value(for: key)
    guard case .array(let elements) = value else {
      throw _mismatchError(value, expectedName: "array", nilType: [JSONValue].self, path: path)
    }
    return _RefUnkeyedDecoder(decoding: decoding, elements: elements, path: path)
  }

  func superDecoder() throws -> any Decoder {
    var value = JSONValue.null
    if case .object(let members) = storage, let member = members.last(where: { $0.key == "super" }) {
      value = member.value
    }
    return _RefDecoder(
      decoding: decoding, value: value, type: Void.self,
      path: path + [_PathEntry(key: _StringKey("super"), style: .key)])
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    let (value, style) = lookup(key) ?? (.null, .key)
    return _RefDecoder(
      decoding: decoding, value: value, type: Void.self, path: path + [_PathEntry(key: key, style: style)])
  }
}

struct _RefUnkeyedDecoder: UnkeyedDecodingContainer {
  let decoding: _RefDecoding
  let elements: [JSONValue]
  let path: [_PathEntry]
  var currentIndex = 0

  var codingPath: [any CodingKey] { path.map(\.key) }
  var count: Int? { elements.count }
  var isAtEnd: Bool { currentIndex >= elements.count }

  /// The next element and its path, or the error for reading past the end.
  func next<T>(_ type: T.Type) throws -> (JSONValue, [_PathEntry]) {
    guard currentIndex < elements.count else {
      throw _missingElementError(T.self, index: currentIndex, count: elements.count, at: path)
    }
    return (elements[currentIndex], path + [_PathEntry(key: _IndexKey(index: currentIndex), style: .index)])
  }

  mutating func decodeNil() throws -> Bool {
    guard case .null = try next(Never.self).0 else { return false }
    currentIndex += 1
    return true
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let (value, path) = try next(T.self)
    let result = try decoding.decode(T.self, from: value, at: path)
    currentIndex += 1
    return result
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    let (value, path) = try next(JSONValue.self)
    guard case .object(let members) = value else {
      throw _mismatchError(value, expectedName: "object", nilType: [String: JSONValue].self, path: path)
    }
    try _checkKeys(members, NestedKey.self) { path }
    currentIndex += 1
    return KeyedDecodingContainer(
      _RefKeyedDecoder<NestedKey>(decoding: decoding, storage: .object(members), isEnum: false, path: path))
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let (value, path) = try next(JSONValue.self)
    guard case .array(let inner) = value else {
      throw _mismatchError(value, expectedName: "array", nilType: [JSONValue].self, path: path)
    }
    currentIndex += 1
    return _RefUnkeyedDecoder(decoding: decoding, elements: inner, path: path)
  }

  mutating func superDecoder() throws -> any Decoder {
    let (value, path) = try next(JSONValue.self)
    currentIndex += 1
    return _RefDecoder(decoding: decoding, value: value, type: Void.self, path: path)
  }
}

struct _RefSingleDecoder: SingleValueDecodingContainer {
  let decoding: _RefDecoding
  let value: JSONValue
  let path: [_PathEntry]

  var codingPath: [any CodingKey] { path.map(\.key) }

  func decodeNil() -> Bool {
    if case .null = value { return true }
    return false
  }

  /// `value` converted by `convert`, or the mismatch error naming `T`.
  func scalar<T>(_ type: T.Type, _ convert: (JSONValue) -> T?) throws -> T {
    guard let result = convert(value) else {
      throw _mismatchError(value, expectedName: _typeName(T.self), nilType: T.self, path: path)
    }
    return result
  }

  func decode(_ type: Bool.Type) throws -> Bool {
    try scalar(type) { if case .bool(let b) = $0 { b } else { nil } }
  }
  func decode(_ type: String.Type) throws -> String {
    try scalar(type) { if case .string(let s) = $0 { s } else { nil } }
  }
  func decode(_ type: Double.Type) throws -> Double { try scalar(type, _double) }
  func decode(_ type: Float.Type) throws -> Float { try scalar(type, _float) }
  func decode(_ type: Int.Type) throws -> Int { try scalar(type) { _integer($0, as: Int.self) } }
  func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type) { _integer($0, as: Int8.self) } }
  func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type) { _integer($0, as: Int16.self) } }
  func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type) { _integer($0, as: Int32.self) } }
  func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type) { _integer($0, as: Int64.self) } }
  func decode(_ type: Int128.Type) throws -> Int128 { try scalar(type, _int128) }
  func decode(_ type: UInt.Type) throws -> UInt { try scalar(type) { _integer($0, as: UInt.self) } }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type) { _integer($0, as: UInt8.self) } }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type) { _integer($0, as: UInt16.self) } }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type) { _integer($0, as: UInt32.self) } }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type) { _integer($0, as: UInt64.self) } }
  func decode(_ type: UInt128.Type) throws -> UInt128 { try scalar(type, _uint128) }
  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try decoding.decode(T.self, from: value, at: path)
  }
}
