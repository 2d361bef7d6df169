import ReducerKit
import Testing

@Suite struct TrackedArrayTests {
  struct Row: Codable, Equatable, Identifiable, Sendable {
    var id: Int
    var text: String
  }

  static func rows(_ n: Int) -> TrackedArray<Row> {
    TrackedArray(uniqueElements: (0..<n).map { Row(id: $0, text: "row \($0)") })
  }

  @Test func collectionBasics() {
    var rows = Self.rows(1000)
    #expect(rows.count == 1000)
    #expect(rows[999] == Row(id: 999, text: "row 999"))
    #expect(rows[id: 500]?.text == "row 500")
    #expect(rows.index(id: 123) == 123)
    rows[id: 500]?.text = "changed"
    #expect(rows[500].text == "changed")
    #expect(rows.append(Row(id: 1000, text: "new")) == (true, 1000))
    #expect(rows.append(Row(id: 3, text: "dup")) == (false, 3))
    #expect(rows.remove(id: 0)?.text == "row 0")
    #expect(rows.first?.id == 1)
    #expect(rows.index(id: 1000) == 999)
    rows.insert(Row(id: -1, text: "first"), at: 0)
    #expect(rows[0].id == -1 && rows.index(id: 1) == 1)
    rows.move(from: 0, to: 5)
    #expect(rows[5].id == -1 && rows.index(id: -1) == 5)
    rows.removeAll { $0.id % 2 == 0 }
    #expect(rows.allSatisfy { $0.id % 2 != 0 })
    #expect(rows[id: 2] == nil)
    rows[id: 7] = nil
    #expect(!rows.contains(id: 7))
    rows[id: 4242] = Row(id: 4242, text: "by id")
    #expect(rows.last?.id == 4242)
    #expect(Array(rows) == rows.map { $0 })
  }

  @Test func copiesAreValues() {
    let before = Self.rows(2000)
    var after = before
    after[id: 1500]?.text = "x"
    after.append(Row(id: 5000, text: "y"))
    #expect(before[1500].text == "row 1500")
    #expect(before.count == 2000)
    #expect(before[id: 5000] == nil)  // its positions are rebuilt for this version
    #expect(after[id: 5000]?.text == "y")
    #expect(after[id: 1500]?.text == "x")
    #expect(before != after)
  }

  @Test func changesOfWritesAndAppends() {
    let before = Self.rows(5000)
    var after = before
    after[id: 4000]?.text = "x"
    after[id: 17]?.text = "y"
    #expect(after.changes(from: before) == [.updated(17), .updated(4000)])
    #expect(before.changes(from: before) == [])
    var longer = before
    longer.append(Row(id: 9000, text: "z"))
    longer.append(Row(id: 9001, text: "w"))
    #expect(longer.changes(from: before) == [.inserted(5000), .inserted(5001)])
  }

  @Test func changesOfRemovalsAndInsertions() {
    let before = Self.rows(100)
    var after = before
    after.remove(id: 40)
    #expect(after.changes(from: before) == [.removed(40)])
    var inserted = before
    inserted.insert(Row(id: 500, text: "in"), at: 10)
    #expect(inserted.changes(from: before) == [.inserted(10)])
    #expect(before.changes(from: after) == [.inserted(40)])
  }

  /// Random edits: the steps, applied in order to the old elements, give the new ones.
  @Test(arguments: 1...40)
  func changesReplayToTheNewVersion(seed: Int) {
    var generator = SplitMix(seed: UInt64(seed))
    let start = Self.rows(Int(generator.next() % 200))
    var array = start
    var nextID = 10_000
    for _ in 0..<Int(generator.next() % 8) {
      switch generator.next() % 5 {
      case 0 where !array.isEmpty: array[Int(generator.next() % UInt64(array.count))].text += "!"
      case 1: nextID += 1; array.append(Row(id: nextID, text: "a"))
      case 2 where !array.isEmpty: array.remove(at: Int(generator.next() % UInt64(array.count)))
      case 3: nextID += 1; array.insert(Row(id: nextID, text: "i"), at: Int(generator.next() % UInt64(array.count + 1)))
      default: array.removeAll { _ in generator.next() % 10 == 0 }
      }
    }
    var replay = Array(start)
    for step in array.changes(from: start) {
      switch step {
      case let .updated(i): replay[i] = array[i]
      case let .inserted(i): replay.insert(array[i], at: i)
      case let .removed(i): replay.remove(at: i)
      }
    }
    #expect(replay == Array(array))
  }

  @Test func decodingKeepsRepeatedIDs() throws {
    let rows = TrackedArray([Row(id: 1, text: "a"), Row(id: 1, text: "b")])
    #expect(rows.count == 2)
    #expect(rows[id: 1]?.text == "a")  // the first wins
  }

  @Test func equalityAndHash() {
    let a = Self.rows(300)
    var b = a
    #expect(a == b)
    b[id: 299]?.text = "row 299"  // written, but equal
    #expect(a == b)
    b[id: 299]?.text = "other"
    #expect(a != b)
    #expect(TrackedArray<Row>() == [])
  }
}

/// A small deterministic generator for the random tests.
struct SplitMix {
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
