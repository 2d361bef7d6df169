extension Reducer {
  /// Runs `reducer` after this one whenever the value `toValue` selects changed.
  ///
  /// ```swift
  /// Reduce { state, action in … }
  ///   .onChange(of: \.query) { oldValue, newValue in
  ///     Reduce { state, _ in .send(.search(newValue)) }
  ///   }
  /// ```
  @inlinable
  public func onChange<V: Equatable, R: Reducer>(
    of toValue: @escaping (State) -> V,
    @ReducerBuilder<State, Action> _ reducer: @escaping (_ oldValue: V, _ newValue: V) -> R
  ) -> _OnChangeReducer<Self, V, R> {
    _OnChangeReducer(base: self, toValue: toValue, reducer: reducer)
  }
}

/// The reducer `onChange` returns.
public struct _OnChangeReducer<Base: Reducer, Value: Equatable, R: Reducer>: Reducer
where R.State == Base.State, R.Action == Base.Action {
  @usableFromInline let base: Base
  @usableFromInline let toValue: (Base.State) -> Value
  @usableFromInline let reducer: (Value, Value) -> R

  @inlinable
  init(base: Base, toValue: @escaping (Base.State) -> Value, reducer: @escaping (Value, Value) -> R) {
    self.base = base
    self.toValue = toValue
    self.reducer = reducer
  }

  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let oldValue = toValue(state)
    let effect = base.reduce(into: &state, action: action)
    let newValue = toValue(state)
    guard oldValue != newValue else { return effect }
    let changeEffect = reducer(oldValue, newValue).reduce(into: &state, action: action)
    if effect.isNone { return changeEffect }
    return changeEffect.isNone ? effect : .merge(effect, changeEffect)
  }
}
