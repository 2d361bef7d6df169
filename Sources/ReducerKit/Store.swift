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
  // Safe: the mutable state lives in `core`, which guards it with its lock (see
  // Internal/StoreCore.swift); everything here is immutable or atomic.

  /// The engine: state, lock, queue, effects. A scoped store's core only carries its root's
  /// effect runtime: everything else goes to `_parent`.
  @usableFromInline let core: _StoreCore<State, Action>
  @usableFromInline let observationUsed = Atomic<Bool>(false)
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
    let reporter = values.reportEffectError
    let runtime = EffectRuntime(dependencies: values, reportError: { reporter($0) })
    self.core = _StoreCore(
      state: initialState, reduce: reduce, runtime: runtime,
      dependencies: values.isDefault ? nil : values)
    self._parent = nil
    for clock in [values.continuousClock, values.suspendingClock] {
      (clock as? TestClock)?.attach(runtime)
    }
    core.store = self
  }

  /// A scoped store: every call goes to `parent`.
  init(scoped parent: _ScopedParent<State, Action>, runtime: EffectRuntime) {
    self.core = _StoreCore(
      state: parent.state(), reduce: { _, _ in .none }, runtime: runtime, dependencies: nil)
    self._parent = parent
  }

  deinit {
    // A scoped store shares its root's effects: only the root cancels them.
    if _parent == nil { core.runtime.invalidate() }
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
    // Nil: sent from this store's own reduce or effect, on the thread reducing; the outer
    // send tells observation.
    guard let task = core.send(action) else { return StoreTask(tasks: nil) }
    if observationUsed.load(ordering: .relaxed) { _notifyObservation() }
    return task
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
  public var version: UInt64 { _parent?.version() ?? core.version.load(ordering: .relaxed) }

  /// Reads the state under the store's lock (or directly when this thread holds it).
  func _withState<R>(_ body: (State) -> R) -> R {
    if let _parent { return body(_parent.state()) }
    return core.withState(body)
  }

  // MARK: Effects

  /// Whether no effect of this store is running (each finished or sleeps on a ``TestClock``).
  public var isIdle: Bool { core.runtime.isIdle }

  /// How many effect tasks of this store have not finished.
  public var effectCount: Int { core.runtime.inFlightCount }

  /// ``effectCount`` without the effects cancelled by id that are still winding down: what
  /// a test store checks when it ends.
  package var _uncancelledEffectCount: Int { core.runtime.uncancelledCount }

  /// Waits until every effect finished or sleeps on a ``TestClock``, or `timeout` passes.
  /// Returns whether the store became idle.
  @discardableResult
  public func idle(timeout: Duration? = nil) async -> Bool {
    await core.runtime.idle(timeout: timeout)
  }

  /// Waits until every effect of this store finished, or `timeout` passes.
  @discardableResult
  public func finishEffects(timeout: Duration? = nil) async -> Bool {
    await core.runtime.finished(timeout: timeout)
  }

  /// Reads the state and its version, atomically, without registering an observation access
  /// (for hosts that poll).
  @_spi(Host) public func withCurrentState<R>(_ body: (State, UInt64) -> R) -> R {
    if let _parent { return body(_parent.state(), _parent.version()) }
    return _withState { body($0, core.version.load(ordering: .relaxed)) }
  }

  /// Whether the calling thread is reducing on this store right now.
  @_spi(Host) public var isHeldByCurrentThread: Bool { core.isHeldByCurrentThread }

  /// Blocking form of ``idle(timeout:)`` for threads outside Swift concurrency (C hosts).
  /// Negative waits without limit. Do not call it from a Swift concurrency thread.
  @_spi(Host) public func waitUntilIdle(timeoutNanoseconds: Int64) -> Bool {
    core.runtime.waitUntilIdle(timeoutNanoseconds: timeoutNanoseconds)
  }

  /// Blocking wait for quiescence that gives up only when effects stop making progress for
  /// `stallNanoseconds` (see `EffectRuntime.waitUntilSettled`), never because the machine is
  /// slow. For threads outside Swift concurrency (C hosts).
  @_spi(Host) public func waitUntilSettled(stallNanoseconds: Int64) -> Bool {
    core.runtime.waitUntilSettled(stallNanoseconds: stallNanoseconds)
  }

  /// Cancels every running effect. The store keeps working.
  public func cancelEffects() {
    core.runtime.cancelAll()
  }

  /// Cancels every effect, removes every observer and stops reducing. After this returns no
  /// observer of this store runs again (one running on another thread is waited for; called
  /// from inside an observer, that observer is the last); later sends are ignored.
  /// On a scoped store, this only removes the observers registered through it.
  public func invalidate() {
    guard _parent == nil else { return }
    core.invalidate()
  }

  /// Whether ``invalidate()`` was called.
  public var isValid: Bool {
    if let _parent { return _parent.isValid() }
    return core.isValid
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
    return core.addSubscriber(deliverCurrent: deliverCurrent, notify)
  }

  /// How many subscriptions are active.
  public var subscriberCount: Int {
    if let _parent { return _parent.subscriberCount() }
    return core.observers.activeCount
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
      scoped: parent.scoped(toChildState, fromChildAction), runtime: core.runtime)
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

/// Keeps a store subscription alive; ``cancel()`` (or deinit) ends it.
public final class StoreSubscription: @unchecked Sendable {
  // Safe: `onCancel` is written once in init and taken exactly once under `lock`.
  private let lock = Lock()
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

/// A store of reducer `R`'s state and actions.
public typealias StoreOf<R: Reducer> = Store<R.State, R.Action> where R.Action: Sendable
