// The containers `_EncoderImpl` hands to `encode(to:)` implementations.

struct _KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let impl: _EncoderImpl
  let frame: Int
  /// The frame's id, or 0 for "the frame at `frame`" (reused slot containers).
  let id: UInt32

  init(impl: _EncoderImpl, frame: Int, id: UInt32) {
    self.impl = impl
    self.frame = frame
    self.id = id
  }

  /// A container whose every use fails (after a misuse was recorded).
  init(impl: _EncoderImpl, failing error: any Error) {
    impl.record(error)
    self.init(impl: impl, frame: -1, id: 0)
  }

  var codingPath: [any CodingKey] {
    guard frame >= 0, frame < impl.frames.count else { return [] }
    return impl.codingPath(depth: impl.frames[frame].pathDepth)
  }

  @inline(__always)
  func begin(_ key: Key) throws -> _PathStyle {
    try impl.beginMember(frame, id, key)
  }

  mutating func encodeNil(forKey key: Key) throws {
    _ = try begin(key)
    impl.append("null")
  }

  // `encodeIfPresent`: with `explicitNulls`, nil is written as `null` instead of omitted.
  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else if impl.explicitNulls { try encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else if impl.explicitNulls { try encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else if impl.explicitNulls { try encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else if impl.explicitNulls { try encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else if impl.explicitNulls { try encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else if impl.explicitNulls { try encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else if impl.explicitNulls { try encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else if impl.explicitNulls { try encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else if impl.explicitNulls { try encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else if impl.explicitNulls { try encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else if impl.explicitNulls { try encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else if impl.explicitNulls { try encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else if impl.explicitNulls { try encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else if impl.explicitNulls { try encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else if impl.explicitNulls { try encodeNil(forKey: key) }
  }
  mutating func encode(_ value: Bool, forKey key: Key) throws {
    _ = try begin(key)
    impl.append(value ? "true" : "false")
  }
  mutating func encode(_ value: String, forKey key: Key) throws {
    _ = try begin(key)
    impl.appendString(value)
  }
  mutating func encode(_ value: Double, forKey key: Key) throws {
    let style = try begin(key)
    try impl.appendDouble(value, key: key, style: style)
  }
  mutating func encode(_ value: Float, forKey key: Key) throws {
    let style = try begin(key)
    try impl.appendFloat(value, key: key, style: style)
  }
  mutating func encode(_ value: Int, forKey key: Key) throws {
    _ = try begin(key)
    impl.appendInt(Int64(value))
  }
  mutating func encode(_ value: Int8, forKey key: Key) throws {
    _ = try begin(key)
    impl.appendInt(Int64(value))
  }
  mutating func encode(_ value: Int16, forKey key: Key) throws {
    _ = try begin(key)
    impl.appendInt(Int64(value))
  }
  mutating func encode(_ value: Int32, forKey key: Key) throws {
    _ = try begin(key)
    impl.appendInt(Int64(value))
  }
  mutating func encode(_ value: Int64, forKey key: Key) throws {
    _ = try begin(key)
    impl.appendInt(value)
  }
  mutating func encode(_ value: UInt, forKey key: Key) throws {
    _ = try begin(key)
    impl.appendUInt(UInt64(value))
  }
  mutating func encode(_ value: UInt8, forKey key: Key) throws {
    _ = try begin(key)
    impl.appendUInt(UInt64(value))
  }
  mutating func encode(_ value: UInt16, forKey key: Key) throws {
    _ = try begin(key)
    impl.appendUInt(UInt64(value))
  }
  mutating func encode(_ value: UInt32, forKey key: Key) throws {
    _ = try begin(key)
    impl.appendUInt(UInt64(value))
  }
  mutating func encode(_ value: UInt64, forKey key: Key) throws {
    _ = try begin(key)
    impl.appendUInt(value)
  }
  mutating func encode(_ value: Int128, forKey key: Key) throws {
    _ = try begin(key)
    impl.appendText(value.description)
  }
  mutating func encode(_ value: UInt128, forKey key: Key) throws {
    _ = try begin(key)
    impl.appendText(value.description)
  }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    let style = try begin(key)
    if impl.encodeByPlan(value) { return }
    try impl.encodeNested(value, key: key, style: style)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    impl.nestedKeyed(frame, id, key)
  }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    impl.nestedUnkeyed(frame, id, key)
  }
  mutating func superEncoder() -> any Encoder {
    impl.superEncoder(frame, id, _StringKey("super"))
  }
  mutating func superEncoder(forKey key: Key) -> any Encoder {
    impl.superEncoder(frame, id, key)
  }
}

struct _UnkeyedEncoder: UnkeyedEncodingContainer {
  let impl: _EncoderImpl
  let frame: Int
  let id: UInt32

  init(impl: _EncoderImpl, frame: Int, id: UInt32) {
    self.impl = impl
    self.frame = frame
    self.id = id
  }

  init(impl: _EncoderImpl, failing error: any Error) {
    impl.record(error)
    self.init(impl: impl, frame: -1, id: 0)
  }

  var codingPath: [any CodingKey] {
    guard frame >= 0, frame < impl.frames.count else { return [] }
    return impl.codingPath(depth: impl.frames[frame].pathDepth)
  }

  var count: Int {
    guard frame >= 0, frame < impl.frames.count, impl.frames[frame].id == id else { return 0 }
    return impl.frames[frame].count
  }

  mutating func encodeNil() throws {
    _ = try impl.beginElement(frame, id)
    impl.append("null")
  }
  mutating func encode(_ value: Bool) throws {
    _ = try impl.beginElement(frame, id)
    impl.append(value ? "true" : "false")
  }
  mutating func encode(_ value: String) throws {
    _ = try impl.beginElement(frame, id)
    impl.appendString(value)
  }
  mutating func encode(_ value: Double) throws {
    let i = try impl.beginElement(frame, id)
    try impl.appendDouble(value, key: _IndexKey(index: i), style: .index)
  }
  mutating func encode(_ value: Float) throws {
    let i = try impl.beginElement(frame, id)
    try impl.appendFloat(value, key: _IndexKey(index: i), style: .index)
  }
  mutating func encode(_ value: Int) throws {
    _ = try impl.beginElement(frame, id)
    impl.appendInt(Int64(value))
  }
  mutating func encode(_ value: Int8) throws {
    _ = try impl.beginElement(frame, id)
    impl.appendInt(Int64(value))
  }
  mutating func encode(_ value: Int16) throws {
    _ = try impl.beginElement(frame, id)
    impl.appendInt(Int64(value))
  }
  mutating func encode(_ value: Int32) throws {
    _ = try impl.beginElement(frame, id)
    impl.appendInt(Int64(value))
  }
  mutating func encode(_ value: Int64) throws {
    _ = try impl.beginElement(frame, id)
    impl.appendInt(value)
  }
  mutating func encode(_ value: UInt) throws {
    _ = try impl.beginElement(frame, id)
    impl.appendUInt(UInt64(value))
  }
  mutating func encode(_ value: UInt8) throws {
    _ = try impl.beginElement(frame, id)
    impl.appendUInt(UInt64(value))
  }
  mutating func encode(_ value: UInt16) throws {
    _ = try impl.beginElement(frame, id)
    impl.appendUInt(UInt64(value))
  }
  mutating func encode(_ value: UInt32) throws {
    _ = try impl.beginElement(frame, id)
    impl.appendUInt(UInt64(value))
  }
  mutating func encode(_ value: UInt64) throws {
    _ = try impl.beginElement(frame, id)
    impl.appendUInt(value)
  }
  mutating func encode(_ value: Int128) throws {
    _ = try impl.beginElement(frame, id)
    impl.appendText(value.description)
  }
  mutating func encode(_ value: UInt128) throws {
    _ = try impl.beginElement(frame, id)
    impl.appendText(value.description)
  }
  /// Elements in contiguous storage whose type has a trusted plan that cannot fail are
  /// written in one loop (no per-element protocol calls or copies); others one by one.
  /// With a run cache (`WireEncoder.encode(_:reusing:)`), such elements in a
  /// `ContiguousArray` (a `TrackedArray`'s leaf) are copied from the cache when their storage
  /// was written before.
  mutating func encode<S: Sequence>(contentsOf sequence: S) throws where S.Element: Encodable {
    if let table = impl.runs, impl.isContiguousArray(S.self), let plan = impl.trustedPlan(S.Element.self),
      plan._withUnsafeGuaranteedRef({ $0.infallible }),
      try sequence.withContiguousStorageIfAvailable({ (elements) throws -> Bool in
        guard let base = elements.baseAddress, !elements.isEmpty else { return false }
        try impl.encodeRun(
          UnsafeRawPointer(base), count: elements.count, stride: MemoryLayout<S.Element>.stride,
          owner: Unmanaged.passUnretained(unsafeBitCast(sequence, to: AnyObject.self)),  // a `ContiguousArray`: its storage
          plan, frame: frame, id: id, table: table)
        return true
      }) == true
    {
      return
    }
    if let plan = impl.trustedPlan(S.Element.self),
      plan._withUnsafeGuaranteedRef({ $0.infallible }),
      try sequence.withContiguousStorageIfAvailable({ (elements) throws -> Void in
        guard let base = elements.baseAddress else { return }
        let (frame, id) = (self.frame, self.id)
        // Guaranteed references: no retain and release of the encoder or plan per element.
        try Unmanaged.passUnretained(impl)._withUnsafeGuaranteedRef { impl in
          try plan._withUnsafeGuaranteedRef { plan in
            for i in 0..<elements.count {
              _ = try impl.beginElement(frame, id)
              impl.writeInfallible(plan, UnsafeRawPointer(base + i))
            }
          }
        }
      }) != nil
    {
      return
    }
    for element in sequence { try encode(element) }
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    let i = try impl.beginElement(frame, id)
    if impl.encodeByPlan(value) { return }
    try impl.encodeNested(value, key: _IndexKey(index: i), style: .index)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    do {
      let i = try impl.beginElement(frame, id)
      return impl.keyedContainer(
        base: impl.frames.count, start: impl.out.count,
        pushing: _PathEntry(key: _IndexKey(index: i), style: .index))
    } catch {
      return KeyedEncodingContainer(_KeyedEncoder<NestedKey>(impl: impl, failing: error))
    }
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    do {
      let i = try impl.beginElement(frame, id)
      return impl.unkeyedContainer(
        base: impl.frames.count, start: impl.out.count,
        pushing: _PathEntry(key: _IndexKey(index: i), style: .index))
    } catch {
      return _UnkeyedEncoder(impl: impl, failing: error)
    }
  }

  mutating func superEncoder() -> any Encoder {
    impl.superEncoderForElement(frame, id)
  }
}

struct _SingleEncoder: SingleValueEncodingContainer {
  let impl: _EncoderImpl
  /// The slot this container fills.
  let base: Int
  let start: Int
  let depth: Int

  var codingPath: [any CodingKey] { impl.codingPath(depth: depth) }

  func begin() throws {
    guard base >= 0, impl.frames.count == base, impl.out.count == start else {
      throw impl.record(impl.misuse(_EncoderMisuse.singleTwice))
    }
  }

  mutating func encodeNil() throws {
    try begin()
    impl.append("null")
  }
  mutating func encode(_ value: Bool) throws {
    try begin()
    impl.append(value ? "true" : "false")
  }
  mutating func encode(_ value: String) throws {
    try begin()
    impl.appendString(value)
  }
  mutating func encode(_ value: Double) throws {
    try begin()
    try impl.appendDouble(value, key: nil, style: .key)
  }
  mutating func encode(_ value: Float) throws {
    try begin()
    try impl.appendFloat(value, key: nil, style: .key)
  }
  mutating func encode(_ value: Int) throws {
    try begin()
    impl.appendInt(Int64(value))
  }
  mutating func encode(_ value: Int8) throws {
    try begin()
    impl.appendInt(Int64(value))
  }
  mutating func encode(_ value: Int16) throws {
    try begin()
    impl.appendInt(Int64(value))
  }
  mutating func encode(_ value: Int32) throws {
    try begin()
    impl.appendInt(Int64(value))
  }
  mutating func encode(_ value: Int64) throws {
    try begin()
    impl.appendInt(value)
  }
  mutating func encode(_ value: UInt) throws {
    try begin()
    impl.appendUInt(UInt64(value))
  }
  mutating func encode(_ value: UInt8) throws {
    try begin()
    impl.appendUInt(UInt64(value))
  }
  mutating func encode(_ value: UInt16) throws {
    try begin()
    impl.appendUInt(UInt64(value))
  }
  mutating func encode(_ value: UInt32) throws {
    try begin()
    impl.appendUInt(UInt64(value))
  }
  mutating func encode(_ value: UInt64) throws {
    try begin()
    impl.appendUInt(value)
  }
  mutating func encode(_ value: Int128) throws {
    try begin()
    impl.appendText(value.description)
  }
  mutating func encode(_ value: UInt128) throws {
    try begin()
    impl.appendText(value.description)
  }
  mutating func encode<T: Encodable>(_ value: T) throws {
    try begin()
    if try impl.writeDirect(value, key: nil, style: .key) { return }
    try impl.encodeInSlot(value, base: base, start: start)
  }
}

/// The encoder a `superEncoder()` call returns: fills the slot after its key.
final class _SlotEncoder: Encoder {
  let impl: _EncoderImpl
  let parent: Int
  let parentID: UInt32
  let start: Int
  let entry: _PathEntry?

  init(impl: _EncoderImpl, parent: Int, parentID: UInt32, start: Int, entry: _PathEntry) {
    self.impl = impl
    self.parent = parent
    self.parentID = parentID
    self.start = start
    self.entry = entry
  }

  init(impl: _EncoderImpl, failing error: any Error) {
    impl.record(error)
    self.impl = impl
    self.parent = -1
    self.parentID = 0
    self.start = -1
    self.entry = nil
  }

  var codingPath: [any CodingKey] { impl.codingPath + (entry.map { [$0.key] } ?? []) }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// Whether the slot can still be written: its parent is open and nothing followed it.
  var isLive: Bool {
    return parent >= 0 && parent < impl.frames.count
      && impl.frames[parent].id == parentID
      && impl.frames[parent].pendingSlot == start
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    guard isLive else {
      return KeyedEncodingContainer(
        _KeyedEncoder<Key>(impl: impl, failing: impl.misuse(_EncoderMisuse.superMovedOn)))
    }
    guard let entry else {
      return KeyedEncodingContainer(_KeyedEncoder<Key>(impl: impl, failing: impl.misuse(_EncoderMisuse.superMovedOn)))
    }
    return impl.keyedContainer(base: parent + 1, start: start, pushing: entry)
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    guard isLive else {
      return _UnkeyedEncoder(impl: impl, failing: impl.misuse(_EncoderMisuse.superMovedOn))
    }
    return impl.unkeyedContainer(base: parent + 1, start: start, pushing: entry)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    _SingleEncoder(impl: impl, base: isLive ? parent + 1 : -1, start: start, depth: impl.path.count)
  }
}
