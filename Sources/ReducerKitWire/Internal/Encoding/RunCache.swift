import ReducerKitPlatform

/// Encoded runs of array elements kept from one encode to the next, so that encoding a value
/// that shares most of its arrays' storage with the value encoded last copies those runs'
/// bytes instead of writing them again (`WireEncoder.encode(_:reusing:)`). A host store keeps
/// one for its whole-state JSON: after a toggle among 1,000 todos (a `TrackedArray`, written
/// a 32-element leaf at a time), 31 of its 32 leaves are copied.
///
/// A run is the elements of one `ContiguousArray` (a leaf of a `_WireRunStorage` collection,
/// or an array written by `encode(contentsOf:)`) whose type has a trusted plan that cannot
/// fail (see `encodeRun`), keyed by the address of their storage. Runs are kept in the order
/// they were written, and the next encode looks for its n-th run at the n-th place first (no
/// hashing while positions stay put). The
/// cache holds that storage (the array's buffer), so while a run is kept its storage can be
/// neither freed nor written in place (a write to a shared array copies it first): the same
/// address means the same elements, so the same bytes. This relies on the elements being
/// values, as a store's state is (a class instance changed in place inside an element would
/// not be seen; the patch engine assumes the same of shared storage).
///
/// Bounded: only the runs of the last encode are kept (at most `maxBytes` of them), so the
/// cache holds at most one earlier version's storage beside the current one. Thread-safe: an
/// encode takes the table out under the lock and puts it back when done; an encode that finds
/// it taken (another thread's encode is running) encodes without it.
@usableFromInline
package final class WireRunCache: Sendable {
  /// The runs of the last encode and of this one, in the order they were written. Used by
  /// one encode at a time (see `take`), so its properties skip the dynamic exclusivity checks.
  final class Table {
    struct Run {
      /// The address of the run's first element (its storage, which `owner` holds).
      let key: UnsafeRawPointer
      /// The storage of the elements the bytes show (kept alive and unchanged by this
      /// reference).
      let owner: AnyObject
      let bytes: [UInt8]
    }

    /// The last encode's runs. The n-th run of an encode is looked for at `kept[n]` first (a
    /// state whose arrays only had elements written has its runs where they were) and next to
    /// it, then by address (`keptIndex`, built on the second run of an encode found nowhere
    /// near its place: the first is most often one written since).
    @exclusivity(unchecked) var kept: [Run] = []
    /// This encode's runs in order: the index in `kept` of a run copied from there, `~i` for
    /// `fresh[i]`, a run written now, or `notKept` (over `maxBytes`).
    @exclusivity(unchecked) var order: [Int] = []
    @exclusivity(unchecked) var fresh: [Run] = []
    /// Whether each run so far is at its own place (copied from `kept[n]`, or written now):
    /// then `finish` replaces the written ones in `kept` and moves nothing else.
    @exclusivity(unchecked) var inPlace = true
    @exclusivity(unchecked) var keptIndex: [UnsafeRawPointer: Int]?
    static let notKept = Int.min
    /// Runs this encode found neither at their place nor next to it (0 or 1: see `find`).
    @exclusivity(unchecked) var misses = 0
    @exclusivity(unchecked) var usedBytes = 0
    /// Runs copied and written by this encode, and by the last one that finished.
    @exclusivity(unchecked) var reused = 0
    @exclusivity(unchecked) var written = 0
    @exclusivity(unchecked) var last = (reused: 0, written: 0)
    /// The bytes the last encode wrote (the next one reserves a little more up front).
    @exclusivity(unchecked) var lastSize = 0
    @exclusivity(unchecked) var explicitNulls: Bool
    let maxBytes: Int
    /// Value types met by `encodeThrough` and whether they store their elements in runs
    /// (`_WireRunStorage`; asked once per type: a conformance check is a lookup). Bounded.
    @exclusivity(unchecked) var storageTypes: [(id: ObjectIdentifier, type: (any _WireRunStorage.Type)?, context: Any?)] = []

    init(explicitNulls: Bool, maxBytes: Int) {
      self.explicitNulls = explicitNulls
      self.maxBytes = maxBytes
    }

    /// The index in `kept` of the run whose first element is at `key` (its bytes are
    /// `kept[i].bytes`), now one of this encode's runs; nil when the last encode kept none
    /// there (the caller writes it and calls `keep`).
    @inline(__always)
    func reuse(_ key: UnsafeRawPointer) -> Int? {
      let n = order.count
      let index: Int
      if n < kept.count, kept[n].key == key {
        index = n
      } else if let moved = find(key, near: n) {
        index = moved
      } else {
        return nil
      }
      let size = kept[index].bytes.count
      reused &+= 1
      guard usedBytes &+ size <= maxBytes else {
        order.append(Self.notKept)
        inPlace = false
        return index
      }
      usedBytes &+= size
      order.append(index)
      if index != n { inPlace = false }
      return index
    }

    /// The index in `kept` of the run at `key` when it is not at place `n`.
    @inline(never)
    func find(_ key: UnsafeRawPointer, near n: Int) -> Int? {
      if n &+ 1 < kept.count, kept[n &+ 1].key == key { return n &+ 1 }  // a run fewer before it
      if n > 0, n &- 1 < kept.count, kept[n &- 1].key == key { return n &- 1 }  // a run more before it
      // Most often a run written since (the leaf a change copied): no table for the first.
      if misses == 0 {
        misses = 1
        return nil
      }
      return lookUp(key)
    }

    /// The index in `kept` of the run at `key` (a run that moved: elements inserted or
    /// removed before it).
    @inline(never)
    func lookUp(_ key: UnsafeRawPointer) -> Int? {
      if keptIndex == nil {
        var index = [UnsafeRawPointer: Int](minimumCapacity: kept.count)
        for (i, run) in kept.enumerated() where index[run.key] == nil { index[run.key] = i }
        keptIndex = index
      }
      return keptIndex?[key]
    }

    /// `run`, written by this encode, as its next run.
    @inline(__always)
    func keep(_ run: Run) {
      written &+= 1
      guard usedBytes &+ run.bytes.count <= maxBytes else {
        order.append(Self.notKept)
        inPlace = false
        return
      }
      usedBytes &+= run.bytes.count
      order.append(~fresh.count)
      fresh.append(run)
    }

    /// Whether values of `T` store their elements in runs: the conforming type and its
    /// `_wireRunContext()`, or nil.
    @inline(__always)
    func storageType<T>(_: T.Type) -> (any _WireRunStorage.Type, Any?)? {
      let id = ObjectIdentifier(T.self)
      for entry in storageTypes where entry.id == id { return entry.type.map { ($0, entry.context) } }
      return settleStorageType(T.self)
    }

    @inline(never)
    func settleStorageType<T>(_: T.Type) -> (any _WireRunStorage.Type, Any?)? {
      let type = T.self as? any _WireRunStorage.Type
      let context = type?._wireRunContext()
      if storageTypes.count < 16 { storageTypes.append((ObjectIdentifier(T.self), type, context)) }
      return type.map { ($0, context) }
    }

    /// After a successful encode: this encode's runs are the ones kept.
    func finish(size: Int) {
      lastSize = size
      if inPlace && order.count == kept.count {
        // Only the written runs change places (a toggle: one leaf).
        for n in 0..<order.count where order[n] < 0 { swap(&kept[n], &fresh[~order[n]]) }
      } else {
        var runs: [Run] = []
        runs.reserveCapacity(order.count)
        for entry in order where entry != Self.notKept { runs.append(entry >= 0 ? kept[entry] : fresh[~entry]) }
        kept = runs
      }
      last = (reused, written)
      discardUsed()
    }

    /// After a failed encode (what it wrote may be incomplete), and after `finish`: the
    /// runs kept stay, this encode's are dropped.
    func discardUsed() {
      order.removeAll(keepingCapacity: true)
      fresh.removeAll(keepingCapacity: true)
      inPlace = true
      keptIndex = nil
      misses = 0
      usedBytes = 0
      reused = 0
      written = 0
    }

    /// Forgets every run (the encoder's options changed).
    func reset() {
      kept = []
      discardUsed()
    }
  }

  // `Table` is touched only by the encode that took it out (one thread at a time); nil in the
  // slot while an encode has it.
  private let table: LockedValue<Table?>

  /// A cache that keeps up to `maxBytes` of encoded runs (those of the last encode).
  package init(maxBytes: Int = 1 << 26) {
    table = LockedValue(Table(explicitNulls: true, maxBytes: maxBytes))
  }

  /// The table, taken out; nil while another encode has it.
  func take(explicitNulls: Bool) -> Table? {
    let taken = table.withLock { slot in
      defer { slot = nil }
      return slot
    }
    if let taken, taken.explicitNulls != explicitNulls {
      taken.reset()
      taken.explicitNulls = explicitNulls
    }
    return taken
  }

  /// Puts `table` back after an encode.
  func putBack(_ table: Table) {
    self.table.withLock { $0 = table }
  }

  /// How many runs the last finished encode copied and wrote (for tests; zeros while an
  /// encode holds the cache).
  package var lastEncode: (reused: Int, written: Int) {
    table.withLock { $0?.last } ?? (0, 0)
  }
}

extension _EncoderImpl {
  /// Whether `S` is `ContiguousArray<S.Element>` (whose value keeps its storage alive).
  @inline(__always)
  func isContiguousArray<S: Sequence>(_ type: S.Type) -> Bool {
    let id = ObjectIdentifier(S.self)
    if let known = runType, known.id == id { return known.isArray }
    let isArray = S.self == ContiguousArray<S.Element>.self
    runType = (id, isArray)
    return isArray
  }

  /// Writes the `count` (at least one) elements at `base`, `stride` bytes apart, as array
  /// elements of the frame (`frame`, `id`) by `plan`, copying their bytes from `table` when it
  /// kept them, else writing them and keeping them there with `owner` (the storage object of
  /// the `ContiguousArray` they are in, alive during the call; referenced only when kept). The bytes are those the elements would be written as one by one.
  func encodeRun(
    _ base: UnsafeRawPointer, count: Int, stride: Int, owner: Unmanaged<AnyObject>, _ plan: Unmanaged<_DirectPlan>,
    frame: Int, id: UInt32, table: WireRunCache.Table
  ) throws {
    _ = try beginElement(frame, id)
    if let index = table.reuse(base) {
      table.kept[index].bytes.withUnsafeBufferPointer { out.append($0) }
      frames.pointer(frame).pointee.count &+= count &- 1
      return
    }
    let start = out.count
    try plan._withUnsafeGuaranteedRef { plan in
      writeInfallible(plan, base)
      for i in 1..<count {
        _ = try beginElement(frame, id)
        writeInfallible(plan, base + i &* stride)
      }
    }
    table.keep(
      WireRunCache.Table.Run(key: base, owner: owner.takeUnretainedValue(), bytes: Array(out.bytes[start..<out.count])))
  }
}

/// A collection that stores its elements in runs of contiguous storage (`TrackedArray`: a
/// leaf of up to 32 elements in one `ContiguousArray`) and encodes as a plain array of them.
/// With a run cache (`WireEncoder.encode(_:reusing:)`), the wire encoder writes such a value
/// run by run when its element type has a trusted plan that cannot fail, copying each run it
/// wrote before: one call per value, no `Encoder` containers, no per-run generic calls.
package protocol _WireRunStorage {
  associatedtype _WireRunElement
  /// What `_forEachWireRun` needs to know about this type, worked out once per cache (nil:
  /// nothing).
  static func _wireRunContext() -> Any?
  /// Calls `body` with each non-empty run of the value at `pointer` (a value of this type), in
  /// order: the address of its first element, its count, and the storage object of the
  /// `ContiguousArray` holding it (unretained: the value holds it during the call; while
  /// referenced, that storage is neither freed nor written in place). `context` is what
  /// `_wireRunContext()` returned.
  static func _forEachWireRun(
    of pointer: UnsafeRawPointer, context: Any?,
    _ body: (UnsafeRawPointer, Int, Unmanaged<AnyObject>) throws -> Void
  ) rethrows
}

extension _EncoderImpl {
  /// With a run cache: writes `value` run by run when it is a `_WireRunStorage` collection
  /// whose elements have a trusted plan that cannot fail, the bytes its `encode(to:)` would
  /// write (an array of its elements, into the slot `encodeThrough` opened). False, having
  /// written nothing, for any other value.
  @inline(__always)
  func encodeStoredRuns<T>(_ value: T, table: WireRunCache.Table) throws -> Bool {
    guard let (storage, context) = table.storageType(T.self), frames.count == slotBase, out.count == slotStart else {
      return false
    }
    return try withUnsafePointer(to: value) { try encodeStoredRuns(storage, context, UnsafeRawPointer($0), table) }
  }

  func encodeStoredRuns<R: _WireRunStorage>(
    _: R.Type, _ context: Any?, _ pointer: UnsafeRawPointer, _ table: WireRunCache.Table
  ) throws -> Bool {
    guard let plan = trustedPlan(R._WireRunElement.self), plan._withUnsafeGuaranteedRef({ $0.infallible }) else {
      return false
    }
    append(UInt8(ascii: "["))
    let (frame, id) = pushFrame(.array)
    let stride = MemoryLayout<R._WireRunElement>.stride
    try R._forEachWireRun(of: pointer, context: context) { base, count, owner in
      try encodeRun(base, count: count, stride: stride, owner: owner, plan, frame: frame, id: id, table: table)
    }
    return true
  }
}
