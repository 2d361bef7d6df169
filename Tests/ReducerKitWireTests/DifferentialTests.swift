import Testing
@testable import ReducerKitWire

/// The fast codec and the reference codec (Internal/Reference) must write the same bytes,
/// read the same values and report the same errors (status, path and message) for every
/// fixture and for random values generated from the fixtures' JSON Schemas, valid or with one
/// defect. (`make test` also runs every Swift test with `REDUCERKIT_WIRE_CHECK=1`, which
/// compares the two on every encode and decode the tests make.)
@Suite struct DifferentialTests {
  func run<T: Codable>(_ type: T.Type, rootNoun: String = "case", count: Int = 300, seed: UInt64) {
    let (failures, decoded) = _differentialRun(T.self, rootNoun: rootNoun, count: count, seed: seed)
    #expect(failures.isEmpty, "\(failures.count) disagreements; first: \(failures.first ?? "")")
    // Two in three inputs are generated valid: most of them must decode, or the generator
    // (not the codecs) is what this test exercised.
    #expect(decoded >= count / 3, "only \(decoded) of \(count) generated \(T.self) values decoded")
  }

  @Test func actions() {
    run(CounterAction.self, rootNoun: "action", seed: 1)
    run(TodosAction.self, rootNoun: "action", seed: 2)
    run(Todo.Action.self, seed: 3)
    run(Mixed.self, seed: 4)
  }

  @Test func states() {
    run(TodosState.self, rootNoun: "state", seed: 5)
    run(Todo.self, seed: 6)
    run(Numbers.self, seed: 7)
  }

  @Test func otherShapes() {
    run(Filter.self, seed: 9)
    run(Priority.self, seed: 10)
    run(Lonely.self, seed: 11)
    run([String: Int].self, seed: 12)
    run([Int?].self, seed: 13)
    run(JSONValue.self, seed: 14)
  }

  /// Recursive schemas are cut, so most generated trees fail to decode: compared anyway.
  @Test func recursiveValues() {
    for (failures, _) in [
      _differentialRun(Tree.self, rootNoun: "case", count: 200, seed: 15),
      _differentialRun(Node.self, rootNoun: "case", count: 200, seed: 8),
    ] {
      #expect(failures.isEmpty, "\(failures.count) disagreements; first: \(failures.first ?? "")")
    }
  }

  @Test func fixturesEncodeTheSameBothWays() {
    let values: [any Encodable] = [
      CounterAction.increment, CounterAction.setCount(-3), CounterAction.addTodo(title: "a\"b"),
      CounterAction.move(1, 2), TodosAction.todos(.element(id: 3, action: .setNote(nil))),
      TodosState(todos: (0..<50).map { Todo(id: $0, title: "Todo \($0)", isComplete: $0 % 3 == 0) }, filter: .active, nextID: 50),
      Numbers(i8: -128, u8: 255, i64: .min, u64: .max, d: 0.1, f: 0.1), [Double.pi, -0.0, 1e15, 1e-7, 123456789012345.0],
      [Float(0.1), Float(-0.0), Float(1e7), Float(3)], [UInt64.max], JSONValue.number("1e400"),
    ]
    for value in values {
      for explicitNulls in [false, true] {
        let both = _encodeBothWays(value, explicitNulls: explicitNulls)
        #expect(both.fast == both.reference, "\(type(of: value)): fast \(both.fast), reference \(both.reference)")
      }
    }
    // Errors too: a non-finite double deep inside a payload.
    let bad = _encodeBothWays(CounterActionWithDouble.scale(factor: .nan), explicitNulls: false)
    #expect(bad.fast == bad.reference)
    guard case .failure(let error) = bad.reference else {
      Issue.record("NaN encoded")
      return
    }
    #expect(error.path == "$.scale.factor")
  }
}

private enum CounterActionWithDouble: Codable { case scale(factor: Double) }
