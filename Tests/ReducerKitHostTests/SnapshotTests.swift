import ReducerKit
@testable import ReducerKitHost
import ReducerKitWire
import Testing

/// A feature at state version 3: v1 had `items: [String]`; v2 added `filter`; v3 renamed
/// `items` to `todos` and made each an object.
private struct Notes: Reducer {
  struct Todo: Codable, Equatable, Sendable {
    var title: String
    var done = false
  }
  struct State: Codable, Equatable, Sendable {
    var todos: [Todo] = []
    var filter = "all"
  }
  enum Action: Codable, Equatable, Sendable { case add(String), setFilter(String) }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .add(title): state.todos.append(Todo(title: title))
    case let .setFilter(filter): state.filter = filter
    }
    return .none
  }
}

private let migrations: [StateMigration] = [
  .from(1) { json in json["filter"] = .string("all") },
  .from(2) { json in
    guard case let .array(items)? = json["items"] else {
      throw MigrationError("expected an array of titles", at: "/items")
    }
    var todos: [JSONValue] = []
    for (index, item) in items.enumerated() {
      guard case .string = item else { throw MigrationError("expected a title (a string)", at: "/items/\(index)") }
      todos.append(.object([(key: "title", value: item), (key: "done", value: .bool(false))]))
    }
    json["todos"] = .array(todos)
    json["items"] = nil
  },
]

private let notes = Feature(
  name: "notes", initialState: Notes.State(), stateVersion: 3, migrations: migrations
) { Notes() }

/// A store of `feature` made with `options` (JSON text), or the error a C host would get.
private func make(_ feature: Feature, _ options: String) -> Result<HostStoreBox, HostError> {
  Array(options.utf8).withUnsafeBytes { bytes in
    do throws(HostError) {
      var parsed = try StoreOptions(parsing: bytes)
      defer { parsed.release() }
      return .success(try feature.makeStore(parsed))
    } catch {
      return .failure(error)
    }
  }
}

private func snapshot(_ box: HostStoreBox) throws -> JSONValue {
  try parseJSON(try Result { () throws(HostError) in try box.table.run.snapshot(box.store) }.get())
}

private func state(_ box: HostStoreBox) throws -> JSONValue {
  var json: [UInt8] = []
  try Result { () throws(HostError) in
    try box.table.run.withStateJSON(box.store) { bytes in json = Array(bytes) }
  }.get()
  return try parseJSON(json)
}

private func send(_ box: HostStoreBox, _ action: String) throws {
  try Array(action.utf8).withUnsafeBytes { bytes in
    try Result { () throws(HostError) in try box.table.run.send(box.store, bytes) }.get()
  }
}

@Suite struct SnapshotTests {
  @Test func aVersionOneSnapshotIsMigratedTwice() throws {
    let box = try make(
      notes, #"{"snapshot": {"feature": "notes", "state_version": 1, "version": 41, "state": {"items": ["milk", "eggs"]}}}"#
    ).get()
    defer { box.table.run.destroy(box.store) }
    #expect(box.table.run.version(box.store) == 41)
    #expect(
      try state(box)
        == parseJSON(#"{"todos": [{"title": "milk", "done": false}, {"title": "eggs", "done": false}], "filter": "all"}"#))
    try send(box, #"{"add": "tea"}"#)
    #expect(box.table.run.version(box.store) == 42)
    let saved = try snapshot(box)
    #expect(saved["state_version"] == .int(3))
    #expect(saved["version"] == .int(42))
    #expect(saved["schema_hash"] == .string(notes.identity.schemaHash))
  }

  @Test func aFailingMigrationNamesItselfAndThePointer() {
    let result = make(
      notes, #"{"snapshot": {"feature": "notes", "state_version": 2, "version": 0, "state": {"items": ["a", 3], "filter": "all"}}}"#)
    guard case let .failure(error) = result else {
      Issue.record("restored a snapshot whose migration fails")
      return
    }
    #expect(error.status == .state)
    #expect(error.message.contains("the migration from state_version 2 to 3 failed at \"/items/1\""))
    #expect(error.message.contains("expected a title (a string)"))
  }

  @Test func aMigratedStateTheFeatureCannotDecodeSaysWhere() {
    let result = make(
      notes, #"{"snapshot": {"feature": "notes", "state_version": 2, "version": 0, "state": {"items": [], "filter": 1}}}"#)
    guard case let .failure(error) = result else {
      Issue.record("restored an undecodable state")
      return
    }
    #expect(error.status == .state)
    #expect(error.message.contains("migrated from state_version 2 to 3"))
    #expect(error.message.contains("\"/filter\""))
  }

  @Test func newerAndForeignSnapshotsAreRefused() {
    guard case let .failure(newer) = make(
      notes, #"{"snapshot": {"feature": "notes", "state_version": 4, "version": 0, "state": {}}}"#)
    else {
      Issue.record("restored a newer snapshot")
      return
    }
    #expect(newer.status == .state)
    #expect(newer.message.contains("state_version 4") && newer.message.contains("state_version 3"))
    guard case let .failure(foreign) = make(
      notes, #"{"snapshot": {"feature": "todos", "state_version": 1, "version": 0, "state": {}}}"#)
    else {
      Issue.record("restored another feature's snapshot")
      return
    }
    #expect(foreign.status == .state)
  }

  @Test func theSchemaHashIsStableAndFollowsTheSchemas() {
    let again = Feature(name: "notes", initialState: Notes.State(), stateVersion: 3, migrations: []) { Notes() }
    #expect(again.identity.schemaHash == notes.identity.schemaHash)
    #expect(notes.identity.schemaHash.count == 16)
    let other = Feature(name: "notes", initialState: 0) { Reduce<Int, Int> { state, action in
      state += action
      return .none
    } }
    #expect(other.identity.schemaHash != notes.identity.schemaHash)
  }

  @Test func pathsBecomePointersOnlyWhenExact() {
    #expect(FeatureIdentity.pointer(of: "$") == "")
    #expect(FeatureIdentity.pointer(of: "$.todos[3].title") == "/todos/3/title")
    #expect(FeatureIdentity.pointer(of: #"$['extra\u001B[31m']"#) == "/extra\u{1B}[31m")
    #expect(FeatureIdentity.pointer(of: #"$['a/b~c'].x"#) == "/a~1b~0c/x")
    #expect(FeatureIdentity.pointer(of: #"$['it\'s\\']"#) == "/it's\\")
    #expect(FeatureIdentity.pointer(of: "$.a…(5 more steps)….b") == nil)
    #expect(FeatureIdentity.pointer(of: #"$['long']…(900 bytes)"#) == nil)
  }

  @Test func anUnknownKeyWithControlCharactersIsNamedExactly() {
    let result = make(
      notes, #"{"snapshot": {"feature": "notes", "state_version": 3, "version": 0, "state": {"todos": [], "filter": "all", "x\u001b[31m": 1}}}"#)
    guard case let .failure(error) = result else {
      Issue.record("restored a state with an unknown key")
      return
    }
    #expect(error.status == .state)
    #expect(error.message.contains(#"at "/x\u001b[31m""#), "\(error.message)")
  }

  /// Random states of the current version: snapshot, restore, the same state and version.
  @Test func randomStatesRoundTrip() throws {
    var generator = SystemRandomNumberGenerator()
    for round in 0..<50 {
      let box = try make(notes, "{}").get()
      let count = Int.random(in: 0..<20, using: &generator)
      for index in 0..<count {
        let title = String((0..<Int.random(in: 0..<12, using: &generator)).map { _ in
          Character(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &generator)))
        })
        let action: JSONValue = index % 5 == 4
          ? .object([(key: "setFilter", value: .string(title))])
          : .object([(key: "add", value: .string(title))])
        try send(box, action.serialized())
      }
      let saved = try snapshot(box)
      let restored = try make(notes, #"{"snapshot": \#(saved.serialized())}"#).get()
      #expect(try state(restored) == state(box), "round \(round)")
      #expect(restored.table.run.version(restored.store) == box.table.run.version(box.store))
      #expect(try snapshot(restored) == saved)
      restored.table.run.destroy(restored.store)
      box.table.run.destroy(box.store)
    }
  }
}
