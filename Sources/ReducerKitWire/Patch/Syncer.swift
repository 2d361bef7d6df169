@_spi(Reflection) import Swift

// The patch engine keeps the state of the newest version it diffed (its base). Kept as a
// plain copy, the base shares every collection buffer with the store's state, so the
// reducer's next write into an array copies the whole array (copy-on-write), and the diff
// after it releases the old one: at 1,000 todos that copy and release are more than half the
// cost of a toggle.
//
// A syncer instead diffs the base against the new state and updates the base in place, part
// by part, to equal it: a changed property of a struct is assigned where it is, a changed
// element of an array is assigned into the base's own buffer. Once the base's buffers are its
// own (after the first write into each), the store's state and the base share nothing the
// reducer writes, so the reducer writes in place and the diff costs only the comparisons and
// what changed.
//
// Structs are read by their stored properties (offsets and types from ReducerKitWire's direct
// plans) only for `SynthesizedCodable` types whose plan the codec trusts: their JSON members
// are their stored properties, in order, under their names. Anything else is diffed by the
// general differ (`Differ`) and assigned whole, as before. The operations written are the ones
// the general differ writes (`REDUCERKIT_WIRE_CHECK=1` checks every diff against it).

/// Writes the operations that turn a base value into a newer one of the same type, and
/// makes the base equal to the newer value, in place.
///
/// `@unchecked Sendable`: a syncer belongs to one store's patch engine and is used only under
/// that engine's lock (`PatchEngine.history`); the little state it changes (a struct's
/// resolution) is changed only there.
@usableFromInline
package class _Syncer: @unchecked Sendable {
  /// Writes the operations from the value at `base` to the value at `new` at the writer's
  /// path and assigns the changed parts of `new` into `base` (both of the syncer's type).
  /// On a throw, `base` may be partly updated: the caller discards it.
  @usableFromInline
  package func sync(_ base: UnsafeMutableRawPointer, _ new: UnsafeRawPointer, into writer: inout PatchWriter, depth: Int)
    throws(PatchError)
  {}

  /// Diffs the value at `value` against itself into a scratch writer (no operations come of
  /// it, nothing is assigned), so what a first diff sets up once (element syncers, first-time
  /// type metadata) is set up when the store starts its patches, not in its first send.
  @usableFromInline
  package func rehearse(_ value: UnsafeRawPointer, into writer: inout PatchWriter, depth: Int) {}
}

/// Nesting past which syncers hand over to the general differ (which has its own bound).
private let syncMaxDepth = 64

/// The syncer of a root state type (a store's `State`): by its properties, or the general
/// differ (without `==` first, which the root's diff would repeat below it).
@usableFromInline
package func _makeRootSyncer<State>(_ type: State.Type) -> _Syncer {
  guard let encodable = State.self as? any Encodable.Type else { return _NoSyncer() }
  func open<T: Encodable>(_: T.Type) -> _Syncer {
    guard T.self is any SynthesizedCodable.Type else { return _GeneralSyncer<T>() }
    let syncer = _StructSyncer<T>()
    // A `WireCodable` state's shape is known now: settle here, when the store starts its
    // patches, not in its first send. (Only the root: nested syncers settle when first used,
    // so a recursive type does not recurse here.)
    if T.self is any WireCodable.Type { syncer.settleKnownShape() }
    return syncer
  }
  return open(encodable)
}

/// The syncer of a type: a struct read by its properties, an array by its elements, an
/// optional by its payload, else the general differ.
func _makeSyncer(_ type: any Encodable.Type) -> _Syncer {
  if let array = type as? any _SyncableArray.Type { return array._makeSyncer() }
  if let optional = type as? any _SyncableOptional.Type { return optional._makeSyncer() }
  func open<T: Encodable>(_: T.Type) -> _Syncer {
    if T.self is any SynthesizedCodable.Type { return _StructSyncer<T>() }  // enums: `_directFields` says unsupported
    // Collections that diff themselves (`TrackedArray`, dictionaries) go straight to their
    // `_patch`: `==` first could cost O(n) where their diff costs O(changes).
    if T.self is any _PatchDiffable.Type {
      // How the general differ diffs it, settled now (its conformance just looked up), not
      // in the store's first send.
      _TypeKind.settle(T.self)
      return _GeneralSyncer<T>(rehearses: true)
    }
    if let equatable = T.self as? any (Encodable & Equatable).Type { return _equatableSyncer(equatable) }
    return _GeneralSyncer<T>()
  }
  return open(type)
}

private func _equatableSyncer<T: Encodable & Equatable>(_: T.Type) -> _Syncer { _EquatableSyncer<T>() }

/// A state that is not `Encodable` (never a store's: states are `Codable`).
final class _NoSyncer: _Syncer, @unchecked Sendable {}

/// Any value: the general differ, then the whole value assigned.
final class _GeneralSyncer<T: Encodable>: _Syncer, @unchecked Sendable {
  /// Whether `T` diffs itself (`_PatchDiffable`), so a rehearsal has something to set up.
  private let rehearses: Bool

  init(rehearses: Bool = false) {
    self.rehearses = rehearses
  }

  override func sync(_ base: UnsafeMutableRawPointer, _ new: UnsafeRawPointer, into writer: inout PatchWriter, depth: Int)
    throws(PatchError)
  {
    let base = base.assumingMemoryBound(to: T.self)
    let new = new.assumingMemoryBound(to: T.self)
    try Differ.diff(base.pointee, new.pointee, into: &writer, depth: depth)
    base.pointee = new.pointee
  }

  override func rehearse(_ value: UnsafeRawPointer, into writer: inout PatchWriter, depth: Int) {
    // Collections that diff themselves (their conformance found when this syncer was made).
    guard rehearses, depth < syncMaxDepth, let diffable = value.assumingMemoryBound(to: T.self).pointee as? any _PatchDiffable
    else { return }
    diffable._rehearsePatch(into: &writer, depth: depth)
  }
}

/// An `Equatable` value: nothing when equal (the base keeps its storage), else the general
/// differ and the whole value assigned.
final class _EquatableSyncer<T: Encodable & Equatable>: _Syncer, @unchecked Sendable {
  override func sync(_ base: UnsafeMutableRawPointer, _ new: UnsafeRawPointer, into writer: inout PatchWriter, depth: Int)
    throws(PatchError)
  {
    let base = base.assumingMemoryBound(to: T.self)
    let new = new.assumingMemoryBound(to: T.self)
    if base.pointee == new.pointee { return }
    try Differ.diff(base.pointee, new.pointee, into: &writer, depth: depth, knownDifferent: true)
    base.pointee = new.pointee
  }
}

// MARK: - Structs

/// A stored property as the struct syncer reads it.
struct _SyncField {
  enum Kind {
    case int, int64, int32, uint, uint64, uint32, bool, string
    /// Any other type: by its own syncer.
    case other
  }

  let kind: Kind
  let offset: Int
  /// `/` and the escaped name: the pointer segment.
  let segment: [UInt8]
  let syncer: _Syncer?
}

/// A `SynthesizedCodable` struct: property by property once the codec trusts its plan;
/// until then (and for good if it never does) the general differ.
final class _StructSyncer<T: Encodable>: _Syncer, @unchecked Sendable {
  private enum Mode {
    /// The plan is not settled: encodes left to settle it before giving up.
    case pending(tries: Int)
    case direct([_SyncField])
    case general
  }

  private var mode = Mode.pending(tries: 24)
  private let general = _GeneralSyncer<T>()

  /// Reads the struct by its properties from now on if the codec already trusts its plan (a
  /// `WireCodable` type's is trusted from the start).
  func settleKnownShape() {
    guard case .pending = mode, case .trusted(let list) = _directFields(of: T.self) else { return }
    mode = .direct(list.map(_syncField))
  }

  /// Whether it reads the struct by its properties now (for tests).
  var isDirect: Bool {
    if case .direct = mode { return true }
    return false
  }

  override func sync(_ base: UnsafeMutableRawPointer, _ new: UnsafeRawPointer, into writer: inout PatchWriter, depth: Int)
    throws(PatchError)
  {
    if case .pending = mode { resolve(new) }
    guard case .direct(let fields) = mode, depth < syncMaxDepth else {
      return try general.sync(base, new, into: &writer, depth: depth)
    }
    for field in fields {
      let b = base + field.offset
      let n = new + field.offset
      switch field.kind {
      case .int, .int64, .uint, .uint64:
        let value = n.load(as: UInt64.self)
        if b.load(as: UInt64.self) == value { continue }
        try write(field, &writer) { out in
          if field.kind == .int || field.kind == .int64 {
            out.append(contentsOf: String(Int64(bitPattern: value)).utf8)
          } else {
            out.append(contentsOf: String(value).utf8)
          }
        }
        b.storeBytes(of: value, as: UInt64.self)
      case .int32, .uint32:
        let value = n.load(as: UInt32.self)
        if b.load(as: UInt32.self) == value { continue }
        try write(field, &writer) { out in
          if field.kind == .int32 {
            out.append(contentsOf: String(Int32(bitPattern: value)).utf8)
          } else {
            out.append(contentsOf: String(value).utf8)
          }
        }
        b.storeBytes(of: value, as: UInt32.self)
      case .bool:
        let value = n.load(as: Bool.self)
        if b.load(as: Bool.self) == value { continue }
        try write(field, &writer) { out in out.append(contentsOf: (value ? "true" : "false").utf8) }
        b.storeBytes(of: value, as: Bool.self)
      case .string:
        let old = b.assumingMemoryBound(to: String.self)
        let value = n.assumingMemoryBound(to: String.self)
        if old.pointee == value.pointee { continue }
        try write(field, &writer) { out in JSONPointer.appendJSONString(Array(value.pointee.utf8), to: &out) }
        old.pointee = value.pointee
      case .other:
        let mark = writer.push(segment: field.segment)
        try field.syncer.unsafelyUnwrapped.sync(b, n, into: &writer, depth: depth + 1)
        writer.pop(mark)
      }
    }
  }

  override func rehearse(_ value: UnsafeRawPointer, into writer: inout PatchWriter, depth: Int) {
    guard case .direct(let fields) = mode, depth < syncMaxDepth else { return }
    for field in fields where field.kind == .other {
      field.syncer.unsafelyUnwrapped.rehearse(value + field.offset, into: &writer, depth: depth + 1)
    }
  }

  /// A `replace` of the field's value.
  private func write(_ field: _SyncField, _ writer: inout PatchWriter, _ value: (inout [UInt8]) -> Void)
    throws(PatchError)
  {
    let mark = writer.push(segment: field.segment)
    writer.replace(writing: value)
    writer.pop(mark)
  }

  /// Settles the mode: the plan's fields once trusted, the general differ if it is not
  /// supported. While the codec is still checking the plan, one encode of `new` checks it
  /// once more (the codec checks plans only on the values it encodes, and a host that
  /// only reads patches may never encode a whole state).
  private func resolve(_ new: UnsafeRawPointer) {
    guard case .pending(let tries) = mode else { return }
    var fields = _directFields(of: T.self)
    if case .checking = fields, tries > 0 {
      _ = try? WireEncoder(explicitNulls: true).encode(new.assumingMemoryBound(to: T.self).pointee)
      fields = _directFields(of: T.self)
    }
    switch fields {
    case .unsupported:
      mode = .general
    case .checking:
      mode = tries > 1 ? .pending(tries: tries - 1) : .general
    case .trusted(let list):
      mode = .direct(list.map(_syncField))
    }
  }
}

/// How the struct syncer reads a property of a trusted plan.
private func _syncField(_ property: (name: String, offset: Int, type: Any.Type)) -> _SyncField {
  var segment: [UInt8] = [UInt8(ascii: "/")]
  JSONPointer.appendEscaped(property.name, to: &segment)
  let kind: _SyncField.Kind
  switch ObjectIdentifier(property.type) {
  case ObjectIdentifier(Int.self): kind = .int
  case ObjectIdentifier(Int64.self): kind = .int64
  case ObjectIdentifier(Int32.self): kind = .int32
  case ObjectIdentifier(UInt.self): kind = .uint
  case ObjectIdentifier(UInt64.self): kind = .uint64
  case ObjectIdentifier(UInt32.self): kind = .uint32
  case ObjectIdentifier(Bool.self): kind = .bool
  case ObjectIdentifier(String.self): kind = .string
  default: kind = .other
  }
  // A trusted plan's properties are all `Encodable`.
  let syncer = kind == .other ? (property.type as? any Encodable.Type).map(_makeSyncer) ?? _NoSyncer() : nil
  return _SyncField(kind: kind, offset: property.offset, segment: segment, syncer: syncer)
}


// MARK: - Elements of collections that diff themselves

extension PatchWriter {
  /// Writes the operations between two elements at one index of an array or `TrackedArray`
  /// whose values differ or were written: property by property for a `SynthesizedCodable`
  /// struct (on a copy of `old`, which the syncer updates and which is then dropped), else
  /// by the general differ. The same operations either way.
  package mutating func diffElement<T: Encodable>(_ old: T, _ new: T, depth: Int) throws(PatchError) {
    guard usesSyncers, let syncer = elementSyncer(T.self) else {
      return try Differ.diff(old, new, into: &self, depth: depth, knownDifferent: true)
    }
    var base = old
    try withUnsafeMutablePointer(to: &base) { (b) throws(PatchError) in
      try withUnsafePointer(to: new) { (n) throws(PatchError) in
        try syncer.sync(UnsafeMutableRawPointer(b), UnsafeRawPointer(n), into: &self, depth: depth)
      }
    }
  }

  /// The struct syncer of `T`, made once per store (its pool).
  private func elementSyncer<T: Encodable>(_ type: T.Type) -> _Syncer? {
    let id = ObjectIdentifier(T.self)
    if let known = pool.elementSyncers[id] { return known }
    // `_typeIsWire` first: cached per type (a `WireCodable` element's is settled with its
    // array's plan), where a first cast to a protocol scans every conformance in the process.
    let syncer: _Syncer? = _typeIsWire(T.self) || T.self is any SynthesizedCodable.Type ? _StructSyncer<T>() : nil
    pool.elementSyncers[id] = .some(syncer)
    return syncer
  }
}

// MARK: - Arrays

/// Arrays whose elements the array syncer compares.
protocol _SyncableArray {
  static func _makeSyncer() -> _Syncer
}

extension Array: _SyncableArray where Element: Encodable & Equatable {
  static func _makeSyncer() -> _Syncer { _ArraySyncer<Element>() }
}

/// An array of `Equatable` elements: the operations `Array._patch` writes (the common prefix
/// and suffix skipped, changed elements diffed, the rest added or removed), with the base's
/// own buffer updated in place.
final class _ArraySyncer<Element: Encodable & Equatable>: _Syncer, @unchecked Sendable {
  private let element = _makeSyncer(Element.self)

  override func sync(_ base: UnsafeMutableRawPointer, _ new: UnsafeRawPointer, into writer: inout PatchWriter, depth: Int)
    throws(PatchError)
  {
    let base = base.assumingMemoryBound(to: [Element].self)
    let new = new.assumingMemoryBound(to: [Element].self)
    let (prefix, suffix) = [Element].commonEnds(base.pointee, new.pointee)
    let oldCount = base.pointee.count
    let newCount = new.pointee.count
    if prefix == oldCount && prefix == newCount { return }
    let oldMiddle = oldCount - prefix - suffix
    let newMiddle = newCount - prefix - suffix
    let overlap = Swift.min(oldMiddle, newMiddle)
    if overlap > 0 {
      // The base's buffer is written where it is (copied first only if it is shared, as
      // it is the first time the engine diffs this array).
      var failure: PatchError?
      new.pointee.withUnsafeBufferPointer { newElements in
        base.pointee.withUnsafeMutableBufferPointer { baseElements in
          let b = baseElements.baseAddress.unsafelyUnwrapped
          let n = newElements.baseAddress.unsafelyUnwrapped
          for i in prefix..<(prefix + overlap) where b[i] != n[i] {
            let mark = writer.push(index: i)
            do throws(PatchError) {
              try element.sync(b + i, n + i, into: &writer, depth: depth + 1)
            } catch {
              failure = error
              return
            }
            writer.pop(mark)
          }
        }
      }
      if let failure { throw failure }
    }
    if newMiddle > oldMiddle {
      let added = (prefix + overlap)..<(prefix + newMiddle)
      for i in added {
        let mark = writer.push(index: i)
        try writer.add(.value(new.pointee[i]))
        writer.pop(mark)
      }
      base.pointee.insert(contentsOf: new.pointee[added], at: prefix + overlap)
    } else if oldMiddle > newMiddle {
      for i in stride(from: prefix + oldMiddle - 1, through: prefix + overlap, by: -1) {
        let mark = writer.push(index: i)
        try writer.remove()
        writer.pop(mark)
      }
      base.pointee.removeSubrange((prefix + overlap)..<(prefix + oldMiddle))
    }
  }
}

// MARK: - Optionals

/// Optionals, by their payload.
protocol _SyncableOptional {
  static func _makeSyncer() -> _Syncer
}

extension Optional: _SyncableOptional where Wrapped: Encodable {
  static func _makeSyncer() -> _Syncer { _OptionalSyncer<Wrapped>() }
}

/// An `Optional` member: `null` (as `explicitNulls` writes it) or its payload, which is
/// synced in place when both are present.
final class _OptionalSyncer<Wrapped: Encodable>: _Syncer, @unchecked Sendable {
  private let wrapped = _makeSyncer(Wrapped.self)

  override func sync(_ base: UnsafeMutableRawPointer, _ new: UnsafeRawPointer, into writer: inout PatchWriter, depth: Int)
    throws(PatchError)
  {
    let base = base.assumingMemoryBound(to: Wrapped?.self)
    let new = new.assumingMemoryBound(to: Wrapped?.self)
    switch (base.pointee == nil, new.pointee == nil) {
    case (true, true):
      return
    case (false, false):
      try withUnsafePointer(to: new.pointee.unsafelyUnwrapped) { (n) throws(PatchError) in
        try withUnsafeMutablePointer(to: &base.pointee!) { (b) throws(PatchError) in
          try wrapped.sync(UnsafeMutableRawPointer(b), UnsafeRawPointer(n), into: &writer, depth: depth)
        }
      }
    default:
      try writer.replace(new.pointee.map { .value($0) } ?? .null)
      base.pointee = new.pointee
    }
  }
}
