import Dispatch
import ReducerKitPlatform
import ReducerKitTestSupport
import Testing

/// The rest of the platform vocabulary: a locked value, the condition, the thread id.
@Suite struct PlatformTests {
  /// Nanoseconds of a generous cap on a wait that should end (scaled like every test's caps).
  static var capNanoseconds: Int64 {
    let capped = cap(.seconds(60)).components
    return capped.seconds * 1_000_000_000 + capped.attoseconds / 1_000_000_000
  }

  @Test func lockedValueUpdatesAreNotLost() {
    let count = LockedValue(0)
    let threads = 4
    let rounds = 20_000
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
      for _ in 0..<rounds { count.withLock { $0 += 1 } }
    }
    #expect(count.withLock { $0 } == threads * rounds)
  }

  @Test func lockedValueRethrowsWhatTheBodyThrows() {
    struct Refused: Error {}
    let value = LockedValue([1])
    #expect(throws: Refused.self) {
      try value.withLock { (values: inout [Int]) throws(Refused) in
        values.append(2)
        throw Refused()
      }
    }
    #expect(value.withLock { $0 } == [1, 2])  // what the body did before throwing stays
  }

  @Test func aWaitWhosePredicateNeverHoldsEndsAtItsDeadline() {
    let condition = Condition()
    #expect(condition.wait(timeoutNanoseconds: 1_000_000) { false } == false)
    #expect(condition.wait(timeoutNanoseconds: 0) { true } == true)
  }

  @Test func aBroadcastWakesTheWaiter() {
    let condition = Condition()
    let flag = LockedValue(false)
    DispatchQueue.global().async {
      condition.lock()
      flag.withLock { $0 = true }
      condition.broadcast()
      condition.unlock()
    }
    #expect(condition.wait(timeoutNanoseconds: Self.capNanoseconds) { flag.withLock { $0 } })
  }

  @Test func threadIDsAreNonZeroAndTellThreadsApart() {
    let condition = Condition()
    let other = LockedValue<UInt?>(nil)
    DispatchQueue.global().async {
      let id = currentThreadID()
      condition.lock()
      other.withLock { $0 = id }
      condition.broadcast()
      condition.unlock()
    }
    // This thread waits inside `wait` meanwhile, so the block runs on another thread.
    #expect(condition.wait(timeoutNanoseconds: Self.capNanoseconds) { other.withLock { $0 } != nil })
    let mine = currentThreadID()
    #expect(mine != 0)
    #expect(other.withLock { $0 } != 0)
    #expect(other.withLock { $0 } != mine)
    #expect(currentThreadID() == mine)
  }
}
