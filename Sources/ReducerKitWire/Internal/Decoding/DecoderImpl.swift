// The decoder behind `WireDecoder`: reads a parsed `JSONValue`, accepting the wire forms
// of enums, and turns every failure into a `WireError` with a JSON path.

/// The extra path entries of a nested container, beyond its owner value's path.
struct _NestedPath {
  var entries: [_PathEntry]

  static var none: _NestedPath { _NestedPath(entries: []) }

  func appending(_ entry: _PathEntry) -> _NestedPath {
    _NestedPath(entries: entries + [entry])
  }
}

final class _DecoderImpl: Decoder {
  // `@exclusivity(unchecked)`: a decoder is created per `decode` call, used by one thread,
  // and its methods never overlap accesses to these properties, so dynamic exclusivity
  // checks would only cost time.
  /// The value being decoded and its Swift type.
  @exclusivity(unchecked) var value: JSONValue
  @exclusivity(unchecked) var type: Any.Type = Void.self
  @exclusivity(unchecked) var path = _PathStack()
  let rootNoun: String
  /// The calling thread's stack bound plus `_stackReserve`, once deep input asked (0: not yet;
  /// 1: unknown, never checked).
  @exclusivity(unchecked) var stackFloor: UInt = 0

  init(value: JSONValue, rootNoun: String, path entries: [_PathEntry]) {
    self.value = value
    self.rootNoun = rootNoun
    for entry in entries { path.push(owning: entry.key, style: entry.style) }
  }

  var codingPath: [any CodingKey] { path.entries().map(\.key) }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func pathEntries(depth: Int) -> [_PathEntry] { path.entries(depth: depth) }

  // MARK: Unboxing

  /// Decodes `value` as a `T` found at `key` (nil: the current slot) of a container.
  func unbox<T: Decodable>(
    _ value: JSONValue, as type: T.Type, base: Int, nested: _NestedPath, key: (any CodingKey)?,
    style: _PathStyle
  ) throws -> T {
    if T.self == String.self {
      guard case .string(let s) = value else {
        throw mismatch(value, expected: T.self, base: base, nested: nested, key: key, style: style)
      }
      return unsafeBitCast(s, to: T.self)
    }
    if T.self == Int.self {
      guard let i = _integer(value, as: Int.self) else {
        throw mismatch(value, expected: T.self, base: base, nested: nested, key: key, style: style)
      }
      return unsafeBitCast(i, to: T.self)
    }
    if T.self == Bool.self {
      guard case .bool(let b) = value else {
        throw mismatch(value, expected: T.self, base: base, nested: nested, key: key, style: style)
      }
      return unsafeBitCast(b, to: T.self)
    }
    if T.self == Double.self {
      guard let d = _double(value) else {
        throw mismatch(value, expected: T.self, base: base, nested: nested, key: key, style: style)
      }
      return unsafeBitCast(d, to: T.self)
    }
    if T.self == JSONValue.self {
      return unsafeBitCast(value, to: T.self)
    }
    if _typeIsEnum(T.self) {
      switch _enumState(T.self) {
      case .trusted(let plan):
        return try withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buffer in
          let result = buffer.baseAddress.unsafelyUnwrapped
          if decodeDirect(value, plan: plan, into: result) { return result.move() }
          return try unboxThrough(value, as: T.self, base: base, nested: nested, key: key, style: style)
        }
      case .checking(let plan, _):
        return try unboxChecking(value, as: T.self, plan: plan, base: base, nested: nested, key: key, style: style)
      case .unsupported:
        break
      }
    }
    return try unboxThrough(value, as: T.self, base: base, nested: nested, key: key, style: style)
  }

  /// Decodes through `init(from:)` and, where the direct path reads the value too, records
  /// whether the two agree (a failure of `init(from:)` where the direct path read a value is a
  /// disagreement).
  @inline(never)
  func unboxChecking<T: Decodable>(
    _ value: JSONValue, as type: T.Type, plan: _EnumPlan, base: Int, nested: _NestedPath, key: (any CodingKey)?,
    style: _PathStyle
  ) throws -> T {
    try withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buffer in
      let result = buffer.baseAddress.unsafelyUnwrapped
      guard decodeDirect(value, plan: plan, into: result) else {
        return try unboxThrough(value, as: T.self, base: base, nested: nested, key: key, style: style)
      }
      let direct = result.move()
      do {
        let through = try unboxThrough(value, as: T.self, base: base, nested: nested, key: key, style: style)
        _enumChecked(T.self, agreed: _sameEncoding(direct, through))
        return through
      } catch {
        _enumChecked(T.self, agreed: false)
        throw error
      }
    }
  }

  /// Decodes `value` as a `T` through `T.init(from:)`.
  func unboxThrough<T: Decodable>(
    _ value: JSONValue, as type: T.Type, base: Int, nested: _NestedPath, key: (any CodingKey)?,
    style: _PathStyle
  ) throws -> T {
    if path.count >= _stackCheckDepth { try checkStack(T.self, base: base, nested: nested, key: key, style: style) }
    let savedValue = self.value
    let savedType = self.type
    let savedCount = path.count
    for entry in nested.entries { path.push(owning: entry.key, style: entry.style) }
    defer {
      self.value = savedValue
      self.type = savedType
      path.removeAll(downTo: savedCount)
    }
    guard let key else {
      self.value = value
      self.type = T.self
      do {
        return try T(from: self)
      } catch {
        throw translate(error, decoding: T.self, from: value)
      }
    }
    return try withUnsafePointer(to: key) { key in
      path.push(borrowing: key, style: style)
      self.value = value
      self.type = T.self
      do {
        return try T(from: self)
      } catch {
        throw translate(error, decoding: T.self, from: value)
      }
    }
  }

  /// Fails with `.tooDeep` when decoding one more level could exhaust the thread's stack.
  @inline(never)
  func checkStack<T>(
    _ type: T.Type, base: Int, nested: _NestedPath, key: (any CodingKey)?, style: _PathStyle
  ) throws {
    try _checkDecodingStack(T.self, floor: &stackFloor, depth: path.count) {
      var entries = path.entries(depth: base)
      entries.append(contentsOf: nested.entries)
      if let key { entries.append(_PathEntry(key: key, style: style)) }
      return entries
    }
  }

  // MARK: Containers

  func container<Key: CodingKey>(keyedBy keyType: Key.Type) throws -> KeyedDecodingContainer<Key> {
    let depth = path.count
    let isEnum = _typeIsEnum(type)
    switch value {
    case .object(let members):
      if isEnum {
        if members.count > 1 { try checkEnumKeys(members, Key.self) }
      } else {
        try checkKeys(members, Key.self) { path.entries() }
      }
      if members.count > _KeyedDecoder<Key>.indexThreshold {
        return KeyedDecodingContainer(
          _KeyedDecoder<Key>(impl: self, storage: .object(members), isEnum: isEnum, base: depth, nested: .none))
      }
      return slotContainer(Key.self, isEnum: isEnum, depth: depth)
    case .string where isEnum:
      return slotContainer(Key.self, isEnum: true, depth: depth)
    case let value:
      if isEnum { throw enumShapeMismatch(value) }
      throw mismatch(value, expectedName: "\(_typeName(type)) (object)", nilType: type, path: path.entries())
    }
  }

  /// A container reading the current value (an object, or a bare enum case).
  func slotContainer<Key: CodingKey>(_ keyType: Key.Type, isEnum: Bool, depth: Int) -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(
      _KeyedDecoder<Key>(impl: self, storage: .current, isEnum: isEnum, base: depth, nested: .none))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let elements) = value else {
      throw mismatch(value, expectedName: "\(_typeName(type)) (array)", nilType: type, path: path.entries())
    }
    return _UnkeyedDecoder(impl: self, elements: elements, base: path.count, nested: .none)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    _SingleDecoder(impl: self, value: value, base: path.count)
  }

  @inline(__always)
  func checkKeys<Key: CodingKey>(
    _ members: [(key: String, value: JSONValue)], _ keyType: Key.Type, path makePath: () -> [_PathEntry]
  ) throws {
    try _checkKeys(members, Key.self, owner: type, path: makePath)
  }

  func checkEnumKeys<Key: CodingKey>(_ members: [(key: String, value: JSONValue)], _ keyType: Key.Type) throws {
    try _checkEnumKeys(members, Key.self, at: path.entries(), noun: currentNoun, owner: type)
  }

  func payloadStorage<NK: CodingKey>(
    _ value: JSONValue, keys: NK.Type, caseName: String, bare: Bool, path makePath: () -> [_PathEntry]
  ) throws -> _KeyedStorage {
    try _payloadStorage(value, keys: NK.self, caseName: caseName, bare: bare, owner: type, path: makePath)
  }

  // MARK: Errors

  /// The error for `value` not being a `T` (or out of its range).
  func mismatch<T>(
    _ value: JSONValue, expected: T.Type, base: Int, nested: _NestedPath, key: (any CodingKey)?,
    style: _PathStyle
  ) -> any Error {
    var entries = path.entries(depth: base)
    entries.append(contentsOf: nested.entries)
    if let key { entries.append(_PathEntry(key: key, style: style)) }
    return _mismatchError(value, expectedName: _typeName(T.self), nilType: T.self, path: entries)
  }

  func mismatch(_ value: JSONValue, expectedName: String, nilType: Any.Type, path entries: [_PathEntry]) -> any Error {
    _mismatchError(value, expectedName: expectedName, nilType: nilType, path: entries)
  }

  /// The noun for the enum value at the current path.
  var currentNoun: String { _noun(at: path.entries(), rootNoun: rootNoun) }

  func enumShapeMismatch(_ value: JSONValue) -> any Error {
    _enumShapeMismatch(value, type: type, at: path.entries(), noun: currentNoun)
  }

  func translate<T: Decodable>(_ error: any Error, decoding type: T.Type, from value: JSONValue) -> any Error {
    _translateDecodingError(error, decoding: T.self, from: value, at: path.entries(), noun: currentNoun)
  }
}

func _expectedList(_ expected: [String]) -> String {
  expected.isEmpty ? "" : "; expected one of: " + _listed(expected)
}

func _article(_ noun: String) -> String {
  guard let first = noun.unicodeScalars.first else { return "a" }
  return "aeiouAEIOU".unicodeScalars.contains(first) ? "an" : "a"
}

/// Case signatures for a type known only at run time.
func _signatures(of type: Any.Type) -> [String] {
  guard let decodable = type as? any Decodable.Type else { return [] }
  return _openSignatures(decodable)
}

private func _openSignatures<T: Decodable>(_ type: T.Type) -> [String] {
  caseSignatures(of: T.self)
}

func _wireError(fromDecoding error: any Error) -> WireError {
  if let wire = error as? WireError { return wire }
  if let decodingError = error as? DecodingError {
    let context: DecodingError.Context
    switch decodingError {
    case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
      context = c
    @unknown default:
      return WireError(kind: .invalidValue, path: "$", message: "invalid value at $: \(error)")
    }
    if let wire = context.underlyingError as? WireError { return wire }
    let path = _renderPath([], extra: context.codingPath)
    return WireError(kind: .invalidValue, path: path, message: "invalid value at \(path): \(context.debugDescription)")
  }
  return WireError(kind: .invalidValue, path: "$", message: "invalid value at $: \(error)")
}

// MARK: - Scalars

@inline(__always)
func _integer<I: FixedWidthInteger>(_ value: JSONValue, as type: I.Type) -> I? {
  switch value {
  case .int(let i): return I(exactly: i)
  case .double(let d): return I(exactly: d)
  case .number(let text): return I(text)  // integers beyond Int64; nil for fractions/exponents
  default: return nil
  }
}

@inline(__always)
func _double(_ value: JSONValue) -> Double? {
  switch value {
  case .int(let i): return Double(i)
  case .double(let d): return d
  case .number(let text):
    guard let d = Double(text), d.isFinite else { return nil }
    return d
  default: return nil
  }
}

func _float(_ value: JSONValue) -> Float? {
  guard let d = _double(value) else { return nil }
  let f = Float(d)
  return f.isFinite ? f : nil
}

func _int128(_ value: JSONValue) -> Int128? {
  switch value {
  case .int(let i): return Int128(i)
  case .double(let d): return Int128(exactly: d)
  case .number(let text): return Int128(text)
  default: return nil
  }
}

func _uint128(_ value: JSONValue) -> UInt128? {
  switch value {
  case .int(let i): return UInt128(exactly: i)
  case .double(let d): return UInt128(exactly: d)
  case .number(let text): return UInt128(text)
  default: return nil
  }
}
