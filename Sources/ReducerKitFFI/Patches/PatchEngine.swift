/// The patches of one store: the state at the newest version it diffed (the base) and the
/// patches between the versions it diffed before, so `rk_store_patch(since)` and every
/// patch subscriber share one diff per version.
///
/// It starts with the first `rk_store_patch` or `rk_store_subscribe_patches` of the store
/// (until then it costs nothing); from then on the store keeps the base, which shares
/// storage with the current state: a write copies what it writes into (all of an array,
/// O(log n) of a `TrackedArray`).
@usableFromInline
final class PatchEngine<State>: Sendable {
  /// The patch from version `from` to version `to`: operations without brackets.
  @usableFromInline struct Segment {
    @usableFromInline let from: UInt64
    @usableFromInline let to: UInt64
    @usableFromInline let ops: [UInt8]

    @inlinable init(from: UInt64, to: UInt64, ops: [UInt8]) {
      self.from = from
      self.to = to
      self.ops = ops
    }
  }

  @usableFromInline struct History {
    @usableFromInline var base: (state: State, version: UInt64)?
    @usableFromInline var segments: [Segment] = []
    @usableFromInline var first = 0
    @usableFromInline var bytes = 0
    /// Shape recorders the diffs reuse.
    @usableFromInline let pool = _ShapePool()

    @inlinable init() {}
  }

  /// Older patches are dropped past either bound (a host that asks from before them gets
  /// the whole state, which is always correct).
  @inlinable static var maxSegments: Int { 4096 }
  @inlinable static var maxBytes: Int { 4 << 20 }

  // Inlinable (with the members they use), so they are specialized for the store's state
  // where the store is.
  @usableFromInline let history = Locked(History())
  @usableFromInline let diff: @Sendable (State, State, inout PatchWriter) throws(FFIError) -> Void

  /// - Parameter diff: writes the operations from the first state to the second.
  @usableFromInline
  init(diff: @escaping @Sendable (State, State, inout PatchWriter) throws(FFIError) -> Void) {
    self.diff = diff
  }

  /// Makes `version` a version patches start from and end at, diffing from the base.
  @inlinable
  func advance(to state: State, version: UInt64) throws(FFIError) {
    try history.withLock { (history) throws(FFIError) in try advance(&history, state, version) }
  }

  @inlinable
  func advance(_ history: inout History, _ state: State, _ version: UInt64) throws(FFIError) {
    guard let base = history.base else {
      history.base = (state, version)
      return
    }
    guard version > base.version else { return }
    var writer = PatchWriter(pool: history.pool)
    try diff(base.state, state, &writer)
    history.segments.append(Segment(from: base.version, to: version, ops: writer.out))
    history.bytes += writer.out.count
    history.base = (state, version)
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

  /// What `rk_store_patch(since)` returns, after diffing up to `current`.
  @usableFromInline
  enum Patch {
    /// Operations (comma-separated, maybe none) from `since` to `version`.
    case ops([UInt8], version: UInt64)
    /// `since` is not a version the engine knows: the host needs the whole state at
    /// `version` (`state`).
    case whole(State, version: UInt64)
  }

  /// The patch from `since` to the newest of `current` and the base.
  @inlinable
  func patch(since: UInt64, current: (state: State, version: UInt64)) throws(FFIError) -> Patch {
    try history.withLock { (history) throws(FFIError) -> Patch in
      try advance(&history, current.state, current.version)
      guard let base = history.base else { return .whole(current.state, version: current.version) }
      if since == base.version { return .ops([], version: base.version) }
      guard since < base.version else {
        throw FFIError(
          .invalidArgument,
          "since_version \(since) is newer than the store's version \(base.version)")
      }
      // Segments are contiguous and ordered by version: find the one starting at `since`.
      var low = history.first
      var high = history.segments.count
      while low < high {
        let middle = (low + high) / 2
        if history.segments[middle].from < since { low = middle + 1 } else { high = middle }
      }
      guard low < history.segments.count, history.segments[low].from == since else {
        return .whole(base.state, version: base.version)
      }
      var out: [UInt8] = []
      for segment in history.segments[low...] where !segment.ops.isEmpty {
        if !out.isEmpty { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: segment.ops)
      }
      return .ops(out, version: base.version)
    }
  }
}
