import Testing
@testable import ReducerKitWire

// `WireCodable` types: the codec reads them from the shape their conformance gives (here
// written by hand, exactly as `@Wire` writes it), never from the runtime's layout, and trusts
// them from their first value. Their JSON, values and errors must be the reference codec's.

struct WTodo: Codable, Equatable, Sendable {
  var id: Int
  var title: String
  var isComplete: Bool
}

extension WTodo: ReducerKitWire.WireCodable {
  static var _wireShape: ReducerKitWire._WireShape<Self> {
    .struct([
      .init("id", \Self.id),
      .init("title", \Self.title),
      .init("isComplete", \Self.isComplete),
    ])
  }
}

struct WBox<Value: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
  var value: Value
  var values: [Value]
  var maybe: Value?
  var score: Double
  var `default`: Int8
  var naïve: String
}

extension WBox: ReducerKitWire.WireCodable {
  static var _wireShape: ReducerKitWire._WireShape<Self> {
    .struct([
      .init("value", \Self.value),
      .init("values", \Self.values),
      .init("maybe", ifPresent: \Self.maybe),
      .init("score", \Self.score),
      .init("default", \Self.`default`),
      .init("naïve", \Self.naïve),
    ])
  }
}

enum WAction: Codable, Equatable, Sendable {
  case increment
  case `default`
  case setCount(Int)
  case rename(String)
  case flag(Bool)
  case scale(Double)
  case addTodo(title: String)
  case move(Int, Int)
  case pair(Int, label: String)
  case note(String?)
  case todo(WTodo)
  case nested(CounterAction)
  case filter(Filter)
  case list([Int])
  case café(ü: Int)
}

extension WAction: ReducerKitWire.WireCodable {
  static var _wireShape: ReducerKitWire._WireShape<Self> {
    .enum([
      .unit("increment"),
      .unit("default"),
      .init("setCount", labels: [nil], [.init(Int.self)]),
      .init("rename", labels: [nil], [.init(String.self)]),
      .init("flag", labels: [nil], [.init(Bool.self)]),
      .init("scale", labels: [nil], [.init(Double.self)]),
      .init("addTodo", labels: ["title"], [.init(String.self)]),
      .init("move", labels: [nil, nil], [.init(Int.self), .init(Int.self)]),
      .init("pair", labels: [nil, "label"], [.init(Int.self), .init(String.self)]),
      .init("note", labels: [nil], [.init(String?.self)]),
      .init("todo", labels: [nil], [.init(WTodo.self)]),
      .init("nested", labels: [nil], [.init(CounterAction.self)]),
      .init("filter", labels: [nil], [.init(Filter.self)]),
      .init("list", labels: [nil], [.init([Int].self)]),
      .init("café", labels: ["ü"], [.init(Int.self)]),
    ]) { i, p in
      switch i {
      case 0: p.set(Self.increment)
      case 1: p.set(Self.`default`)
      case 2: p.set(Self.setCount(p.take(0, Int.self)))
      case 3: p.set(Self.rename(p.take(0, String.self)))
      case 4: p.set(Self.flag(p.take(0, Bool.self)))
      case 5: p.set(Self.scale(p.take(0, Double.self)))
      case 6: p.set(Self.addTodo(title: p.take(0, String.self)))
      case 7: p.set(Self.move(p.take(0, Int.self), p.take(1, Int.self)))
      case 8: p.set(Self.pair(p.take(0, Int.self), label: p.take(1, String.self)))
      case 9: p.set(Self.note(p.take(0, String?.self)))
      case 10: p.set(Self.todo(p.take(0, WTodo.self)))
      case 11: p.set(Self.nested(p.take(0, CounterAction.self)))
      case 12: p.set(Self.filter(p.take(0, Filter.self)))
      case 13: p.set(Self.list(p.take(0, [Int].self)))
      case 14: p.set(Self.café(ü: p.take(0, Int.self)))
      default: preconditionFailure()
      }
    }
  }
}

enum WGeneric<Value: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
  case empty
  case one(Value)
  case two(Value, count: Int)
}

extension WGeneric: ReducerKitWire.WireCodable {
  static var _wireShape: ReducerKitWire._WireShape<Self> {
    .enum([
      .unit("empty"),
      .init("one", labels: [nil], [.init(Value.self)]),
      .init("two", labels: [nil, "count"], [.init(Value.self), .init(Int.self)]),
    ]) { i, p in
      switch i {
      case 0: p.set(Self.empty)
      case 1: p.set(Self.one(p.take(0, Value.self)))
      case 2: p.set(Self.two(p.take(0, Value.self), count: p.take(1, Int.self)))
      default: preconditionFailure()
      }
    }
  }
}

struct WState: Codable, Equatable, Sendable {
  var todos: [WTodo]
  var filter: Filter
  var mode: WGeneric<String>
  var editing: Int?
}

extension WState: ReducerKitWire.WireCodable {
  static var _wireShape: ReducerKitWire._WireShape<Self> {
    .struct([
      .init("todos", \Self.todos),
      .init("filter", \Self.filter),
      .init("mode", \Self.mode),
      .init("editing", ifPresent: \Self.editing),
    ])
  }
}

@Suite struct WireCodableTests {
  var fastPaths: Bool { _wireFastPathsRequested }

  func isTrustedStruct<T>(_ type: T.Type) -> Bool {
    if case .trusted = _directState(T.self) { return true }
    return false
  }

  func isTrustedEnum<T: Decodable>(_ type: T.Type) -> Bool {
    if case .trusted = _enumState(T.self) { return true }
    return false
  }

  func readLayout<T>(_ type: T.Type) -> Bool {
    _withWireTables { _layoutReadTypes.contains(ObjectIdentifier(T.self)) }
  }

  /// Trusted before any value was encoded or decoded, and never read from the runtime.
  @Test func trustedFromTheStartWithoutLayoutReads() {
    guard fastPaths else { return }
    #expect(isTrustedStruct(WTodo.self))
    #expect(isTrustedStruct(WBox<Int>.self))
    #expect(isTrustedStruct(WBox<WTodo>.self))
    #expect(isTrustedStruct(WState.self))
    #expect(isTrustedEnum(WAction.self))
    #expect(isTrustedEnum(WGeneric<String>.self))
    #expect(isTrustedEnum(WGeneric<WTodo>.self))
    for type in [WTodo.self, WBox<Int>.self, WState.self, WAction.self, WGeneric<String>.self] as [Any.Type] {
      #expect(!_withWireTables { _layoutReadTypes.contains(ObjectIdentifier(type)) }, "\(type)")
    }
    #expect(_caseNames(of: WAction.self).first == "increment")
    #expect(_caseNames(of: WAction.self).last == "café")
  }

  /// A `@Wire` property's kind and writer come from its static type (no dynamic cast), and
  /// are the ones the casts find for its type: for primitives, nested values, declared
  /// optionals, and a generic parameter that is an `Optional` (then no direct plan).
  @Test func fieldKindsFromStaticTypesMatchTheCasts() {
    func check<T: WireCodable>(_ type: T.Type) {
      guard case .structure(let fields) = T._wireShape.kind else {
        Issue.record("\(T.self) is not a struct")
        return
      }
      for field in fields {
        let fromType = field.directKind()
        let fromCasts = _directKind(field.type)
        #expect(fromType?.0 == fromCasts?.0, "\(T.self).\(field.name)")
        #expect(
          fromType?.1.map { ObjectIdentifier(Swift.type(of: $0)) } == fromCasts?.1.map { ObjectIdentifier(Swift.type(of: $0)) },
          "\(T.self).\(field.name)")
      }
    }
    check(WTodo.self)
    check(WBox<Int>.self)
    check(WBox<WTodo>.self)
    check(WBox<Int?>.self)
    check(WState.self)
    #expect(WBox<Int?>._wireDirectPlan == nil)
    #expect(WBox<Int>._wireDirectPlan != nil)
  }

  /// A plain `SynthesizedCodable` type still takes the sampled path (its layout read).
  @Test func synthesizedCodableKeepsItsPath() throws {
    guard _wireFastPaths else { return }
    if case .checking = _directState(DirectNumbers.self) {} else if case .trusted = _directState(DirectNumbers.self) {
    } else {
      Issue.record("DirectNumbers has no direct path")
    }
    #expect(readLayout(DirectNumbers.self))
  }

  func expectSameEncoding<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) {
    for nulls in [false, true] {
      let fast = Result { () throws(WireError) in try WireEncoder(explicitNulls: nulls).encode(value) }
      let reference = Result { () throws(WireError) in try _referenceEncode(value, explicitNulls: nulls) }
      switch (fast, reference) {
      case (.success(let a), .success(let b)):
        #expect(a == b, "\(String(decoding: a, as: UTF8.self)) != \(String(decoding: b, as: UTF8.self))",
          sourceLocation: sourceLocation)
      case (.failure(let a), .failure(let b)):
        #expect(a == b, sourceLocation: sourceLocation)
      default:
        Issue.record("explicitNulls \(nulls): \(fast) versus \(reference)", sourceLocation: sourceLocation)
      }
    }
  }

  func expectSameDecoding<T: Codable>(_ type: T.Type, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let fast = Result { () throws(WireError) in
      try _referenceEncode(try WireDecoder(rootNoun: "action").decode(T.self, from: text), explicitNulls: true)
    }
    let reference = Result { () throws(WireError) in
      let value = try parseJSON(Array(text.utf8), maxDepth: 512)
      return try _referenceEncode(try _referenceDecode(T.self, from: value, rootNoun: "action"), explicitNulls: true)
    }
    switch (fast, reference) {
    case (.success(let a), .success(let b)):
      #expect(a == b, "\(text): \(String(decoding: a, as: UTF8.self)) != \(String(decoding: b, as: UTF8.self))",
        sourceLocation: sourceLocation)
    case (.failure(let a), .failure(let b)):
      #expect(a == b, "\(text)", sourceLocation: sourceLocation)
    default:
      Issue.record("\(text): \(fast) versus \(reference)", sourceLocation: sourceLocation)
    }
  }

  @Test func writesWhatEncodeToWrites() throws {
    // The first value already takes the direct path: exact bytes from the first encode.
    #expect(
      try WireEncoder().encodeToString(WTodo(id: -3, title: "a \"b\"\n", isComplete: true))
        == #"{"id":-3,"title":"a \"b\"\n","isComplete":true}"#)
    let box = try WireEncoder().encodeToString(
      WBox<Int?>(value: nil, values: [1, nil], maybe: .some(nil), score: 0.5, default: -1, naïve: "é"))
    #expect(box == #"{"value":null,"values":[1,null],"maybe":null,"score":0.5,"default":-1,"naïve":"é"}"#)
    // A generic property that is an `Optional` here is written by `encode` (`null`), which the
    // direct path does not do: such a type keeps `encode(to:)`.
    #expect(!fastPaths || !isTrustedStruct(WBox<Int?>.self))
    #expect(!fastPaths || isTrustedStruct(WBox<[Int?]>.self))
    expectSameEncoding(WBox<[Int?]>(value: [nil], values: [[nil, 1]], maybe: [nil], score: 0, default: 0, naïve: ""))
    for i in 0..<50 {
      let todo = WTodo(id: i - 25, title: String(repeating: "t", count: i), isComplete: i % 2 == 0)
      expectSameEncoding(todo)
      expectSameEncoding(WBox(value: todo, values: [todo, todo], maybe: i % 3 == 0 ? nil : todo, score: Double(i) / 4,
        default: Int8(i), naïve: "n\(i)"))
      expectSameEncoding(WBox<Int>(value: i, values: [], maybe: nil, score: 1, default: 0, naïve: ""))
      expectSameEncoding(
        WState(todos: [todo], filter: .active, mode: i % 2 == 0 ? .empty : .two("x", count: i), editing: i % 4 == 0 ? i : nil))
      expectSameEncoding([WAction.increment, .default, .move(i, -i), .café(ü: i), .note(nil), .todo(todo)])
    }
    // Errors are the reference's (a non-finite Double, with its path).
    expectSameEncoding(WBox<Int>(value: 1, values: [], maybe: nil, score: .infinity, default: 0, naïve: ""))
    expectSameEncoding([WBox<Double>(value: 1, values: [2, .nan], maybe: nil, score: 0, default: 0, naïve: "")])
  }

  @Test func readsWhatInitFromReads() throws {
    let valid = [
      #""increment""#, #""default""#, #"{"default": {}}"#, #"{"increment":null}"#, #"{"setCount": 5}"#,
      #"{"setCount":-12}"#, #"{"rename": "Milk"}"#, #"{"flag": true}"#, #"{"scale": 2.5}"#, #"{"scale": 3}"#,
      #"{"addTodo": {"title": "x"}}"#, #"{"move": [1, 2]}"#, #"{"pair": {"_0": 1, "label": "l"}}"#,
      #"{"note": null}"#, #"{"note": "n"}"#, #"{"todo": {"id": 1, "title": "t", "isComplete": false}}"#,
      #"{"nested": {"setCount": 3}}"#, #"{"nested": "increment"}"#, #"{"filter": "active"}"#, #"{"list": [1, 2, 3]}"#,
      #"{"café": {"ü": 4}}"#,
    ]
    let tricky = [
      #"  {  "setCount"  :  7  }  "#, "\n\"increment\"\t", #"{"setCount": 01}"#, #"{"setCount": -0}"#,
      #"{"setCount": 1.0}"#, #"{"setCount": 1.5}"#, #"{"setCount": 1e2}"#, #"{"setCount": 123456789012345678}"#,
      #"{"setCount": 99999999999999999999}"#, #"{"setCount": "5"}"#, #"{"setCount": 5} x"#, #"{"setCount": 5,}"#,
      #"{"setCount": 5, "increment": {}}"#, #"{"setCount"}"#, #"{"rename": "é"}"#, #"{"rename": 5}"#,
      #"{"flag": null}"#, #""setCount""#, #""incremnt""#, #""""#, #""incr\u0065ment""#, #"{"increment": 1}"#,
      #"{"move": [1]}"#, #"{"move": [1, 2, 3]}"#, #"{"move": {"_0": 1, "_1": 2}}"#, #"{"addTodo": {"title": "x", "extra": 1}}"#,
      #"{"addTodo": {}}"#, #"{"pair": [1, "l"]}"#, #"{}"#, "[]", "5", "", "{", #"{"nested": {"setCount": -1.5}}"#,
      #"{"todo": {"id": 1}}"#, #"{"café": {"u": 4}}"#, #"{"cafe": {"ü": 4}}"#, #"{"move": [1, "2"]}"#,
    ]
    for text in valid + tricky { expectSameDecoding(WAction.self, text) }
    #expect(try WireDecoder().decode(WAction.self, from: #"{"pair": {"_0": 4, "label": "z"}}"#) == .pair(4, label: "z"))
    #expect(try WireDecoder().decode(WAction.self, from: #"{"café": {"ü": 4}}"#) == .café(ü: 4))
    #expect(try WireDecoder().decode(WAction.self, from: #""default""#) == .default)
    #expect(try WireDecoder().decode(WAction.self, from: #"{"move": [3, -4]}"#) == .move(3, -4))
    for text in [#""empty""#, #"{"one": "s"}"#, #"{"two": {"_0": "t", "count": 2}}"#, #"{"two": {"_0": 1, "count": 2}}"#] {
      expectSameDecoding(WGeneric<String>.self, text)
      expectSameDecoding(WGeneric<WTodo>.self, text)
    }
    #expect(try WireDecoder().decode(WGeneric<String>.self, from: #"{"two": {"_0": "t", "count": 2}}"#) == .two("t", count: 2))
    let state = #"{"todos":[{"id":1,"title":"a","isComplete":true}],"filter":"all","mode":{"one":"m"},"editing":null}"#
    expectSameDecoding(WState.self, state)
    expectSameDecoding(WState.self, #"{"todos":[],"filter":"none","mode":"empty"}"#)
  }

  /// A payload that fails half way (the second value) frees the first and leaves the rest to
  /// `init(from:)`, which reports the error: no leak, no crash, the reference's message.
  @Test func partialPayloadsAreReleased() {
    for _ in 0..<100 {
      expectSameDecoding(WGeneric<[String]>.self, #"{"two": {"_0": ["a", "b"], "count": "x"}}"#)
      expectSameDecoding(WAction.self, #"{"pair": {"_0": 1, "label": 2}}"#)
    }
  }

  @Test func differential() {
    for (seed, run) in [
      (1, { _differentialRun(WAction.self, rootNoun: "action", count: 300, seed: 101) }),
      (2, { _differentialRun(WState.self, rootNoun: "state", count: 300, seed: 102) }),
      (3, { _differentialRun(WBox<WTodo>.self, rootNoun: "state", count: 300, seed: 103) }),
      (4, { _differentialRun(WGeneric<Int>.self, rootNoun: "action", count: 300, seed: 104) }),
    ] as [(Int, () -> ([String], Int))] {
      let (failures, decoded) = run()
      #expect(failures.isEmpty, "run \(seed): \(failures.count) disagreements; first: \(failures.first ?? "")")
      #expect(decoded >= 100, "run \(seed): only \(decoded) decoded")
    }
  }
}

/// Payload-less enums, with hostile case names, with and without a shape: their values, case
/// counts, messages and schemas come from the shape for the first (no runtime read) and from
/// the metadata (A2/A3) for the second, and must be the same.
enum WUnits: Codable, Equatable, Sendable {
  case plain, `default`, café, 😀x
}

enum PlainUnits: Codable, Equatable, Sendable {
  case plain, `default`, café, 😀x
}

extension WUnits: ReducerKitWire.WireCodable {
  static var _wireShape: ReducerKitWire._WireShape<Self> {
    .enum([.unit("plain"), .unit("default"), .unit("café"), .unit("😀x")]) { i, p in
      switch i {
      case 0: p.set(Self.plain)
      case 1: p.set(Self.`default`)
      case 2: p.set(Self.café)
      case 3: p.set(Self.😀x)
      default: preconditionFailure()
      }
    }
  }
}

@Suite struct WireShapeFactsTests {
  /// Enum or struct, and `WireCodable` or not, from the cached facts: the shape's answer for a
  /// `WireCodable` type, A1's for any other; asked twice (the second from the cache).
  @Test func factsAgreeWithTheMetadata() {
    let types: [(Any.Type, Bool)] = [
      (WAction.self, true), (WGeneric<Int>.self, true), (WState.self, true), (WTodo.self, true),
      (WUnits.self, true), (PlainUnits.self, false), (Int.self, false), (Int?.self, false), (String.self, false),
    ]
    for _ in 0..<2 {
      for (type, isWire) in types {
        #expect(_typeIsEnum(type) == _referenceIsEnumType(type), "\(type)")
        #expect(_typeIsWire(type) == isWire, "\(type)")
      }
    }
  }

  @Test func payloadlessEnumsFromTheShape() {
    #expect(_valuesIfPayloadless(of: WUnits.self) == [.plain, .default, .café, .😀x])
    #expect(_caseCountIfPayloadless(WUnits.self) == _caseCountIfPayloadless(PlainUnits.self))
    #expect(_caseCountIfPayloadless(WUnits.self) == 4)
    #expect(_valuesIfPayloadless(of: WAction.self) == nil)
    #expect(_caseCountIfPayloadless(WAction.self) == nil)
    // The same schema, signatures and messages as without the shape.
    #expect(jsonSchema(for: WUnits.self) == jsonSchema(for: PlainUnits.self))
    #expect(caseSignatures(of: WUnits.self) == caseSignatures(of: PlainUnits.self))
    for text in [#""defualt""#, #"5"#, #"{"café": 1}"#, #"{"plain": {}, "x": 1}"#, #"[]"#] {
      var messages: [String] = []
      do { _ = try WireDecoder(rootNoun: "action").decode(WUnits.self, from: text) } catch {
        messages.append(error.message)
      }
      do { _ = try WireDecoder(rootNoun: "action").decode(PlainUnits.self, from: text) } catch {
        messages.append(error.message)
      }
      #expect(messages.count == 2 && messages[0] == messages[1], "\(text): \(messages)")
    }
  }
}

/// Keys no Swift name has (quotes, a backslash, `*/`, a newline, unicode), through
/// `CodingKeys` raw values, with a shape (written by hand: `@Wire` refuses escapes in raw
/// values) and without.
struct WHostile: Codable, Equatable, Sendable {
  var quote: Int
  var slash: String
  var comment: Bool?
  var line: [Int]
  enum CodingKeys: String, CodingKey {
    case quote = "a\"q", slash = "b\\s", comment = "é*/", line = "n\nl"
  }
}

struct PlainHostile: Codable, Equatable, Sendable {
  var quote: Int
  var slash: String
  var comment: Bool?
  var line: [Int]
  enum CodingKeys: String, CodingKey {
    case quote = "a\"q", slash = "b\\s", comment = "é*/", line = "n\nl"
  }
}

extension WHostile: ReducerKitWire.WireCodable {
  static var _wireShape: ReducerKitWire._WireShape<Self> {
    .struct([
      .init("a\"q", \Self.quote),
      .init("b\\s", \Self.slash),
      .init("é*/", ifPresent: \Self.comment),
      .init("n\nl", \Self.line),
    ])
  }
}

extension WireShapeFactsTests {
  /// Schemas and messages with keys from shapes are those with keys read from the runtime.
  @Test func hostileKeysFromTheShape() throws {
    for keysFromShapes in [true, false] {
      #expect(
        _ProbeSession(keysFromShapes: keysFromShapes).schema(of: WHostile.self)
          == _ProbeSession().schema(of: PlainHostile.self))
    }
    for type in [WAction.self, WState.self, WTodo.self, WGeneric<Int>.self, WUnits.self] as [any Decodable.Type] {
      let same = Self.schemas(type)
      #expect(same, "\(type)")
    }
    for text in [
      #"{"a\"q": 1, "b\\s": "s", "n\nl": [], "zz": 1}"#, #"{"a\"q": 1, "n\nl": []}"#, #"{"a\"q": "x", "b\\s": "s", "n\nl": []}"#,
    ] {
      var messages: [String] = []
      do { _ = try WireDecoder(rootNoun: "state").decode(WHostile.self, from: text) } catch {
        messages.append(error.message)
      }
      do { _ = try WireDecoder(rootNoun: "state").decode(PlainHostile.self, from: text) } catch {
        messages.append(error.message)
      }
      #expect(messages.count == 2 && messages[0] == messages[1], "\(text): \(messages)")
      WireCodableTests().expectSameDecoding(WHostile.self, text)
    }
    for text in [#"{"addTodo": {"titel": "x"}}"#, #"{"pair": {"_0": 1, "lable": "x"}}"#, #"{"move": {"_0": 1}}"#] {
      // Messages from the shape's keys (fast decoder) against the reference decoder's (A2/A3).
      WireCodableTests().expectSameDecoding(WAction.self, text)
    }
  }

  static func schemas<T: Decodable>(_ type: T.Type) -> Bool {
    _ProbeSession(keysFromShapes: true).schema(of: T.self) == _ProbeSession(keysFromShapes: false).schema(of: T.self)
  }
}
