import Observation
import Synchronization

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
  @exclusivity(unchecked) @usableFromInline var pending: ContiguousArray<Action> = []
  @exclusivity(unchecked) @usableFromInline var subscribers: ContiguousArray<_Subscriber<State>> = []
  @exclusivity(unchecked) @usableFromInline var isInvalidated = false
  @usableFromInline let lock = _Lock()
  @usableFromInline let owner = Atomic<UInt>(0)
  @usableFromInline let _version = Atomic<UInt64>(0)
  @usableFromInline let observationUsed = Atomic<Bool>(false)
  @usableFromInline let runtime: EffectRuntime
  @usableFromInline let dependencies: DependencyValues?
  private let registrar = ObservationRegistrar()
  private var nextSubscriberID: UInt64 = 0

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
    let reporter = values.reportEffectError
    self.runtime = EffectRuntime(dependencies: values, reportError: { reporter($0) })
    for clock in [values.continuousClock, values.suspendingClock] {
      (clock as? TestClock)?.attach(runtime)
    }
  }

  deinit {
    runtime.invalidate()
  }

  // MARK: Sending

  /// Reduces `action` now, on this thread, then starts its effects.
  ///
  /// Returns a ``StoreTask`` for the effects this call started; `await task.finish()` waits
  /// for them.
  @inlinable
  @discardableResult
  public func send(_ action: Action) -> StoreTask {
    let me = _currentThreadID()
    if owner.load(ordering: .relaxed) == me {
      // Re-entrant: from the reducer's `.send`, an observer, or an effect on this thread.
      pending.append(action)
      return StoreTask(tasks: [])
    }
    lock.lock()
    owner.store(me, ordering: .relaxed)
    var tasks: [Task<Void, Never>] = []
    if dependencies == nil && DependencyValues._isAmbientDefault {
      _process(action, &tasks)
      if !pending.isEmpty { _drainPending(&tasks) }
    } else {
      _processWithDependencies(action, &tasks)
    }
    owner.store(0, ordering: .relaxed)
    lock.unlock()
    if observationUsed.load(ordering: .relaxed) { _notifyObservation() }
    return StoreTask(tasks: tasks)
  }

  @inlinable
  func _process(_ action: Action, _ tasks: inout [Task<Void, Never>]) {
    guard !isInvalidated else { return }
    let effect = _reduce(&_state, action)
    _version.store(_version.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    if !subscribers.isEmpty { _notifySubscribers() }
    switch effect.operation {
    case .none:
      return
    case let .send(next):
      pending.append(next)
    default:
      _start(effect, ids: [], &tasks)
    }
  }

  @usableFromInline
  func _drainPending(_ tasks: inout [Task<Void, Never>]) {
    var index = 0
    while index < pending.count {
      let next = pending[index]
      index += 1
      _process(next, &tasks)
    }
    pending.removeAll(keepingCapacity: true)
  }

  @usableFromInline
  func _processWithDependencies(_ action: Action, _ tasks: inout [Task<Void, Never>]) {
    DependencyValues._with(dependencies ?? DependencyValues()) {
      _process(action, &tasks)
      if !pending.isEmpty { _drainPending(&tasks) }
    }
  }

  /// Starts an effect returned by the reducer (anything but `.none` and a lone `.send`).
  @usableFromInline
  func _start(_ effect: Effect<Action>, ids: [CancelID], _ tasks: inout [Task<Void, Never>]) {
    switch effect.operation {
    case .none:
      return
    case let .send(action):
      pending.append(action)
    case let .run(run):
      let send = _makeSend()
      let operation = run.operation
      if let task = runtime.spawn(priority: run.priority, ids: ids, operation: { await operation(send) }) {
        tasks.append(task)
      }
    case let .merge(effects):
      for effect in effects { _start(effect, ids: ids, &tasks) }
    case let .concatenate(effects):
      if effects.allSatisfy(\._isSynchronous) {
        for effect in effects { _start(effect, ids: ids, &tasks) }
      } else {
        let send = _makeSend()
        let whole = effect
        if let task = runtime.spawn(priority: nil, ids: ids, operation: {
          await EffectRuntime.runNested(whole, send: send)
        }) {
          tasks.append(task)
        }
      }
    case let .cancellable(id, cancelInFlight, inner):
      if cancelInFlight { runtime.cancel([id]) }
      _start(inner, ids: ids + [id], &tasks)
    case let .cancel(ids):
      runtime.cancel(ids)
    }
  }

  private func _makeSend() -> Send<Action> {
    Send { [weak self] action in self?.send(action) }
  }

  // MARK: Reading

  /// The current state. Reading it from another thread waits for a running reduce to finish.
  public var state: State {
    observationUsed.store(true, ordering: .relaxed)
    registrar.access(self, keyPath: \.state)
    return _withState { $0 }
  }

  /// A value of the state: `store.count` reads `store.state.count`.
  public subscript<Value>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
    state[keyPath: keyPath]
  }

  /// How many actions this store has reduced. Increases by one per action.
  public var version: UInt64 { _version.load(ordering: .relaxed) }

  /// Reads the state under the store's lock (or directly when this thread holds it).
  func _withState<R>(_ body: (State) -> R) -> R {
    if owner.load(ordering: .relaxed) == _currentThreadID() { return body(_state) }
    lock.lock()
    defer { lock.unlock() }
    return body(_state)
  }

  /// Runs `body` as the store's owner: re-entrant sends inside it queue and are reduced before
  /// this returns.
  func _exclusive<R>(_ body: () -> R) -> R {
    let me = _currentThreadID()
    if owner.load(ordering: .relaxed) == me { return body() }
    lock.lock()
    owner.store(me, ordering: .relaxed)
    let result = body()
    var tasks: [Task<Void, Never>] = []
    if !pending.isEmpty {
      DependencyValues._with(dependencies ?? DependencyValues()) { _drainPending(&tasks) }
    }
    owner.store(0, ordering: .relaxed)
    lock.unlock()
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

  /// Reads the state without registering an observation access (for hosts that poll).
  public func withCurrentState<R>(_ body: (State) -> R) -> R { _withState(body) }

  /// Whether the calling thread is reducing on this store right now (inside a callback).
  public var isHeldByCurrentThread: Bool { owner.load(ordering: .relaxed) == _currentThreadID() }

  /// Blocking form of ``idle(timeout:)`` for threads outside Swift concurrency (C hosts).
  /// Negative waits without limit. Do not call it from a Swift concurrency thread.
  public func waitUntilIdle(timeoutNanoseconds: Int64) -> Bool {
    runtime.waitUntilIdle(timeoutNanoseconds: timeoutNanoseconds)
  }

  /// Cancels every running effect. The store keeps working.
  public func cancelEffects() {
    runtime.cancelAll()
  }

  /// Cancels every effect, removes every observer and stops reducing. After this returns no
  /// observer of this store runs again; later sends are ignored.
  public func invalidate() {
    _exclusive {
      isInvalidated = true
      for subscriber in subscribers { subscriber.isActive = false }
      subscribers.removeAll()
      pending.removeAll()
    }
    runtime.invalidate()
  }

  /// Whether ``invalidate()`` was called.
  public var isValid: Bool { _withState { _ in !isInvalidated } }

  // MARK: Observation

  @inlinable
  func _notifySubscribers() {
    let snapshot = subscribers
    for subscriber in snapshot where subscriber.isActive && !isInvalidated {
      subscriber.notify(_state)
    }
  }

  @usableFromInline
  func _notifyObservation() {
    registrar.withMutation(of: self, keyPath: \.state) {}
  }

  /// Calls `onChange` with the selected value now and after every action that changes it.
  ///
  /// ```swift
  /// let subscription = store.subscribe(select: \.count) { print("count:", $0) }
  /// ```
  ///
  /// `onChange` runs on the thread that reduced the action, while it holds the store; it may
  /// send actions (they are queued). Not called again once the subscription is cancelled.
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
    return _addSubscriber { state in
      let value = select(state)
      if let isDuplicate, let previous = last.value, isDuplicate(previous, value) { return }
      last.value = value
      onChange(value)
    }
  }

  /// Calls `onChange` with the selected value now and whenever it changes (or, with
  /// `removeDuplicates: false`, after every action).
  @inlinable
  public func subscribe<Value: Equatable>(
    select: @escaping (State) -> Value,
    removeDuplicates: Bool = true,
    _ onChange: @escaping (Value) -> Void
  ) -> StoreSubscription {
    guard removeDuplicates else { return _addSubscriber { onChange(select($0)) } }
    let last = _LastValue<Value>()
    return _addSubscriber { state in
      let value = select(state)
      if last.value == value { return }
      last.value = value
      onChange(value)
    }
  }

  /// Calls `onChange` with the state now and after every action.
  public func subscribe(_ onChange: @escaping (State) -> Void) -> StoreSubscription {
    _addSubscriber(onChange)
  }

  @usableFromInline
  func _addSubscriber(_ notify: @escaping (State) -> Void) -> StoreSubscription {
    _exclusive {
      nextSubscriberID += 1
      let subscriber = _Subscriber<State>(id: nextSubscriberID, notify: notify)
      guard !isInvalidated else {
        subscriber.isActive = false
        return StoreSubscription {}
      }
      subscribers.append(subscriber)
      subscriber.notify(_state)
      return StoreSubscription { [weak self] in self?._removeSubscriber(subscriber) }
    }
  }

  func _removeSubscriber(_ subscriber: _Subscriber<State>) {
    _exclusive {
      subscriber.isActive = false
      subscribers.removeAll { $0 === subscriber }
    }
  }

  /// How many subscriptions are active.
  public var subscriberCount: Int { _withState { _ in subscribers.count } }
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

/// The last value a subscription delivered. Only touched by the thread that holds the store.
@usableFromInline
final class _LastValue<Value> {
  @exclusivity(unchecked) @usableFromInline var value: Value?
  @usableFromInline init() {}
}

/// A state observer registered with ``Store/subscribe(_:)``.
@usableFromInline
final class _Subscriber<State> {
  @usableFromInline let id: UInt64
  @usableFromInline let notify: (State) -> Void
  @usableFromInline var isActive = true
  @usableFromInline init(id: UInt64, notify: @escaping (State) -> Void) {
    self.id = id
    self.notify = notify
  }
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
  @usableFromInline let tasks: [Task<Void, Never>]

  @inlinable init(tasks: [Task<Void, Never>]) { self.tasks = tasks }

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

/// A store of reducer `R`'s state and actions.
public typealias StoreOf<R: Reducer> = Store<R.State, R.Action> where R.Action: Sendable

extension Effect {
  /// Whether starting this effect needs no task (only `.none` and `.send` inside).
  var _isSynchronous: Bool {
    switch operation {
    case .none, .send, .cancel: return true
    case .run: return false
    case let .merge(effects), let .concatenate(effects): return effects.allSatisfy(\._isSynchronous)
    case let .cancellable(_, _, effect): return effect._isSynchronous
    }
  }
}
