
// One level of a value's JSON structure, read from its `encode(to:)` without encoding it:
// the members of a struct, the elements of a sequence, or the value a wrapper encodes. The
// differ and `rk_store_get` walk states with it, so they look only at the parts they need
// and leave the encoding of those parts to `WireEncoder` (whose output is the reference).

/// A member or element: `null`, or a value still to be looked into or encoded.
package enum _ShapeChild {
  case null
  case value(any Encodable)
}

/// A member of a keyed container (a struct's stored property, a dictionary entry).
struct _Member {
  let key: String
  let value: _ShapeChild
}

/// What one value's `encode(to:)` wrote, one level deep.
enum _Shape {
  /// A keyed container (a struct, or a dictionary with string keys): its members in order.
  case keyed([_Member])
  /// An unkeyed container: its elements.
  case unkeyed([_ShapeChild])
  /// A single value container holding another encodable value (a wrapper, an Optional):
  /// the value it wrapped, at the same JSON position.
  case single(_ShapeChild)
  /// A JSON scalar (a number, string, boolean or null written directly).
  case scalar
  /// Anything else: nested containers (enums with associated values, custom encodings),
  /// super encoders, several containers, nothing at all. Compared and read as encoded JSON.
  case opaque

  /// The shape of `value` (at most one level of it is visited).
  static func of(_ value: any Encodable) -> _Shape {
    let recorder = _ShapeRecorder()
    recorder.record(value)
    return recorder.shape
  }
}

/// Recorders reused from one value to the next within the diffs of one store (the differ
/// takes one per value it looks into and gives it back when done with its members), so a diff
/// allocates no recorder or member array per struct. Used under the lock of the store's patch
/// engine only.
@usableFromInline
package final class _ShapePool {
  private var free: [_ShapeRecorder] = []
  /// Struct syncers of array element types (see `PatchWriter.diffElement`), nil for types
  /// that have none.
  var elementSyncers: [ObjectIdentifier: _Syncer?] = [:]

  /// Whether the element syncer of `type` is made (for tests).
  package func hasElementSyncer(for type: Any.Type) -> Bool {
    (elementSyncers[ObjectIdentifier(type)] ?? nil) != nil
  }

  @usableFromInline package init() {}

  func take() -> _ShapeRecorder { free.popLast() ?? _ShapeRecorder() }

  func give(_ recorder: _ShapeRecorder) {
    recorder.reset()
    free.append(recorder)
  }

  /// The shapes of two values, from recorders given back when `body` returns.
  func withShapes<R, E: Error>(
    _ a: any Encodable, _ b: any Encodable, _ body: (_Shape, _Shape) throws(E) -> R
  ) throws(E) -> R {
    let first = take()
    let second = take()
    defer {
      give(second)
      give(first)
    }
    first.record(a)
    second.record(b)
    return try body(first.shape, second.shape)
  }
}

/// The `Encoder` that records a `_Shape`.
final class _ShapeRecorder: Encoder {
  // `@exclusivity(unchecked)`: a recorder is used by one thread at a time (one made per
  // `_Shape.of` call, or one of a `_ShapePool`, under its engine's lock), and its methods
  // never overlap accesses to these properties.
  enum Kind { case none, keyed, unkeyed, single, scalar, opaque }
  @exclusivity(unchecked) var kind = Kind.none
  @exclusivity(unchecked) var members: [_Member] = []
  @exclusivity(unchecked) var elements: [_ShapeChild] = []
  @exclusivity(unchecked) var wrapped: _ShapeChild = .null

  init() {}

  /// Records `value`'s shape (a recorder records one value between resets).
  func record(_ value: any Encodable) {
    do {
      try value.encode(to: self)
    } catch {
      kind = .opaque
    }
  }

  /// Forgets the value recorded, keeping the storage.
  func reset() {
    kind = .none
    members.removeAll(keepingCapacity: true)
    elements.removeAll(keepingCapacity: true)
    wrapped = .null
  }

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  var shape: _Shape {
    switch kind {
    case .keyed: return .keyed(members)
    case .unkeyed: return .unkeyed(elements)
    case .single: return .single(wrapped)
    case .scalar: return .scalar
    case .none, .opaque: return .opaque
    }
  }

  /// Enters `next` unless another kind of container was asked for (then: opaque).
  func enter(_ next: Kind) {
    if kind == .none {
      kind = next
    } else if kind != next {
      kind = .opaque
    }
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    enter(.keyed)
    if members.capacity == 0 { members.reserveCapacity(8) }
    return KeyedEncodingContainer(_ShapeKeyed<Key>(recorder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    enter(.unkeyed)
    return _ShapeUnkeyed(recorder: self)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    _ShapeSingle(recorder: self)
  }

  /// A single value written: a scalar, or a wrapped value to look into.
  func single(_ child: _ShapeChild, scalar: Bool) {
    guard kind == .none else {
      kind = .opaque
      return
    }
    kind = scalar ? .scalar : .single
    wrapped = child
  }
}

/// Scalars the wire format writes directly: a member of one of these types is a leaf.
/// (Metatype compares, not dynamic casts: a type is a scalar only as itself.)
@inline(__always)
func _isScalar(_ value: any Encodable) -> Bool {
  _isScalarType(type(of: value))
}

@inline(__always)
func _isScalarType(_ t: any Encodable.Type) -> Bool {
  t == String.self || t == Int.self || t == Bool.self || t == Double.self || t == Int64.self
    || t == UInt64.self || t == UInt.self || t == Int32.self || t == UInt32.self || t == Float.self
    || t == Int8.self || t == Int16.self || t == UInt8.self || t == UInt16.self
}

struct _ShapeKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let recorder: _ShapeRecorder
  var codingPath: [any CodingKey] { [] }

  func add(_ key: Key, _ child: _ShapeChild) {
    recorder.members.append(_Member(key: key.stringValue, value: child))
  }

  mutating func encodeNil(forKey key: Key) throws { add(key, .null) }
  mutating func encode(_ value: Bool, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: String, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: Double, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: Float, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: Int, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: Int16, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: Int32, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: Int64, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: UInt, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: UInt16, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: UInt32, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { add(key, .value(value)) }

  // `nil` is written as `null`, as `WireEncoder(explicitNulls: true)` does.
  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
    add(key, value.map { .value($0) } ?? .null)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    recorder.kind = .opaque
    return KeyedEncodingContainer(_ShapeKeyed<NestedKey>(recorder: _ShapeRecorder()))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    recorder.kind = .opaque
    return _ShapeUnkeyed(recorder: _ShapeRecorder())
  }

  mutating func superEncoder() -> any Encoder {
    recorder.kind = .opaque
    return _ShapeRecorder()
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    recorder.kind = .opaque
    return _ShapeRecorder()
  }
}

struct _ShapeUnkeyed: UnkeyedEncodingContainer {
  let recorder: _ShapeRecorder
  var codingPath: [any CodingKey] { [] }
  var count: Int { recorder.elements.count }

  mutating func encodeNil() throws { recorder.elements.append(.null) }
  mutating func encode(_ value: Bool) throws { recorder.elements.append(.value(value)) }
  mutating func encode(_ value: String) throws { recorder.elements.append(.value(value)) }
  mutating func encode(_ value: Double) throws { recorder.elements.append(.value(value)) }
  mutating func encode(_ value: Float) throws { recorder.elements.append(.value(value)) }
  mutating func encode(_ value: Int) throws { recorder.elements.append(.value(value)) }
  mutating func encode(_ value: Int8) throws { recorder.elements.append(.value(value)) }
  mutating func encode(_ value: Int16) throws { recorder.elements.append(.value(value)) }
  mutating func encode(_ value: Int32) throws { recorder.elements.append(.value(value)) }
  mutating func encode(_ value: Int64) throws { recorder.elements.append(.value(value)) }
  mutating func encode(_ value: UInt) throws { recorder.elements.append(.value(value)) }
  mutating func encode(_ value: UInt8) throws { recorder.elements.append(.value(value)) }
  mutating func encode(_ value: UInt16) throws { recorder.elements.append(.value(value)) }
  mutating func encode(_ value: UInt32) throws { recorder.elements.append(.value(value)) }
  mutating func encode(_ value: UInt64) throws { recorder.elements.append(.value(value)) }
  mutating func encode<T: Encodable>(_ value: T) throws { recorder.elements.append(.value(value)) }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
    recorder.kind = .opaque
    return KeyedEncodingContainer(_ShapeKeyed<NestedKey>(recorder: _ShapeRecorder()))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    recorder.kind = .opaque
    return _ShapeUnkeyed(recorder: _ShapeRecorder())
  }

  mutating func superEncoder() -> any Encoder {
    recorder.kind = .opaque
    return _ShapeRecorder()
  }
}

struct _ShapeSingle: SingleValueEncodingContainer {
  let recorder: _ShapeRecorder
  var codingPath: [any CodingKey] { [] }

  mutating func encodeNil() throws { recorder.single(.null, scalar: true) }
  mutating func encode(_ value: Bool) throws { recorder.single(.value(value), scalar: true) }
  mutating func encode(_ value: String) throws { recorder.single(.value(value), scalar: true) }
  mutating func encode(_ value: Double) throws { recorder.single(.value(value), scalar: true) }
  mutating func encode(_ value: Float) throws { recorder.single(.value(value), scalar: true) }
  mutating func encode(_ value: Int) throws { recorder.single(.value(value), scalar: true) }
  mutating func encode(_ value: Int8) throws { recorder.single(.value(value), scalar: true) }
  mutating func encode(_ value: Int16) throws { recorder.single(.value(value), scalar: true) }
  mutating func encode(_ value: Int32) throws { recorder.single(.value(value), scalar: true) }
  mutating func encode(_ value: Int64) throws { recorder.single(.value(value), scalar: true) }
  mutating func encode(_ value: UInt) throws { recorder.single(.value(value), scalar: true) }
  mutating func encode(_ value: UInt8) throws { recorder.single(.value(value), scalar: true) }
  mutating func encode(_ value: UInt16) throws { recorder.single(.value(value), scalar: true) }
  mutating func encode(_ value: UInt32) throws { recorder.single(.value(value), scalar: true) }
  mutating func encode(_ value: UInt64) throws { recorder.single(.value(value), scalar: true) }
  mutating func encode<T: Encodable>(_ value: T) throws {
    recorder.single(.value(value), scalar: _isScalarType(T.self))
  }
}
