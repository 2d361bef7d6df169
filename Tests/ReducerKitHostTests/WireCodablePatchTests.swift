import Foundation
import ReducerKit
@testable import ReducerKitHost
@testable import ReducerKitWire
import Testing

/// The patch engine on a `WireCodable` state (conformances written by hand, as `@Wire` writes
/// them): property by property from the first diff, no whole-state encode to check a plan
/// first, and the same patches as the general differ (`REDUCERKIT_WIRE_CHECK=1` compares them).
@Suite struct WireCodablePatchTests {
  struct Item: Codable, Equatable, Identifiable, Sendable {
    var id: Int
    var name: String
    var done = false
  }

  struct Doc: Codable, Equatable, Sendable {
    var items: [Item] = []
    var tracked: TrackedArray<Item> = []
    var inner: Item? = nil
    var mode: Mode = .idle
    var title = ""
  }

  enum Mode: Codable, Equatable, Sendable {
    case idle
    case loading(id: Int)
    case failed(String)
  }

  /// A reducer whose action is the next state.
  struct Replace: Reducer {
    func reduce(into state: inout Doc, action: Doc) -> Effect<Doc> {
      state = action
      return .none
    }
  }

  @Test func patchesAreDirectFromTheFirstSend() throws {
    let store = HostStore(initialState: Doc(), reducer: Replace(), options: StoreOptions(), provided: [])
    var doc = Doc()
    var json = try InPlacePatchTests.json(doc)
    var version = try InPlacePatchTests.patch(store, since: 0).version
    var random = SplitMix64(seed: 26)
    let fastPaths = ProcessInfo.processInfo.environment["REDUCERKIT_WIRE_FAST_PATHS"] != "0"
    // Settled when the store started its patches, before any send.
    #expect(InPlacePatchTests.isDirect(store) == fastPaths)
    for step in 0..<40 {
      switch random.next() % 6 {
      case 0: doc.items.append(Item(id: step, name: "n/~\(step)"))
      case 1 where !doc.items.isEmpty: doc.items[Int(random.next() % UInt64(doc.items.count))].done.toggle()
      case 2: doc.tracked.append(Item(id: step, name: "é\"\(step)"))
      case 3: doc.inner = random.next() % 3 == 0 ? nil : Item(id: step, name: "i")
      case 4: doc.mode = [Mode.idle, .loading(id: step), .failed("e")][Int(random.next() % 3)]
      default: doc.title += "x"
      }
      try InPlacePatchTests.send(store, Array(try WireEncoder(explicitNulls: true).encode(doc)))
      let (patch, next) = try InPlacePatchTests.patch(store, since: version)
      json = try PatchTests.apply(try parseJSON(patch), to: json)
      #expect(PatchTests.normalized(json) == PatchTests.normalized(try InPlacePatchTests.json(doc)), "step \(step)")
      version = next
      // Settled on the first diff: no sampling.
      #expect(InPlacePatchTests.isDirect(store) == fastPaths, "step \(step)")
    }
    for type in [Doc.self, Item.self] as [Any.Type] {
      #expect(!_withWireTables { _layoutReadTypes.contains(ObjectIdentifier(type)) }, "\(type)")
    }
  }

  // Types no other test uses: the tables below are per process.
  struct ColdItem: Codable, Equatable, Identifiable, Sendable {
    var id: Int
    var done = false
  }

  struct ColdState: Codable, Equatable, Sendable {
    var items: TrackedArray<ColdItem> = []
  }

  enum ColdAction: Codable, Equatable, Sendable {
    case toggle(id: Int)
    case clear
  }

  struct Cold: Reducer {
    func reduce(into state: inout ColdState, action: ColdAction) -> Effect<ColdAction> {
      switch action {
      case .toggle(let id): if let i = state.items.firstIndex(where: { $0.id == id }) { state.items[i].done.toggle() }
      case .clear: state.items = []
      }
      return .none
    }
  }

  /// What a store's first send would settle once per process (its action's plan, how the
  /// general differ diffs a `TrackedArray` property) is settled when the store is made and
  /// starts its patches (issues 25/26: the first send costs what later ones do).
  @Test func firstSendFindsItsActionPlanAndDifferKindsSettled() throws {
    let fastPaths = ProcessInfo.processInfo.environment["REDUCERKIT_WIRE_FAST_PATHS"] != "0"
    let store = HostStore(
      initialState: ColdState(items: [ColdItem(id: 1), ColdItem(id: 2)]), reducer: Cold(), options: StoreOptions(),
      provided: [])
    var version = try InPlacePatchTests.patch(store, since: 0).version
    // The action's plan is used (so made) only by the fast codec, not when checking.
    if _wireCodecMode == .fast {
      var made = false
      _ = _enumPlans.state(of: ColdAction.self) {
        made = true
        return nil
      }
      #expect(!made, "the action's plan was not made with the store")
    }
    if fastPaths {
      #expect(_TypeKind.isSettled(TrackedArray<ColdItem>.self))
      // The element syncer a first changed element needs is made with the patches (a
      // rehearsal diff of the state against itself), not in the first send.
      #expect(store.patches.history.withLock { $0.pool.hasElementSyncer(for: ColdItem.self) })
    }
    try InPlacePatchTests.send(store, Array(#"{"toggle":{"id":2}}"#.utf8))
    let (patch, next) = try InPlacePatchTests.patch(store, since: version)
    version = next
    #expect(String(decoding: patch, as: UTF8.self).contains(#""/items/1/done""#))
    #expect(String(decoding: patch, as: UTF8.self).contains("true"))
  }
}

extension WireCodablePatchTests.Item: ReducerKitWire.WireCodable {
  static var _wireShape: ReducerKitWire._WireShape<Self> {
    .struct([
      .init("id", \Self.id),
      .init("name", \Self.name),
      .init("done", \Self.done),
    ])
  }
}

extension WireCodablePatchTests.Doc: ReducerKitWire.WireCodable {
  static var _wireShape: ReducerKitWire._WireShape<Self> {
    .struct([
      .init("items", \Self.items),
      .init("tracked", \Self.tracked),
      .init("inner", ifPresent: \Self.inner),
      .init("mode", \Self.mode),
      .init("title", \Self.title),
    ])
  }
}

extension WireCodablePatchTests.Mode: ReducerKitWire.WireCodable {
  static var _wireShape: ReducerKitWire._WireShape<Self> {
    .enum([
      .unit("idle"),
      .init("loading", labels: ["id"], [.init(Int.self)]),
      .init("failed", labels: [nil], [.init(String.self)]),
    ]) { i, p in
      switch i {
      case 0: p.set(Self.idle)
      case 1: p.set(Self.loading(id: p.take(0, Int.self)))
      case 2: p.set(Self.failed(p.take(0, String.self)))
      default: preconditionFailure()
      }
    }
  }
}

extension WireCodablePatchTests.ColdItem: ReducerKitWire.WireCodable {
  static var _wireShape: ReducerKitWire._WireShape<Self> {
    .struct([
      .init("id", \Self.id),
      .init("done", \Self.done),
    ])
  }
}

extension WireCodablePatchTests.ColdState: ReducerKitWire.WireCodable {
  static var _wireShape: ReducerKitWire._WireShape<Self> {
    .struct([.init("items", \Self.items)])
  }
}

extension WireCodablePatchTests.ColdAction: ReducerKitWire.WireCodable {
  static var _wireShape: ReducerKitWire._WireShape<Self> {
    .enum([
      .init("toggle", labels: ["id"], [.init(Int.self)]),
      .unit("clear"),
    ]) { i, p in
      switch i {
      case 0: p.set(Self.toggle(id: p.take(0, Int.self)))
      case 1: p.set(Self.clear)
      default: preconditionFailure()
      }
    }
  }
}
