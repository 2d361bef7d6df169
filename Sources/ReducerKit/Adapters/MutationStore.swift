import Observation

/// Runs a ``MutationReducer``: the `Reducer<R>` of the Reducer library (ReactorKit-style), as a thin wrapper over one core
/// ``Store`` (``core``) whose reducer is ``MutationAdapter``.
///
/// ```swift
/// let store = MutationStore(CounterReduce())
/// store.action(.increase)
/// print(store.state.count, store.count)
/// let subscription = store.subscribe(select: \.count) { print("count:", $0) }
/// ```
///
/// Creating the store runs the reducer's `start()` once. Any thread may call ``action(_:)``.
/// When the store goes away its effects (running `mutate(action:)` calls and `start()`) are
/// cancelled and no observer is called again. Observation: ``subscribe(_:)``,
/// ``subscribe(select:removeDuplicates:_:)``, ``states``, or the Observation module (reading
/// ``state`` tracks the core store).
@dynamicMemberLookup
public final class MutationStore<R: MutationReducer>: Sendable {
  /// The core store this runs on: its effects, dependencies, observation and cancellation.
  public let core: Store<R.State, MutationAdapter<R>.Action>

  /// The state the store started from.
  public let initialState: R.State

  /// A store running `reducer`, starting from its `initialState`; runs its `start()`.
  ///
  /// - Parameters:
  ///   - reducer: The mutation reducer.
  ///   - prepareDependencies: Overrides dependencies (clocks, `reportEffectError`, …) for
  ///     the reducer's work, as for a core ``Store``.
  public convenience init(
    _ reducer: R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    self.init(
      proxy: MutationProxy(reducer), withDependencies: prepareDependencies,
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// A store running the closures of `proxy` in place of `R` (tests and previews).
  ///
  /// ```swift
  /// let preview = MutationStore<CounterReduce>(proxy: .init(initialState: .init(count: 100)))
  /// ```
  public init(
    proxy: MutationProxy<R>,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    initialState = proxy.initialState
    core = Store(
      initialState: proxy.initialState,
      reducer: MutationAdapter(
        proxy: proxy, fileID: fileID, filePath: filePath, line: line, column: column),
      withDependencies: prepareDependencies
    )
    core.send(.start)
  }

  deinit {
    core.invalidate()
  }

  /// Sends a user action: runs `mutate(action:)`, after cancelling the running actions that
  /// `shouldCancel` names. `await store.action(.x).finish()` waits for that work.
  @discardableResult
  public func action(_ action: R.Action) -> StoreTask {
    core.send(.action(action))
  }

  /// The current state.
  public var state: R.State { core.state }

  /// A value of the state: `store.count` reads `store.state.count`.
  public subscript<Value>(dynamicMember keyPath: KeyPath<R.State, Value>) -> Value {
    core.state[keyPath: keyPath]
  }

  /// Calls `onChange` with the state now and after every mutation (and action).
  public func subscribe(_ onChange: @escaping (R.State) -> Void) -> StoreSubscription {
    core.subscribe(onChange)
  }

  /// Calls `onChange` with the selected value now and whenever it changes.
  ///
  /// ```swift
  /// let subscription = store.subscribe(select: \.canSignUp) { print($0) }
  /// ```
  public func subscribe<Value: Equatable>(
    select: @escaping (R.State) -> Value,
    removeDuplicates: Bool = true,
    _ onChange: @escaping (Value) -> Void
  ) -> StoreSubscription {
    core.subscribe(select: select, removeDuplicates: removeDuplicates, onChange)
  }

  /// The current state, then the state after every mutation (and action).
  ///
  /// ```swift
  /// for await state in store.states { print(state.list) }
  /// ```
  public var states: AsyncStream<R.State> { core.states }
}

extension MutationStore: Observable {}
