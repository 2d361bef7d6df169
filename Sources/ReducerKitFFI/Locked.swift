@_spi(Host) import ReducerKit

/// A value guarded by the core's `_Lock` (an atomic word; sleepers on a condition variable):
/// one compare-and-swap and one exchange per use, no call and no allocation. Not
/// `Synchronization.Mutex`: on Linux it locks with futexes and atomics inside the
/// (uninstrumented) standard library, so ThreadSanitizer sees no synchronization and reports
/// every guarded access as a race (`make test-tsan`); `_Lock`'s atomics are compiled into
/// ReducerKit's modules, where TSan sees them.
@usableFromInline
final class Locked<Value>: @unchecked Sendable {
  // Safe: `value` is read and written only inside `withLock`, while holding `lock`.
  @usableFromInline let lock = _Lock()
  // `@exclusivity(unchecked)`: every access is inside `withLock`, under the lock, so accesses
  // never overlap; the dynamic check would only cost time.
  @exclusivity(unchecked) @usableFromInline var value: Value

  @inlinable init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value.
  @inlinable
  func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
