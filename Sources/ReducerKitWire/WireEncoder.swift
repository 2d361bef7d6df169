/// Encodes `Encodable` values to compact JSON in the ReducerKit wire format.
///
/// ```swift
/// enum Action: Codable { case increment, setCount(Int), addTodo(title: String), move(Int, Int) }
/// let encoder = WireEncoder()
/// try encoder.encodeToString(Action.increment)              // "increment"
/// try encoder.encodeToString(Action.setCount(5))            // {"setCount":5}
/// try encoder.encodeToString(Action.addTodo(title: "Milk")) // {"addTodo":{"title":"Milk"}}
/// try encoder.encodeToString(Action.move(0, 3))             // {"move":[0,3]}
/// ```
///
/// Enums with associated values never show Swift's synthesized `{"case":{"_0":…}}` form: a
/// case without values is a string, a case with one unlabeled value wraps the value bare,
/// several unlabeled values become an array, labeled values an object. Structs are objects
/// with keys in encoding order; `nil` written with `encodeIfPresent` is an absent key (or
/// `null` with ``explicitNulls``).
/// Doubles use the shortest text that reads back exactly; NaN and infinity are errors.
///
/// The encoder streams straight into a byte buffer (no intermediate tree). It closes
/// containers lazily, so it expects each container to be filled before the next member of
/// its parent is written, as synthesized and ordinary `encode(to:)` code does; a container
/// used after that fails the encoding with an error.
public struct WireEncoder: Sendable {
  /// Write `nil` optionals as `null` instead of leaving the key out, so every state object has
  /// every key (what hosts comparing states expect). Off by default.
  public var explicitNulls: Bool

  /// An encoder; `explicitNulls` writes `nil` optionals as `null`.
  public init(explicitNulls: Bool = false) {
    self.explicitNulls = explicitNulls
  }

  /// Encodes `value` as compact UTF-8 JSON.
  public func encode<T: Encodable>(_ value: T) throws(WireError) -> [UInt8] {
    if _wireCodecMode == .fast, let bytes = Self.encodeScalar(value) { return bytes }
    return try withEncodedBytes(value) { $0.withMemoryRebound(to: UInt8.self) { Array($0) } }
  }

  /// The JSON of an `Int` or `String` value (a host endpoint's payload, typically), written
  /// without the encoder (the same bytes: `WireScalarTests`); nil for any other type.
  static func encodeScalar<T>(_ value: T) -> [UInt8]? {
    if T.self == Int.self {
      var out = _ByteBuffer(capacity: 24)
      out.appendInt(Int64(unsafeBitCast(value, to: Int.self)))
      return out.makeArray()
    }
    if T.self == String.self {
      let string = unsafeBitCast(value, to: String.self)
      var out = _ByteBuffer(capacity: string.utf8.count &+ 8)
      out.appendJSONString(string)
      return out.makeArray()
    }
    return nil
  }

  /// Encodes `value` as a compact JSON string.
  public func encodeToString<T: Encodable>(_ value: T) throws(WireError) -> String {
    try withEncodedBytes(value) { String(decoding: $0, as: UTF8.self) }
  }

  /// Encodes `value` and passes the UTF-8 JSON to `body` without copying it.
  ///
  /// The bytes are valid only during `body` (for copying into memory a C caller owns).
  public func withEncodedBytes<T: Encodable, R>(
    _ value: T, _ body: (UnsafeRawBufferPointer) -> R
  ) throws(WireError) -> R {
    if _wireCodecMode != .fast { return try withEncodedBytesChecked(value, body) }
    let impl = _EncoderImpl()
    impl.explicitNulls = explicitNulls
    // Its output is read through a pointer below: keep it alive until then.
    defer { withExtendedLifetime(impl) {} }
    do {
      try impl.encodeRoot(value)
    } catch {
      throw _wireError(fromEncoding: error)
    }
    return body(UnsafeRawBufferPointer(impl.out.bytes))
  }

  /// `encode(value)`, copying the runs of array elements `cache` kept from earlier encodes
  /// whose storage `value` still shares (see `WireRunCache`), and keeping this encode's runs
  /// there. The same bytes as `encode(value)`; with `nulTerminated`, followed by a NUL.
  /// Under `REDUCERKIT_WIRE_CHECK=1` the result is compared with the reference encoder's.
  @usableFromInline
  package func encode<T: Encodable>(
    _ value: T, reusing cache: WireRunCache, nulTerminated: Bool = false
  ) throws(WireError) -> [UInt8] {
    guard _wireCodecMode != .reference, let table = cache.take(explicitNulls: explicitNulls) else {
      var bytes = try encode(value)
      if nulTerminated { bytes.append(0) }
      return bytes
    }
    // Written straight into the array that is returned (a state's JSON is kept and copied
    // out from there: a copy of the whole fewer), with room for a little growth; a value
    // that outgrows it moves to memory of its own and is copied into a new array.
    let terminator = nulTerminated ? 1 : 0
    let capacity = table.lastSize &+ table.lastSize / 8 &+ 64 &+ terminator
    var failure: WireError?
    var outgrown: [UInt8]?
    var bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
      count = 0
      let impl = _EncoderImpl(out: _ByteBuffer(borrowing: buffer.baseAddress.unsafelyUnwrapped, capacity: buffer.count))
      impl.explicitNulls = explicitNulls
      impl.runs = table
      // Then off this memory, which the array owns from here on (an `Encoder` kept by
      // misbehaving `encode(to:)` code writes into a buffer of its own).
      defer { impl.out = _ByteBuffer(capacity: 0) }
      do {
        try impl.encodeRoot(value)
      } catch {
        failure = _wireError(fromEncoding: error)
        return
      }
      impl.runs = nil
      let written = impl.out.count
      if impl.out.isBorrowing && written &+ terminator <= buffer.count {
        if nulTerminated { buffer[written] = 0 }
        count = written &+ terminator
      } else {
        let bytes = impl.out.bytes
        outgrown = [UInt8](unsafeUninitializedCapacity: written &+ terminator) { outgrown, count in
          if let base = bytes.baseAddress { outgrown.baseAddress.unsafelyUnwrapped.initialize(from: base, count: written) }
          if nulTerminated { outgrown[written] = 0 }
          count = written &+ terminator
        }
      }
    }
    if let failure {
      table.discardUsed()
      cache.putBack(table)
      throw failure
    }
    if let outgrown { bytes = outgrown }
    table.finish(size: bytes.count &- terminator)
    cache.putBack(table)
    if _wireCodecMode == .crossCheck {
      let fast = nulTerminated ? Array(bytes.dropLast()) : bytes
      _requireAgreement(
        "encoding (with runs reused)", T.self,
        (_CodecOutcome { fast }, _CodecOutcome { () throws(WireError) in try _referenceEncode(value, explicitNulls: explicitNulls) }))
    }
    return bytes
  }

  /// The reference encoder, alone or checked against the fast one (see `_wireCodecMode`).
  @inline(never)
  func withEncodedBytesChecked<T: Encodable, R>(
    _ value: T, _ body: (UnsafeRawBufferPointer) -> R
  ) throws(WireError) -> R {
    if _wireCodecMode == .crossCheck {
      _requireAgreement("encoding", T.self, _encodeBothWays(value, explicitNulls: explicitNulls))
    }
    let bytes = try _referenceEncode(value, explicitNulls: explicitNulls)
    return bytes.withUnsafeBytes(body)
  }

  /// Encodes `value` to a `JSONValue` (encodes, then parses the result).
  public func encodeToJSONValue<T: Encodable>(_ value: T) throws(WireError) -> JSONValue {
    let bytes = try encode(value)
    return try parseJSON(bytes, maxDepth: jsonMaxDepthLimit)
  }
}

func _wireError(fromEncoding error: any Error) -> WireError {
  if let wire = error as? WireError { return wire }
  if let encodingError = error as? EncodingError, case .invalidValue(_, let context) = encodingError {
    if let wire = context.underlyingError as? WireError { return wire }
    let path = _renderPath([], extra: context.codingPath)
    return WireError(kind: .invalidValue, path: path, message: "invalid value at \(path): \(context.debugDescription)")
  }
  return WireError(kind: .invalidValue, path: "$", message: "invalid value at $: \(error)")
}
