#if canImport(FoundationEssentials)
  import FoundationEssentials
#elseif canImport(Foundation)
  import Foundation
#endif

/// Text for an alert, a dialog or a button, as TCA's `TextState`: plain data a UI renders.
///
/// Equal when the strings are. Encodes as its string.
public struct TextState: Equatable, Hashable, Sendable {
  @usableFromInline var string: String

  /// Text showing `content`.
  @inlinable
  public init(_ content: some StringProtocol) { string = String(content) }

  /// Text showing `content` as it is (ReducerKit does not localize).
  @inlinable
  public init(verbatim content: String) { string = content }

  /// `lhs` followed by `rhs`.
  @inlinable
  public static func + (lhs: Self, rhs: Self) -> Self { Self(verbatim: lhs.string + rhs.string) }
}

extension String {
  /// The string `state` shows.
  @inlinable
  public init(state: TextState) { self = state.string }
}

extension TextState: CustomStringConvertible, CustomDebugStringConvertible {
  public var description: String { string }
  public var debugDescription: String { "TextState(\(string.debugDescription))" }
}

extension TextState: Codable {
  /// Decodes a JSON string.
  public init(from decoder: any Decoder) throws {
    string = try decoder.singleValueContainer().decode(String.self)
  }

  /// Encodes the string.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(string)
  }
}

/// What a button is for, as TCA's `ButtonStateRole`: a UI styles it.
public enum ButtonStateRole: String, Codable, Equatable, Hashable, Sendable {
  /// Dismisses without acting.
  case cancel
  /// Destroys something.
  case destructive
}

/// The action a button sends, as TCA's `ButtonStateAction`: `.send(action)`, or nothing
/// (`.send(nil)`: the button only dismisses).
public struct ButtonStateAction<Action> {
  /// The action the button sends, if any.
  public let action: Action?

  @usableFromInline init(action: Action?) { self.action = action }

  /// A button that sends `action` (nil: none).
  @inlinable
  public static func send(_ action: Action?) -> Self { Self(action: action) }

  /// This button action with its action transformed.
  @inlinable
  public func map<NewAction>(_ transform: (Action?) -> NewAction?) -> ButtonStateAction<NewAction> {
    .send(transform(action))
  }
}

extension ButtonStateAction: Equatable where Action: Equatable {}
extension ButtonStateAction: Hashable where Action: Hashable {}
extension ButtonStateAction: Sendable where Action: Sendable {}

/// A button in an alert or a confirmation dialog, as TCA's `ButtonState`: its label, its role
/// and the action it sends.
///
/// ```swift
/// ButtonState(role: .destructive, action: .confirmDeletion) { TextState("Delete") }
/// ButtonState(role: .cancel) { TextState("Cancel") }
/// ```
///
/// Buttons compare by label, role and action (their `id` only tells them apart in a UI).
public struct ButtonState<Action>: Identifiable {
  /// A fresh identity per button made.
  public let id: UUID
  /// What the button sends when tapped.
  public let action: ButtonStateAction<Action>
  /// The button's text.
  public let label: TextState
  /// The button's role, if any.
  public let role: ButtonStateRole?

  @usableFromInline
  init(id: UUID, action: ButtonStateAction<Action>, label: TextState, role: ButtonStateRole?) {
    self.id = id
    self.action = action
    self.label = label
    self.role = role
  }

  /// A button that sends `action` (by default nothing: it only dismisses).
  @inlinable
  public init(
    role: ButtonStateRole? = nil,
    action: ButtonStateAction<Action> = .send(nil),
    label: () -> TextState
  ) {
    self.init(id: UUID(), action: action, label: label(), role: role)
  }

  /// A button that sends `action`.
  @inlinable
  public init(role: ButtonStateRole? = nil, action: Action, label: () -> TextState) {
    self.init(role: role, action: .send(action), label: label)
  }

  /// Calls `perform` with the button's action (nil when it sends none).
  @inlinable
  public func withAction(_ perform: (Action?) -> Void) { perform(action.action) }

  /// This button with its action transformed.
  @inlinable
  public func map<NewAction>(_ transform: (Action?) -> NewAction?) -> ButtonState<NewAction> {
    ButtonState<NewAction>(id: id, action: action.map(transform), label: label, role: role)
  }
}

extension ButtonState: Equatable where Action: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.action == rhs.action && lhs.label == rhs.label && lhs.role == rhs.role
  }
}

extension ButtonState: Hashable where Action: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(action)
    hasher.combine(label)
    hasher.combine(role)
  }
}

extension ButtonState: Sendable where Action: Sendable {}

/// Builds the buttons of an ``AlertState`` or a ``ConfirmationDialogState``.
@resultBuilder
public enum ButtonStateBuilder<Action> {
  /// The buttons of each line, in order.
  public static func buildBlock(_ components: [ButtonState<Action>]...) -> [ButtonState<Action>] {
    components.flatMap { $0 }
  }
  /// One button.
  public static func buildExpression(_ expression: ButtonState<Action>) -> [ButtonState<Action>] {
    [expression]
  }
  /// The buttons of an `if` without `else`, or none.
  public static func buildOptional(_ component: [ButtonState<Action>]?) -> [ButtonState<Action>] {
    component ?? []
  }
  /// The buttons of an `if` branch.
  public static func buildEither(first component: [ButtonState<Action>]) -> [ButtonState<Action>] {
    component
  }
  /// The buttons of an `else` branch.
  public static func buildEither(second component: [ButtonState<Action>]) -> [ButtonState<Action>] {
    component
  }
  /// The buttons of a `for` loop.
  public static func buildArray(_ components: [[ButtonState<Action>]]) -> [ButtonState<Action>] {
    components.flatMap { $0 }
  }
  /// The buttons of an `if #available` branch.
  public static func buildLimitedAvailability(_ component: [ButtonState<Action>]) -> [ButtonState<Action>] {
    component
  }
}

/// State that is gone once the user acts on it: presented with `@Presents` and
/// `ifLet(\.$alert, action: \.alert)`, it becomes nil after any of its actions (the parent
/// sees the action first), unless the parent presented another one (another `id`) in its
/// place. ``AlertState`` and ``ConfirmationDialogState`` are.
public protocol _EphemeralState {
  /// Tells this presentation from one the parent puts in its place.
  var id: UUID { get }
}

/// An alert, as TCA's `AlertState`: a title, an optional message and buttons, as plain data a
/// UI renders and a test compares.
///
/// ```swift
/// state.alert = AlertState {
///   TextState("Delete?")
/// } actions: {
///   ButtonState(role: .destructive, action: .confirmDeletion) { TextState("Delete") }
///   ButtonState(role: .cancel) { TextState("Cancel") }
/// } message: {
///   TextState("This cannot be undone.")
/// }
/// ```
///
/// Alerts compare by title, message and buttons (not by `id`).
public struct AlertState<Action>: Identifiable, _EphemeralState {
  /// A fresh identity per alert made.
  public let id: UUID
  /// The buttons, in order (none: a UI shows a single OK).
  public var buttons: [ButtonState<Action>]
  /// The message under the title.
  public var message: TextState?
  /// The title.
  public var title: TextState

  @usableFromInline
  init(id: UUID, buttons: [ButtonState<Action>], message: TextState?, title: TextState) {
    self.id = id
    self.buttons = buttons
    self.message = message
    self.title = title
  }

  /// An alert with a title, buttons and a message.
  @inlinable
  public init(
    title: () -> TextState,
    @ButtonStateBuilder<Action> actions: () -> [ButtonState<Action>] = { [] },
    message: (() -> TextState)? = nil
  ) {
    self.init(id: UUID(), buttons: actions(), message: message?(), title: title())
  }

  /// This alert with its buttons' actions transformed.
  @inlinable
  public func map<NewAction>(_ transform: (Action?) -> NewAction?) -> AlertState<NewAction> {
    AlertState<NewAction>(
      id: id, buttons: buttons.map { $0.map(transform) }, message: message, title: title)
  }
}

extension AlertState: Equatable where Action: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.title == rhs.title && lhs.message == rhs.message && lhs.buttons == rhs.buttons
  }
}

extension AlertState: Hashable where Action: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(title)
    hasher.combine(message)
    hasher.combine(buttons)
  }
}

extension AlertState: Sendable where Action: Sendable {}

/// Whether a confirmation dialog shows its title, as TCA's
/// `ConfirmationDialogStateTitleVisibility`.
public enum ConfirmationDialogStateTitleVisibility: String, Codable, Equatable, Hashable, Sendable {
  /// The platform decides.
  case automatic
  /// Never shown.
  case hidden
  /// Always shown.
  case visible
}

/// A confirmation dialog (an action sheet), as TCA's `ConfirmationDialogState`: like
/// ``AlertState``, plus whether the title shows.
///
/// Dialogs compare by title, title visibility, message and buttons (not by `id`).
public struct ConfirmationDialogState<Action>: Identifiable, _EphemeralState {
  /// A fresh identity per dialog made.
  public let id: UUID
  /// The buttons, in order.
  public var buttons: [ButtonState<Action>]
  /// The message under the title.
  public var message: TextState?
  /// The title.
  public var title: TextState
  /// Whether the title shows.
  public var titleVisibility: ConfirmationDialogStateTitleVisibility

  @usableFromInline
  init(
    id: UUID, buttons: [ButtonState<Action>], message: TextState?, title: TextState,
    titleVisibility: ConfirmationDialogStateTitleVisibility
  ) {
    self.id = id
    self.buttons = buttons
    self.message = message
    self.title = title
    self.titleVisibility = titleVisibility
  }

  /// A dialog with a title, buttons and a message.
  @inlinable
  public init(
    titleVisibility: ConfirmationDialogStateTitleVisibility = .automatic,
    title: () -> TextState,
    @ButtonStateBuilder<Action> actions: () -> [ButtonState<Action>] = { [] },
    message: (() -> TextState)? = nil
  ) {
    self.init(
      id: UUID(), buttons: actions(), message: message?(), title: title(),
      titleVisibility: titleVisibility)
  }

  /// This dialog with its buttons' actions transformed.
  @inlinable
  public func map<NewAction>(
    _ transform: (Action?) -> NewAction?
  ) -> ConfirmationDialogState<NewAction> {
    ConfirmationDialogState<NewAction>(
      id: id, buttons: buttons.map { $0.map(transform) }, message: message, title: title,
      titleVisibility: titleVisibility)
  }
}

extension ConfirmationDialogState: Equatable where Action: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.title == rhs.title && lhs.titleVisibility == rhs.titleVisibility
      && lhs.message == rhs.message && lhs.buttons == rhs.buttons
  }
}

extension ConfirmationDialogState: Hashable where Action: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(title)
    hasher.combine(titleVisibility)
    hasher.combine(message)
    hasher.combine(buttons)
  }
}

extension ConfirmationDialogState: Sendable where Action: Sendable {}

// Wire forms, so a feature presenting an alert or a dialog can be registered for hosts:
// `{"title": "Delete?", "message": "Gone for good.", "buttons": [{"label": "Delete",
// "role": "destructive", "action": "confirm"}]}` (`message`, `role`, `action` may be null or left out;
// a dialog adds `titleVisibility`). The `id` is not sent: a decoded one gets a fresh `id`.

private enum _PresentationCodingKeys: String, CodingKey {
  case title, message, buttons, titleVisibility, label, role, action
}

extension ButtonState: Codable where Action: Codable {
  /// Decodes `{"label": …, "role": …, "action": …}`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: _PresentationCodingKeys.self)
    self.init(
      id: UUID(),
      action: .send(try container.decodeIfPresent(Action.self, forKey: .action)),
      label: try container.decode(TextState.self, forKey: .label),
      role: try container.decodeIfPresent(ButtonStateRole.self, forKey: .role))
  }

  /// Encodes `{"label": …, "role": …, "action": …}` (`role` and `action` null when unset).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: _PresentationCodingKeys.self)
    try container.encode(label, forKey: .label)
    try container.encodeIfPresent(role, forKey: .role)
    try container.encodeIfPresent(action.action, forKey: .action)
  }
}

extension AlertState: Codable where Action: Codable {
  /// Decodes `{"title": …, "message": …, "buttons": […]}`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: _PresentationCodingKeys.self)
    self.init(
      id: UUID(),
      buttons: try container.decodeIfPresent([ButtonState<Action>].self, forKey: .buttons) ?? [],
      message: try container.decodeIfPresent(TextState.self, forKey: .message),
      title: try container.decode(TextState.self, forKey: .title))
  }

  /// Encodes `{"title": …, "message": …, "buttons": […]}` (`message` null when unset).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: _PresentationCodingKeys.self)
    try container.encode(title, forKey: .title)
    try container.encodeIfPresent(message, forKey: .message)
    try container.encode(buttons, forKey: .buttons)
  }
}

extension ConfirmationDialogState: Codable where Action: Codable {
  /// Decodes `{"title": …, "titleVisibility": …, "message": …, "buttons": […]}`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: _PresentationCodingKeys.self)
    self.init(
      id: UUID(),
      buttons: try container.decodeIfPresent([ButtonState<Action>].self, forKey: .buttons) ?? [],
      message: try container.decodeIfPresent(TextState.self, forKey: .message),
      title: try container.decode(TextState.self, forKey: .title),
      titleVisibility: try container.decodeIfPresent(
        ConfirmationDialogStateTitleVisibility.self, forKey: .titleVisibility) ?? .automatic)
  }

  /// Encodes `{"title": …, "titleVisibility": …, "message": …, "buttons": […]}`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: _PresentationCodingKeys.self)
    try container.encode(title, forKey: .title)
    try container.encode(titleVisibility, forKey: .titleVisibility)
    try container.encodeIfPresent(message, forKey: .message)
    try container.encode(buttons, forKey: .buttons)
  }
}
