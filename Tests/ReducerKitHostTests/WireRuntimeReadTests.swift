import ReducerKit
import ReducerKitExamples
@testable import ReducerKitHost
@testable import ReducerKitWire
import Testing

/// The shipped features' `WireCodable` types (their shapes are in Wire.generated.swift) are
/// encoded, decoded, reported in errors, described by schemas and patched without any read of
/// the runtime's layout (Internal/ABI/Runtime.swift records every read in debug builds).
@Suite struct WireRuntimeReadTests {
  /// The shipped `WireCodable` types; a read of one of them, or of a type nested in one (its
  /// synthesized `CodingKeys`, a case's `…CodingKeys`), counts.
  static let wireTypes: [Any.Type] = [
    Counter.State.self, Counter.Action.self, Todos.Todo.self, Todos.State.self, Todos.Action.self,
    Search.State.self, Search.Action.self,
  ]

  /// The recorded reads that concern `wireTypes`, by type name (a private type's
  /// `(unknown context at $…).` left out).
  static func wireReads() -> [String] {
    let names = wireTypes.map { String(reflecting: $0) }
    return _debugRuntimeReads().map { read in
      read.replacing(#/\(unknown context at \$[0-9a-f]+\)\./#, with: "")
    }.filter { read in
      names.contains { read == $0 || read.hasPrefix($0 + ".") }
    }.sorted()
  }

  /// Runs every codec and patch operation on the shipped features' types.
  static func exercise() throws {
    let encoder = WireEncoder(explicitNulls: true)
    let decoder = WireDecoder(rootNoun: "action")
    let todos = Todos.State(todos: [.init(id: 1, title: "a \"q\""), .init(id: 2, title: "b", isComplete: true)], nextID: 3)
    _ = try encoder.encode(Counter.State())
    _ = try encoder.encode(todos)
    _ = try encoder.encode(Search.State(query: "q", results: ["r"]))
    for action in [Counter.Action.increment, .setCount(5), .factResponse("f")] {
      let bytes = try encoder.encode(action)
      #expect(try decoder.decode(Counter.Action.self, from: bytes) == action)
    }
    for action in [Todos.Action.addTodo(title: "t"), .toggle(id: 1), .setFilter(.active), .clearCompleted] {
      let bytes = try encoder.encode(action)
      #expect(try decoder.decode(Todos.Action.self, from: bytes) == action)
    }
    _ = try decoder.decode(Search.Action.self, from: #"{"searchResponse": ["a"]}"#)
    _ = try decoder.decode(Counter.Action.self, from: #" {"setCount": 7} "#)
    _ = try decoder.decode(Todos.State.self, from: try encoder.encode(todos))
    _ = try decoder.decode(Counter.State.self, from: #"{"count": 1, "isTimerOn": false}"#)
    // Errors: an unknown case, a wrong payload, an unknown and a missing key.
    for (type, text) in [
      (Counter.Action.self as any Decodable.Type, #""incremnt""#), (Counter.Action.self, #"{"setCount": "x"}"#),
      (Todos.Action.self, #"{"addTodo": {"titel": "x"}}"#), (Counter.State.self, #"{"count": 1, "bogus": 2}"#),
      (Todos.Todo.self, #"{"id": 1}"#), (Search.Action.self, #"{"queryChanged": 1}"#),
    ] {
      #expect(throws: WireError.self) { _ = try decoder.decode(type, from: text) }
    }
    for type in wireTypes {
      guard let type = type as? any Decodable.Type else { continue }
      _ = jsonSchema(for: type)
      _ = caseSignatures(of: type)
    }
    // Patches.
    let store = HostStore(initialState: todos, reducer: Todos(), options: StoreOptions(), provided: [])
    var version = try InPlacePatchTests.patch(store, since: 0).version
    for action in [#"{"toggle": {"id": 1}}"#, #"{"addTodo": {"title": "n"}}"#, #"{"setFilter": "completed"}"#] {
      try InPlacePatchTests.send(store, Array(action.utf8))
      version = try InPlacePatchTests.patch(store, since: version).version
    }
  }

  /// The schemas and case signatures with keys from the shapes are those with keys read from
  /// the runtime (A2/A3), for the shipped features.
  @Test func schemasFromShapesAreTheSame() {
    for type in Self.wireTypes {
      guard let type = type as? any Decodable.Type else { continue }
      let (fromShapes, fromRuntime) = (Self.schema(type, keysFromShapes: true), Self.schema(type, keysFromShapes: false))
      #expect(fromShapes == fromRuntime, "\(type)")
    }
  }

  static func schema<T: Decodable>(_ type: T.Type, keysFromShapes: Bool) -> JSONValue {
    _ProbeSession(keysFromShapes: keysFromShapes).schema(of: T.self)
  }

  #if DEBUG
    @Test func theShippedFeaturesReadNoRuntimeLayout() throws {
      // This thread's reads only (other tests run side by side, some reading on purpose).
      _debugResetRuntimeReads()
      try Self.exercise()
      // With REDUCERKIT_WIRE_CHECK=1 or REDUCERKIT_WIRE_FAST_PATHS=0 the reference codec, which
      // never reads shapes, decodes too: its key lists come from A2/A3.
      guard _wireCodecMode == .fast else { return }
      #expect(Self.wireReads() == [])
    }
  #endif
}
