import ReducerKit
import ReducerKitExamples
import ReducerKitMacros
@testable import ReducerKitWire
import Testing

// Types `@Wire` wrote the shapes of: read from their first value without a look at the
// runtime's layout, and the same JSON, values and errors as the reference codec.

enum WireMacroFixtures {
  @Wire
  struct Item: Codable, Equatable, Identifiable, Sendable {
    var id: Int
    var name: String
    var done = false
    var tags: [String] = []
    var note: String?
  }

  @Wire
  struct Doc: Codable, Equatable, Sendable {
    var items: [Item] = []
    var tracked: TrackedArray<Item> = []
    var inner: Inner? = nil
    var mode: Mode = .idle
    var `default` = 0
    var größe: Double = 1
    var maybe: Optional<Int> = nil

    @Wire
    struct Inner: Codable, Equatable, Sendable {
      var flag: Bool
      var score: Double
    }
  }

  @Wire
  enum Mode: Codable, Equatable, Sendable {
    case idle
    case loading(id: Int)
    case failed(String)
    case moved(Int, to: Int)
    case pair(Item, Item?)
    case `default`
    case café(ü: String)
    indirect case nested(Mode)
  }

  /// `CodingKeys` followed: the order, a renamed key, a property left out.
  @Wire
  struct Keyed: Codable, Equatable, Sendable {
    var id: Int
    var cache = 0
    var title: String?
    private enum CodingKeys: String, CodingKey {
      case title = "Title"
      case id
    }
  }
}

@Suite struct WireMacroBehaviourTests {
  typealias F = WireMacroFixtures
  var fastPaths: Bool { _wireFastPathsRequested }

  func expectSame<T: Codable & Equatable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
    for nulls in [false, true] {
      let fast = try WireEncoder(explicitNulls: nulls).encode(value)
      let reference = try _referenceEncode(value, explicitNulls: nulls)
      #expect(fast == reference, "\(String(decoding: fast, as: UTF8.self))", sourceLocation: sourceLocation)
      #expect(try WireDecoder().decode(T.self, from: fast) == value, sourceLocation: sourceLocation)
    }
  }

  @Test func shapesAreReadWithoutLayoutReads() throws {
    var doc = F.Doc()
    for i in 0..<30 {
      let item = F.Item(id: i, name: "n\(i)/é", done: i % 2 == 0, tags: i % 3 == 0 ? [] : ["t"], note: i % 4 == 0 ? nil : "x")
      doc.items.append(item)
      doc.tracked.append(item)
      doc.inner = i % 5 == 0 ? nil : F.Doc.Inner(flag: i % 2 == 0, score: Double(i) / 8)
      doc.mode = [F.Mode.idle, .loading(id: i), .failed("f"), .moved(i, to: -i), .pair(item, i % 16 == 4 ? item : F.Item(id: 0, name: "")), .default,
        .café(ü: "ü"), .nested(.nested(.idle))][i % 8]
      doc.default = i
      doc.maybe = i % 2 == 0 ? nil : i
      try expectSame(doc)
      try expectSame(doc.mode)
      try expectSame(F.Keyed(id: i, title: i % 2 == 0 ? nil : "t"))
    }
    #expect(try WireEncoder().encodeToString(F.Keyed(id: 1, cache: 9, title: "a")) == #"{"Title":"a","id":1}"#)
    #expect(try WireDecoder().decode(F.Mode.self, from: #"{"café": {"ü": "x"}}"#) == .café(ü: "x"))
    #expect(try WireDecoder().decode(F.Mode.self, from: #"{"nested": {"nested": "default"}}"#) == .nested(.nested(.default)))
    #expect(try WireDecoder().decode(F.Mode.self, from: #"{"moved": {"_0": 1, "to": 2}}"#) == .moved(1, to: 2))
    guard fastPaths else { return }
    for type in [F.Item.self, F.Doc.self, F.Doc.Inner.self, F.Mode.self, F.Keyed.self] as [Any.Type] {
      #expect(!_withWireTables { _layoutReadTypes.contains(ObjectIdentifier(type)) }, "\(type)")
    }
    if case .trusted = _directState(F.Doc.self) {} else { Issue.record("Doc is not trusted") }
    if case .trusted = _enumState(F.Mode.self) {} else { Issue.record("Mode is not trusted") }
  }

  /// Errors are the reference decoder's (the direct path hands what it does not read to
  /// `init(from:)`).
  @Test func errorsAreTheReferences() {
    for text in [
      #"{"loading": {"id": "x"}}"#, #"{"loading": {}}"#, #""loadin""#, #"{"moved": [1]}"#, #"{"café": {"u": "x"}}"#,
      #"{"pair": [{"id": 1}, null]}"#, #"{"idle": 1}"#, "[]",
    ] {
      let fast = Result { () throws(WireError) in try WireDecoder(rootNoun: "action").decode(F.Mode.self, from: text) }
      let reference = Result { () throws(WireError) in
        try _referenceDecode(F.Mode.self, from: try parseJSON(Array(text.utf8), maxDepth: 512), rootNoun: "action")
      }
      switch (fast, reference) {
      case (.failure(let a), .failure(let b)): #expect(a == b, "\(text)")
      default: Issue.record("\(text): \(fast) versus \(reference)")
      }
    }
  }

  /// The shipped features use `@Wire`; `todos_untracked` keeps `SynthesizedCodable`, so both
  /// paths stay tested.
  @Test func shippedFeatures() {
    func isWire(_ type: Any.Type) -> Bool { type is any WireCodable.Type }
    for type in [
      Counter.State.self, Counter.Action.self, Todos.State.self, Todos.Todo.self, Todos.Action.self, Search.State.self,
      Search.Action.self,
    ] as [Any.Type] {
      #expect(isWire(type), "\(type)")
    }
    #expect(!isWire(UntrackedTodos.State.self))
    #expect((UntrackedTodos.State.self as Any.Type) is any SynthesizedCodable.Type)
  }
}
