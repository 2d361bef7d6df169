import Dispatch
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
@testable import ReducerKitPlatform
import Synchronization
import Testing

/// The store's lock (`Lock`: an atomic word, sleepers on a condition variable) under
/// contention: no update lost, nobody left asleep.
@Suite struct LockTests {
  final class Counter: @unchecked Sendable {
    // Safe: `value` is touched only while holding `lock` (what the test checks).
    let lock = Lock()
    var value = 0
  }

  @Test func contendedIncrementsAreNotLost() {
    let counter = Counter()
    let threads = 4
    let rounds = 20_000
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
      for _ in 0..<rounds {
        counter.lock.lock()
        counter.value += 1
        counter.lock.unlock()
      }
    }
    #expect(counter.value == threads * rounds)
    #expect(counter.lock.sleepers.load(ordering: .relaxed) == 0)
  }

  /// A holder that keeps the lock long enough for the others to stop spinning and sleep:
  /// every sleeper is woken and gets it.
  @Test func sleepersAreWoken() {
    let counter = Counter()
    let threads = 4
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
      for _ in 0..<20 {
        counter.lock.withLock {
          counter.value += 1
          usleep(500)  // hold it: the others spin out and sleep
        }
      }
    }
    #expect(counter.value == threads * 20)
    #expect(counter.lock.sleepers.load(ordering: .relaxed) == 0)
  }
}
