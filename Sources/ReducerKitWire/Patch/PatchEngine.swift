import ReducerKitPlatform

/// The patches of one store: the state at the newest version it diffed (the base) and the
/// patches between the versions it diffed before, so `rk_store_patch(since)` and every
/// patch subscriber share one diff per version.
///
/// It starts with the first `rk_store_patch` or `rk_store_subscribe_patches` of the store
/// (until then it costs nothing); from then on the store keeps the base. The base is
/// updated in place where its type allows (`SynthesizedCodable` structs, arrays of
/// `Equatable` elements; see Syncer.swift), so it soon shares no array buffer with the
/// store's state and the reducer's writes copy nothing; otherwise it is the newest state
/// itself, sharing its storage (a write then copies what it writes into: all of an array,
/// O(log n) of a `TrackedArray`).
@usableFromInline
package final class PatchEngine<State>: Sendable {
  /// The patch from version `from` to version `to`: operations without brackets.
  @usableFromInline package struct Segment {
    @usableFromInline package let from: UInt64
    @usableFromInline package let to: UInt64
    @usableFromInline package let ops: [UInt8]

    @inlinable package init(from: UInt64, to: UInt64, ops: [UInt8]) {
      self.from = from
      self.to = to
      self.ops = ops
    }
  }

  @usableFromInline package struct History {
    @usableFromInline package var base: (state: State, version: UInt64)?
    @usableFromInline package var segments: [Segment] = []
    @usableFromInline package var first = 0
    @usableFromInline package var bytes = 0
    /// Shape recorders the diffs reuse.
    @usableFromInline package let pool = _ShapePool()

    @inlinable package init() {}
  }

  /// Older patches are dropped past either bound (a host that asks from before them gets
  /// the whole state, which is always correct).
  @inlinable package static var maxSegments: Int { 4096 }
  @inlinable package static var maxBytes: Int { 4 << 20 }

  // Inlinable (with the members they use), so they are specialized for the store's state
  // where the store is.
  @usableFromInline package let history = LockedValue(History())
  /// Diffs the base against a newer state and updates the base in place (see Syncer.swift).
  @usableFromInline package let syncer: _Syncer

  @usableFromInline
  package init() {
    syncer = _makeRootSyncer(State.self)
  }

  /// Makes `version` a version patches start from and end at, diffing from the base.
  @inlinable
  package func advance(to state: State, version: UInt64) throws(PatchError) {
    try history.withLock { (history) throws(PatchError) in try advance(&history, state, version) }
  }

  @inlinable
  package func advance(_ history: inout History, _ state: State, _ version: UInt64) throws(PatchError) {
    // The base is only ever used through `history.base` (never copied into a local), so
    // the syncer finds its buffers unshared and writes into them in place.
    guard let baseVersion = history.base?.version else {
      history.base = (state, version)
      // The segment list's storage, and a rehearsal of the diff (see `_Syncer.rehearse`):
      // what the first diff would set up for the first time, set up when patches start.
      history.segments.reserveCapacity(4)
      var scratch = PatchWriter(pool: history.pool)
      withUnsafePointer(to: state) { syncer.rehearse(UnsafeRawPointer($0), into: &scratch, depth: 0) }
      return
    }
    guard version > baseVersion else { return }
    var writer = PatchWriter(pool: history.pool)
    do throws(PatchError) {
      try withUnsafePointer(to: state) { (new) throws(PatchError) in
        try withUnsafeMutablePointer(to: &history.base!.state) { (base) throws(PatchError) in
          try sync(UnsafeMutableRawPointer(base), UnsafeRawPointer(new), &writer)
        }
      }
    } catch {
      // The base may be partly updated: start again from this version (a host asking from
      // an older one gets the whole state, which is always correct).
      history.base = (state, version)
      history.segments.removeAll()
      history.first = 0
      history.bytes = 0
      throw error
    }
    history.segments.append(Segment(from: baseVersion, to: version, ops: writer.out))
    history.bytes += writer.out.count
    history.base!.version = version
    while history.segments.count - history.first > Self.maxSegments
      || (history.bytes > Self.maxBytes && history.segments.count - history.first > 1)
    {
      history.bytes -= history.segments[history.first].ops.count
      history.first += 1
    }
    if history.first > 64 && history.first * 2 > history.segments.count {
      history.segments.removeFirst(history.first)
      history.first = 0
    }
  }

  /// Writes the operations from the base to `new` and makes the base equal to `new`. With
  /// `REDUCERKIT_WIRE_CHECK=1`, checks both against the general differ and stops the
  /// process with a report if they differ (tests and fuzzing).
  @usableFromInline
  package func sync(_ base: UnsafeMutableRawPointer, _ new: UnsafeRawPointer, _ writer: inout PatchWriter) throws(PatchError) {
    guard _wireCrossChecking, let type = State.self as? any Encodable.Type else {
      return try syncer.sync(base, new, into: &writer, depth: 0)
    }
    func open<T: Encodable>(_: T.Type) throws(PatchError) {
      let old = base.assumingMemoryBound(to: T.self).pointee
      let newer = new.assumingMemoryBound(to: T.self).pointee
      var reference = PatchWriter(pool: writer.pool)
      reference.usesSyncers = false
      try Differ.diff(old, newer, into: &reference, depth: 0)
      try syncer.sync(base, new, into: &writer, depth: 0)
      let encoder = WireEncoder(explicitNulls: true)
      let synced = try? encoder.encode(base.assumingMemoryBound(to: T.self).pointee)
      let expected = try? encoder.encode(newer)
      if writer.out != reference.out || synced != expected {
        let text = { (bytes: [UInt8]?) in bytes.map { String(decoding: $0, as: UTF8.self) } ?? "-" }
        fatalError(
          "ReducerKit (REDUCERKIT_WIRE_CHECK): the in-place patch differ disagrees with the general one on \(T.self)\n"
            + "  in place: \(text(writer.out))\n  general:  \(text(reference.out))\n"
            + "  base after: \(text(synced))\n  expected:   \(text(expected))")
      }
    }
    try open(type)
  }

  /// What `rk_store_patch(since)` returns, after diffing up to `current`.
  @usableFromInline
  package enum Patch {
    /// Operations (comma-separated, maybe none) from `since` to `version`.
    case ops([UInt8], version: UInt64)
    /// `since` is not a version the engine knows: the host needs the whole state at
    /// `version` (`state`).
    case whole(State, version: UInt64)
  }

  /// The patch from `since` to the newest of `current` and the base.
  @inlinable
  package func patch(since: UInt64, current: (state: State, version: UInt64)) throws(PatchError) -> Patch {
    try history.withLock { (history) throws(PatchError) -> Patch in
      try advance(&history, current.state, current.version)
      guard let baseVersion = history.base?.version else { return .whole(current.state, version: current.version) }
      if since == baseVersion { return .ops([], version: baseVersion) }
      guard since < baseVersion else {
        throw PatchError(
          .invalidArgument,
          "since_version \(since) is newer than the store's version \(baseVersion)")
      }
      // Segments are contiguous and ordered by version: find the one starting at `since`.
      var low = history.first
      var high = history.segments.count
      while low < high {
        let middle = (low + high) / 2
        if history.segments[middle].from < since { low = middle + 1 } else { high = middle }
      }
      guard low < history.segments.count, history.segments[low].from == since else {
        return .whole(history.base!.state, version: baseVersion)
      }
      var out: [UInt8] = []
      for segment in history.segments[low...] where !segment.ops.isEmpty {
        if !out.isEmpty { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: segment.ops)
      }
      return .ops(out, version: baseVersion)
    }
  }
}
