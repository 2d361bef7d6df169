// The direct path for `SynthesizedCodable` structs: their stored properties, found once per
// type by the standard library's reflection (`_forEachField`), written without going through
// `encode(to:)`. Trusted only after the first values of a type encoded to the same bytes
// both ways.

@_spi(Reflection) import Swift

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import ReducerKitPlatform

/// Writes a stored property of one type (at `pointer`) as the value of `key`: a class, so
/// a plan holds it by reference (a closure would capture a metatype that is not `Sendable`).
///
/// `@unchecked Sendable`: it has no stored properties (subclasses neither); it only knows a
/// type.
class _DirectWriter: @unchecked Sendable {
  required init() {}
  func write(_ pointer: UnsafeRawPointer, _ impl: _EncoderImpl, _ key: any CodingKey) throws {}
  /// Whether the property is a nil `Optional` (written as `encodeIfPresent` writes it).
  func isNil(_ pointer: UnsafeRawPointer) -> Bool { false }
}

/// How the direct path writes a stored property.
enum _DirectKind: UInt8 {
  case int, int64, int32, uint, uint64, uint32, bool, string, double, float
  /// Any other `Encodable`: through the encoder's generic path (with its own direct plan).
  case value
  /// An `Optional`: left out when nil (or `null` with `explicitNulls`), as `encodeIfPresent`.
  case optional
}

/// A stored property: how to write it, its offset, and where its key as written (`"name":`)
/// is in the plan's key bytes.
struct _DirectField {
  var kind: _DirectKind
  var offset: Int
  var keyStart: Int
  var keyCount: Int
  /// Index in the plan's writers and coding keys.
  var index: Int
}

/// The stored properties of a struct, in declaration order (the synthesized order).
///
/// `@unchecked Sendable`: everything is written once in `init` and only read after; the
/// buffers are owned by the plan and freed in `deinit`.
final class _DirectPlan: @unchecked Sendable {
  let fields: UnsafeMutableBufferPointer<_DirectField>
  let keys: UnsafeMutableBufferPointer<UInt8>
  /// Per field: its writer (`.value`, `.optional`) and its key for error paths.
  let writers: [_DirectWriter?]
  let codingKeys: [any CodingKey]
  /// Per field: its type and its name (for `_directFields(of:)`).
  let types: [Any.Type]
  let names: [String]
  /// Every property is an integer, a `Bool` or a `String`: writing cannot fail, so no path
  /// is kept (`writeInfallible`).
  let infallible: Bool

  init(_ parts: [(name: String, offset: Int, type: Any.Type, kind: _DirectKind, writer: _DirectWriter?)]) {
    var keyBytes = _ByteBuffer(capacity: 64)
    var fields: [_DirectField] = []
    for (i, part) in parts.enumerated() {
      let start = keyBytes.count
      keyBytes.appendJSONString(part.name)
      keyBytes.append(UInt8(ascii: ":"))
      fields.append(
        _DirectField(kind: part.kind, offset: part.offset, keyStart: start, keyCount: keyBytes.count - start, index: i))
    }
    self.fields = .allocate(capacity: max(fields.count, 1))
    _ = self.fields.initialize(from: fields)
    self.keys = .allocate(capacity: max(keyBytes.count, 1))
    _ = self.keys.initialize(from: keyBytes.bytes)
    self.writers = parts.map(\.writer)
    self.codingKeys = parts.map { _StringKey($0.name) }
    self.types = parts.map(\.type)
    self.names = parts.map(\.name)
    self.infallible = parts.allSatisfy {
      switch $0.kind {
      case .int, .int64, .int32, .uint, .uint64, .uint32, .bool, .string: true
      case .double, .float, .value, .optional: false
      }
    }
  }

  deinit {
    fields.deallocate()
    keys.deallocate()
  }
}

/// How many values of a type are encoded both ways before the direct path is trusted.
let _directChecks = 16

/// What the codec knows of a type's direct path (`_DirectPlan` for structs, `_EnumPlan` for
/// enums).
enum _PlanState<Plan: AnyObject & Sendable>: Sendable {
  /// No direct path (not a `SynthesizedCodable` type, or one it cannot read or build).
  case unsupported
  /// Go through `Codable`, then check the direct path against the result.
  case checking(Plan, left: Int)
  /// The direct path agreed every time it was checked.
  case trusted(Plan)
}

typealias _DirectState = _PlanState<_DirectPlan>

/// The states of the types of one kind of plan, by type. Read and written only inside
/// `_withWireTables`.
///
/// `@unchecked Sendable`: `states` and `plans` are accessed only while holding
/// `_wireTablesLock`.
final class _PlanTable<Plan: AnyObject & Sendable>: @unchecked Sendable {
  private var states: [ObjectIdentifier: _PlanState<Plan>] = [:]
  /// Every plan this table made, for the life of the process (one per type). The states hold
  /// plans inside an enum, whose spare pointer bits hide them from leak checkers (valgrind
  /// reports them as lost); here they are plain references.
  private var plans: [Plan] = []

  /// The state of `type`, from `make` (called outside the lock) the first time: its plan and
  /// whether it is trusted from the start (a `WireCodable` type's) or checked first.
  func state(of type: Any.Type, make: () -> (plan: Plan, trusted: Bool)?) -> _PlanState<Plan> {
    let id = ObjectIdentifier(type)
    if let known = _withWireTables({ states[id] }) { return known }
    let made = make()
    let plan = made?.plan
    let state: _PlanState<Plan> =
      made.map { $0.trusted ? .trusted($0.plan) : .checking($0.plan, left: _directChecks) } ?? .unsupported
    return _withWireTables {
      if let raced = states[id] { return raced }
      if let plan { plans.append(plan) }
      states[id] = state
      return state
    }
  }

  /// Records whether the two paths agreed on a value of `type`: one check fewer to trust
  /// it, or no direct path for good.
  func checked(_ type: Any.Type, agreed: Bool) {
    _withWireTables {
      let id = ObjectIdentifier(type)
      guard case .checking(let plan, let left)? = states[id] else { return }
      states[id] = !agreed ? .unsupported : left <= 1 ? .trusted(plan) : .checking(plan, left: left - 1)
    }
  }
}

let _directPlans = _PlanTable<_DirectPlan>()

/// The lock of the codec's process-wide tables (the plan tables, case signatures in
/// Schema.swift).
private let _wireTablesLock = Lock()

/// Runs `body` holding the lock of the codec's tables (never calls out while holding it).
func _withWireTables<R>(_ body: () -> R) -> R {
  _wireTablesLock.withLock(body)
}

/// The state of `T`, building its plan the first time.
func _directState<T>(_ type: T.Type) -> _DirectState {
  _directPlans.state(of: T.self) {
    // A `WireCodable` struct: the plan of its shape, trusted from the first value.
    if let wire = _wireShaped(T.self) {
      guard _wireFastPathsRequested, let plan = wire._wireDirectPlan else { return nil }
      return (plan, true)
    }
    return _directPlan(T.self).map { ($0, false) }
  }
}

/// Records whether the direct path wrote what `encode(to:)` wrote for a value of `T`.
func _directChecked<T>(_ type: T.Type, agreed: Bool) {
  _directPlans.checked(T.self, agreed: agreed)
}

/// The types whose layout the codec read from the runtime (a struct's fields by
/// `_forEachField`, an enum's cases by A7): for tests, which check that no `WireCodable` type is
/// among them. Read and written only inside `_withWireTables`.
nonisolated(unsafe) var _layoutReadTypes: Set<ObjectIdentifier> = []

/// Records that the layout of `type` is about to be read from the runtime.
func _recordLayoutRead(_ type: Any.Type) {
  _noteRuntimeRead(type)
  _withWireTables { _ = _layoutReadTypes.insert(ObjectIdentifier(type)) }
}

/// The plan of a `SynthesizedCodable` struct, or nil.
func _directPlan<T>(_ type: T.Type) -> _DirectPlan? {
  guard _wireFastPaths, T.self is any SynthesizedCodable.Type, _metadataKind(T.self) == _metadataKindStruct else {
    return nil
  }
  _recordLayoutRead(T.self)
  var parts: [(name: String, offset: Int, type: Any.Type, kind: _DirectKind, writer: _DirectWriter?)] = []
  var readable = true
  let walked = _forEachField(of: T.self) { name, offset, fieldType, _ in
    let name = String(cString: name)
    guard let first = name.utf8.first, first != UInt8(ascii: "_"), first != UInt8(ascii: "$"),
      let (kind, writer) = _directKind(fieldType)
    else {
      readable = false
      return false
    }
    parts.append((name: name, offset: offset, type: fieldType, kind: kind, writer: writer))
    return true
  }
  guard walked, readable else { return nil }
  return _DirectPlan(parts)
}

/// What the direct path knows of a struct's stored properties, for the patch engine's
/// differ, which compares and updates them in place by offset.
enum _DirectFields {
  /// No direct path: not a `SynthesizedCodable` struct, one the codec cannot read, or one
  /// whose `encode(to:)` disagreed with its properties (or the fast paths are off).
  case unsupported
  /// Not settled yet: the next encodes of values of the type (by `WireEncoder`) check it.
  case checking
  /// Encoded as its stored properties, in this order, under these keys (their names).
  case trusted([(name: String, offset: Int, type: Any.Type)])
}

/// The stored properties of `T` if its values are encoded as they are (see `_DirectFields`).
func _directFields<T>(of type: T.Type) -> _DirectFields {
  guard !_typeIsEnum(T.self) else { return .unsupported }
  switch _directState(T.self) {
  case .unsupported: return .unsupported
  case .checking: return .checking
  case .trusted(let plan):
    return .trusted(plan.names.indices.map { (name: plan.names[$0], offset: plan.fields[$0].offset, type: plan.types[$0]) })
  }
}

/// Whether `REDUCERKIT_WIRE_CHECK=1` asked for every fast path to be checked against the
/// reference (the patch differ checks its in-place path against its general one).
var _wireCrossChecking: Bool { _wireCrossCheck }

/// How to write a stored property of type `type`, or nil if it is not `Encodable`.
func _directKind(_ type: Any.Type) -> (_DirectKind, _DirectWriter?)? {
  if let kind = _primitiveKind(type) { return (kind, nil) }
  if let optional = type as? any _DirectOptional.Type {
    return (.optional, optional._directWriter)
  }
  guard let encodable = type as? any Encodable.Type else { return nil }
  return (.value, _valueWriter(encodable))
}

/// The kind of a property of a type the direct path writes itself (integers, `Bool`,
/// `String`, `Double`, `Float`), or nil.
func _primitiveKind(_ type: Any.Type) -> _DirectKind? {
  switch ObjectIdentifier(type) {
  case ObjectIdentifier(Int.self): .int
  case ObjectIdentifier(Int64.self): .int64
  case ObjectIdentifier(Int32.self): .int32
  case ObjectIdentifier(UInt.self): .uint
  case ObjectIdentifier(UInt64.self): .uint64
  case ObjectIdentifier(UInt32.self): .uint32
  case ObjectIdentifier(Bool.self): .bool
  case ObjectIdentifier(String.self): .string
  case ObjectIdentifier(Double.self): .double
  case ObjectIdentifier(Float.self): .float
  default: nil
  }
}

private func _valueWriter<F: Encodable>(_ type: F.Type) -> _DirectWriter {
  _ValueWriter<F>()
}

/// Writes an `F` through the encoder's generic path.
final class _ValueWriter<F: Encodable>: _DirectWriter, @unchecked Sendable {  // no stored properties
  override func write(_ pointer: UnsafeRawPointer, _ impl: _EncoderImpl, _ key: any CodingKey) throws {
    try impl.encodeNested(pointer.assumingMemoryBound(to: F.self).pointee, key: key, style: .key)
  }
}

/// Writes an `Optional<Wrapped>` as `encodeIfPresent` does.
final class _OptionalWriter<Wrapped: Encodable>: _DirectWriter, @unchecked Sendable {  // no stored properties
  override func write(_ pointer: UnsafeRawPointer, _ impl: _EncoderImpl, _ key: any CodingKey) throws {
    guard let value = pointer.assumingMemoryBound(to: Wrapped?.self).pointee else { return }
    try impl.encodeNested(value, key: key, style: .key)
  }
  override func isNil(_ pointer: UnsafeRawPointer) -> Bool {
    if case .none = pointer.assumingMemoryBound(to: Wrapped?.self).pointee { return true }
    return false
  }
}

/// `Optional` properties.
protocol _DirectOptional {
  static var _directWriter: _DirectWriter { get }
}

extension Optional: _DirectOptional where Wrapped: Encodable {
  static var _directWriter: _DirectWriter { _OptionalWriter<Wrapped>() }
}

extension _EncoderImpl {
  /// Writes the struct at `base` by `plan`, as its synthesized `encode(to:)` would.
  func writeDirect(_ plan: _DirectPlan, _ base: UnsafeRawPointer) throws {
    if plan.infallible {
      writeInfallible(plan, base)
      return
    }
    append(UInt8(ascii: "{"))
    var first = true
    for field in plan.fields {
      let pointer = base + field.offset
      if field.kind == .optional, plan.writers[field.index].unsafelyUnwrapped.isNil(pointer) {
        guard explicitNulls else { continue }
        if !first { append(UInt8(ascii: ",")) }
        first = false
        out.append(UnsafeBufferPointer(rebasing: plan.keys[field.keyStart..<(field.keyStart + field.keyCount)]))
        append("null")
        continue
      }
      if !first { append(UInt8(ascii: ",")) }
      first = false
      out.append(UnsafeBufferPointer(rebasing: plan.keys[field.keyStart..<(field.keyStart + field.keyCount)]))
      switch field.kind {
      case .int: appendInt(Int64(pointer.load(as: Int.self)))
      case .int64: appendInt(pointer.load(as: Int64.self))
      case .int32: appendInt(Int64(pointer.load(as: Int32.self)))
      case .uint: appendUInt(UInt64(pointer.load(as: UInt.self)))
      case .uint64: appendUInt(pointer.load(as: UInt64.self))
      case .uint32: appendUInt(UInt64(pointer.load(as: UInt32.self)))
      case .bool: append(pointer.load(as: Bool.self) ? "true" : "false")
      case .string: appendString(pointer.assumingMemoryBound(to: String.self).pointee)
      case .double:
        try appendDouble(pointer.load(as: Double.self), key: plan.codingKeys[field.index], style: .key)
      case .float:
        try appendFloat(pointer.load(as: Float.self), key: plan.codingKeys[field.index], style: .key)
      case .value, .optional:
        try plan.writers[field.index].unsafelyUnwrapped.write(pointer, self, plan.codingKeys[field.index])
      }
    }
    append(UInt8(ascii: "}"))
  }

  /// Writes `value` by its trusted plan if that plan cannot fail (no path is needed for
  /// errors); returns false otherwise.
  @inline(__always)
  func encodeByPlan<T>(_ value: T) -> Bool {
    guard let plan = trustedPlan(T.self) else { return false }
    return plan._withUnsafeGuaranteedRef { plan in
      guard plan.infallible else { return false }
      withUnsafePointer(to: value) { writeInfallible(plan, UnsafeRawPointer($0)) }
      return true
    }
  }

  /// `writeDirect` for a plan of integers, `Bool`s and `String`s.
  func writeInfallible(_ plan: _DirectPlan, _ base: UnsafeRawPointer) {
    let fields = plan.fields
    let keys = plan.keys.baseAddress.unsafelyUnwrapped
    out.append(UInt8(ascii: "{"))
    for i in 0..<fields.count {
      let field = fields[i]
      // Room for the comma, the key and a value other than a string (whose append makes its
      // own room, leaving none to spare: this is per property, not once per struct).
      out.reserve(field.keyCount &+ 24)
      if i > 0 { out.appendUnchecked(UInt8(ascii: ",")) }
      out.appendUnchecked(keys + field.keyStart, count: field.keyCount)
      let pointer = base + field.offset
      switch field.kind {
      case .int: out.appendInt(Int64(pointer.load(as: Int.self)))
      case .int64: out.appendInt(pointer.load(as: Int64.self))
      case .int32: out.appendInt(Int64(pointer.load(as: Int32.self)))
      case .uint: out.appendUInt(UInt64(pointer.load(as: UInt.self)))
      case .uint64: out.appendUInt(pointer.load(as: UInt64.self))
      case .uint32: out.appendUInt(UInt64(pointer.load(as: UInt32.self)))
      case .bool: out.appendBoolUnchecked(pointer.load(as: Bool.self))
      case .string: out.appendJSONString(pointer.assumingMemoryBound(to: String.self).pointee)
      case .double, .float, .value, .optional: break  // not in an infallible plan
      }
    }
    out.append(UInt8(ascii: "}"))
  }

  /// The direct state of `T`, remembering the last few settled types in this encoder.
  @inline(__always)
  func directState<T>(_ type: T.Type) -> _DirectState {
    let id = ObjectIdentifier(T.self)
    for entry in directCache where entry.type == id {
      guard let plan = entry.plan else { return .unsupported }
      return .trusted(plan.takeUnretainedValue())
    }
    return settle(T.self)
  }

  /// The trusted plan of `T`, unretained (a trusted plan is never released: the table of
  /// states keeps it for good), or nil.
  @inline(__always)
  func trustedPlan<T>(_ type: T.Type) -> Unmanaged<_DirectPlan>? {
    let id = ObjectIdentifier(T.self)
    for entry in directCache where entry.type == id { return entry.plan }
    if case .trusted = settle(T.self) {
      for entry in directCache where entry.type == id { return entry.plan }
    }
    return nil
  }

  /// Asks the table of states about `T`; remembers the answer once it is settled.
  @inline(never)
  func settle<T>(_ type: T.Type) -> _DirectState {
    let state = _typeIsEnum(T.self) ? .unsupported : _directState(T.self)
    let plan: Unmanaged<_DirectPlan>?
    switch state {
    case .checking: return state  // asked again until settled
    case .trusted(let trusted): plan = Unmanaged.passUnretained(trusted)
    case .unsupported: plan = nil
    }
    if directCache.count == 4 { directCache.removeFirst() }
    directCache.append((type: ObjectIdentifier(T.self), plan: plan))
    return state
  }

  /// Writes `value` by `plan` into a fresh encoder and compares it with `written`.
  func directAgrees<T>(_ value: T, _ plan: _DirectPlan, written: UnsafeBufferPointer<UInt8>) -> Bool {
    let scratch = _EncoderImpl()
    scratch.explicitNulls = explicitNulls
    // Its output is read through a pointer below: keep it alive until then.
    defer { withExtendedLifetime(scratch) {} }
    do {
      try withUnsafePointer(to: value) { try scratch.writeDirect(plan, UnsafeRawPointer($0)) }
    } catch {
      return false
    }
    return scratch.failure == nil && scratch.out.bytes.elementsEqual(written)
  }
}
