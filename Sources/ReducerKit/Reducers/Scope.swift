/// Runs a child reducer on a part of the parent's state, for the parent's actions that carry a
/// child action.
///
/// ```swift
/// var body: some ReducerOf<Self> {
///   Scope(state: \.counter, action: \.counter) { Counter() }
///   Reduce { state, action in … }
/// }
/// ```
public struct Scope<ParentState, ParentAction: Sendable, Child: Reducer>: Reducer
where Child.Action: Sendable {
  @usableFromInline
  enum StatePath {
    case keyPath(WritableKeyPath<ParentState, Child.State>)
    case casePath(AnyCasePath<ParentState, Child.State>)
  }

  @usableFromInline let toChildState: StatePath
  @usableFromInline let toChildAction: _ActionPath<ParentAction, Child.Action>
  @usableFromInline let child: Child

  /// The one initializer the public ones call.
  @inlinable
  init(_ toChildState: StatePath, _ toChildAction: _ActionPath<ParentAction, Child.Action>, _ child: Child) {
    self.toChildState = toChildState
    self.toChildAction = toChildAction
    self.child = child
  }

  /// Scopes to a stored child state and a child action case (as a case path).
  @inlinable
  public init<ChildState, ChildAction>(
    state toChildState: WritableKeyPath<ParentState, ChildState>,
    action toChildAction: AnyCasePath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(.keyPath(toChildState), _ActionPath(toChildAction), child())
  }

  /// Scopes to a stored child state and a child action (as a key path to an optional
  /// computed property of the action enum; see ``AnyCasePath``).
  @inlinable
  public init<ChildState, ChildAction>(
    state toChildState: WritableKeyPath<ParentState, ChildState>,
    action toChildAction: WritableKeyPath<ParentAction, ChildAction?> & Sendable,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(.keyPath(toChildState), _ActionPath(toChildAction), child())
  }

  /// Scopes to one case of an enum state. The child runs only while the state is that case;
  /// a child action that arrives while the state is another case is ignored and reported as
  /// a runtime issue (a test fails), as with `ifCaseLet`.
  @inlinable
  public init<ChildState, ChildAction>(
    state toChildState: AnyCasePath<ParentState, ChildState>,
    action toChildAction: AnyCasePath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(.casePath(toChildState), _ActionPath(toChildAction), child())
  }

  /// Scopes to one case of an enum state, with a key-path child action.
  @inlinable
  public init<ChildState, ChildAction>(
    state toChildState: AnyCasePath<ParentState, ChildState>,
    action toChildAction: WritableKeyPath<ParentAction, ChildAction?> & Sendable,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(.casePath(toChildState), _ActionPath(toChildAction), child())
  }

  /// Scopes to a stored child state and a child action case, by case key path (TCA's
  /// spelling: `Scope(state: \.child, action: \.child) { Child() }`).
  @inlinable
  public init<ChildState, ChildAction>(
    state toChildState: WritableKeyPath<ParentState, ChildState>,
    action toChildAction: CaseKeyPath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(.keyPath(toChildState), _ActionPath(toChildAction), child())
  }

  /// Scopes to a stored child state and a child action case, by case key path, in TCA's newest
  /// spelling (`Scope(\.child, action: \.child) { Child() }`); the same as
  /// `Scope(state: \.child, action: \.child)`.
  @inlinable
  public init<ChildState, ChildAction>(
    _ toChildState: WritableKeyPath<ParentState, ChildState>,
    action toChildAction: CaseKeyPath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> _ child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(.keyPath(toChildState), _ActionPath(toChildAction), child())
  }

  /// Scopes to one case of an enum state, by case key paths, in TCA's newest spelling
  /// (`Scope(\.loggedIn, action: \.loggedIn) { LoggedIn() }`).
  @inlinable
  public init<ChildState, ChildAction>(
    _ toChildState: CaseKeyPath<ParentState, ChildState>,
    action toChildAction: CaseKeyPath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> _ child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(.casePath(AnyCasePath(toChildState)), _ActionPath(toChildAction), child())
  }

  /// Scopes to one case of an enum state, by case key paths:
  /// `Scope(state: \.loggedIn, action: \.loggedIn) { LoggedIn() }`. As with the case-path
  /// form, a child action while the state is another case is reported.
  @inlinable
  public init<ChildState, ChildAction>(
    state toChildState: CaseKeyPath<ParentState, ChildState>,
    action toChildAction: CaseKeyPath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(.casePath(AnyCasePath(toChildState)), _ActionPath(toChildAction), child())
  }

  @inlinable
  public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
    guard let childAction = toChildAction.extract(action) else { return .none }
    let effect: Effect<Child.Action>
    switch toChildState {
    case let .keyPath(keyPath):
      effect = child.reduce(into: &state[keyPath: keyPath], action: childAction)
    case let .casePath(casePath):
      guard var childState = casePath.extract(from: state) else {
        // As TCA does: a child action while the state is another case is reported (an effect
        // of the child outlived its case, or the host sent an action for a screen not shown).
        _ChildScopes.reportMissingChild(
          operator: "Scope", parent: ParentState.self, action: action,
          detail: "the state was another case than the one holding \(Child.State.self)")
        return .none
      }
      effect = child.reduce(into: &childState, action: childAction)
      state = casePath.embed(childState)
    }
    if effect.isNone { return .none }
    let embed = toChildAction.embed
    return effect.map { embed($0, action) }
  }
}
