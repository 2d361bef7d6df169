// Every assumption the wire codec makes about the Swift runtime, in one place.
//
// The wire format itself needs to know a few things Swift's public API does not say; the fast
// paths need one more. Each is listed here with the check that verifies it, run once before
// the first encode or decode (`_wireRuntimeChecks`). Numbers are not reused: a gap is an
// assumption the codec no longer makes.
//
//   A1 metadata-kind (required)   The first word of a type's metadata is its kind: 0x200 for
//      a struct, 0x201 for an enum, 0x202 for Optional. Used to tell an enum from a struct
//      (`_isEnumType`), which decides the wire form of a value (`"increment"` versus
//      `{"increment":{}}`), and by the direct path for `SynthesizedCodable` structs
//      (DirectEncoding.swift: only a struct has one).
//   A2 enum-descriptor (required) An enum's metadata holds its nominal type descriptor in its
//      second word; the descriptor's low 5 flag bits are its context kind (18 = enum), and at
//      byte offsets 20 and 24 it holds the number of payload cases (low 24 bits) and of empty
//      cases. Cross-checked against the value witness table, one word before the metadata:
//      8 function pointers, then size, stride, flags (UInt32), extra inhabitants (UInt32).
//      Used to count the keys of a `CodingKey` enum (messages list them; payload shapes).
//   A3 enum-tag (required)        A payload-less enum stores its case index (declaration
//      order) in 0, 1 or 2 bytes. Used to list a `CodingKey` enum's keys, for messages and
//      JSON Schemas.
//   A7 enum-fields (fast path)    An enum's descriptor points (relative, at +16) to its field
//      descriptor: record size at +10, record count at +12, records from +16, one per case in
//      tag order (payload cases first), each flags (bit 0: indirect), a relative mangled
//      payload type name and a relative case name. Tuple metadata (kind 0x301) holds its
//      element count, its labels and (type, offset) pairs. A value is built by initializing
//      the payload at offset 0 and calling the value witness `destructiveInjectEnumTag` (at
//      +104 when the flags at +80 have 0x200000). Read into an `_EnumPlan` (`_rawEnumPlan`,
//      below) for the direct path for `SynthesizedCodable` enums (DirectDecoding.swift); the
//      check builds every case of sample enums (single- and multi-payload, labeled, generic)
//      and compares them with the real values.
//
// When a required check fails, the reads behind it answer "unknown" (`_payloadlessCaseCount`
// returns nil: messages lose their key lists, schemas their enums' cases); A1 has no
// substitute, and the toolchain check in the Wire tests (LayoutTests) fails naming it. When a
// fast-path check fails, `_wireFastPaths` is false and `SynthesizedCodable` types go through
// `Codable` (`WireCodable` types keep their direct paths: they read no layout); with
// `REDUCERKIT_WIRE_FAST_PATHS=0` every encode and decode takes the reference codec
// (Internal/Reference), which writes and accepts the same JSON.
//
// A `WireCodable` type (WireCodable.swift, written by `@Wire`) needs none of these in the
// fast codec, the patch engine, messages and schemas:
// - not A7 nor the standard library's `_forEachField`: its shape comes from generated code
//   (key paths' `MemoryLayout.offset(of:)`, one generated `switch` that builds its cases),
//   trusted without sampling;
// - not A1: whether it is an enum comes from its shape (`_typeFacts` in WireCodable.swift,
//   cached per type);
// - not A2/A3: a payload-less `WireCodable` enum's cases and values come from its shape and
//   builder (`_caseCountIfPayloadless`, `_valuesIfPayloadless`), and the keys of its
//   `CodingKeys` and its cases' `…CodingKeys` (unknown-key messages, a case's payload form in
//   `_payloadStorage`, JSON Schemas in Probe.swift) from its shape's names
//   (`_wireCodingKeys`). Exception: a struct's own `init(from:)` that reads another key type
//   than its `CodingKeys` has that type's keys read by A2/A3.
// The reference codec, the judge, reads A1 for every type (`_referenceIsEnumType`) and A2/A3
// for every key type: it never reads shapes, on purpose.
// Debug builds record every read made outside the start-up checks and the reference
// encoder, per thread (`_noteRuntimeRead`); WireRuntimeReadTests asserts none concerns the
// shipped `WireCodable` types (watched fail before each change).
// For every other type: A1-A3, and for `SynthesizedCodable` types A7 and `_forEachField`.
//
// Every read of the runtime's layout is in this file; the code that uses what they read (the
// fast codec, the direct paths) reads no metadata, descriptor or witness table itself. An
// upgrade that breaks an assumption is a change to this file: its reads, and its checks.

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import ReducerKitPlatform

// MARK: - The switch

/// Whether the fast paths that read the runtime's layout (A7 enum plans, `_forEachField`
/// struct plans) are on: the environment allows fast paths (`REDUCERKIT_WIRE_FAST_PATHS` is
/// not `0`) and A7 holds. `WireCodable` types need only the former. Read once.
let _wireFastPaths: Bool = _wireFastPathsRequested && _wireRuntimeChecks.allFastPathChecksHold

/// Whether the environment allows the fast paths (`REDUCERKIT_WIRE_FAST_PATHS=0` does not).
let _wireFastPathsRequested: Bool = {
  guard let value = getenv("REDUCERKIT_WIRE_FAST_PATHS") else { return true }
  return String(cString: value) != "0"
}()

/// With `REDUCERKIT_WIRE_CHECK=1` every encode and decode runs both codecs and stops the
/// process with a report if they differ in any byte, value or error (fuzzing and tests).
let _wireCrossCheck: Bool = {
  guard let value = getenv("REDUCERKIT_WIRE_CHECK") else { return false }
  return String(cString: value) == "1"
}()

/// Which codec `WireEncoder` and `WireDecoder` run: one branch on the hot path.
enum _WireCodecMode: UInt8 {
  case fast, reference, crossCheck
}

let _wireCodecMode: _WireCodecMode =
  _wireCrossCheck ? .crossCheck : _wireFastPathsRequested ? .fast : .reference

// MARK: - The checks

/// One assumption and whether it held.
struct _RuntimeCheck: Sendable {
  /// `A1 metadata-kind`, …
  var id: String
  /// Only the fast paths depend on it (else the wire format does).
  var fastPathOnly: Bool
  /// Why it failed, or nil when it held.
  var failure: String?
}

struct _RuntimeChecks: Sendable {
  let checks: [_RuntimeCheck]
  /// The fast paths' assumptions (A7) hold.
  let allFastPathChecksHold: Bool
  /// The enum metadata reads (A2, A3) can be trusted.
  let enumMetadataTrusted: Bool

  init(checks: [_RuntimeCheck]) {
    self.checks = checks
    allFastPathChecksHold = checks.allSatisfy { !$0.fastPathOnly || $0.failure == nil }
    enumMetadataTrusted = checks.allSatisfy { $0.fastPathOnly || $0.id.hasPrefix("A1") || $0.failure == nil }
  }
}

// Types with known layouts to check the reads against.
private enum _ProbeKeys: CodingKey { case alpha, beta, gamma }
private enum _ProbeWide: CodingKey {
  case k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11, k12, k13, k14, k15, k16, k17, k18, k19
}
private enum _ProbePayload { case a(Int), b }
private enum _ProbeCases: Equatable { case x, y(Int), z(label: String), w(Int, String?), v }
private enum _ProbeGeneric<T: Equatable>: Equatable { case one(T), two(T, n: Int), empty }
private enum _ProbeOptional: Equatable { case some(String?), nothing }
private enum _ProbeTuple { case t(Int8, Int, String, Bool) }
private struct _ProbeStruct { var a = 1 }

/// The results of checking every assumption, computed once.
let _wireRuntimeChecks: _RuntimeChecks = {
  func check(_ id: String, fastPathOnly: Bool, _ body: () -> String?) -> _RuntimeCheck {
    _RuntimeCheck(id: id, fastPathOnly: fastPathOnly, failure: body())
  }
  return _RuntimeChecks(checks: [
    check("A1 metadata-kind", fastPathOnly: false) {
      // Mirror (public API) tells enums from structs for values; the kind word must agree.
      let samples: [(Any.Type, Any, Bool)] = [
        (_ProbeKeys.self, _ProbeKeys.beta, true), (_ProbePayload.self, _ProbePayload.a(1), true),
        (_ProbeStruct.self, _ProbeStruct(), false), (Int.self, 1, false),
      ]
      for (type, value, isEnum) in samples {
        let mirrorSays = Mirror(reflecting: value).displayStyle == .enum
        guard mirrorSays == isEnum, _rawIsEnumType(type) == isEnum else {
          return "metadata kind of \(type) is \(_metadataKind(type)), expected an enum: \(isEnum)"
        }
      }
      if _rawIsEnumType(Int?.self) { return "Optional<Int> reads as a plain enum (kind \(_metadataKind(Int?.self)))" }
      if _metadataKind(_ProbeStruct.self) != _metadataKindStruct {
        return "the metadata kind of a struct is \(_metadataKind(_ProbeStruct.self)), expected \(_metadataKindStruct)"
      }
      return nil
    },
    check("A2 enum-descriptor", fastPathOnly: false) {
      let found = (_rawPayloadlessCaseCount(_ProbeKeys.self), _rawPayloadlessCaseCount(_ProbeWide.self))
      guard found.0 == 3, found.1 == 20 else {
        return "case counts read as \(String(describing: found.0)) and \(String(describing: found.1)), expected 3 and 20"
      }
      guard _rawPayloadlessCaseCount(_ProbePayload.self) == nil, _rawPayloadlessCaseCount(_ProbeStruct.self) == nil
      else { return "an enum with a payload case or a struct read as a payload-less enum" }
      return nil
    },
    check("A3 enum-tag", fastPathOnly: false) {
      guard let cases = _rawPayloadlessCases(of: _ProbeKeys.self), cases == [.alpha, .beta, .gamma] else {
        return "building _ProbeKeys from tags 0, 1, 2 did not give .alpha, .beta, .gamma"
      }
      return nil
    },
    check("A7 enum-fields", fastPathOnly: true) { _enumFieldsCheck() },
  ])
}()

/// Builds every case of the A7 sample enums by their plans; nil when all equal the real values.
private func _enumFieldsCheck() -> String? {
  func build<T>(_ type: T.Type, _ name: String, _ payload: (UnsafeMutableRawPointer) -> Void) -> T? {
    guard let plan = _rawEnumPlan(T.self), let found = plan.index(of: name) else { return nil }
    return withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buffer in
      let target = UnsafeMutableRawPointer(buffer.baseAddress.unsafelyUnwrapped)
      payload(target)
      _ = plan.make(at: found, into: target) { _ in true }
      return buffer.baseAddress.unsafelyUnwrapped.move()
    }
  }
  let built: [Bool] = [
    build(_ProbeCases.self, "x") { _ in } == .x,
    build(_ProbeCases.self, "v") { _ in } == .v,
    build(_ProbeCases.self, "y") { $0.initializeMemory(as: Int.self, to: 7) } == .y(7),
    build(_ProbeCases.self, "z") { $0.initializeMemory(as: String.self, to: "s") } == .z(label: "s"),
    build(_ProbeCases.self, "w") { $0.initializeMemory(as: (Int, String?).self, to: (3, "t")) } == .w(3, "t"),
    build(_ProbeGeneric<String>.self, "one") { $0.initializeMemory(as: String.self, to: "g") } == .one("g"),
    build(_ProbeGeneric<String>.self, "two") { $0.initializeMemory(as: (String, Int).self, to: ("h", 2)) }
      == .two("h", n: 2),
    build(_ProbeGeneric<String>.self, "empty") { _ in } == .empty,
    build(_ProbeOptional.self, "some") { $0.initializeMemory(as: String?.self, to: nil) } == .some(nil),
    build(_ProbeOptional.self, "nothing") { _ in } == .nothing,
  ]
  guard built.allSatisfy({ $0 }) else { return "building sample enum cases by their field records gave \(built)" }
  guard let plan = _rawEnumPlan(_ProbeCases.self), let z = plan.find("z"), z.kind == .labeled,
    z.elements.map(\.key) == ["label"], let w = plan.find("w"), w.kind == .positional,
    w.elements.map(\.offset) == [0, 8]
  else { return "the payload shapes of _ProbeCases read wrong" }
  guard let wide = _rawEnumPlan(_ProbeTuple.self), let t = wide.find("t"), t.kind == .positional,
    t.elements.map(\.offset) == [0, 8, 16, 32]
  else { return "the element offsets of (Int8, Int, String, Bool) read wrong" }
  return nil
}

/// A2 and A3 held (read once).
let _enumMetadataTrusted: Bool = _wireRuntimeChecks.enumMetadataTrusted

// MARK: - Reads, recorded (debug builds)

#if DEBUG
  /// Debug builds: every type the codec read the layout of (A1-A3 above and below, A7 and
  /// `_forEachField` through `_recordLayoutRead`), outside the start-up checks and the
  /// reference codec, by the thread that read it (tests run side by side; one test's reads are
  /// those of its thread). WireRuntimeReadTests asserts that no `WireCodable` type is among them.
  nonisolated(unsafe) private var _runtimeReads: [UInt: [ObjectIdentifier: Any.Type]] = [:]
  private let _runtimeReadsLock = Lock()

  private var _currentThreadID: UInt {
    #if canImport(Darwin)
      UInt(bitPattern: pthread_self())
    #else
      UInt(pthread_self())
    #endif
  }
#endif

/// Records (in debug builds) that the layout of `type` is read.
@inline(__always)
func _noteRuntimeRead(_ type: Any.Type) {
  #if DEBUG
    let thread = _currentThreadID
    _runtimeReadsLock.withLock { _runtimeReads[thread, default: [:]][ObjectIdentifier(type)] = type }
  #endif
}

/// The names (`String(reflecting:)`) of the types whose layout this thread read since its last
/// `_debugResetRuntimeReads`; empty in release builds, which record nothing.
func _debugRuntimeReads() -> [String] {
  #if DEBUG
    let thread = _currentThreadID
    return _runtimeReadsLock.withLock { (_runtimeReads[thread] ?? [:]).values.map { String(reflecting: $0) } }
  #else
    return []
  #endif
}

/// Forgets this thread's recorded reads (debug builds).
func _debugResetRuntimeReads() {
  #if DEBUG
    let thread = _currentThreadID
    _runtimeReadsLock.withLock { _runtimeReads[thread] = nil }
  #endif
}

// MARK: - A1: metadata kind

@usableFromInline let _metadataKindEnum: UInt = 0x201
@usableFromInline let _metadataKindStruct: UInt = 0x200

/// The metadata kind word of `type`.
@inline(__always)
func _metadataKind(_ type: Any.Type) -> UInt {
  unsafeBitCast(type, to: UnsafeRawPointer.self).load(as: UInt.self)
}

/// Whether `type` is an enum (not `Optional`, which has its own metadata kind). Needed by
/// both codecs (A1).
@inline(__always)
func _isEnumType(_ type: Any.Type) -> Bool {
  _noteRuntimeRead(type)
  return _rawIsEnumType(type)
}

/// `_isEnumType` for the reference codec, the judge of the fast one: it never reads shapes,
/// so it reads A1 for every type (not recorded: the recorded reads are the fast paths').
@inline(__always)
func _referenceIsEnumType(_ type: Any.Type) -> Bool {
  _rawIsEnumType(type)
}

@inline(__always)
func _rawIsEnumType(_ type: Any.Type) -> Bool {
  _metadataKind(type) == _metadataKindEnum
}

// MARK: - A2: case counts

/// The number of cases of a payload-less enum, or nil when `type` is not one (or its layout
/// is not the one we know how to build values for, or A2/A3 failed on this runtime).
func _payloadlessCaseCount(_ type: Any.Type) -> Int? {
  _noteRuntimeRead(type)
  guard _enumMetadataTrusted else { return nil }
  return _rawPayloadlessCaseCount(type)
}

func _rawPayloadlessCaseCount(_ type: Any.Type) -> Int? {
  #if _endian(little) && (arch(x86_64) || arch(arm64))
  let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
  guard metadata.load(as: UInt.self) == _metadataKindEnum,
    let descriptor = metadata.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
  else { return nil }
  guard descriptor.load(as: UInt32.self) & 0x1F == 18,  // context kind: enum
    descriptor.load(fromByteOffset: 20, as: UInt32.self) & 0x00FF_FFFF == 0  // no payload cases
  else { return nil }
  let cases = Int(descriptor.load(fromByteOffset: 24, as: UInt32.self))
  // Cross-check with the value witness table: size and extra inhabitants must be exactly
  // those of a plain tag of `cases` values.
  let witnesses = metadata.load(fromByteOffset: -8, as: UnsafeRawPointer.self)
  let size = witnesses.load(fromByteOffset: 64, as: UInt.self)
  let extraInhabitants = Int(witnesses.load(fromByteOffset: 84, as: UInt32.self))
  switch cases {
  case 0, 1:
    guard size == 0, extraInhabitants == 0 else { return nil }
  case 2...256:
    guard size == 1, extraInhabitants == 256 - cases else { return nil }
  case 257...65536:
    guard size == 2, extraInhabitants == 65536 - cases else { return nil }
  default:
    return nil
  }
  return cases
  #else
  return nil
  #endif
}

// MARK: - A3: values from tags

/// All values of a payload-less enum, in declaration order, or nil when `T` is not one.
func _payloadlessCases<T>(of type: T.Type) -> [T]? {
  _noteRuntimeRead(type)
  guard _enumMetadataTrusted else { return nil }
  return _rawPayloadlessCases(of: T.self)
}

func _rawPayloadlessCases<T>(of type: T.Type) -> [T]? {
  guard let count = _rawPayloadlessCaseCount(T.self),
    MemoryLayout<T>.size <= 2, MemoryLayout<T>.alignment <= 8
  else { return nil }
  var result: [T] = []
  result.reserveCapacity(count)
  for tag in 0..<count {
    var raw = UInt64(tag)
    result.append(withUnsafeBytes(of: &raw) { $0.load(as: T.self) })
  }
  return result
}

/// The case names of a `CodingKey` enum such as a synthesized `CodingKeys`, in declaration
/// order; nil when `K` is not a payload-less enum or its names do not round-trip.
func _codingKeyCases<K: CodingKey>(of type: K.Type) -> [K]? {
  guard let cases = _payloadlessCases(of: K.self) else { return nil }
  for value in cases {
    // Sanity check: the name must map back to the same case.
    guard let back = K(stringValue: value.stringValue),
      _sameBits(back, value)
    else { return nil }
  }
  return cases
}

/// Whether `K` is a single-case key enum whose only key is `_0` (the keys of a case with
/// one unlabeled associated value).
func _isSinglePositionalKeys<K: CodingKey>(_ type: K.Type) -> Bool {
  guard _payloadlessCaseCount(K.self) == 1, let keys = _payloadlessCases(of: K.self) else {
    return false
  }
  return keys[0].stringValue == "_0"
}

/// Whether the keys of a payload-less `CodingKey` enum with `count` cases are exactly
/// `_0`, `_1`, … (the keys of a case whose values are all unlabeled).
func _allPositional<K: CodingKey>(_ type: K.Type, count: Int) -> Bool {
  guard count > 0 else { return false }
  for i in 0..<count where K(stringValue: "_\(i)") == nil { return false }
  return true
}

private func _sameBits<T>(_ a: T, _ b: T) -> Bool {
  var a = a, b = b
  return withUnsafeBytes(of: &a) { pa in
    withUnsafeBytes(of: &b) { pb in pa.elementsEqual(pb) }
  }
}

// MARK: - A7: enum fields
//
// The plan DirectDecoding.swift builds enum values by: read here, checked by `_enumFieldsCheck`.

/// The target of a relative pointer at `pointer`, or nil for 0.
@inline(__always)
private func _relative(_ pointer: UnsafeRawPointer) -> UnsafeRawPointer? {
  let offset = pointer.load(as: Int32.self)
  return offset == 0 ? nil : pointer + Int(offset)
}

/// The length of a mangled type name: symbolic references (bytes 1–0x17 and 0x18–0x1F) are
/// followed by a 4-byte offset or a pointer.
private func _mangledNameLength(_ name: UnsafePointer<UInt8>) -> Int {
  var i = 0
  while true {
    let byte = name[i]
    switch byte {
    case 0: return i
    case 0x01...0x17: i += 5
    case 0x18...0x1F: i += 1 + MemoryLayout<UnsafeRawPointer>.size
    default: i += 1
    }
  }
}

/// The plan of an enum, read from its metadata: nil when it is not an enum we can build values
/// of (an indirect case, a payload type that is not `Decodable`, no enum value witnesses).
func _rawEnumPlan(_ type: Any.Type) -> _EnumPlan? {
  #if _endian(little) && (arch(x86_64) || arch(arm64))
  let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
  guard metadata.load(as: UInt.self) == _metadataKindEnum,
    let descriptor = metadata.load(fromByteOffset: 8, as: UnsafeRawPointer?.self),
    descriptor.load(as: UInt32.self) & 0x1F == 18,  // context kind: enum
    let fields = _relative(descriptor + 16)
  else { return nil }
  let witnesses = metadata.load(fromByteOffset: -8, as: UnsafeRawPointer.self)
  let flags = witnesses.load(fromByteOffset: 80, as: UInt32.self)
  guard flags & 0x0020_0000 != 0 else { return nil }  // has enum witnesses
  let inject = unsafeBitCast(
    witnesses.load(fromByteOffset: 104, as: UnsafeRawPointer.self), to: _InjectEnumTag.self)
  let payloadCases = Int(descriptor.load(fromByteOffset: 20, as: UInt32.self) & 0x00FF_FFFF)
  let emptyCases = Int(descriptor.load(fromByteOffset: 24, as: UInt32.self))
  let recordSize = Int(fields.load(fromByteOffset: 10, as: UInt16.self))
  let count = Int(fields.load(fromByteOffset: 12, as: UInt32.self))
  guard count == payloadCases + emptyCases, recordSize >= 12 else { return nil }
  let genericArguments = metadata + 2 * MemoryLayout<UnsafeRawPointer>.size
  var cases: [_EnumCase] = []
  for tag in 0..<count {
    let record = fields + 16 + tag * recordSize
    guard record.load(as: UInt32.self) & 1 == 0,  // not an indirect case
      let namePointer = _relative(record + 8)
    else { return nil }
    let name = String(cString: namePointer.assumingMemoryBound(to: CChar.self))
    guard let mangled = _relative(record + 4) else {
      guard tag >= payloadCases else { return nil }
      cases.append(_EnumCase(name: name, utf8: Array(name.utf8), tag: UInt32(tag), kind: .none, elements: []))
      continue
    }
    guard tag < payloadCases else { return nil }
    let mangledName = mangled.assumingMemoryBound(to: UInt8.self)
    guard
      let payloadType = _getTypeByMangledNameInContext(
        mangledName, UInt(_mangledNameLength(mangledName)), genericContext: descriptor,
        genericArguments: genericArguments),
      let (kind, elements) = _payloadShape(payloadType)
    else { return nil }
    cases.append(_EnumCase(name: name, utf8: Array(name.utf8), tag: UInt32(tag), kind: kind, elements: elements))
  }
  return _EnumPlan(metadata: metadata, inject: inject, cases: cases)
  #else
  return nil
  #endif
}

/// The shape of a payload of type `type` (a tuple for several or labeled values).
private func _payloadShape(_ type: Any.Type) -> (_PayloadKind, [_PayloadElement])? {
  let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
  guard metadata.load(as: UInt.self) == 0x301 else {  // not a tuple: one unlabeled value
    guard let reader = _payloadReader(type) else { return nil }
    return (.single, [_PayloadElement(key: "_0", offset: 0, reader: reader)])
  }
  // Tuple metadata: kind, element count, labels (space-separated, each followed by a space;
  // an empty label for an unlabeled element), then (type, offset) per element, 16 bytes each
  // with a 32-bit offset (the word's other half is padding, not part of it).
  let elementCount = metadata.load(fromByteOffset: 8, as: Int.self)
  let labelText = metadata.load(fromByteOffset: 16, as: UnsafePointer<CChar>?.self).map { String(cString: $0) }
  var labels: [String] = labelText.map { $0.split(separator: " ", omittingEmptySubsequences: false).map(String.init) }
    ?? []
  if labels.count == elementCount + 1, labels.last == "" { labels.removeLast() }
  if labels.isEmpty { labels = Array(repeating: "", count: elementCount) }
  guard labels.count == elementCount, elementCount > 0 else { return nil }
  var elements: [_PayloadElement] = []
  for i in 0..<elementCount {
    let element = metadata + 24 + i * 2 * MemoryLayout<Int>.size
    let elementType = unsafeBitCast(element.load(as: UnsafeRawPointer.self), to: Any.Type.self)
    let offset = Int(element.load(fromByteOffset: 8, as: UInt32.self))
    guard let reader = _payloadReader(elementType) else { return nil }
    elements.append(_PayloadElement(key: labels[i].isEmpty ? "_\(i)" : labels[i], offset: offset, reader: reader))
  }
  if labels.allSatisfy(\.isEmpty) {
    return (elementCount == 1 ? .single : .positional, elements)
  }
  return (.labeled, elements)
}
