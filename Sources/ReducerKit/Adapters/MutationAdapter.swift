import Synchronization
import ReducerKitPlatform

/// A mutation reducer as a core ``Reducer``: what ``MutationStore`` runs, and what you put in a
/// ``Store``, a `TestStore` or a ``Scope`` to use a mutation-style feature with the core.
///
/// ```swift
/// let store = TestStore(initialState: CounterReduce.State()) {
///   MutationAdapter(CounterReduce())
/// }
/// await store.send(.action(.increase))
/// await store.receive(.mutation(.setCount(1))) { $0.count = 1 }
/// ```
///
/// How it maps onto the core:
/// - ``Action/action(_:)`` starts `mutate(action:)` as an `Effect.run`, made
///   `.cancellable(id:)` with an id of its own; the running actions for which
///   `shouldCancel(running, upcoming)` is true are cancelled first with `Effect.cancel(ids:)`.
/// - ``Action/mutation(_:)`` is what `mutate(_:)` sends back: the state becomes
///   `reduce(state:mutation:)`. No task.
/// - ``Action/start`` runs `start()` as a cancellable `Effect.run` (a second `.start` restarts it).
///
/// The adapter keeps the running actions (for `shouldCancel`) and the latest state (for
/// `currentState`), so one adapter value must drive one state for the store's lifetime. The
/// builder closures of `Store` and `TestStore` run once; inside a `body`, keep it in a stored
/// property rather than creating it inline (a `body` is evaluated for every action):
///
/// ```swift
/// struct App: Reducer {
///   let counter = MutationAdapter(CounterReduce())
///   var body: some ReducerOf<Self> {
///     Scope(state: \.counter, action: \.counter) { counter }
///   }
/// }
/// ```
public struct MutationAdapter<R: MutationReducer>: Reducer, Sendable {
  public typealias State = R.State

  /// The core actions of a mutation-style feature.
  public enum Action: Sendable {
    /// A user action: runs `mutate(action:)`.
    case action(R.Action)
    /// A mutation: reduced with `reduce(state:mutation:)`.
    case mutation(R.Mutation)
    /// Runs `start()` (``MutationStore`` sends it once when created).
    case start
  }

  @usableFromInline let proxy: MutationProxy<R>
  @usableFromInline let book: _MutationBook<R>
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  /// The adapter for `reducer`.
  public init(
    _ reducer: R,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    self.init(proxy: MutationProxy(reducer), fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// The adapter for the closures of `proxy` (tests, previews).
  public init(
    proxy: MutationProxy<R>,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    self.proxy = proxy
    self.book = _MutationBook(latest: proxy.initialState)
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }

  /// The state the feature starts from.
  public var initialState: R.State { proxy.initialState }

  public func reduce(into state: inout R.State, action: Action) -> Effect<Action> {
    switch action {
    case let .mutation(mutation):
      state = proxy._reduce(state, mutation)
      book.setLatest(state)
      if let sender = _MutatorContext.sender as? _MutationBook<R>, sender !== book {
        // Sent by the work of another adapter value: this one was re-created (inline in a
        // `body`). Keep the sender's `currentState` right, and say how to fix it.
        sender.setLatest(state)
        _warnRecreatedAdapter(R.self)
      }
      return .none

    case let .action(action):
      book.setLatest(state)
      let running = book.running()
      let shouldCancel = proxy._shouldCancel
      let cancelled = running.filter { shouldCancel($0.action, action) }.map(\.id)
      let id = book.begin(action)
      let book = self.book
      let mutate = proxy._mutate
      let snapshot = state
      let run = Effect<Action>.run(
        operation: { send in
          defer { book.end(id) }
          let mutator = book.mutator(send)
          try await _MutatorContext.$current.withValue(mutator) {
            try await mutate(snapshot, action, mutator)
          }
        },
        fileID: fileID, filePath: filePath, line: line, column: column
      )
      .cancellable(id: _MutateID(book: ObjectIdentifier(book), id: id))
      guard !cancelled.isEmpty else { return run }
      return .merge(
        .cancel(ids: cancelled.map { _MutateID(book: ObjectIdentifier(book), id: $0) }),
        run
      )

    case .start:
      book.setLatest(state)
      let book = self.book
      let start = proxy._start
      return Effect<Action>.run(
        operation: { send in
          let mutator = book.mutator(send)
          try await _MutatorContext.$current.withValue(mutator) { try await start(mutator) }
        },
        fileID: fileID, filePath: filePath, line: line, column: column
      )
      .cancellable(id: _StartID(book: ObjectIdentifier(book)), cancelInFlight: true)
    }
  }
}

extension MutationAdapter.Action: Equatable where R.Action: Equatable, R.Mutation: Equatable {}

/// A mutation reducer made of closures, standing in for `R` in tests and previews
/// (the Reducer library's `ProxyReduce`). Omitted closures do nothing (`reduce` keeps the state,
/// `shouldCancel` is false).
///
/// ```swift
/// let preview = MutationStore<CounterReduce>(proxy: .init(initialState: .init(count: 100)))
/// let scripted = MutationStore<CounterReduce>(proxy: .init(
///   initialState: .init(count: 0),
///   mutate: { state, action, mutate in mutate(.setCount(state.count + 10)) },
///   reduce: { state, mutation in
///     guard case let .setCount(count) = mutation else { return state }
///     return .init(count: count)
///   }
/// ))
/// ```
public struct MutationProxy<R: MutationReducer>: Sendable {
  public typealias Mutate = Mutator<R.Mutation, R.State>

  /// The state the store starts from.
  public var initialState: R.State
  @usableFromInline let _start: @Sendable (Mutate) async throws -> Void
  @usableFromInline let _mutate: @Sendable (R.State, R.Action, Mutate) async throws -> Void
  @usableFromInline let _reduce: @Sendable (R.State, R.Mutation) -> R.State
  @usableFromInline let _shouldCancel: @Sendable (R.Action, R.Action) -> Bool

  /// A proxy from closures.
  ///
  /// - Parameters:
  ///   - initialState: The state the store starts from.
  ///   - start: Runs once when the store starts; `mutate` sends mutations.
  ///   - mutate: The work for an action, given the state when the action arrived.
  ///   - reduce: The state after a mutation. Default: unchanged.
  ///   - shouldCancel: Whether a running action's work is cancelled by an upcoming one.
  public init(
    initialState: R.State,
    start: (@Sendable (_ mutate: Mutate) async throws -> Void)? = nil,
    mutate: (@Sendable (_ state: R.State, _ action: R.Action, _ mutate: Mutate) async throws -> Void)? = nil,
    reduce: (@Sendable (_ state: R.State, _ mutation: R.Mutation) -> R.State)? = nil,
    shouldCancel: (@Sendable (_ current: R.Action, _ upcoming: R.Action) -> Bool)? = nil
  ) {
    self.initialState = initialState
    _start = start ?? { _ in }
    _mutate = mutate ?? { _, _, _ in }
    _reduce = reduce ?? { state, _ in state }
    _shouldCancel = shouldCancel ?? { _, _ in false }
  }

  /// A proxy that forwards everything to `reducer`; change ``initialState`` as needed.
  public init(_ reducer: R) {
    initialState = reducer.initialState
    _start = { _ in try await reducer.start() }
    _mutate = { _, action, _ in try await reducer.mutate(action: action) }
    _reduce = { reducer.reduce(state: $0, mutation: $1) }
    _shouldCancel = { reducer.shouldCancel($0, $1) }
  }
}

// MARK: - Internals

/// Per-adapter bookkeeping: the running `mutate(action:)` calls (for `shouldCancel`) and the
/// latest reduced state (for `currentState`).
@usableFromInline
final class _MutationBook<R: MutationReducer>: Sendable {
  private struct Book {
    var latest: R.State
    var nextID: UInt64 = 0
    var running: [(id: UInt64, action: R.Action)] = []
  }
  private let book: LockedValue<Book>

  init(latest: R.State) { book = LockedValue(Book(latest: latest)) }

  func setLatest(_ state: R.State) { book.withLock { $0.latest = state } }
  var latest: R.State { book.withLock { $0.latest } }

  func running() -> [(id: UInt64, action: R.Action)] { book.withLock { $0.running } }

  func begin(_ action: R.Action) -> UInt64 {
    book.withLock { book in
      book.nextID += 1
      book.running.append((book.nextID, action))
      return book.nextID
    }
  }

  func end(_ id: UInt64) {
    book.withLock { book in book.running.removeAll { $0.id == id } }
  }

  /// A mutator that sends through the effect's `send`, and reads the latest state.
  func mutator(_ send: Send<MutationAdapter<R>.Action>) -> Mutator<R.Mutation, R.State> {
    Mutator(
      mutate: { [self] mutation in
        guard !Task.isCancelled else { return }
        _MutatorContext.$sender.withValue(self) { send.send(.mutation(mutation)) }
      },
      state: { [self] in latest }
    )
  }
}

private let _didWarnRecreatedAdapter = Atomic<Bool>(false)

private func _warnRecreatedAdapter<R>(_: R.Type) {
  guard !_didWarnRecreatedAdapter.exchange(true, ordering: .relaxed) else { return }
  _writeToStandardError(
    "ReducerKit: MutationAdapter<\(R.self)> was re-created while its work ran, so shouldCancel "
      + "and currentState cannot see that work. Create the adapter once (a stored property), "
      + "not inline in a reducer's body.")
}

struct _MutateID: Hashable, Sendable {
  let book: ObjectIdentifier
  let id: UInt64
}

struct _StartID: Hashable, Sendable {
  let book: ObjectIdentifier
}
