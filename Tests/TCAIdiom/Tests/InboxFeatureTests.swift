import ReducerKitMacros
import ReducerKitTesting
import Testing

@MainActor
struct InboxFeatureTests {
  @Test func confirmingTheAlertDeletesAndDismissesIt() async {
    let store = TestStore(initialState: InboxFeature.State(messages: ["Hi", "Lunch?"])) {
      InboxFeature()
    }
    await store.send(.deleteButtonTapped(index: 1)) {
      $0.alert = AlertState {
        TextState("Delete \"Lunch?\"?")
      } actions: {
        ButtonState(role: .destructive, action: .confirmDeletion(index: 1)) {
          TextState("Delete")
        }
        ButtonState(role: .cancel) {
          TextState("Cancel")
        }
      } message: {
        TextState("This cannot be undone.")
      }
    }
    await store.send(\.alert.confirmDeletion, 1) {
      $0.messages = ["Hi"]
      $0.alert = nil
    }
  }

  @Test func anAlertPresentedInPlaceOfTheOneActedOnStays() async {
    let store = TestStore(initialState: InboxFeature.State(messages: ["Hi"])) {
      InboxFeature()
    }
    await store.send(.deleteButtonTapped(index: 0)) {
      $0.alert = AlertState {
        TextState("Delete \"Hi\"?")
      } actions: {
        ButtonState(role: .destructive, action: .confirmDeletion(index: 0)) { TextState("Delete") }
        ButtonState(role: .cancel) { TextState("Cancel") }
      } message: {
        TextState("This cannot be undone.")
      }
    }
    await store.send(.alert(.presented(.confirmDeletion(index: 0)))) {
      $0.messages = []
      $0.alert = AlertState { TextState("Inbox is empty.") }
    }
    await store.send(.alert(.dismiss)) {
      $0.alert = nil
    }
  }

  @Test func dismissingTheAlertKeepsTheMessage() async {
    let store = TestStore(initialState: InboxFeature.State(messages: ["Hi"])) {
      InboxFeature()
    }
    await store.send(.deleteButtonTapped(index: 0)) {
      $0.alert = AlertState {
        TextState("Delete \"Hi\"?")
      } actions: {
        ButtonState(role: .destructive, action: .confirmDeletion(index: 0)) { TextState("Delete") }
        ButtonState(role: .cancel) { TextState("Cancel") }
      } message: {
        TextState("This cannot be undone.")
      }
    }
    await store.send(.alert(.dismiss)) {
      $0.alert = nil
    }
  }

  @Test func theDialogArchivesAndIsGoneAfterwards() async {
    let store = TestStore(initialState: InboxFeature.State(messages: ["Hi"])) {
      InboxFeature()
    }
    await store.send(.menuButtonTapped) {
      $0.dialog = .inboxMenu(count: 1)
    }
    await store.send(.dialog(.presented(.archiveAll))) {
      $0.archived = ["Hi"]
      $0.messages = []
      $0.dialog = nil
    }
    await store.send(.menuButtonTapped) {
      $0.dialog = .inboxMenu(count: 0)
    }
    #expect(store.state.dialog?.buttons.map(\.label) == [TextState("Cancel")])
  }

  @Test func alertsCompareByContentNotIdentity() {
    typealias Alert = AlertState<InboxFeature.Action.Alert>
    let make = { (message: String) in
      Alert {
        TextState("Delete?")
      } actions: {
        ButtonState(role: .destructive, action: .confirmDeletion(index: 0)) { TextState("Delete") }
      } message: {
        TextState(message)
      }
    }
    let alert = make("Gone for good.")
    #expect(alert == make("Gone for good."))
    #expect(alert.id != make("Gone for good.").id)
    #expect(alert != make("Maybe."))
    #expect(alert != Alert { TextState("Delete?") })
    #expect(String(state: alert.title) == "Delete?")
    #expect(alert.buttons.first?.role == .destructive)
    var sent: InboxFeature.Action.Alert?
    alert.buttons.first?.withAction { sent = $0 }
    #expect(sent == .confirmDeletion(index: 0))
    let mapped = alert.map { $0.map { InboxFeature.Action.alert(.presented($0)) } }
    #expect(mapped.buttons.first?.action.action == .alert(.presented(.confirmDeletion(index: 0))))
    #expect(TextState("a") + TextState("b") == TextState("ab"))
  }
}
