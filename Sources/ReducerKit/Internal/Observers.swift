#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import Synchronization

/// A state observer registered with a store.
@usableFromInline
final class _Subscriber<State>: @unchecked Sendable {
  // Safe: `notify` is immutable and only called by the thread delivering for the store, one
  // delivery at a time (see `_Observers`); `slot` is only touched under the observers' lock;
  // `isActive` is atomic.
  @usableFromInline let notify: (State, UInt64) -> Void
  let isActive = Atomic<Bool>(true)
  var slot = -1

  init(notify: @escaping (State, UInt64) -> Void) { self.notify = notify }
}

/// The observers of one store and the deliveries they are owed.
///
/// A store hands each finished outer `send` to ``enqueue(_:version:)`` while it holds its own
/// lock, then calls ``deliver()`` after releasing it: callbacks never run under the store's
/// lock, so a callback may send to any store (even one whose callback sends back) without a
/// lock-order deadlock. Deliveries run in order, one at a time per store: the first thread to
/// find nobody delivering becomes the deliverer and drains the queue; a thread that finds a
/// deliverer (another thread, or itself further up the stack when a callback sends) leaves its
/// delivery to it. Consecutive states waiting in the queue are coalesced into the newest.
@usableFromInline
final class _Observers<State>: @unchecked Sendable {
  // Safe: every mutable field is read and written only while holding `condition`'s mutex,
  // except `count` (an atomic, for the store's lock-free "anyone listening?" check).

  enum Delivery {
    /// A state for every active subscriber.
    case all(State, UInt64)
    /// The current state for a new subscriber.
    case one(_Subscriber<State>, State, UInt64)
  }

  private let condition = _Condition()
  /// Active subscribers, so a store can skip the work when nobody listens.
  @usableFromInline let count = Atomic<Int>(0)
  private var slots: ContiguousArray<_Subscriber<State>?> = []
  private var holes = 0
  private var queue: ContiguousArray<Delivery> = []
  private var queueHead = 0
  /// The thread delivering now (0: none).
  private var deliverer: UInt = 0
  /// Deliveries finished so far: a remover waits for the one in progress to end.
  private var finished: UInt64 = 0
  private var waiters = 0

  @usableFromInline init() {}

  /// Adds a subscriber; with `current`, its first delivery is that state. The caller holds
  /// the store's lock, so no newer state can be queued before this one.
  func add(_ subscriber: _Subscriber<State>, current: (State, UInt64)?) {
    condition.lock()
    subscriber.slot = slots.count
    slots.append(subscriber)
    count.add(1, ordering: .relaxed)
    if let (state, version) = current { queue.append(.one(subscriber, state, version)) }
    condition.unlock()
  }

  /// Queues `state` for every subscriber, replacing a state still waiting at the queue's end.
  @usableFromInline
  func enqueue(_ state: State, version: UInt64) {
    condition.lock()
    if queue.count > queueHead, case .all = queue[queue.count - 1] {
      queue[queue.count - 1] = .all(state, version)
    } else {
      queue.append(.all(state, version))
    }
    condition.unlock()
  }

  /// Delivers what is queued, unless a deliverer is already at work (which will deliver it).
  @usableFromInline
  func deliver() {
    let me = _currentThreadID()
    condition.lock()
    guard deliverer == 0 else {
      condition.unlock()
      return
    }
    deliverer = me
    while queueHead < queue.count {
      let delivery = queue[queueHead]
      queueHead += 1
      let targets = slots
      condition.unlock()
      _DeliveryDepth.enter()
      switch delivery {
      case let .all(state, version):
        for case let subscriber? in targets where subscriber.isActive.load(ordering: .acquiring) {
          subscriber.notify(state, version)
        }
      case let .one(subscriber, state, version):
        if subscriber.isActive.load(ordering: .acquiring) { subscriber.notify(state, version) }
      }
      _DeliveryDepth.exit()
      condition.lock()
      finished &+= 1
      if waiters > 0 { condition.broadcast() }
    }
    queue.removeAll(keepingCapacity: true)
    queueHead = 0
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
    queue.removeSubrange(queueHead...)
    waitForDeliveryInProgress()
    condition.unlock()
  }

  /// How many subscribers are active.
  var activeCount: Int { count.load(ordering: .relaxed) }

  private func waitForDeliveryInProgress() {
    guard deliverer != 0, deliverer != _currentThreadID(), !_DeliveryDepth.isDelivering else {
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
enum _DeliveryDepth {
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    let err = pthread_key_create(&key, nil)
    precondition(err == 0, "pthread_key_create failed: \(err)")
    return key
  }()

  private static var depth: Int {
    get { Int(bitPattern: pthread_getspecific(key)) }
    set { _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
  }

  static func enter() { depth += 1 }
  static func exit() { depth -= 1 }
  static var isDelivering: Bool { depth > 0 }
}
