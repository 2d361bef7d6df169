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

/// Copies the first `count` of `bytes` into a NUL-terminated `malloc` buffer the caller
/// frees with `rk_free`.
func copyOut(
  _ bytes: [UInt8],
  count: Int,
  _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ outLength: UnsafeMutablePointer<Int>?
) throws(HostError) {
  let copied: HostError? = bytes.withUnsafeBytes { buffer in
    do throws(HostError) {
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
