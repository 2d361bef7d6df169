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
  /// Boxes of the containers `container(keyedBy:)` returned, by path depth (see
  /// `slotContainer`), once a few containers were made.
  @exclusivity(unchecked) var keyedBoxes: [(type: ObjectIdentifier, isEnum: Bool, box: AnyObject)?] = []
  @exclusivity(unchecked) var containersMade = 0
  let rootNoun: String
  let reuseBoxes = _canReuseKeyedDecodingBoxes
  /// The calling thread's stack bound plus `_stackReserve`, once deep input asked (0: not yet;
  /// 1: unknown, never checked).
  @exclusivity(unchecked) var stackFloor: UInt = 0

  init(value: JSONValue, rootNoun: String, path entries: [_PathEntry]) {
    self.value = value
    self.rootNoun = rootNoun
    for entry in entries { path.push(owning: entry.key, style: entry.style) }
  }

  /// Drops the cached container boxes (they reference this object).
  func finish() {
    keyedBoxes.removeAll()
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
    if stackFloor == 0 {
      let bound = _stackLowerBound()
      stackFloor = bound == 0 ? 1 : bound + _stackReserve
    }
    guard stackFloor > 1, _currentStackAddress() < stackFloor else { return }
    var entries = path.entries(depth: base)
    entries.append(contentsOf: nested.entries)
    if let key { entries.append(_PathEntry(key: key, style: style)) }
    let rendered = _renderPath(entries)
    let wire = WireError(
      kind: .tooDeep, path: rendered,
      message: "\(_typeName(T.self)) values nested too deeply for the calling thread's stack at \(rendered) "
        + "(\(path.count) levels); decode on a thread with a larger stack")
    throw DecodingError.dataCorrupted(
      .init(codingPath: entries.map(\.key), debugDescription: wire.message, underlyingError: wire))
  }

  // MARK: Containers

  func container<Key: CodingKey>(keyedBy keyType: Key.Type) throws -> KeyedDecodingContainer<Key> {
    let depth = path.count
    let isEnum = _isEnumType(type)
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

  /// A container reading the current value (an object, or a bare enum case). After a few
  /// containers, its box is kept per depth and key type and handed out again, saving an
  /// allocation and several metadata lookups per struct in arrays.
  func slotContainer<Key: CodingKey>(_ keyType: Key.Type, isEnum: Bool, depth: Int) -> KeyedDecodingContainer<Key> {
    containersMade &+= 1
    guard reuseBoxes, containersMade > 4 else {
      return KeyedDecodingContainer(
        _KeyedDecoder<Key>(impl: self, storage: .current, isEnum: isEnum, base: depth, nested: .none))
    }
    let typeID = ObjectIdentifier(Key.self)
    if depth < keyedBoxes.count, let cached = keyedBoxes[depth], cached.type == typeID, cached.isEnum == isEnum {
      return unsafeBitCast(cached.box, to: KeyedDecodingContainer<Key>.self)
    }
    let container = KeyedDecodingContainer(
      _KeyedDecoder<Key>(impl: self, storage: .current, isEnum: isEnum, base: depth, nested: .none))
    while keyedBoxes.count <= depth { keyedBoxes.append(nil) }
    keyedBoxes[depth] = (type: typeID, isEnum: isEnum, box: unsafeBitCast(container, to: AnyObject.self))
    return container
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

  /// Rejects a key of `members` that `Key` does not know (struct fields, case payloads). Keys
  /// of dictionaries and other open key types are all known.
  @inline(__always)
  func checkKeys<Key: CodingKey>(
    _ members: [(key: String, value: JSONValue)], _ keyType: Key.Type, path makePath: () -> [_PathEntry]
  ) throws {
    for member in members where Key(stringValue: member.key) == nil {
      throw unknownKey(member.key, Key.self, path: makePath())
    }
  }

  /// An enum written as an object has one key, its case: reject keys beside it that name no
  /// case (several known keys are left to `init(from:)`, which may expect them).
  func checkEnumKeys<Key: CodingKey>(_ members: [(key: String, value: JSONValue)], _ keyType: Key.Type) throws {
    let known = members.filter { Key(stringValue: $0.key) != nil }
    guard !known.isEmpty, let unknown = members.first(where: { Key(stringValue: $0.key) == nil }) else { return }
    guard known.count == 1 else { throw unknownKey(unknown.key, Key.self, path: path.entries()) }
    let entries = path.entries()
    let keyPath = _renderPath(entries + [_PathEntry(key: _StringKey(unknown.key), style: .key)])
    let noun = currentNoun
    let wire = WireError(
      kind: .unknownKey, path: keyPath,
      message: "unknown key \(_quoted(unknown.key)) at \(keyPath) beside \(noun) \(_quoted(known[0].key)); "
        + "\(_article(noun)) \(noun) is a string or an object with exactly one key")
    throw DecodingError.dataCorrupted(
      .init(codingPath: entries.map(\.key), debugDescription: wire.message, underlyingError: wire))
  }

  /// The error for an object key `Key` does not know.
  func unknownKey<Key: CodingKey>(_ name: String, _ keyType: Key.Type, path entries: [_PathEntry]) -> any Error {
    let containerPath = _renderPath(entries)
    let keyPath = _renderPath(entries + [_PathEntry(key: _StringKey(name), style: .key)])
    let known = _codingKeyCases(of: Key.self)?.map(\.stringValue) ?? []
    var message = "unknown key \(_quoted(name)) at \(keyPath)\(_didYouMean(name, among: known))"
    if !known.isEmpty {
      message += "; expected keys at \(containerPath): \(_listed(known.map { _quoted($0) }))"
    }
    let wire = WireError(kind: .unknownKey, path: keyPath, message: message, expected: known)
    return DecodingError.dataCorrupted(
      .init(codingPath: entries.map(\.key), debugDescription: wire.message, underlyingError: wire))
  }

  /// The storage of the nested container for an enum case's payload. `bare`: the case was
  /// written as a bare string (`"setCount"`), so no value was given.
  func payloadStorage<NK: CodingKey>(
    _ value: JSONValue, keys: NK.Type, caseName: String, bare: Bool, path makePath: () -> [_PathEntry]
  ) throws -> _KeyedStorage {
    let keyCount = _payloadlessCaseCount(NK.self)
    if keyCount == 0 {
      // A case without values: `{}` and `null` stand for none.
      switch value {
      case .null: return .object([])
      case .object(let members) where members.isEmpty: return .object([])
      default:
        let path = makePath()
        let rendered = _renderPath(path)
        let wire = WireError(
          kind: .typeMismatch, path: rendered,
          message: "case \(_quoted(caseName)) takes no value at \(rendered), found \(value._foundDescription); write it as \(_quoted(caseName))")
        throw DecodingError.typeMismatch(
          NK.self, .init(codingPath: path.map(\.key), debugDescription: wire.message, underlyingError: wire))
      }
    }
    if bare { return .object([]) }  // lookups fail with "this case takes a value"
    switch value {
    case .object, .array, .null: break
    default: return .payloadBare(value)  // a scalar: the case's single value (or a lookup error)
    }
    if keyCount == 1, NK(stringValue: "_0") != nil { return .payloadBare(value) }  // one unlabeled value
    let positional = keyCount.flatMap { n in _allPositional(NK.self, count: n) ? n : nil }
    switch value {
    case .object(let members):
      if let n = positional { throw payloadShapeMismatch(value, expected: "an array of \(n) values", path: makePath()) }
      try checkKeys(members, NK.self, path: makePath)
      return .object(members)
    case .array(let elements):
      if let n = positional, elements.count > n {
        throw payloadShapeMismatch(value, expected: "an array of \(n) values", path: makePath())
      }
      return .payloadArray(elements)
    case .null where keyCount != nil:
      throw payloadShapeMismatch(
        value, expected: positional.map { "an array of \($0) values" } ?? "an object", path: makePath())
    default:
      return .payloadBare(value)
    }
  }

  func payloadShapeMismatch(_ value: JSONValue, expected: String, path entries: [_PathEntry]) -> any Error {
    let path = _renderPath(entries)
    var found = value._foundDescription
    if case .array(let elements) = value { found = "an array of \(elements.count) values" }
    let wire = WireError(kind: .typeMismatch, path: path, message: "expected \(expected) at \(path), found \(found)")
    return DecodingError.dataCorrupted(
      .init(codingPath: entries.map(\.key), debugDescription: wire.message, underlyingError: wire))
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
    return mismatch(value, expectedName: _typeName(T.self), nilType: T.self, path: entries)
  }

  func mismatch(_ value: JSONValue, expectedName: String, nilType: Any.Type, path entries: [_PathEntry]) -> any Error {
    let path = _renderPath(entries)
    var found = value._foundDescription
    switch value {
    case .int, .double, .number:
      if expectedName.hasPrefix("Int") || expectedName.hasPrefix("UInt") {
        if case .double(let d) = value, d.rounded() != d {
          found += " (not an integer)"
        } else {
          found += " (out of range)"
        }
      } else if expectedName == "Double" || expectedName == "Float" {
        found += " (out of range)"
      }
    default:
      break
    }
    let wire = WireError(kind: .typeMismatch, path: path, message: "expected \(expectedName) at \(path), found \(found)")
    let context = DecodingError.Context(
      codingPath: entries.map(\.key), debugDescription: wire.message, underlyingError: wire)
    if case .null = value {
      return DecodingError.valueNotFound(nilType, context)
    }
    return DecodingError.typeMismatch(nilType, context)
  }

  /// The noun for the enum value at the current path.
  var currentNoun: String {
    path.entries().contains(where: { $0.style != .hidden }) ? "case" : rootNoun
  }

  /// The error for an enum value that is neither a string nor an object.
  func enumShapeMismatch(_ value: JSONValue) -> any Error {
    let path = _renderPath(self.path.entries())
    let expected = _signatures(of: type)
    let noun = currentNoun
    let wire = WireError(
      kind: .typeMismatch, path: path,
      message: "expected \(_article(noun)) \(noun) at \(path), found \(value._foundDescription)\(_expectedList(expected))",
      expected: expected)
    let context = DecodingError.Context(
      codingPath: codingPath, debugDescription: wire.message, underlyingError: wire)
    if case .null = value { return DecodingError.valueNotFound(type, context) }
    return DecodingError.typeMismatch(type, context)
  }

  /// Turns errors thrown by `T.init(from:)` into errors carrying a `WireError`.
  func translate<T: Decodable>(_ error: any Error, decoding type: T.Type, from value: JSONValue) -> any Error {
    let entries = path.entries()
    guard let decodingError = error as? DecodingError else {
      if error is WireError { return error }
      let path = _renderPath(entries)
      let wire = WireError(kind: .invalidValue, path: path, message: "invalid \(_typeName(T.self)) at \(path): \(error)")
      return DecodingError.dataCorrupted(
        .init(codingPath: codingPath, debugDescription: wire.message, underlyingError: wire))
    }
    let context: DecodingError.Context
    switch decodingError {
    case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
      context = c
    @unknown default:
      return error
    }
    let atThisValue = context.codingPath.count == entries.count
    if context.underlyingError is WireError {
      // A raw-value enum given a JSON value of the wrong type: list its cases.
      if atThisValue, _payloadlessCaseCount(T.self) != nil {
        switch decodingError {
        case .typeMismatch, .valueNotFound:
          let path = _renderPath(entries)
          let expected = caseSignatures(of: T.self)
          let noun = currentNoun
          let wire = WireError(
            kind: .typeMismatch, path: path,
            message: "expected \(_article(noun)) \(noun) at \(path), found \(value._foundDescription)\(_expectedList(expected))",
            expected: expected)
          return DecodingError.dataCorrupted(
            .init(codingPath: context.codingPath, debugDescription: wire.message, underlyingError: wire))
        default:
          break
        }
      }
      return error
    }

    if _isEnumType(T.self), atThisValue {
      // The synthesized init found zero or several known keys, or a raw value matched no case.
      var isCaseError = false
      if case .typeMismatch(let mismatched, _) = decodingError, mismatched == T.self {
        isCaseError = true
      } else if case .dataCorrupted = decodingError, _payloadlessCaseCount(T.self) != nil {
        switch value {
        case .string, .int, .double, .number, .bool: isCaseError = true
        default: break
        }
      }
      if isCaseError {
        return DecodingError.dataCorrupted(
          .init(codingPath: context.codingPath, debugDescription: "", underlyingError: unknownCase(T.self, value)))
      }
    }
    let extra = context.codingPath.count > entries.count
      ? Array(context.codingPath[entries.count...]) : []
    let path = _renderPath(entries, extra: extra)
    let wire: WireError
    switch decodingError {
    case .keyNotFound(let key, _):
      let keyPath = _renderPath(entries, extra: extra)
      wire = WireError(kind: .missingKey, path: keyPath, message: "missing key \(_quoted(key.stringValue)) at \(keyPath)")
    case .valueNotFound(let t, _):
      wire = WireError(kind: .typeMismatch, path: path, message: "expected \(_typeName(t)) at \(path), found null")
    case .typeMismatch(let t, let c):
      wire = WireError(kind: .typeMismatch, path: path, message: "expected \(_typeName(t)) at \(path): \(c.debugDescription)")
    default:
      wire = WireError(kind: .invalidValue, path: path, message: "invalid \(_typeName(T.self)) at \(path): \(context.debugDescription)")
    }
    return DecodingError.dataCorrupted(
      .init(codingPath: context.codingPath, debugDescription: wire.message, underlyingError: wire))
  }

  /// The error for an enum value naming no case.
  func unknownCase<T: Decodable>(_ type: T.Type, _ value: JSONValue) -> WireError {
    let path = _renderPath(self.path.entries())
    let expected = caseSignatures(of: T.self)
    let list = _expectedList(expected)
    let noun = currentNoun
    let names = _caseNames(of: T.self)
    switch value {
    case .string(let name):
      return WireError(
        kind: .unknownCase, path: path,
        message: "unknown \(noun) \(_quoted(name)) at \(path)\(_didYouMean(name, among: names))\(list)", expected: expected)
    case .object(let members) where members.count == 1:
      let name = members[0].key
      return WireError(
        kind: .unknownCase, path: path,
        message: "unknown \(noun) \(_quoted(name)) at \(path)\(_didYouMean(name, among: names))\(list)", expected: expected)
    case .object(let members) where members.isEmpty:
      return WireError(kind: .typeMismatch, path: path, message: "expected \(_article(noun)) \(noun) at \(path), found empty object\(list)", expected: expected)
    case .object(let members):
      let keys = members.prefix(5).map { _quoted($0.key) }.joined(separator: ", ")
      return WireError(
        kind: .typeMismatch, path: path,
        message: "expected one key (the \(noun)) at \(path), found \(members.count) keys: \(keys)\(members.count > 5 ? ", …" : "")\(list)",
        expected: expected)
    case .int(let i):
      return WireError(kind: .unknownCase, path: path, message: "unknown \(noun) \(i) at \(path)\(list)", expected: expected)
    case .double, .number, .bool:
      return WireError(kind: .unknownCase, path: path, message: "unknown \(noun) \(_truncated(value.serialized(), to: _quoteLimit)) at \(path)\(list)", expected: expected)
    default:
      return WireError(kind: .typeMismatch, path: path, message: "expected \(_article(noun)) \(noun) at \(path), found \(value._foundDescription)\(list)", expected: expected)
    }
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
