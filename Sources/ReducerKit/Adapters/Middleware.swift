/// A marker for actions of a ``ReduxStore`` whose action type is `any ReduxAction` (ReSwift's
/// `Action` protocol). A store may use any `Sendable` action type instead, such as an enum.
///
/// ```swift
/// enum CounterAction: ReduxAction { case increase, decrease }
/// let store = ReduxStore<AppState, any ReduxAction, AppEnvironment>(
///   reducer: counterReducer, state: AppState(), environment: AppEnvironment())
/// ```
public protocol ReduxAction: Sendable {}

/// A ReSwift-style function reducer: mutates the state for an action, using dependencies from
/// the environment, and may return a task whose result is dispatched as the next action.
///
/// ```swift
/// func counterReducer(state: inout AppState, action: any ReduxAction, environment: AppEnvironment)
///   -> Task<any ReduxAction, Error>? {
///   guard let action = action as? CounterAction else { return nil }
///   switch action {
///   case .increase: state.counter += 1; return nil
///   case .increaseAsync: return Task { try await environment.delay(seconds: 1) }
///   }
/// }
/// ```
public typealias ReduxReducer<State, Action: Sendable, Environment> =
  (_ state: inout State, _ action: Action, _ environment: Environment) -> Task<Action, any Error>?

/// Dispatches an action into a ``ReduxStore`` (through its middleware).
public typealias DispatchFunction<Action> = @MainActor (_ action: Action) -> Void

/// ReSwift middleware: given the store's `dispatch` and `getState`, wraps the `next` dispatch
/// function. It can log, transform, drop (by not calling `next`) or delay actions.
///
/// ```swift
/// let logger: Middleware<AppState, any ReduxAction> = { dispatch, getState in
///   { next in
///     { action in
///       print("will dispatch", action)
///       next(action)
///       print("state now", getState()!)
///     }
///   }
/// }
/// ```
///
/// Middleware runs on the main actor, in the order given to the store: the first one sees an
/// action first. `dispatch` starts again at the first middleware; `next` continues the chain.
public typealias Middleware<State, Action> =
  @MainActor (
    _ dispatch: @escaping DispatchFunction<Action>,
    _ getState: @escaping @MainActor () -> State?
  ) -> @MainActor (_ next: @escaping DispatchFunction<Action>) -> DispatchFunction<Action>
