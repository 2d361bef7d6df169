import Testing
@testable import ReducerKitWire

// `SynthesizedCodable` enums are built from their field records (DirectDecoding.swift) once
// their first values decoded to the same value both ways. These tests check that the direct
// path reads what `init(from:)` reads (values and errors), that it is really taken, and that
// a broken promise (a hand-written `init(from:)`, renamed keys) falls back.

enum DirectAction: SynthesizedCodable, Equatable, Sendable {
  case increment
  case decrement
  case setCount(Int)
  case rename(String)
  case flag(Bool)
  case scale(Double)
  case addTodo(title: String)
  case move(Int, Int)
  case pair(Int, label: String)
  case note(String?)
  case todo(DirectTodo)
  case nested(CounterAction)
  case filter(Filter)
  case list([Int])
}

enum DirectGeneric<Value: Codable & Equatable & Sendable>: SynthesizedCodable, Equatable, Sendable {
  case empty
  case one(Value)
  case two(Value, count: Int)
}

/// Breaks the promise: its `init(from:)` is hand-written, refuses negative counts and doubles
/// the rest.
enum StrictAction: SynthesizedCodable, Equatable, Sendable {
  case setCount(Int)
  case reset

  enum CodingKeys: String, CodingKey { case setCount, reset }
  enum SetCountKeys: String, CodingKey { case _0 }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    if container.contains(.reset) {
      self = .reset
      return
    }
    let payload = try container.nestedContainer(keyedBy: SetCountKeys.self, forKey: .setCount)
    let count = try payload.decode(Int.self, forKey: ._0)
    guard count >= 0 else {
      throw DecodingError.dataCorruptedError(forKey: ._0, in: payload, debugDescription: "negative count")
    }
    self = .setCount(count * 2)
  }
}

/// Renames a case: `init(from:)` takes "inc", not "increment".
enum RenamedAction: SynthesizedCodable, Equatable, Sendable {
  case increment
  case setCount(Int)
  enum CodingKeys: String, CodingKey {
    case increment = "inc"
    case setCount
  }
}

@Suite struct DirectDecodingTests {
  /// The direct path's state for `T` ("trusted" is what these tests expect of a kept
  /// promise; with `REDUCERKIT_WIRE_FAST_PATHS=0` the path is off and this says what the
  /// expectations want, the decoded values still being checked against the reference).
  func state<T: Decodable>(_ type: T.Type, expecting: String = "trusted") -> String {
    if !_wireFastPaths { return expecting }
    switch _enumState(T.self) {
    case .unsupported: return "unsupported"
    case .checking: return "checking"
    case .trusted: return "trusted"
    }
  }

  /// Decodes `text` from bytes with the fast decoder (the direct path included) and with the
  /// parser and the reference decoder: the same value (re-encoded) or the same error.
  func expectSame<T: Codable>(_ type: T.Type, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
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

  @Test func readsWhatInitFromReads() throws {
    let valid = [
      #""increment""#, #"{"decrement": {}}"#, #"{"increment":null}"#, #"{"setCount": 5}"#, #"{"setCount":-12}"#,
      #"{"rename": "Milk"}"#, #"{"flag": true}"#, #"{"scale": 2.5}"#, #"{"scale": 3}"#,
      #"{"addTodo": {"title": "x"}}"#, #"{"move": [1, 2]}"#, #"{"pair": {"_0": 1, "label": "l"}}"#,
      #"{"note": null}"#, #"{"note": "n"}"#, #"{"todo": {"id": 1, "title": "t", "isComplete": false}}"#,
      #"{"nested": {"setCount": 3}}"#, #"{"nested": "increment"}"#, #"{"filter": "active"}"#, #"{"list": [1, 2, 3]}"#,
    ]
    for _ in 0..<3 {
      for text in valid { expectSame(DirectAction.self, text) }
    }
    #expect(state(DirectAction.self) == "trusted")
    // Every value above, and text the direct path must leave to the parser and `init(from:)`
    // (and which they read, or refuse, the same way).
    let tricky = [
      #"  {  "setCount"  :  7  }  "#, "\n\"increment\"\t", #"{"setCount": 01}"#, #"{"setCount": -0}"#,
      #"{"setCount": 1.0}"#, #"{"setCount": 1.5}"#, #"{"setCount": 1e2}"#, #"{"setCount": 123456789012345678}"#,
      #"{"setCount": 1234567890123456789}"#, #"{"setCount": 99999999999999999999}"#, #"{"setCount": "5"}"#,
      #"{"setCount": 5} x"#, #"{"setCount": 5,}"#, #"{"setCount": 5, "increment": {}}"#, #"{"setCount"}"#,
      #"{"rename": "tab\there"}"#, #"{"rename": "é"}"#, #"{"rename": ""}"#, #"{"rename": 5}"#, #"{"flag": tru}"#,
      #"{"flag": false}"#, #"{"flag": null}"#, #""setCount""#, #""incremnt""#, #""""#, #"{"incr\u0065ment": {}}"#,
      #""incr\u0065ment""#, #"{"increment": 1}"#, #"{"move": [1]}"#, #"{"move": [1, 2, 3]}"#, #"{"move": {"_0": 1, "_1": 2}}"#,
      #"{"addTodo": {"title": "x", "extra": 1}}"#, #"{"addTodo": {}}"#, #"{"pair": [1, "l"]}"#, #"{}"#, "[]", "5",
      "", "{", #"{"setCount": 5"#, #"{"nested": {"setCount": -1}}"#, #"{"todo": {"id": 1}}"#,
    ]
    for text in valid + tricky { expectSame(DirectAction.self, text) }
    #expect(state(DirectAction.self) == "trusted")
    #expect(try WireDecoder().decode(DirectAction.self, from: #"{"pair": {"_0": 4, "label": "z"}}"#) == .pair(4, label: "z"))
    #expect(try WireDecoder().decode(DirectAction.self, from: #" {"setCount" : -3 } "#) == .setCount(-3))
  }

  @Test func genericEnums() throws {
    for i in 0..<20 {
      #expect(try WireDecoder().decode(DirectGeneric<String>.self, from: #"{"one": "s\#(i)"}"#) == .one("s\(i)"))
      #expect(try WireDecoder().decode(DirectGeneric<String>.self, from: #"{"two": {"_0": "t", "count": \#(i)}}"#)
        == .two("t", count: i))
      #expect(try WireDecoder().decode(DirectGeneric<Int>.self, from: #"{"one": \#(i)}"#) == .one(i))
      #expect(try WireDecoder().decode(DirectGeneric<DirectTodo>.self, from: #""empty""#) == .empty)
    }
    #expect(state(DirectGeneric<String>.self) == "trusted")
    #expect(state(DirectGeneric<Int>.self) == "trusted")
    #expect(state(DirectGeneric<DirectTodo>.self) == "trusted")
    #expect(state(CounterAction.self, expecting: "unsupported") == "unsupported")  // not SynthesizedCodable
  }

  @Test func brokenPromisesFallBack() throws {
    for i in 0..<40 {
      #expect(try WireDecoder().decode(StrictAction.self, from: #"{"setCount": \#(i)}"#) == .setCount(i * 2))
      #expect(throws: WireError.self) { try WireDecoder().decode(StrictAction.self, from: #"{"setCount": -\#(i + 1)}"#) }
      #expect(try WireDecoder().decode(RenamedAction.self, from: #""inc""#) == .increment)
      #expect(throws: WireError.self) { try WireDecoder().decode(RenamedAction.self, from: #""increment""#) }
      #expect(try WireDecoder().decode(RenamedAction.self, from: #"{"setCount": \#(i)}"#) == .setCount(i))
    }
    #expect(state(StrictAction.self, expecting: "unsupported") == "unsupported")
    #expect(state(RenamedAction.self, expecting: "unsupported") == "unsupported")
  }

  /// Random values from the JSON Schema, with one defect in every third input.
  @Test func differential() {
    let runs: [() -> (failures: [String], decoded: Int)] = [
      { _differentialRun(DirectAction.self, rootNoun: "action", count: 400, seed: 31) },
      { _differentialRun(DirectGeneric<Int>.self, rootNoun: "action", count: 300, seed: 32) },
      { _differentialRun(DirectGeneric<DirectTodo>.self, rootNoun: "action", count: 300, seed: 33) },
    ]
    for (i, run) in runs.enumerated() {
      let (failures, decoded) = run()
      #expect(failures.isEmpty, "run \(i): \(failures.count) disagreements; first: \(failures.first ?? "")")
      #expect(decoded >= 100, "run \(i): only \(decoded) decoded")
    }
    #expect(state(DirectAction.self) == "trusted")
  }
}
