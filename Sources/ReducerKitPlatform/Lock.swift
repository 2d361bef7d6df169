// The lock every ReducerKit module uses, and a value guarded by one.
#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import Synchronization

/// A mutex with explicit `lock()`/`unlock()`, for code paths that cannot be written as a
/// closure (the store's drain holds it across re-entrant calls), and `withLock` for the rest.
///
/// Uncontended, it is one atomic compare-and-swap to lock and one atomic exchange to unlock,
/// with no call (a pthread mutex costs the same two atomic operations plus two calls, ~55
/// instructions: a fifth of a `Store.send`), and 16 bytes inline (a pthread mutex is a
/// 40-byte allocation). A thread that finds it held spins briefly, then sleeps on the
/// process-wide `parking` condition until an unlock wakes the sleepers.
///
/// Why no wake-up is lost: the lock word and the count of sleepers are both accessed
/// sequentially consistently. A sleeper counts itself, then tries the lock word; an unlocker
/// clears the lock word, then reads the count. If the unlocker reads no sleeper, its clear came
/// before the sleeper's try, which then succeeds. If it reads one, it wakes the sleepers under
/// the parking mutex, which a sleeper holds from counting itself until it waits.
///
/// Not `Synchronization.Mutex`: on Linux that locks with futexes inside the uninstrumented
/// standard library, so ThreadSanitizer sees no synchronization and reports every guarded
/// access as a race (`make test-tsan`). This lock's atomics are compiled into this module, and
/// its sleepers wait on a pthread condition, both of which TSan sees.
@usableFromInline
package final class Lock: Sendable {
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

  /// Runs `body` holding the lock.
  @inlinable package func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
    lock()
    defer { unlock() }
    return try body()
  }

  /// Wakes every thread parked on `parking` (each checks its own lock).
  @usableFromInline @inline(never) func wakeSleepers() {
    parking.lock()
    parking.broadcast()
    parking.unlock()
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
    parking.lock()
    sleepers.add(1, ordering: .sequentiallyConsistent)
    while !word.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent).exchanged {
      parking.wait()
    }
    sleepers.subtract(1, ordering: .sequentiallyConsistent)
    parking.unlock()
  }
}

/// Where contended `Lock`s sleep: one mutex and condition variable for the process (a lock
/// is contended rarely and briefly; a wake-up wakes every sleeper, each of which checks its own
/// lock and sleeps again if it is still held).
let parking = Condition()

/// A value guarded by a `Lock`: one compare-and-swap and one exchange per use, no call.
///
/// ```swift
/// let names = LockedValue<[String]>([])
/// names.withLock { $0.append("counter") }
/// ```
@usableFromInline
package final class LockedValue<Value>: @unchecked Sendable {
  // Safe: `value` is read and written only inside `withLock`, while holding `lock`.
  @usableFromInline let lock = Lock()
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
