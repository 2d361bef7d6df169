import Foundation
import ReducerKit
import ReducerKitExamples
@testable import ReducerKitHost
import ReducerKitFFI
@testable import ReducerKitWire
import Testing

/// The whole-state encode that copies the runs of elements (a `TrackedArray`'s leaves) it
/// wrote for the previous version (`WireEncoder.encode(_:reusing:)`, `WireRunCache`): the same
/// bytes as a plain encode and as the reference encoder, after every kind of change.
@Suite struct StateRunCacheTests {
  typealias Todo = Todos.Todo

  /// A deterministic generator (no dependence on the run).
  struct Values {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    mutating func int(_ range: ClosedRange<Int>) -> Int {
      range.lowerBound + Int(next() % UInt64(range.count))
    }
    mutating func title() -> String {
      ["milk", "a \"quoted\" title", "tab\there", "é ü 😀", "", "back\\slash", "line\nbreak"][int(0...6)]
    }
  }

  func plain(_ state: Todos.State) throws -> [UInt8] {
    try WireEncoder(explicitNulls: true).encode(state)
  }

  func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

  /// Each change a state's todos can see: writes, appends, removals and insertions anywhere,
  /// the filter; after each, the reused encode is the plain one and the reference one.
  @Test func everyKindOfChangeEncodesAsAPlainEncodeDoes() throws {
    var values = Values(state: 7)
    var state = Todos.State(todos: (0..<1_000).map { Todo(id: $0, title: "todo \($0)") })
    let cache = WireRunCache()
    var reused = 0
    for step in 0..<300 {
      switch values.int(0...7) {
      case 0, 1, 2:
        let id = state.todos[values.int(0...(state.todos.count - 1))].id
        state.todos[id: id]?.isComplete.toggle()
      case 3:
        let i = values.int(0...(state.todos.count - 1))
        state.todos[i].title = values.title()
      case 4:
        state.todos.append(Todo(id: state.nextID, title: values.title()))
        state.nextID += 1
      case 5:
        if state.todos.count > 1 { state.todos.remove(at: values.int(0...(state.todos.count - 1))) }
      case 6:
        state.todos.insert(Todo(id: state.nextID, title: values.title()), at: values.int(0...state.todos.count))
        state.nextID += 1
      default:
        state.filter = [.all, .active, .completed][values.int(0...2)]
      }
      let bytes = try WireEncoder(explicitNulls: true).encode(state, reusing: cache, nulTerminated: step % 2 == 0)
      let got = step % 2 == 0 ? Array(bytes.dropLast()) : bytes
      if step % 2 == 0 { #expect(bytes.last == 0) }
      let expected = try plain(state)
      #expect(got == expected, "step \(step): \(text(got).prefix(200)) != \(text(expected).prefix(200))")
      #expect(got == (try _referenceEncode(state, explicitNulls: true)), "step \(step): not the reference encoder's")
      reused += cache.lastEncode.reused
    }
    // Not vacuous: runs were copied (the plan of `Todo` is trusted after its first encodes).
    if _wireFastPaths { #expect(reused > 1_000, "only \(reused) runs reused in 300 encodes") }
  }

  /// After a toggle, one leaf of 32 todos is written again and the others are copied.
  @Test func aToggleWritesOneRunAgain() throws {
    guard _wireFastPaths else { return }  // the reference codec writes everything
    var state = Todos.State(todos: (0..<1_000).map { Todo(id: $0, title: "todo \($0)") })
    let cache = WireRunCache()
    for _ in 0..<20 { _ = try WireEncoder(explicitNulls: true).encode(state, reusing: cache) }  // the plan is trusted
    for id in [0, 500, 999, 31, 32] {
      state.todos[id: id]?.isComplete.toggle()
      let bytes = try WireEncoder(explicitNulls: true).encode(state, reusing: cache)
      #expect(bytes == (try plain(state)))
      #expect(cache.lastEncode.written == 1, "toggle of \(id): \(cache.lastEncode)")
      #expect(cache.lastEncode.reused == 31, "toggle of \(id): \(cache.lastEncode)")
    }
  }

  /// An older version (sharing storage with the newer one) and a different value encode
  /// right too, and explicit nulls off is kept apart from on.
  @Test func olderVersionsAndOtherValuesEncodeRight() throws {
    let cache = WireRunCache()
    let old = Todos.State(todos: (0..<300).map { Todo(id: $0, title: "t\($0)") })
    var new = old
    new.todos[id: 40]?.title = "changed"
    for state in [old, new, old, Todos.State(), new, old] {
      for _ in 0..<20 {
        #expect(try WireEncoder(explicitNulls: true).encode(state, reusing: cache) == plain(state))
        #expect(try WireEncoder().encode(state, reusing: cache) == WireEncoder().encode(state))
      }
    }
  }

  /// Two `TrackedArray`s in one value: when the first gains leaves, the second's runs come
  /// later than they did; they are found by address (one a place away, or through the table
  /// built on the second miss) and copied, with the same bytes as a plain encode.
  @Test func runsThatMovedAreFoundAndCopied() throws {
    struct Pair: Encodable {
      var a: Todos.State
      var b: Todos.State
    }
    func plain(_ pair: Pair) throws -> [UInt8] { try WireEncoder(explicitNulls: true).encode(pair) }
    var pair = Pair(
      a: Todos.State(todos: (0..<64).map { Todo(id: $0, title: "a\($0)") }),
      b: Todos.State(todos: (0..<320).map { Todo(id: $0, title: "b\($0)") }))
    let cache = WireRunCache()
    for _ in 0..<20 { #expect(try WireEncoder(explicitNulls: true).encode(pair, reusing: cache) == plain(pair)) }
    // One leaf more before `b`'s 10: each of them is one place later.
    pair.a.todos.append(Todo(id: 64, title: "a64"))
    #expect(try WireEncoder(explicitNulls: true).encode(pair, reusing: cache) == plain(pair))
    if _wireFastPaths { #expect(cache.lastEncode == (reused: 12, written: 1), "\(cache.lastEncode)") }
    // Its last leaf filled and two more: three runs written (the first of them taken for one
    // written since, the next two looked up in the table), `b`'s found by address.
    for id in 65..<129 { pair.a.todos.append(Todo(id: id, title: "a\(id)")) }
    #expect(try WireEncoder(explicitNulls: true).encode(pair, reusing: cache) == plain(pair))
    if _wireFastPaths { #expect(cache.lastEncode == (reused: 12, written: 3), "\(cache.lastEncode)") }
    // Five places earlier: the first found nowhere near is written again.
    pair.a = Todos.State()
    #expect(try WireEncoder(explicitNulls: true).encode(pair, reusing: cache) == plain(pair))
    if _wireFastPaths { #expect(cache.lastEncode == (reused: 9, written: 1), "\(cache.lastEncode)") }
    let other = Pair(a: Todos.State(todos: [Todo(id: 1, title: "x")]), b: Todos.State())
    #expect(try WireEncoder(explicitNulls: true).encode(other, reusing: cache) == plain(other))
    #expect(try WireEncoder(explicitNulls: true).encode(pair, reusing: cache) == plain(pair))
  }

  /// A value that outgrows the room reserved from the last encode's size (the bytes move
  /// to memory of their own), with and without the NUL; and a cache whose bound holds only
  /// a few runs keeps no more, writing the rest each time.
  @Test func outgrownBuffersAndABoundedCache() throws {
    let cache = WireRunCache()
    let small = Todos.State(todos: [Todo(id: 0, title: "t")])
    var big = Todos.State(todos: (0..<1_000).map { Todo(id: $0, title: "todo \($0)") })
    for nul in [true, false] {
      #expect(try WireEncoder(explicitNulls: true).encode(small, reusing: cache, nulTerminated: nul) == plain(small) + (nul ? [0] : []))
      #expect(try WireEncoder(explicitNulls: true).encode(big, reusing: cache, nulTerminated: nul) == plain(big) + (nul ? [0] : []))
    }
    // A leaf of these todos is at least 32 x 44 bytes (`{"id":0,"title":"todo 0","isComplete":false}`)
    // + 31 commas: this bound holds 4 of them at most.
    let bounded = WireRunCache(maxBytes: 4 * (32 * 44 + 31))
    var reused = 0
    for step in 0..<40 {
      big.todos[id: (step * 97) % 1_000]?.isComplete.toggle()
      #expect(try WireEncoder(explicitNulls: true).encode(big, reusing: bounded) == plain(big), "step \(step)")
      #expect(bounded.lastEncode.reused <= 4, "step \(step): \(bounded.lastEncode)")
      reused += bounded.lastEncode.reused
    }
    if _wireFastPaths { #expect(reused > 0) }
  }

  /// Several threads encoding with one cache (a store read from several threads): each gets
  /// its own value's bytes; an encode that finds the cache in use encodes without it.
  @Test func concurrentEncodesWithOneCache() throws {
    let cache = WireRunCache()
    let base = Todos.State(todos: (0..<500).map { Todo(id: $0, title: "t\($0)") })
    let states = (0..<4).map { i -> Todos.State in
      var state = base
      state.todos[id: i * 100]?.isComplete.toggle()
      return state
    }
    let expected = try states.map(plain)
    let failures = LockedCounter()
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for round in 0..<50 {
        let i = (thread + round) % states.count
        let bytes = try? WireEncoder(explicitNulls: true).encode(states[i], reusing: cache)
        if bytes != expected[i] { failures.add() }
      }
    }
    #expect(failures.value == 0)
  }

  /// `rk_store_get(s, "")` after each toggle: the store's whole-state JSON is the state's.
  @Test func aStoreReadAfterEachChangeIsTheState() throws {
    FeatureRegistry.register(ScenarioTests.features)
    var store: OpaquePointer?
    let todos = (0..<200).map { #"{"id":\#($0),"title":"t\#($0)","isComplete":false}"# }.joined(separator: ",")
    #expect(rk_store_create("todos", #"{"initial_state":{"todos":[\#(todos)],"filter":"all","nextID":200}}"#, &store) == 0)
    defer { rk_store_destroy(store) }
    var state = Todos.State(todos: (0..<200).map { Todo(id: $0, title: "t\($0)") }, nextID: 200)
    for i in 0..<60 {
      let id = (i * 37) % 200
      #expect(rk_store_send(store, #"{"toggle":{"id":\#(id)}}"#) == 0)
      state.todos[id: id]?.isComplete.toggle()
      var json: UnsafeMutablePointer<CChar>?
      var length = 0
      #expect(rk_store_get(store, "", &json, &length, nil) == 0)
      let got = json.map { String(cString: $0) } ?? ""
      rk_free(json)
      #expect(got == text(try plain(state)), "after toggle \(i)")
      #expect(length == got.utf8.count)
    }
  }

  /// A recorded store's log encodes each state when it is taken: each record shows the state
  /// after its own action, not a later one.
  @Test func theActionLogShowsEachStateAfterItsAction() throws {
    FeatureRegistry.register(ScenarioTests.features)
    var store: OpaquePointer?
    #expect(rk_store_create("counter", #"{"record_actions":true}"#, &store) == 0)
    defer { rk_store_destroy(store) }
    for _ in 0..<3 { #expect(rk_store_send(store, #""increment""#) == 0) }
    #expect(rk_store_send(store, #""decrement""#) == 0)
    var json: UnsafeMutablePointer<CChar>?
    var length = 0
    #expect(rk_store_take_actions(store, &json, &length) == 0)
    let log = json.map { String(cString: $0) } ?? ""
    rk_free(json)
    let records = try parseJSON(Array(log.utf8))
    let counts = (0..<4).map { records[$0]?["state"]?["count"] }
    #expect(counts == [.int(1), .int(2), .int(3), .int(2)], "\(log)")
    #expect(records[4] == nil)
    #expect(log.contains(#"{"action":"increment","origin":"host","version":1,"state":{"count":1,"#), "\(log)")
    var state: UnsafeMutablePointer<CChar>?
    #expect(rk_store_get(store, "", &state, &length, nil) == 0)
    #expect(state.map { String(cString: $0) }?.hasPrefix(#"{"count":2,"#) == true)
    rk_free(state)
  }
}

/// A counter several threads add to.
final class LockedCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  func add() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}
