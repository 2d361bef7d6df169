import ReducerKitMacros
@testable import ReducerKitHost
import ReducerKitWire
import Testing

/// A feature presenting an alert, registered for hosts: the alert is state on the wire.
@Reducer
private struct Shelf {
  struct State: Codable, Equatable, Sendable {
    var books = ["Dune"]
    @Presents var alert: AlertState<Action.Alert>?
  }
  enum Action: Codable, Equatable, Sendable {
    case alert(PresentationAction<Alert>)
    case clearTapped
    @CasePathable
    enum Alert: Codable, Equatable, Sendable { case confirmClear }
  }
  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .alert(.presented(.confirmClear)):
        state.books = []
        return .none
      case .alert:
        return .none
      case .clearTapped:
        state.alert = AlertState {
          TextState("Clear the shelf?")
        } actions: {
          ButtonState(role: .destructive, action: .confirmClear) { TextState("Clear") }
          ButtonState(role: .cancel) { TextState("Cancel") }
        }
        return .none
      }
    }
    .ifLet(\.$alert, action: \.alert)
  }
}

private let shelf = Feature(name: "shelf", initialState: Shelf.State()) { Shelf() }

private func make(_ options: String) throws -> HostStoreBox {
  try Array(options.utf8).withUnsafeBytes { bytes in
    try Result { () throws(HostError) in
      var parsed = try StoreOptions(parsing: bytes)
      defer { parsed.release() }
      return try shelf.makeStore(parsed)
    }.get()
  }
}

private func state(_ box: HostStoreBox) throws -> JSONValue {
  var json: [UInt8] = []
  try Result { () throws(HostError) in
    try box.table.run.withStateJSON(box.store) { bytes in json = Array(bytes) }
  }.get()
  return try parseJSON(json)
}

private func send(_ box: HostStoreBox, _ action: String) -> HostError? {
  Array(action.utf8).withUnsafeBytes { bytes in
    do throws(HostError) {
      try box.table.run.send(box.store, bytes)
      return nil
    } catch {
      return error
    }
  }
}

@Suite struct AlertWireTests {
  @Test func anAlertIsStateAndItsButtonsAreActions() throws {
    let box = try make("{}")
    defer { box.table.run.destroy(box.store) }
    #expect(send(box, #""clearTapped""#) == nil)
    let alert = try parseJSON(Array(
      #"{"title": "Clear the shelf?", "message": null, "buttons": [{"label": "Clear", "role": "destructive", "action": "confirmClear"}, {"label": "Cancel", "role": "cancel", "action": null}]}"#.utf8))
    let shown = try state(box)
    #expect(try shown == parseJSON(Array(#"{"books": ["Dune"], "alert": \#(alert.description)}"#.utf8)), "\(shown)")
    let refused = send(box, #"{"alert": {"presented": "burnBooks"}}"#)
    #expect(refused?.status == .action)
    #expect(refused?.message.contains("burnBooks") == true, "\(refused?.message ?? "")")
    #expect(send(box, #"{"alert": {"presented": "confirmClear"}}"#) == nil)
    #expect(try state(box) == parseJSON(#"{"books": [], "alert": null}"#))
  }

  @Test func aSnapshotWithAnAlertRestores() throws {
    let box = try make(
      #"{"initial_state": {"books": ["Emma"], "alert": {"title": "Clear?", "buttons": [{"label": "OK", "action": "confirmClear"}]}}}"#)
    defer { box.table.run.destroy(box.store) }
    #expect(send(box, #"{"alert": {"presented": "confirmClear"}}"#) == nil)
    #expect(try state(box) == parseJSON(#"{"books": [], "alert": null}"#))
  }

  @Test func anAlertWithoutATitleIsRefused() {
    let error = #expect(throws: HostError.self) {
      try make(#"{"initial_state": {"books": [], "alert": {"buttons": []}}}"#)
    }
    #expect(error?.status == .state)
    #expect(error?.message.contains("title") == true, "\(error?.message ?? "")")
  }
}
