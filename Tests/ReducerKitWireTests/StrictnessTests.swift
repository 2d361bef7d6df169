import Testing
import ReducerKitWire

/// The wire format is strict: input the types do not describe is an error naming the key, its
/// path and what was expected, never silently dropped.
@Suite struct StrictnessTests {
  let decoder = WireDecoder(rootNoun: "action")

  func failure<T: Decodable>(_ type: T.Type, _ text: String, rootNoun: String = "action") -> WireError? {
    do {
      _ = try WireDecoder(rootNoun: rootNoun).decode(T.self, from: text)
      return nil
    } catch {
      return error
    }
  }

  struct CounterState: Codable, Equatable { var count: Int; var fact: String? }

  @Test func unknownPayloadKeyIsAnError() throws {
    let error = try #require(failure(CounterAction.self, #"{"addTodo": {"title": "a", "titel": "b"}}"#))
    #expect(error.kind == .unknownKey)
    #expect(error.path == "$.addTodo.titel")
    #expect(
      error.description
        == #"unknown key "titel" at $.addTodo.titel (did you mean "title"?); expected keys at $.addTodo: "title""#)
  }

  @Test func unknownStateKeysAtAnyDepth() throws {
    let top = try #require(failure(CounterState.self, #"{"cnt": 3}"#, rootNoun: "state"))
    #expect(top.description == #"unknown key "cnt" at $.cnt (did you mean "count"?); expected keys at $: "count", "fact""#)
    let nested = try #require(
      failure(TodosState.self, #"{"todos":[{"id":1,"title":"a","isComplete":false,"done":true}],"filter":"all","nextID":1}"#))
    #expect(nested.kind == .unknownKey)
    #expect(nested.path == "$.todos[0].done")
    #expect(nested.description.hasSuffix(#"expected keys at $.todos[0]: "id", "title", "isComplete""#))
    // Far from every known key: no suggestion.
    #expect(failure(CounterState.self, #"{"count": 1, "zzzzzz": 3}"#)?.description.contains("did you mean") == false)
    // Dictionaries take any key.
    #expect(try decoder.decode([String: Int].self, from: #"{"anything": 1}"#) == ["anything": 1])
  }

  @Test func secondRootKeyBesideAnAction() throws {
    let error = try #require(failure(CounterAction.self, #"{"addTodo": {"title": "a"}, "x": 1}"#))
    #expect(error.kind == .unknownKey)
    #expect(error.path == "$.x")
    #expect(
      error.description
        == #"unknown key "x" at $.x beside action "addTodo"; an action is a string or an object with exactly one key"#)
    #expect(failure(CounterAction.self, #"{"increment": {}, "x": null}"#)?.path == "$.x")
    // Nested enums too.
    #expect(
      failure(TodosAction.self, #"{"todos":{"element":{"id":1,"action":{"toggle":{},"y":1}}}}"#)?.path
        == "$.todos.element.action.y")
  }

  @Test func swiftSynthesizedFormsAreNotWireForms() throws {
    #expect(failure(CounterAction.self, #"{"setCount": {"_0": 5}}"#)?.description == "expected Int at $.setCount, found object")
    #expect(
      failure(CounterAction.self, #"{"move": {"_0": 0, "_1": 3}}"#)?.description
        == "expected an array of 2 values at $.move, found object")
    #expect(
      failure(CounterAction.self, #"{"move": [0, 3, 5]}"#)?.description
        == "expected an array of 2 values at $.move, found an array of 3 values")
    #expect(
      failure(CounterAction.self, #"{"move": null}"#)?.description
        == "expected an array of 2 values at $.move, found null")
    #expect(failure(CounterAction.self, #"{"addTodo": null}"#)?.description == "expected an object at $.addTodo, found null")
    #expect(failure(Mixed.self, #"{"pair": {"_0": 1, "label": "a", "z": 0}}"#)?.path == "$.pair.z")
    #expect(try decoder.decode(CounterAction.self, from: #"{"move": [0, 3]}"#) == .move(0, 3))
    #expect(try decoder.decode(Mixed.self, from: #"{"pair": {"_0": 1, "label": "a"}}"#) == .pair(1, label: "a"))
  }

  @Test func duplicateKeysAreJSONErrors() throws {
    let error = try #require(failure(CounterAction.self, #"{"addTodo": {"title": "a", "title": "b"}}"#))
    #expect(error.kind == .duplicateKey)
    #expect(error.path == "$.addTodo.title")
    #expect(error.description == #"duplicate key "title" at $.addTodo.title (line 1, column 28, byte offset 27)"#)
    // Large objects (hashed) too.
    let many = (0..<100).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
    #expect(throws: WireError.self) { try parseJSON("{\(many),\"k42\":0}") }
    #expect(try parseJSON("{\(many)}")["k99"] == 99)
    #expect(failure(CounterAction.self, #"{"increment": {}, "increment": {}}"#)?.kind == .duplicateKey)
  }

  @Test func quotedInputIsBoundedAndEscaped() throws {
    let name = "\n\u{1}" + String(repeating: "x", count: 1_000_000)
    let error = try #require(failure(CounterAction.self, JSONValue.string(name).serialized()))
    #expect(error.description.utf8.count < 600)
    #expect(!error.description.contains("\n"))
    #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 })
    #expect(error.description.hasPrefix(#"unknown action "\n\u0001xxxxxxxxxx"#))
    #expect(error.description.contains("…(1000002 bytes) at $; expected one of:"))
    // Keys in paths too.
    let key = "a\tb" + String(repeating: "k", count: 100_000)
    let keyError = try #require(failure(CounterState.self, "{\"count\": 1, \(JSONValue.string(key).serialized()): 2}"))
    #expect(keyError.description.utf8.count < 600)
    #expect(!keyError.description.contains("\t"))
    #expect(keyError.path.hasPrefix(#"$['a\tbkkk"#))
  }

  @Test func longCaseListsAreCut() throws {
    enum Many: String, Codable { case c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15 }
    let error = try #require(failure(Many.self, #""c16""#))
    #expect(error.description.hasSuffix(#""c9", "c10", … (5 more)"#))
    #expect(error.expected.count == 15)
  }

  @Test func deepValuesAreReleasedIteratively() throws {
    var value = try parseJSON(String(repeating: "[", count: 512) + String(repeating: "]", count: 512))
    value.releaseIteratively()
    #expect(value == .null)
    // A deep value that does not match the type is rejected at its top, whatever its depth.
    let deep = #"{"setCount":"# + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "}"
    #expect(failure(CounterAction.self, deep)?.description == "expected Int at $.setCount, found array")
  }
}
