import ReducerKitMacros

/// Messages deleted after an alert confirms, and archived from a confirmation dialog:
/// `AlertState` and `ConfirmationDialogState` presented with `@Presents` and `ifLet`.
@Reducer
struct InboxFeature {
  @ObservableState
  struct State: Equatable {
    var messages: [String] = []
    var archived: [String] = []
    @Presents var alert: AlertState<Action.Alert>?
    @Presents var dialog: ConfirmationDialogState<Action.Dialog>?
  }

  enum Action: Equatable {
    case alert(PresentationAction<Alert>)
    case deleteButtonTapped(index: Int)
    case dialog(PresentationAction<Dialog>)
    case menuButtonTapped

    @CasePathable
    enum Alert: Equatable {
      case confirmDeletion(index: Int)
    }

    @CasePathable
    enum Dialog: Equatable {
      case archiveAll
      case deleteAll
    }
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .alert(.presented(.confirmDeletion(index))):
        guard state.messages.indices.contains(index) else { return .none }
        state.messages.remove(at: index)
        if state.messages.isEmpty {
          // Another alert in the place of the one acted on: it stays presented.
          state.alert = AlertState { TextState("Inbox is empty.") }
        }
        return .none

      case .alert:
        return .none

      case let .deleteButtonTapped(index):
        guard state.messages.indices.contains(index) else { return .none }
        state.alert = AlertState {
          TextState("Delete \"\(state.messages[index])\"?")
        } actions: {
          ButtonState(role: .destructive, action: .confirmDeletion(index: index)) {
            TextState("Delete")
          }
          ButtonState(role: .cancel) {
            TextState("Cancel")
          }
        } message: {
          TextState("This cannot be undone.")
        }
        return .none

      case .dialog(.presented(.archiveAll)):
        state.archived += state.messages
        state.messages = []
        return .none

      case .dialog(.presented(.deleteAll)):
        state.messages = []
        return .none

      case .dialog:
        return .none

      case .menuButtonTapped:
        state.dialog = .inboxMenu(count: state.messages.count)
        return .none
      }
    }
    .ifLet(\.$alert, action: \.alert)
    .ifLet(\.$dialog, action: \.dialog)
  }
}

extension ConfirmationDialogState where Action == InboxFeature.Action.Dialog {
  /// The inbox menu: archiving only when there is something to archive.
  static func inboxMenu(count: Int) -> Self {
    ConfirmationDialogState(titleVisibility: .visible) {
      TextState("\(count) messages")
    } actions: {
      if count > 0 {
        ButtonState(action: .archiveAll) { TextState("Archive all") }
        ButtonState(role: .destructive, action: .deleteAll) { TextState("Delete all") }
      }
      ButtonState(role: .cancel) { TextState("Cancel") }
    }
  }
}
