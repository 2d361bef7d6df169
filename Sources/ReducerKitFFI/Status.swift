#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import ReducerKitHost
import ReducerKitWire

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

/// Runs an export's body: maps a thrown `HostError` to its status and records its message.
@inline(__always)
func ffiCall(_ body: () throws(HostError) -> Void) -> Int32 {
  do {
    try body()
    return HostStatus.ok.rawValue
  } catch {
    setLastError(error.message)
    return error.status.rawValue
  }
}

/// `ffiCall`'s failure: records the error's message and returns its status (out of line, so
/// an export that catches its own errors keeps its hot path short).
@inline(never)
func ffiFailed(_ error: HostError) -> Int32 {
  setLastError(error.message)
  return error.status.rawValue
}

/// Copies the first `count` of `bytes` into a NUL-terminated `malloc` buffer the caller
/// frees with `rk_free`.
func copyOut(
  _ bytes: [UInt8],
  count: Int,
  _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ outLength: UnsafeMutablePointer<Int>?
) throws(HostError) {
  let count = min(max(count, 0), bytes.count)
  guard let buffer = malloc(count + 1) else {
    throw HostError(.internal, "out of memory allocating \(count + 1) bytes")
  }
  if count > 0 { bytes.withUnsafeBufferPointer { _ = memcpy(buffer, $0.baseAddress.unsafelyUnwrapped, count) } }
  buffer.storeBytes(of: 0, toByteOffset: count, as: UInt8.self)
  outJSON.pointee = buffer.assumingMemoryBound(to: CChar.self)
  outLength?.pointee = count
}

/// Copies `bytes` into a NUL-terminated `malloc` buffer the caller frees with `rk_free`.
func copyOut(
  _ bytes: [UInt8],
  _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ outLength: UnsafeMutablePointer<Int>?
) throws(HostError) {
  let copied: HostError? = bytes.withUnsafeBytes { buffer in
    do throws(HostError) {
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
) throws(HostError) {
  guard let buffer = malloc(bytes.count + 1) else {
    throw HostError(.internal, "out of memory allocating \(bytes.count + 1) bytes")
  }
  if let base = bytes.baseAddress, bytes.count > 0 { memcpy(buffer, base, bytes.count) }
  buffer.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
  outJSON.pointee = buffer.assumingMemoryBound(to: CChar.self)
  outLength?.pointee = bytes.count
}
