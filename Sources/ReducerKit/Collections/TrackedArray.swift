import Synchronization
import ReducerKitPlatform

/// An array of identifiable elements whose versions know what changed between them.
///
/// Put it in a feature's `State` where a list can grow large. Its copies share storage (a
/// persistent vector: a 32-way trie), so keeping the previous state costs nothing, writing
/// one element copies O(log n) of it, and ``changes(from:)`` finds what a reducer touched
/// by skipping the shared parts: O(changes × log n) whatever the size. Hosts that watch a
/// store (`rk_store_subscribe_patches`, Python's `store.state`) then pay for what changed,
/// not for the whole list. Elements are also found by id in O(1).
///
/// ```swift
/// struct State: Codable, Equatable {
///   var todos: TrackedArray<Todo> = []
/// }
/// state.todos.append(Todo(id: 7, title: "Milk"))
/// state.todos[id: 7]?.isComplete.toggle()       // O(log n), no search
/// state.todos.remove(id: 7)
/// ```
///
/// It encodes and decodes as a plain array. Ids are meant to be unique: ``append(_:)`` of an
/// id that is present does nothing, and writing an element whose id differs from the one it
/// replaces is a precondition failure, as in `IdentifiedArray`. Decoding accepts an array
/// with a repeated id (a host may send any array): lookups by id then find the first element
/// with it.
/// Inserting or removing elsewhere than at the end rebuilds the storage (O(n), like an
/// array's shift).
public struct TrackedArray<Element: Identifiable> {
  @usableFromInline var vector: _PersistentVector<Element>
  /// Positions by id. Shared by copies: it describes the copy whose `generation` it holds.
  @usableFromInline var idIndex: _IDIndex<Element.ID>
  /// This version's number for `index` (every change of positions takes a fresh one).
  @usableFromInline var generation: UInt64

  /// An empty array.
  @inlinable public init() {
    vector = _PersistentVector()
    generation = _nextTrackedGeneration()
    idIndex = _IDIndex(generation: generation)
  }

  /// An array of `elements`, whose ids must be unique (a precondition).
  @inlinable public init<S: Sequence>(uniqueElements elements: S) where S.Element == Element {
    vector = _PersistentVector(elements)
    generation = _nextTrackedGeneration()
    idIndex = _IDIndex(generation: 0)
    let count = vector.count
    let unique = idIndex.withPositions(of: self) { $0.count == count }
    precondition(unique, "TrackedArray(uniqueElements:): the elements' ids are not unique")
  }

  /// An array of `elements`; a repeated id is kept (lookups by id find its first element).
  @inlinable public init<S: Sequence>(_ elements: S) where S.Element == Element {
    vector = _PersistentVector(elements)
    generation = _nextTrackedGeneration()
    idIndex = _IDIndex(generation: 0)
  }

  /// The position of the element with `id`, or nil.
  @inlinable public func index(id: Element.ID) -> Int? {
    idIndex.withPositions(of: self) { $0[id] }
  }

  /// Whether an element has `id`.
  @inlinable public func contains(id: Element.ID) -> Bool { index(id: id) != nil }

  /// The element with `id`; setting nil removes it, setting an element replaces it (or
  /// appends it when no element has `id`). The element set must have `id`.
  ///
  /// ```swift
  /// state.todos[id: 7]?.isComplete.toggle()
  /// ```
  @inlinable public subscript(id id: Element.ID) -> Element? {
    get { index(id: id).map { vector[$0] } }
    set {
      guard let newValue else {
        remove(id: id)
        return
      }
      precondition(newValue.id == id, "TrackedArray[id:]: the element set has another id")
      if let position = index(id: id) {
        vector[position] = newValue
      } else {
        append(newValue)
      }
    }
  }

  /// Appends `element` unless an element with its id is present. O(1) amortized (O(log n)
  /// while the previous version is kept).
  ///
  /// - Returns: Whether it was appended, and the position of the element with its id.
  @inlinable @discardableResult
  public mutating func append(_ element: Element) -> (inserted: Bool, index: Int) {
    if let existing = index(id: element.id) { return (false, existing) }
    let position = vector.count
    let fresh = _nextTrackedGeneration()
    idIndex.update(from: generation, to: fresh) { $0[element.id] = position }
    generation = fresh
    vector.append(element)
    return (true, position)
  }

  /// Appends each element whose id is not present yet.
  @inlinable
  public mutating func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
    for element in elements { append(element) }
  }

  /// Inserts `element` at `position` unless its id is present. O(n).
  @inlinable @discardableResult
  public mutating func insert(_ element: Element, at position: Int) -> (inserted: Bool, index: Int) {
    precondition(position >= 0 && position <= count, "TrackedArray.insert: position out of range")
    if let existing = index(id: element.id) { return (false, existing) }
    if position == count { return append(element) }
    rebuild { $0.insert(element, at: position) }
    return (true, position)
  }

  /// Removes and returns the element at `position`. O(n), O(log n) for the last one.
  @inlinable @discardableResult
  public mutating func remove(at position: Int) -> Element {
    precondition(position >= 0 && position < count, "TrackedArray.remove(at:): position out of range")
    let element = vector[position]
    rebuild { $0.remove(at: position) }
    return element
  }

  /// Removes and returns the element with `id`, if any.
  @inlinable @discardableResult
  public mutating func remove(id: Element.ID) -> Element? {
    guard let position = index(id: id) else { return nil }
    return remove(at: position)
  }

  /// Removes the elements that satisfy `shouldBeRemoved` (nothing is rebuilt when none does).
  @inlinable
  public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
    guard try contains(where: shouldBeRemoved) else { return }
    var elements = Array(self)
    try elements.removeAll(where: shouldBeRemoved)
    replaceStorage(with: elements)
  }

  /// Removes every element.
  @inlinable public mutating func removeAll() {
    replaceStorage(with: [])
  }

  /// Moves the element at `source` to `destination` (a position in the result). O(n).
  @inlinable public mutating func move(from source: Int, to destination: Int) {
    precondition(indices.contains(source) && indices.contains(destination), "TrackedArray.move: position out of range")
    guard source != destination else { return }
    rebuild { $0.insert($0.remove(at: source), at: destination) }
  }

  @inlinable mutating func rebuild(_ change: (inout [Element]) -> Void) {
    var elements = Array(self)
    change(&elements)
    replaceStorage(with: elements)
  }

  /// New storage for elements whose ids are known to be unique; positions are re-indexed
  /// when next looked up.
  @inlinable mutating func replaceStorage(with elements: [Element]) {
    vector = _PersistentVector(elements)
    generation = _nextTrackedGeneration()
  }
}

// MARK: - Collection

extension TrackedArray: RandomAccessCollection, MutableCollection {
  public typealias Index = Int
  public typealias Indices = Range<Int>
  public typealias SubSequence = Slice<TrackedArray<Element>>

  @inlinable public var startIndex: Int { 0 }
  @inlinable public var endIndex: Int { vector.count }
  @inlinable public var count: Int { vector.count }
  @inlinable public var isEmpty: Bool { vector.count == 0 }
  @inlinable public var indices: Range<Int> { 0..<vector.count }
  @inlinable public func index(after i: Int) -> Int { i + 1 }
  @inlinable public func index(before i: Int) -> Int { i - 1 }

  /// The element at `position`. Writing it must keep its id (a precondition).
  @inlinable public subscript(position: Int) -> Element {
    get {
      precondition(position >= 0 && position < vector.count, "TrackedArray: index out of range")
      return vector[position]
    }
    _modify {
      precondition(position >= 0 && position < vector.count, "TrackedArray: index out of range")
      let id = vector[position].id
      yield &vector[position]
      precondition(vector[position].id == id, "TrackedArray: an element's id changed; remove it and add the new one")
    }
  }

  @inlinable public subscript(bounds: Range<Int>) -> Slice<TrackedArray<Element>> {
    get { Slice(base: self, bounds: bounds) }
    set {
      precondition(bounds == newValue.startIndex..<newValue.endIndex, "TrackedArray: a slice must keep its bounds")
      for position in bounds { self[position] = newValue[position] }
    }
  }
}

extension TrackedArray: ExpressibleByArrayLiteral {
  /// An array of the elements written, whose ids must be unique.
  @inlinable public init(arrayLiteral elements: Element...) {
    self.init(uniqueElements: elements)
  }
}

extension TrackedArray: Sendable where Element: Sendable, Element.ID: Sendable {}

extension TrackedArray: Equatable where Element: Equatable {
  /// Equal elements in the same order; storage the two share is not looked into.
  @inlinable public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.vector.elementsEqual(rhs.vector)
  }
}

extension TrackedArray: Hashable where Element: Hashable {
  @inlinable public func hash(into hasher: inout Hasher) {
    hasher.combine(count)
    for element in self { hasher.combine(element) }
  }
}

extension TrackedArray: CustomReflectable {
  /// Shows the elements (not the storage), so test diffs read like an array's.
  public var customMirror: Mirror {
    Mirror(self, unlabeledChildren: Array(self), displayStyle: .collection)
  }
}

extension TrackedArray: CustomStringConvertible {
  public var description: String { Array(self).description }
}

// MARK: - Codable

extension TrackedArray: Encodable where Element: Encodable {
  /// Encodes the elements as an array.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    // A leaf at a time: an encoder may write a contiguous run of elements in one go
    // (`encode(contentsOf:)`; ReducerKit's wire encoder does for `SynthesizedCodable` structs).
    try Self.encodeLeaves(of: vector, as: ContiguousArray<Element>.self, into: &container)
  }

  /// Writes each leaf (a `ContiguousArray<Element>`, which `Leaf` is). The leaf type is a
  /// parameter here so that its metadata and `Sequence` conformance are found once per
  /// encode: named inside the loop (this code is not specialized), they were looked up
  /// again for every leaf (~430 instructions each, 32 leaves at 1,000 elements).
  @usableFromInline
  static func encodeLeaves<Leaf: Sequence>(
    of vector: _PersistentVector<Element>, as _: Leaf.Type, into container: inout any UnkeyedEncodingContainer
  ) throws where Leaf.Element: Encodable {
    precondition(Leaf.self == ContiguousArray<Element>.self)
    try vector.forEachLeaf { leaf in try container.encode(contentsOf: unsafeBitCast(leaf, to: Leaf.self)) }
  }
}

extension TrackedArray {
  /// Calls `body` with each leaf of the storage (up to 32 elements in one `ContiguousArray`),
  /// in order: the wire encoder writes a whole state a leaf at a time through its run cache.
  @_spi(Host) @inlinable
  public func _forEachLeaf(_ body: (ContiguousArray<Element>) throws -> Void) rethrows {
    try vector.forEachLeaf(body)
  }
}

extension TrackedArray: Decodable where Element: Decodable {
  /// Decodes an array (a repeated id is kept: lookups by id find its first element).
  public init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    var elements: [Element] = []
    if let count = container.count { elements.reserveCapacity(count) }
    while !container.isAtEnd { elements.append(try container.decode(Element.self)) }
    vector = _PersistentVector(elements)
    generation = _nextTrackedGeneration()
    idIndex = _IDIndex(generation: 0)
    // Indexed now, while decoding walks every element anyway: a decoded array is usually a
    // store's state (a host's initial state, a snapshot), whose first action by id would
    // otherwise pay for the index (9 ms at 100,000 todos, 14x a steady send).
    idIndex.withPositions(of: self) { _ in }
  }
}

// MARK: - Changes

extension TrackedArray where Element: Equatable {
  /// One step of the changes between two versions of an array (see ``changes(from:)``).
  public enum Change: Equatable, Sendable {
    /// The element at this position changed (the old version's element at the same
    /// position became this version's).
    case updated(Int)
    /// This version's element at this position was inserted there.
    case inserted(Int)
    /// The element at this position (of the array as the steps before left it) was removed.
    case removed(Int)
  }

  /// The steps that turn `old` into this array, in order: updates, then insertions or
  /// removals. Applied one after the other to a copy of `old` (as JSON Patch operations are),
  /// they give this array.
  ///
  /// ```swift
  /// let before = state.todos
  /// state.todos[id: 7]?.isComplete.toggle()
  /// state.todos.changes(from: before)  // [.updated(3)]
  /// ```
  ///
  /// Storage the two versions share is skipped without being looked at: element writes and
  /// appends are found in O(changes × log n); after an insertion or removal in the middle,
  /// the elements after it are compared one by one.
  /// The positions whose elements differ when `old` has as many elements (only writes
  /// happened), else nil: ``changes(from:)`` without building its steps.
  @_spi(Host) @inlinable
  public func _positionsWritten(since old: TrackedArray<Element>) -> [Int]? {
    guard count == old.count && vector.shift == old.vector.shift else { return nil }
    return vector.differingPositions(from: old.vector)
  }

  @inlinable public func changes(from old: TrackedArray<Element>) -> [Change] {
    if count == old.count && vector.shift == old.vector.shift {
      return vector.differingPositions(from: old.vector).map(Change.updated)
    }
    let prefix = vector.commonPrefix(with: old.vector)
    var suffix = 0
    let limit = Swift.min(count, old.count) - prefix
    while suffix < limit, vector[count - 1 - suffix] == old.vector[old.count - 1 - suffix] { suffix += 1 }
    let oldMiddle = old.count - prefix - suffix
    let newMiddle = count - prefix - suffix
    let overlap = Swift.min(oldMiddle, newMiddle)
    var steps: [Change] = []
    for k in 0..<overlap where vector[prefix + k] != old.vector[prefix + k] {
      steps.append(.updated(prefix + k))
    }
    if newMiddle > oldMiddle {
      for k in overlap..<newMiddle { steps.append(.inserted(prefix + k)) }
    } else {
      for k in stride(from: oldMiddle - 1, through: overlap, by: -1) { steps.append(.removed(prefix + k)) }
    }
    return steps
  }
}

// MARK: - Positions by id

/// Fresh generations for ``TrackedArray`` versions (0 means "none").
@usableFromInline let _trackedGenerations = Atomic<UInt64>(1)

@inlinable func _nextTrackedGeneration() -> UInt64 {
  _trackedGenerations.wrappingAdd(1, ordering: .relaxed).newValue
}

/// Positions by id for one version of a ``TrackedArray``, shared by its copies: a copy that
/// finds it describing another version rebuilds it (O(n)), so the version a store keeps
/// changing stays indexed while old versions kept for diffing are never looked up.
@usableFromInline
final class _IDIndex<ID: Hashable>: @unchecked Sendable {
  // Safe: `generation` and `positions` are read and written only while holding `lock`.
  @usableFromInline let lock = Lock()
  @usableFromInline var generation: UInt64
  @usableFromInline var positions: [ID: Int] = [:]

  @inlinable init(generation: UInt64) { self.generation = generation }

  /// Runs `body` with the positions of `array`'s elements.
  @inlinable
  func withPositions<Element: Identifiable, R>(
    of array: TrackedArray<Element>, _ body: ([ID: Int]) -> R
  ) -> R where Element.ID == ID {
    lock.lock()
    defer { lock.unlock() }
    if generation != array.generation {
      var rebuilt: [ID: Int] = [:]
      rebuilt.reserveCapacity(array.count)
      var position = 0
      array.vector.forEachLeaf { leaf in
        for element in leaf {
          if rebuilt[element.id] == nil { rebuilt[element.id] = position }  // the first wins
          position += 1
        }
      }
      positions = rebuilt
      generation = array.generation
    }
    return body(positions)
  }

  /// Applies `change` if the positions describe version `from`, and labels them `to`.
  @inlinable
  func update(from: UInt64, to: UInt64, _ change: (inout [ID: Int]) -> Void) {
    lock.lock()
    defer { lock.unlock() }
    guard generation == from else { return }
    change(&positions)
    generation = to
  }
}

// MARK: - Element addresses without generic code

/// Where an element of a `TrackedArray<Element>` is in memory, for one element type: finds an
/// element's address, or walks the leaves, with loads only (no generic code, so no type
/// metadata lookups and no reference counting: a compiled JSON Pointer read after each change,
/// `rk_store_get`; the whole-state encode through a run cache). Made by
/// `TrackedArray._elementLayout()`, which checks every offset it uses on values it builds.
@_spi(Host) public struct _TrackedArrayLayout: Sendable {
  let vector: Int
  let root: Int
  let count: Int
  let shift: Int
  /// In a node object: its `elements` and `children` references.
  let nodeElements: Int
  let nodeChildren: Int
  /// In an array's storage object: the first element (of the elements, of the children).
  let firstElement: Int
  let firstChild: Int
  /// In an array's storage object: its count.
  let arrayCount: Int
  let stride: Int

  /// The address of element `index` of the array at `array` (a `TrackedArray` of the
  /// layout's element type), valid while that array is; nil when out of range.
  public func elementAddress(in array: UnsafeRawPointer, at index: Int) -> UnsafeRawPointer? {
    let vector = array + self.vector
    guard index >= 0, index < vector.load(fromByteOffset: count, as: Int.self),
      var node = vector.load(fromByteOffset: root, as: UnsafeRawPointer?.self)
    else { return nil }
    var level = vector.load(fromByteOffset: shift, as: Int.self)
    let mask = _PersistentVector<Never>.mask
    while level > 0 {
      let children = node.load(fromByteOffset: nodeChildren, as: UnsafeRawPointer.self)
      node = children.load(
        fromByteOffset: firstChild &+ ((index &>> level) & mask) &* MemoryLayout<UnsafeRawPointer>.stride,
        as: UnsafeRawPointer.self)
      level &-= _PersistentVector<Never>.bits
    }
    let elements = node.load(fromByteOffset: nodeElements, as: UnsafeRawPointer.self)
    return elements + (firstElement &+ (index & mask) &* stride)
  }

  /// Calls `body` with each non-empty leaf of the array at `array`, in order: its storage
  /// object, the address of its first element, and its count (valid while the array is).
  public func forEachLeaf(
    in array: UnsafeRawPointer, _ body: (UnsafeRawPointer, UnsafeRawPointer, Int) throws -> Void
  ) rethrows {
    let vector = array + self.vector
    guard let root = vector.load(fromByteOffset: root, as: UnsafeRawPointer?.self) else { return }
    try forEachLeaf(root, level: vector.load(fromByteOffset: shift, as: Int.self), body)
  }

  func forEachLeaf(
    _ node: UnsafeRawPointer, level: Int, _ body: (UnsafeRawPointer, UnsafeRawPointer, Int) throws -> Void
  ) rethrows {
    if level == 0 {
      let elements = node.load(fromByteOffset: nodeElements, as: UnsafeRawPointer.self)
      let count = elements.load(fromByteOffset: arrayCount, as: Int.self)
      if count > 0 { try body(elements, elements + firstElement, count) }
      return
    }
    let children = node.load(fromByteOffset: nodeChildren, as: UnsafeRawPointer.self)
    let count = children.load(fromByteOffset: arrayCount, as: Int.self)
    for i in 0..<count {
      let child = children.load(
        fromByteOffset: firstChild &+ i &* MemoryLayout<UnsafeRawPointer>.stride, as: UnsafeRawPointer.self)
      try forEachLeaf(child, level: level &- _PersistentVector<Never>.bits, body)
    }
  }
}

extension TrackedArray {
  /// The layout of this array type's elements in memory, or nil when a check of it fails
  /// (then read elements through the subscript). Each offset is checked on values built here:
  /// the stored properties' offsets from `MemoryLayout`, a node's two references by matching
  /// them with the arrays it was made with, an array's first element by its buffer's address.
  @_spi(Host) public static func _elementLayout() -> _TrackedArrayLayout? {
    typealias Vector = _PersistentVector<Element>
    typealias Node = _VectorNode<Element>
    guard let vector = MemoryLayout<Self>.offset(of: \Self.vector),
      let root = MemoryLayout<Vector>.offset(of: \Vector.root),
      let count = MemoryLayout<Vector>.offset(of: \Vector.count),
      let shift = MemoryLayout<Vector>.offset(of: \Vector.shift),
      MemoryLayout<Node?>.size == MemoryLayout<UnsafeRawPointer>.size,
      MemoryLayout<ContiguousArray<Element>>.size == MemoryLayout<UnsafeRawPointer>.size
    else { return nil }
    // A leaf with storage of its own (capacity 1, no element) and an inner node over it.
    let elements = ContiguousArray<Element>(unsafeUninitializedCapacity: 1) { _, initialized in initialized = 0 }
    let leaf = Node(elements: elements)
    let inner = Node(children: [leaf])
    func address(_ object: AnyObject) -> UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()) }
    func storage<T>(_ array: ContiguousArray<T>) -> UnsafeRawPointer { unsafeBitCast(array, to: UnsafeRawPointer.self) }
    let elementStorage = storage(leaf.elements)
    let childStorage = storage(inner.children)
    guard elementStorage != storage(leaf.children), childStorage != storage(inner.elements) else { return nil }
    // The two references sit after the object header, two words.
    let header = 2 * MemoryLayout<UnsafeRawPointer>.stride
    let slots = [header, header + MemoryLayout<UnsafeRawPointer>.stride]
    guard let nodeElements = slots.first(where: { address(leaf).load(fromByteOffset: $0, as: UnsafeRawPointer.self) == elementStorage }),
      let nodeChildren = slots.first(where: { address(inner).load(fromByteOffset: $0, as: UnsafeRawPointer.self) == childStorage }),
      nodeElements != nodeChildren,
      let firstElement = leaf.elements.withUnsafeBufferPointer({ $0.baseAddress.map { UnsafeRawPointer($0) - elementStorage } }),
      let firstChild = inner.children.withUnsafeBufferPointer({ $0.baseAddress.map { UnsafeRawPointer($0) - childStorage } }),
      address(inner).load(fromByteOffset: nodeChildren, as: UnsafeRawPointer.self)
        .load(fromByteOffset: firstChild, as: UnsafeRawPointer.self) == address(leaf)
    else { return nil }
    // An array's count: the word after the object header (1 child, 0 elements; the next
    // word holds the capacities, at least 1).
    let arrayCount = header
    guard childStorage.load(fromByteOffset: arrayCount, as: Int.self) == 1,
      elementStorage.load(fromByteOffset: arrayCount, as: Int.self) == 0,
      childStorage.load(fromByteOffset: arrayCount + MemoryLayout<Int>.stride, as: Int.self) != 1
    else { return nil }
    let layout = _TrackedArrayLayout(
      vector: vector, root: root, count: count, shift: shift, nodeElements: nodeElements, nodeChildren: nodeChildren,
      firstElement: firstElement, firstChild: firstChild, arrayCount: arrayCount, stride: MemoryLayout<Element>.stride)
    return withExtendedLifetime((leaf, inner)) { layout }
  }
}
