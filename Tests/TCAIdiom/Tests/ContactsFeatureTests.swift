import Foundation
import ReducerKitMacros
import ReducerKitTesting
import Testing

@MainActor
struct ContactsFeatureTests {
  @Test func addFlow() async {
    let store = TestStore(initialState: ContactsFeature.State()) {
      ContactsFeature()
    } withDependencies: {
      $0.uuid = .incrementing
    }
    let id = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    await store.send(.addButtonTapped) {
      $0.destination = .addContact(ContactFormFeature.State(contact: Contact(id: id, name: "")))
    }
    await store.send(\.destination.addContact.setName, "Blob Jr.") {
      $0.destination?.addContact?.contact.name = "Blob Jr."
    }
    await store.send(\.destination.addContact.saveButtonTapped)
    await store.receive(\.destination.addContact.delegate.save, Contact(id: id, name: "Blob Jr.")) {
      $0.contacts = [Contact(id: id, name: "Blob Jr.")]
      $0.destination = nil
    }
  }

  @Test func editFlow() async {
    let id = UUID(uuidString: "DEADBEEF-0000-0000-0000-000000000000")!
    let store = TestStore(
      initialState: ContactsFeature.State(contacts: [Contact(id: id, name: "Blob")])
    ) {
      ContactsFeature()
    }
    await store.send(.editButtonTapped(id: id)) {
      $0.destination = .editContact(ContactFormFeature.State(contact: Contact(id: id, name: "Blob")))
    }
    await store.send(.destination(.presented(.editContact(.setName("Blob Sr."))))) {
      $0.destination?.editContact?.contact.name = "Blob Sr."
    }
    await store.send(.destination(.presented(.editContact(.saveButtonTapped))))
    await store.receive(\.destination.editContact.delegate.save) {
      $0.contacts[id: id]?.name = "Blob Sr."
      $0.destination = nil
    }
  }

  @Test func cancelAndDismiss() async {
    let store = TestStore(initialState: ContactsFeature.State()) {
      ContactsFeature()
    } withDependencies: {
      $0.uuid = .incrementing
    }
    let first = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    let second = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
    await store.send(.addButtonTapped) {
      $0.destination = .addContact(ContactFormFeature.State(contact: Contact(id: first, name: "")))
    }
    await store.send(\.destination.addContact.cancelButtonTapped)
    await store.receive(\.destination.addContact.delegate.cancel) {
      $0.destination = nil
    }
    await store.send(.addButtonTapped) {
      $0.destination = .addContact(ContactFormFeature.State(contact: Contact(id: second, name: "")))
    }
    // The parent dismisses by PresentationAction.dismiss: `ifLet` clears the state.
    await store.send(.destination(.dismiss)) {
      $0.destination = nil
    }
  }

  @Test func childActionWhileDismissedIsReported() async {
    let store = TestStore(initialState: ContactsFeature.State()) {
      ContactsFeature()
    }
    await withKnownIssue {
      await store.send(\.destination.addContact.setName, "Nobody")
    }
  }

  @Test func delete() async {
    let id = UUID(uuidString: "DEADBEEF-0000-0000-0000-000000000000")!
    let store = TestStore(
      initialState: ContactsFeature.State(contacts: [Contact(id: id, name: "Blob")])
    ) {
      ContactsFeature()
    }
    await store.send(.deleteButtonTapped(id: id)) {
      $0.contacts = []
    }
  }
}
