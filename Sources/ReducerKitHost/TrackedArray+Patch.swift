@_spi(Host) import ReducerKit
import ReducerKitWire

// The patch engine (ReducerKitWire) diffs a core `TrackedArray` by the positions written since
// the old value: O(changes x log n), not a walk of every element.

extension TrackedArray: _PatchDiffable where Element: Encodable & Equatable {
  package func _patch(from old: any Encodable, into writer: inout PatchWriter, depth: Int) throws(PatchError) {
    guard type(of: old) == TrackedArray<Element>.self else { return try writer.replace(.value(self)) }
    let old = _load(old, as: TrackedArray<Element>.self)
    if let written = _positionsWritten(since: old) {
      // Writes only (the common case): no `Change` values to build.
      for i in written {
        let mark = writer.push(index: i)
        try writer.diffElement(old[i], self[i], depth: depth)
        writer.pop(mark)
      }
      return
    }
    for change in changes(from: old) {
      switch change {
      case let .updated(i):
        let mark = writer.push(index: i)
        try writer.diffElement(old[i], self[i], depth: depth)
        writer.pop(mark)
      case let .inserted(i):
        let mark = writer.push(index: i)
        try writer.add(.value(self[i]))
        writer.pop(mark)
      case let .removed(i):
        let mark = writer.push(index: i)
        try writer.remove()
        writer.pop(mark)
      }
    }
  }

  package func _rehearsePatch(into writer: inout PatchWriter, depth: Int) {
    try? _patch(from: self, into: &writer, depth: depth)
    guard let first else { return }
    let mark = writer.push(index: 0)
    try? writer.diffElement(first, first, depth: depth)
    writer.pop(mark)
  }

  package func _child(at segment: String) -> _PointerStep {
    guard let index = JSONPointer.arrayIndex(segment), index < count else { return .missingIndex(count: count) }
    return .found(.value(self[index]))
  }

  /// The element at the index read in place (`CompiledPointer`): found by its address
  /// (`_elementLayout`, loads only: no generic code, so no type metadata lookups per read), or
  /// through the subscript when the layout's checks fail.
  package static func _compileChild(_ segments: ArraySlice<String>) -> _PointerCompilation {
    guard let layout = _elementLayout() else { return _compileElement(Self.self, segments, element: Element.self) }
    // Indices as `Navigator` reads them (anything else names no element; it says so).
    guard let segment = segments.first, let index = JSONPointer.arrayIndex(segment) else { return .never }
    let inner = _compilePointer(Element.self, segments.dropFirst())
    guard case .reader(let next) = inner else { return inner }
    return .reader { pointer, out in
      guard let element = layout.elementAddress(in: pointer, at: index) else { return false }
      return next(element, &out)
    }
  }
}

extension TrackedArray: _PointerIndexable where Element: Encodable & Equatable {
  package static func _withElement(
    at index: Int, of pointer: UnsafeRawPointer, _ next: _PointerReader, _ out: inout [UInt8]
  ) -> Bool {
    let array = pointer.assumingMemoryBound(to: Self.self)
    guard index < array.pointee.count else { return false }
    return withUnsafePointer(to: array.pointee[index]) { next(UnsafeRawPointer($0), &out) }
  }
}

extension TrackedArray: _WireRunStorage {
  package typealias _WireRunElement = Element

  /// The element layout (`_elementLayout()`), when its checks pass.
  package static func _wireRunContext() -> Any? { _elementLayout() }

  /// Each leaf (`WireEncoder.encode(_:reusing:)` writes a state a leaf at a time): walked by
  /// address with the layout (loads only: no generic code, no reference counting), else
  /// through the vector.
  package static func _forEachWireRun(
    of pointer: UnsafeRawPointer, context: Any?, _ body: (UnsafeRawPointer, Int, Unmanaged<AnyObject>) throws -> Void
  ) rethrows {
    if let layout = context as? _TrackedArrayLayout {
      try layout.forEachLeaf(in: pointer) { storage, first, count in
        try body(first, count, Unmanaged.fromOpaque(storage))
      }
      return
    }
    try pointer.assumingMemoryBound(to: Self.self).pointee._forEachLeaf { leaf in
      try leaf.withUnsafeBufferPointer { elements in
        guard let base = elements.baseAddress, !elements.isEmpty else { return }
        // A `ContiguousArray` is one reference, to the storage that holds its elements.
        try body(UnsafeRawPointer(base), elements.count, Unmanaged.passUnretained(unsafeBitCast(leaf, to: AnyObject.self)))
      }
    }
  }
}
