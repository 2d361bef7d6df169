import Observation
import ReducerKitPlatform

/// A ReSwift-style store (ReSwift-Effect's `Store`): a function reducer with an
/// injected environment, middleware around `dispatch`, and `StoreSubscriber`s. A thin wrapper
/// over one core ``Store`` (``core``) whose reducer is ``FunctionReducer``.
///
/// ```swift
/// @MainActor let appStore = ReduxStore<AppState, any ReduxAction, AppEnvironment>(
///   reducer: counterReducer,
///   state: AppState(),
///   environment: AppEnvironment()
/// )
/// appStore.subscribe(subscriber) { subscription in subscription.select(\.counter) }
/// appStore.dispatch(CounterAction.increase)
/// ```
///
/// Like ReSwift-Effect it lives on the main actor: reducers, middleware and subscribers run
/// there. A task the reducer returns is a tracked effect of the core store; its action is
/// dispatched (through the middleware) when it completes, its error is reported through the
/// core's ``DependencyValues/reportEffectError``, and it is cancelled when the store goes away.
/// Reading ``state`` is tracked by the Observation module (it reads the core store).
@MainActor
public final class ReduxStore<State, Action: Sendable, Environment> {
  /// The core store this runs on: its effects, dependencies, observation and cancellation.
  /// Send to it only from the main actor; prefer ``dispatch(_:)``, which runs the middleware.
  public nonisolated let core: Store<State, Action>

  /// The environment the reducer receives.
  public let environment: Environment

  /// The middleware around ``dispatch(_:)``, first to last. Changing it rebuilds the chain.
  public var middleware: [Middleware<State, Action>] {
    didSet { dispatchFunction = makeDispatchFunction() }
  }

  /// ``dispatch(_:)`` as a function: the middleware chain ending in the core store's `send`.
  public private(set) var dispatchFunction: DispatchFunction<Action> = { _ in }

  private let automaticallySkipsRepeats: Bool
  private var subscriptions: [ObjectIdentifier: _ReduxSubscriberBox] = [:]
  private nonisolated let mainThread: UInt

  /// A store for `reducer`, starting from `state`.
  ///
  /// - Parameters:
  ///   - reducer: The function reducer.
  ///   - state: The initial state.
  ///   - environment: The dependencies `reducer` receives.
  ///   - middleware: Applied in order: the first one sees each action first.
  ///   - automaticallySkipsRepeats: Whether subscriptions to `Equatable` (selected) states
  ///     skip values equal to the last one delivered. Default `true`.
  ///   - prepareDependencies: Overrides the core store's dependencies (clocks,
  ///     `reportEffectError`, …); the reducer's tasks inherit them.
  public init(
    reducer: @escaping ReduxReducer<State, Action, Environment>,
    state: State,
    environment: Environment,
    middleware: [Middleware<State, Action>] = [],
    automaticallySkipsRepeats: Bool = true,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    let functionReducer = FunctionReducer(
      reducer, environment: environment,
      fileID: fileID, filePath: filePath, line: line, column: column)
    self.core = Store(
      initialState: state, reducer: functionReducer, withDependencies: prepareDependencies)
    self.environment = environment
    self.middleware = middleware
    self.automaticallySkipsRepeats = automaticallySkipsRepeats
    self.mainThread = currentThreadID()
    self.dispatchFunction = makeDispatchFunction()
    functionReducer.dispatcher.set { [weak self] action in self?.dispatch(action) }
  }

  deinit {
    core.invalidate()
  }

  /// The current state.
  public var state: State { core.state }

  /// Dispatches `action` through the middleware to the reducer.
  ///
  /// ```swift
  /// appStore.dispatch(CounterAction.increase)
  /// ```
  public func dispatch(_ action: Action) {
    dispatchFunction(action)
  }

  private func makeDispatchFunction() -> DispatchFunction<Action> {
    let core = self.core
    let send: DispatchFunction<Action> = { action in core.send(action) }
    return middleware.reversed().reduce(send) { next, middleware in
      middleware(
        { [weak self] action in self?.dispatch(action) },
        { [weak self] in self?.state }
      )(next)
    }
  }

  // MARK: Subscribing

  /// Calls `subscriber.newState(state:)` with the state now and after every action (skipping
  /// repeats of an `Equatable` state, unless `automaticallySkipsRepeats` is false). The store
  /// holds `subscriber` weakly; subscribing it again is ignored.
  public func subscribe<S: StoreSubscriber>(_ subscriber: S)
  where S.StoreSubscriberStateType == State {
    _subscribe(subscriber, transform: { $0 }, isRepeat: nil)
  }

  /// Subscribes `subscriber` to what `transform` makes of the store's subscription
  /// (ReSwift's form), skipping repeats automatically when the result is `Equatable`.
  ///
  /// ```swift
  /// appStore.subscribe(subscriber) { subscription in subscription.select { $0.users } }
  /// ```
  public func subscribe<Selected, S: StoreSubscriber>(
    _ subscriber: S,
    transform: (ReduxSubscription<State>) -> ReduxSubscription<Selected>
  ) where S.StoreSubscriberStateType == Selected {
    _subscribe(subscriber, transform: transform, isRepeat: nil)
  }

  /// Subscribes `subscriber` to the part of the state that `select` picks, skipping repeats
  /// automatically when it is `Equatable`.
  ///
  /// ```swift
  /// appStore.subscribe(subscriber, select: \.users)
  /// ```
  public func subscribe<Selected, S: StoreSubscriber>(
    _ subscriber: S,
    select: @escaping (State) -> Selected
  ) where S.StoreSubscriberStateType == Selected {
    _subscribe(subscriber, transform: { $0.select(select) }, isRepeat: nil)
  }

  /// Ends `subscriber`'s subscription. After this returns it is not called again.
  public func unsubscribe(_ subscriber: AnyObject) {
    subscriptions.removeValue(forKey: ObjectIdentifier(subscriber))?.cancel()
  }

  /// How many subscribers are subscribed.
  public var subscriberCount: Int {
    subscriptions.values.filter { $0.subscriber != nil }.count
  }

  fileprivate func _subscribe<S: StoreSubscriber>(
    _ subscriber: S,
    transform: (ReduxSubscription<State>) -> ReduxSubscription<S.StoreSubscriberStateType>,
    isRepeat: ((S.StoreSubscriberStateType, S.StoreSubscriberStateType) -> Bool)?
  ) {
    // Subscribing again replaces the subscription and delivers the current state again
    // (ReSwift's behaviour); a leftover of a deallocated subscriber with the same identity is
    // replaced the same way.
    let key = ObjectIdentifier(subscriber)
    subscriptions.removeValue(forKey: key)?.cancel()
    let root = ReduxSubscription<State>()
    var tail = transform(root)
    if automaticallySkipsRepeats, let isRepeat { tail = tail.skipRepeats(isRepeat) }
    let box = _ReduxSubscriberBox(subscriber: subscriber)
    tail.observer = { [weak box, weak subscriber, weak self] value in
      guard let subscriber else {
        if let box { self?.removeStale(box, key: key) }
        return
      }
      subscriber.newState(state: value)
    }
    box.root = root
    subscriptions[key] = box
    let mainThread = self.mainThread
    box.storeSubscription = core.subscribe { @Sendable [weak root] state in
      guard let root else { return }
      let state = _UncheckedSendable(state)
      if currentThreadID() == mainThread {
        MainActor.assumeIsolated { root._receive(state) }
      } else {
        // Someone sent to the core store off the main actor: deliver on the main actor.
        Task { @MainActor in root._receive(state) }
      }
    }
  }

  private func removeStale(_ box: _ReduxSubscriberBox, key: ObjectIdentifier) {
    if subscriptions[key] === box { subscriptions[key] = nil }
    box.cancel()
  }
}

extension ReduxStore where State: Equatable {
  /// Calls `subscriber.newState(state:)` with the state now and whenever it changes
  /// (every action, when `automaticallySkipsRepeats` is false).
  public func subscribe<S: StoreSubscriber>(_ subscriber: S)
  where S.StoreSubscriberStateType == State {
    _subscribe(subscriber, transform: { $0 }, isRepeat: { $0 == $1 })
  }
}

extension ReduxStore {
  /// Subscribes to what `transform` makes of the subscription, skipping repeats of the
  /// `Equatable` result.
  public func subscribe<Selected: Equatable, S: StoreSubscriber>(
    _ subscriber: S,
    transform: (ReduxSubscription<State>) -> ReduxSubscription<Selected>
  ) where S.StoreSubscriberStateType == Selected {
    _subscribe(subscriber, transform: transform, isRepeat: { $0 == $1 })
  }

  /// Subscribes to the `Equatable` part of the state `select` picks, skipping repeats.
  public func subscribe<Selected: Equatable, S: StoreSubscriber>(
    _ subscriber: S,
    select: @escaping (State) -> Selected
  ) where S.StoreSubscriberStateType == Selected {
    _subscribe(subscriber, transform: { $0.select(select) }, isRepeat: { $0 == $1 })
  }
}

extension ReduxStore: Observable {}

/// Receives a ``ReduxStore``'s state (or the part its subscription selects), on the main actor.
///
/// ```swift
/// @MainActor final class CounterSubscriber: StoreSubscriber {
///   func newState(state: AppState) { print(state.counter) }
/// }
/// ```
@MainActor
public protocol StoreSubscriber: AnyObject {
  /// What the subscriber receives: the state, or the selected part of it.
  associatedtype StoreSubscriberStateType
  /// Called with the state now and after each (non-repeated) change.
  func newState(state: StoreSubscriberStateType)
}

/// Which values of a ``ReduxStore`` reach a subscriber: a chain of `select` and `skipRepeats`
/// steps (ReSwift's `Subscription`).
///
/// ```swift
/// appStore.subscribe(subscriber) { $0.select(\.users).skipRepeats { $0.count == $1.count } }
/// ```
@MainActor
public final class ReduxSubscription<State> {
  var observer: ((State) -> Void)?

  init() {}

  func _receive(_ state: _UncheckedSendable<State>) { observer?(state.value) }

  /// The values `selector` picks from this subscription's values.
  public func select<Substate>(_ selector: @escaping (State) -> Substate) -> ReduxSubscription<Substate> {
    let next = ReduxSubscription<Substate>()
    observer = { [unowned next] in next.observer?(selector($0)) }
    return keep(next)
  }

  /// The values at `keyPath` of this subscription's values.
  public func select<Substate>(_ keyPath: KeyPath<State, Substate>) -> ReduxSubscription<Substate> {
    select { $0[keyPath: keyPath] }
  }

  /// This subscription's values, without those `isRepeat` finds a repeat of the previous one.
  public func skipRepeats(_ isRepeat: @escaping (_ old: State, _ new: State) -> Bool) -> ReduxSubscription<State> {
    let next = ReduxSubscription<State>()
    var previous: State?
    observer = { [unowned next] value in
      defer { previous = value }
      if let previous, isRepeat(previous, value) { return }
      next.observer?(value)
    }
    return keep(next)
  }

  /// Same as ``skipRepeats(_:)``.
  public func skip(when isRepeat: @escaping (_ old: State, _ new: State) -> Bool) -> ReduxSubscription<State> {
    skipRepeats(isRepeat)
  }

  /// Only the values for which `when(previous, new)` is true (and the first value).
  public func only(when: @escaping (_ old: State, _ new: State) -> Bool) -> ReduxSubscription<State> {
    skipRepeats { !when($0, $1) }
  }

  /// Keeps the downstream steps alive as long as this one.
  private var downstream: AnyObject?
  private func keep<T>(_ next: ReduxSubscription<T>) -> ReduxSubscription<T> {
    downstream = next
    return next
  }
}

extension ReduxSubscription where State: Equatable {
  /// This subscription's values, without those equal to the previous one.
  public func skipRepeats() -> ReduxSubscription<State> { skipRepeats { $0 == $1 } }
}

// MARK: - Internals

@MainActor
final class _ReduxSubscriberBox {
  weak var subscriber: AnyObject?
  var root: AnyObject?
  var storeSubscription: StoreSubscription?

  init(subscriber: AnyObject) { self.subscriber = subscriber }

  func cancel() {
    storeSubscription?.cancel()
    storeSubscription = nil
  }
}

/// Carries a state value to the main actor. The store hands out copies of value-typed states;
/// a subscriber on the main actor is the only reader of this one.
struct _UncheckedSendable<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
