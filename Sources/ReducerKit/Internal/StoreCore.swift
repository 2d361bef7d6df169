import Synchronization
import ReducerKitPlatform

// The engine behind `Store` (Store.swift is its public face): the state, the lock, the queue of
// actions sent while reducing, the effects waiting to start, and the loop that reduces and then
// starts effects. A scoped store forwards everything to its root (`_ScopedParent`), whose core
// does the work.

/// The mechanics of one root store: reduce under the lock, queue re-entrant sends, start the
/// effects once no reduce runs, hand the final state to the observers.
@usableFromInline
final class _StoreCore<State, Action: Sendable>: @unchecked Sendable {
  // Safe: every mutable field below is read and written only by the thread that holds `lock`
  // (the "owner", recorded in `owner`), or by that same thread re-entrantly. `State` values
  // leave the core only as copies; for value-typed states that makes cross-thread use safe.

  @usableFromInline let reduce: (inout State, Action) -> Effect<Action>
  @exclusivity(unchecked) @usableFromInline var state: State
  /// Actions sent while reducing, reduced in order before the outer `send` returns.
  @exclusivity(unchecked) @usableFromInline var pending: ContiguousArray<Action> = []
  /// Effects the reduces produced, started in order once no reduce runs.
  @exclusivity(unchecked) @usableFromInline var deferred: ContiguousArray<(Effect<Action>, [CancelID])> = []
  /// Whether a reduce (or the drain of `pending`) is on the owner's stack.
  @exclusivity(unchecked) @usableFromInline var isReducing = false
  @exclusivity(unchecked) @usableFromInline var isInvalidated = false
  @usableFromInline let lock = Lock()
  @usableFromInline let owner = Atomic<UInt>(0)
  @usableFromInline let version = Atomic<UInt64>(0)
  @usableFromInline let observers = _Observers<State>()
  @usableFromInline let runtime: EffectRuntime
  @usableFromInline let dependencies: DependencyValues?
  /// The store this core runs, for the `Send` its effects get (which goes through the store,
  /// so observation sees their actions). Weak: effects do not keep a store alive.
  @usableFromInline weak var store: Store<State, Action>?

  @usableFromInline
  init(
    state: State, reduce: @escaping (inout State, Action) -> Effect<Action>,
    runtime: EffectRuntime, dependencies: DependencyValues?
  ) {
    self.reduce = reduce
    self.state = state
    self.runtime = runtime
    self.dependencies = dependencies
  }

  // MARK: Sending

  /// Reduces `action` on this thread and starts its effects (see `Store.send`). Nil when this
  /// thread already holds the store: then the action was queued (inside a reduce) or reduced
  /// at once (from an effect started on this thread), and the outer send reports the change.
  @inlinable
  func send(_ action: Action) -> StoreTask? {
    let me = currentThreadID()
    if owner.load(ordering: .relaxed) == me {
      _sendReentrant(action)
      return nil
    }
    lock.lock()
    owner.store(me, ordering: .relaxed)
    let start = version.load(ordering: .relaxed)
    var tasks: [Task<Void, Never>]? = nil  // nil, not [], when none start: no release to pay
    if dependencies == nil && DependencyValues._isAmbientDefault {
      _run(action, &tasks)
    } else {
      _runWithDependencies(action, &tasks)
    }
    let delivery = _finalState(since: start)
    owner.store(0, ordering: .relaxed)
    lock.unlock()
    if let delivery { observers.deliver(delivery.state, version: delivery.version) }
    return StoreTask(tasks: tasks)
  }

  /// Reduces `action`, the actions it queues, and starts the effects they return.
  @inlinable
  func _run(_ action: Action, _ tasks: inout [Task<Void, Never>]?) {
    _process(action)
    if !pending.isEmpty { _drainPending() }
    if !deferred.isEmpty { _startDeferred(&tasks) }
  }

  @inlinable
  func _runWithDependencies(_ action: Action, _ tasks: inout [Task<Void, Never>]?) {
    DependencyValues._with(dependencies ?? DependencyValues()) { _run(action, &tasks) }
  }

  /// A send from the thread that holds the store: from inside a reduce it is queued; from an
  /// effect that started on this thread (no reduce running) it is reduced now, with the
  /// actions its `.send` effects queue, before the effect continues (as TCA's `await send`).
  @inlinable
  func _sendReentrant(_ action: Action) {
    if isReducing {
      pending.append(action)
    } else {
      _process(action)
      if !pending.isEmpty { _drainPending() }
    }
  }

  @inlinable
  func _process(_ action: Action) {
    guard !isInvalidated else { return }
    isReducing = true
    let effect = reduce(&state, action)
    version.store(version.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    isReducing = false
    switch effect.operation {
    case .none:
      return
    case let .send(next):
      pending.append(next)
    default:
      _collect(effect, ids: [])
    }
  }

  @inlinable
  func _drainPending() {
    var index = 0
    while index < pending.count {
      let next = pending[index]
      index += 1
      _process(next)
    }
    pending.removeAll(keepingCapacity: true)
  }

  /// Sorts an effect's parts: synchronous sends queue now (so they are reduced before anything
  /// sent later); everything else is started, in order, once the queue is empty.
  @inlinable
  func _collect(_ effect: Effect<Action>, ids: [CancelID]) {
    switch effect.operation {
    case .none:
      return
    case let .send(action):
      pending.append(action)
    case let .merge(effects):
      for effect in effects { _collect(effect, ids: ids) }
    case let .concatenate(effects) where effect._isSynchronous:
      for effect in effects { _collect(effect, ids: ids) }
    case let .cancellable(id, cancelInFlight, inner) where inner._isSynchronous:
      if cancelInFlight { deferred.append((.init(operation: .cancel(ids: [id])), [])) }
      _collect(inner, ids: ids + [id])
    case .run, .concatenate, .cancellable, .cancel:
      deferred.append((effect, ids))
    }
  }

  /// Starts the collected effects in order. An effect that sends before its first suspension
  /// has that action reduced at once (see `_sendReentrant`); effects those actions return are
  /// appended and started by this same loop.
  @inlinable
  func _startDeferred(_ tasks: inout [Task<Void, Never>]?) {
    var index = 0
    while index < deferred.count {
      let (effect, ids) = deferred[index]
      index += 1
      _start(effect, ids: ids, &tasks)
    }
    deferred.removeAll(keepingCapacity: true)
  }

  /// Starts one collected effect.
  @inlinable
  func _start(_ effect: Effect<Action>, ids: [CancelID], _ tasks: inout [Task<Void, Never>]?) {
    switch effect.operation {
    case .none:
      return
    case let .send(action):
      _sendReentrant(action)
    case let .run(run):
      let send = _makeSend()
      let operation = run.operation
      if let task = runtime.spawn(priority: run.priority, ids: ids, operation: { await operation(send) }) {
        tasks._append(task)
      }
    case let .merge(effects):
      for effect in effects { _start(effect, ids: ids, &tasks) }
    case .concatenate:
      let send = _makeSend()
      if let task = runtime.spawn(priority: nil, ids: ids, operation: {
        await EffectRuntime.runNested(effect, send: send)
      }) {
        tasks._append(task)
      }
    case let .cancellable(id, cancelInFlight, inner):
      if cancelInFlight { runtime.cancel([id]) }
      _start(inner, ids: ids + [id], &tasks)
    case let .cancel(ids):
      runtime.cancel(ids)
    }
  }

  @inlinable
  func _makeSend() -> Send<Action> {
    let store = self.store
    return Send { [weak store] action in store?.send(action) }
  }

  /// The state the observers get after this outer send, when it reduced anything and someone
  /// listens. Called by the owner, under the lock.
  @inlinable
  func _finalState(since start: UInt64) -> (state: State, version: UInt64)? {
    let version = version.load(ordering: .relaxed)
    guard version != start, observers.count.load(ordering: .relaxed) > 0, !isInvalidated else {
      return nil
    }
    return (state, version)
  }

  // MARK: Reading and holding

  /// Whether the calling thread is reducing on this store right now.
  var isHeldByCurrentThread: Bool {
    owner.load(ordering: .relaxed) == currentThreadID()
  }

  /// Reads the state under the lock (or directly when this thread holds it).
  func withState<R>(_ body: (State) -> R) -> R {
    if owner.load(ordering: .relaxed) == currentThreadID() { return body(state) }
    lock.lock()
    defer { lock.unlock() }
    return body(state)
  }

  /// Runs `body` as the store's owner: sends inside it queue and are reduced (and their
  /// effects started) before this returns.
  func exclusive<R>(_ body: () -> R) -> R {
    let me = currentThreadID()
    if owner.load(ordering: .relaxed) == me { return body() }
    lock.lock()
    owner.store(me, ordering: .relaxed)
    let start = version.load(ordering: .relaxed)
    isReducing = true
    let result = body()
    isReducing = false
    var tasks: [Task<Void, Never>]? = nil
    if !pending.isEmpty || !deferred.isEmpty {
      DependencyValues._with(dependencies ?? DependencyValues()) {
        if !pending.isEmpty { _drainPending() }
        if !deferred.isEmpty { _startDeferred(&tasks) }
      }
    }
    let delivery = _finalState(since: start)
    owner.store(0, ordering: .relaxed)
    lock.unlock()
    if let delivery { observers.deliver(delivery.state, version: delivery.version) }
    return result
  }

  /// Stops reducing: drops the queued actions and effects, removes every observer, cancels
  /// every effect (see `Store.invalidate()`).
  func invalidate() {
    exclusive {
      isInvalidated = true
      pending.removeAll()
      deferred.removeAll()
    }
    observers.removeAll()
    runtime.invalidate()
  }

  /// Whether `invalidate()` was called.
  var isValid: Bool { withState { _ in !isInvalidated } }

  // MARK: Observers

  /// Adds an observer; with `deliverCurrent`, it gets the current state first.
  func addSubscriber(
    deliverCurrent: Bool, _ notify: @escaping (State, UInt64) -> Void
  ) -> StoreSubscription {
    let subscriber = _Subscriber<State>(notify: notify)
    let added: Bool = exclusive {
      guard !isInvalidated else { return false }
      observers.add(
        subscriber, current: deliverCurrent ? (state, version.load(ordering: .relaxed)) : nil)
      return true
    }
    guard added else { return StoreSubscription {} }
    if deliverCurrent { observers.deliverInitial() }
    return StoreSubscription { [weak self] in self?.observers.remove(subscriber) }
  }
}

/// What a scoped store reaches: its root store, through the scope's functions. Captures the
/// root, never the intermediate stores.
@usableFromInline
struct _ScopedParent<State, Action: Sendable> {
  @usableFromInline let send: (Action) -> StoreTask
  @usableFromInline let state: () -> State
  @usableFromInline let version: () -> UInt64
  @usableFromInline let access: () -> Void
  @usableFromInline let isValid: () -> Bool
  @usableFromInline let subscriberCount: () -> Int
  @usableFromInline let subscribe: (Bool, @escaping (State, UInt64) -> Void) -> StoreSubscription

  init(root: Store<State, Action>) {
    send = { root.send($0) }
    state = { root.state }
    version = { root.version }
    access = { _ = root.state }
    isValid = { root.isValid }
    subscriberCount = { root.subscriberCount }
    subscribe = { root._addSubscriber(deliverCurrent: $0, $1) }
  }

  init(
    send: @escaping (Action) -> StoreTask, state: @escaping () -> State,
    version: @escaping () -> UInt64, access: @escaping () -> Void,
    isValid: @escaping () -> Bool, subscriberCount: @escaping () -> Int,
    subscribe: @escaping (Bool, @escaping (State, UInt64) -> Void) -> StoreSubscription
  ) {
    self.send = send
    self.state = state
    self.version = version
    self.access = access
    self.isValid = isValid
    self.subscriberCount = subscriberCount
    self.subscribe = subscribe
  }

  func scoped<ChildState, ChildAction: Sendable>(
    _ toChild: @escaping (State) -> ChildState,
    _ fromChild: @escaping @Sendable (ChildAction) -> Action
  ) -> _ScopedParent<ChildState, ChildAction> {
    let (send, state, subscribe) = (self.send, self.state, self.subscribe)
    return _ScopedParent<ChildState, ChildAction>(
      send: { send(fromChild($0)) },
      state: { toChild(state()) },
      version: version,
      access: access,
      isValid: isValid,
      subscriberCount: subscriberCount,
      subscribe: { deliverCurrent, notify in
        subscribe(deliverCurrent) { state, version in notify(toChild(state), version) }
      }
    )
  }
}

/// The last value a subscription delivered. Only touched by the thread delivering for the
/// store, one delivery at a time.
@usableFromInline
final class _LastValue<Value> {
  @exclusivity(unchecked) @usableFromInline var value: Value?
  @usableFromInline init() {}
}

extension Optional where Wrapped == [Task<Void, Never>] {
  /// Appends `task`, making the array on the first.
  @inlinable mutating func _append(_ task: Task<Void, Never>) {
    if self == nil { self = [task] } else { self!.append(task) }
  }
}

extension Effect {
  /// Whether starting this effect needs no task (only `.none` and `.send` inside).
  @usableFromInline
  var _isSynchronous: Bool {
    switch operation {
    case .none, .send, .cancel: return true
    case .run: return false
    case let .merge(effects), let .concatenate(effects): return effects.allSatisfy(\._isSynchronous)
    case let .cancellable(_, _, effect): return effect._isSynchronous
    }
  }
}
