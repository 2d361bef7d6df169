/// A reducer written as an enum of features (`@Reducer enum Destination { case add(Add) }`):
/// its `State` and `Action` are enums with one case per feature, and its static ``body``
/// scopes each case to its feature. `@Reducer` writes all of it.
///
/// Composition operators take such a reducer from its state type, so no trailing closure is
/// needed: `.ifLet(\.$destination, action: \.destination)`.
public protocol CaseReducer<State, Action>: Reducer
where State: CaseReducerState, State.StateReducer == Self {
  /// The type of ``body``.
  associatedtype CaseBody: Reducer where CaseBody.State == State, CaseBody.Action == Action

  /// The reducer of every case (written by `@Reducer`).
  @ReducerBuilder<State, Action>
  static var body: CaseBody { get }
}

extension CaseReducer {
  /// Runs ``body`` (a case reducer holds no configuration of its own).
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    Self.body.reduce(into: &state, action: action)
  }
}

/// The `State` of a ``CaseReducer``, which names its reducer (written by `@Reducer`).
public protocol CaseReducerState {
  /// The enum reducer this is the state of.
  associatedtype StateReducer: CaseReducer where StateReducer.State == Self
}
