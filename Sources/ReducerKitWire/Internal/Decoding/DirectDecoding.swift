// The direct path for `SynthesizedCodable` enums: a case is found by name in the enum's field
// records and its value built in place (payload, then the case's tag through the enum's value
// witnesses), without going through `init(from:)`. The records and witnesses are read into an
// `_EnumPlan` in Internal/ABI/Runtime.swift (A7); this file reads no runtime layout itself. It only ever succeeds: anything it does not
// read exactly as the synthesized `init(from:)` would (a form it does not take, a value that
// fails) is handed to `init(from:)`, which gives the value or the error. Trusted only after the
// first values of a type decoded to the same value both ways.

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif

/// Reads a JSON value as one payload value and initializes it at `target` (returns false, with
/// nothing initialized, when it cannot).
///
/// `@unchecked Sendable`: no stored properties (subclasses neither); it only knows a type.
class _PayloadReader: @unchecked Sendable {
  /// Reads the value of `key` in the payload of case `caseKey`.
  func read(
    _ value: JSONValue, into target: UnsafeMutableRawPointer, _ impl: _DecoderImpl, caseKey: _StringKey,
    key: _StringKey, style: _PathStyle
  ) -> Bool { false }
  /// Reads an `Int`, `String`, `Bool` or `Double` (false for other types).
  func readScalar(_ value: JSONValue, into target: UnsafeMutableRawPointer) -> Bool { false }
  /// Deinitializes a value this reader initialized at `target`.
  func destroy(_ target: UnsafeMutableRawPointer) {}
}

final class _TypedPayloadReader<P: Decodable>: _PayloadReader, @unchecked Sendable {  // no stored properties
  override func read(
    _ value: JSONValue, into target: UnsafeMutableRawPointer, _ impl: _DecoderImpl, caseKey: _StringKey,
    key: _StringKey, style: _PathStyle
  ) -> Bool {
    if P.self == Int.self || P.self == String.self || P.self == Bool.self || P.self == Double.self {
      return readScalar(value, into: target)
    }
    // The path `init(from:)` would be at: the case, then the value's key.
    let nested = _NestedPath(entries: [_PathEntry(key: caseKey, style: .key)])
    do {
      let read = try impl.unbox(value, as: P.self, base: impl.path.count, nested: nested, key: key, style: style)
      target.initializeMemory(as: P.self, to: read)
      return true
    } catch {
      return false  // left to init(from:), which reports it
    }
  }

  override func readScalar(_ value: JSONValue, into target: UnsafeMutableRawPointer) -> Bool {
    if P.self == Int.self {
      guard let int = _integer(value, as: Int.self) else { return false }
      target.initializeMemory(as: Int.self, to: int)
    } else if P.self == String.self {
      guard case .string(let string) = value else { return false }
      target.initializeMemory(as: String.self, to: string)
    } else if P.self == Bool.self {
      guard case .bool(let bool) = value else { return false }
      target.initializeMemory(as: Bool.self, to: bool)
    } else if P.self == Double.self {
      guard let double = _double(value) else { return false }
      target.initializeMemory(as: Double.self, to: double)
    } else {
      return false
    }
    return true
  }

  override func destroy(_ target: UnsafeMutableRawPointer) {
    target.assumingMemoryBound(to: P.self).deinitialize(count: 1)
  }
}

/// The reader of a payload value of type `type`, or nil when it is not `Decodable`.
func _payloadReader(_ type: Any.Type) -> _PayloadReader? {
  guard let decodable = type as? any Decodable.Type else { return nil }
  return _openPayloadReader(decodable)
}

private func _openPayloadReader<P: Decodable>(_ type: P.Type) -> _PayloadReader {
  _TypedPayloadReader<P>()
}

/// How a case's associated values are written.
enum _PayloadKind: UInt8 {
  /// None: `"name"`, `{"name": {}}` or `{"name": null}`.
  case none
  /// One unlabeled value, written bare: `{"name": value}`.
  case single
  /// Several unlabeled values, written as an array: `{"name": [a, b]}`.
  case positional
  /// Labeled values (or a mix), written as an object: `{"name": {"label": a, "_1": b}}`.
  case labeled
}

/// One associated value: its key (`_0` when unlabeled), its offset in the payload, its reader.
struct _PayloadElement {
  let key: String
  let offset: Int
  let reader: _PayloadReader
}

/// One case of an enum: its tag (the value witnesses' case index) and payload. (Plain fields,
/// no enum payloads: a leak checker must see the references, which an enum's spare bits hide.)
struct _EnumCase {
  let name: String
  let utf8: [UInt8]
  let tag: UInt32
  let kind: _PayloadKind
  /// `.single`: one; `.positional`, `.labeled`: every value, in order.
  let elements: [_PayloadElement]
  /// A `WireCodable` enum's case: the bytes of scratch memory its payload is read into (then
  /// the elements' offsets are in the scratch buffer, and `tag` is only its index), and where
  /// its offsets start in the plan's `offsets`.
  var scratchSize = 0
  var offsetsStart = 0
}

typealias _InjectEnumTag = @convention(c) (UnsafeMutableRawPointer, UInt32, UnsafeRawPointer) -> Void

/// The cases of an enum and how to build its values.
///
/// `@unchecked Sendable`: written once in `init`, only read after; the readers it holds have
/// no state.
final class _EnumPlan: @unchecked Sendable {
  /// The enum's metadata and its value witness that sets a case's tag (A7); nil for a
  /// `WireCodable` enum, which has `build`.
  let metadata: UnsafeRawPointer?
  let inject: _InjectEnumTag?
  let cases: [_EnumCase]
  /// A `WireCodable` enum's generated builder (one `switch` over the case index; `isWire`),
  /// the payload offsets of all its cases (each case's from its `offsetsStart`) and the
  /// largest alignment of a payload value. (Not optional: the hot path calls it without
  /// copying it out of the plan.)
  let isWire: Bool
  let build: _WireBuild
  let offsets: UnsafeMutableBufferPointer<Int>
  let scratchAlignment: Int

  /// A plan read from metadata (A7).
  init(metadata: UnsafeRawPointer, inject: _InjectEnumTag, cases: [_EnumCase]) {
    self.metadata = metadata
    self.inject = inject
    self.cases = cases
    isWire = false
    build = { _, _ in }
    offsets = .allocate(capacity: 1)
    scratchAlignment = 1
  }

  /// A `WireCodable` enum's plan.
  init(cases: [_EnumCase], build: @escaping _WireBuild, offsets: [Int], scratchAlignment: Int) {
    metadata = nil
    inject = nil
    self.cases = cases
    isWire = true
    self.build = build
    self.offsets = .allocate(capacity: max(offsets.count, 1))
    _ = self.offsets.initialize(from: offsets)
    self.scratchAlignment = scratchAlignment
  }

  deinit { offsets.deallocate() }

  /// Builds case `index` at `result`, its payload read by `fill` (into `result` itself for a
  /// plan read from metadata, into scratch memory for a `WireCodable` one); false (nothing
  /// initialized) when `fill` fails.
  @inline(__always)
  func make(at index: Int, into result: UnsafeMutableRawPointer, _ fill: (UnsafeMutableRawPointer) -> Bool) -> Bool {
    guard isWire else {
      guard fill(result) else { return false }
      inject.unsafelyUnwrapped(result, cases[index].tag, metadata.unsafelyUnwrapped)
      return true
    }
    let offsets = UnsafePointer(self.offsets.baseAddress.unsafelyUnwrapped + cases[index].offsetsStart)
    let scratchSize = cases[index].scratchSize
    // A fixed size for the common small payloads: the allocation is then a plain stack slot.
    if scratchSize <= 64, scratchAlignment <= 16 {
      return withUnsafeTemporaryAllocation(byteCount: 64, alignment: 16) { scratch in
        let base = scratch.baseAddress.unsafelyUnwrapped
        guard fill(base) else { return false }
        build(index, _WirePayload(base: base, offsets: offsets, result: result))
        return true
      }
    }
    return withUnsafeTemporaryAllocation(byteCount: scratchSize, alignment: max(scratchAlignment, 16)) { scratch in
      let base = scratch.baseAddress.unsafelyUnwrapped
      guard fill(base) else { return false }
      build(index, _WirePayload(base: base, offsets: offsets, result: result))
      return true
    }
  }

  /// The index of the case named `name`.
  @inline(__always)
  func index(of name: String) -> Int? {
    for i in cases.indices where cases[i].name == name { return i }
    return nil
  }

  /// The case named `name`.
  func find(_ name: String) -> _EnumCase? {
    index(of: name).map { cases[$0] }
  }

  /// The index of the case whose name is the UTF-8 text `name`.
  @inline(__always)
  func find(utf8 name: UnsafeBufferPointer<UInt8>) -> Int? {
    for i in cases.indices where cases[i].utf8.count == name.count {
      if cases[i].utf8.withUnsafeBufferPointer({ memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0 }) {
        return i
      }
    }
    return nil
  }
}

// MARK: - Trust

typealias _EnumState = _PlanState<_EnumPlan>

let _enumPlans = _PlanTable<_EnumPlan>()

/// The state of `T`, reading its plan the first time.
func _enumState<T: Decodable>(_ type: T.Type) -> _EnumState {
  _enumPlans.state(of: T.self) {
    // A `WireCodable` enum: the plan of its shape (no metadata read), trusted from the first value.
    if let wire = _wireShaped(T.self) {
      guard _wireFastPathsRequested, let plan = wire._wireEnumPlan else { return nil }
      return (plan, true)
    }
    guard T.self is any SynthesizedCodable.Type, _wireFastPaths else { return nil }
    _recordLayoutRead(T.self)
    guard let plan = _rawEnumPlan(T.self),
      // The names `init(from:)` takes (found by probing it) are the cases' names: no renamed keys.
      Set(_caseNames(of: T.self)) == Set(plan.cases.map(\.name))
    else { return nil }
    return (plan, false)
  }
}

/// Records whether the direct path read what `init(from:)` read for a value of `T`.
func _enumChecked<T>(_ type: T.Type, agreed: Bool) {
  _enumPlans.checked(T.self, agreed: agreed)
}

/// Whether two values of `T` encode to the same bytes (the check between the two paths).
func _sameEncoding<T>(_ a: T, _ b: T) -> Bool {
  guard let a = a as? any Encodable, let b = b as? any Encodable else { return false }
  return _encodedBytes(a) == _encodedBytes(b) && _encodedBytes(a) != nil
}

private func _encodedBytes<E: Encodable>(_ value: E) -> [UInt8]? {
  try? WireEncoder(explicitNulls: true).encode(value)
}

// MARK: - Decoding

extension _DecoderImpl {
  /// Builds a `T` from `value` by `plan` at `result`; false (nothing initialized) when the
  /// direct path does not read it (then `init(from:)` decides: it gives the value or the error).
  func decodeDirect<T>(_ value: JSONValue, plan: _EnumPlan, into result: UnsafeMutablePointer<T>) -> Bool {
    let index: Int
    let payload: JSONValue?
    switch value {
    case .string(let name):
      guard let found = plan.index(of: name), plan.cases[found].kind == .none else { return false }
      index = found
      payload = nil
    case .object(let members):
      guard members.count == 1, let found = plan.index(of: members[0].key) else { return false }
      index = found
      payload = members[0].value
    default:
      return false
    }
    return plan.make(at: index, into: UnsafeMutableRawPointer(result)) { target in
      readPayload(payload, plan.cases[index], into: target)
    }
  }

  /// Initializes the payload of `enumCase` at `target` from `payload` (nil: a bare string).
  private func readPayload(_ payload: JSONValue?, _ enumCase: _EnumCase, into target: UnsafeMutableRawPointer)
    -> Bool
  {
    let caseKey = _StringKey(enumCase.name)
    let elements = enumCase.elements
    switch enumCase.kind {
    case .none:
      switch payload {
      case nil, .null?: return true
      case .object(let members)? where members.isEmpty: return true
      default: return false
      }
    case .single:
      // Any value stands for the one value (an object or array too: it is the value's own).
      guard let payload else { return false }
      return elements[0].reader.read(payload, into: target, self, caseKey: caseKey, key: _StringKey("_0"), style: .hidden)
    case .positional:
      guard case .array(let values)? = payload, values.count == elements.count else { return false }
      return readAll(elements.count, into: target, caseKey: caseKey) { i in
        (values[i], elements[i].offset, elements[i].reader, _StringKey("_\(i)"), .index)
      }
    case .labeled:
      guard case .object(let members)? = payload, members.count == elements.count else { return false }
      return readAll(elements.count, into: target, caseKey: caseKey) { i in
        let key = elements[i].key
        guard let member = members.first(where: { $0.key == key }) else { return nil }
        return (member.value, elements[i].offset, elements[i].reader, _StringKey(key), .key)
      }
    }
  }

  /// Reads `count` values in order; on a failure, deinitializes those already read.
  private func readAll(
    _ count: Int, into target: UnsafeMutableRawPointer, caseKey: _StringKey,
    _ element: (Int) -> (JSONValue, Int, _PayloadReader, _StringKey, _PathStyle)?
  ) -> Bool {
    for i in 0..<count {
      guard let (value, offset, reader, key, style) = element(i),
        reader.read(value, into: target + offset, self, caseKey: caseKey, key: key, style: style)
      else {
        for j in 0..<i {
          if let (_, offset, reader, _, _) = element(j) { reader.destroy(target + offset) }
        }
        return false
      }
    }
    return true
  }
}

// MARK: - Small actions straight from bytes

/// The bytes of JSON whitespace.
@inline(__always)
private func _isSpace(_ byte: UInt8) -> Bool {
  byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
}

/// Builds a value of a trusted enum at `result` from the JSON text of its commonest forms,
/// `"name"` and `{"name": scalar}` (an ASCII name without escapes; an integer of at most 18
/// digits without fraction or exponent, an ASCII string without escapes, `true`, `false`),
/// without parsing it into a tree. False (nothing initialized) for any other text: the parser
/// and the decoder take it, and read what this reads the same way.
func _decodeSmallEnum<T>(_ bytes: UnsafeRawBufferPointer, plan: _EnumPlan, into result: UnsafeMutablePointer<T>)
  -> Bool
{
  guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
  let end = bytes.count
  var i = 0
  func skipSpace() { while i < end, _isSpace(base[i]) { i += 1 } }
  /// The bytes of an ASCII string without escapes starting at the `"` at `i`; moves past its
  /// closing quote.
  func simpleBytes() -> UnsafeBufferPointer<UInt8>? {
    guard i < end, base[i] == UInt8(ascii: "\"") else { return nil }
    let start = i + 1
    var j = start
    while j < end {
      let byte = base[j]
      if byte == UInt8(ascii: "\"") { break }
      guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
      j += 1
    }
    guard j < end else { return nil }
    i = j + 1
    return UnsafeBufferPointer(start: base + start, count: j - start)
  }
  skipSpace()
  guard i < end else { return false }
  if base[i] == UInt8(ascii: "\"") {
    guard let name = simpleBytes() else { return false }
    skipSpace()
    guard i == end, let index = plan.find(utf8: name), plan.cases[index].kind == .none else { return false }
    return plan.make(at: index, into: UnsafeMutableRawPointer(result)) { _ in true }
  }
  guard base[i] == UInt8(ascii: "{") else { return false }
  i += 1
  skipSpace()
  guard let name = simpleBytes(), let index = plan.find(utf8: name), plan.cases[index].kind == .single else {
    return false
  }
  // Read in place, not copied out of the plan (which keeps the reader for good).
  unowned(unsafe) let reader = plan.cases[index].elements[0].reader
  let offset = plan.cases[index].elements[0].offset
  skipSpace()
  guard i < end, base[i] == UInt8(ascii: ":") else { return false }
  i += 1
  skipSpace()
  guard i < end else { return false }
  let value: JSONValue
  switch base[i] {
  case UInt8(ascii: "\""):
    guard let string = simpleBytes() else { return false }
    value = .string(String(decoding: string, as: UTF8.self))
  case UInt8(ascii: "t"):
    guard end - i >= 4, base[i + 1] == UInt8(ascii: "r"), base[i + 2] == UInt8(ascii: "u"),
      base[i + 3] == UInt8(ascii: "e")
    else { return false }
    i += 4
    value = .bool(true)
  case UInt8(ascii: "f"):
    guard end - i >= 5, base[i + 1] == UInt8(ascii: "a"), base[i + 2] == UInt8(ascii: "l"),
      base[i + 3] == UInt8(ascii: "s"), base[i + 4] == UInt8(ascii: "e")
    else { return false }
    i += 5
    value = .bool(false)
  case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
    let negative = base[i] == UInt8(ascii: "-")
    if negative { i += 1 }
    let digitsStart = i
    var magnitude = 0
    while i < end, base[i] >= UInt8(ascii: "0"), base[i] <= UInt8(ascii: "9") {
      magnitude = magnitude &* 10 &+ Int(base[i] &- UInt8(ascii: "0"))
      i += 1
    }
    let digits = i - digitsStart
    // No leading zero, no "-0", at most 18 digits (no overflow); a fraction or an exponent is
    // left to the parser.
    guard digits > 0, digits <= 18, base[digitsStart] != UInt8(ascii: "0") || (digits == 1 && !negative),
      i == end || (base[i] != UInt8(ascii: ".") && base[i] != UInt8(ascii: "e") && base[i] != UInt8(ascii: "E"))
    else { return false }
    value = .int(Int64(negative ? -magnitude : magnitude))
  default:
    return false
  }
  skipSpace()
  guard i < end, base[i] == UInt8(ascii: "}") else { return false }
  i += 1
  skipSpace()
  guard i == end else { return false }
  return plan.make(at: index, into: UnsafeMutableRawPointer(result)) { target in
    reader.readScalar(value, into: target + offset)
  }
}
