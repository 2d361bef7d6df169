// The platform vocabulary every ReducerKit module uses: a lock, a locked value, a condition
// (mutex + condition variable), the thread id and a monotonic clock. Internal to the package
// (`package`): not API.
#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import Synchronization


/// An identifier of the calling OS thread, never 0.
@inlinable @inline(__always)
package func _currentThreadID() -> UInt {
  #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
  #else
    return UInt(pthread_self())
  #endif
}

/// A mutex with explicit lock/unlock, for code paths that cannot be written as a closure (the
/// store's drain holds it across re-entrant calls).
///
/// Uncontended, it is one atomic compare-and-swap to lock and one atomic exchange to unlock,
/// with no call (a pthread mutex costs the same two atomic operations plus two calls, ~55
/// instructions: a fifth of a `Store.send`), and 16 bytes inline (a pthread mutex is a
/// 40-byte allocation). A thread that finds it held spins briefly, then sleeps on the
/// process-wide `_parking` condition variable until an unlock wakes the sleepers.
///
/// Why no wake-up is lost: the lock word and the count of sleepers are both accessed
/// sequentially consistently. A sleeper counts itself, then tries the lock word; an unlocker
/// clears the lock word, then reads the count. If the unlocker reads no sleeper, its clear came
/// before the sleeper's try, which then succeeds. If it reads one, it wakes the sleepers under
/// the parking mutex, which a sleeper holds from counting itself until it waits.
///
/// ThreadSanitizer sees the atomics (they are compiled into this module) and the pthread calls.
///
@usableFromInline
package final class _Lock: Sendable {
  /// 0: free; 1: held.
  @usableFromInline let word = Atomic<UInt32>(0)
  /// Threads counted to sleep until this lock is released (or about to).
  @usableFromInline let sleepers = Atomic<Int>(0)

  /// An unlocked lock.
  @inlinable package init() {}

  /// Takes the lock, waiting for it if another thread holds it (not re-entrant).
  @inlinable @inline(__always) package func lock() {
    if word.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent).exchanged { return }
    lockContended()
  }

  /// Releases the lock (held by this thread).
  @inlinable @inline(__always) package func unlock() {
    word.store(0, ordering: .sequentiallyConsistent)
    if sleepers.load(ordering: .sequentiallyConsistent) > 0 { wakeSleepers() }
  }

  /// Wakes every thread parked on `_parking` (each checks its own lock).
  @usableFromInline @inline(never) func wakeSleepers() {
    _parking.lock()
    _parking.broadcast()
    _parking.unlock()
  }

  /// Spins a little (a store's lock is held for one reduce), then sleeps until woken.
  @usableFromInline @inline(never) func lockContended() {
    for _ in 0..<64 {
      if word.load(ordering: .relaxed) == 0,
        word.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent).exchanged
      {
        return
      }
      sched_yield()
    }
    _parking.lock()
    sleepers.add(1, ordering: .sequentiallyConsistent)
    while !word.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent).exchanged {
      _parking.wait()
    }
    sleepers.subtract(1, ordering: .sequentiallyConsistent)
    _parking.unlock()
  }

  /// Runs `body` holding the lock.
  @inlinable package func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
    lock()
    defer { unlock() }
    return try body()
  }
}

/// Where contended `_Lock`s sleep: one mutex and condition variable for the process (a lock
/// is contended rarely and briefly; a wake-up wakes every sleeper, each of which checks its own
/// lock and sleeps again if it is still held).
@usableFromInline package let _parking = _Condition()

/// A mutex plus condition variable, for blocking waits with a deadline (used by hosts that wait
/// for effects from a thread that is not part of Swift's concurrency pool).
@usableFromInline
package final class _Condition: @unchecked Sendable {
  // Safe: same reasoning as `_Lock`; the pthread objects are the synchronization primitives.
  @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
  @usableFromInline let cond: UnsafeMutablePointer<pthread_cond_t>

  @usableFromInline package init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    var err = pthread_mutex_init(mutex, nil)
    precondition(err == 0, "pthread_mutex_init failed: \(err)")
    cond = .allocate(capacity: 1)
    cond.initialize(to: pthread_cond_t())
    #if canImport(Darwin)
      err = pthread_cond_init(cond, nil)
    #else
      var attr = pthread_condattr_t()
      pthread_condattr_init(&attr)
      pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
      err = pthread_cond_init(cond, &attr)
      pthread_condattr_destroy(&attr)
    #endif
    precondition(err == 0, "pthread_cond_init failed: \(err)")
  }

  deinit {
    var err = pthread_cond_destroy(cond)
    precondition(err == 0, "pthread_cond_destroy failed: \(err)")
    err = pthread_mutex_destroy(mutex)
    precondition(err == 0, "pthread_mutex_destroy failed: \(err)")
    cond.deallocate()
    mutex.deallocate()
  }

  @inlinable package func lock() {
    let err = pthread_mutex_lock(mutex)
    precondition(err == 0, "pthread_mutex_lock failed: \(err)")
  }
  @inlinable package func unlock() {
    let err = pthread_mutex_unlock(mutex)
    precondition(err == 0, "pthread_mutex_unlock failed: \(err)")
  }
  @inlinable package func broadcast() {
    let err = pthread_cond_broadcast(cond)
    precondition(err == 0, "pthread_cond_broadcast failed: \(err)")
  }
  /// Waits for a broadcast; the caller holds the mutex (spurious wake-ups happen: loop).
  package func wait() {
    let err = pthread_cond_wait(cond, mutex)
    precondition(err == 0, "pthread_cond_wait failed: \(err)")
  }

  /// Waits until `predicate` holds (checked under the mutex) or `nanoseconds` pass.
  /// Returns whether the predicate held. A negative timeout waits forever.
  package func wait(timeoutNanoseconds: Int64, until predicate: () -> Bool) -> Bool {
    lock()
    defer { unlock() }
    if timeoutNanoseconds < 0 {
      while !predicate() { wait() }
      return true
    }
    #if canImport(Darwin)
      var deadline = timespec()
      var tv = timeval()
      gettimeofday(&tv, nil)
      deadline.tv_sec = tv.tv_sec
      deadline.tv_nsec = Int(tv.tv_usec) * 1000
    #else
      var deadline = timespec()
      clock_gettime(CLOCK_MONOTONIC, &deadline)
    #endif
    let total = Int64(deadline.tv_nsec) + timeoutNanoseconds % 1_000_000_000
    deadline.tv_sec += Int(timeoutNanoseconds / 1_000_000_000) + Int(total / 1_000_000_000)
    deadline.tv_nsec = Int(total % 1_000_000_000)
    while !predicate() {
      if pthread_cond_timedwait(cond, mutex, &deadline) == ETIMEDOUT {
        return predicate()
      }
    }
    return true
  }
}

/// A monotonic clock reading in nanoseconds.
package func _monotonicNanoseconds() -> Int64 {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
}

/// A value guarded by a `_Lock` (an atomic word; sleepers on a condition variable):
/// one compare-and-swap and one exchange per use, no call and no allocation. Not
/// `Synchronization.Mutex`: on Linux it locks with futexes and atomics inside the
/// (uninstrumented) standard library, so ThreadSanitizer sees no synchronization and reports
/// every guarded access as a race (`make test-tsan`); `_Lock`'s atomics are compiled into
/// this module, where TSan sees them.
@usableFromInline
package final class Locked<Value>: @unchecked Sendable {
  // Safe: `value` is read and written only inside `withLock`, while holding `lock`.
  @usableFromInline let lock = _Lock()
  // `@exclusivity(unchecked)`: every access is inside `withLock`, under the lock, so accesses
  // never overlap; the dynamic check would only cost time.
  @exclusivity(unchecked) @usableFromInline var value: Value

  @inlinable package init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value.
  @inlinable
  package func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}

/// A value guarded by a `_Lock`.
package final class _Protected<Value>: @unchecked Sendable {
  // Safe: `value` is only touched inside `withLock`, under `lock`.
  private let lock = _Lock()
  private var value: Value
  package init(_ value: Value) { self.value = value }
  package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
