#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif

/// The storage of ``TrackedArray``: a persistent vector (a 32-way trie of fixed-size nodes,
/// as in Clojure's `PersistentVector`).
///
/// Copies share nodes. Writing an element copies only the nodes on its path (about
/// log32(n) nodes of 32 slots) when they are shared, and writes in place when they are not,
/// so a store that keeps the previous state for diffing pays O(log n) per change instead of
/// an O(n) copy of the whole array. Two versions differ only in the nodes that were copied,
/// so the differences are found by skipping identical nodes: O(changes × log n).
@usableFromInline
struct _PersistentVector<Element> {
  @usableFromInline static var bits: Int { 5 }
  @usableFromInline static var width: Int { 32 }
  @usableFromInline static var mask: Int { 31 }

  /// The root, nil when empty. Leaves hold elements; inner nodes hold children.
  @usableFromInline var root: _VectorNode<Element>?
  @usableFromInline var count: Int
  /// The bit shift of the root's level: 0 when the root is a leaf.
  @usableFromInline var shift: Int

  @inlinable init() {
    root = nil
    count = 0
    shift = 0
  }

  /// A vector of `elements`, built bottom-up in O(n).
  @inlinable init<S: Sequence>(_ elements: S) where S.Element == Element {
    var level: ContiguousArray<_VectorNode<Element>> = []
    var leaf = ContiguousArray<Element>()
    leaf.reserveCapacity(Self.width)
    var total = 0
    for element in elements {
      leaf.append(element)
      total += 1
      if leaf.count == Self.width {
        level.append(_VectorNode(elements: leaf))
        leaf = []
        leaf.reserveCapacity(Self.width)
      }
    }
    if !leaf.isEmpty { level.append(_VectorNode(elements: leaf)) }
    count = total
    shift = 0
    guard !level.isEmpty else {
      root = nil
      return
    }
    while level.count > 1 {
      var next: ContiguousArray<_VectorNode<Element>> = []
      next.reserveCapacity((level.count + Self.mask) / Self.width)
      var start = 0
      while start < level.count {
        let end = Swift.min(start + Self.width, level.count)
        next.append(_VectorNode(children: ContiguousArray(level[start..<end])))
        start = end
      }
      level = next
      shift += Self.bits
    }
    root = level[0]
  }

  @inlinable
  subscript(position: Int) -> Element {
    get {
      var node = root.unsafelyUnwrapped
      var level = shift
      while level > 0 {
        node = node.children[(position &>> level) & Self.mask]
        level -= Self.bits
      }
      return node.elements[position & Self.mask]
    }
    _modify {
      let leaf = Self.uniqueLeaf(&root!, level: shift, position: position)
      yield &leaf.elements[position & Self.mask]
    }
  }

  /// The leaf holding `position`, after making every node on its path unique (copying the
  /// shared ones, O(log n)), so writing into it changes no other vector.
  @inlinable
  static func uniqueLeaf(_ node: inout _VectorNode<Element>, level: Int, position: Int) -> _VectorNode<Element> {
    if !isKnownUniquelyReferenced(&node) { node = node.copy() }
    if level == 0 { return node }
    return uniqueLeaf(&node.children[(position &>> level) & mask], level: level - bits, position: position)
  }

  @inlinable
  mutating func append(_ element: Element) {
    guard root != nil else {
      root = _VectorNode(elements: [element])
      count = 1
      shift = 0
      return
    }
    if count == Self.width &<< shift {
      root = _VectorNode(children: [root!])
      shift += Self.bits
    }
    Self.append(element, to: &root!, level: shift, position: count)
    count += 1
  }

  @inlinable
  static func append(_ element: Element, to node: inout _VectorNode<Element>, level: Int, position: Int) {
    if !isKnownUniquelyReferenced(&node) { node = node.copy() }
    if level == 0 {
      node.elements.append(element)
      return
    }
    let slot = (position &>> level) & mask
    if slot == node.children.count {
      node.children.append(path(to: element, level: level - bits))
    } else {
      append(element, to: &node.children[slot], level: level - bits, position: position)
    }
  }

  @inlinable
  static func path(to element: Element, level: Int) -> _VectorNode<Element> {
    level == 0 ? _VectorNode(elements: [element]) : _VectorNode(children: [path(to: element, level: level - bits)])
  }

  /// Calls `body` with each leaf's elements, in order.
  @inlinable
  func forEachLeaf(_ body: (ContiguousArray<Element>) throws -> Void) rethrows {
    guard let root else { return }
    try Self.forEachLeaf(root, level: shift, body)
  }

  @inlinable
  static func forEachLeaf(
    _ node: _VectorNode<Element>, level: Int, _ body: (ContiguousArray<Element>) throws -> Void
  ) rethrows {
    if level == 0 {
      try body(node.elements)
      return
    }
    for child in node.children { try forEachLeaf(child, level: level - bits, body) }
  }

  /// The subtree covering positions from 0 at `level`, descending the leftmost children.
  @inlinable
  func leftmost(atLevel level: Int) -> _VectorNode<Element>? {
    var node = root
    var current = shift
    while current > level, let n = node {
      node = n.children.first
      current -= Self.bits
    }
    return node
  }
}

extension _PersistentVector where Element: Equatable {
  /// Whether both hold equal elements; shared nodes are not looked into.
  @inlinable
  func elementsEqual(_ other: Self) -> Bool {
    guard count == other.count else { return false }
    guard let a = root, let b = other.root else { return true }
    return Self.equal(a, b, level: shift)
  }

  /// Whether two elements are equal: the same bytes (a copy the store made before writing
  /// a neighbour) or `==`. For a reflexive `==` this is `==`, and it spares the witness
  /// calls where this code runs unspecialized (reached through a dynamic cast).
  @inlinable @inline(__always)
  static func same(_ a: ContiguousArray<Element>, _ i: Int, _ b: ContiguousArray<Element>, _ j: Int) -> Bool {
    let bitwise = a.withUnsafeBufferPointer { pa in
      b.withUnsafeBufferPointer { pb in
        memcmp(pa.baseAddress! + i, pb.baseAddress! + j, MemoryLayout<Element>.size) == 0
      }
    }
    return bitwise || a[i] == b[j]
  }

  /// The positions (below `count`) where two leaves' elements differ, compared as in `same`.
  @inlinable
  static func differing(_ a: ContiguousArray<Element>, _ b: ContiguousArray<Element>, base: Int, into out: inout [Int]) {
    let n = Swift.min(a.count, b.count)
    a.withUnsafeBufferPointer { pa in
      b.withUnsafeBufferPointer { pb in
        guard let x = pa.baseAddress, let y = pb.baseAddress else { return }
        let size = MemoryLayout<Element>.size
        // Without the padding after each element (a copy does not keep it).
        for i in 0..<n where memcmp(x + i, y + i, size) != 0 && x[i] != y[i] {
          out.append(base + i)
        }
      }
    }
  }

  @inlinable
  static func equal(_ a: _VectorNode<Element>, _ b: _VectorNode<Element>, level: Int) -> Bool {
    if a === b { return true }
    if level == 0 {
      guard a.elements.count == b.elements.count else { return false }
      for i in a.elements.indices where !same(a.elements, i, b.elements, i) { return false }
      return true
    }
    guard a.children.count == b.children.count else { return false }
    for i in a.children.indices where !equal(a.children[i], b.children[i], level: level - bits) {
      return false
    }
    return true
  }

  /// The positions (ascending) whose elements differ, for two vectors of the same count.
  @inlinable
  func differingPositions(from old: Self) -> [Int] {
    precondition(count == old.count && shift == old.shift)
    var out: [Int] = []
    if let a = old.root, let b = root { Self.collect(a, b, level: shift, base: 0, into: &out) }
    return out
  }

  @inlinable
  static func collect(
    _ a: _VectorNode<Element>, _ b: _VectorNode<Element>, level: Int, base: Int, into out: inout [Int]
  ) {
    if a === b { return }
    if level == 0 {
      differing(a.elements, b.elements, base: base, into: &out)
      return
    }
    for i in differingChildren(a, b) {
      collect(a.children[i], b.children[i], level: level - bits, base: base + (i &<< level), into: &out)
    }
  }

  /// The slots where two inner nodes hold different children, found by comparing the
  /// references' bits (no retains: this code runs unspecialized).
  @inlinable
  static func differingChildren(_ a: _VectorNode<Element>, _ b: _VectorNode<Element>) -> [Int] {
    let n = Swift.min(a.children.count, b.children.count)
    var out: [Int] = []
    a.children.withUnsafeBytes { x in
      b.children.withUnsafeBytes { y in
        let word = MemoryLayout<UnsafeRawPointer>.stride
        for i in 0..<n where x.load(fromByteOffset: i * word, as: UInt.self) != y.load(fromByteOffset: i * word, as: UInt.self) {
          out.append(i)
        }
      }
    }
    return out
  }

  /// How many leading elements the two vectors have in common. Shared subtrees are skipped
  /// whole, so an append to a long vector costs O(log n).
  @inlinable
  func commonPrefix(with other: Self) -> Int {
    let limit = Swift.min(count, other.count)
    guard limit > 0 else { return 0 }
    let level = Swift.min(shift, other.shift)
    guard let a = leftmost(atLevel: level), let b = other.leftmost(atLevel: level) else { return 0 }
    // Both subtrees cover positions 0 ..< 32 << level; past them, compare element by element.
    let prefix = Self.prefix(a, b, level: level, base: 0, limit: limit)
    if prefix < Swift.min(limit, Self.width &<< level) { return prefix }
    var i = prefix
    while i < limit, self[i] == other[i] { i += 1 }
    return i
  }

  @inlinable
  static func prefix(
    _ a: _VectorNode<Element>, _ b: _VectorNode<Element>, level: Int, base: Int, limit: Int
  ) -> Int {
    if a === b { return Swift.min(limit, base + (width &<< level)) }
    if level == 0 {
      var i = 0
      let n = Swift.min(a.elements.count, b.elements.count, limit - base)
      while i < n, same(a.elements, i, b.elements, i) { i += 1 }
      return base + i
    }
    let n = Swift.min(a.children.count, b.children.count)
    for i in 0..<n {
      let childBase = base + (i &<< level)
      if childBase >= limit { return limit }
      let reached = prefix(a.children[i], b.children[i], level: level - bits, base: childBase, limit: limit)
      if reached < Swift.min(limit, childBase + (width &<< level)) { return reached }
    }
    return Swift.min(limit, base + (n &<< level))
  }
}

extension _PersistentVector: Sendable where Element: Sendable {}

/// A node of a ``_PersistentVector``: a leaf (elements) or an inner node (children).
@usableFromInline
final class _VectorNode<Element>: @unchecked Sendable {
  // Safe: a node is mutated only through `_PersistentVector`'s mutating methods, and only
  // after `isKnownUniquelyReferenced` proved that no other vector (so no other thread) holds
  // it; a shared node is copied first. This is the copy-on-write discipline of `Array`.
  // `@exclusivity(unchecked)`: accesses never overlap (see above: one owner at a time).
  @exclusivity(unchecked) @usableFromInline var elements: ContiguousArray<Element>
  @exclusivity(unchecked) @usableFromInline var children: ContiguousArray<_VectorNode<Element>>

  @inlinable init(elements: ContiguousArray<Element>) {
    self.elements = elements
    self.children = []
  }

  @inlinable init(children: ContiguousArray<_VectorNode<Element>>) {
    self.elements = []
    self.children = children
  }

  @inlinable func copy() -> _VectorNode<Element> {
    children.isEmpty ? _VectorNode(elements: elements) : _VectorNode(children: children)
  }
}
