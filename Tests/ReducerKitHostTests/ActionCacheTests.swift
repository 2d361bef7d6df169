import Foundation
@testable import ReducerKitHost
import Testing

/// The host store's cache of decoded actions by their text (`ActionCache`): its lock-free list
/// of the first entries, then its table. A hit is always the action inserted for exactly that
/// text; a miss is allowed only where the table evicts.
@Suite struct ActionCacheTests {
  static func key(_ i: Int) -> [UInt8] { Array("\"action \(i)\"".utf8) }

  func lookup(_ cache: ActionCache<Int>, _ key: [UInt8]) -> Int? {
    key.withUnsafeBytes { cache.lookup($0) }
  }

  func insert(_ cache: ActionCache<Int>, _ key: [UInt8], _ value: Int) {
    key.withUnsafeBytes { cache.insert($0, value) }
  }

  @Test func theListKeepsItsEntriesAndTellsKeysApart() {
    let cache = ActionCache<Int>()
    #expect(lookup(cache, Self.key(0)) == nil)
    for i in 0..<ActionCache<Int>.listLimit { insert(cache, Self.key(i), i) }
    for i in 0..<ActionCache<Int>.listLimit { #expect(lookup(cache, Self.key(i)) == i) }
    // Same length, one byte apart; a prefix; longer; empty.
    #expect(lookup(cache, Array("\"action 9\"".utf8)) == nil)
    #expect(lookup(cache, Array("\"action ".utf8)) == nil)
    #expect(lookup(cache, Array("\"action 0\" ".utf8)) == nil)
    #expect(lookup(cache, []) == nil)
    // Inserting a cached text again keeps one entry: the list still has room for none.
    insert(cache, Self.key(0), 0)
    #expect(lookup(cache, Self.key(0)) == 0)
  }

  /// Keys told apart by their last 8 bytes, by the bytes before them, and shorter than 8.
  @Test func keysThatShareTheirTailOrAreShort() {
    let cache = ActionCache<Int>()
    let keys = ["{\"a\":\"same tail\"}", "{\"b\":\"same tail\"}", "\"x\"", "\"y\"", "12", "21", "12345678", "02345678"]
    for (i, key) in keys.enumerated() { insert(cache, Array(key.utf8), i) }
    for (i, key) in keys.enumerated() { #expect(lookup(cache, Array(key.utf8)) == i, "\(key)") }
    #expect(lookup(cache, Array("{\"c\":\"same tail\"}".utf8)) == nil)
    #expect(lookup(cache, Array("1".utf8)) == nil)
    #expect(lookup(cache, Array("\u{0}12".utf8)) == nil)
  }

  @Test func pastTheListTheTableAnswersOrMisses() {
    let cache = ActionCache<Int>()
    let count = 600  // more than the list and the table hold
    for i in 0..<count { insert(cache, Self.key(i), i) }
    var hits = 0
    for i in 0..<count {
      let found = lookup(cache, Self.key(i))
      #expect(found == nil || found == i, "text \(i) gave \(String(describing: found))")
      if found != nil { hits += 1 }
    }
    // The list's entries are never evicted.
    for i in 0..<ActionCache<Int>.listLimit { #expect(lookup(cache, Self.key(i)) == i) }
    #expect(hits > ActionCache<Int>.listLimit)
    #expect(hits <= ActionCache<Int>.listLimit + ActionCache<Int>.slotCount)
  }

  @Test func concurrentInsertsAndLookupsSeeOnlyTheirOwnActions() async {
    let cache = ActionCache<Int>()
    let count = 64
    let wrong = await withTaskGroup(of: Int.self) { group in
      for thread in 0..<4 {
        group.addTask {
          var wrong = 0
          for round in 0..<2_000 {
            let i = (round &* 7 &+ thread &* 13) % count
            let key = Self.key(i)
            let found = key.withUnsafeBytes { cache.lookup($0) }
            if let found, found != i { wrong += 1 }
            if found == nil { key.withUnsafeBytes { cache.insert($0, i) } }
          }
          return wrong
        }
      }
      return await group.reduce(0, +)
    }
    #expect(wrong == 0)
    for i in 0..<ActionCache<Int>.listLimit {
      let found = lookup(cache, Self.key(i))
      #expect(found == nil || found == i)
    }
  }
}
