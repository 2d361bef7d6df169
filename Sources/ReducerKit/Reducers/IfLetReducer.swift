extension Reducer where Action: Sendable {
  /// Runs `wrapped` on optional child state while it is non-nil, before this reducer.
  ///
  /// ```swift
  /// Reduce { state, action in … }
  ///   .ifLet(\.detail, action: \.detail) { Detail() }
  /// ```
  ///
  /// Child actions that arrive while the child state is nil are ignored.
  @inlinable
  public func ifLet<WrappedState, WrappedAction, Wrapped: Reducer>(
    _ toWrappedState: WritableKeyPath<State, WrappedState?>,
    action toWrappedAction: WritableKeyPath<Action, WrappedAction?> & Sendable,
    @ReducerBuilder<WrappedState, WrappedAction> then wrapped: () -> Wrapped
  ) -> _IfLetReducer<Self, Wrapped>
  where Wrapped.State == WrappedState, Wrapped.Action == WrappedAction {
    _IfLetReducer(
      parent: self, child: wrapped(), toChildState: toWrappedState,
      toChildAction: _ActionPath(toWrappedAction))
  }

  /// Runs `wrapped` on optional child state while it is non-nil (case-path form).
  @inlinable
  public func ifLet<WrappedState, WrappedAction, Wrapped: Reducer>(
    _ toWrappedState: WritableKeyPath<State, WrappedState?>,
    action toWrappedAction: AnyCasePath<Action, WrappedAction>,
    @ReducerBuilder<WrappedState, WrappedAction> then wrapped: () -> Wrapped
  ) -> _IfLetReducer<Self, Wrapped>
  where Wrapped.State == WrappedState, Wrapped.Action == WrappedAction {
    _IfLetReducer(
      parent: self, child: wrapped(), toChildState: toWrappedState,
      toChildAction: _ActionPath(toWrappedAction))
  }

  /// Runs `wrapped` while the state (an enum) is the given case, before this reducer.
  ///
  /// ```swift
  /// Reduce { state, action in … }
  ///   .ifCaseLet(State.loggedInPath, action: \.loggedIn) { LoggedIn() }
  /// ```
  @inlinable
  public func ifCaseLet<CaseState, CaseAction, Case: Reducer>(
    _ toCaseState: AnyCasePath<State, CaseState>,
    action toCaseAction: AnyCasePath<Action, CaseAction>,
    @ReducerBuilder<CaseState, CaseAction> then caseReducer: () -> Case
  ) -> _IfCaseLetReducer<Self, Case>
  where Case.State == CaseState, Case.Action == CaseAction {
    _IfCaseLetReducer(
      parent: self, child: caseReducer(), toChildState: toCaseState,
      toChildAction: _ActionPath(toCaseAction))
  }

  /// Runs `wrapped` while the state (an enum) is the given case (key-path action form).
  @inlinable
  public func ifCaseLet<CaseState, CaseAction, Case: Reducer>(
    _ toCaseState: AnyCasePath<State, CaseState>,
    action toCaseAction: WritableKeyPath<Action, CaseAction?> & Sendable,
    @ReducerBuilder<CaseState, CaseAction> then caseReducer: () -> Case
  ) -> _IfCaseLetReducer<Self, Case>
  where Case.State == CaseState, Case.Action == CaseAction {
    _IfCaseLetReducer(
      parent: self, child: caseReducer(), toChildState: toCaseState,
      toChildAction: _ActionPath(toCaseAction))
  }
}

/// The reducer `ifLet` returns.
public struct _IfLetReducer<Parent: Reducer, Child: Reducer>: Reducer
where Parent.Action: Sendable {
  @usableFromInline let parent: Parent
  @usableFromInline let child: Child
  @usableFromInline let toChildState: WritableKeyPath<Parent.State, Child.State?>
  @usableFromInline let toChildAction: _ActionPath<Parent.Action, Child.Action>

  @inlinable
  init(
    parent: Parent, child: Child, toChildState: WritableKeyPath<Parent.State, Child.State?>,
    toChildAction: _ActionPath<Parent.Action, Child.Action>
  ) {
    self.parent = parent
    self.child = child
    self.toChildState = toChildState
    self.toChildAction = toChildAction
  }

  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    var childEffect = Effect<Parent.Action>.none
    if let childAction = toChildAction.extract(action), state[keyPath: toChildState] != nil {
      let effect = _reduceWrapped(&state[keyPath: toChildState], childAction)
      if !effect.isNone {
        let embed = toChildAction.embed
        childEffect = effect.map { embed($0, action) }
      }
    }
    let parentEffect = parent.reduce(into: &state, action: action)
    if childEffect.isNone { return parentEffect }
    return parentEffect.isNone ? childEffect : .merge(childEffect, parentEffect)
  }

  /// Reduces the wrapped value in place (no copy of the child state).
  @inlinable
  func _reduceWrapped(_ state: inout Child.State?, _ action: Child.Action) -> Effect<Child.Action> {
    switch state {
    case .none:
      return .none
    case .some:
      return child.reduce(into: &state!, action: action)
    }
  }
}

/// The reducer `ifCaseLet` returns.
public struct _IfCaseLetReducer<Parent: Reducer, Child: Reducer>: Reducer
where Parent.Action: Sendable {
  @usableFromInline let parent: Parent
  @usableFromInline let child: Child
  @usableFromInline let toChildState: AnyCasePath<Parent.State, Child.State>
  @usableFromInline let toChildAction: _ActionPath<Parent.Action, Child.Action>

  @inlinable
  init(
    parent: Parent, child: Child, toChildState: AnyCasePath<Parent.State, Child.State>,
    toChildAction: _ActionPath<Parent.Action, Child.Action>
  ) {
    self.parent = parent
    self.child = child
    self.toChildState = toChildState
    self.toChildAction = toChildAction
  }

  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    var childEffect = Effect<Parent.Action>.none
    if let childAction = toChildAction.extract(action), var childState = toChildState.extract(from: state) {
      let effect = child.reduce(into: &childState, action: childAction)
      state = toChildState.embed(childState)
      if !effect.isNone {
        let embed = toChildAction.embed
        childEffect = effect.map { embed($0, action) }
      }
    }
    let parentEffect = parent.reduce(into: &state, action: action)
    if childEffect.isNone { return parentEffect }
    return parentEffect.isNone ? childEffect : .merge(childEffect, parentEffect)
  }
}
