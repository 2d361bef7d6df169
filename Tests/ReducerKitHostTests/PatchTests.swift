import ReducerKit
@testable import ReducerKitHost
@testable import ReducerKitWire
import Testing

/// The differ and `rk_store_get` on a state with every shape the wire format has: keys that
/// need JSON Pointer escaping (`~`, `/`), a `TrackedArray`, a plain array, an optional
/// struct, an enum with associated values, a wrapper, a dictionary.
@Suite struct PatchTests {
  struct Item: Codable, Equatable, Identifiable, Sendable {
    var id: Int
    var name: String
    var tags: [String] = []
  }

  enum Mode: Codable, Equatable, Sendable {
    case idle
    case loading(id: Int)
    case failed(String)
  }

  struct Wrapped: Codable, Equatable, Sendable {
    var value: Int
    func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(value)
    }
    init(value: Int) { self.value = value }
    init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Int.self) }
  }

  struct Nested: Codable, Equatable, Sendable {
    var flag: Bool
    var score: Double
  }

  struct Doc: Codable, Equatable, Sendable {
    var counts: [String: Int] = ["a/b": 1, "~x": 2, "plain": 3, "~1": 4]
    var items: TrackedArray<Item> = []
    var plain: [Int] = []
    var nested: Nested? = nil
    var mode: Mode = .idle
    var wrapped = Wrapped(value: 0)
    var note: String? = nil
  }

  /// A reducer whose action is the next state.
  struct Replace: Reducer {
    func reduce(into state: inout Doc, action: Doc) -> Effect<Doc> {
      state = action
      return .none
    }
  }

  static func store(_ initial: Doc = Doc()) -> HostStore<Replace> {
    HostStore(initialState: initial, reducer: Replace(), options: StoreOptions(), provided: [])
  }

  static func send(_ store: HostStore<Replace>, _ doc: Doc) throws {
    let json = try WireEncoder(explicitNulls: true).encode(doc)
    let failure: HostError? = json.withUnsafeBytes { bytes in
      do throws(HostError) { try store.send(bytes) } catch { return error }
      return nil
    }
    if let failure { throw failure }
  }

  static func parsePointer(_ pointer: String) throws -> [String] {
    let result: Result<[String], PatchError> = Array(pointer.utf8).withUnsafeBytes { bytes in
      do throws(PatchError) { return .success(try JSONPointer.parse(bytes)) } catch { return .failure(error) }
    }
    return try result.get()
  }

  static func json(_ doc: Doc) throws -> JSONValue {
    try WireEncoder(explicitNulls: true).encodeToJSONValue(doc)
  }

  static func get(_ store: HostStore<Replace>, _ pointer: String) throws -> JSONValue {
    let result: Result<([UInt8], Int, UInt64), HostError> = Array(pointer.utf8).withUnsafeBytes { raw in
      do throws(HostError) { return .success(try store.get(raw)) } catch { return .failure(error) }
    }
    let (bytes, count, _) = try result.get()
    return try parseJSON(Array(bytes.prefix(count)))
  }

  @Test func pointersEscapeTildeAndSlash() throws {
    let store = Self.store()
    #expect(try Self.get(store, "/counts/a~1b") == .int(1))
    #expect(try Self.get(store, "/counts/~0x") == .int(2))
    #expect(try Self.get(store, "/counts/~01") == .int(4))  // "~1" the key, not "/"
    #expect(try Self.get(store, "/wrapped") == .int(0))
    #expect(try Self.get(store, "/mode") == .string("idle"))
    #expect(throws: HostError.self) { try Self.get(store, "/counts/a/b") }
    #expect(JSONPointer.render(["a/b", "~x", "~1"]) == "/a~1b/~0x/~01")
    #expect(try JSONPointer.parse(UnsafeRawBufferPointer(start: nil, count: 0)) == [])
  }

  @Test func patchesOfEachShape() throws {
    let store = Self.store()
    _ = try store.patch(since: 0)
    var doc = Doc()
    doc.counts["a/b"] = 10
    doc.counts["new~/key"] = 5
    doc.counts["plain"] = nil
    try Self.send(store, doc)
    let (patch, version) = try store.patch(since: 0)
    let ops = try parseJSON(patch)
    #expect(version == 1)
    guard case let .array(list) = ops else { Issue.record("not an array"); return }
    let paths = Set(list.compactMap { op -> String? in
      guard case let .string(path)? = op["path"] else { return nil }
      return path
    })
    #expect(paths == ["/counts/a~1b", "/counts/new~0~1key", "/counts/plain"])

    doc.mode = .loading(id: 3)
    doc.wrapped.value = 7
    doc.nested = Nested(flag: true, score: 0.5)
    try Self.send(store, doc)
    let (second, _) = try store.patch(since: 1)
    #expect(String(decoding: second, as: UTF8.self) == #"[{"op":"replace","path":"/nested","value":{"flag":true,"score":0.5}},{"op":"replace","path":"/mode","value":{"loading":{"id":3}}},{"op":"replace","path":"/wrapped","value":7}]"#)
    doc.nested?.score = 1.5
    try Self.send(store, doc)
    let (third, _) = try store.patch(since: 2)
    #expect(String(decoding: third, as: UTF8.self) == #"[{"op":"replace","path":"/nested/score","value":1.5}]"#)
  }

  @Test func unchangedStateGivesAnEmptyPatch() throws {
    let store = Self.store()
    _ = try store.patch(since: 0)
    try Self.send(store, Doc())
    #expect(String(decoding: try store.patch(since: 0).json, as: UTF8.self) == "[]")
  }

  /// Random states: each patch applied to the previous JSON gives the next JSON.
  @Test(arguments: 1...30)
  func patchesReplay(seed: Int) throws {
    var random = SplitMix64(seed: UInt64(seed))
    var doc = Doc()
    let store = Self.store(doc)
    var json = try Self.json(doc)
    var version: UInt64 = try store.patch(since: 0).version
    for _ in 0..<25 {
      Self.mutate(&doc, &random)
      try Self.send(store, doc)
      let (patch, next) = try store.patch(since: version)
      json = try Self.apply(try parseJSON(patch), to: json)
      #expect(Self.normalized(json) == Self.normalized(try Self.json(doc)), "seed \(seed)")
      version = next
    }
  }

  /// `rk_store_get` at every pointer of random states reads what the whole state's JSON has
  /// there (the navigator finds members and elements without recording their siblings).
  @Test(arguments: 1...10)
  func everyPointerReadsTheStateJSON(seed: Int) throws {
    var random = SplitMix64(seed: UInt64(seed))
    var doc = Doc()
    for _ in 0..<12 { Self.mutate(&doc, &random) }
    let store = Self.store(doc)
    var pointers = 0
    func walk(_ value: JSONValue, _ pointer: String) throws {
      #expect(Self.normalized(try Self.get(store, pointer)) == Self.normalized(value), "\(pointer), seed \(seed)")
      pointers += 1
      switch value {
      case let .object(members):
        for member in members { try walk(member.value, pointer + JSONPointer.render([member.key])) }
      case let .array(elements):
        for (index, element) in elements.enumerated() { try walk(element, pointer + "/\(index)") }
      default: break
      }
    }
    try walk(try Self.json(doc), "")
    #expect(pointers > 10)
  }

  static func getError(_ store: HostStore<Replace>, _ pointer: String) -> String? {
    do {
      _ = try get(store, pointer)
      return nil
    } catch let error as HostError {
      return error.message
    } catch {
      return "\(error)"
    }
  }

  /// A pointer to nothing: the message names the first missing segment and why, as before
  /// the navigator found members without recording their siblings.
  @Test func missingPointersSayWhy() throws {
    var doc = Doc()
    doc.items = [Item(id: 1, name: "a")]
    let store = Self.store(doc)
    #expect(Self.getError(store, "/items/1") == #"no value at "/items/1": the array at "/items" has 1 element"#)
    #expect(Self.getError(store, "/nested/flag") == #"no value at "/nested/flag": the value at "/nested" is null"#)
    #expect(
      Self.getError(store, "/zzz/0")
        == #"no value at "/zzz" (of the pointer "/zzz/0"): the object at the root has no key "zzz" (its keys: "counts", "items", "plain", "nested", "mode", "wrapped", "note")"#)
    #expect(
      Self.getError(store, "/items/0/nope")
        == #"no value at "/items/0/nope": the object at "/items/0" has no key "nope" (its keys: "id", "name", "tags")"#)
    #expect(
      Self.getError(store, "/items/0/name/x")
        == #"no value at "/items/0/name/x": the value at "/items/0/name" is a string, not an object or an array"#)
    #expect(
      Self.getError(store, "/wrapped/x")
        == #"no value at "/wrapped/x": the value at "/wrapped" is a number, not an object or an array"#)
    #expect(Self.getError(store, "/plain/0") == #"no value at "/plain/0": the array at "/plain" has 0 elements"#)
    #expect(
      Self.getError(store, "/a~2")
        == #"pointer "/a~2" has "~" not followed by 0 or 1 (write "~" as "~0" and "/" as "~1")"#)
    #expect(Self.getError(store, "/items/0/name") == nil)
  }

  /// A type that writes a key twice: the last value is the member, as in its JSON.
  struct Twice: Encodable {
    enum Key: String, CodingKey { case a, b }
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Key.self)
      try container.encode(1, forKey: .a)
      try container.encode([true], forKey: .b)
      try container.encode(2, forKey: .a)
    }
  }

  /// An array written element by element, and a value written as nested containers.
  struct Listed: Encodable {
    func encode(to encoder: any Encoder) throws {
      var list = encoder.unkeyedContainer()
      try list.encodeNil()
      try list.encode("x")
      try list.encode(Twice())
    }
  }

  struct NestedWriter: Encodable {
    enum Key: String, CodingKey { case outer, inner }
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Key.self)
      var nested = container.nestedContainer(keyedBy: Key.self, forKey: .outer)
      try nested.encode(5, forKey: .inner)
    }
  }

  static func navigate(_ value: any Encodable, _ segments: [String]) -> String {
    do throws(PatchError) {
      return String(decoding: try Navigator.json(of: value, at: segments), as: UTF8.self)
    } catch {
      return "error: \(error.message)"
    }
  }

  @Test func navigatorReadsKeyedUnkeyedAndNestedWriters() {
    #expect(Self.navigate(Twice(), ["a"]) == "2")
    #expect(Self.navigate(Twice(), ["b", "0"]) == "true")
    #expect(Self.navigate(Listed(), ["0"]) == "null")
    #expect(Self.navigate(Listed(), ["1"]) == #""x""#)
    #expect(Self.navigate(Listed(), ["2", "a"]) == "2")
    #expect(Self.navigate(Listed(), ["3"]) == #"error: no value at "/3": the array at the root has 3 elements"#)
    #expect(Self.navigate(Listed(), ["01"]) == #"error: no value at "/01": the array at the root has no element "01": leading zeros are not allowed in an array index"#)
    #expect(Self.navigate(NestedWriter(), ["outer", "inner"]) == "5")
    #expect(Self.navigate(NestedWriter(), ["inner"]).hasPrefix(#"error: no value at "/inner": the object at the root has no key "inner""#))
  }

  struct Leaf: SynthesizedCodable, Equatable {
    var label: String
    var size: Int?
  }

  struct Tree: SynthesizedCodable, Equatable {
    var name: String
    var leaf: Leaf
    var spare: Leaf?
    var none: Leaf?
    var leaves: [Leaf]
    var flag: Bool
  }

  /// A `SynthesizedCodable` struct the codec trusts is read by its properties' offsets: the
  /// same values and messages as through `encode(to:)`.
  @Test func trustedStructsReadByOffsetAsThroughEncode() throws {
    let tree = Tree(
      name: "t", leaf: Leaf(label: "a", size: nil), spare: Leaf(label: "b", size: 2), none: nil,
      leaves: [Leaf(label: "c", size: 3)], flag: true)
    for _ in 0..<20 { _ = try WireEncoder(explicitNulls: true).encode(tree) }
    #expect(_NavigationType.of(tree).fields?.map(\.name) == ["name", "leaf", "spare", "none", "leaves", "flag"])
    #expect(_NavigationType.of(tree.leaf).fields != nil)
    let expected: [([String], String)] = [
      (["name"], #""t""#), (["leaf"], #"{"label":"a","size":null}"#), (["leaf", "size"], "null"),
      (["spare", "size"], "2"), (["spare"], #"{"label":"b","size":2}"#), (["none"], "null"),
      (["leaves", "0", "label"], #""c""#), (["flag"], "true"),
      (["none", "label"], #"error: no value at "/none/label": the value at "/none" is null"#),
      (["leaf", "size", "x"], #"error: no value at "/leaf/size/x": the value at "/leaf/size" is null"#),
      (["spare", "size", "x"], #"error: no value at "/spare/size/x": the value at "/spare/size" is a number, not an object or an array"#),
      (["nope"], #"error: no value at "/nope": the object at the root has no key "nope" (its keys: "name", "leaf", "spare", "none", "leaves", "flag")"#),
      (["leaves", "1"], #"error: no value at "/leaves/1": the array at "/leaves" has 1 element"#),
    ]
    for (segments, json) in expected {
      #expect(Self.navigate(tree, segments) == json, "\(segments)")
    }
  }

  @Test func pointersParseAsBefore() throws {
    #expect(try Self.parsePointer("/") == [""])
    #expect(try Self.parsePointer("//a/") == ["", "a", ""])
    #expect(try Self.parsePointer("/a~1b/~0~01/é") == ["a/b", "~~1", "é"])
    #expect(throws: PatchError.self) { try Self.parsePointer("a") }
    let invalid: [UInt8] = [UInt8(ascii: "/"), 0xFF]
    let message: String? = invalid.withUnsafeBytes { bytes in
      do throws(PatchError) {
        _ = try JSONPointer.parse(bytes)
        return nil
      } catch {
        return error.message
      }
    }
    #expect(message == "pointer is not valid UTF-8")
  }

  static func mutate(_ doc: inout Doc, _ random: inout SplitMix64) {
    let keys = ["a/b", "~x", "plain", "~1", "/", "~", "k\(random.next() % 5)"]
    for _ in 0..<Int(random.next() % 4) {
      switch random.next() % 9 {
      case 0: doc.counts[keys[Int(random.next() % UInt64(keys.count))]] = Int(random.next() % 9)
      case 1: doc.counts[keys[Int(random.next() % UInt64(keys.count))]] = nil
      case 2: doc.items.append(Item(id: Int(random.next() % 50), name: "n/~\(random.next() % 3)"))
      case 3 where !doc.items.isEmpty: doc.items.remove(at: Int(random.next() % UInt64(doc.items.count)))
      case 4 where !doc.items.isEmpty:
        let i = Int(random.next() % UInt64(doc.items.count))
        doc.items[i].tags.append("t\(random.next() % 3)")
      case 5: doc.plain.insert(Int(random.next() % 5), at: Int(random.next() % UInt64(doc.plain.count + 1)))
      case 6 where !doc.plain.isEmpty: doc.plain.remove(at: Int(random.next() % UInt64(doc.plain.count)))
      case 7: doc.nested = random.next() % 3 == 0 ? nil : Nested(flag: random.next() % 2 == 0, score: Double(random.next() % 4))
      default:
        doc.mode = [Mode.idle, .loading(id: Int(random.next() % 3)), .failed("e\(random.next() % 2)")][Int(random.next() % 3)]
        doc.note = random.next() % 2 == 0 ? nil : "~/\(random.next() % 3)"
      }
    }
  }

  /// RFC 6902 add/remove/replace over `JSONValue`.
  static func apply(_ patch: JSONValue, to document: JSONValue) throws -> JSONValue {
    guard case let .array(ops) = patch else { throw PatchTestError.bad("not an array") }
    var doc = document
    for op in ops {
      guard case let .string(kind)? = op["op"], case let .string(path)? = op["path"] else {
        throw PatchTestError.bad("op")
      }
      let segments = try parsePointer(path)
      doc = try apply(kind, segments[...], op["value"], to: doc)
    }
    return doc
  }

  static func apply(_ kind: String, _ path: ArraySlice<String>, _ value: JSONValue?, to node: JSONValue) throws -> JSONValue {
    guard let key = path.first else { return value ?? .null }
    let rest = path.dropFirst()
    switch node {
    case var .object(members):
      let index = members.firstIndex { $0.key == key }
      if rest.isEmpty {
        switch (kind, index) {
        case ("remove", let i?): members.remove(at: i)
        case ("replace", let i?), ("add", let i?): members[i].value = value ?? .null
        case ("add", nil): members.append((key, value ?? .null))
        default: throw PatchTestError.bad("\(kind) of missing key \(key)")
        }
      } else {
        guard let i = index else { throw PatchTestError.bad("no key \(key)") }
        members[i].value = try apply(kind, rest, value, to: members[i].value)
      }
      return .object(members)
    case var .array(elements):
      guard let i = Int(key), i >= 0, i <= elements.count else { throw PatchTestError.bad("index \(key)") }
      if rest.isEmpty {
        switch kind {
        case "add": elements.insert(value ?? .null, at: i)
        case "remove" where i < elements.count: elements.remove(at: i)
        case "replace" where i < elements.count: elements[i] = value ?? .null
        default: throw PatchTestError.bad("\(kind) at \(i)")
        }
      } else {
        guard i < elements.count else { throw PatchTestError.bad("index \(i)") }
        elements[i] = try apply(kind, rest, value, to: elements[i])
      }
      return .array(elements)
    default:
      throw PatchTestError.bad("a path through a scalar")
    }
  }

  /// Objects with their keys sorted (dictionaries encode in no fixed order).
  static func normalized(_ value: JSONValue) -> JSONValue {
    switch value {
    case let .object(members):
      return .object(members.map { ($0.key, normalized($0.value)) }.sorted { $0.0 < $1.0 })
    case let .array(elements):
      return .array(elements.map(normalized))
    default:
      return value
    }
  }

  enum PatchTestError: Error { case bad(String) }
}

struct SplitMix64 {
  var state: UInt64
  init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
