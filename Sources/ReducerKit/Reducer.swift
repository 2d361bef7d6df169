import ReducerKitPlatform
/// Describes how a feature's state changes in response to actions, and which effects run.
///
/// Implement either ``reduce(into:action:)`` (the plain style) or ``body`` (TCA style):
///
/// ```swift
/// struct Counter: Reducer {
///   struct State: Equatable { var count = 0 }
///   enum Action { case increment }
///   var body: some ReducerOf<Self> {
///     Reduce { state, action in
///       state.count += 1
///       return .none
///     }
///   }
/// }
/// ```
public protocol Reducer<State, Action> {
  /// The feature's state.
  associatedtype State
  /// The feature's actions.
  associatedtype Action
  /// The type of ``body``; `Never` for reducers that implement ``reduce(into:action:)``.
  associatedtype Body

  /// Mutates `state` in place for `action` and returns the effect to run next.
  func reduce(into state: inout State, action: Action) -> Effect<Action>

  /// The reducer's logic, composed from other reducers.
  @ReducerBuilder<State, Action>
  var body: Body { get }

  /// The function a store calls for each action: ``reduce(into:action:)``, with a `body` built
  /// once instead of once per action. Not API: provided for every reducer.
  func _reduceFunction() -> (inout State, Action) -> Effect<Action>
}

extension Reducer {
  @inlinable
  public func _reduceFunction() -> (inout State, Action) -> Effect<Action> {
    { self.reduce(into: &$0, action: $1) }
  }
}

extension Reducer where Body: Reducer, Body.State == State, Body.Action == Action {
  /// Builds `body` once (a body cannot see state and reads dependencies when it runs).
  @inlinable
  public func _reduceFunction() -> (inout State, Action) -> Effect<Action> {
    body._reduceFunction()
  }
}

extension Reducer where Body == Never {
  /// A reducer that implements ``reduce(into:action:)`` has no body. Never called by ReducerKit.
  public var body: Body {
    fatalError(
      "'\(Self.self)' has no body: it implements 'reduce(into:action:)'; call that instead.")
  }
}

extension Reducer where Body: Reducer, Body.State == State, Body.Action == Action {
  /// Runs ``body``.
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    body.reduce(into: &state, action: action)
  }
}

/// A reducer with the same state and action types as `R`: `some ReducerOf<Self>`.
public typealias ReducerOf<R: Reducer> = Reducer<R.State, R.Action>

/// A reducer built from a closure.
///
/// ```swift
/// Reduce { state, action in
///   switch action {
///   case .increment: state.count += 1; return .none
///   }
/// }
/// ```
public struct Reduce<State, Action>: Reducer {
  @usableFromInline let reduce: (inout State, Action) -> Effect<Action>

  /// A reducer that runs `reduce`.
  @inlinable
  public init(_ reduce: @escaping (_ state: inout State, _ action: Action) -> Effect<Action>) {
    self.reduce = reduce
  }

  /// Erases `reducer` to a `Reduce`.
  @inlinable
  public init<R: Reducer>(_ reducer: R) where R.State == State, R.Action == Action {
    self.reduce = { reducer.reduce(into: &$0, action: $1) }
  }

  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    reduce(&state, action)
  }
}

/// A reducer that does nothing.
public struct EmptyReducer<State, Action>: Reducer {
  @inlinable public init() {}
  @inlinable public func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
}

/// Runs several reducers in order, on the same state and action; merges their effects.
///
/// ```swift
/// CombineReducers {
///   Scope(state: \.counter, action: \.counter) { Counter() }
///   Reduce { state, action in … }
/// }
/// ```
public struct CombineReducers<State, Action, Reducers: Reducer>: Reducer
where Reducers.State == State, Reducers.Action == Action {
  @usableFromInline let reducers: Reducers

  @inlinable
  public init(@ReducerBuilder<State, Action> _ build: () -> Reducers) {
    self.reducers = build()
  }

  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    reducers.reduce(into: &state, action: action)
  }
}

/// Builds reducers from a list of reducer expressions, as `body` and `CombineReducers` do.
@resultBuilder
public enum ReducerBuilder<State, Action> {
  @inlinable
  public static func buildExpression<R: Reducer>(_ expression: R) -> R
  where R.State == State, R.Action == Action { expression }

  @inlinable
  public static func buildBlock() -> EmptyReducer<State, Action> { EmptyReducer() }

  @inlinable
  public static func buildPartialBlock<R: Reducer>(first: R) -> R
  where R.State == State, R.Action == Action { first }

  @inlinable
  public static func buildPartialBlock<R0: Reducer, R1: Reducer>(
    accumulated: R0, next: R1
  ) -> _Sequence<R0, R1> { _Sequence(accumulated, next) }

  @inlinable
  public static func buildOptional<R: Reducer>(_ wrapped: R?) -> _Optional<R>
  where R.State == State, R.Action == Action { _Optional(wrapped) }

  @inlinable
  public static func buildEither<R0: Reducer, R1: Reducer>(first: R0) -> _Conditional<R0, R1>
  where R0.State == State, R0.Action == Action { .first(first) }

  @inlinable
  public static func buildEither<R0: Reducer, R1: Reducer>(second: R1) -> _Conditional<R0, R1>
  where R1.State == State, R1.Action == Action { .second(second) }

  @inlinable
  public static func buildArray<R: Reducer>(_ reducers: [R]) -> _SequenceMany<R>
  where R.State == State, R.Action == Action { _SequenceMany(reducers) }

  @inlinable
  public static func buildLimitedAvailability<R: Reducer>(_ wrapped: R) -> Reduce<State, Action>
  where R.State == State, R.Action == Action { Reduce(wrapped) }

  @inlinable
  public static func buildFinalResult<R: Reducer>(_ reducer: R) -> R
  where R.State == State, R.Action == Action { reducer }

  /// Two reducers run one after the other.
  public struct _Sequence<R0: Reducer, R1: Reducer>: Reducer
  where R0.State == R1.State, R0.Action == R1.Action {
    @usableFromInline let r0: R0
    @usableFromInline let r1: R1
    @inlinable init(_ r0: R0, _ r1: R1) {
      self.r0 = r0
      self.r1 = r1
    }
    @inlinable
    public func reduce(into state: inout R0.State, action: R0.Action) -> Effect<R0.Action> {
      let first = r0.reduce(into: &state, action: action)
      let second = r1.reduce(into: &state, action: action)
      if first.isNone { return second }
      if second.isNone { return first }
      return .merge(first, second)
    }
  }

  /// Reducers from a `for` loop.
  public struct _SequenceMany<R: Reducer>: Reducer {
    @usableFromInline let reducers: [R]
    @inlinable init(_ reducers: [R]) { self.reducers = reducers }
    @inlinable
    public func reduce(into state: inout R.State, action: R.Action) -> Effect<R.Action> {
      .merge(reducers.map { $0.reduce(into: &state, action: action) })
    }
  }

  /// A reducer from an `if` without `else`.
  public struct _Optional<R: Reducer>: Reducer {
    @usableFromInline let wrapped: R?
    @inlinable init(_ wrapped: R?) { self.wrapped = wrapped }
    @inlinable
    public func reduce(into state: inout R.State, action: R.Action) -> Effect<R.Action> {
      wrapped?.reduce(into: &state, action: action) ?? .none
    }
  }

  /// A reducer from an `if`/`else` or `switch`.
  public enum _Conditional<R0: Reducer, R1: Reducer>: Reducer
  where R0.State == R1.State, R0.Action == R1.Action {
    case first(R0)
    case second(R1)
    @inlinable
    public func reduce(into state: inout R0.State, action: R0.Action) -> Effect<R0.Action> {
      switch self {
      case let .first(r): return r.reduce(into: &state, action: action)
      case let .second(r): return r.reduce(into: &state, action: action)
      }
    }
  }
}
