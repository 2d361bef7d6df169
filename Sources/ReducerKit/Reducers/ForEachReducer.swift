#if IdentifiedCollections
@_exported import IdentifiedCollections

/// An action for one element of a collection, by id: `{"element": {"id": 7, "action": …}}`.
public enum IdentifiedAction<ID: Hashable, Action> {
  /// `action` for the element with `id`.
  case element(id: ID, action: Action)
}

extension IdentifiedAction: Sendable where ID: Sendable, Action: Sendable {}
extension IdentifiedAction: Equatable where Action: Equatable {}
extension IdentifiedAction: Hashable where Action: Hashable {}
extension IdentifiedAction: Codable where ID: Codable, Action: Codable {}

/// The element action of a reducer whose state is `Identifiable`.
public typealias IdentifiedActionOf<R: Reducer> = IdentifiedAction<R.State.ID, R.Action>
where R.State: Identifiable

extension Reducer where Action: Sendable {
  /// Runs `element` on one element of an `IdentifiedArray`, for the element actions, before
  /// this reducer. The element is changed in place: no copy of the collection per action.
  ///
  /// ```swift
  /// Reduce { state, action in … }
  ///   .forEach(\.todos, action: \.todos) { Todo() }
  /// ```
  @inlinable
  public func forEach<ElementState, ElementAction, ID: Hashable & Sendable, Element: Reducer>(
    _ toElementsState: WritableKeyPath<State, IdentifiedArray<ID, ElementState>>,
    action toElementAction: WritableKeyPath<Action, IdentifiedAction<ID, ElementAction>?> & Sendable,
    @ReducerBuilder<ElementState, ElementAction> element: () -> Element
  ) -> _ForEachReducer<Self, ID, Element>
  where Element.State == ElementState, Element.Action == ElementAction, ElementAction: Sendable {
    _ForEachReducer(
      parent: self, toElementsState: toElementsState,
      toElementAction: _ActionPath(toElementAction), element: element())
  }

  /// Runs `element` on one element of an `IdentifiedArray` (case-path form).
  @inlinable
  public func forEach<ElementState, ElementAction, ID: Hashable & Sendable, Element: Reducer>(
    _ toElementsState: WritableKeyPath<State, IdentifiedArray<ID, ElementState>>,
    action toElementAction: AnyCasePath<Action, IdentifiedAction<ID, ElementAction>>,
    @ReducerBuilder<ElementState, ElementAction> element: () -> Element
  ) -> _ForEachReducer<Self, ID, Element>
  where Element.State == ElementState, Element.Action == ElementAction, ElementAction: Sendable {
    _ForEachReducer(
      parent: self, toElementsState: toElementsState,
      toElementAction: _ActionPath(toElementAction), element: element())
  }
}

/// The reducer `forEach` returns.
public struct _ForEachReducer<Parent: Reducer, ID: Hashable & Sendable, Element: Reducer>: Reducer
where Parent.Action: Sendable, Element.Action: Sendable {
  @usableFromInline let parent: Parent
  @usableFromInline let toElementsState: WritableKeyPath<Parent.State, IdentifiedArray<ID, Element.State>>
  @usableFromInline let toElementAction: _ActionPath<Parent.Action, IdentifiedAction<ID, Element.Action>>
  @usableFromInline let element: Element

  @inlinable
  init(
    parent: Parent,
    toElementsState: WritableKeyPath<Parent.State, IdentifiedArray<ID, Element.State>>,
    toElementAction: _ActionPath<Parent.Action, IdentifiedAction<ID, Element.Action>>,
    element: Element
  ) {
    self.parent = parent
    self.toElementsState = toElementsState
    self.toElementAction = toElementAction
    self.element = element
  }

  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let elementEffect = reduceForEach(into: &state, action: action)
    let parentEffect = parent.reduce(into: &state, action: action)
    if elementEffect.isNone { return parentEffect }
    return parentEffect.isNone ? elementEffect : .merge(elementEffect, parentEffect)
  }

  @inlinable
  func reduceForEach(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    guard case let .element(id, elementAction)? = toElementAction.extract(action) else {
      return .none
    }
    let effect = Self._reduce(element, &state[keyPath: toElementsState], id, elementAction)
    if effect.isNone { return .none }
    let embed = toElementAction.embed
    return effect.map { embed(.element(id: id, action: $0), action) }
  }

  /// Reduces the element in place: one hash lookup, no copy of the collection or element.
  /// A missing id is ignored.
  @inlinable
  static func _reduce(
    _ element: Element, _ elements: inout IdentifiedArray<ID, Element.State>, _ id: ID,
    _ action: Element.Action
  ) -> Effect<Element.Action> {
    guard let index = elements.index(id: id) else { return .none }
    return element.reduce(into: &elements[index], action: action)
  }
}
#endif
