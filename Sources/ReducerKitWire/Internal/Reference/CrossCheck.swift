// Running the reference codec, alone or beside the fast one.

/// Encodes `value` with the reference encoder.
func _referenceEncode<T: Encodable>(_ value: T, explicitNulls: Bool) throws(WireError) -> [UInt8] {
  let tree: JSONValue
  do {
    tree = try _RefEncoding.encode(value, explicitNulls: explicitNulls)
  } catch {
    throw _wireError(fromEncoding: error)
  }
  var out: [UInt8] = []
  _referenceWrite(tree, into: &out)
  return out
}

/// Decodes a `T` from `value` with the reference decoder.
func _referenceDecode<T: Decodable>(_ type: T.Type, from value: JSONValue, rootNoun: String) throws(WireError) -> T {
  do {
    return try _RefDecoding(rootNoun: rootNoun).decode(T.self, from: value, at: [])
  } catch {
    throw _wireError(fromDecoding: error)
  }
}

/// Encodes `value` with the fast encoder (whatever the switch says).
func _fastEncode<T: Encodable>(_ value: T, explicitNulls: Bool) throws(WireError) -> [UInt8] {
  let impl = _EncoderImpl()
  impl.explicitNulls = explicitNulls
  // Its output is read through a pointer below: keep it alive until then.
  defer { withExtendedLifetime(impl) {} }
  do {
    try impl.encodeRoot(value)
  } catch {
    throw _wireError(fromEncoding: error)
  }
  return Array(impl.out.bytes)
}

/// Decodes a `T` from `value` with the fast decoder (whatever the switch says).
func _fastDecode<T: Decodable>(_ type: T.Type, from value: JSONValue, rootNoun: String) throws(WireError) -> T {
  let impl = _DecoderImpl(value: value, rootNoun: rootNoun, path: [])
  do {
    return try impl.unbox(value, as: T.self, base: 0, nested: .none, key: nil, style: .key)
  } catch {
    throw _wireError(fromDecoding: error)
  }
}

/// What a codec produced: bytes (for a decode: the value re-encoded by the reference
/// encoder) or an error.
enum _CodecOutcome: Equatable, CustomStringConvertible {
  case bytes([UInt8])
  case failure(WireError)

  init(_ body: () throws(WireError) -> [UInt8]) {
    do { self = .bytes(try body()) } catch { self = .failure(error) }
  }

  /// The same outcome; or either ran out of the calling thread's stack (where that happens
  /// depends on the codec's frame sizes, not on the format); or both refused the same misuse
  /// of the encoder by `encode(to:)` code (the streaming encoder reports the path it was at,
  /// the reference encoder the misused container's).
  func agrees(with other: _CodecOutcome) -> Bool {
    if self == other || isStackLimit || other.isStackLimit { return true }
    if let a = misuse, let b = other.misuse { return a == b }
    return false
  }

  /// For an encoder misuse: what was misused.
  var misuse: Substring? {
    guard case .failure(let error) = self, error.kind == .invalidValue,
      let range = error.message.firstRange(of: "unsupported use of the encoder: ")
    else { return nil }
    return error.message[range.upperBound...]
  }

  var isStackLimit: Bool {
    guard case .failure(let error) = self else { return false }
    return error.kind == .tooDeep && error.message.contains("for the calling thread's stack")
  }

  var description: String {
    switch self {
    case .bytes(let bytes): return _truncated(String(decoding: bytes, as: UTF8.self), to: 2000)
    case .failure(let error): return "\(error.kind) error at \(error.path): \(error.message)"
    }
  }
}

/// Both encoders' outcomes for `value`.
func _encodeBothWays<T: Encodable>(_ value: T, explicitNulls: Bool) -> (fast: _CodecOutcome, reference: _CodecOutcome) {
  (
    _CodecOutcome { () throws(WireError) in try _fastEncode(value, explicitNulls: explicitNulls) },
    _CodecOutcome { () throws(WireError) in try _referenceEncode(value, explicitNulls: explicitNulls) }
  )
}

/// Both decoders' outcomes for `value`: what each read, re-encoded by the reference encoder
/// (with explicit nulls, so a `nil` read shows), or the error each reported.
func _decodeBothWays<T: Decodable>(_ type: T.Type, from value: JSONValue, rootNoun: String)
  -> (fast: _CodecOutcome, reference: _CodecOutcome)
{
  func outcome(_ decode: () throws(WireError) -> T) -> _CodecOutcome {
    let decoded: T
    do { decoded = try decode() } catch { return .failure(error) }
    guard let encodable = decoded as? any Encodable else { return .bytes([]) }
    return _CodecOutcome { () throws(WireError) in try _referenceEncodeAny(encodable) }
  }
  return (
    outcome { () throws(WireError) in try _fastDecode(T.self, from: value, rootNoun: rootNoun) },
    outcome { () throws(WireError) in try _referenceDecode(T.self, from: value, rootNoun: rootNoun) }
  )
}

/// `value` encoded by the reference encoder, object members sorted by key (dictionaries
/// iterate in an order that differs between equal instances).
private func _referenceEncodeAny(_ value: any Encodable) throws(WireError) -> [UInt8] {
  let bytes = try _referenceEncode(value, explicitNulls: true)
  var out: [UInt8] = []
  _referenceWrite(_sortedMembers(try parseJSON(bytes, maxDepth: jsonMaxDepthLimit)), into: &out)
  return out
}

private func _sortedMembers(_ value: JSONValue) -> JSONValue {
  switch value {
  case .array(let elements): return .array(elements.map(_sortedMembers))
  case .object(let members):
    return .object(members.map { (key: $0.key, value: _sortedMembers($0.value)) }.sorted { $0.key < $1.key })
  default: return value
  }
}

/// Stops the process with a report when the two codecs disagree (`REDUCERKIT_WIRE_CHECK=1`).
func _requireAgreement(_ what: String, _ type: Any.Type, _ outcomes: (fast: _CodecOutcome, reference: _CodecOutcome)) {
  guard !outcomes.fast.agrees(with: outcomes.reference) else { return }
  fatalError(
    "ReducerKit wire cross-check failed: the fast and reference codecs differ \(what) \(_typeName(type))\n"
      + "  fast:      \(outcomes.fast)\n  reference: \(outcomes.reference)")
}

/// Runs `count` random values for `T`'s JSON Schema (every third one with a defect) through
/// both decoders, and every value read through both encoders (with and without explicit
/// nulls). Returns the disagreements and how many inputs decoded (so a caller can tell the
/// run was not vacuous).
func _differentialRun<T: Codable>(_ type: T.Type, rootNoun: String, count: Int, seed: UInt64)
  -> (failures: [String], decoded: Int)
{
  let schema = jsonSchema(for: T.self)
  var sampler = _SchemaSampler(seed: seed)
  var failures: [String] = []
  var decoded = 0
  for i in 0..<count {
    var input = sampler.sample(schema)
    if i % 3 == 2 { input = sampler.mutate(input) }
    failures += _differentialCheck(T.self, input: input, rootNoun: rootNoun)
    if let value = try? _fastDecode(T.self, from: input, rootNoun: rootNoun) {
      decoded += 1
      _ = value
    }
  }
  return (failures, decoded)
}

/// Both decoders on `input`, and both encoders on what was read. Returns the disagreements.
func _differentialCheck<T: Codable>(_ type: T.Type, input: JSONValue, rootNoun: String) -> [String] {
  var failures: [String] = []
  let decoded = _decodeBothWays(T.self, from: input, rootNoun: rootNoun)
  if !decoded.fast.agrees(with: decoded.reference) {
    failures.append(
      "decoding \(_typeName(T.self)) from \(_truncated(input.serialized(), to: 500))\n"
        + "  fast:      \(decoded.fast)\n  reference: \(decoded.reference)")
  }
  if let value = try? _fastDecode(T.self, from: input, rootNoun: rootNoun) {
    for explicitNulls in [false, true] {
      let encoded = _encodeBothWays(value, explicitNulls: explicitNulls)
      if !encoded.fast.agrees(with: encoded.reference) {
        failures.append(
          "encoding \(_typeName(T.self)) read from \(_truncated(input.serialized(), to: 500))\n"
            + "  fast:      \(encoded.fast)\n  reference: \(encoded.reference)")
      }
    }
  }
  return failures
}
