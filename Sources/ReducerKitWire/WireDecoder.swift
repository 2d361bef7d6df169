/// Decodes `Decodable` values from JSON in the ReducerKit wire format.
///
/// ```swift
/// let decoder = WireDecoder(rootNoun: "action")
/// try decoder.decode(Action.self, from: #""increment""#)          // .increment
/// try decoder.decode(Action.self, from: #"{"setCount": 5}"#)      // .setCount(5)
/// try decoder.decode(Action.self, from: #""incremnt""#)
/// // throws: unknown action "incremnt" at $ (did you mean "increment"?);
/// //         expected one of: "increment", {"setCount": <int>}, …
/// ```
///
/// Accepts every form `WireEncoder` writes, plus `{"increment":{}}` and `{"increment":null}`
/// for a case without values; not Swift's other synthesized forms (`{"setCount":{"_0":5}}`).
/// Strict, so host bugs surface: an object key the type does not know (for keyed containers
/// whose keys are a `CodingKey` enum, such as synthesized `CodingKeys`) is a
/// `.unknownKey` error, and so is a key beside an enum case (`{"increment":{},"x":1}`); an
/// array payload must have exactly the case's values; a key given twice is a
/// `.duplicateKey` error. Integers are strict: `1.5`, `1e400` or `300` (for `Int8`) do not
/// decode as integers. Every error is a `WireError` naming the JSON path and what was
/// expected; errors thrown by custom `init(from:)` code are converted too. What it accepts is
/// what `jsonSchema(for:)` describes.
///
/// A custom `init(from:)` that reads one object through two different `CodingKey` enums
/// sees the keys of each rejected by the other; give it one key type.
public struct WireDecoder: Sendable {
  /// The noun for an enum value at the root in messages, e.g. `"action"` gives
  /// `unknown action "x" at $`. Nested enum values always say `case`.
  public var rootNoun: String
  /// The deepest nesting of arrays and objects accepted when parsing text.
  public var maxDepth: Int

  /// - Parameters:
  ///   - rootNoun: the noun for an enum value at the root in messages (`"action"`, …).
  ///   - maxDepth: the deepest nesting accepted when parsing (at most `jsonMaxDepthLimit`).
  public init(rootNoun: String = "case", maxDepth: Int = 512) {
    self.rootNoun = rootNoun
    self.maxDepth = maxDepth
  }

  /// Decodes a `T` from UTF-8 JSON text.
  public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer)
    throws(WireError) -> T
  {
    if _typeIsEnum(T.self), _wireCodecMode == .fast, maxDepth >= 1, case .trusted(let plan) = _enumState(T.self) {
      // `"name"` and `{"name": scalar}` of a `SynthesizedCodable` enum, without a tree.
      // (A heap cell, not `withUnsafeTemporaryAllocation`: in this generic function its typed
      // throw costs a metadata lookup that is dearer than the allocation.)
      let result = UnsafeMutablePointer<T>.allocate(capacity: 1)
      defer { result.deallocate() }
      if _decodeSmallEnum(bytes, plan: plan, into: result) { return result.move() }
    }
    if T.self == String.self, _wireCodecMode == .fast {
      // A string at the root (a host endpoint's response, typically): taken from the parsed
      // tree without the decoder. Anything else gets the decoder's own error.
      var (value, depth) = try _parseJSON(bytes, maxDepth: maxDepth)
      defer { if depth > _dismantleDepth { value._dismantle() } }
      if case .string(let string) = value { return unsafeBitCast(string, to: T.self) }
      return try decode(type, from: value)
    }
    return try decodeParsing(type, from: bytes)
  }

  /// Settles what decoding a `T` asks first (whether it is an enum, and its direct plan) before
  /// the first value: a store calls it for its actions when it is made, so that its first send
  /// costs what later ones do (a first cast to a protocol scans every conformance in the
  /// process).
  @usableFromInline
  package static func prepare<T: Decodable>(_ type: T.Type) {
    if _typeIsEnum(T.self), _wireCodecMode == .fast { _ = _enumState(T.self) }
  }

  /// Parses the text into a tree, then decodes the tree.
  func decodeParsing<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws(WireError) -> T {
    var (value, depth) = try _parseJSON(bytes, maxDepth: maxDepth)
    // Deep input is freed iteratively, so no depth up to the limit can exhaust a small stack.
    defer { if depth > _dismantleDepth { value._dismantle() } }
    return try decode(type, from: value)
  }

  /// Decodes a `T` from UTF-8 JSON text.
  public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(WireError) -> T {
    try bytes.withUnsafeBytes { raw in
      Result { () throws(WireError) in try decode(type, from: raw) }
    }.get()
  }

  /// Decodes a `T` from JSON text.
  public func decode<T: Decodable>(_ type: T.Type, from text: String) throws(WireError) -> T {
    var text = text
    return try text.withUTF8 { utf8 in
      Result { () throws(WireError) in try decode(type, from: UnsafeRawBufferPointer(utf8)) }
    }.get()
  }

  /// Decodes a `T` from a parsed JSON value.
  public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(WireError) -> T {
    if _wireCodecMode != .fast { return try decodeChecked(type, from: value) }
    let impl = _DecoderImpl(value: value, rootNoun: rootNoun, path: [])
    do {
      return try impl.unbox(value, as: T.self, base: 0, nested: .none, key: nil, style: .key)
    } catch {
      throw _wireError(fromDecoding: error)
    }
  }

  /// The reference decoder, alone or checked against the fast one (see `_wireCodecMode`).
  @inline(never)
  func decodeChecked<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(WireError) -> T {
    if _wireCodecMode == .crossCheck {
      _requireAgreement("decoding", T.self, _decodeBothWays(T.self, from: value, rootNoun: rootNoun))
    }
    return try _referenceDecode(T.self, from: value, rootNoun: rootNoun)
  }
}
