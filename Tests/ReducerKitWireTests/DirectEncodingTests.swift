import Testing
@testable import ReducerKitWire

// `SynthesizedCodable` structs are written from their stored properties (DirectEncoding.swift)
// once their first values encoded to the same bytes both ways. These tests check that the
// direct path writes what `encode(to:)` writes, that it is really taken, and that a broken
// promise (a hand-written `encode(to:)`, renamed keys, a property wrapper) falls back.

struct DirectTodo: SynthesizedCodable, Equatable, Sendable {
  var id: Int
  var title: String
  var isComplete: Bool
}

struct DirectNumbers: SynthesizedCodable, Equatable, Sendable {
  var i8: Int8
  var u8: UInt8
  var i32: Int32
  var u32: UInt32
  var i64: Int64
  var u64: UInt64
  var u: UInt
  var d: Double
  var f: Float
  var maybe: Double?
}

struct DirectState: SynthesizedCodable, Equatable, Sendable {
  var todos: [DirectTodo]
  var filter: Filter
  var nextID: Int
  var editing: Int?
  var note: String?
  var numbers: DirectNumbers?
  var tree: Node
  var last: Todo.Action
}

struct DirectBox<Value: Codable & Equatable & Sendable>: SynthesizedCodable, Equatable, Sendable {
  var value: Value
  var values: [Value]
  var maybe: Value?
}

/// Breaks the promise: its `encode(to:)` is hand-written and adds one.
struct Liar: SynthesizedCodable, Equatable, Sendable {
  var count: Int

  enum CodingKeys: String, CodingKey { case count }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(count + 1, forKey: .count)
  }
}

/// Renames a key: the synthesized `encode(to:)` writes "name", not "title".
struct RenamedKey: SynthesizedCodable, Equatable, Sendable {
  var title: String
  enum CodingKeys: String, CodingKey { case title = "name" }
}

@propertyWrapper
struct Clamped: Codable, Equatable, Sendable {
  var value: Int
  var wrappedValue: Int {
    get { value }
    set { value = min(newValue, 10) }
  }
  init(wrappedValue: Int) { value = min(wrappedValue, 10) }
}

/// A property wrapper's storage is `_level`: no direct path.
struct Wrapped: SynthesizedCodable, Equatable, Sendable {
  @Clamped var level: Int
  var name: String
}

/// Deterministic values (xorshift).
struct Values {
  var state: UInt64
  mutating func next() -> UInt64 {
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    return state
  }
  mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
  mutating func string() -> String {
    let pieces = ["a", "Milk", "\"q\"", "back\\slash", "tab\t", "é", "日本", "🙂", "\u{1}", "/", " "]
    return (0..<int(0...4)).map { _ in pieces[int(0...(pieces.count - 1))] }.joined()
  }
  mutating func todo() -> DirectTodo {
    DirectTodo(id: int(-5...1_000_000), title: string(), isComplete: next() % 2 == 0)
  }
  mutating func numbers() -> DirectNumbers {
    DirectNumbers(
      i8: Int8(truncatingIfNeeded: next()), u8: UInt8(truncatingIfNeeded: next()),
      i32: Int32(truncatingIfNeeded: next()), u32: UInt32(truncatingIfNeeded: next()),
      i64: Int64(bitPattern: next()), u64: next(), u: UInt(truncatingIfNeeded: next()),
      d: Double(int(-1000...1000)) / 8, f: Float(int(-100...100)) / 4,
      maybe: next() % 2 == 0 ? nil : Double(int(0...9)) * 1.5)
  }
  mutating func directState() -> DirectState {
    DirectState(
      todos: (0..<int(0...4)).map { _ in todo() }, filter: [.all, .active, .completed][int(0...2)],
      nextID: int(0...99), editing: next() % 2 == 0 ? nil : int(0...9),
      note: next() % 3 == 0 ? nil : string(), numbers: next() % 2 == 0 ? nil : numbers(),
      tree: Node(value: int(0...9), children: [Node(value: 1, children: [])]),
      last: [.toggle, .setTitle(string()), .setNote(nil), .setNote("n")][int(0...3)])
  }
}

/// Encodes runs of elements with `encode(contentsOf:)`, as `TrackedArray` does per leaf.
struct Runs<Element: Encodable & Sendable>: Encodable, Sendable {
  var runs: [ContiguousArray<Element>]
  func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    for run in runs { try container.encode(contentsOf: run) }
    try container.encode(contentsOf: runs.first.map(Array.init) ?? [])  // an Array too
  }
}

@Suite struct DirectEncodingTests {
  /// Both encoders, both null styles: the direct path's bytes must be the reference
  /// encoder's (which always goes through `encode(to:)`).
  func expectSame<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) {
    for nulls in [false, true] {
      let direct = Result { () throws(WireError) in try WireEncoder(explicitNulls: nulls).encode(value) }
      let reference = Result { () throws(WireError) in try _referenceEncode(value, explicitNulls: nulls) }
      switch (direct, reference) {
      case (.success(let a), .success(let b)):
        #expect(
          a == b, "explicitNulls \(nulls): \(String(decoding: a, as: UTF8.self)) != \(String(decoding: b, as: UTF8.self))",
          sourceLocation: sourceLocation)
      case (.failure(let a), .failure(let b)):
        #expect(a == b, sourceLocation: sourceLocation)
      default:
        Issue.record("explicitNulls \(nulls): \(direct) versus \(reference)", sourceLocation: sourceLocation)
      }
    }
  }

  /// Whether the direct path was taken: with `REDUCERKIT_WIRE_FAST_PATHS=0` it never is (and
  /// this says yes, so the expectations below still hold the bytes to the reference).
  func isTrusted<T>(_ type: T.Type) -> Bool {
    if !_wireFastPaths { return true }
    if case .trusted = _directState(T.self) { return true }
    return false
  }

  func isUnsupported<T>(_ type: T.Type) -> Bool {
    if case .unsupported = _directState(T.self) { return true }
    return false
  }

  @Test func writesWhatEncodeToWrites() {
    var values = Values(state: 0x9E37_79B9_7F4A_7C15)
    for _ in 0..<200 {
      expectSame(values.todo())
      expectSame(values.numbers())
      expectSame(values.directState())
      expectSame(DirectBox(value: values.int(0...9), values: [1, 2], maybe: nil))
      expectSame(DirectBox(value: values.todo(), values: [values.todo()], maybe: values.todo()))
      expectSame(DirectBox(value: Filter.active, values: [], maybe: .completed))
    }
    // The direct path was taken, not only checked.
    #expect(isTrusted(DirectTodo.self))
    #expect(isTrusted(DirectNumbers.self))
    #expect(isTrusted(DirectState.self))
    #expect(isTrusted(DirectBox<Int>.self))
    #expect(isTrusted(DirectBox<DirectTodo>.self))
    #expect(!isTrusted(Todo.self) || !_wireFastPaths)  // not SynthesizedCodable
  }

  @Test func exactBytes() throws {
    for _ in 0..<(_directChecks + 4) {
      let todo = DirectTodo(id: -12, title: "a \"b\"\n", isComplete: true)
      #expect(try WireEncoder().encodeToString(todo) == #"{"id":-12,"title":"a \"b\"\n","isComplete":true}"#)
      let box = DirectBox<Int?>(value: nil, values: [1, nil], maybe: .some(nil))
      #expect(try WireEncoder().encodeToString(box) == #"{"value":null,"values":[1,null],"maybe":null}"#)
      #expect(
        try WireEncoder(explicitNulls: true).encodeToString(DirectBox<Int>(value: 1, values: [], maybe: nil))
          == #"{"value":1,"values":[],"maybe":null}"#)
      #expect(
        try WireEncoder().encodeToString(DirectBox<Int>(value: 1, values: [], maybe: nil))
          == #"{"value":1,"values":[]}"#)
    }
    #expect(isTrusted(DirectTodo.self))
  }

  /// Strings of every length up to past the buffer's first sizes, in every property order
  /// (a string that fills the buffer exactly must leave room for what follows it).
  @Test func longStrings() throws {
    for length in 0..<700 {
      let title = String(repeating: "k", count: length)
      let todo = DirectTodo(id: length, title: title, isComplete: length % 2 == 0)
      let expected = #"{"id":\#(length),"title":"\#(title)","isComplete":\#(length % 2 == 0)}"#
      #expect(try WireEncoder().encodeToString(todo) == expected)
      #expect(try WireEncoder().encodeToString([todo, todo]) == "[\(expected),\(expected)]")
    }
    #expect(isTrusted(DirectTodo.self))
  }

  /// Runs written in one loop (`encode(contentsOf:)`) give the bytes `encode(to:)` gives,
  /// before and after the type is trusted, with elements of other types mixed in.
  @Test func runsOfElements() throws {
    var values = Values(state: 0x1234_5678_9ABC_DEF1)
    for round in 0..<40 {
      let runs = (0..<(round % 4)).map { _ in ContiguousArray((0..<values.int(0...40)).map { _ in values.todo() }) }
      expectSame(Runs(runs: runs))
      expectSame(Runs(runs: [ContiguousArray((0..<3).map { _ in values.numbers() })]))
      expectSame(Runs(runs: [[values.int(0...9), 3]]))
    }
    #expect(isTrusted(DirectTodo.self))
  }

  @Test func errorsKeepTheirPath() throws {
    for i in 0..<(_directChecks + 4) {
      expectSame(DirectNumbers(i8: 1, u8: 2, i32: 3, u32: 4, i64: 5, u64: 6, u: 7, d: Double(i), f: 1, maybe: nil))
    }
    #expect(isTrusted(DirectNumbers.self))
    let bad = DirectNumbers(i8: 1, u8: 2, i32: 3, u32: 4, i64: 5, u64: 6, u: 7, d: 1, f: 1, maybe: .infinity)
    expectSame(bad)
    expectSame(DirectBox(value: bad, values: [], maybe: nil))
    #expect(throws: WireError.self) { try WireEncoder().encode(DirectBox(value: bad, values: [], maybe: nil)) }
    do {
      _ = try WireEncoder().encode(DirectBox(value: bad, values: [bad], maybe: nil))
    } catch {
      #expect(error.path == "$.value.maybe")
    }
  }

  @Test func brokenPromisesFallBack() throws {
    for count in 0..<40 {
      #expect(try WireEncoder().encodeToString(Liar(count: count)) == #"{"count":\#(count + 1)}"#)
      #expect(try WireEncoder().encodeToString(RenamedKey(title: "t\(count)")) == #"{"name":"t\#(count)"}"#)
      #expect(try WireEncoder().encodeToString(Wrapped(level: count, name: "n")) == #"{"level":{"value":\#(min(count, 10))},"name":"n"}"#)
    }
    #expect(isUnsupported(Liar.self))
    #expect(isUnsupported(RenamedKey.self))
    #expect(isUnsupported(Wrapped.self))
  }

  /// The same values through the decoder and back, with one defect in every third input.
  @Test func differential() {
    let runs: [() -> (failures: [String], decoded: Int)] = [
      { _differentialRun(DirectTodo.self, rootNoun: "state", count: 300, seed: 21) },
      { _differentialRun(DirectNumbers.self, rootNoun: "state", count: 300, seed: 22) },
      { _differentialRun(DirectState.self, rootNoun: "state", count: 300, seed: 23) },
      { _differentialRun(DirectBox<DirectTodo>.self, rootNoun: "state", count: 300, seed: 24) },
    ]
    for (i, run) in runs.enumerated() {
      let (failures, decoded) = run()
      #expect(failures.isEmpty, "run \(i): \(failures.count) disagreements; first: \(failures.first ?? "")")
      // DirectState nests a recursive Node and an enum: fewer random inputs are whole.
      let least = i == 2 ? 30 : 100
      #expect(decoded >= least, "run \(i): only \(decoded) of 300 decoded")
    }
  }
}
