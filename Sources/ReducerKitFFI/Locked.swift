#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif

/// A value guarded by a pthread mutex: `Synchronization.Mutex` without its blind spot.
/// On Linux, `Mutex` locks with futexes and atomics inside the (uninstrumented) standard
/// library, so ThreadSanitizer sees no synchronization and reports every guarded access as a
/// race (`make test-tsan`). A pthread mutex is intercepted by TSan, so the accesses it guards
/// are checked for real. Uncontended cost is the same order (one atomic each way).
@usableFromInline
final class Locked<Value>: @unchecked Sendable {
  // Safe: `value` is read and written only inside `withLock`, while holding `mutex`; the
  // mutex pointer is allocated in init, never reassigned, and freed in deinit, when no
  // thread can hold a reference any more.
  @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
  // `@exclusivity(unchecked)`: every access is inside `withLock`, under the mutex, so accesses
  // never overlap; the dynamic check would only cost time.
  @exclusivity(unchecked) @usableFromInline var value: Value

  @inlinable init(_ value: Value) {
    self.value = value
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    let err = pthread_mutex_init(mutex, nil)
    precondition(err == 0, "pthread_mutex_init failed: \(err)")
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` with exclusive access to the value.
  @inlinable
  func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
    let err = pthread_mutex_lock(mutex)
    precondition(err == 0, "pthread_mutex_lock failed: \(err)")
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}
