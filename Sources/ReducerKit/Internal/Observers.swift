#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import Synchronization
import ReducerKitPlatform

/// A state observer registered with a store.
@usableFromInline
final class _Subscriber<State>: @unchecked Sendable {
  // Safe: `notify` is immutable and, like `lastVersion`, only used by the thread delivering
  // for the store, one delivery at a time (see `_Observers`); `slot` is only touched under
  // the observers' lock; `isActive` is atomic.
  @usableFromInline let notify: (State, UInt64) -> Void
  @usableFromInline let isActive = Atomic<Bool>(true)
  /// The version last delivered: a subscriber only ever moves forward. Unchecked
  /// exclusivity: only the delivering thread touches it, one delivery at a time.
  @exclusivity(unchecked) @usableFromInline var lastVersion: UInt64 = 0
  var slot = -1

  init(notify: @escaping (State, UInt64) -> Void) { self.notify = notify }

  /// Calls the callback unless it was removed or already saw this version or a newer one.
  @inlinable
  func deliver(_ state: State, _ version: UInt64, initial: Bool) {
    guard isActive.load(ordering: .acquiring), initial || version > lastVersion else { return }
    lastVersion = version
    notify(state, version)
  }
}

/// The observers of one store and the states they are owed.
///
/// A store hands the final state of each outer `send` to ``deliver(_:version:)`` after
/// releasing its own lock: callbacks never run under the store's lock, so a callback may send
/// to any store (even one whose callback sends back) without a lock-order deadlock. Deliveries
/// run one at a time per store: the first thread to find nobody delivering becomes the
/// deliverer and delivers until nothing waits; a thread that finds a deliverer (another
/// thread, or itself further up the stack when a callback sends) leaves its state to it. Only
/// the newest waiting state is kept, and a subscriber never sees an older version after a
/// newer one.
@usableFromInline
final class _Observers<State>: @unchecked Sendable {
  // Safe: every mutable field is read and written only while holding `condition`'s mutex,
  // except `count` (an atomic, for the store's lock-free "anyone listening?" check).
  // `@exclusivity(unchecked)`: those accesses never overlap (the mutex orders them), so the
  // dynamic exclusivity check would only cost time (~75 instructions per access).

  @usableFromInline let condition = Condition()
  /// Active subscribers, so a store can skip the work when nobody listens.
  @usableFromInline let count = Atomic<Int>(0)
  @exclusivity(unchecked) @usableFromInline var slots: ContiguousArray<_Subscriber<State>?> = []
  @exclusivity(unchecked) @usableFromInline var holes = 0
  /// The newest state waiting for every subscriber.
  @exclusivity(unchecked) @usableFromInline var waiting: (state: State, version: UInt64)?
  /// The newest version handed to ``deliver(_:version:)``: older ones come too late.
  @exclusivity(unchecked) @usableFromInline var newest: UInt64 = 0
  /// First deliveries to new subscribers.
  @exclusivity(unchecked) @usableFromInline var initial: ContiguousArray<(_Subscriber<State>, State, UInt64)> = []
  /// The thread delivering now (0: none).
  @exclusivity(unchecked) @usableFromInline var deliverer: UInt = 0
  /// Deliveries finished so far: a remover waits for the one in progress to end.
  @exclusivity(unchecked) @usableFromInline var finished: UInt64 = 0
  @exclusivity(unchecked) @usableFromInline var waiters = 0

  @usableFromInline init() {}

  /// Adds a subscriber; with `current`, its first delivery is that state (made by
  /// ``deliverInitial()``). The caller holds the store's lock.
  func add(_ subscriber: _Subscriber<State>, current: (State, UInt64)?) {
    condition.lock()
    subscriber.slot = slots.count
    slots.append(subscriber)
    count.add(1, ordering: .relaxed)
    if let (state, version) = current { initial.append((subscriber, state, version)) }
    condition.unlock()
  }

  /// Delivers `state` (of `version`) to every subscriber, unless a newer one was already
  /// handed over, or another delivery is under way (which then delivers it).
  @inlinable
  func deliver(_ state: State, version: UInt64) {
    condition.lock()
    guard version > newest else {
      condition.unlock()
      return
    }
    newest = version
    waiting = (state, version)
    _drainLocked()
  }

  /// Makes the first deliveries to new subscribers.
  func deliverInitial() {
    condition.lock()
    _drainLocked()
  }

  /// Delivers until nothing waits, unless another delivery is under way. Called with the lock
  /// held; returns with it released.
  @inlinable
  func _drainLocked() {
    guard deliverer == 0 else {
      condition.unlock()
      return
    }
    deliverer = currentThreadID()
    while true {
      if !initial.isEmpty {
        let first = initial
        initial.removeAll()
        condition.unlock()
        _DeliveryDepth.enter()
        for (subscriber, state, version) in first {
          subscriber.deliver(state, version, initial: true)
        }
        _DeliveryDepth.exit()
      } else if let (state, version) = waiting {
        waiting = nil
        let targets = slots
        condition.unlock()
        _DeliveryDepth.enter()
        for case let subscriber? in targets {
          subscriber.deliver(state, version, initial: false)
        }
        _DeliveryDepth.exit()
      } else {
        break
      }
      condition.lock()
      finished &+= 1
      if waiters > 0 { condition.broadcast() }
    }
    deliverer = 0
    if waiters > 0 { condition.broadcast() }
    condition.unlock()
  }

  /// Removes a subscriber. After this returns its callback does not run again: a delivery in
  /// progress on another thread is waited for, unless this thread is itself delivering (for
  /// any store: waiting there could wait on a thread that waits on this one).
  func remove(_ subscriber: _Subscriber<State>) {
    condition.lock()
    subscriber.isActive.store(false, ordering: .releasing)
    if subscriber.slot >= 0 {
      slots[subscriber.slot] = nil
      subscriber.slot = -1
      holes += 1
      count.subtract(1, ordering: .relaxed)
      if holes > 16, holes * 2 > slots.count { compact() }
    }
    waitForDeliveryInProgress()
    condition.unlock()
  }

  /// Removes every subscriber and drops queued deliveries (the store is going away).
  func removeAll() {
    condition.lock()
    for case let subscriber? in slots {
      subscriber.isActive.store(false, ordering: .releasing)
      subscriber.slot = -1
    }
    slots.removeAll()
    holes = 0
    count.store(0, ordering: .relaxed)
    waiting = nil
    initial.removeAll()
    waitForDeliveryInProgress()
    condition.unlock()
  }

  /// How many subscribers are active.
  var activeCount: Int { count.load(ordering: .relaxed) }

  private func waitForDeliveryInProgress() {
    guard deliverer != 0, deliverer != currentThreadID(), !_DeliveryDepth.isDelivering else {
      return
    }
    let started = finished
    waiters += 1
    while deliverer != 0, finished == started { condition.wait() }
    waiters -= 1
  }

  /// Drops the holes left by removals, keeping delivery order. Amortized O(1) per removal.
  private func compact() {
    var kept = ContiguousArray<_Subscriber<State>?>()
    kept.reserveCapacity(slots.count - holes)
    for case let subscriber? in slots {
      subscriber.slot = kept.count
      kept.append(subscriber)
    }
    slots = kept
    holes = 0
  }
}

/// How many stores the current thread is delivering to right now (nested when a callback
/// sends to another store).
@usableFromInline
enum _DeliveryDepth {
  @usableFromInline static let key: pthread_key_t = {
    var key = pthread_key_t()
    let err = pthread_key_create(&key, nil)
    precondition(err == 0, "pthread_key_create failed: \(err)")
    return key
  }()

  @inlinable static var depth: Int {
    get { Int(bitPattern: pthread_getspecific(key)) }
    set { _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
  }

  @inlinable static func enter() { depth += 1 }
  @inlinable static func exit() { depth -= 1 }
  static var isDelivering: Bool { depth > 0 }
}
