import Testing
import ReducerKitWire

@Suite struct EncoderTests {
  let encoder = WireEncoder()

  func json<T: Encodable>(_ value: T) throws -> String { try encoder.encodeToString(value) }

  @Test func wireFormOfEnumCases() throws {
    #expect(try json(CounterAction.increment) == #""increment""#)
    #expect(try json(CounterAction.setCount(5)) == #"{"setCount":5}"#)
    #expect(try json(CounterAction.addTodo(title: "Milk")) == #"{"addTodo":{"title":"Milk"}}"#)
    #expect(try json(CounterAction.move(0, 3)) == #"{"move":[0,3]}"#)
    #expect(try json(Filter.active) == #""active""#)
    #expect(try json(Priority.high) == "2")
    #expect(try json(Lonely.only) == #""only""#)
  }

  @Test func childActions() throws {
    #expect(
      try json(TodosAction.todos(.element(id: 7, action: .toggle)))
        == #"{"todos":{"element":{"id":7,"action":"toggle"}}}"#)
    #expect(
      try json(TodosAction.todos(.element(id: 7, action: .setTitle("x"))))
        == #"{"todos":{"element":{"id":7,"action":{"setTitle":"x"}}}}"#)
    #expect(try json(TodosAction.setFilter(.completed)) == #"{"setFilter":"completed"}"#)
    #expect(try json(TodosAction.clearCompleted) == #""clearCompleted""#)
  }

  @Test func otherPayloadShapes() throws {
    #expect(try json(Mixed.pair(1, label: "x")) == #"{"pair":{"_0":1,"label":"x"}}"#)
    #expect(try json(Mixed.triple(1, 2, c: 3)) == #"{"triple":{"_0":1,"_1":2,"c":3}}"#)
    #expect(try json(Mixed.point(x: 1, y: 2)) == #"{"point":{"x":1,"y":2}}"#)
    #expect(
      try json(Mixed.wrap(Todo(id: 1, title: "a", isComplete: false)))
        == #"{"wrap":{"id":1,"title":"a","isComplete":false}}"#)
    #expect(try json(Mixed.list([1, 2])) == #"{"list":[1,2]}"#)
    #expect(try json(Mixed.list([])) == #"{"list":[]}"#)
    #expect(try json(Mixed.opt(4)) == #"{"opt":4}"#)
    #expect(try json(Mixed.opt(nil)) == #""opt""#)
    #expect(try json(Mixed.nested(.move(1, 2))) == #"{"nested":{"move":[1,2]}}"#)
    #expect(try json(Mixed.nested(.increment)) == #"{"nested":"increment"}"#)
    #expect(try json(Tree.node(.leaf(1), .node(.leaf(2), .leaf(3))))
      == #"{"node":[{"leaf":1},{"node":[{"leaf":2},{"leaf":3}]}]}"#)
  }

  @Test func structsArraysAndOptionals() throws {
    let state = TodosState(
      todos: [
        Todo(id: 1, title: "Milk", isComplete: false),
        Todo(id: 2, title: "Eggs", isComplete: true),
      ],
      filter: .all, nextID: 3, editing: nil)
    #expect(
      try json(state)
        == #"{"todos":[{"id":1,"title":"Milk","isComplete":false},{"id":2,"title":"Eggs","isComplete":true}],"filter":"all","nextID":3}"#
    )
    var editing = state
    editing.editing = 2
    #expect(try json(editing).hasSuffix(#","nextID":3,"editing":2}"#))
    #expect(try json([Int?.none, 1]) == "[null,1]")
    #expect(try json(Node(value: 1, children: [Node(value: 2, children: [])]))
      == #"{"value":1,"children":[{"value":2,"children":[]}]}"#)
    #expect(try json([String: Int]()) == "{}")
    #expect(try json(["a": 1]) == #"{"a":1}"#)
    #expect(try json(Set<Int>()) == "[]")
  }

  @Test func stringEscapes() throws {
    #expect(try json("a\"b\\c\n\r\t\u{8}\u{c}\u{1}\u{1f}/é😀") == #""a\"b\\c\n\r\t\b\f\u0001\u001f/é😀""#)
    #expect(try json("") == #""""#)
    #expect(try json(String(repeating: "x", count: 40)) == "\"" + String(repeating: "x", count: 40) + "\"")
    #expect(try json(["k\"ey": 1]) == #"{"k\"ey":1}"#)
  }

  @Test func numbers() throws {
    #expect(try json(0.1) == "0.1")
    #expect(try json(1.0) == "1.0")
    #expect(try json(-0.0) == "-0.0")
    #expect(try json(1e20) == "1e+20")
    #expect(try json(123456789.5) == "123456789.5")
    #expect(try json(Double.leastNonzeroMagnitude) == "5e-324")
    #expect(try json(Float(0.1)) == "0.1")
    #expect(try json(Int64.min) == "-9223372036854775808")
    #expect(try json(UInt64.max) == "18446744073709551615")
    #expect(
      try json(Numbers(i8: -128, u8: 255, i64: Int64.max, u64: 0, d: 2.5, f: 3))
        == #"{"i8":-128,"u8":255,"i64":9223372036854775807,"u64":0,"d":2.5,"f":3.0}"#)
  }

  @Test func nonFiniteDoublesAreErrorsWithPath() throws {
    struct Score: Encodable { var name = "a"; var value: Double }
    struct Board: Encodable { var scores: [Score] }
    let error = #expect(throws: WireError.self) {
      try encoder.encode(Board(scores: [Score(value: 1), Score(value: .nan)]))
    }
    #expect(error?.kind == .invalidValue)
    #expect(error?.path == "$.scores[1].value")
    #expect(error?.description == "invalid value at $.scores[1].value: Double nan is not representable in JSON")
    #expect(throws: WireError.self) { try encoder.encode(Double.infinity) }
  }

  @Test func jsonValueEncodesAsItsJSON() throws {
    let value: JSONValue = ["b": [1, 2.5, "x", true, .null], "a": .number("1e400")]
    #expect(try json(value) == #"{"b":[1,2.5,"x",true,null],"a":1e400}"#)
    #expect(try encoder.encodeToJSONValue(CounterAction.move(1, 2)) == ["move": [1, 2]])
  }

  @Test func withEncodedBytesAvoidsACopy() throws {
    let count = try encoder.withEncodedBytes(CounterAction.setCount(12)) { $0.count }
    #expect(count == #"{"setCount":12}"#.utf8.count)
  }

  @Test func customEncodeImplementations() throws {
    // Several containers for one value, nested containers, a super encoder, a single value.
    class Base: Encodable {
      var id = 1
      func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        try c.encode(id, forKey: .id)
      }
      enum K: CodingKey { case id, name, extra, meta, list, `super` }
    }
    final class Derived: Base {
      var name = "n"
      override func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        try c.encode(name, forKey: .name)
        try super.encode(to: c.superEncoder())
        var meta = c.nestedContainer(keyedBy: K.self, forKey: .meta)
        try meta.encode(true, forKey: .extra)
        var list = c.nestedUnkeyedContainer(forKey: .list)
        try list.encode(1)
        var inner = list.nestedContainer(keyedBy: K.self)
        try inner.encode(2, forKey: .id)
        try list.encodeNil()
        var again = encoder.container(keyedBy: K.self)
        try again.encode(3, forKey: .extra)
      }
    }
    #expect(
      try json(Derived())
        == #"{"name":"n","super":{"id":1},"meta":{"extra":true},"list":[1,{"id":2},null],"extra":3}"#)

    struct Wrapper: Encodable {
      var inner: CounterAction
      func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(inner)
      }
    }
    #expect(try json(Wrapper(inner: .setCount(1))) == #"{"setCount":1}"#)
    #expect(try json([Wrapper(inner: .increment)]) == #"["increment"]"#)

    // A struct's empty nested container stays an object (only enums use the wire form).
    struct EmptyNested: Encodable {
      enum K: CodingKey { case a, _0 }
      func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        _ = c.nestedContainer(keyedBy: K.self, forKey: .a)
        var positional = c.nestedContainer(keyedBy: K.self, forKey: ._0)
        try positional.encode(1, forKey: ._0)
      }
    }
    #expect(try json(EmptyNested()) == #"{"a":{},"_0":{"_0":1}}"#)
    #expect(try json(Int?.none) == "null")
    #expect(try json([CounterAction?.none, .increment]) == #"[null,"increment"]"#)

    struct Nothing: Encodable { func encode(to encoder: any Encoder) throws {} }
    #expect(try json(Nothing()) == "{}")
    #expect(try json([Nothing()]) == "[{}]")
  }

  @Test func containerUsedAfterItsSiblingIsAnError() throws {
    struct Bad: Encodable {
      enum K: CodingKey { case a, b, x }
      func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        var a = c.nestedContainer(keyedBy: K.self, forKey: .a)
        try c.encode(1, forKey: .b)
        try a.encode(2, forKey: .x)
      }
    }
    let error = #expect(throws: WireError.self) { try encoder.encode(Bad()) }
    #expect(error?.kind == .invalidValue)
    #expect(error?.description.contains("unsupported use of the encoder") == true)
  }

  @Test func swallowedErrorsStillFailTheEncoding() throws {
    struct Swallow: Encodable {
      enum K: CodingKey { case a, b }
      func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        try? c.encode(Double.nan, forKey: .a)
        try c.encode(1, forKey: .b)
      }
    }
    #expect(throws: WireError.self) { try encoder.encode(Swallow()) }
  }

  @Test func largeStateIsValidJSON() throws {
    let state = TodosState(
      todos: (0..<1000).map { Todo(id: $0, title: "Todo \($0) \"quoted\"", isComplete: $0 % 2 == 0) },
      filter: .active, nextID: 1000)
    let bytes = try encoder.encode(state)
    let back = try WireDecoder().decode(TodosState.self, from: bytes)
    #expect(back == state)
  }
}

@Suite struct ExplicitNullTests {
  struct State: Codable, Equatable {
    var count = 1
    var fact: String?
    var nested: Inner?
    struct Inner: Codable, Equatable { var x = 2 }
  }

  @Test func nilIsOmittedByDefaultAndNullWithExplicitNulls() throws {
    #expect(try WireEncoder().encodeToString(State()) == #"{"count":1}"#)
    #expect(try WireEncoder(explicitNulls: true).encodeToString(State()) == #"{"count":1,"fact":null,"nested":null}"#)
    let full = State(count: 1, fact: "f", nested: .init())
    #expect(try WireEncoder(explicitNulls: true).encodeToString(full) == #"{"count":1,"fact":"f","nested":{"x":2}}"#)
    let back = try WireDecoder().decode(State.self, from: #"{"count":1,"fact":null,"nested":null}"#)
    #expect(back == State())
  }

  enum Action: Codable, Equatable { case setCount(Int), reset }

  @Test func nullPayloadNeverShowsSyntheticKeys() {
    #expect(throws: WireError.self) { try WireDecoder(rootNoun: "action").decode(Action.self, from: #"{"setCount":null}"#) }
    do {
      _ = try WireDecoder(rootNoun: "action").decode(Action.self, from: #"{"setCount":null}"#)
    } catch {
      #expect(!error.message.contains("_0"), "\(error.message)")
      #expect(error.message.contains("$.setCount"), "\(error.message)")
    }
  }
}
