import Observation
import Synchronization
import ReducerKitPlatform

/// Holds a feature's state, runs its reducer for each action, and runs the effects.
///
/// ```swift
/// let store = Store(initialState: Counter.State()) { Counter() }
/// store.send(.increment)
/// print(store.count)  // dynamic member lookup into the state
/// ```
///
/// `send` reduces synchronously on the caller's thread under the store's own lock; any thread
/// may send. Actions sent while a reduce runs (by `.send` effects, by effects finishing, by
/// observers) queue in order and are reduced before the outer `send` returns; none is lost or
/// reordered. Effects run as Swift concurrency tasks; their actions come back through `send`.
/// When the store is deinitialized (or ``invalidate()`` is called) its effects are cancelled and
/// no observer is called again.
@dynamicMemberLookup
public final class Store<State, Action: Sendable>: @unchecked Sendable {
  // Safe: every mutable field below is read and written only by the thread that holds `lock`
  // (the "owner", recorded in `owner`), or by that same thread re-entrantly. `State` values
  // leave the store only as copies; for value-typed states that makes cross-thread use safe.

  @usableFromInline let _reduce: (inout State, Action) -> Effect<Action>
  @exclusivity(unchecked) @usableFromInline var _state: State
  /// Actions sent while reducing, reduced in order before the outer `send` returns.
  @exclusivity(unchecked) @usableFromInline var pending: ContiguousArray<Action> = []
  /// Effects the reduces produced, started in order once no reduce runs.
  @exclusivity(unchecked) @usableFromInline var deferred: ContiguousArray<(Effect<Action>, [CancelID])> = []
  /// Whether a reduce (or the drain of `pending`) is on the owner's stack.
  @exclusivity(unchecked) @usableFromInline var isReducing = false
  @exclusivity(unchecked) @usableFromInline var isInvalidated = false
  @usableFromInline let lock = _Lock()
  @usableFromInline let owner = Atomic<UInt>(0)
  @usableFromInline let _version = Atomic<UInt64>(0)
  @usableFromInline let observationUsed = Atomic<Bool>(false)
  @usableFromInline let observers = _Observers<State>()
  @usableFromInline let runtime: EffectRuntime
  @usableFromInline let dependencies: DependencyValues?
  /// For a store made by ``scope(state:action:)``: the root store it reaches, seen through the
  /// scope. Nil for a root store.
  @usableFromInline let _parent: _ScopedParent<State, Action>?
  /// Made on first use: a store nobody observes pays nothing for it.
  private let lazyRegistrar = AtomicLazyReference<_Registrar>()
  private var registrar: ObservationRegistrar {
    (lazyRegistrar.load() ?? lazyRegistrar.storeIfNil(_Registrar())).registrar
  }

  /// A store for `reducer`, starting from `initialState`.
  ///
  /// The reducer's `body` is built once, here, not once per action (a body cannot see state,
  /// and reads dependencies when it runs).
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - reducer: The feature's reducer.
  ///   - prepareDependencies: Overrides dependencies for this store's reducer and effects.
  @inlinable
  public convenience init<R: Reducer>(
    initialState: State,
    reducer: R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in }
  ) where R.State == State, R.Action == Action {
    self.init(
      _initialState: initialState, reduce: reducer._reduceFunction(),
      withDependencies: prepareDependencies)
  }

  /// A store for the reducer `reducer` builds, starting from `initialState` (TCA's form).
  ///
  /// ```swift
  /// let store = Store(initialState: Feature.State()) { Feature() }
  /// ```
  @inlinable
  public convenience init<R: Reducer>(
    initialState: @autoclosure () -> State,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in }
  ) where R.State == State, R.Action == Action {
    self.init(
      _initialState: initialState(), reduce: reducer()._reduceFunction(),
      withDependencies: prepareDependencies)
  }

  @usableFromInline
  init(
    _initialState initialState: State,
    reduce: @escaping (inout State, Action) -> Effect<Action>,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void
  ) {
    var values = DependencyValues._current
    prepareDependencies(&values)
    self._reduce = reduce
    self._state = initialState
    self.dependencies = values.isDefault ? nil : values
    self._parent = nil
    let reporter = values.reportEffectError
    self.runtime = EffectRuntime(dependencies: values, reportError: { reporter($0) })
    for clock in [values.continuousClock, values.suspendingClock] {
      (clock as? TestClock)?.attach(runtime)
    }
  }

  /// A scoped store: every call goes to `parent`.
  init(scoped parent: _ScopedParent<State, Action>, runtime: EffectRuntime) {
    self._reduce = { _, _ in .none }
    self._state = parent.state()
    self.dependencies = nil
    self._parent = parent
    self.runtime = runtime
  }

  deinit {
    // A scoped store shares its root's effects: only the root cancels them.
    if _parent == nil { runtime.invalidate() }
  }

  // MARK: Sending

  /// Reduces `action` now, on this thread, then starts its effects.
  ///
  /// Actions the reducer's `.send` effects produce are reduced before this returns; `.run`
  /// effects start on this thread once they are, and actions they send before their first
  /// suspension are reduced (with their own `.send` follow-ups) at once, in order. Observers
  /// then see the final state once.
  ///
  /// Returns a ``StoreTask`` for the effects this call started; `await task.finish()` waits
  /// for them.
  @inlinable
  @discardableResult
  public func send(_ action: Action) -> StoreTask {
    if let _parent { return _parent.send(action) }
    let me = _currentThreadID()
    if owner.load(ordering: .relaxed) == me {
      _sendReentrant(action)
      return StoreTask(tasks: nil)
    }
    lock.lock()
    owner.store(me, ordering: .relaxed)
    let start = _version.load(ordering: .relaxed)
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
    if observationUsed.load(ordering: .relaxed) { _notifyObservation() }
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
    let effect = _reduce(&_state, action)
    _version.store(_version.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
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
    Send { [weak self] action in self?.send(action) }
  }

  /// The state the observers get after this outer send, when it reduced anything and someone
  /// listens. Called by the owner, under the lock.
  @inlinable
  func _finalState(since start: UInt64) -> (state: State, version: UInt64)? {
    let version = _version.load(ordering: .relaxed)
    guard version != start, observers.count.load(ordering: .relaxed) > 0, !isInvalidated else {
      return nil
    }
    return (_state, version)
  }

  // MARK: Reading

  /// The current state. Reading it from another thread waits for a running reduce to finish.
  public var state: State {
    if let _parent {
      _parent.access()
      return _parent.state()
    }
    observationUsed.store(true, ordering: .relaxed)
    registrar.access(self, keyPath: \.state)
    return _withState { $0 }
  }

  /// A value of the state: `store.count` reads `store.state.count`.
  public subscript<Value>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
    state[keyPath: keyPath]
  }

  /// How many actions this store (for a scoped store: its root) has reduced. Increases by one
  /// per action.
  public var version: UInt64 { _parent?.version() ?? _version.load(ordering: .relaxed) }

  /// Reads the state under the store's lock (or directly when this thread holds it).
  func _withState<R>(_ body: (State) -> R) -> R {
    if let _parent { return body(_parent.state()) }
    if owner.load(ordering: .relaxed) == _currentThreadID() { return body(_state) }
    lock.lock()
    defer { lock.unlock() }
    return body(_state)
  }

  /// Runs `body` as the store's owner: sends inside it queue and are reduced (and their
  /// effects started) before this returns.
  func _exclusive<R>(_ body: () -> R) -> R {
    let me = _currentThreadID()
    if owner.load(ordering: .relaxed) == me { return body() }
    lock.lock()
    owner.store(me, ordering: .relaxed)
    let start = _version.load(ordering: .relaxed)
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

  // MARK: Effects

  /// Whether no effect of this store is running (each finished or sleeps on a ``TestClock``).
  public var isIdle: Bool { runtime.isIdle }

  /// How many effect tasks of this store have not finished.
  public var effectCount: Int { runtime.inFlightCount }

  /// Waits until every effect finished or sleeps on a ``TestClock``, or `timeout` passes.
  /// Returns whether the store became idle.
  @discardableResult
  public func idle(timeout: Duration? = nil) async -> Bool {
    await runtime.idle(timeout: timeout)
  }

  /// Waits until every effect of this store finished, or `timeout` passes.
  @discardableResult
  public func finishEffects(timeout: Duration? = nil) async -> Bool {
    await runtime.finished(timeout: timeout)
  }

  /// Reads the state and its version, atomically, without registering an observation access
  /// (for hosts that poll).
  @_spi(Host) public func withCurrentState<R>(_ body: (State, UInt64) -> R) -> R {
    if let _parent { return body(_parent.state(), _parent.version()) }
    return _withState { body($0, _version.load(ordering: .relaxed)) }
  }

  /// Whether the calling thread is reducing on this store right now.
  @_spi(Host) public var isHeldByCurrentThread: Bool {
    owner.load(ordering: .relaxed) == _currentThreadID()
  }

  /// Blocking form of ``idle(timeout:)`` for threads outside Swift concurrency (C hosts).
  /// Negative waits without limit. Do not call it from a Swift concurrency thread.
  @_spi(Host) public func waitUntilIdle(timeoutNanoseconds: Int64) -> Bool {
    runtime.waitUntilIdle(timeoutNanoseconds: timeoutNanoseconds)
  }

  /// Blocking wait for quiescence that gives up only when effects stop making progress for
  /// `stallNanoseconds` (see `EffectRuntime.waitUntilSettled`), never because the machine is
  /// slow. For threads outside Swift concurrency (C hosts).
  @_spi(Host) public func waitUntilSettled(stallNanoseconds: Int64) -> Bool {
    runtime.waitUntilSettled(stallNanoseconds: stallNanoseconds)
  }

  /// Cancels every running effect. The store keeps working.
  public func cancelEffects() {
    runtime.cancelAll()
  }

  /// Cancels every effect, removes every observer and stops reducing. After this returns no
  /// observer of this store runs again (one running on another thread is waited for; called
  /// from inside an observer, that observer is the last); later sends are ignored.
  /// On a scoped store, this only removes the observers registered through it.
  public func invalidate() {
    guard _parent == nil else { return }
    _exclusive {
      isInvalidated = true
      pending.removeAll()
      deferred.removeAll()
    }
    observers.removeAll()
    runtime.invalidate()
  }

  /// Whether ``invalidate()`` was called.
  public var isValid: Bool {
    if let _parent { return _parent.isValid() }
    return _withState { _ in !isInvalidated }
  }

  // MARK: Observation

  /// The store's observation registrar, in a class so it can be made lazily.
  private final class _Registrar: Sendable {
    let registrar = ObservationRegistrar()
  }

  @usableFromInline
  func _notifyObservation() {
    registrar.withMutation(of: self, keyPath: \.state) {}
  }

  /// Calls `onChange` with the selected value now and after every `send` that changes it.
  ///
  /// ```swift
  /// let subscription = store.subscribe(select: \.count) { print("count:", $0) }
  /// ```
  ///
  /// Observers run after the store's lock is released, once per outer `send` with the final
  /// state (an action whose `.send` effects queue three more gives one call), in order and
  /// one at a time per store: on the thread that sent, or on a thread already delivering for
  /// this store. They may send to this or any other store. Not called again once the
  /// subscription is cancelled.
  ///
  /// - Parameters:
  ///   - select: Picks the observed part of the state.
  ///   - isDuplicate: Values it finds equal to the last delivered value are skipped.
  ///   - onChange: Receives the selected values.
  @inlinable
  public func subscribe<Value>(
    select: @escaping (State) -> Value,
    removeDuplicates isDuplicate: ((Value, Value) -> Bool)?,
    _ onChange: @escaping (Value) -> Void
  ) -> StoreSubscription {
    let last = _LastValue<Value>()
    return _addSubscriber(deliverCurrent: true) { state, _ in
      let value = select(state)
      if let isDuplicate, let previous = last.value, isDuplicate(previous, value) { return }
      last.value = value
      onChange(value)
    }
  }

  /// Calls `onChange` with the selected value now and whenever it changes (or, with
  /// `removeDuplicates: false`, after every `send`).
  @inlinable
  public func subscribe<Value: Equatable>(
    select: @escaping (State) -> Value,
    removeDuplicates: Bool = true,
    _ onChange: @escaping (Value) -> Void
  ) -> StoreSubscription {
    guard removeDuplicates else {
      return _addSubscriber(deliverCurrent: true) { state, _ in onChange(select(state)) }
    }
    let last = _LastValue<Value>()
    return _addSubscriber(deliverCurrent: true) { state, _ in
      let value = select(state)
      if last.value == value { return }
      last.value = value
      onChange(value)
    }
  }

  /// Calls `onChange` with the state now and after every `send`.
  public func subscribe(_ onChange: @escaping (State) -> Void) -> StoreSubscription {
    _addSubscriber(deliverCurrent: true) { state, _ in onChange(state) }
  }

  /// Calls `onChange` with the state and its version after every `send` that reduced an
  /// action (and, with `deliverCurrent`, now). For hosts.
  @_spi(Host) public func subscribeVersioned(
    deliverCurrent: Bool, _ onChange: @escaping (State, UInt64) -> Void
  ) -> StoreSubscription {
    _addSubscriber(deliverCurrent: deliverCurrent, onChange)
  }

  @usableFromInline
  func _addSubscriber(
    deliverCurrent: Bool, _ notify: @escaping (State, UInt64) -> Void
  ) -> StoreSubscription {
    if let _parent { return _parent.subscribe(deliverCurrent, notify) }
    let subscriber = _Subscriber<State>(notify: notify)
    let added: Bool = _exclusive {
      guard !isInvalidated else { return false }
      observers.add(
        subscriber, current: deliverCurrent ? (_state, _version.load(ordering: .relaxed)) : nil)
      return true
    }
    guard added else { return StoreSubscription {} }
    if deliverCurrent { observers.deliverInitial() }
    return StoreSubscription { [weak self] in self?.observers.remove(subscriber) }
  }

  /// How many subscriptions are active.
  public var subscriberCount: Int {
    if let _parent { return _parent.subscriberCount() }
    return observers.activeCount
  }

  // MARK: Scoping

  /// A store of a part of this store's state and actions: it shares this store's state and
  /// effects (TCA's `scope`).
  ///
  /// ```swift
  /// let counter = appStore.scope(state: \.counter, action: AppFeature.Action.counter)
  /// counter.send(.increment)  // appStore's state changes
  /// ```
  ///
  /// A send through the child reaches the root store as `action(childAction)`; the child reads
  /// `state` from the root each time. The child keeps the root alive, not the stores between:
  /// releasing an intermediate scoped store breaks neither a deeper one nor its effects.
  public func scope<ChildState, ChildAction: Sendable>(
    state toChildState: @escaping (State) -> ChildState,
    action fromChildAction: @escaping @Sendable (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction> {
    let parent = _parent ?? _ScopedParent(root: self)
    return Store<ChildState, ChildAction>(
      scoped: parent.scoped(toChildState, fromChildAction), runtime: runtime)
  }

  /// A store of a part of this store's state and actions (key-path form).
  public func scope<ChildState, ChildAction: Sendable>(
    state toChildState: KeyPath<State, ChildState>,
    action fromChildAction: @escaping @Sendable (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction> {
    scope(state: { $0[keyPath: toChildState] }, action: fromChildAction)
  }

  /// A store of a part of this store's state and actions (case-path form).
  public func scope<ChildState, ChildAction: Sendable>(
    state toChildState: KeyPath<State, ChildState>,
    action toChildAction: AnyCasePath<Action, ChildAction>
  ) -> Store<ChildState, ChildAction> {
    scope(state: { $0[keyPath: toChildState] }, action: toChildAction._embed)
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

extension Store where State: Sendable {
  /// The current state, then the state after every action, as an async sequence.
  ///
  /// ```swift
  /// for await state in store.states { print(state.count) }
  /// ```
  public var states: AsyncStream<State> {
    AsyncStream { continuation in
      let subscription = subscribe { continuation.yield($0) }
      continuation.onTermination = { _ in subscription.cancel() }
    }
  }
}

extension Store: Observable {}

/// The last value a subscription delivered. Only touched by the thread delivering for the
/// store, one delivery at a time.
@usableFromInline
final class _LastValue<Value> {
  @exclusivity(unchecked) @usableFromInline var value: Value?
  @usableFromInline init() {}
}

/// Keeps a store subscription alive; ``cancel()`` (or deinit) ends it.
public final class StoreSubscription: @unchecked Sendable {
  // Safe: `onCancel` is written once in init and taken exactly once under `lock`.
  private let lock = _Lock()
  private var onCancel: (() -> Void)?

  init(_ onCancel: @escaping () -> Void) { self.onCancel = onCancel }

  deinit { cancel() }

  /// Ends the subscription. After this returns the callback is not called again. Idempotent.
  public func cancel() {
    let action: (() -> Void)? = lock.withLock {
      defer { onCancel = nil }
      return onCancel
    }
    action?()
  }
}

/// The effects one `send` started.
///
/// ```swift
/// await store.send(.refresh).finish()
/// ```
public struct StoreTask: Hashable, Sendable {
  /// nil when no effect started (the common case: nothing to retain or release).
  @usableFromInline let started: [Task<Void, Never>]?

  @inlinable init(tasks: [Task<Void, Never>]?) {
    self.started = tasks?.isEmpty == false ? tasks : nil
  }

  @usableFromInline var tasks: [Task<Void, Never>] { started ?? [] }

  /// Waits for the effects to finish. Cancelling the waiting task cancels them.
  public func finish() async {
    guard !tasks.isEmpty else { return }
    await withTaskCancellationHandler {
      for task in tasks { await task.value }
    } onCancel: {
      for task in tasks { task.cancel() }
    }
  }

  /// Cancels the effects.
  public func cancel() {
    for task in tasks { task.cancel() }
  }

  /// Whether every effect was cancelled (true when there were none).
  public var isCancelled: Bool { tasks.allSatisfy(\.isCancelled) }
}

extension Optional where Wrapped == [Task<Void, Never>] {
  /// Appends `task`, making the array on the first.
  @inlinable mutating func _append(_ task: Task<Void, Never>) {
    if self == nil { self = [task] } else { self!.append(task) }
  }
}

/// A store of reducer `R`'s state and actions.
public typealias StoreOf<R: Reducer> = Store<R.State, R.Action> where R.Action: Sendable

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
