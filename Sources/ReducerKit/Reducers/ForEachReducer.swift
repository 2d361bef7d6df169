#if IdentifiedCollections
@_exported import IdentifiedCollections
import OrderedCollections

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

extension Reducer where Action: Sendable {
  /// Runs `element` on one element of an `IdentifiedArray`, by case key path (TCA's
  /// spelling: `.forEach(\.rows, action: \.rows) { Row() }`).
  @inlinable
  public func forEach<ElementState, ElementAction, ID: Hashable & Sendable, Element: Reducer>(
    _ toElementsState: WritableKeyPath<State, IdentifiedArray<ID, ElementState>>,
    action toElementAction: CaseKeyPath<Action, IdentifiedAction<ID, ElementAction>>,
    @ReducerBuilder<ElementState, ElementAction> element: () -> Element
  ) -> _ForEachReducer<Self, ID, Element>
  where Element.State == ElementState, Element.Action == ElementAction, ElementAction: Sendable {
    _ForEachReducer(
      parent: self, toElementsState: toElementsState,
      toElementAction: _ActionPath(toElementAction), element: element())
  }
}

extension IdentifiedAction: CasePathable {
  /// The case paths of ``IdentifiedAction``: `element`.
  public struct AllCasePaths: Sendable {
    /// `.element(id:action:)`.
    public var element: AnyCasePath<IdentifiedAction, (id: ID, action: Action)> {
      ._enumCase(
        name: "element",
        embed: { .element(id: $0.id, action: $0.action) },
        extract: { if case let .element(id, action) = $0 { (id, action) } else { nil } })
    }
  }

  /// The case paths of ``IdentifiedAction``.
  public static var allCasePaths: AllCasePaths { AllCasePaths() }
}

extension Case {
  /// The action of the element with `id`: `\.rows[id: 7].toggle`.
  public subscript<ID: Hashable & Sendable, Action>(id id: ID) -> Case<Action>
  where Value == IdentifiedAction<ID, Action> {
    _element(
      id: id, label: "\(id)", element: { .element(id: $0, action: $1) },
      match: { if case let .element(id, action) = $0 { (id, action) } else { nil } })
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
    // Compare the ids before and after the parent only when a row may have effects to cancel
    // (an untouched id set compares in O(1): same storage).
    let watch = !elementEffect.isNone || _ChildScopes.anyChildEffectInFlight
    let idsBefore = watch ? state[keyPath: toElementsState].ids : nil
    let parentEffect = parent.reduce(into: &state, action: action)
    var cancel = Effect<Parent.Action>.none
    if let idsBefore {
      let idsAfter = state[keyPath: toElementsState].ids
      if idsBefore != idsAfter {
        cancel = .merge(
          idsBefore.subtracting(idsAfter).map { Effect._cancelChild(_component($0)) })
      }
    }
    return ._combine(child: elementEffect, parent: parentEffect, cancel: cancel)
  }

  @inlinable
  func reduceForEach(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    guard case let .element(id, elementAction)? = toElementAction.extract(action) else {
      return .none
    }
    // One in-place access through the key path (no copy of the collection or the element).
    guard let effect = Self._reduce(element, &state[keyPath: toElementsState], id, elementAction)
    else {
      _ChildScopes.reportMissingChild(
        operator: "forEach", parent: Parent.self, action: action,
        detail: "no element with id \(id) was in the collection")
      return .none
    }
    if effect.isNone { return .none }
    let embed = toElementAction.embed
    return effect._scoped(to: _component(id)).map { embed(.element(id: id, action: $0), action) }
  }

  /// Reduces the element with `id` in place; nil when there is none.
  @inlinable
  static func _reduce(
    _ element: Element, _ elements: inout IdentifiedArray<ID, Element.State>, _ id: ID,
    _ action: Element.Action
  ) -> Effect<Element.Action>? {
    guard let index = elements.index(id: id) else { return nil }
    return element.reduce(into: &elements[index], action: action)
  }

  @inlinable
  func _component(_ id: ID) -> _ScopeComponent {
    _ScopeComponent(state: toElementsState, id: id)
  }
}
#endif
