import ReducerKitPlatform
/// A ReSwift-style function reducer and its environment as a core ``Reducer``: what
/// ``ReduxStore`` runs, and what you put in a ``Store``, a `TestStore` or a ``Scope``.
///
/// ```swift
/// let store = TestStore(initialState: AppState()) {
///   FunctionReducer(appReducer, environment: AppEnvironment(userService: .mock))
/// }
/// await store.send(.fetchUsers) { $0.isLoading = true }
/// await store.receive(.setUsers([.blob])) { $0.users = [.blob]; $0.isLoading = false }
/// ```
///
/// A returned task becomes an `Effect.run` of the core store: it is tracked (``Store/effectCount``),
/// awaited, and its action is dispatched (through the ``ReduxStore``'s middleware, or sent to
/// the core store when used directly). Cancelling the effect (the store going away) cancels the
/// task. An error the task throws goes to the core's error reporting (the
/// ``DependencyValues/reportEffectError`` dependency): it is never lost.
public struct FunctionReducer<State, Action: Sendable, Environment>: Reducer {
  let reducer: ReduxReducer<State, Action, Environment>
  let environment: Environment
  let dispatcher = _ReduxDispatcher<Action>()
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  /// A core reducer that runs `reducer` with `environment`.
  public init(
    _ reducer: @escaping ReduxReducer<State, Action, Environment>,
    environment: Environment,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    self.reducer = reducer
    self.environment = environment
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    guard let task = reducer(&state, action, environment) else { return .none }
    let dispatcher = self.dispatcher
    return .run(
      operation: { send in
        let next = try await withTaskCancellationHandler {
          try await task.value
        } onCancel: {
          task.cancel()
        }
        guard !Task.isCancelled else { return }
        if let dispatch = dispatcher.dispatch {
          await dispatch(next)
        } else {
          await send(next)
        }
      },
      fileID: fileID, filePath: filePath, line: line, column: column
    )
  }
}

/// Where a ``FunctionReducer``'s task results go: the owning ``ReduxStore``'s `dispatch`
/// (set once, when the store is created), else the effect's `send`.
final class _ReduxDispatcher<Action: Sendable>: Sendable {
  private let target = LockedValue<(@MainActor @Sendable (Action) -> Void)?>(nil)
  var dispatch: (@MainActor @Sendable (Action) -> Void)? { target.withLock { $0 } }
  func set(_ dispatch: @escaping @MainActor @Sendable (Action) -> Void) {
    target.withLock { $0 = dispatch }
  }
}
