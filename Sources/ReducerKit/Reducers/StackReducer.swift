/// The identity of an element of a ``StackState``: given when the element is pushed, never
/// reused by that stack (unless its ids ran up to `Int.max`). Write one as an integer literal
/// in tests: `state.path[id: 0]`.
public struct StackElementID: Hashable, Comparable, Sendable, Codable, ExpressibleByIntegerLiteral,
  CustomStringConvertible
{
  /// The number the stack gave the element (0 for its first push, then counting up).
  public let rawValue: Int

  /// The identity with the given number.
  @inlinable public init(rawValue: Int) { self.rawValue = rawValue }
  /// The identity with the given number: `0`, `1`, …
  @inlinable public init(integerLiteral value: Int) { self.rawValue = value }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
  public var description: String { "#\(rawValue)" }

  /// Encoded as its number, from 0 to `Int.max - 1` (a stack gives no other): a number out of
  /// that range is a decoding error, so a host cannot push an element with an id the stack's
  /// own decoding (a snapshot of it) would refuse.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let value = try container.decode(Int.self)
    guard value >= 0, value < Int.max else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "stack element id \(value) is out of range; expected 0 ..< Int.max")
    }
    rawValue = value
  }

  /// Encoded as its number.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}

/// The state of a navigation stack, as TCA's `StackState`: the screens pushed, in order, each
/// with a ``StackElementID``. Compose it with `forEach(_:action:)`:
///
/// ```swift
/// var path = StackState<Path.State>()
/// …
/// Reduce { state, action in … }
///   .forEach(\.path, action: \.path)
/// ```
///
/// Ids come from a counter in the stack itself, starting at 0, so they are the same in every
/// run, and a test's expected state (`$0.path.append(…)`) gets the ids the reducer gave. Two
/// stacks are equal when they hold the same ids and elements in the same order.
///
/// Encoded as an array of `{"id": N, "state": …}` (hosts address elements by `id` in
/// ``StackAction/element(id:action:)``); decoding rejects repeated ids.
public struct StackState<Element> {
  @usableFromInline var _ids: [StackElementID]
  @usableFromInline var _elements: [Element]
  /// The number the next pushed element gets.
  @usableFromInline var _nextID: Int

  /// An empty stack.
  @inlinable public init() {
    _ids = []
    _elements = []
    _nextID = 0
  }

  /// A stack of `elements`, with ids 0, 1, … in order.
  @inlinable public init<S: Sequence>(_ elements: S) where S.Element == Element {
    _elements = Array(elements)
    _ids = _elements.indices.map { StackElementID(rawValue: $0) }
    _nextID = _elements.count
  }

  /// The elements' ids, bottom first.
  @inlinable public var ids: [StackElementID] { _ids }

  /// The element with `id`, or nil. Setting nil removes it (not what is above it); setting an
  /// element for an id the stack does not hold pushes it with that id.
  @inlinable public subscript(id id: StackElementID) -> Element? {
    get { _ids.firstIndex(of: id).map { _elements[$0] } }
    _modify {
      if let index = _ids.firstIndex(of: id) {
        var element: Element? = _elements[index]
        defer {
          if let element { _elements[index] = element } else { remove(at: index) }
        }
        yield &element
      } else {
        var element: Element?
        defer { if let element { _push(element, id: id) } }
        yield &element
      }
    }
    set {
      if let index = _ids.firstIndex(of: id) {
        if let newValue { _elements[index] = newValue } else { remove(at: index) }
      } else if let newValue {
        _push(newValue, id: id)
      }
    }
  }

  /// One case of the element with `id` (a `@Reducer enum`'s state), as TCA writes it in tests:
  /// `$0.path[id: 0, case: \.counter]?.count = 1`. Nil when the stack does not hold `id` or
  /// the element is another case; setting changes only an element of that case.
  @inlinable public subscript<Case>(id id: StackElementID, case path: CaseKeyPath<Element, Case>) -> Case?
  where Element: CasePathable {
    get { self[id: id].flatMap { AnyCasePath(path).extract(from: $0) } }
    set {
      let casePath = AnyCasePath(path)
      guard let newValue, let index = _ids.firstIndex(of: id), casePath.extract(from: _elements[index]) != nil
      else { return }
      _elements[index] = casePath.embed(newValue)
    }
  }

  /// Pushes `element` on top, with the next id.
  @inlinable public mutating func append(_ element: Element) {
    _push(element, id: _takeID(avoiding: []))
  }

  /// Pushes `element` with a given id (ids after it count on from it).
  @inlinable mutating func _push(_ element: Element, id: StackElementID) {
    _ids.append(id)
    _elements.append(element)
    if id.rawValue >= _nextID { _nextID = id.rawValue == .max ? .max : id.rawValue + 1 }
  }

  /// A new id: the next one, counting up. Ids are below `Int.max`: once the count reached it
  /// (only a stack given an id near `Int.max`, by a host or a snapshot, gets there), the
  /// lowest id that neither the stack nor `taken` holds.
  @inlinable mutating func _takeID(avoiding taken: [StackElementID]) -> StackElementID {
    if _nextID < .max {
      defer { _nextID += 1 }
      return StackElementID(rawValue: _nextID)
    }
    let used = Set(_ids).union(taken)
    var candidate = 0
    while used.contains(StackElementID(rawValue: candidate)) { candidate += 1 }
    return StackElementID(rawValue: candidate)
  }

  /// The id the next pushed element gets.
  @inlinable public var nextID: StackElementID { StackElementID(rawValue: _nextID) }

  /// Removes the element with `id` and every element above it (does nothing when the stack
  /// does not hold `id`).
  @inlinable public mutating func pop(from id: StackElementID) {
    guard let index = _ids.firstIndex(of: id) else { return }
    removeSubrange(index...)
  }

  /// Removes every element above the one with `id` (does nothing when the stack does not hold
  /// `id`).
  @inlinable public mutating func pop(to id: StackElementID) {
    guard let index = _ids.firstIndex(of: id) else { return }
    removeSubrange((index + 1)...)
  }
}

extension StackState: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
  public typealias Index = Int

  @inlinable public var startIndex: Int { 0 }
  @inlinable public var endIndex: Int { _elements.count }

  /// The element at `position` (0: the bottom of the stack).
  @inlinable public subscript(position: Int) -> Element {
    get { _elements[position] }
    _modify { yield &_elements[position] }
  }

  /// Replaces elements; the new ones get new ids, in order.
  @inlinable public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C)
  where C.Element == Element {
    var ids: [StackElementID] = []
    ids.reserveCapacity(newElements.count)
    for _ in 0..<newElements.count { ids.append(_takeID(avoiding: ids)) }
    _ids.replaceSubrange(subrange, with: ids)
    _elements.replaceSubrange(subrange, with: newElements)
  }
}

extension StackState: ExpressibleByArrayLiteral {
  /// A stack of the listed elements, with ids 0, 1, …
  @inlinable public init(arrayLiteral elements: Element...) { self.init(elements) }
}

extension StackState: Equatable where Element: Equatable {
  /// The same ids and elements in the same order (the counter for the next id is not compared).
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs._ids == rhs._ids && lhs._elements == rhs._elements
  }
}

extension StackState: Hashable where Element: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(_ids)
    hasher.combine(_elements)
  }
}

extension StackState: Sendable where Element: Sendable {}

extension StackState: CustomStringConvertible {
  public var description: String {
    "[" + zip(_ids, _elements).map { "\($0): \($1)" }.joined(separator: ", ") + "]"
  }
}

private enum _StackEntryKey: String, CodingKey {
  case id, state
}

extension StackState: Encodable where Element: Encodable {
  /// An array of `{"id": N, "state": …}`, bottom first.
  public func encode(to encoder: any Encoder) throws {
    var array = encoder.unkeyedContainer()
    for (id, element) in zip(_ids, _elements) {
      var entry = array.nestedContainer(keyedBy: _StackEntryKey.self)
      try entry.encode(id, forKey: .id)
      try entry.encode(element, forKey: .state)
    }
  }
}

extension StackState: Decodable where Element: Decodable {
  /// Reads what `encode(to:)` writes; a repeated id is an error. The next id is one past the
  /// largest.
  public init(from decoder: any Decoder) throws {
    self.init()
    var array = try decoder.unkeyedContainer()
    var seen = Set<StackElementID>()
    while !array.isAtEnd {
      let entry = try array.nestedContainer(keyedBy: _StackEntryKey.self)
      let id = try entry.decode(StackElementID.self, forKey: .id)  // 0 ..< Int.max
      guard seen.insert(id).inserted else {
        throw DecodingError.dataCorruptedError(
          forKey: .id, in: entry, debugDescription: "id \(id.rawValue) appears twice in the stack; ids are unique")
      }
      _push(try entry.decode(Element.self, forKey: .state), id: id)
    }
  }
}

/// The actions of a navigation stack, as TCA's `StackAction`.
public enum StackAction<State, Action> {
  /// An action of the element with `id`.
  case element(id: StackElementID, action: Action)
  /// Pops the element with `id` and every element above it (after the parent has seen this
  /// action); their effects are cancelled.
  case popFrom(id: StackElementID)
  /// Pushes `state` with `id` (after the parent has seen this action).
  case push(id: StackElementID, state: State)
}

/// The stack actions of a reducer's domain: `StackActionOf<Path>`.
public typealias StackActionOf<R: Reducer> = StackAction<R.State, R.Action>

extension StackAction: Equatable where State: Equatable, Action: Equatable {}
extension StackAction: Hashable where State: Hashable, Action: Hashable {}
extension StackAction: Sendable where State: Sendable, Action: Sendable {}
extension StackAction: Codable where State: Codable, Action: Codable {}

extension StackAction: CasePathable {
  /// The case paths of ``StackAction``.
  public struct AllCasePaths: Sendable {
    /// `.element(id:action:)`.
    public var element: AnyCasePath<StackAction, (id: StackElementID, action: Action)> {
      ._enumCase(
        name: "element",
        embed: { .element(id: $0.id, action: $0.action) },
        extract: { if case let .element(id, action) = $0 { (id, action) } else { nil } })
    }
    /// `.popFrom(id:)`.
    public var popFrom: AnyCasePath<StackAction, StackElementID> {
      ._enumCase(
        name: "popFrom",
        embed: { .popFrom(id: $0) },
        extract: { if case let .popFrom(id) = $0 { id } else { nil } })
    }
    /// `.push(id:state:)`.
    public var push: AnyCasePath<StackAction, (id: StackElementID, state: State)> {
      ._enumCase(
        name: "push",
        embed: { .push(id: $0.id, state: $0.state) },
        extract: { if case let .push(id, state) = $0 { (id, state) } else { nil } })
    }
  }

  /// The case paths of ``StackAction``.
  public static var allCasePaths: AllCasePaths { AllCasePaths() }
}

extension Case {
  /// The actions of one element: `store.send(\.path[id: 0].screenA.incrementButtonTapped)`.
  public subscript<State, Action>(id id: StackElementID) -> Case<Action>
  where Value == StackAction<State, Action> {
    _element(
      id: id, label: "\(id.rawValue)", element: { .element(id: $0, action: $1) },
      match: { if case let .element(id, action) = $0 { (id, action) } else { nil } })
  }

}

extension Reducer where Action: Sendable {
  /// Runs `destination` on the element of a navigation stack that an action addresses, before
  /// this reducer; handles `.push` and `.popFrom` after it, and cancels the effects of every
  /// element that leaves the stack. An element's effects can pop it with
  /// `@Dependency(\.dismiss)` (see ``DismissEffect``).
  ///
  /// ```swift
  /// Reduce { state, action in … }
  ///   .forEach(\.path, action: \.path) { Path() }
  /// ```
  ///
  /// An action for an id the stack does not hold (an effect that outlived its screen, or a
  /// host addressing a screen not shown) is ignored and reported as a runtime issue.
  @inlinable
  public func forEach<DestinationState, DestinationAction: Sendable, Destination: Reducer>(
    _ toStackState: WritableKeyPath<State, StackState<DestinationState>>,
    action toStackAction: CaseKeyPath<Action, StackAction<DestinationState, DestinationAction>>,
    @ReducerBuilder<DestinationState, DestinationAction> destination: () -> Destination
  ) -> _StackReducer<Self, Destination>
  where Destination.State == DestinationState, Destination.Action == DestinationAction {
    _StackReducer(
      parent: self, destination: destination(), toStackState: toStackState,
      toStackAction: AnyCasePath(toStackAction))
  }

  /// `forEach` for a stack of a `@Reducer enum`'s states: the reducer comes from the type.
  ///
  /// ```swift
  /// .forEach(\.path, action: \.path)
  /// ```
  @inlinable
  public func forEach<DestinationState: CaseReducerState, DestinationAction: Sendable>(
    _ toStackState: WritableKeyPath<State, StackState<DestinationState>>,
    action toStackAction: CaseKeyPath<Action, StackAction<DestinationState, DestinationAction>>
  ) -> _StackReducer<Self, DestinationState.StateReducer.CaseBody>
  where DestinationState.StateReducer.Action == DestinationAction {
    forEach(toStackState, action: toStackAction) { DestinationState.StateReducer.body }
  }
}

/// The reducer `forEach(_:action:)` over a ``StackState`` returns.
public struct _StackReducer<Parent: Reducer, Destination: Reducer>: Reducer
where Parent.Action: Sendable, Destination.Action: Sendable {
  @usableFromInline let parent: Parent
  @usableFromInline let destination: Destination
  @usableFromInline let toStackState: WritableKeyPath<Parent.State, StackState<Destination.State>>
  @usableFromInline let toStackAction: AnyCasePath<Parent.Action, StackAction<Destination.State, Destination.Action>>

  @inlinable
  init(
    parent: Parent, destination: Destination,
    toStackState: WritableKeyPath<Parent.State, StackState<Destination.State>>,
    toStackAction: AnyCasePath<Parent.Action, StackAction<Destination.State, Destination.Action>>
  ) {
    self.parent = parent
    self.destination = destination
    self.toStackState = toStackState
    self.toStackAction = toStackAction
  }

  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    let stackAction = toStackAction.extract(from: action)
    var elementEffect = Effect<Parent.Action>.none
    if case let .element(id, elementAction)? = stackAction {
      elementEffect = reduceElement(&state, id, elementAction, action)
    }
    let watch = !elementEffect.isNone || _ChildScopes.anyChildEffectInFlight
    let idsBefore = watch ? state[keyPath: toStackState].ids : nil
    let parentEffect = parent.reduce(into: &state, action: action)
    switch stackAction {
    case let .popFrom(id)?:
      if state[keyPath: toStackState][id: id] == nil {
        _ChildScopes.reportMissingChild(
          operator: "forEach", parent: Parent.self, action: action,
          detail: "no element with id \(id.rawValue) was in the stack to pop")
      } else {
        state[keyPath: toStackState].pop(from: id)
      }
    case let .push(id, element)?:
      if state[keyPath: toStackState][id: id] != nil {
        _ChildScopes.reportMissingChild(
          operator: "forEach", parent: Parent.self, action: action,
          detail: "an element with id \(id.rawValue) was already in the stack; the push was ignored")
      } else {
        state[keyPath: toStackState][id: id] = element
      }
    case .element?, nil:
      break
    }
    var cancel = Effect<Parent.Action>.none
    if let idsBefore {
      let after = Set(state[keyPath: toStackState].ids)
      let gone = idsBefore.filter { !after.contains($0) }
      if !gone.isEmpty { cancel = .merge(gone.map { Effect._cancelChild(_component($0)) }) }
    }
    return ._combine(child: elementEffect, parent: parentEffect, cancel: cancel)
  }

  @inlinable
  func reduceElement(
    _ state: inout Parent.State, _ id: StackElementID, _ elementAction: Destination.Action, _ action: Parent.Action
  ) -> Effect<Parent.Action> {
    guard let index = state[keyPath: toStackState].ids.firstIndex(of: id) else {
      _ChildScopes.reportMissingChild(
        operator: "forEach", parent: Parent.self, action: action,
        detail: "no element with id \(id.rawValue) was in the stack")
      return .none
    }
    let effect = destination.reduce(into: &state[keyPath: toStackState][index], action: elementAction)
    if effect.isNone { return .none }
    let toStackAction = toStackAction
    return effect._scoped(to: _component(id))
      .map { toStackAction.embed(.element(id: id, action: $0)) }
      ._dismissing { toStackAction.embed(.popFrom(id: id)) }
  }

  @inlinable
  func _component(_ id: StackElementID) -> _ScopeComponent {
    _ScopeComponent(state: toStackState, id: id)
  }
}
