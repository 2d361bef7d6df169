// Which OS thread is running.
#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif

/// An identifier of the calling OS thread, never 0 (0 can stand for "no thread").
@inlinable @inline(__always)
package func currentThreadID() -> UInt {
  #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
  #else
    return UInt(pthread_self())
  #endif
}
