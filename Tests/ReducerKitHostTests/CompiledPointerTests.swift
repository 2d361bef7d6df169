import Foundation
@_spi(Host) import ReducerKit
@testable import ReducerKitHost
@testable import ReducerKitWire
import Testing

/// `CompiledPointer` (issue 25: `rk_store_get` of a kept pointer after a change): the same bytes
/// as `Navigator` for every pointer it compiles, on random states, and nothing for a pointer
/// that names no value (the store then asks `Navigator`, whose error is unchanged).
@Suite struct CompiledPointerTests {
  typealias Doc = WireCodablePatchTests.Doc
  typealias Item = WireCodablePatchTests.Item

  /// The compiled read's JSON (nil: not compiled, or no value there) and `Navigator`'s (nil:
  /// an error).
  static func both(_ doc: Doc, _ segments: [String]) -> (compiled: [UInt8]?, navigator: [UInt8]?, isCompiled: Bool) {
    let navigator = try? Navigator.json(of: doc, at: segments)
    guard case .reader(let read) = CompiledPointer.compile(Doc.self, segments) else { return (nil, navigator, false) }
    return (CompiledPointer(read).json(of: doc, segments: segments), navigator, true)
  }

  @Test func compiledReadsAreNavigatorsBytes() {
    // Compiled: properties, optional properties (its value or null), elements of an array and
    // of a `TrackedArray`, and any value at the end (an enum, a struct, an array).
    let compiled: [[String]] = [
      ["title"], ["mode"], ["items"], ["tracked"], ["inner"], ["inner", "name"], ["inner", "id"],
      ["items", "0"], ["items", "0", "name"], ["items", "2", "done"], ["tracked", "0", "name"],
      ["tracked", "1", "id"], ["tracked", "40", "name"], ["items", "999999999999999999"],
    ]
    // Left to `Navigator`: an enum's payload, what is not an index (leading zero, `-`, too
    // long, a sign), a key no property has, a step into a scalar.
    let left: [[String]] = [
      ["mode", "loading"], ["mode", "id"], ["items", "01"], ["items", "-"], ["items", "+1"],
      ["items", "9999999999999999999"], ["tracked", "00"], ["nope"], ["Title"], [""], ["title", "0"],
      ["items", "0", "name", "x"], ["inner", "nope"], ["items", "0", "~0"],
    ]
    // With the codec's fast paths off (`REDUCERKIT_WIRE_FAST_PATHS=0`) no plan is trusted:
    // nothing compiles, and every read is `Navigator`'s.
    let fastPaths = ProcessInfo.processInfo.environment["REDUCERKIT_WIRE_FAST_PATHS"] != "0"
    var random = SplitMix64(seed: 25)
    var doc = Doc()
    var compiledReads = 0
    for step in 0..<200 {
      switch random.next() % 6 {
      case 0: doc.items.append(Item(id: step, name: "n/~\(step)\"\\\n\u{1}é"))
      case 1 where !doc.items.isEmpty: doc.items[Int(random.next() % UInt64(doc.items.count))].done.toggle()
      case 2: doc.tracked.append(Item(id: step, name: "\u{7f}\t\(step)"))
      case 3: doc.inner = random.next() % 3 == 0 ? nil : Item(id: step, name: "i\u{0}")
      case 4: doc.mode = [WireCodablePatchTests.Mode.idle, .loading(id: step), .failed("e\"")][Int(random.next() % 3)]
      default: doc.title += ["x", "\\", "\u{10FFFF}", "\r"][Int(random.next() % 4)]
      }
      for segments in compiled {
        let (read, reference, isCompiled) = Self.both(doc, segments)
        #expect(isCompiled == fastPaths, "\(segments)")
        guard isCompiled else { continue }
        #expect(read == reference, "step \(step) \(segments)")
        if read != nil { compiledReads += 1 }
      }
      for segments in left {
        let (read, _, isCompiled) = Self.both(doc, segments)
        #expect(!isCompiled && read == nil, "\(segments)")
      }
    }
    // Most compiled pointers name a value most of the time (the test reads, not only refuses).
    #expect(compiledReads > (fastPaths ? 200 * 5 : -1))
  }

  /// A `TrackedArray` element step reads by address (`_elementLayout`, loads only): the
  /// element at every index of arrays of one to four levels, nothing out of range, each leaf
  /// in order (`forEachLeaf`), and an element type aligned to 16 bytes.
  @Test func trackedArrayElementsAreReadByAddress() throws {
    struct Wide: Identifiable, Equatable {
      var id: Int
      var vector: SIMD4<Float>
    }
    func check<E: Identifiable & Equatable>(_ make: (Int) -> E) throws {
      let layout = try #require(TrackedArray<E>._elementLayout())
      for count in [0, 1, 31, 32, 33, 1_024, 1_025, 1_100, 33_000] {
        let array = TrackedArray((0..<count).map(make))
        withUnsafePointer(to: array) { pointer in
          let base = UnsafeRawPointer(pointer)
          for i in Set([0, 1, 31, 32, count / 2, count - 1, count - 2].filter { $0 >= 0 && $0 < count })
            .union(count <= 1_100 ? Set(0..<count) : []) {
            let element = layout.elementAddress(in: base, at: i)?.assumingMemoryBound(to: E.self).pointee
            #expect(element == array[i], "\(E.self) count \(count) index \(i)")
          }
          for i in [count, count + 1, -1, Int.min, Int.max] {
            #expect(layout.elementAddress(in: base, at: i) == nil, "\(E.self) count \(count) index \(i)")
          }
          // The leaves in order (the whole-state encode walks them so): every element once.
          var walked: [E] = []
          var leaves = 0
          layout.forEachLeaf(in: base) { _, first, n in
            leaves += 1
            walked += UnsafeBufferPointer(start: first.assumingMemoryBound(to: E.self), count: n)
          }
          #expect(walked == Array(array), "\(E.self) count \(count)")
          #expect(leaves == (count + 31) / 32, "\(E.self) count \(count)")
        }
      }
    }
    try check { Item(id: $0, name: "n\($0)") }
    try check { Wide(id: $0, vector: SIMD4(Float($0), 1, 2, 3)) }
    #expect(MemoryLayout<Wide>.alignment == 16)
    // Compiled reads of a deep array are `Navigator`'s bytes.
    var doc = Doc()
    for i in 0..<1_100 { doc.tracked.append(Item(id: i, name: "t\(i)")) }
    for segments in [["tracked", "0", "name"], ["tracked", "1099", "id"], ["tracked", "1024"], ["tracked", "1100"]] {
      let (read, reference, isCompiled) = Self.both(doc, segments)
      if isCompiled { #expect(read == reference, "\(segments)") }
    }
  }

  /// The fast string writer writes what the byte-by-byte one writes, for every byte.
  @Test func jsonStringsAreEscapedAsBefore() {
    var random = SplitMix64(seed: 6901)
    var texts = ["", "a", "\"", "\\", "\u{0}\u{1f}\u{7f}", "é€😀", String(repeating: "ab\"", count: 100)]
    for _ in 0..<300 {
      let length = Int(random.next() % 40)
      texts.append(String(String.UnicodeScalarView((0..<length).map { _ in
        Unicode.Scalar(UInt32(random.next() % 0x80)) ?? "?"
      })))
    }
    for text in texts {
      var fast: [UInt8] = []
      var plain: [UInt8] = []
      JSONPointer.appendJSONString(text, to: &fast)
      JSONPointer.appendJSONString(Array(text.utf8), to: &plain)
      #expect(fast == plain, "\(text.debugDescription)")
    }
  }
}
