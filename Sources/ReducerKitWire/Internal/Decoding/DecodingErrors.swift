// What both decoders (the fast one and the reference one) accept and say: the rules for
// keys and enum payloads, and every error message, in one place so the two cannot differ.

/// The noun for an enum value at `entries`: the root's noun (`action`, …) at the top,
/// `case` below it.
func _noun(at entries: [_PathEntry], rootNoun: String) -> String {
  entries.contains(where: { $0.style != .hidden }) ? "case" : rootNoun
}

/// Fails with `.tooDeep` when decoding one more level could exhaust the thread's stack.
/// `floor` caches the calling thread's stack bound plus `_stackReserve` (0: not yet read;
/// 1: unknown, never checked).
func _checkDecodingStack<T>(
  _ type: T.Type, floor: inout UInt, depth: Int, path makePath: () -> [_PathEntry]
) throws {
  if floor == 0 {
    let bound = _stackLowerBound()
    floor = bound == 0 ? 1 : bound + _stackReserve
  }
  guard floor > 1, _currentStackAddress() < floor else { return }
  let entries = makePath()
  let rendered = _renderPath(entries)
  let wire = WireError(
    kind: .tooDeep, path: rendered,
    message: "\(_typeName(T.self)) values nested too deeply for the calling thread's stack at \(rendered) "
      + "(\(depth) levels); decode on a thread with a larger stack")
  throw DecodingError.dataCorrupted(
    // A closure, not `\.key`: a key path's class metadata is instantiated on first use, and
    // that takes more stack than is left here.
    .init(codingPath: entries.map { $0.key }, debugDescription: wire.message, underlyingError: wire))
}

/// Rejects a key of `members` that `Key` does not know (struct fields, case payloads). Keys
/// of dictionaries and other open key types are all known.
@inline(__always)
func _checkKeys<Key: CodingKey>(
  _ members: [(key: String, value: JSONValue)], _ keyType: Key.Type, owner: Any.Type? = nil, caseName: String? = nil,
  path makePath: () -> [_PathEntry]
) throws {
  for member in members where Key(stringValue: member.key) == nil {
    throw _unknownKeyError(member.key, Key.self, path: makePath(), owner: owner, caseName: caseName)
  }
}

/// An enum written as an object has one key, its case: reject keys beside it that name no
/// case (several known keys are left to `init(from:)`, which may expect them).
func _checkEnumKeys<Key: CodingKey>(
  _ members: [(key: String, value: JSONValue)], _ keyType: Key.Type, at entries: [_PathEntry], noun: String,
  owner: Any.Type? = nil
) throws {
  let known = members.filter { Key(stringValue: $0.key) != nil }
  guard !known.isEmpty, let unknown = members.first(where: { Key(stringValue: $0.key) == nil }) else { return }
  guard known.count == 1 else { throw _unknownKeyError(unknown.key, Key.self, path: entries, owner: owner) }
  let keyPath = _renderPath(entries + [_PathEntry(key: _StringKey(unknown.key), style: .key)])
  let wire = WireError(
    kind: .unknownKey, path: keyPath,
    message: "unknown key \(_quoted(unknown.key)) at \(keyPath) beside \(noun) \(_quoted(known[0].key)); "
      + "\(_article(noun)) \(noun) is a string or an object with exactly one key")
  throw DecodingError.dataCorrupted(
    .init(codingPath: entries.map(\.key), debugDescription: wire.message, underlyingError: wire))
}

/// The error for an object key `Key` does not know (a container of `owner`'s values, of case
/// `caseName`'s payload: a `WireCodable` owner's shape lists the keys).
func _unknownKeyError<Key: CodingKey>(
  _ name: String, _ keyType: Key.Type, path entries: [_PathEntry], owner: Any.Type? = nil, caseName: String? = nil
) -> any Error {
  let containerPath = _renderPath(entries)
  let keyPath = _renderPath(entries + [_PathEntry(key: _StringKey(name), style: .key)])
  let known =
    (_wireCodingKeys(Key.self, owner: owner, caseName: caseName) ?? _codingKeyCases(of: Key.self))?.map(\.stringValue)
    ?? []
  var message = "unknown key \(_quoted(name)) at \(keyPath)\(_didYouMean(name, among: known))"
  if !known.isEmpty {
    message += "; expected keys at \(containerPath): \(_listed(known.map { _quoted($0) }))"
  }
  let wire = WireError(kind: .unknownKey, path: keyPath, message: message, expected: known)
  return DecodingError.dataCorrupted(
    .init(codingPath: entries.map(\.key), debugDescription: wire.message, underlyingError: wire))
}

/// The storage of the nested container for an enum case's payload. `bare`: the case was
/// written as a bare string (`"setCount"`), so no value was given. (Inlined: it runs for every
/// enum payload the fast decoder reads, specialized per key type.)
@inline(__always)
func _payloadStorage<NK: CodingKey>(
  _ value: JSONValue, keys: NK.Type, caseName: String, bare: Bool, owner: Any.Type? = nil,
  path makePath: () -> [_PathEntry]
) throws -> _KeyedStorage {
  // A `WireCodable` enum's case keys come from its shape (its payload keys are always the
  // synthesized ones), other types' from A2.
  let keyCount = _wireCodingKeys(NK.self, owner: owner, caseName: caseName)?.count ?? _payloadlessCaseCount(NK.self)
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
    if let n = positional { throw _payloadShapeMismatch(value, expected: "an array of \(n) values", path: makePath()) }
    try _checkKeys(members, NK.self, owner: owner, caseName: caseName, path: makePath)
    return .object(members)
  case .array(let elements):
    if let n = positional, elements.count > n {
      throw _payloadShapeMismatch(value, expected: "an array of \(n) values", path: makePath())
    }
    return .payloadArray(elements)
  case .null where keyCount != nil:
    throw _payloadShapeMismatch(
      value, expected: positional.map { "an array of \($0) values" } ?? "an object", path: makePath())
  default:
    return .payloadBare(value)
  }
}

func _payloadShapeMismatch(_ value: JSONValue, expected: String, path entries: [_PathEntry]) -> any Error {
  let path = _renderPath(entries)
  var found = value._foundDescription
  if case .array(let elements) = value { found = "an array of \(elements.count) values" }
  let wire = WireError(kind: .typeMismatch, path: path, message: "expected \(expected) at \(path), found \(found)")
  return DecodingError.dataCorrupted(
    .init(codingPath: entries.map(\.key), debugDescription: wire.message, underlyingError: wire))
}

/// The error for `value` not being an `expectedName` (or out of its range).
func _mismatchError(_ value: JSONValue, expectedName: String, nilType: Any.Type, path entries: [_PathEntry]) -> any Error {
  let path = _renderPath(entries)
  var found = value._foundDescription
  switch value {
  case .int, .double, .number:
    if expectedName.hasPrefix("Int") || expectedName.hasPrefix("UInt") {
      if case .double(let d) = value, d.rounded() != d {
        found += " (not an integer)"
      } else if value._inexactDouble != nil {
        // A fraction or exponent whose Double is a different whole number (the parser's
        // `.number`): `1.0000000000000001`, `1e-400`, `9007199254740993.0`.
        found += " (not exactly an integer; write integers without a fraction or exponent)"
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

/// The error for an enum value that is neither a string nor an object.
func _enumShapeMismatch(_ value: JSONValue, type: Any.Type, at entries: [_PathEntry], noun: String) -> any Error {
  let path = _renderPath(entries)
  let expected = _signatures(of: type)
  let wire = WireError(
    kind: .typeMismatch, path: path,
    message: "expected \(_article(noun)) \(noun) at \(path), found \(value._foundDescription)\(_expectedList(expected))",
    expected: expected)
  let context = DecodingError.Context(
    codingPath: entries.map(\.key), debugDescription: wire.message, underlyingError: wire)
  if case .null = value { return DecodingError.valueNotFound(type, context) }
  return DecodingError.typeMismatch(type, context)
}

/// The error for a key a keyed container does not have (`storage` is what it reads).
func _missingKeyError(_ key: some CodingKey, in storage: _KeyedStorage, at entries: [_PathEntry]) -> any Error {
  let path = _renderPath(entries)
  let name = key.stringValue
  let wire: WireError
  switch storage {
  case .object, .bareCase, .current:
    if let i = _positionalIndex(name) {
      // An enum payload (`_0`, `_1`, …): never show Swift's synthesized key names.
      wire = WireError(
        kind: .missingKey, path: path,
        message: "missing value at \(path): this case takes \(i == 0 ? "a value" : "at least \(i + 1) values")")
    } else {
      wire = WireError(kind: .missingKey, path: path, message: "missing key \(_quoted(name)) at \(path)")
    }
  case .payloadBare(let value):
    if let i = _positionalIndex(name) {
      wire = WireError(
        kind: .typeMismatch, path: path,
        message: "expected an array of at least \(i + 1) values at \(path), found \(value._foundDescription)")
    } else {
      wire = WireError(
        kind: .typeMismatch, path: path,
        message: "expected an object with key \(_quoted(name)) at \(path), found \(value._foundDescription)")
    }
  case .payloadArray(let elements):
    if let i = _positionalIndex(name) {
      wire = WireError(
        kind: .missingKey, path: path,
        message: "missing value [\(i)] at \(path); found an array of \(elements.count) value\(elements.count == 1 ? "" : "s")")
    } else {
      wire = WireError(
        kind: .typeMismatch, path: path,
        message: "expected an object with key \(_quoted(name)) at \(path), found array")
    }
  }
  return DecodingError.keyNotFound(
    key, .init(codingPath: entries.map(\.key), debugDescription: wire.message, underlyingError: wire))
}

/// The error for reading element `index` of an array of `count`.
func _missingElementError<T>(_ type: T.Type, index: Int, count: Int, at entries: [_PathEntry]) -> any Error {
  let path = _renderPath(entries)
  let wire = WireError(
    kind: .missingKey, path: path,
    message: "missing value [\(index)] at \(path); found an array of \(count) value\(count == 1 ? "" : "s")")
  return DecodingError.valueNotFound(
    T.self, .init(codingPath: entries.map(\.key), debugDescription: wire.message, underlyingError: wire))
}

/// Turns errors thrown by `T.init(from:)` for `value` at `entries` into errors carrying a
/// `WireError`.
func _translateDecodingError<T: Decodable>(
  _ error: any Error, decoding type: T.Type, from value: JSONValue, at entries: [_PathEntry], noun: String
) -> any Error {
  guard let decodingError = error as? DecodingError else {
    if error is WireError { return error }
    let path = _renderPath(entries)
    let wire = WireError(kind: .invalidValue, path: path, message: "invalid \(_typeName(T.self)) at \(path): \(error)")
    return DecodingError.dataCorrupted(
      .init(codingPath: entries.map(\.key), debugDescription: wire.message, underlyingError: wire))
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
    if atThisValue, _caseCountIfPayloadless(T.self) != nil {
      switch decodingError {
      case .typeMismatch, .valueNotFound:
        let path = _renderPath(entries)
        let expected = caseSignatures(of: T.self)
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

  if _typeIsEnum(T.self), atThisValue {
    // The synthesized init found zero or several known keys, or a raw value matched no case.
    var isCaseError = false
    if case .typeMismatch(let mismatched, _) = decodingError, mismatched == T.self {
      isCaseError = true
    } else if case .dataCorrupted = decodingError, _caseCountIfPayloadless(T.self) != nil {
      switch value {
      case .string, .int, .double, .number, .bool: isCaseError = true
      default: break
      }
    }
    if isCaseError {
      return DecodingError.dataCorrupted(
        .init(
          codingPath: context.codingPath, debugDescription: "",
          underlyingError: _unknownCaseError(T.self, value, at: entries, noun: noun)))
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
func _unknownCaseError<T: Decodable>(_ type: T.Type, _ value: JSONValue, at entries: [_PathEntry], noun: String) -> WireError {
  let path = _renderPath(entries)
  let expected = caseSignatures(of: T.self)
  let list = _expectedList(expected)
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
