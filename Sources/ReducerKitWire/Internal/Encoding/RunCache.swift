import ReducerKitPlatform

/// Encoded runs of array elements kept from one encode to the next, so that encoding a value
/// that shares most of its arrays' storage with the value encoded last copies those runs'
/// bytes instead of writing them again (`WireEncoder.encode(_:reusing:)`). A host store keeps
/// one for its whole-state JSON: after a toggle among 1,000 todos (a `TrackedArray`, written
/// a 32-element leaf at a time), 31 of its 32 leaves are copied.
///
/// A run is the elements of one `ContiguousArray` written by `encode(contentsOf:)` with a
/// trusted plan that cannot fail (see `encodeRun`), keyed by the address of their storage. The
/// cache holds that storage (a copy of the array), so while a run is kept its storage can be
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
  /// The runs by their storage's address: `kept` from the last encode, `used` by this one.
  final class Table {
    struct Run {
      /// The array whose storage the bytes show (kept alive and unchanged by this reference).
      let owner: Any
      let bytes: [UInt8]
    }

    var kept: [UnsafeRawPointer: Run] = [:]
    var used: [UnsafeRawPointer: Run] = [:]
    var usedBytes = 0
    /// Runs copied and written by this encode, and by the last one that finished.
    var reused = 0
    var written = 0
    var last = (reused: 0, written: 0)
    /// The bytes the last encode wrote (the next one reserves as much up front).
    var lastSize = 0
    var explicitNulls: Bool
    let maxBytes: Int

    init(explicitNulls: Bool, maxBytes: Int) {
      self.explicitNulls = explicitNulls
      self.maxBytes = maxBytes
    }

    /// The run at `key`, moved to this encode's runs.
    @inline(__always)
    func reuse(_ key: UnsafeRawPointer) -> [UInt8]? {
      if let run = kept.removeValue(forKey: key) {
        keep(key, run)
        reused &+= 1
        return run.bytes
      }
      guard let bytes = used[key]?.bytes else { return nil }
      reused &+= 1
      return bytes
    }

    @inline(__always)
    func keep(_ key: UnsafeRawPointer, _ run: Run) {
      guard usedBytes + run.bytes.count <= maxBytes else { return }
      usedBytes += run.bytes.count
      used[key] = run
    }

    /// After a successful encode: this encode's runs are the ones kept.
    func finish(size: Int) {
      lastSize = size
      kept = used
      used = Dictionary(minimumCapacity: kept.count)
      usedBytes = 0
      last = (reused, written)
      reused = 0
      written = 0
    }

    /// After a failed encode: what it wrote may be incomplete; keep the earlier runs only.
    func discardUsed() {
      for (key, run) in used where kept[key] == nil { kept[key] = run }
      used = [:]
      usedBytes = 0
      reused = 0
      written = 0
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
      taken.kept = [:]
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
  /// kept them, else writing them and keeping them there with `owner` (the `ContiguousArray`
  /// whose storage they are). The bytes are those the elements would be written as one by one.
  func encodeRun(
    _ base: UnsafeRawPointer, count: Int, stride: Int, owner: Any, _ plan: Unmanaged<_DirectPlan>,
    frame: Int, id: UInt32, table: WireRunCache.Table
  ) throws {
    _ = try beginElement(frame, id)
    if let bytes = table.reuse(base) {
      bytes.withUnsafeBufferPointer { out.append($0) }
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
    table.written &+= 1
    table.keep(base, WireRunCache.Table.Run(owner: owner, bytes: Array(out.bytes[start..<out.count])))
  }
}
