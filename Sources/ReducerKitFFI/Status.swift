#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import ReducerKitWire

/// The C `rk_status` codes (see include/reducerkit.h).
@usableFromInline
enum RKStatus: Int32, Sendable {
  case ok = 0
  case invalidArgument = 1
  case json = 2
  case action = 3
  case state = 4
  case unknownFeature = 5
  case invalidHandle = 6
  case timeout = 7
  case `internal` = 8
  case misuse = 9
  case response = 10

  /// The static text `rk_status_string` returns.
  var staticText: StaticString {
    switch self {
    case .ok: return "RK_OK: success"
    case .invalidArgument: return "RK_ERR_INVALID_ARGUMENT: invalid argument"
    case .json: return "RK_ERR_JSON: malformed JSON"
    case .action: return "RK_ERR_ACTION: not an action of the feature"
    case .state: return "RK_ERR_STATE: not a state of the feature"
    case .unknownFeature: return "RK_ERR_UNKNOWN_FEATURE: no such feature"
    case .invalidHandle: return "RK_ERR_INVALID_HANDLE: store destroyed or never created"
    case .timeout: return "RK_ERR_TIMEOUT: timed out"
    case .internal: return "RK_ERR_INTERNAL: internal error"
    case .misuse: return "RK_ERR_MISUSE: call not allowed here"
    case .response: return "RK_ERR_RESPONSE: not a response of the request's endpoint"
    }
  }
}

/// An error crossing the C boundary: a status and a message for `rk_last_error`.
@usableFromInline
struct FFIError: Error, Sendable {
  @usableFromInline let status: RKStatus
  @usableFromInline let message: String
  @usableFromInline init(_ status: RKStatus, _ message: String) {
    self.status = status
    self.message = message
  }

  /// Maps a wire-codec error: unparsable text is `RK_ERR_JSON`, the rest is `otherwise`.
  @usableFromInline init(_ error: WireError, otherwise: RKStatus, context: String?) {
    let message = context.map { "\($0): \(error.message)" } ?? error.message
    switch error.kind {
    case .syntax, .invalidUTF8, .tooDeep, .duplicateKey:
      self.init(.json, message)
    default:
      self.init(otherwise, message)
    }
  }
}

// MARK: - Per-thread last error

private let lastErrorKey: pthread_key_t? = {
  var key = pthread_key_t()
  guard pthread_key_create(&key, { free($0) }) == 0 else { return nil }
  return key
}()

private let emptyMessage: StaticString = ""

/// Records `message` as the calling thread's last error.
func setLastError(_ message: String) {
  guard let key = lastErrorKey else { return }
  let copy = strdup(message)
  let old = pthread_getspecific(key)
  pthread_setspecific(key, copy.map { UnsafeMutableRawPointer($0) })
  free(old)
}

/// The calling thread's last error message ("" when none).
func lastErrorPointer() -> UnsafePointer<CChar> {
  if let key = lastErrorKey, let message = pthread_getspecific(key) {
    return UnsafePointer(message.assumingMemoryBound(to: CChar.self))
  }
  return UnsafeRawPointer(emptyMessage.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// Runs an export's body: maps a thrown `FFIError` to its status and records its message.
@inline(__always)
func ffiCall(_ body: () throws(FFIError) -> Void) -> Int32 {
  do {
    try body()
    return RKStatus.ok.rawValue
  } catch {
    setLastError(error.message)
    return error.status.rawValue
  }
}

/// Copies the first `count` of `bytes` into a NUL-terminated `malloc` buffer the caller
/// frees with `rk_free`.
func copyOut(
  _ bytes: [UInt8],
  count: Int,
  _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ outLength: UnsafeMutablePointer<Int>?
) throws(FFIError) {
  let copied: FFIError? = bytes.withUnsafeBytes { buffer in
    do throws(FFIError) {
      try copyOut(UnsafeRawBufferPointer(rebasing: buffer.prefix(count)), outJSON, outLength)
      return nil
    } catch {
      return error
    }
  }
  if let copied { throw copied }
}

/// Copies `bytes` into a NUL-terminated `malloc` buffer the caller frees with `rk_free`.
func copyOut(
  _ bytes: [UInt8],
  _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ outLength: UnsafeMutablePointer<Int>?
) throws(FFIError) {
  let copied: FFIError? = bytes.withUnsafeBytes { buffer in
    do throws(FFIError) {
      try copyOut(buffer, outJSON, outLength)
      return nil
    } catch {
      return error
    }
  }
  if let copied { throw copied }
}

/// Copies `bytes` into a NUL-terminated `malloc` buffer the caller frees with `rk_free`.
func copyOut(
  _ bytes: UnsafeRawBufferPointer,
  _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ outLength: UnsafeMutablePointer<Int>?
) throws(FFIError) {
  guard let buffer = malloc(bytes.count + 1) else {
    throw FFIError(.internal, "out of memory allocating \(bytes.count + 1) bytes")
  }
  if let base = bytes.baseAddress, bytes.count > 0 { memcpy(buffer, base, bytes.count) }
  buffer.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
  outJSON.pointee = buffer.assumingMemoryBound(to: CChar.self)
  outLength?.pointee = bytes.count
}
