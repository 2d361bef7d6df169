/// A reducer that runs `base` with one dependency changed, made by ``Reducer/dependency(_:_:)``
/// and ``Reducer/transformDependency(_:transform:)``.
///
/// The change applies while `base` reduces and while each effect `base` returns runs; it is
/// made on top of the dependencies in effect at that moment (the store's, and any set by a
/// reducer around this one), so an outer change to another key still reaches the child.
public struct _DependencyKeyWritingReducer<Base: Reducer>: Reducer {
  @usableFromInline let base: Base
  @usableFromInline let update: @Sendable (inout DependencyValues) -> Void

  @usableFromInline
  init(base: Base, update: @escaping @Sendable (inout DependencyValues) -> Void) {
    self.base = base
    self.update = update
  }

  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    var values = DependencyValues._current
    update(&values)
    let effect = DependencyValues._with(values) { base.reduce(into: &state, action: action) }
    return effect._updatingDependencies(update)
  }
}

extension Reducer {
  /// This reducer with the dependency at `keyPath` set to `value`, for its reducing and for
  /// the effects it returns, as TCA's `dependency(_:_:)`.
  ///
  /// ```swift
  /// Scope(state: \.child, action: \.child) {
  ///   Child()
  ///     .dependency(\.numberFact, .mock)
  /// }
  /// ```
  @inlinable
  public func dependency<Value: Sendable>(
    _ keyPath: WritableKeyPath<DependencyValues, Value> & Sendable,
    _ value: Value
  ) -> _DependencyKeyWritingReducer<Self> {
    _DependencyKeyWritingReducer(base: self) { $0[keyPath: keyPath] = value }
  }

  /// This reducer with `value` as the dependency keyed by its own type (a type that is its own
  /// ``DependencyKey``), as TCA's `dependency(_:)`.
  @inlinable
  public func dependency<Value: DependencyKey & Sendable>(
    _ value: Value
  ) -> _DependencyKeyWritingReducer<Self> where Value.Value == Value {
    _DependencyKeyWritingReducer(base: self) { $0[Value.self] = value }
  }

  /// This reducer with the dependency at `keyPath` changed by `transform`, for its reducing and
  /// for the effects it returns, as TCA's `transformDependency(_:transform:)`. `transform`
  /// receives the value in effect where this reducer runs.
  ///
  /// ```swift
  /// Child()
  ///   .transformDependency(\.numberFact) { $0.fetch = { "\($0) is odd." } }
  /// ```
  @inlinable
  public func transformDependency<Value>(
    _ keyPath: WritableKeyPath<DependencyValues, Value> & Sendable,
    transform: @escaping @Sendable (_ dependency: inout Value) -> Void
  ) -> _DependencyKeyWritingReducer<Self> {
    _DependencyKeyWritingReducer(base: self) { transform(&$0[keyPath: keyPath]) }
  }
}

extension Effect {
  /// This effect with `update` applied to the dependencies in effect each time one of its
  /// runs starts.
  @usableFromInline
  func _updatingDependencies(_ update: @escaping @Sendable (inout DependencyValues) -> Void) -> Self {
    _updatingDependencies { values, _ in update(&values) }
  }

  /// This effect with `update` applied to the dependencies in effect each time one of its
  /// runs starts; `update` also receives that run's `send` (for `dismiss`, which sends).
  /// The one walk of an effect's tree that wraps its runs.
  @usableFromInline
  func _updatingDependencies(
    _ update: @escaping @Sendable (inout DependencyValues, Send<Action>) -> Void
  ) -> Self {
    switch operation {
    case .none, .send, .cancel:
      return self
    case let .run(run):
      let body = run.operation
      return Self(
        operation: .run(
          .init(
            id: run.id, priority: run.priority,
            operation: { send in
              var values = DependencyValues._current
              update(&values, send)
              await DependencyValues._with(values) { await body(send) }
            })))
    case let .merge(effects):
      return Self(operation: .merge(effects.map { $0._updatingDependencies(update) }))
    case let .concatenate(effects):
      return Self(operation: .concatenate(effects.map { $0._updatingDependencies(update) }))
    case let .cancellable(id, cancelInFlight, effect):
      return Self(
        operation: .cancellable(id: id, cancelInFlight: cancelInFlight, effect._updatingDependencies(update)))
    }
  }
}
