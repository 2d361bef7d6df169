// A mutex and a condition variable: for waits that block a thread until another one says so.
#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif

/// A pthread mutex and condition variable (a monitor), for blocking waits with a deadline: a
/// host thread waiting for effects or for a request's answer, a contended `Lock`'s sleepers.
/// Every pthread call's result is checked: a failure is a broken invariant, and stops the
/// process rather than let a wait return early or a lock be lost.
///
/// ```swift
/// condition.lock()
/// while !done { condition.wait() }
/// condition.unlock()
/// ```
@usableFromInline
package final class Condition: @unchecked Sendable {
  // Safe: the pthread objects are the synchronization primitives; the pointers never change.
  @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
  @usableFromInline let cond: UnsafeMutablePointer<pthread_cond_t>

  @usableFromInline package init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    _check(pthread_mutex_init(mutex, nil), "pthread_mutex_init")
    cond = .allocate(capacity: 1)
    cond.initialize(to: pthread_cond_t())
    #if canImport(Darwin)
      _check(pthread_cond_init(cond, nil), "pthread_cond_init")
    #else
      // Deadlines are on the monotonic clock: a change of the wall clock moves none.
      var attributes = pthread_condattr_t()
      _check(pthread_condattr_init(&attributes), "pthread_condattr_init")
      _check(pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC), "pthread_condattr_setclock")
      _check(pthread_cond_init(cond, &attributes), "pthread_cond_init")
      _check(pthread_condattr_destroy(&attributes), "pthread_condattr_destroy")
    #endif
  }

  deinit {
    _check(pthread_cond_destroy(cond), "pthread_cond_destroy")
    _check(pthread_mutex_destroy(mutex), "pthread_mutex_destroy")
    cond.deallocate()
    mutex.deallocate()
  }

  /// Takes the mutex.
  @inlinable package func lock() {
    _check(pthread_mutex_lock(mutex), "pthread_mutex_lock")
  }

  /// Releases the mutex (held by this thread).
  @inlinable package func unlock() {
    _check(pthread_mutex_unlock(mutex), "pthread_mutex_unlock")
  }

  /// Wakes every thread waiting on the condition (call holding the mutex).
  @inlinable package func broadcast() {
    _check(pthread_cond_broadcast(cond), "pthread_cond_broadcast")
  }

  /// Waits for a broadcast; the caller holds the mutex (spurious wake-ups happen: loop).
  package func wait() {
    _check(pthread_cond_wait(cond, mutex), "pthread_cond_wait")
  }

  /// Waits until `predicate` holds (checked under the mutex) or `timeoutNanoseconds` pass.
  /// Returns whether the predicate held. A negative timeout waits without limit.
  package func wait(timeoutNanoseconds: Int64, until predicate: () -> Bool) -> Bool {
    lock()
    defer { unlock() }
    if timeoutNanoseconds < 0 {
      while !predicate() { wait() }
      return true
    }
    #if canImport(Darwin)
      var deadline = timespec()
      var now = timeval()
      _check(gettimeofday(&now, nil), "gettimeofday")
      deadline.tv_sec = now.tv_sec
      deadline.tv_nsec = Int(now.tv_usec) * 1000
    #else
      var deadline = timespec()
      _check(clock_gettime(CLOCK_MONOTONIC, &deadline), "clock_gettime")
    #endif
    let total = Int64(deadline.tv_nsec) + timeoutNanoseconds % 1_000_000_000
    deadline.tv_sec += Int(timeoutNanoseconds / 1_000_000_000) + Int(total / 1_000_000_000)
    deadline.tv_nsec = Int(total % 1_000_000_000)
    while !predicate() {
      let result = pthread_cond_timedwait(cond, mutex, &deadline)
      if result == ETIMEDOUT { return predicate() }
      _check(result, "pthread_cond_timedwait")
    }
    return true
  }
}

/// Stops the process when a platform call failed (`result` not 0), naming the call.
@inlinable @inline(__always)
func _check(_ result: Int32, _ call: StaticString) {
  precondition(result == 0, "ReducerKit: \(call) failed with error \(result)")
}
