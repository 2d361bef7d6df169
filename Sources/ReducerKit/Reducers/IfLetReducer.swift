extension Reducer where Action: Sendable {
  /// Runs `wrapped` on optional child state while it is non-nil, before this reducer.
  ///
  /// ```swift
  /// Reduce { state, action in … }
  ///   .ifLet(\.detail, action: \.detail) { Detail() }
  /// ```
  ///
  /// While the child state is nil its actions are ignored and reported as a runtime issue
  /// (which fails a test). When the child state becomes nil, or is replaced by a child with
  /// another `id`, every effect the child started is cancelled; cancel ids declared in the
  /// child reach only the child's effects.
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

extension Reducer where Action: Sendable {
  /// Runs `wrapped` on optional child state while it is non-nil, by case key path (TCA's
  /// spelling: `.ifLet(\.child, action: \.child) { Child() }`).
  @inlinable
  public func ifLet<WrappedState, WrappedAction, Wrapped: Reducer>(
    _ toWrappedState: WritableKeyPath<State, WrappedState?>,
    action toWrappedAction: CaseKeyPath<Action, WrappedAction>,
    @ReducerBuilder<WrappedState, WrappedAction> then wrapped: () -> Wrapped
  ) -> _IfLetReducer<Self, Wrapped>
  where Wrapped.State == WrappedState, Wrapped.Action == WrappedAction {
    _IfLetReducer(
      parent: self, child: wrapped(), toChildState: toWrappedState,
      toChildAction: _ActionPath(toWrappedAction))
  }

  /// `ifLet` for optional state of a `@Reducer enum`: the reducer comes from the state's type.
  @inlinable
  public func ifLet<WrappedState: CaseReducerState, WrappedAction>(
    _ toWrappedState: WritableKeyPath<State, WrappedState?>,
    action toWrappedAction: CaseKeyPath<Action, WrappedAction>
  ) -> _IfLetReducer<Self, WrappedState.StateReducer.Body>
  where WrappedState.StateReducer.Action == WrappedAction {
    ifLet(toWrappedState, action: toWrappedAction) { WrappedState.StateReducer.body }
  }

  /// Runs `caseReducer` while the state (an enum) is the given case, by case key paths (TCA's
  /// spelling: `.ifCaseLet(\.loggedIn, action: \.loggedIn) { LoggedIn() }`).
  @inlinable
  public func ifCaseLet<CaseState, CaseAction, CaseReducer: Reducer>(
    _ toCaseState: CaseKeyPath<State, CaseState>,
    action toCaseAction: CaseKeyPath<Action, CaseAction>,
    @ReducerBuilder<CaseState, CaseAction> then caseReducer: () -> CaseReducer
  ) -> _IfCaseLetReducer<Self, CaseReducer>
  where CaseReducer.State == CaseState, CaseReducer.Action == CaseAction {
    _IfCaseLetReducer(
      parent: self, child: caseReducer(), toChildState: AnyCasePath(toCaseState),
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
    if let childAction = toChildAction.extract(action) {
      if state[keyPath: toChildState] != nil {
        let effect = _reduceWrapped(&state[keyPath: toChildState], childAction)
        if !effect.isNone {
          let embed = toChildAction.embed
          let component = state[keyPath: toChildState].map(_component)
            ?? _ScopeComponent(state: toChildState, id: nil)
          childEffect = effect._scoped(to: component).map { embed($0, action) }
        }
      } else {
        _ChildScopes.reportMissingChild(
          operator: "ifLet", parent: Parent.self, action: action,
          detail: "child state of type \(Child.State.self) was nil")
      }
    }
    // Compare the child before and after the parent only when it may have effects to cancel.
    let watch = !childEffect.isNone || _ChildScopes.anyChildEffectInFlight
    let before = watch ? state[keyPath: toChildState].map(_component) : nil
    let parentEffect = parent.reduce(into: &state, action: action)
    var cancel = Effect<Parent.Action>.none
    if let before, state[keyPath: toChildState].map(_component) != before {
      cancel = ._cancelChild(before)
    }
    return ._combine(child: childEffect, parent: parentEffect, cancel: cancel)
  }

  @inlinable
  func _component(_ child: Child.State) -> _ScopeComponent {
    _ScopeComponent(state: toChildState, id: _childIdentity(child))
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
    if let childAction = toChildAction.extract(action) {
      if var childState = toChildState.extract(from: state) {
        let effect = child.reduce(into: &childState, action: childAction)
        state = toChildState.embed(childState)
        if !effect.isNone {
          let embed = toChildAction.embed
          childEffect = effect._scoped(to: _component(childState)).map { embed($0, action) }
        }
      } else {
        _ChildScopes.reportMissingChild(
          operator: "ifCaseLet", parent: Parent.self, action: action,
          detail: "the state was not the case holding \(Child.State.self)")
      }
    }
    let watch = !childEffect.isNone || _ChildScopes.anyChildEffectInFlight
    let before = watch ? toChildState.extract(from: state).map(_component) : nil
    let parentEffect = parent.reduce(into: &state, action: action)
    var cancel = Effect<Parent.Action>.none
    if let before, toChildState.extract(from: state).map(_component) != before {
      cancel = ._cancelChild(before)
    }
    return ._combine(child: childEffect, parent: parentEffect, cancel: cancel)
  }

  /// The child's scope: an enum case has no key path, so the child's types name it.
  @inlinable
  func _component(_ child: Child.State) -> _ScopeComponent {
    _ScopeComponent(
      state: [ObjectIdentifier(Parent.State.self), ObjectIdentifier(Child.State.self)],
      id: _childIdentity(child))
  }
}
