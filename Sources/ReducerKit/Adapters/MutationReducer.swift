/// A mutation-style reducer (ReactorKit lineage): actions run asynchronous work that emits
/// mutations, and a pure function folds each mutation into the state.
///
/// ```swift
/// final class CounterReduce: MutationReducer {
///   enum Action: Sendable { case increase }
///   enum Mutation: Sendable { case setCount(Int) }
///   struct State: Sendable, Equatable { var count = 0 }
///
///   let initialState = State()
///
///   func mutate(action: Action) async throws {
///     switch action {
///     case .increase: mutate(.setCount(currentState.count + 1))
///     }
///   }
///
///   func reduce(state: State, mutation: Mutation) -> State {
///     var state = state
///     switch mutation {
///     case let .setCount(count): state.count = count
///     }
///     return state
///   }
/// }
///
/// let store = MutationStore(CounterReduce())
/// store.action(.increase)
/// ```
///
/// This is an adapter over the core: ``MutationStore`` runs it in a core ``Store`` through
/// ``MutationAdapter``. Each `mutate(action:)` is an ``Effect/run(priority:operation:catch:fileID:filePath:line:column:)``
/// effect of that store, cancelled through the core's cancellation when ``shouldCancel(_:_:)``
/// says so; each mutation is an action the core reduces with ``reduce(state:mutation:)``.
///
/// `reduce(state:mutation:)`, `shouldCancel(_:_:)` and `initialState` are called synchronously
/// by the store on whichever thread reduces; a `@MainActor` class marks them `nonisolated`
/// (`mutate(action:)` and `start()` may stay main-actor isolated).
public protocol MutationReducer<Action, Mutation, State>: Sendable {
  /// User input.
  associatedtype Action: Sendable
  /// A unit of state change.
  associatedtype Mutation: Sendable
  /// The state.
  associatedtype State: Sendable

  /// The state a store starts from.
  var initialState: State { get }

  /// The work to do for `action`. Call ``mutate(_:)`` to change the state; read
  /// ``currentState`` for the state as it is now. Errors are reported by the store (its
  /// ``DependencyValues/reportEffectError`` dependency), never swallowed.
  func mutate(action: Action) async throws

  /// The state after `mutation`. Must be pure.
  func reduce(state: State, mutation: Mutation) -> State

  /// Whether a running `mutate(action: current)` must be cancelled because `upcoming` arrived.
  /// Default: `false`. Cancellation is cooperative: it reaches `Task.checkCancellation()`,
  /// cancellable awaits (clock sleeps), and drops mutations emitted afterwards.
  func shouldCancel(_ current: Action, _ upcoming: Action) -> Bool

  /// Runs once when the store starts, and may mutate without an action (for example, for
  /// every element of a stream). Cancelled when the store goes away. Default: does nothing.
  func start() async throws
}

extension MutationReducer {
  public func shouldCancel(_ current: Action, _ upcoming: Action) -> Bool { false }

  public func start() async throws {}

  /// The mutator of the store running the current `mutate(action:)` or `start()`, if any.
  ///
  /// Capture it to mutate from a callback that runs outside those calls:
  ///
  /// ```swift
  /// func start() async throws {
  ///   guard let mutate = mutator else { return }
  ///   notifier.observe { items in mutate(.setList(items)) }
  /// }
  /// ```
  public var mutator: Mutator<Mutation, State>? {
    _MutatorContext.current as? Mutator<Mutation, State>
  }

  /// Sends `mutation` to the store running the current `mutate(action:)` or `start()`.
  /// Dropped once that call was cancelled.
  ///
  /// The mutation is reduced before this returns, except in the synchronous start of the work
  /// (before its first suspension), which the store runs while it is still reducing the action:
  /// there it is reduced right after that action, before `action(_:)` returns.
  ///
  /// ```swift
  /// mutate(.setCount(currentState.count + 1))
  /// ```
  public func mutate(_ mutation: Mutation) {
    guard let mutator else {
      _writeToStandardError(
        "ReducerKit: \(Self.self).mutate(_:) was called outside mutate(action:) and start(); "
          + "the mutation \(mutation) was dropped. Capture 'mutator' to mutate from a callback.")
      return
    }
    mutator(mutation)
  }

  /// The store's current state, inside `mutate(action:)` and `start()`; ``initialState``
  /// elsewhere.
  public var currentState: State { mutator?.state ?? initialState }
}

/// Sends mutations into the store that runs a mutation reducer, and reads its state.
///
/// ```swift
/// MutationProxy<CounterReduce>(initialState: .init(), start: { mutate in
///   mutate(.setCount(100))
/// })
/// ```
public struct Mutator<Mutation: Sendable, State: Sendable>: Sendable {
  @usableFromInline let _mutate: @Sendable (Mutation) -> Void
  @usableFromInline let _state: @Sendable () -> State

  /// A mutator that calls `mutate` for each mutation and `state` to read the state.
  public init(
    mutate: @escaping @Sendable (Mutation) -> Void,
    state: @escaping @Sendable () -> State
  ) {
    _mutate = mutate
    _state = state
  }

  /// Sends `mutation` to the store (see ``MutationReducer/mutate(_:)`` for when it is reduced).
  @inlinable public func callAsFunction(_ mutation: Mutation) { _mutate(mutation) }

  /// The store's current state.
  @inlinable public var state: State { _state() }
}

/// Where ``MutationReducer/mutate(_:)`` finds its store: bound for the duration of each
/// `mutate(action:)` and `start()` call (and inherited by tasks they create).
enum _MutatorContext {
  @TaskLocal static var current: (any Sendable)?
  /// The bookkeeping of the adapter whose work is sending a mutation right now (bound only
  /// around that synchronous send).
  @TaskLocal static var sender: (any AnyObject & Sendable)?
}
