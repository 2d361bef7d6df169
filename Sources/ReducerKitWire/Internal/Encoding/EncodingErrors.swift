// The errors both encoders (the streaming one and the reference one) report, built in one
// place so the two say exactly the same thing.

/// An `EncodingError.invalidValue` carrying the `WireError` for `problem` at `entries`.
func _invalidValueError(_ value: Any, _ problem: String, at entries: [_PathEntry]) -> any Error {
  let path = _renderPath(entries)
  let wire = WireError(kind: .invalidValue, path: path, message: "invalid value at \(path): \(problem)")
  return EncodingError.invalidValue(
    value,
    EncodingError.Context(codingPath: entries.map(\.key), debugDescription: wire.message, underlyingError: wire))
}

/// The error for `encode(to:)` code using the encoder in a way a streaming encoder cannot
/// follow (see `WireEncoder`).
func _misuseError(_ problem: String, at entries: [_PathEntry]) -> any Error {
  _invalidValueError((), "unsupported use of the encoder: \(problem)", at: entries)
}

/// Gives an error thrown by `encode(to:)` at `entries` a wire error with the path where it
/// happened (errors that already carry one are kept).
func _wrapEncodingError(_ error: any Error, value: Any, at entries: [_PathEntry]) -> any Error {
  if error is WireError { return error }
  if let encodingError = error as? EncodingError,
    case .invalidValue(_, let context) = encodingError
  {
    if context.underlyingError is WireError { return error }
    let extra = context.codingPath.count > entries.count ? Array(context.codingPath[entries.count...]) : []
    let path = _renderPath(entries, extra: extra)
    let wire = WireError(
      kind: .invalidValue, path: path, message: "invalid value at \(path): \(context.debugDescription)")
    return EncodingError.invalidValue(
      value, .init(codingPath: context.codingPath, debugDescription: wire.message, underlyingError: wire))
  }
  let path = _renderPath(entries)
  let wire = WireError(kind: .invalidValue, path: path, message: "invalid value at \(path): \(error)")
  return EncodingError.invalidValue(
    value, .init(codingPath: entries.map(\.key), debugDescription: wire.message, underlyingError: wire))
}

/// What a misused encoder says (shared by both encoders).
enum _EncoderMisuse {
  static let finished =
    "a container was used after its value was finished (a streaming encoder needs each "
    + "container to be filled before the next member of its parent is written)"
  static let keyedOnUnkeyed = "a keyed container was requested for a value that already has an unkeyed one"
  static let keyedOnEncoded = "a keyed container was requested for a value already encoded"
  static let unkeyedOnKeyed = "an unkeyed container was requested for a value that already has a keyed one"
  static let unkeyedOnEncoded = "an unkeyed container was requested for a value already encoded"
  static let singleTwice = "a single value container was written twice or after its value was finished"
  static let superMovedOn = "a super encoder was used after its parent moved on"
}
