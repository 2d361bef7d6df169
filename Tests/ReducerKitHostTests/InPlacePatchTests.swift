import Foundation
import ReducerKit
import ReducerKitExamples
@testable import ReducerKitHost
@testable import ReducerKitWire
import Testing

/// The patch engine's in-place path (Syncer.swift): for a `SynthesizedCodable` state it
/// diffs property by property and updates its base in place. The patches must be exactly the
/// general differ's (`REDUCERKIT_WIRE_CHECK=1`, one of the modes `make test` runs, compares
/// every diff with it), replaying them must give the state, and the store's arrays must stop
/// being copied on write.
@Suite struct InPlacePatchTests {
  struct Item: SynthesizedCodable, Equatable, Identifiable, Sendable {
    var id: Int
    var name: String
    var tags: [String] = []
    var done = false
    var rank: Int32 = 0
    var weight: UInt64 = 0
  }

  struct Inner: SynthesizedCodable, Equatable, Sendable {
    var flag: Bool
    var score: Double
    var items: [Item] = []
  }

  struct Doc: SynthesizedCodable, Equatable, Sendable {
    var counts: [String: Int] = ["a/b": 1, "~x": 2]
    var items: [Item] = []
    var tracked: TrackedArray<Item> = []
    var plain: [Int] = []
    var inner: Inner? = nil
    var mode: PatchTests.Mode = .idle
    var wrapped = PatchTests.Wrapped(value: 0)
    var note: String? = nil
    var title = ""
    var total: UInt = 0
  }

  /// A reducer whose action is the next state, or (`nil`) a state with a NaN the encoder
  /// refuses.
  struct Replace: Reducer {
    func reduce(into state: inout Doc, action: Doc?) -> Effect<Doc?> {
      if let action {
        state = action
      } else {
        state.inner = Inner(flag: true, score: .nan)
      }
      return .none
    }
  }

  static func store(_ initial: Doc = Doc()) -> HostStore<Replace> {
    HostStore(initialState: initial, reducer: Replace(), options: StoreOptions(), provided: [])
  }

  static func send<R: Reducer>(_ store: HostStore<R>, _ json: [UInt8]) throws {
    let failure: HostError? = json.withUnsafeBytes { bytes in
      do throws(HostError) { try store.send(bytes) } catch { return error }
      return nil
    }
    if let failure { throw failure }
  }

  static func patch<R: Reducer>(_ store: HostStore<R>, since: UInt64) throws -> (json: [UInt8], version: UInt64) {
    let result: Result<([UInt8], UInt64), HostError> = {
      do throws(HostError) { return .success(try store.patch(since: since)) } catch { return .failure(error) }
    }()
    return try result.get()
  }

  static func json(_ value: some Encodable) throws -> JSONValue {
    try WireEncoder(explicitNulls: true).encodeToJSONValue(value)
  }

  static func isDirect<R: Reducer>(_ store: HostStore<R>) -> Bool {
    (store.patches.syncer as? _StructSyncer<R.State>)?.isDirect ?? false
  }

  /// Random changes of every kind of property: after each, the patch applied to the
  /// previous JSON gives the new JSON. After the first 16 versions the codec trusts the
  /// types' plans and the in-place path is the one taken.
  @Test(arguments: 1...30)
  func patchesReplay(seed: Int) throws {
    var random = SplitMix64(seed: UInt64(seed) &+ 1000)
    var doc = Doc()
    let store = Self.store(doc)
    var json = try Self.json(doc)
    var version = try Self.patch(store, since: 0).version
    for step in 0..<40 {
      Self.mutate(&doc, &random)
      try Self.send(store, Array(try WireEncoder(explicitNulls: true).encode(doc)))
      let (patch, next) = try Self.patch(store, since: version)
      json = try PatchTests.apply(try parseJSON(patch), to: json)
      #expect(PatchTests.normalized(json) == PatchTests.normalized(try Self.json(doc)), "seed \(seed), step \(step)")
      version = next
    }
    #expect(Self.isDirect(store) == (ProcessInfo.processInfo.environment["REDUCERKIT_WIRE_FAST_PATHS"] != "0"))
  }

  static func item(_ random: inout SplitMix64) -> Item {
    Item(id: Int(random.next() % 50), name: "n/~\(random.next() % 3)", done: random.next() % 2 == 0)
  }

  static func mutate(_ doc: inout Doc, _ random: inout SplitMix64) {
    for _ in 0..<(1 + Int(random.next() % 3)) {
      let n = UInt64(doc.items.count)
      switch random.next() % 16 {
      case 0: doc.counts["k\(random.next() % 4)"] = Int(random.next() % 9)
      case 1: doc.items.insert(item(&random), at: Int(random.next() % (n + 1)))
      case 2 where n > 0: doc.items.remove(at: Int(random.next() % n))
      case 3 where n > 0: doc.items[Int(random.next() % n)].done.toggle()
      case 4 where n > 0: doc.items[Int(random.next() % n)].tags.append("t\(random.next() % 3)")
      case 5 where n > 0:
        let i = Int(random.next() % n)
        doc.items[i].rank = Int32(truncatingIfNeeded: Int64(random.next() % 7) - 3)
        doc.items[i].weight = random.next()
        doc.items[i].name = random.next() % 2 == 0 ? "" : "é\"\n\(random.next() % 3)"
      case 6: doc.tracked.append(item(&random))
      case 7 where !doc.tracked.isEmpty: doc.tracked[Int(random.next() % UInt64(doc.tracked.count))].done.toggle()
      case 8: doc.plain.insert(Int(random.next() % 5), at: Int(random.next() % UInt64(doc.plain.count + 1)))
      case 9 where !doc.plain.isEmpty: doc.plain.removeLast(Int(random.next() % UInt64(doc.plain.count)) + 1)
      case 10: doc.inner = random.next() % 4 == 0 ? nil : Inner(flag: random.next() % 2 == 0, score: Double(random.next() % 4))
      case 11 where doc.inner != nil:
        doc.inner?.score += 0.5
        if random.next() % 2 == 0 { doc.inner?.items.append(item(&random)) }
      case 12: doc.mode = [PatchTests.Mode.idle, .loading(id: Int(random.next() % 3)), .failed("e")][Int(random.next() % 3)]
      case 13: doc.note = random.next() % 2 == 0 ? nil : "~/\(random.next() % 3)"
      case 14: doc.wrapped.value = Int(random.next() % 3)
      default:
        doc.title += "x"
        doc.total = UInt.max - UInt(random.next() % 3)
      }
    }
  }

  /// The patches of a run of versions, asked for at once, are the chain of each version's.
  @Test func patchFromAnOlderVersionIsTheChain() throws {
    var random = SplitMix64(seed: 7)
    var doc = Doc()
    let store = Self.store(doc)
    let first = try Self.patch(store, since: 0).version
    var json = try Self.json(doc)
    for _ in 0..<30 {
      Self.mutate(&doc, &random)
      try Self.send(store, Array(try WireEncoder(explicitNulls: true).encode(doc)))
      _ = try Self.patch(store, since: 0)  // a diff per version
    }
    let (patch, _) = try Self.patch(store, since: first)
    json = try PatchTests.apply(try parseJSON(patch), to: json)
    #expect(PatchTests.normalized(json) == PatchTests.normalized(try Self.json(doc)))
  }

  /// A part that cannot be encoded (NaN) fails that diff; the engine starts again from the
  /// version after it: older versions get the whole state, newer ones patches.
  @Test func aFailedDiffStartsAgain() throws {
    var doc = Doc(items: [Item(id: 1, name: "a")])
    let store = Self.store(doc)
    for _ in 0..<20 {  // past the plans' checks
      doc.title += "."
      try Self.send(store, Array(try WireEncoder(explicitNulls: true).encode(doc)))
      _ = try Self.patch(store, since: 0)
    }
    let before = try Self.patch(store, since: 0).version
    try Self.send(store, Array("null".utf8))  // score: NaN
    #expect(throws: HostError.self) { try Self.patch(store, since: before) }
    doc.inner = Inner(flag: false, score: 2)
    doc.items[0].done = true
    try Self.send(store, Array(try WireEncoder(explicitNulls: true).encode(doc)))
    let (whole, after) = try Self.patch(store, since: before)
    guard case let .array(ops) = try parseJSON(whole), ops.count == 1 else {
      Issue.record("not one operation: \(String(decoding: whole, as: UTF8.self))")
      return
    }
    #expect(ops[0]["op"] == .string("replace"))
    #expect(ops[0]["path"] == .string(""))
    #expect(PatchTests.normalized(ops[0]["value"] ?? .null) == PatchTests.normalized(try Self.json(doc)))
    doc.items[0].done = false
    try Self.send(store, Array(try WireEncoder(explicitNulls: true).encode(doc)))
    let (next, _) = try Self.patch(store, since: after)
    #expect(String(decoding: next, as: UTF8.self) == #"[{"op":"replace","path":"/items/0/done","value":false}]"#)
  }

  /// A `SynthesizedCodable` struct is still decoded through its own `init(from:)` (the
  /// shipped `todos` state repairs `nextID` there), however many values were read before.
  @Test func aSynthesizedStructDecodesThroughItsInitFromDecoder() throws {
    let text = #"{"todos":[{"id":5,"title":"a","isComplete":false}],"filter":"all","nextID":1}"#
    for _ in 0..<40 {
      let state = try WireDecoder().decode(Todos.State.self, from: text)
      #expect(state.nextID == 6)
      _ = try WireEncoder(explicitNulls: true).encode(state)  // and encoded, to trust its plan
    }
  }

  /// With a patch reader, the store's array of todos is written in place: its buffer stays
  /// the same from one toggle to the next (a base sharing it would make every toggle copy
  /// the whole array).
  @Test func theStoresArrayIsNotCopiedOnWrite() throws {
    let todos = (1...200).map { Todos.Todo(id: $0, title: "Todo \($0)") }
    let store = HostStore(
      initialState: UntrackedTodos.State(todos: todos), reducer: UntrackedTodos(), options: StoreOptions(),
      provided: [])
    var version = try Self.patch(store, since: 0).version
    var buffers: [UnsafeRawPointer?] = []
    for i in 0..<40 {
      try Self.send(store, Array(#"{"toggle":{"id":\#(50 + i % 3)}}"#.utf8))
      let (patch, next) = try Self.patch(store, since: version)
      #expect(
        String(decoding: patch, as: UTF8.self)
          == #"[{"op":"replace","path":"/todos/\#(49 + i % 3)/isComplete","value":\#(i % 6 < 3)}]"#)
      version = next
      buffers.append(store.currentState().0.todos.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) })
    }
    let fastPaths = ProcessInfo.processInfo.environment["REDUCERKIT_WIRE_FAST_PATHS"] != "0"
    // The first toggles copy (the base shares the array until its first in-place write;
    // the plans are trusted after 16 versions); from then on, none.
    if fastPaths {
      #expect(Set(buffers.suffix(10)).count == 1)
    } else {
      #expect(Set(buffers.suffix(10)).count > 1)  // copied every time (the allocator may reuse addresses)
    }
  }
}
