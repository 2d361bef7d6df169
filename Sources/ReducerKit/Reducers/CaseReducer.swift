/// A reducer written as an enum of features (`@Reducer enum Destination { case add(Add) }`):
/// its `State` and `Action` are enums with one case per feature, and its static ``body``
/// scopes each case to its feature. `@Reducer` writes all of it.
///
/// Composition operators take such a reducer from its state type, so no trailing closure is
/// needed: `.ifLet(\.$destination, action: \.destination)`.
public protocol CaseReducer<State, Action>: Reducer
where State: CaseReducerState, State.StateReducer == Self, Body: Reducer,
  Body.State == State, Body.Action == Action {
  /// The reducer of every case (written by `@Reducer`).
  @ReducerBuilder<State, Action>
  static var body: Body { get }
}

extension CaseReducer {
  /// ``body``: a case reducer holds no configuration of its own.
  public var body: Body { Self.body }
}

/// The `State` of a ``CaseReducer``, which names its reducer (written by `@Reducer`).
public protocol CaseReducerState {
  /// The enum reducer this is the state of.
  associatedtype StateReducer: CaseReducer where StateReducer.State == Self
}
