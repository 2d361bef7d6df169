import Foundation
import ReducerKitMacros

struct Contact: Equatable, Identifiable {
  let id: UUID
  var name: String
}

/// A list of contacts with a presented destination (`@Presents`, a `@Reducer enum`, `ifLet`
/// without a trailing closure) and delegate actions back to the parent.
@Reducer
struct ContactsFeature {
  @ObservableState
  struct State: Equatable {
    var contacts: IdentifiedArrayOf<Contact> = []
    @Presents var destination: Destination.State?
  }

  enum Action {
    case addButtonTapped
    case deleteButtonTapped(id: Contact.ID)
    case destination(PresentationAction<Destination.Action>)
    case editButtonTapped(id: Contact.ID)
  }

  @Reducer(state: .equatable)
  enum Destination {
    case addContact(ContactFormFeature)
    case editContact(ContactFormFeature)
  }

  @Dependency(\.uuid) var uuid

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .addButtonTapped:
        state.destination = .addContact(ContactFormFeature.State(contact: Contact(id: uuid(), name: "")))
        return .none

      case let .deleteButtonTapped(id):
        state.contacts.remove(id: id)
        return .none

      case let .destination(.presented(.addContact(.delegate(.save(contact))))):
        state.contacts.append(contact)
        state.destination = nil
        return .none

      case let .destination(.presented(.editContact(.delegate(.save(contact))))):
        state.contacts[id: contact.id] = contact
        state.destination = nil
        return .none

      case .destination(.presented(.addContact(.delegate(.cancel)))),
        .destination(.presented(.editContact(.delegate(.cancel)))):
        // TCA's child would call `@Dependency(\.dismiss)`; here the parent dismisses.
        state.destination = nil
        return .none

      case .destination:
        return .none

      case let .editButtonTapped(id):
        guard let contact = state.contacts[id: id] else { return .none }
        state.destination = .editContact(ContactFormFeature.State(contact: contact))
        return .none
      }
    }
    .ifLet(\.$destination, action: \.destination)
  }
}

/// Adds or edits one contact; tells its parent through delegate actions.
@Reducer
struct ContactFormFeature {
  @ObservableState
  struct State: Equatable {
    var contact: Contact
  }

  enum Action {
    case cancelButtonTapped
    case delegate(Delegate)
    case saveButtonTapped
    case setName(String)

    @CasePathable
    enum Delegate: Equatable {
      case cancel
      case save(Contact)
    }
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .cancelButtonTapped:
        return .send(.delegate(.cancel))

      case .delegate:
        return .none

      case .saveButtonTapped:
        return .send(.delegate(.save(state.contact)))

      case let .setName(name):
        state.contact.name = name
        return .none
      }
    }
  }
}
