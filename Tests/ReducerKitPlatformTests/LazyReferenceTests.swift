import Dispatch
@testable import ReducerKitPlatform
import Synchronization
import Testing

/// `LazyReference` (what a store's request monitor and an effect's held answers are made on
/// first use with): one instance wins a racing first use, and the reference keeps it alive
/// exactly as long as itself.
@Suite(.serialized) struct LazyReferenceTests {
  final class Made: Sendable {
    static let alive = Atomic<Int>(0)
    let index: Int
    init(_ index: Int) {
      self.index = index
      Self.alive.add(1, ordering: .relaxed)
    }
    deinit { Self.alive.subtract(1, ordering: .relaxed) }
  }

  final class Holder: Sendable {
    let lazy = LazyReference<Made>()
  }

  @Test func emptyUntilStoredThenKept() {
    let holder = Holder()
    #expect(holder.lazy.load() == nil)
    let first = holder.lazy.storeIfNil(Made(1))
    #expect(first.index == 1)
    #expect(holder.lazy.storeIfNil(Made(2)) === first)  // the loser is not stored
    #expect(holder.lazy.load() === first)
  }

  @Test func racingFirstUsesAgreeAndNothingLeaks() {
    let before = Made.alive.load(ordering: .relaxed)
    for _ in 0..<200 {
      let holder = Holder()
      let seen = LockedValue<Set<ObjectIdentifier>>([])
      DispatchQueue.concurrentPerform(iterations: 4) { index in
        let made = holder.lazy.load() ?? holder.lazy.storeIfNil(Made(index))
        seen.withLock { _ = $0.insert(ObjectIdentifier(made)) }
      }
      #expect(seen.withLock { $0.count } == 1)
      #expect(holder.lazy.load().map(ObjectIdentifier.init) == seen.withLock { $0.first })
    }
    // Every loser was released, and every holder released its instance when it went away.
    #expect(Made.alive.load(ordering: .relaxed) == before)
  }
}
