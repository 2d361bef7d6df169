/// A growable stack over raw memory with unchecked indexing. Every index used comes from
/// the encoder's own bookkeeping and is validated against `count` where it could be stale.
struct _Stack<Element>: ~Copyable {
  private(set) var base: UnsafeMutablePointer<Element>
  private(set) var count = 0
  private var capacity: Int

  /// Allocates nothing until the first push.
  init() {
    capacity = 0
    base = _Stack.unallocated
  }

  init(capacity: Int) {
    self.capacity = max(capacity, 4)
    base = .allocate(capacity: self.capacity)
  }

  deinit {
    base.deinitialize(count: count)
    if capacity > 0 { base.deallocate() }
  }

  /// A well-aligned placeholder address for an empty stack; never dereferenced (capacity 0).
  private static var unallocated: UnsafeMutablePointer<Element> {
    UnsafeMutablePointer<Element>(bitPattern: MemoryLayout<Element>.alignment)
      ?? .allocate(capacity: 1)  // unreachable: the alignment is never 0
  }

  @inline(__always)
  mutating func push(_ element: consuming Element) {
    if count == capacity { grow() }
    (base + count).initialize(to: element)
    count &+= 1
  }

  @inline(never)
  private mutating func grow() {
    let newCapacity = max(capacity * 2, 8)
    let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
    newBase.moveInitialize(from: base, count: count)
    if capacity > 0 { base.deallocate() }
    base = newBase
    capacity = newCapacity
  }

  @inline(__always)
  mutating func pop() -> Element {
    count &-= 1
    return (base + count).move()
  }

  @inline(__always)
  mutating func removeLast() {
    count &-= 1
    (base + count).deinitialize(count: 1)
  }

  mutating func removeAll(downTo newCount: Int) {
    guard newCount < count else { return }
    (base + newCount).deinitialize(count: count - newCount)
    count = newCount
  }

  /// A pointer to the element at `index`, which must be below `count`.
  @inline(__always)
  func pointer(_ index: Int) -> UnsafeMutablePointer<Element> { base + index }

  /// The element at `index`, which must be below `count`.
  @inline(__always)
  subscript(index: Int) -> Element { base[index] }
}
