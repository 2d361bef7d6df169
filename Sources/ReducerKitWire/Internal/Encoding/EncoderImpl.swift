// The streaming encoder behind `WireEncoder`: writes JSON while `encode(to:)` runs,
// keeping a stack of open containers (frames) and closing them lazily.

/// An open container in the output.
struct _Frame {
  enum Kind: UInt8 {
    /// `{` written; members follow.
    case object
    /// `[` written; elements follow.
    case array
    /// The keyed container of an enum value. Its `{` is written with the first key; a
    /// single case key with an empty payload is rewritten to a bare string on close.
    case enumObject
    /// A case's payload (a nested keyed container of an enum), written in the wire form.
    case payload
  }
  /// How a payload has been written so far.
  enum Mode: UInt8 {
    case empty
    /// `_0` written bare.
    case single
    /// `_0`, `_1`, … written as a JSON array, `[` inserted at `start`.
    case array
    /// Written as an object (labels, or a mix of labels and positions).
    case object
  }

  var kind: Kind
  var mode: Mode = .empty
  /// enumObject: the previous member's payload was empty and nothing is written for it yet.
  var emptyPayloadPending = false
  /// This frame pushed an entry on the path (nested containers) to pop when it closes.
  var pushedPath = false
  var id: UInt32
  var count = 0
  /// enumObject: offset of its `{`. payload: offset where the payload value begins.
  var start = 0
  /// A super-encoder slot: the output length right after its key, or -1.
  var pendingSlot = -1
  /// Path length for containers on this frame.
  var pathDepth = 0
}

final class _EncoderImpl: Encoder {
  // `@exclusivity(unchecked)`: an encoder is created per `encode` call, used by one thread,
  // and its methods never overlap accesses to these properties, so the dynamic exclusivity
  // checks (a large share of the hot path) would only cost time.
  @exclusivity(unchecked) var out: _ByteBuffer
  @exclusivity(unchecked) var frames = _Stack<_Frame>()
  @exclusivity(unchecked) var path = _PathStack()
  @exclusivity(unchecked) var nextFrameID: UInt32 = 1
  /// The value slot being filled: frames below `slotBase` belong to enclosing values,
  /// output before `slotStart` too.
  @exclusivity(unchecked) var slotBase = 0
  @exclusivity(unchecked) var slotStart = 0
  /// The value being encoded in the slot is an enum.
  @exclusivity(unchecked) var slotIsEnum = false
  /// The first error, kept even if user code catches it, so the result is never corrupt.
  @exclusivity(unchecked) var failure: (any Error)?
  /// The direct-path states of the last few struct types encoded (see DirectEncoding.swift).
  /// nil: no direct path. Unretained: see `trustedPlan`.
  @exclusivity(unchecked) var directCache: [(type: ObjectIdentifier, plan: Unmanaged<_DirectPlan>?)] = []
  /// Whether `encodeIfPresent(nil)` writes `null` (else the key is left out).
  var explicitNulls = false
  /// Runs of elements kept from earlier encodes (`WireEncoder.encode(_:reusing:)`); nil: none.
  @exclusivity(unchecked) var runs: WireRunCache.Table?
  /// The last sequence type `encode(contentsOf:)` saw with `runs`, and whether it is a
  /// `ContiguousArray` (asked once: the comparison instantiates the array's metadata).
  @exclusivity(unchecked) var runType: (id: ObjectIdentifier, isArray: Bool)?

  init() { out = _ByteBuffer(capacity: 256) }

  /// An encoder writing into `out`.
  init(out: consuming _ByteBuffer) { self.out = out }

  var codingPath: [any CodingKey] { path.entries().map(\.key) }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func codingPath(depth: Int) -> [any CodingKey] { path.entries(depth: depth).map(\.key) }

  func encodeRoot<T: Encodable>(_ value: T) throws {
    if try writeDirect(value, key: nil, style: .key) { return }
    try encodeInSlot(value, base: 0, start: 0)
    closeFrames(downTo: 0)
    if let failure = failure { throw failure }
  }

  // MARK: Writing

  @inline(__always)
  func append(_ byte: UInt8) { out.append(byte) }

  @inline(__always)
  func append(_ text: StaticString) { out.append(text) }

  @inline(__always)
  func appendString(_ string: String) { out.appendJSONString(string) }

  @inline(__always)
  func appendInt(_ value: Int64) { out.appendInt(value) }

  @inline(__always)
  func appendUInt(_ value: UInt64) { out.appendUInt(value) }

  func appendDouble(_ value: Double, key: (any CodingKey)?, style: _PathStyle) throws {
    guard value.isFinite else {
      throw record(invalidValue(value, "Double \(value) is not representable in JSON", key: key, style: style))
    }
    out.appendDouble(value)
  }

  func appendFloat(_ value: Float, key: (any CodingKey)?, style: _PathStyle) throws {
    guard value.isFinite else {
      throw record(invalidValue(value, "Float \(value) is not representable in JSON", key: key, style: style))
    }
    out.appendFloat(value)
  }

  func appendText(_ text: String) { out.append(utf8: text) }

  // MARK: Values

  /// Writes `value` if it is a type with a direct JSON form; returns false otherwise.
  @inline(__always)
  func writeDirect<T>(_ value: T, key: (any CodingKey)?, style: _PathStyle) throws -> Bool {
    if T.self == String.self {
      appendString(unsafeBitCast(value, to: String.self))
    } else if T.self == Int.self {
      appendInt(Int64(unsafeBitCast(value, to: Int.self)))
    } else if T.self == Bool.self {
      append(unsafeBitCast(value, to: Bool.self) ? "true" : "false")
    } else if T.self == Double.self {
      try appendDouble(unsafeBitCast(value, to: Double.self), key: key, style: style)
    } else if T.self == Int64.self {
      appendInt(unsafeBitCast(value, to: Int64.self))
    } else if T.self == UInt64.self {
      appendUInt(unsafeBitCast(value, to: UInt64.self))
    } else if T.self == UInt.self {
      appendUInt(UInt64(unsafeBitCast(value, to: UInt.self)))
    } else if T.self == Int32.self {
      appendInt(Int64(unsafeBitCast(value, to: Int32.self)))
    } else if T.self == UInt32.self {
      appendUInt(UInt64(unsafeBitCast(value, to: UInt32.self)))
    } else if T.self == Float.self {
      try appendFloat(unsafeBitCast(value, to: Float.self), key: key, style: style)
    } else if T.self == JSONValue.self {
      unsafeBitCast(value, to: JSONValue.self)._write(into: &out)
    } else {
      return false
    }
    return true
  }

  /// Encodes a value into the slot that starts at frame count `base` and output `start`.
  func encodeInSlot<T: Encodable>(_ value: T, base: Int, start: Int) throws {
    if _typeIsEnum(T.self) {
      try encodeThrough(value, base: base, start: start)
      return
    }
    switch directState(T.self) {
    case .trusted(let plan):
      try withUnsafePointer(to: value) { try writeDirect(plan, UnsafeRawPointer($0)) }
    case .checking(let plan, _):
      let mark = out.count
      try encodeThrough(value, base: base, start: start)
      let written = UnsafeBufferPointer(rebasing: out.bytes[mark...])
      _directChecked(T.self, agreed: directAgrees(value, plan, written: written))
    case .unsupported:
      try encodeThrough(value, base: base, start: start)
    }
  }

  /// Encodes a value into its slot through its `encode(to:)`.
  func encodeThrough<T: Encodable>(_ value: T, base: Int, start: Int) throws {
    let savedBase = slotBase
    let savedStart = slotStart
    let savedIsEnum = slotIsEnum
    slotBase = base
    slotStart = start
    slotIsEnum = _typeIsEnum(T.self)
    defer {
      slotBase = savedBase
      slotStart = savedStart
      slotIsEnum = savedIsEnum
    }
    do {
      // A whole state through a run cache: a `TrackedArray` is written a leaf at a time.
      if let table = runs, try encodeStoredRuns(value, table: table) {
      } else {
        try value.encode(to: self)
      }
    } catch {
      closeFrames(downTo: base)
      throw record(wrap(error, value: value))
    }
    if frames.count > base { closeFrames(downTo: base) }
    if out.count == start {
      append("{}")  // the value requested no container and wrote nothing
    }
  }

  /// Encodes a nested value for `key` (already written) of the current container.
  @inline(__always)
  func encodeNested<T: Encodable>(_ value: T, key: any CodingKey, style: _PathStyle) throws {
    if try writeDirect(value, key: key, style: style) { return }
    try withUnsafePointer(to: key) { key in
      path.push(borrowing: key, style: style)
      defer { path.removeLast() }
      try encodeInSlot(value, base: frames.count, start: out.count)
    }
  }

  // MARK: Frames

  @discardableResult
  func pushFrame(_ kind: _Frame.Kind, start: Int = 0, pushedPath: Bool = false) -> (Int, UInt32) {
    let id = nextFrameID
    nextFrameID &+= 1
    if nextFrameID == 0 { nextFrameID = 1 }  // 0 means "any frame"
    frames.push(
      _Frame(
        kind: kind, pushedPath: pushedPath, id: id, start: start,
        pathDepth: path.count))
    return (frames.count - 1, id)
  }

  @inline(__always)
  func closeFrames(downTo count: Int) {
    while frames.count > count { closeTop() }
  }

  func closeTop() {
    var frame = frames.pop()
    settleSlot(&frame)
    switch frame.kind {
    case .object:
      append(UInt8(ascii: "}"))
    case .array:
      append(UInt8(ascii: "]"))
    case .enumObject:
      if frame.count == 0 {
        append("{}")
      } else if frame.emptyPayloadPending {
        if frame.count == 1 {
          // `{"increment":` becomes `"increment"`.
          out.remove(at: frame.start)
          out.truncate(to: out.count - 1)
        } else {
          append("{}}")
        }
      } else {
        append(UInt8(ascii: "}"))
      }
    case .payload:
      switch frame.mode {
      case .empty:
        let parent = frames.count - 1
        if parent >= 0, frames[parent].kind == .enumObject {
          frames.pointer(parent).pointee.emptyPayloadPending = true
        } else {
          append("{}")
        }
      case .single: break
      case .array: append(UInt8(ascii: "]"))
      case .object: append(UInt8(ascii: "}"))
      }
    }
    if frame.pushedPath { path.removeLast() }
  }

  /// Writes `{}` for a super-encoder slot that received nothing.
  @inline(__always)
  func settleSlot(_ frame: inout _Frame) {
    if frame.pendingSlot >= 0 {
      if out.count == frame.pendingSlot { append("{}") }
      frame.pendingSlot = -1
    }
  }

  /// Checks that frame `index` is still open (`id` 0: whichever frame is at `index`).
  @inline(__always)
  func check(_ index: Int, _ id: UInt32) throws {
    guard index >= 0, index < frames.count,
      id == 0 || frames[index].id == id
    else {
      throw record(misuse(_EncoderMisuse.finished))
    }
  }

  /// Prepares keyed frame `index` for a member named `name`: closes deeper containers,
  /// writes the separator and key (in the wire form for enum payloads).
  @inline(__always)
  func beginMember<K: CodingKey>(_ index: Int, _ id: UInt32, _ key: K) throws -> _PathStyle {
    try check(index, id)
    if frames.count > index &+ 1 { closeFrames(downTo: index &+ 1) }
    let frame = frames.pointer(index)
    if frame.pointee.pendingSlot >= 0 { settleSlot(&frame.pointee) }
    switch frame.pointee.kind {
    case .object:
      if frame.pointee.count > 0 { append(UInt8(ascii: ",")) }
      frame.pointee.count &+= 1
      appendKey(key)
      return .key
    case .enumObject:
      if frame.pointee.count == 0 {
        frame.pointee.start = out.count
        append(UInt8(ascii: "{"))
      } else {
        if frame.pointee.emptyPayloadPending {
          append("{}")
          frame.pointee.emptyPayloadPending = false
        }
        append(UInt8(ascii: ","))
      }
      frame.pointee.count &+= 1
      appendKey(key)
      return .key
    case .payload:
      return beginPayloadMember(frame, key.stringValue)
    case .array:
      throw record(misuse("a keyed container was used on an array"))
    }
  }

  /// Appends `"name":` for `key`.
  @inline(__always)
  func appendKey<K: CodingKey>(_ key: K) {
    out.appendJSONString(key.stringValue)
    out.append(UInt8(ascii: ":"))
  }

  func beginPayloadMember(_ frame: UnsafeMutablePointer<_Frame>, _ name: String) -> _PathStyle {
    let position = _positionalIndex(name)
    switch frame.pointee.mode {
    case .empty:
      if position == 0 {
        frame.pointee.mode = .single
        frame.pointee.start = out.count
        frame.pointee.count = 1
        return .hidden
      }
      append(UInt8(ascii: "{"))
    case .single:
      if position == 1 {
        out.insert("[", at: frame.pointee.start)
        append(UInt8(ascii: ","))
        frame.pointee.mode = .array
        frame.pointee.count = 2
        return .index
      }
      out.insert(#"{"_0":"#, at: frame.pointee.start)
      append(UInt8(ascii: ","))
    case .array:
      if position == frame.pointee.count {
        append(UInt8(ascii: ","))
        frame.pointee.count &+= 1
        return .index
      }
      convertArrayPayloadToObject(start: frame.pointee.start)
      append(UInt8(ascii: ","))
    case .object:
      append(UInt8(ascii: ","))
    }
    frame.pointee.mode = .object
    frame.pointee.count &+= 1
    appendString(name)
    append(UInt8(ascii: ":"))
    return .key
  }

  /// Rewrites `[e0,e1,…` (unclosed, from `start`) as `{"_0":e0,"_1":e1,…`: a case mixing
  /// unlabeled and labeled values is written as an object.
  func convertArrayPayloadToObject(start: Int) {
    let old = Array(UnsafeBufferPointer(rebasing: out.bytes[(start + 1)...]))
    out.truncate(to: start)
    append(#"{"_0":"#)
    var element = 0
    var depth = 0
    var inString = false
    var escaped = false
    for byte in old {
      if inString {
        if escaped {
          escaped = false
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == UInt8(ascii: "\"") {
          inString = false
        }
      } else {
        switch byte {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
        case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
        case UInt8(ascii: ",") where depth == 0:
          element += 1
          appendText(",\"_\(element)\":")
          continue
        default: break
        }
      }
      append(byte)
    }
  }

  /// Prepares array frame `index` for a new element; returns its position.
  @inline(__always)
  func beginElement(_ index: Int, _ id: UInt32) throws -> Int {
    try check(index, id)
    if frames.count > index &+ 1 { closeFrames(downTo: index &+ 1) }
    let frame = frames.pointer(index)
    if frame.pointee.pendingSlot >= 0 { settleSlot(&frame.pointee) }
    let position = frame.pointee.count
    if position > 0 { append(UInt8(ascii: ",")) }
    frame.pointee.count = position &+ 1
    return position
  }

  // MARK: Containers

  /// Opens (or finds) the keyed frame for the slot (`base`, `start`); returns its index,
  /// or -1 after recording a misuse.
  @inline(__always)
  func openKeyed(base: Int, start: Int, isEnum: Bool) -> Int {
    if frames.count > base {
      let kind = frames[base].kind
      if kind == .object || kind == .enumObject { return base }
      record(misuse(_EncoderMisuse.keyedOnUnkeyed))
      return -1
    }
    guard out.count == start, frames.count == base else {
      record(misuse(_EncoderMisuse.keyedOnEncoded))
      return -1
    }
    if isEnum {
      pushFrame(.enumObject, start: start)
    } else {
      append(UInt8(ascii: "{"))
      pushFrame(.object)
    }
    return base
  }

  /// The container `container(keyedBy:)` returns. It addresses "the frame at its index"
  /// (id 0).
  func slotContainer<K: CodingKey>(_ type: K.Type) -> KeyedEncodingContainer<K> {
    let index = openKeyed(base: slotBase, start: slotStart, isEnum: slotIsEnum)
    return KeyedEncodingContainer(_KeyedEncoder<K>(impl: self, frame: index, id: 0))
  }

  /// A keyed container for a slot that starts a path entry (unkeyed `nestedContainer`,
  /// super encoders).
  func keyedContainer<K: CodingKey>(base: Int, start: Int, pushing entry: _PathEntry)
    -> KeyedEncodingContainer<K>
  {
    if frames.count > base {
      let frame = frames[base]
      if frame.kind == .object || frame.kind == .enumObject {
        return KeyedEncodingContainer(_KeyedEncoder<K>(impl: self, frame: base, id: frame.id))
      }
      return KeyedEncodingContainer(_KeyedEncoder<K>(impl: self, failing: misuse(_EncoderMisuse.keyedOnUnkeyed)))
    }
    guard out.count == start, frames.count == base else {
      return KeyedEncodingContainer(_KeyedEncoder<K>(impl: self, failing: misuse(_EncoderMisuse.keyedOnEncoded)))
    }
    path.push(owning: entry.key, style: entry.style)
    append(UInt8(ascii: "{"))
    let (index, id) = pushFrame(.object, pushedPath: true)
    return KeyedEncodingContainer(_KeyedEncoder<K>(impl: self, frame: index, id: id))
  }

  func unkeyedContainer(base: Int, start: Int, pushing entry: _PathEntry?) -> any UnkeyedEncodingContainer {
    if frames.count > base {
      let frame = frames[base]
      if frame.kind == .array {
        return _UnkeyedEncoder(impl: self, frame: base, id: frame.id)
      }
      return _UnkeyedEncoder(impl: self, failing: record(misuse(_EncoderMisuse.unkeyedOnKeyed)))
    }
    guard out.count == start, frames.count == base else {
      return _UnkeyedEncoder(impl: self, failing: record(misuse(_EncoderMisuse.unkeyedOnEncoded)))
    }
    if let entry { path.push(owning: entry.key, style: entry.style) }
    append(UInt8(ascii: "["))
    let (index, id) = pushFrame(.array, pushedPath: entry != nil)
    return _UnkeyedEncoder(impl: self, frame: index, id: id)
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    slotContainer(Key.self)
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    unkeyedContainer(base: slotBase, start: slotStart, pushing: nil)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    return _SingleEncoder(
      impl: self, base: slotBase, start: slotStart, depth: path.count)
  }

  /// A nested keyed container for `key` of keyed frame `index`.
  func nestedKeyed<NK: CodingKey>(_ index: Int, _ id: UInt32, _ key: some CodingKey)
    -> KeyedEncodingContainer<NK>
  {
    do {
      let style = try beginMember(index, id, key)
      path.push(owning: key, style: style)
      let nested: (Int, UInt32)
      if frames[index].kind == .enumObject {
        nested = pushFrame(.payload, pushedPath: true)
      } else {
        append(UInt8(ascii: "{"))
        nested = pushFrame(.object, pushedPath: true)
      }
      return KeyedEncodingContainer(_KeyedEncoder<NK>(impl: self, frame: nested.0, id: nested.1))
    } catch {
      return KeyedEncodingContainer(_KeyedEncoder<NK>(impl: self, failing: error))
    }
  }

  /// A nested unkeyed container for `key` of keyed frame `index`.
  func nestedUnkeyed(_ index: Int, _ id: UInt32, _ key: some CodingKey) -> any UnkeyedEncodingContainer {
    do {
      let style = try beginMember(index, id, key)
      path.push(owning: key, style: style)
      append(UInt8(ascii: "["))
      let (nested, nestedID) = pushFrame(.array, pushedPath: true)
      return _UnkeyedEncoder(impl: self, frame: nested, id: nestedID)
    } catch {
      return _UnkeyedEncoder(impl: self, failing: error)
    }
  }

  /// An encoder for the value of `key` in keyed frame `index` (`superEncoder`).
  func superEncoder(_ index: Int, _ id: UInt32, _ key: some CodingKey) -> any Encoder {
    do {
      let style = try beginMember(index, id, key)
      let frameID = frames[index].id
      frames.pointer(index).pointee.pendingSlot = out.count
      return _SlotEncoder(
        impl: self, parent: index, parentID: frameID, start: out.count,
        entry: _PathEntry(key: key, style: style))
    } catch {
      return _SlotEncoder(impl: self, failing: error)
    }
  }

  /// An encoder for the next element of array frame `index` (`superEncoder`).
  func superEncoderForElement(_ index: Int, _ id: UInt32) -> any Encoder {
    do {
      let position = try beginElement(index, id)
      let frameID = frames[index].id
      frames.pointer(index).pointee.pendingSlot = out.count
      return _SlotEncoder(
        impl: self, parent: index, parentID: frameID, start: out.count,
        entry: _PathEntry(key: _IndexKey(index: position), style: .index))
    } catch {
      return _SlotEncoder(impl: self, failing: error)
    }
  }

  // MARK: Errors

  func invalidValue(_ value: Any, _ problem: String, key: (any CodingKey)?, style: _PathStyle) -> any Error {
    var entries = path.entries()
    if let key { entries.append(_PathEntry(key: key, style: style)) }
    return _invalidValueError(value, problem, at: entries)
  }

  func misuse(_ problem: String) -> any Error {
    _misuseError(problem, at: path.entries())
  }

  /// Keeps the first error so the encoding fails even if user code catches it.
  @discardableResult
  func record(_ error: any Error) -> any Error {
    if failure == nil { failure = error }
    return error
  }

  /// Gives an error thrown by `encode(to:)` a wire error with the path where it happened.
  func wrap(_ error: any Error, value: Any) -> any Error {
    _wrapEncodingError(error, value: value, at: path.entries())
  }
}
