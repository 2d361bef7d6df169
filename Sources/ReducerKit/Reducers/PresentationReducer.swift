#if canImport(FoundationEssentials)
  import FoundationEssentials
#elseif canImport(Foundation)
  import Foundation
#endif

/// Optional child state that a parent presents (a sheet, a navigation destination), as TCA's
/// `@Presents`: `@Presents var destination: Destination.State?`, composed with
/// `.ifLet(\.$destination, action: \.destination)`.
///
/// Compares, hashes and encodes as its optional value (`null` when nothing is presented).
@propertyWrapper
public struct PresentationState<State> {
  /// The presented child's state, or nil.
  public var wrappedValue: State?

  /// Nothing presented, or `wrappedValue`.
  @inlinable public init(wrappedValue: State? = nil) { self.wrappedValue = wrappedValue }

  /// The wrapper itself: `\.$destination` is what `ifLet` takes.
  @inlinable public var projectedValue: Self {
    get { self }
    set { self = newValue }
  }
}

/// The spelling TCA users write: `@Presents var destination: Destination.State?`.
public typealias Presents<State> = PresentationState<State>

extension PresentationState: Equatable where State: Equatable {}
extension PresentationState: Hashable where State: Hashable {}
extension PresentationState: Sendable where State: Sendable {}

extension PresentationState: Encodable where State: Encodable {
  /// Encodes the optional value itself.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(wrappedValue)
  }
}

extension PresentationState: Decodable where State: Decodable {
  /// Decodes the optional value itself.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    wrappedValue = container.decodeNil() ? nil : try container.decode(State.self)
  }
}

extension KeyedDecodingContainer {
  /// A missing key decodes as nothing presented (as a plain optional property does).
  public func decode<State: Decodable>(
    _ type: PresentationState<State>.Type, forKey key: Key
  ) throws -> PresentationState<State> {
    try decodeIfPresent(type, forKey: key) ?? PresentationState()
  }
}

/// The actions of a presented child: its own, or the parent's request to dismiss it.
///
/// ```swift
/// enum Action {
///   case destination(PresentationAction<Destination.Action>)
/// }
/// ```
public enum PresentationAction<Action> {
  /// An action of the presented child.
  case presented(Action)
  /// Dismisses the child: `ifLet` sets its state to nil (after the parent has seen this
  /// action) and cancels its effects.
  case dismiss
}

extension PresentationAction: Equatable where Action: Equatable {}
extension PresentationAction: Hashable where Action: Hashable {}
extension PresentationAction: Sendable where Action: Sendable {}
extension PresentationAction: Codable where Action: Codable {}

extension PresentationAction: CasePathable {
  /// The case paths of ``PresentationAction``: `presented` and `dismiss`.
  public struct AllCasePaths: Sendable {
    /// `.presented(action)`.
    public var presented: AnyCasePath<PresentationAction, Action> {
      ._enumCase(
        name: "presented",
        embed: { .presented($0) },
        extract: { if case let .presented(action) = $0 { action } else { nil } })
    }
    /// `.dismiss`.
    public var dismiss: AnyCasePath<PresentationAction, Void> {
      ._enumCase(
        name: "dismiss",
        embed: { _ in .dismiss },
        extract: { if case .dismiss = $0 { () } else { nil } })
    }
  }

  /// The case paths of ``PresentationAction``.
  public static var allCasePaths: AllCasePaths { AllCasePaths() }
}

extension Case {
  /// Reaches the presented child's cases without spelling `.presented`:
  /// `\.destination.add` is `\.destination.presented.add`.
  public subscript<Action: CasePathable, Member>(
    dynamicMember keyPath: KeyPath<Action.AllCasePaths, AnyCasePath<Action, Member>>
  ) -> Case<Member> where Value == PresentationAction<Action> {
    self[dynamicMember: \PresentationAction<Action>.AllCasePaths.presented][dynamicMember: keyPath]
  }
}

extension Reducer where Action: Sendable {
  /// Runs `destination` on presented child state while it is non-nil, before this reducer,
  /// and handles `.dismiss` (the parent sees it, then the child's state becomes nil and its
  /// effects are cancelled). The child's effects can send that `.dismiss` with
  /// `@Dependency(\.dismiss)` (see ``DismissEffect``).
  ///
  /// ```swift
  /// Reduce { state, action in … }
  ///   .ifLet(\.$destination, action: \.destination) { Destination() }
  /// ```
  @inlinable
  public func ifLet<DestinationState, DestinationAction, Destination: Reducer>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<DestinationState>>,
    action toPresentationAction: CaseKeyPath<Action, PresentationAction<DestinationAction>>,
    @ReducerBuilder<DestinationState, DestinationAction> destination: () -> Destination
  ) -> _IfLetReducer<_PresentationReducer<Self, DestinationState, DestinationAction>, _PresentedReducer<Destination>>
  where Destination.State == DestinationState, Destination.Action == DestinationAction {
    let toState = toPresentationState.appending(path: \.wrappedValue)
    let toAction = AnyCasePath(toPresentationAction)
    return _IfLetReducer(
      parent: _PresentationReducer(base: self, toState: toState, toAction: toAction),
      child: _PresentedReducer(destination: destination()), toChildState: toState,
      toChildAction: _ActionPath(
        AnyCasePath(
          embed: { toAction.embed($0) },
          extract: {
            // `.dismiss` is the parent's: reported only if it comes while nothing is shown.
            if case let .presented(action)? = toAction.extract(from: $0) { .presented(action) } else { nil }
          })))
  }

  /// `ifLet` for presented state with no reducer of its own (``AlertState``,
  /// ``ConfirmationDialogState``): after the parent has seen any of its actions, the state
  /// becomes nil, as a UI dismisses an alert when a button is tapped.
  ///
  /// ```swift
  /// Reduce { state, action in … }
  ///   .ifLet(\.$alert, action: \.alert)
  /// ```
  @inlinable
  public func ifLet<DestinationState: _EphemeralState, DestinationAction>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<DestinationState>>,
    action toPresentationAction: CaseKeyPath<Action, PresentationAction<DestinationAction>>
  ) -> _IfLetReducer<
    _PresentationReducer<Self, DestinationState, DestinationAction>,
    _PresentedReducer<EmptyReducer<DestinationState, DestinationAction>>
  > {
    ifLet(toPresentationState, action: toPresentationAction) {
      EmptyReducer<DestinationState, DestinationAction>()
    }
  }

  /// `ifLet` for a `@Reducer enum` destination: the reducer comes from the state's type.
  ///
  /// ```swift
  /// .ifLet(\.$destination, action: \.destination)
  /// ```
  @inlinable
  public func ifLet<DestinationState: CaseReducerState, DestinationAction>(
    _ toPresentationState: WritableKeyPath<State, PresentationState<DestinationState>>,
    action toPresentationAction: CaseKeyPath<Action, PresentationAction<DestinationAction>>
  ) -> _IfLetReducer<
    _PresentationReducer<Self, DestinationState, DestinationAction>,
    _PresentedReducer<DestinationState.StateReducer.CaseBody>
  > where DestinationState.StateReducer.Action == DestinationAction {
    ifLet(toPresentationState, action: toPresentationAction) {
      DestinationState.StateReducer.body
    }
  }
}

/// The parent of a presented child: runs the parent, then clears the child's state on
/// `.dismiss`. What `ifLet(_:action:destination:)` returns wraps it.
public struct _PresentationReducer<Base: Reducer, DestinationState, DestinationAction>: Reducer {
  @usableFromInline let base: Base
  @usableFromInline let toState: WritableKeyPath<Base.State, DestinationState?>
  @usableFromInline let toAction: AnyCasePath<Base.Action, PresentationAction<DestinationAction>>

  @inlinable
  init(
    base: Base, toState: WritableKeyPath<Base.State, DestinationState?>,
    toAction: AnyCasePath<Base.Action, PresentationAction<DestinationAction>>
  ) {
    self.base = base
    self.toState = toState
    self.toAction = toAction
  }

  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let presentationAction = toAction.extract(from: action)
    // An alert or a dialog (or an enum destination's case holding one) is gone once acted on,
    // unless the parent presented another in its place (a new alert has a new `id`).
    var ephemeralID: UUID?
    if case .presented? = presentationAction, let presented = state[keyPath: toState] {
      ephemeralID = _ephemeralID(presented)
    }
    let effect = base.reduce(into: &state, action: action)
    switch presentationAction {
    case .dismiss?:
      state[keyPath: toState] = nil
    case .presented?:
      if let ephemeralID, let presented = state[keyPath: toState], _ephemeralID(presented) == ephemeralID {
        state[keyPath: toState] = nil
      }
    case nil:
      break
    }
    return effect
  }
}

/// A presented child as `ifLet(_:action:destination:)` runs it: its effects send
/// `.presented(action)`, and `@Dependency(\.dismiss)` in them sends `.dismiss`.
public struct _PresentedReducer<Destination: Reducer>: Reducer {
  @usableFromInline let destination: Destination

  @inlinable init(destination: Destination) { self.destination = destination }

  @inlinable
  public func reduce(
    into state: inout Destination.State, action: PresentationAction<Destination.Action>
  ) -> Effect<PresentationAction<Destination.Action>> {
    guard case let .presented(action) = action else { return .none }
    let effect = destination.reduce(into: &state, action: action)
    if effect.isNone { return .none }
    return effect.map { .presented($0) }._dismissing { .dismiss }
  }
}

/// The `id` of `state` when it is ``_EphemeralState`` or an enum destination's case holding
/// one; nil for a feature's state.
@usableFromInline
func _ephemeralID<State>(_ state: State) -> UUID? {
  if let ephemeral = state as? any _EphemeralState { return ephemeral.id }
  guard State.self is any CaseReducerState.Type else { return nil }
  let mirror = Mirror(reflecting: state)
  guard mirror.displayStyle == .enum, let payload = mirror.children.first?.value else { return nil }
  return (payload as? any _EphemeralState)?.id
}
