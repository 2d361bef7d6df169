#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import CReducerKitShims
import ReducerKitPlatform

// The JSON Patch (RFC 6902) between two versions of a state, computed on the Swift values:
// parts whose values are equal are skipped without being encoded, and only the changed parts
// are encoded (by `WireEncoder`, the same bytes a whole-state encode writes for them).
//
// - Arrays of `Equatable` elements are compared element by element (buffer identity first:
//   an array that was not written is skipped in O(1)); changed elements are diffed in turn,
//   a longer or shorter array becomes `add`/`remove` operations by index after the common
//   prefix and suffix.
// - `TrackedArray` finds its changed elements by skipping shared storage: O(changes × log n).
// - Dictionaries with `String` keys are diffed by key.
// - Structs are diffed member by member (read through `encode(to:)`, one level at a time).
// - Anything else that differs (`Equatable`, or compared as encoded JSON) is replaced whole.

/// Writes patch operations (`{"op":…,"path":…,"value":…}`, comma-separated, no brackets)
/// and keeps the JSON Pointer of the part being diffed.
@usableFromInline
package struct PatchWriter {
  @usableFromInline package var out: [UInt8] = []
  /// The current JSON Pointer, escaped (`~0`, `~1`), as UTF-8.
  @usableFromInline package var path: [UInt8] = []
  /// Shape recorders to reuse.
  @usableFromInline package let pool: _ShapePool
  /// Whether changed elements of a `SynthesizedCodable` struct type are diffed property by
  /// property (`diffElement`); off for the reference diff `REDUCERKIT_WIRE_CHECK=1` compares
  /// with.
  var usesSyncers = true

  @inlinable package init(pool: _ShapePool = _ShapePool()) {
    self.pool = pool
  }

  var isEmpty: Bool { out.isEmpty }

  /// Appends `/key` (escaped) to the path; returns the mark `pop` restores.
  package mutating func push(key: String) -> Int {
    let mark = path.count
    path.append(UInt8(ascii: "/"))
    JSONPointer.appendEscaped(key, to: &path)
    return mark
  }

  /// Appends `/index` to the path; returns the mark `pop` restores.
  package mutating func push(index: Int) -> Int {
    let mark = path.count
    path.append(UInt8(ascii: "/"))
    path.append(contentsOf: String(index).utf8)
    return mark
  }

  /// Appends a segment already escaped, with its `/`; returns the mark `pop` restores.
  mutating func push(segment: [UInt8]) -> Int {
    let mark = path.count
    path.append(contentsOf: segment)
    return mark
  }

  package mutating func pop(_ mark: Int) { path.removeSubrange(mark...) }

  /// A `replace` whose value `value` appends (as JSON).
  mutating func replace(writing value: (inout [UInt8]) -> Void) {
    opStart("replace")
    out.append(contentsOf: #","value":"#.utf8)
    value(&out)
    out.append(UInt8(ascii: "}"))
  }

  package mutating func replace(_ value: _ShapeChild) throws(PatchError) { try op("replace", value) }
  package mutating func add(_ value: _ShapeChild) throws(PatchError) { try op("add", value) }
  package mutating func remove() throws(PatchError) { try op("remove", nil) }

  private mutating func op(_ name: StaticString, _ value: _ShapeChild?) throws(PatchError) {
    opStart(name)
    if let value {
      out.append(contentsOf: #","value":"#.utf8)
      try append(value)
    }
    out.append(UInt8(ascii: "}"))
  }

  /// `{"op":name,"path":path`, after a comma if an operation came before.
  private mutating func opStart(_ name: StaticString) {
    if !out.isEmpty { out.append(UInt8(ascii: ",")) }
    out.append(contentsOf: #"{"op":""#.utf8)
    out.append(contentsOf: UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    out.append(contentsOf: #"","path":"#.utf8)
    JSONPointer.appendJSONString(path, to: &out)
  }

  /// Appends `value` as the wire format encodes it.
  mutating func append(_ value: _ShapeChild) throws(PatchError) {
    guard case let .value(value) = value else {
      out.append(contentsOf: "null".utf8)
      return
    }
    // The commonest changes are written here, as `WireEncoder` writes them; the rest (and
    // doubles: their shortest form is the encoder's) go through the encoder.
    // By metatype (a compare) and `_load`, not by dynamic casts.
    let type = type(of: value)
    if type == Bool.self {
      out.append(contentsOf: (_load(value, as: Bool.self) ? "true" : "false").utf8)
      return
    } else if type == Int.self {
      out.append(contentsOf: String(_load(value, as: Int.self)).utf8)
      return
    } else if type == String.self {
      JSONPointer.appendJSONString(_load(value, as: String.self), to: &out)
      return
    }
    do {
      try WireEncoder(explicitNulls: true).withEncodedBytes(value) { out.append(contentsOf: $0) }
    } catch {
      throw PatchError(.internal, "encoding the state at \(String(decoding: path, as: UTF8.self)): \(error.message)")
    }
  }
}

/// A value that diffs itself against an older value of the same type faster than member by
/// member (collections), and finds its children by JSON Pointer segment.
package protocol _PatchDiffable {
  /// Writes the operations that turn `old` (a value of the same type) into `self`.
  func _patch(from old: any Encodable, into writer: inout PatchWriter, depth: Int) throws(PatchError)
  /// The child at a pointer segment: `nil` when there is none (the number of elements, or
  /// the keys, for the message).
  func _child(at segment: String) -> _PointerStep
  /// A pointer read compiled for values of this type (`CompiledPointer`): `segments`' first
  /// names a child; `.never` leaves the type to `Navigator`.
  static func _compileChild(_ segments: ArraySlice<String>) -> _PointerCompilation
  /// Runs the diff of this value against itself, and of one element against itself, into a
  /// scratch writer: the type metadata and element syncers a first real diff would find for
  /// the first time are found now (when a store starts its patches), not in its first send.
  func _rehearsePatch(into writer: inout PatchWriter, depth: Int)
}

extension _PatchDiffable {
  package func _rehearsePatch(into writer: inout PatchWriter, depth: Int) {}
}

/// The result of looking up one pointer segment.
package enum _PointerStep {
  case found(_ShapeChild)
  case missingIndex(count: Int)
  case missingKey
}

/// How deep the differ follows nested values before it replaces a part whole (a bound on
/// its stack use; real states are far shallower).
let patchMaxDepth = 256

@usableFromInline
package enum Differ {
  /// Writes the operations that turn `old` into `new` (values of one type) at the writer's
  /// path.
  static func diff(_ old: _ShapeChild, _ new: _ShapeChild, into writer: inout PatchWriter, depth: Int) throws(PatchError) {
    switch (old, new) {
    case (.null, .null):
      return
    case (.null, .value), (.value, .null):
      try writer.replace(new)
    case let (.value(a), .value(b)):
      try diff(a, b, into: &writer, depth: depth)
    }
  }

  /// - Parameter knownDifferent: the caller saw `old != new` (skip the `==` check).
  @usableFromInline
  package static func diff(
    _ old: any Encodable, _ new: any Encodable, into writer: inout PatchWriter, depth: Int,
    knownDifferent: Bool = false
  ) throws(PatchError) {
    guard type(of: old) == type(of: new), depth < patchMaxDepth else {
      if !sameJSON(old, new) { try writer.replace(.value(new)) }
      return
    }
    let equal: _EqualThunk?
    switch _TypeKind.of(new) {
    case let .diffable(patch):
      try patch(new, old, &writer, depth + 1)
      return
    case let .scalar(isEqual):
      if !(isEqual?(old, new) ?? false) { try writer.replace(.value(new)) }
      return
    case let .other(isEqual):
      // Below the root, equal parts are the common case: `==` first (it is O(1) for
      // unchanged collections, which compare by identity first).
      if depth > 0, !knownDifferent, let isEqual, isEqual(old, new) { return }
      equal = isEqual
    }
    try writer.pool.withShapes(old, new) { (oldShape, newShape) throws(PatchError) in
      switch (oldShape, newShape) {
      case let (.keyed(a), .keyed(b)):
        try diffMembers(a, b, into: &writer, depth: depth + 1)
      case let (.single(a), .single(b)):
        // A wrapper (or an Optional) sits at its wrapped value's position.
        try diff(a, b, into: &writer, depth: depth + 1)
      case let (.unkeyed(a), .unkeyed(b)) where !(equal?(old, new) ?? false):
        try diffElements(a, b, into: &writer, depth: depth + 1)
      case (.unkeyed, .unkeyed):
        return
      default:
        if !(equal?(old, new) ?? sameJSON(old, new)) { try writer.replace(.value(new)) }
      }
    }
  }

  /// Object members: changed ones diffed, missing ones removed, new ones added.
  static func diffMembers(
    _ old: [_Member], _ new: [_Member],
    into writer: inout PatchWriter, depth: Int
  ) throws(PatchError) {
    var sameKeys = old.count == new.count
    if sameKeys {
      for i in old.indices where old[i].key != new[i].key {
        sameKeys = false
        break
      }
    }
    if sameKeys {
      // By index, not `zip`: no copies of the members.
      for i in old.indices {
        if sameScalar(old[i].value, new[i].value) { continue }  // the common case, before any path work
        let mark = writer.push(key: old[i].key)
        try diff(old[i].value, new[i].value, into: &writer, depth: depth)
        writer.pop(mark)
      }
      return
    }
    var oldByKey: [String: _ShapeChild] = [:]
    for member in old { oldByKey[member.key] = member.value }
    var newKeys = Set<String>()
    for member in new {
      newKeys.insert(member.key)
      let mark = writer.push(key: member.key)
      if let previous = oldByKey[member.key] {
        try diff(previous, member.value, into: &writer, depth: depth)
      } else {
        try writer.add(member.value)
      }
      writer.pop(mark)
    }
    for member in old where !newKeys.contains(member.key) {
      let mark = writer.push(key: member.key)
      try writer.remove()
      writer.pop(mark)
    }
  }

  /// Array elements of any type, compared as values (or as JSON).
  static func diffElements(
    _ old: [_ShapeChild], _ new: [_ShapeChild], into writer: inout PatchWriter, depth: Int
  ) throws(PatchError) {
    try diffSequences(
      oldCount: old.count, newCount: new.count,
      same: { i, j in sameChild(old[i], new[j]) },
      diffAt: { (i, writer) throws(PatchError) in try diff(old[i], new[i], into: &writer, depth: depth) },
      newElement: { new[$0] }, into: &writer)
  }

  /// The operations between two arrays: the common prefix and suffix are skipped, the
  /// overlapping middle diffed in place, the rest added or removed (from the end backwards).
  static func diffSequences(
    oldCount: Int, newCount: Int, same: (Int, Int) -> Bool,
    diffAt: (Int, inout PatchWriter) throws(PatchError) -> Void,
    newElement: (Int) -> _ShapeChild, into writer: inout PatchWriter
  ) throws(PatchError) {
    var prefix = 0
    let limit = min(oldCount, newCount)
    while prefix < limit, same(prefix, prefix) { prefix += 1 }
    var suffix = 0
    while suffix < limit - prefix, same(oldCount - 1 - suffix, newCount - 1 - suffix) { suffix += 1 }
    let oldMiddle = oldCount - prefix - suffix
    let newMiddle = newCount - prefix - suffix
    let overlap = min(oldMiddle, newMiddle)
    for k in 0..<overlap where !same(prefix + k, prefix + k) {
      let mark = writer.push(index: prefix + k)
      try diffAt(prefix + k, &writer)
      writer.pop(mark)
    }
    if newMiddle > oldMiddle {
      for k in overlap..<newMiddle {
        let mark = writer.push(index: prefix + k)
        try writer.add(newElement(prefix + k))
        writer.pop(mark)
      }
    } else {
      for k in stride(from: oldMiddle - 1, through: overlap, by: -1) {
        let mark = writer.push(index: prefix + k)
        try writer.remove()
        writer.pop(mark)
      }
    }
  }

  /// `==` of two values of one type, or nil when the type is not `Equatable`.
  static func equal(_ a: any Encodable, _ b: any Encodable) -> Bool? {
    switch _TypeKind.of(a) {
    case let .scalar(isEqual), let .other(isEqual): return isEqual?(a, b)
    case .diffable: return (a as? any Equatable)?._isEqual(to: b)
    }
  }

  /// Whether both are the same scalar (or both null): nothing to write.
  @inline(__always)
  static func sameScalar(_ a: _ShapeChild, _ b: _ShapeChild) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case let (.value(x), .value(y)):
      let xType = type(of: x)
      guard xType == type(of: y) else { return false }
      // The commonest member types compared here (metatype compares), the rest by their kind.
      if xType == Int.self { return _load(x, as: Int.self) == _load(y, as: Int.self) }
      if xType == Bool.self { return _load(x, as: Bool.self) == _load(y, as: Bool.self) }
      if xType == String.self { return _load(x, as: String.self) == _load(y, as: String.self) }
      guard case let .scalar(isEqual?) = _TypeKind.of(x) else { return false }
      return isEqual(x, y)
    default: return false
    }
  }

  static func sameChild(_ a: _ShapeChild, _ b: _ShapeChild) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case let (.value(x), .value(y)):
      guard type(of: x) == type(of: y) else { return sameJSON(x, y) }
      return equal(x, y) ?? sameJSON(x, y)
    default: return false
    }
  }

  /// Whether both encode to the same JSON (false when either cannot be encoded).
  static func sameJSON(_ a: any Encodable, _ b: any Encodable) -> Bool {
    let encoder = WireEncoder(explicitNulls: true)
    guard let x = try? encoder.encode(a), let y = try? encoder.encode(b) else { return false }
    return x == y
  }
}

/// `==` of two values of one (Equatable) type, erased.
typealias _EqualThunk = (any Encodable, any Encodable) -> Bool
/// `_PatchDiffable._patch` of a type, erased: (new, old, writer, depth).
typealias _PatchThunk = (any Encodable, any Encodable, inout PatchWriter, Int) throws(PatchError) -> Void

/// How the differ treats a type, found once per type (dynamic casts to protocols cost a
/// conformance lookup each; these thunks cast to the concrete type, a metadata compare).
enum _TypeKind {
  case diffable(_PatchThunk)
  case scalar(_EqualThunk?)
  case other(_EqualThunk?)

  /// Kinds by type: a short list scanned by identity (cheaper than hashing; a state has
  /// few types).
  private static let known = LockedValue<[(ObjectIdentifier, _TypeKind)]>([])

  static func of(_ value: any Encodable) -> _TypeKind {
    let id = ObjectIdentifier(type(of: value))
    let found = known.withLock { list -> _TypeKind? in
      for (type, kind) in list where type == id { return kind }
      return nil
    }
    if let found { return found }
    let kind: _TypeKind
    if let diffable = value as? any _PatchDiffable {
      kind = .diffable(patchThunk(diffable))
    } else {
      let equal = (value as? any Equatable).flatMap { equalThunk($0) }
      kind = _isScalar(value) ? .scalar(equal) : .other(equal)
    }
    known.withLock { $0.append((id, kind)) }
    return kind
  }

  /// Whether the kind of `type` is settled (for tests).
  static func isSettled(_ type: Any.Type) -> Bool {
    let id = ObjectIdentifier(type)
    return known.withLock { list in list.contains { $0.0 == id } }
  }

  /// Settles the kind of `T` before its first diff, from its static type (the syncer that
  /// will diff it is made when the store starts its patches): so a first cast of a value to
  /// a protocol, which scans every conformance in the process, is not in a store's first send.
  static func settle<T: Encodable>(_: T.Type) {
    let id = ObjectIdentifier(T.self)
    if known.withLock({ list in list.contains { $0.0 == id } }) { return }
    let kind: _TypeKind
    if let diffable = T.self as? any _PatchDiffable.Type {
      kind = .diffable(patchThunk(diffable))
    } else {
      let equal = (T.self as? any Equatable.Type).flatMap { equalThunk($0) }
      kind = _isScalarType(T.self) ? .scalar(equal) : .other(equal)
    }
    known.withLock { list in
      if !list.contains(where: { $0.0 == id }) { list.append((id, kind)) }
    }
  }

  // The thunks are called only with values of the type they were made for (callers compare
  // `type(of:)` first), and check it again: a metatype compare, where a cast from an
  // existential would cost a dynamic cast.

  private static func patchThunk<T: _PatchDiffable>(_: T) -> _PatchThunk { patchThunk(T.self) }

  private static func patchThunk<T: _PatchDiffable>(_: T.Type) -> _PatchThunk {
    { (new, old, writer, depth) throws(PatchError) in
      guard type(of: new) == T.self else { return try writer.replace(.value(new)) }
      try _load(new, as: T.self)._patch(from: old, into: &writer, depth: depth)
    }
  }

  private static func equalThunk<T: Equatable>(_: T) -> _EqualThunk? { equalThunk(T.self) }

  private static func equalThunk<T: Equatable>(_: T.Type) -> _EqualThunk? {
    guard T.self is any Encodable.Type else { return nil }
    return { a, b in
      guard type(of: a) == T.self, type(of: b) == T.self else { return false }
      return _load(a, as: T.self) == _load(b, as: T.self)
    }
  }
}

/// The value in an existential whose dynamic type is `T` (the caller checked
/// `type(of: value) == T.self`): opened and copied out, without a dynamic cast.
@inline(__always)
package func _load<T>(_ value: any Encodable, as _: T.Type) -> T {
  func open<V: Encodable>(_ opened: V) -> T {
    precondition(V.self == T.self, "_load: a value of another type")
    return withUnsafePointer(to: opened) { UnsafeRawPointer($0).load(as: T.self) }
  }
  return open(value)
}

extension Equatable {
  /// `self == other` when `other` has this type.
  func _isEqual(to other: Any) -> Bool {
    guard let other = other as? Self else { return false }
    return self == other
  }
}

// MARK: - Collections

extension Array: _PatchDiffable where Element: Encodable & Equatable {
  package func _patch(from old: any Encodable, into writer: inout PatchWriter, depth: Int) throws(PatchError) {
    guard type(of: old) == [Element].self else { return try writer.replace(.value(self)) }
    let old = _load(old, as: [Element].self)
    let (prefix, suffix) = Self.commonEnds(old, self)
    if prefix == count && prefix == old.count { return }
    let oldMiddle = old.count - prefix - suffix
    let newMiddle = count - prefix - suffix
    let overlap = Swift.min(oldMiddle, newMiddle)
    for i in prefix..<(prefix + overlap) where old[i] != self[i] {
      let mark = writer.push(index: i)
      try writer.diffElement(old[i], self[i], depth: depth)
      writer.pop(mark)
    }
    if newMiddle > oldMiddle {
      for i in (prefix + overlap)..<(prefix + newMiddle) {
        let mark = writer.push(index: i)
        try writer.add(.value(self[i]))
        writer.pop(mark)
      }
    } else {
      for i in stride(from: prefix + oldMiddle - 1, through: prefix + overlap, by: -1) {
        let mark = writer.push(index: i)
        try writer.remove()
        writer.pop(mark)
      }
    }
  }

  /// The lengths of the common prefix and suffix (not overlapping). This code runs
  /// unspecialized (it is reached through a dynamic cast), so elements are first compared
  /// as bytes: an array the store copied before writing one element holds the same bytes
  /// everywhere else (bitwise-equal values of a value type are equal), and `==` is called
  /// only where the bytes differ.
  static func commonEnds(_ old: [Element], _ new: [Element]) -> (prefix: Int, suffix: Int) {
    old.withUnsafeBufferPointer { a in
      new.withUnsafeBufferPointer { b in
        let limit = Swift.min(a.count, b.count)
        if a.count == b.count, a.baseAddress == b.baseAddress { return (limit, 0) }
        guard let pa = a.baseAddress, let pb = b.baseAddress else { return (0, 0) }
        let size = MemoryLayout<Element>.size
        // Elements are compared as bytes (without the padding after them, which copies do
        // not keep), `==` only where the bytes differ.
        let stride = MemoryLayout<Element>.stride
        // `size`, not `stride`: the padding after an element is not copied with it.
        let ra = UnsafeRawPointer(pa)
        let rb = UnsafeRawPointer(pb)
        var prefix = 0
        while prefix < limit {
          prefix += rk_shim_same_elements(ra, rb, prefix, prefix, 1, limit - prefix, size, stride)
          guard prefix < limit, pa[prefix] == pb[prefix] else { break }
          prefix += 1
        }
        var suffix = 0
        let room = limit - prefix
        while suffix < room {
          suffix += rk_shim_same_elements(
            ra, rb, a.count - 1 - suffix, b.count - 1 - suffix, -1, room - suffix, size, stride)
          guard suffix < room, pa[a.count - 1 - suffix] == pb[b.count - 1 - suffix] else { break }
          suffix += 1
        }
        return (prefix, suffix)
      }
    }
  }

  package func _child(at segment: String) -> _PointerStep {
    guard let index = JSONPointer.arrayIndex(segment), index < count else { return .missingIndex(count: count) }
    return .found(.value(self[index]))
  }
}

extension Dictionary: _PatchDiffable where Key == String, Value: Encodable & Equatable {
  package func _patch(from old: any Encodable, into writer: inout PatchWriter, depth: Int) throws(PatchError) {
    guard type(of: old) == [String: Value].self else { return try writer.replace(.value(self)) }
    let old = _load(old, as: [String: Value].self)
    if old == self { return }
    for (key, value) in self {
      let mark = writer.push(key: key)
      if let previous = old[key] {
        if previous != value { try Differ.diff(previous, value, into: &writer, depth: depth) }
      } else {
        try writer.add(.value(value))
      }
      writer.pop(mark)
    }
    for key in old.keys where self[key] == nil {
      let mark = writer.push(key: key)
      try writer.remove()
      writer.pop(mark)
    }
  }

  package func _child(at segment: String) -> _PointerStep {
    guard let value = self[segment] else { return .missingKey }
    return .found(.value(value))
  }
}
