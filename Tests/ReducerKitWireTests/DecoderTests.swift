import Testing
import ReducerKitWire

@Suite struct DecoderTests {
  let decoder = WireDecoder(rootNoun: "action")
  let encoder = WireEncoder()

  func roundTrip<T: Codable & Equatable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let text = try encoder.encodeToString(value)
    let back = try decoder.decode(T.self, from: text)
    #expect(back == value, "\(text)", sourceLocation: sourceLocation)
  }

  @Test func roundTripsEveryShape() throws {
    for action in [CounterAction.increment, .decrement, .setCount(-5), .addTodo(title: "Milk"), .move(0, 3)] {
      try roundTrip(action)
    }
    for action in [
      TodosAction.todos(.element(id: 7, action: .toggle)),
      .todos(.element(id: 7, action: .setTitle("x"))),
      .todos(.element(id: 8, action: .setNote(nil))),
      .todos(.element(id: 8, action: .setNote("n"))),
      .addTodo(title: ""), .setFilter(.completed), .clearCompleted,
    ] {
      try roundTrip(action)
    }
    for value in [
      Mixed.pair(1, label: "x"), .triple(1, 2, c: 3), .point(x: 1, y: 2),
      .wrap(Todo(id: 1, title: "a", isComplete: true)), .list([1, 2]), .list([]), .list([7]),
      .opt(nil), .opt(3), .nested(.move(1, 2)), .nested(.increment),
    ] {
      try roundTrip(value)
    }
    try roundTrip(Tree.node(.leaf(1), .node(.leaf(2), .leaf(3))))
    try roundTrip(Node(value: 1, children: [Node(value: 2, children: [Node(value: 3, children: [])])]))
    try roundTrip(Filter.completed)
    try roundTrip(Priority.low)
    try roundTrip(Lonely.only)
    try roundTrip(TodosState(todos: [Todo(id: 1, title: "Milk", isComplete: false)], filter: .active, nextID: 2, editing: 1))
    try roundTrip(TodosState(todos: [], filter: .all, nextID: 0, editing: nil))
    try roundTrip(Numbers(i8: -128, u8: 255, i64: .min, u64: .max, d: 0.1, f: 0.25))
    try roundTrip(["a": [1, 2], "b": []])
    try roundTrip([1: "x", 2: "y"])
  }

  @Test func acceptsTheDocumentedAlternateForms() throws {
    #expect(try decoder.decode(CounterAction.self, from: #"{"increment":{}}"#) == .increment)
    #expect(try decoder.decode(CounterAction.self, from: #"{"increment":null}"#) == .increment)
    #expect(try decoder.decode(Mixed.self, from: #"{"opt":null}"#) == .opt(nil))
    #expect(try decoder.decode(Lonely.self, from: #"{"only":{}}"#) == .only)
    #expect(try decoder.decode(Int.self, from: "1.0") == 1)
    #expect(try decoder.decode(Int.self, from: "1e2") == 100)
    #expect(try decoder.decode(Double.self, from: "3") == 3)
    #expect(try decoder.decode(UInt64.self, from: "18446744073709551615") == .max)
    #expect(try decoder.decode(Int128.self, from: "-170141183460469231731687303715884105728") == .min)
  }

  @Test func decodesFromEveryInputForm() throws {
    let text = #"{"addTodo":{"title":"Milk"}}"#
    let expected = CounterAction.addTodo(title: "Milk")
    #expect(try decoder.decode(CounterAction.self, from: text) == expected)
    #expect(try decoder.decode(CounterAction.self, from: Array(text.utf8)) == expected)
    let viaRaw = try Array(text.utf8).withUnsafeBytes { raw in
      try decoder.decode(CounterAction.self, from: raw)
    }
    #expect(viaRaw == expected)
    #expect(try decoder.decode(CounterAction.self, from: parseJSON(text)) == expected)
  }

  @Test func jsonValueDecodesAnyJSON() throws {
    struct Envelope: Codable, Equatable { var id: Int; var payload: JSONValue }
    let e = try decoder.decode(Envelope.self, from: #"{"id":1,"payload":{"z":[1,"2",null],"a":1.5}}"#)
    #expect(e.payload == ["z": [1, "2", .null], "a": 1.5])
    #expect(try decoder.decode(Envelope.self, from: #"{"id":1,"payload":null}"#).payload == .null)
    #expect(try encoder.encodeToString(e) == #"{"id":1,"payload":{"z":[1,"2",null],"a":1.5}}"#)
  }

  @Test func largeObjectsUseALookupTable() throws {
    struct Wide: Codable, Equatable {
      var a0 = 0, a1 = 1, a2 = 2, a3 = 3, a4 = 4, a5 = 5, a6 = 6, a7 = 7
      var a8 = 8, a9 = 9, b0 = 10, b1 = 11, b2 = 12, b3 = 13, b4 = 14, b5 = 15
    }
    try roundTrip(Wide())
    var many: [String: Int] = [:]
    for i in 0..<5000 { many["k\(i)"] = i }
    try roundTrip(many)
  }

  @Test func customDecodeImplementations() throws {
    // A discriminated enum decoded by hand, with two nested containers alive at once.
    enum Shape: Decodable, Equatable {
      case rect(w: Int, h: Int)
      enum K: CodingKey { case type, origin, size }
      enum XY: CodingKey { case x, y }
      init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: K.self)
        let origin = try c.nestedContainer(keyedBy: XY.self, forKey: .origin)
        let size = try c.nestedContainer(keyedBy: XY.self, forKey: .size)
        guard try c.decode(String.self, forKey: .type) == "rect" else {
          throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown shape")
        }
        _ = try origin.decode(Int.self, forKey: .x)
        self = .rect(w: try size.decode(Int.self, forKey: .x), h: try size.decode(Int.self, forKey: .y))
      }
    }
    let shape = try decoder.decode(
      Shape.self, from: #"{"type":"rect","origin":{"x":0,"y":0},"size":{"x":3,"y":4}}"#)
    #expect(shape == .rect(w: 3, h: 4))
    let error = #expect(throws: WireError.self) {
      try decoder.decode([Shape].self, from: #"[{"type":"circle","origin":{"x":0,"y":0},"size":{"x":3,"y":4}}]"#)
    }
    #expect(error?.description == "invalid Shape at $[0].type: unknown shape")

    struct Validated: Decodable {
      struct TooSmall: Error, CustomStringConvertible { var description: String { "must be at least 1" } }
      init(from decoder: any Decoder) throws {
        if try decoder.singleValueContainer().decode(Int.self) < 1 { throw TooSmall() }
      }
    }
    let custom = #expect(throws: WireError.self) {
      try decoder.decode([String: Validated].self, from: #"{"ok":1,"bad":0}"#)
    }
    #expect(custom?.description == "invalid Validated at $.bad: must be at least 1")
    #expect(custom?.kind == .invalidValue)
  }

  @Test func superDecoderAndCodingPath() throws {
    final class Probe: Decodable {
      var paths: [String] = []
      enum K: CodingKey { case a, b }
      init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: K.self)
        let nested = try c.nestedContainer(keyedBy: K.self, forKey: .a)
        paths.append(nested.codingPath.map(\.stringValue).joined(separator: "/"))
        let sup = try c.superDecoder(forKey: .b)
        paths.append(sup.codingPath.map(\.stringValue).joined(separator: "/"))
        paths.append(String(try sup.singleValueContainer().decode(Int.self)))
      }
    }
    let probe = try decoder.decode([Probe].self, from: #"[{"a":{},"b":5}]"#)
    #expect(probe.first?.paths == ["Index 0/a", "Index 0/b", "5"])
  }

  @Test func stateDecodesFromItsEncoding() throws {
    let state = TodosState(
      todos: (0..<50).map { Todo(id: $0, title: "t\($0)", isComplete: $0.isMultiple(of: 3)) },
      filter: .completed, nextID: 50, editing: 4)
    try roundTrip(state)
  }

  @Test func concurrentUse() async throws {
    let results = await withTaskGroup(of: Bool.self) { group in
      for i in 0..<8 {
        group.addTask {
          let decoder = WireDecoder(rootNoun: "action")
          let encoder = WireEncoder()
          for j in 0..<200 {
            let action = CounterAction.move(i, j)
            guard let text = try? encoder.encodeToString(action),
              (try? decoder.decode(CounterAction.self, from: text)) == action,
              case .some(let error) = Result(catching: { () throws(WireError) in try decoder.decode(CounterAction.self, from: #""x""#) }).failure,
              error.expected == counterCases
            else { return false }
          }
          return true
        }
      }
      return await group.reduce(into: [Bool]()) { $0.append($1) }
    }
    #expect(results.allSatisfy { $0 })
  }
}

extension Result {
  fileprivate var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
