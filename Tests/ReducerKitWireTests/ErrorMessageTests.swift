import Testing
import ReducerKitWire

@Suite struct ErrorMessageTests {
  let decoder = WireDecoder(rootNoun: "action")

  func failure<T: Decodable>(
    _ type: T.Type, _ text: String, decoder: WireDecoder? = nil
  ) -> WireError? {
    do {
      _ = try (decoder ?? self.decoder).decode(T.self, from: text)
      return nil
    } catch {
      return error
    }
  }

  @Test func unknownCaseListsTheCases() throws {
    let error = try #require(failure(CounterAction.self, #""incremnt""#))
    #expect(
      error.description
        == #"unknown action "incremnt" at $ (did you mean "increment"?)"# + counterList
    )
    #expect(error.kind == .unknownCase)
    #expect(error.path == "$")
    #expect(error.expected == counterCases)
    #expect(
      failure(CounterAction.self, #"{"setCont":1}"#)?.description
        == #"unknown action "setCont" at $ (did you mean "setCount"?)"# + counterList
    )
  }

  @Test func formatCharactersAreEscapedLikeControlCharacters() throws {
    // A bidi override (U+202E) reordered the rest of the message on a terminal; a zero-width
    // space (U+200B) hid a difference. Escaped as control characters are, in quotes and paths.
    #expect(
      failure(CounterAction.self, #""inc\u202Ement\u200B""#)?.description.hasPrefix(
        #"unknown action "inc\u202Ement\u200B" at $"#) == true)
    struct One: Decodable { var x: Int }
    #expect(
      failure([String: One].self, #"{"a\u2066b":{"x":"1"}}"#)?.description
        == #"expected Int at $['a\u2066b'].x, found string "1""#)
    #expect(failure(One.self, #"{"x":"\u202A\u0085"}"#)?.description == #"expected Int at $.x, found string "\u202A\u0085""#)
  }

  @Test func rootNounIsConfigurable() throws {
    #expect(
      failure(CounterAction.self, #""x""#, decoder: WireDecoder())?.description
        == #"unknown case "x" at $"# + counterList
    )
  }

  @Test func wrongNumberOfKeysOrWrongShape() throws {
    let list = counterList
    #expect(failure(CounterAction.self, "{}")?.description == "expected an action at $, found empty object" + list)
    #expect(
      failure(CounterAction.self, #"{"increment":{},"decrement":{}}"#)?.description
        == #"expected one key (the action) at $, found 2 keys: "increment", "decrement""# + list)
    #expect(failure(CounterAction.self, "5")?.description == "expected an action at $, found number 5" + list)
    #expect(failure(CounterAction.self, "[]")?.description == "expected an action at $, found empty array" + list)
    #expect(failure(CounterAction.self, "null")?.description == "expected an action at $, found null" + list)
    #expect(
      failure(CounterAction.self, #"{"increment":5}"#)?.description
        == #"case "increment" takes no value at $.increment, found number 5; write it as "increment""#)
  }

  @Test func nestedUnknownCases() throws {
    #expect(
      failure(TodosAction.self, #"{"todos":{"element":{"id":7,"action":"toggel"}}}"#)?.description
        == #"unknown case "toggel" at $.todos.element.action (did you mean "toggle"?); expected one of: "toggle", {"setTitle": <string>}, {"setNote": <string|null>}"#
    )
    #expect(
      failure(TodosAction.self, #"{"todos":{"elem":{}}}"#)?.description
        == #"unknown case "elem" at $.todos; expected one of: {"element": {"id": <int>, "action": <Action>}}"#)
    let raw = try #require(failure(TodosAction.self, #"{"setFilter":"done"}"#))
    #expect(raw.description == #"unknown case "done" at $.setFilter; expected one of: "all", "active", "completed""#)
    #expect(raw.kind == .unknownCase)
    #expect(
      failure(TodosState.self, #"{"todos":[],"filter":"none","nextID":1}"#)?.description
        == #"unknown case "none" at $.filter; expected one of: "all", "active", "completed""#)
    #expect(
      failure(Priority.self, "3")?.description == "unknown action 3 at $; expected one of: 1, 2")
    #expect(
      failure(TodosAction.self, #"{"setFilter":5}"#)?.description
        == "expected a case at $.setFilter, found number 5; expected one of: \"all\", \"active\", \"completed\"")
    #expect(
      failure(TodosState.self, #"{"todos":[],"filter":null,"nextID":1}"#)?.description
        == "expected a case at $.filter, found null; expected one of: \"all\", \"active\", \"completed\"")
  }

  @Test func wrongPayloadType() throws {
    let error = try #require(failure(CounterAction.self, #"{"setCount":"x"}"#))
    #expect(error.description == #"expected Int at $.setCount, found string "x""#)
    #expect(error.kind == .typeMismatch)
    #expect(error.path == "$.setCount")
    // Swift's synthesized `_0` form is not part of the wire format.
    #expect(failure(CounterAction.self, #"{"setCount":{"_0":true}}"#)?.description
      == "expected Int at $.setCount, found object")
    #expect(failure(CounterAction.self, #"{"move":[0,"a"]}"#)?.description
      == #"expected Int at $.move[1], found string "a""#)
    #expect(failure(CounterAction.self, #"{"addTodo":"Milk"}"#)?.description
      == #"expected an object with key "title" at $.addTodo, found string "Milk""#)
  }

  @Test func missingKeysAndValues() throws {
    let error = try #require(failure(CounterAction.self, #"{"addTodo":{}}"#))
    #expect(error.description == #"missing key "title" at $.addTodo"#)
    #expect(error.kind == .missingKey)
    #expect(
      failure(TodosState.self, #"{"todos":[{"id":1,"title":"a"}],"filter":"all","nextID":1}"#)?.description
        == #"missing key "isComplete" at $.todos[0]"#)
    #expect(failure(CounterAction.self, #"{"move":[1]}"#)?.description
      == "missing value [1] at $.move; found an array of 1 value")
    #expect(failure(TodosState.self, #"{"todos":null,"filter":"all","nextID":1}"#)?.description
      == "expected [Todo] (array) at $.todos, found null")
    #expect(failure(Todo.self, #"{"id":null,"title":"a","isComplete":true}"#)?.description
      == "expected Int at $.id, found null")
  }

  @Test func strictIntegers() throws {
    struct One: Decodable { var x: Int }
    struct Small: Decodable { var x: Int8 }
    struct Unsigned: Decodable { var x: UInt }
    #expect(failure(One.self, #"{"x":1.5}"#)?.description == "expected Int at $.x, found number 1.5 (not an integer)")
    #expect(failure(One.self, #"{"x":1e400}"#)?.description == "expected Int at $.x, found number 1e400 (out of range)")
    // A fraction or exponent is taken only when it is exactly the integer its Double is.
    for text in ["1.0000000000000001", "123456789012345678.9", "9007199254740993.0", "1e-400", "-1e-400"] {
      #expect(
        failure(One.self, #"{"x":\#(text)}"#)?.description
          == "expected Int at $.x, found number \(text) (not exactly an integer; write integers without a fraction or exponent)")
      #expect(failure(Int128.self, text) != nil, "\(text)")
      #expect(failure(UInt64.self, text.hasPrefix("-") ? String(text.dropFirst()) : text) != nil, "\(text)")
    }
    struct Exact: Decodable, Equatable { var x: Int64 }
    for (text, value) in [("1.0", 1), ("1e2", 100), ("-0.0", 0), ("2.5e1", 25), ("9007199254740992.0", 1 << 53),
                          ("1e18", 1_000_000_000_000_000_000), ("0e-400", 0), ("1.000000000000000000000", 1)] {
      #expect(try WireDecoder().decode(Exact.self, from: #"{"x":\#(text)}"#) == Exact(x: Int64(value)), "\(text)")
    }
    // Double fields take the same texts as before: the nearest Double.
    #expect(try WireDecoder().decode(Double.self, from: "1.0000000000000001") == 1)
    #expect(try WireDecoder().decode(Double.self, from: "1e-400") == 0)
    #expect(failure(One.self, #"{"x":9223372036854775808}"#)?.description
      == "expected Int at $.x, found number 9223372036854775808 (out of range)")
    #expect(failure(Small.self, #"{"x":300}"#)?.description == "expected Int8 at $.x, found number 300 (out of range)")
    #expect(failure(Unsigned.self, #"{"x":-1}"#)?.description == "expected UInt at $.x, found number -1 (out of range)")
    #expect(failure(One.self, #"{"x":"1"}"#)?.description == #"expected Int at $.x, found string "1""#)
    #expect(failure(Double.self, "1e400")?.description == "expected Double at $, found number 1e400 (out of range)")
    #expect(failure(Float.self, "1e39")?.description == "expected Float at $, found number 1e+39 (out of range)")
  }

  @Test func structShapeErrors() throws {
    #expect(failure(Todo.self, "[]")?.description == "expected Todo (object) at $, found empty array")
    #expect(failure([Int].self, #"{"a":1}"#)?.description == "expected [Int] (array) at $, found object")
    let long = String(repeating: "x", count: 100)
    #expect(failure(Int.self, "\"\(long)\"")?.description
      == "expected Int at $, found string \"\(String(repeating: "x", count: 40))\"…(100 bytes)")
  }

  @Test func pathsQuoteUnusualKeys() throws {
    #expect(failure([String: Int].self, #"{"a b":"x"}"#)?.description == #"expected Int at $['a b'], found string "x""#)
    #expect(failure([String: [Int]].self, #"{"k":[1,"x"]}"#)?.description == #"expected Int at $.k[1], found string "x""#)
  }

  @Test func malformedJSONNamesTheOffset() throws {
    let error = try #require(failure(CounterAction.self, #"{"setCount" 5}"#))
    #expect(error.kind == .syntax)
    #expect(error.offset == 12)
    #expect(error.line == 1)
    #expect(error.column == 13)
    #expect(error.description == "expected ':' after object key at $.setCount (line 1, column 13, byte offset 12), found '5'")
  }
}
