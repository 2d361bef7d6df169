#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
@_spi(Host) import ReducerKit
import ReducerKitWire
import Synchronization
import ReducerKitPlatform

/// Where a subscription's JSON goes: the bytes (NUL-terminated), their count without the NUL,
/// and the store version they show. Called on the thread that delivers the change.
@usableFromInline package typealias JSONSink = @Sendable (UnsafePointer<CChar>, Int, UInt64) -> Void

/// The operations of one feature's stores, JSON in and JSON out. Closures specialized for the
/// feature's types where the feature was declared (see `Feature.init`), so no call from a host
/// runs unspecialized generic code; made once per feature and shared by all of its stores, so
/// a store costs no memory for them.
@usableFromInline
package final class HostStoreTable: Sendable {
  @usableFromInline package typealias BytesBody = (UnsafeRawBufferPointer) throws(HostError) -> Void
  @usableFromInline package typealias Store = AnyObject & Sendable

  /// Every operation a host calls on a store, by name. A new operation is an entry here and
  /// its closure in `HostStore.makeTable()`.
  @usableFromInline package typealias Operations = (
    send: @Sendable (Store, UnsafeRawBufferPointer) throws(HostError) -> Void,
    withStateJSON: @Sendable (Store, BytesBody) throws(HostError) -> Void,
    get: @Sendable (Store, UnsafeRawBufferPointer?) throws(HostError) -> (json: [UInt8], count: Int, version: UInt64),
    patch: @Sendable (Store, UInt64) throws(HostError) -> (json: [UInt8], version: UInt64),
    version: @Sendable (Store) -> UInt64,
    subscribe: @Sendable (Store, @escaping JSONSink) -> UInt64,
    subscribePatches: @Sendable (Store, @escaping JSONSink) throws(HostError) -> UInt64,
    unsubscribe: @Sendable (Store, UInt64) throws(HostError) -> Void,
    waitIdle: @Sendable (Store, Int64) throws(HostError) -> Void,
    advanceClock: @Sendable (Store, Int64) throws(HostError) -> Void,
    takeActions: @Sendable (Store) throws(HostError) -> [UInt8],
    /// `rk_store_snapshot`: the snapshot document of the current state.
    snapshot: @Sendable (Store) throws(HostError) -> [UInt8],
    effectCount: @Sendable (Store) -> Int,
    /// On the test clock, waits for effects to settle (see `HostStore.settle()`).
    settle: @Sendable (Store) -> Void,
    /// Whether an answer on this thread may continue its effect here (`canResumeEffectsInline`).
    canResumeEffectsInline: @Sendable (Store) -> Bool,
    destroy: @Sendable (Store) -> Void
  )

  /// The type of the stores this table serves (checked when a box pairs them).
  @usableFromInline package let storeType: ObjectIdentifier
  @usableFromInline package let run: Operations

  @inlinable package init(storeType: ObjectIdentifier, _ run: Operations) {
    self.storeType = storeType
    self.run = run
  }
}

/// A store as a host sees it: the store and its feature's table (no allocation of its own).
/// `box.run.send(box.store, bytes)` calls an operation.
@usableFromInline
package struct HostStoreBox: Sendable {
  /// The store (the box keeps it alive).
  @usableFromInline package let store: HostStoreTable.Store
  // `unowned(unsafe)`: the store holds its table and its requests strongly, and this box holds
  // the store, so both outlive every use through the box; no reference count is touched for
  // them on each call.
  @usableFromInline package unowned(unsafe) let table: HostStoreTable
  /// The store's host requests (its provided endpoints).
  @usableFromInline package unowned(unsafe) let requests: HostRequests

  /// Pairs `store` with the table of its type and its requests, both of which `store` holds
  /// (`HostStore.boxed()`).
  @inlinable
  package init(table: HostStoreTable, store: HostStoreTable.Store, requests: HostRequests) {
    precondition(table.storeType == ObjectIdentifier(type(of: store)), "a store paired with another type's table")
    self.table = table
    self.store = store
    self.requests = requests
  }

  /// The store's operations (call them with `store`).
  @inlinable package var run: HostStoreTable.Operations { table.run }

  /// `run.send(store, bytes)`, called from the box itself so that the store is passed as
  /// borrowed from it (the hot path of every host: no retain of the store).
  @inlinable @inline(__always)
  package func send(_ bytes: UnsafeRawBufferPointer) throws(HostError) { try table.run.send(store, bytes) }

  /// `run.get(store, pointer)`, the store passed as borrowed from the box (as `send`).
  @inlinable @inline(__always)
  package func get(_ pointer: UnsafeRawBufferPointer?) throws(HostError) -> (json: [UInt8], count: Int, version: UInt64) {
    try table.run.get(store, pointer)
  }
}

/// Whether the host or an effect sent an action.
@usableFromInline
package enum HostAction<Action: Sendable>: Sendable {
  /// With the action's JSON as the action log writes it, when the store logs its actions and
  /// the action came from its cache (the log copies those bytes instead of encoding the action
  /// again); nil otherwise. Both cases carry the same payload type, so moving an action
  /// through the store never switches on the case.
  case host(Action, logged: [UInt8]?)
  case effect(Action, logged: [UInt8]?)
}

/// The whole-state JSON of the newest version encoded so far, shared by state callbacks,
/// `rk_store_state`, `rk_store_get("")`, whole-state patches and the action log: each version
/// is encoded at most once. The bytes end with a NUL (for callbacks), not counted in `count`.
@usableFromInline
package final class StateJSONCache: Sendable {
  private let entry = LockedValue<(version: UInt64, json: [UInt8])?>(nil)
  /// The runs of array elements the last encode wrote (a `TrackedArray`'s leaves): the next
  /// version's encode copies those its state still shares (`WireRunCache`).
  @usableFromInline package let runs = WireRunCache()

  @usableFromInline package init() {}

  /// The JSON of `state` (the state at `version`), encoded now unless it was already.
  @inlinable
  package func json<S: Encodable>(_ state: S, version: UInt64) throws(HostError) -> [UInt8] {
    if let cached = lookup(version) { return cached }
    let json: [UInt8]
    do {
      json = try WireEncoder(explicitNulls: true).encode(state, reusing: runs, nulTerminated: true)
    } catch {
      throw HostError(.internal, "encoding the state: \(error.message)")
    }
    offer(json, version: version)
    return json
  }

  @usableFromInline package func lookup(_ version: UInt64) -> [UInt8]? {
    entry.withLock { $0?.version == version ? $0?.json : nil }
  }

  /// Keeps `json` (NUL-terminated) as the JSON of `version` unless a newer one is kept.
  @usableFromInline package func offer(_ json: [UInt8], version: UInt64) {
    entry.withLock { entry in
      if entry == nil || entry!.version <= version { entry = (version, json) }
    }
  }
}

/// The last pointer `rk_store_get` read on a store: its text, its parsed segments, the read
/// compiled for the state's type (`CompiledPointer`, made on the first read of the same pointer
/// at a newer version), and the JSON read at a version. A read of the same pointer at the same
/// version copies that JSON (the value at a version never changes); at a newer version the
/// pointer is not parsed again, and the compiled read reads the value in place. One entry,
/// bounded: pointers up to `maxPointerLength` bytes, JSON up to `maxJSONLength` (longer reads
/// are made each time, as before). Thread-safe: the entry is read and written under its lock;
/// a compiled read is immutable and runs outside it.
@usableFromInline
package final class PointerReadCache: Sendable {
  /// Whether the kept pointer has a compiled read.
  @usableFromInline package enum Compiled: Sendable {
    case untried
    case reader(CompiledPointer)
    /// Left to `Navigator` for good.
    case never
    /// Compiled again after this many reads (the codec was still checking a type's plan).
    case notYet(readsLeft: Int)
  }

  @usableFromInline package struct Entry: Sendable {
    @usableFromInline package let pointer: [UInt8]
    @usableFromInline package let segments: [String]
    @usableFromInline package var version: UInt64
    @usableFromInline package var json: [UInt8]?
    @usableFromInline package var compiled: Compiled = .untried

    @inlinable package init(pointer: [UInt8], segments: [String], version: UInt64, json: [UInt8]?) {
      self.pointer = pointer
      self.segments = segments
      self.version = version
      self.json = json
    }

    @inlinable func holds(_ pointer: UnsafeRawBufferPointer) -> Bool {
      self.pointer.count == pointer.count
        && self.pointer.withUnsafeBytes({ memcmp($0.baseAddress!, pointer.baseAddress!, pointer.count) == 0 })
    }
  }

  /// A kept pointer's lookup: its segments, its JSON if read at the version asked, its
  /// compiled read, and whether the caller should compile it (then `compiled(_:_:)`).
  @usableFromInline package struct Kept {
    @usableFromInline package let segments: [String]
    @usableFromInline package let json: [UInt8]?
    @usableFromInline package let reader: CompiledPointer?
    @usableFromInline package let compile: Bool

    @inlinable init(segments: [String], json: [UInt8]?, reader: CompiledPointer?, compile: Bool) {
      self.segments = segments
      self.json = json
      self.reader = reader
      self.compile = compile
    }
  }

  @usableFromInline package static var maxPointerLength: Int { 256 }
  @usableFromInline package static var maxJSONLength: Int { 1 << 16 }
  /// Reads between attempts to compile a pointer while a type's plan is being checked.
  @usableFromInline package static var compileRetryReads: Int { 32 }
  @usableFromInline package let entry = LockedValue<Entry?>(nil)

  @inlinable package init() {}

  /// The kept pointer's segments if it is `pointer`, and its JSON if read at `version`. A
  /// read at another version is told to compile it when it has not been tried (one caller:
  /// the claim is recorded here).
  @inlinable
  package func lookup(_ pointer: UnsafeRawBufferPointer, version: UInt64) -> Kept? {
    entry.withLock { entry in
      // In place (no copy of the entry): the repeated read is the commonest.
      guard entry != nil, entry.unsafelyUnwrapped.holds(pointer) else { return nil }
      if entry.unsafelyUnwrapped.version == version, let json = entry.unsafelyUnwrapped.json {
        return Kept(segments: [], json: json, reader: nil, compile: false)  // segments: not needed
      }
      var compile = false
      var reader: CompiledPointer? = nil
      switch entry.unsafelyUnwrapped.compiled {
      case .reader(let compiled): reader = compiled
      case .never: break
      case .untried:
        compile = true
        entry!.compiled = .notYet(readsLeft: Self.compileRetryReads)
      case .notYet(let left):
        compile = left <= 1
        entry!.compiled = .notYet(readsLeft: compile ? Self.compileRetryReads : left - 1)
      }
      return Kept(segments: entry.unsafelyUnwrapped.segments, json: nil, reader: reader, compile: compile)
    }
  }

  /// The JSON kept for `pointer` at `version`, if that is the kept read (the repeated read:
  /// a compare under the lock, nothing else copied out of the entry).
  @inlinable
  package func json(_ pointer: UnsafeRawBufferPointer, version: UInt64) -> [UInt8]? {
    entry.withLock { entry in
      guard entry != nil, entry.unsafelyUnwrapped.version == version, entry.unsafelyUnwrapped.holds(pointer)
      else { return nil }
      return entry.unsafelyUnwrapped.json
    }
  }

  /// Keeps what compiling the kept `pointer` gave (nothing if another pointer is kept now).
  @inlinable
  package func compiled(_ pointer: UnsafeRawBufferPointer, _ result: _PointerCompilation) {
    entry.withLock { entry in
      guard var kept = entry, kept.holds(pointer) else { return }
      switch result {
      case .reader(let read): kept.compiled = .reader(CompiledPointer(read))
      case .never: kept.compiled = .never
      case .notYet: kept.compiled = .notYet(readsLeft: Self.compileRetryReads)
      }
      entry = kept
    }
  }

  /// Keeps `json`, read at `segments` (parsed from `pointer`) at `version`, unless a read of
  /// a newer version of the same pointer is kept.
  @inlinable
  package func remember(_ pointer: UnsafeRawBufferPointer, segments: [String], version: UInt64, json: [UInt8]) {
    guard pointer.count <= Self.maxPointerLength else { return }
    let kept = json.count <= Self.maxJSONLength ? json : nil
    entry.withLock { entry in
      if entry != nil, entry.unsafelyUnwrapped.holds(pointer) {
        guard version >= entry.unsafelyUnwrapped.version else { return }
        entry!.version = version
        entry!.json = kept
        return
      }
      entry = Entry(pointer: Array(pointer), segments: segments, version: version, json: kept)
    }
  }
}

/// The log behind `rk_store_take_actions` and a recording (`"record": true`): each reduced
/// action with the state after it.
///
/// A record keeps the action's JSON and the state as a value; the states are encoded when the
/// log is taken (`take()`), not on each send, so a logged send costs an append under a lock
/// (a state sharing storage with the one before, as a `TrackedArray` does, keeps only what
/// changed). The bytes are those an encode at the send would have written: a state is a
/// value, and each is encoded once, through the state cache's runs (`WireRunCache`).
@usableFromInline
package final class ActionLog: Sendable {
  struct Record {
    let action: [UInt8]
    let origin: StaticString
    let version: UInt64
    let state: any Encodable & Sendable
  }

  private let entries = LockedValue<(version: UInt64, records: [Record])>((0, []))
  private let stateCache: StateJSONCache

  @usableFromInline package init(stateCache: StateJSONCache) { self.stateCache = stateCache }

  /// Counts versions from `version` (a store restored from a snapshot), before any record.
  @usableFromInline package func start(at version: UInt64) { entries.withLock { $0.version = version } }

  @usableFromInline
  package func record<A: Encodable, S: Encodable & Sendable>(_ action: A, origin: StaticString, state: S) {
    record(encodedAction: Self.json(of: action), origin: origin, state: state)
  }

  /// The JSON of `action` as the log writes it (`null` if it cannot be encoded).
  @usableFromInline
  package static func json<A: Encodable>(of action: A) -> [UInt8] {
    (try? WireEncoder(explicitNulls: true).encode(action)) ?? Array("null".utf8)
  }

  /// `record` of an action already encoded by `json(of:)`.
  @usableFromInline
  package func record<S: Encodable & Sendable>(encodedAction actionJSON: [UInt8], origin: StaticString, state: S) {
    let state: any Encodable & Sendable = state  // boxed outside the lock
    entries.withLock { log in
      log.version += 1
      log.records.append(Record(action: actionJSON, origin: origin, version: log.version, state: state))
    }
  }

  /// `[{"action":A,"origin":"host","version":N,"state":S},…]`: the records since the last
  /// take, their states encoded now (a state that cannot be encoded is `null`). The newest
  /// state's JSON goes to the state cache: the log counts every action from the store's
  /// creation, so its version is the store's.
  @usableFromInline
  package func take() -> [UInt8] {
    let records = entries.withLock { log in
      let records = log.records
      log.records = []
      return records
    }
    var json: [UInt8] = [UInt8(ascii: "[")]
    var newest: (version: UInt64, json: [UInt8])?
    for record in records {
      // Appended piece by piece (no interpolated string or temporary arrays). Literals as
      // `StaticString` buffers: appending a `String`'s UTF-8 view costs ~185 instructions a piece.
      if json.count > 1 { json.append(UInt8(ascii: ",")) }
      Self.append("{\"action\":", to: &json)
      json.append(contentsOf: record.action)
      Self.append(",\"origin\":\"", to: &json)
      Self.append(record.origin, to: &json)
      Self.append("\",\"version\":", to: &json)
      Self.appendDecimal(record.version, to: &json)
      Self.append(",\"state\":", to: &json)
      // NUL-terminated for the state cache; the log takes the bytes before the NUL.
      if let encoded = Self.encode(record.state, runs: stateCache.runs) {
        encoded.withUnsafeBytes { json.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0.dropLast())) }
        newest = (record.version, encoded)
      } else {
        Self.append("null", to: &json)
      }
      json.append(UInt8(ascii: "}"))
    }
    json.append(UInt8(ascii: "]"))
    if let newest { stateCache.offer(newest.json, version: newest.version) }
    return json
  }

  /// The state's JSON, NUL-terminated; nil when it cannot be encoded.
  static func encode<S: Encodable>(_ state: S, runs: WireRunCache) -> [UInt8]? {
    try? WireEncoder(explicitNulls: true).encode(state, reusing: runs, nulTerminated: true)
  }

  static func append(_ literal: StaticString, to bytes: inout [UInt8]) {
    literal.withUTF8Buffer { bytes.append(contentsOf: UnsafeRawBufferPointer($0)) }
  }

  /// Appends `value` in decimal (no `String` made).
  static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
    var power: UInt64 = 1
    while power <= value / 10 { power *= 10 }
    var rest = value
    while true {
      bytes.append(UInt8(ascii: "0") + UInt8(rest / power))
      rest %= power
      if power == 1 { break }
      power /= 10
    }
  }

}

/// Runs the feature's reducer on `HostAction`s, so effects' actions can be told apart.
@usableFromInline
package struct HostReducer<Base: Reducer>: Reducer
where Base.Action: Codable & Sendable, Base.State: Encodable & Sendable {
  @usableFromInline package let base: (inout Base.State, Base.Action) -> Effect<Base.Action>
  @usableFromInline package let log: ActionLog?

  @inlinable package init(base: Base, log: ActionLog?) {
    self.base = base._reduceFunction()
    self.log = log
  }

  @inlinable
  package func reduce(into state: inout Base.State, action: HostAction<Base.Action>) -> Effect<HostAction<Base.Action>> {
    let effect: Effect<Base.Action>
    switch action {
    case let .host(action, logged):
      effect = base(&state, action)
      if let log {
        if let logged {
          log.record(encodedAction: logged, origin: "host", state: state)
        } else {
          log.record(action, origin: "host", state: state)
        }
      }
    case let .effect(action, _):
      effect = base(&state, action)
      if let log { log.record(action, origin: "effect", state: state) }
    }
    return effect.isNone ? .none : effect.map { HostAction.effect($0, logged: nil) }
  }
}

/// How long the library's own waits for quiescence (`rk_store_advance_clock`, an answer on
/// the test clock, a recording's settling) go on while no effect makes progress: only an
/// effect stuck on something other than the clock stops them, never a slow machine.
@usableFromInline package let settleStallNanoseconds: Int64 = 10_000_000_000

/// Writes a report to standard error: escaped, one line, bounded (the core's reporter).
@usableFromInline package func reportToStandardError(_ message: String) {
  _reportToStandardError(message)
}

/// How many sleepers one `rk_store_advance_clock` wakes at most (a timer over a huge span):
/// a count, not a time, so the call ends at the same clock reading on every machine.
@usableFromInline package let maxAdvanceWakeUps = 100_000

/// Decoded actions by their exact JSON text, so a host that sends the same action again
/// (`"increment"`) skips decoding. Sound because decoding is a pure function of the text
/// (synthesized `Decodable` is). Bounded in entries and key length. The first `listLimit`
/// entries are a list read without a lock or a hash (a store whose host sends a few distinct
/// actions keeps only those); past that, a direct-mapped table under a lock that doubles (up
/// to 256 slots) when an insert would evict.
///
/// The list is lock-free for readers: each entry is an immutable `Node`, published by one
/// atomic store (release) of the list's head after it is fully built, and read after an
/// acquiring load of the head; a node is never changed or freed while the cache lives (it is
/// held by the node after it, the head by the cache), so a reader walks it without retaining
/// it. Inserts are serialized by the table's lock.
@usableFromInline
package final class ActionCache<Action: Sendable>: Sendable {
  @usableFromInline package struct Entry: Sendable {
    @usableFromInline package let key: [UInt8]
    @usableFromInline package let hash: UInt64
    @usableFromInline package let action: Action

    @inlinable package init(key: [UInt8], hash: UInt64, action: Action) {
      self.key = key
      self.hash = hash
      self.action = action
    }

    @inlinable package func matches(_ bytes: UnsafeRawBufferPointer, hash: UInt64) -> Bool {
      guard self.hash == hash, key.count == bytes.count else { return false }
      return key.withUnsafeBytes { key in
        bytes.count == 0 || memcmp(key.baseAddress!, bytes.baseAddress!, bytes.count) == 0
      }
    }
  }

  /// An entry of the lock-free list (immutable). Its key is a buffer of its own (read
  /// without touching an array's reference count).
  @usableFromInline package final class Node: @unchecked Sendable {
    // Safe: every field is set in `init` and never changed; `key` is written there only.
    @usableFromInline package let key: UnsafeMutableRawPointer
    @usableFromInline package let count: Int
    /// The key's last 8 bytes (`ActionCache.tail(_:)`), compared before the rest.
    @usableFromInline package let tail: UInt64
    @usableFromInline package let action: Action
    /// The node after this one, which this one keeps alive (nil: the last).
    @usableFromInline package let next: Node?
    /// `next`'s address (0: none), to walk the list without retaining each node.
    @usableFromInline package let nextAddress: UInt
    /// How many nodes from this one to the end, this one included.
    @usableFromInline package let depth: Int

    @inlinable package init(key: UnsafeRawBufferPointer, action: Action, next: Node?) {
      self.key = UnsafeMutableRawPointer.allocate(byteCount: max(key.count, 1), alignment: 8)
      if let base = key.baseAddress, key.count > 0 { self.key.copyMemory(from: base, byteCount: key.count) }
      self.count = key.count
      self.tail = ActionCache.tail(key)
      self.action = action
      self.next = next
      self.nextAddress = next.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) } ?? 0
      self.depth = (next?.depth ?? 0) + 1
    }

    deinit { key.deallocate() }

    /// Whether this is the entry of `bytes`, whose `tail(_:)` is `tail`: the tail covers
    /// keys up to 8 bytes; a longer key's other bytes are compared when the tails agree.
    @inlinable package func matches(_ bytes: UnsafeRawBufferPointer, tail: UInt64) -> Bool {
      count == bytes.count && self.tail == tail
        && (count <= 8 || memcmp(key, bytes.baseAddress.unsafelyUnwrapped, count - 8) == 0)
    }
  }

  @usableFromInline package static var listLimit: Int { 8 }
  @usableFromInline package static var firstSlotCount: Int { 32 }
  @usableFromInline package static var slotCount: Int { 256 }
  @usableFromInline package static var maxKeyLength: Int { 96 }
  /// The list's first node, retained by the cache, as an address (0: empty).
  @usableFromInline package let head = Atomic<UInt>(0)
  /// The table (empty until the list is full); its lock also serializes inserts.
  @usableFromInline package let cache = LockedValue<[Entry?]>([])

  @usableFromInline package init() {}

  deinit {
    let address = head.load(ordering: .acquiring)
    if address != 0 { Self.node(address).release() }
  }

  @inlinable
  package static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
    for byte in bytes {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    return hash
  }

  /// The last 8 bytes of `bytes` as one word (all of them, zero-padded, when fewer): keys of
  /// the same length that differ there (`{"setCount":41}`, `{"setCount":42}`) are told apart
  /// without a `memcmp`.
  @inlinable @inline(__always)
  package static func tail(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    if bytes.count >= 8 { return bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self) }
    var tail: UInt64 = 0
    for byte in bytes { tail = tail << 8 | UInt64(byte) }
    return tail
  }

  /// The action decoded from `bytes`, if cached: the list without a lock, then (when the list
  /// is full) the table.
  @inlinable
  package func lookup(_ bytes: UnsafeRawBufferPointer) -> Action? {
    var hash: UInt64 = 0
    return lookup(bytes, hash: &hash)
  }

  /// `lookup(_:)`, setting `hash` to the text's hash when it computed one (for `insert`).
  @inlinable
  package func lookup(_ bytes: UnsafeRawBufferPointer, hash: inout UInt64) -> Action? {
    var address = head.load(ordering: .acquiring)
    if address == 0 { return nil }
    let full = Self.node(address)._withUnsafeGuaranteedRef { $0.depth >= Self.listLimit }
    let tail = Self.tail(bytes)
    repeat {
      let (action, next): (Action?, UInt) = Self.node(address)._withUnsafeGuaranteedRef { node in
        node.matches(bytes, tail: tail) ? (node.action, 0) : (nil, node.nextAddress)
      }
      if let action { return action }
      address = next
    } while address != 0
    guard full else { return nil }
    hash = Self.hash(bytes)
    let hash = hash
    return cache.withLock { table in
      guard !table.isEmpty, let entry = table[Int(hash % UInt64(table.count))], entry.matches(bytes, hash: hash)
      else { return nil }
      return entry.action
    }
  }

  /// The node at `address` (held by the list, which the cache holds: not retained here).
  @inlinable @inline(__always)
  package static func node(_ address: UInt) -> Unmanaged<Node> {
    Unmanaged<Node>.fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped)
  }

  /// Caches `action` as the decoding of `bytes` (`hash`: the text's hash if `lookup` gave one;
  /// 0: computed here if needed).
  @inlinable
  package func insert(_ bytes: UnsafeRawBufferPointer, _ action: Action, hash: UInt64 = 0) {
    cache.withLock { table in
      let first = head.load(ordering: .relaxed)  // only changed under this lock
      if first == 0 || Self.node(first).takeUnretainedValue().depth < Self.listLimit {
        let tail = Self.tail(bytes)
        var address = first
        while address != 0 {
          let node = Self.node(address).takeUnretainedValue()
          if node.matches(bytes, tail: tail) { return }  // another thread cached it first
          address = node.nextAddress
        }
        let next = first == 0 ? nil : Self.node(first).takeUnretainedValue()
        let node = Unmanaged.passRetained(Node(key: bytes, action: action, next: next))
        // The new node keeps the old head alive; the cache's own reference to it goes.
        head.store(UInt(bitPattern: node.toOpaque()), ordering: .releasing)
        if first != 0 { Self.node(first).release() }
        return
      }
      let hash = hash != 0 ? hash : Self.hash(bytes)
      let entry = Entry(key: Array(bytes), hash: hash, action: action)
      if table.isEmpty { table = Array(repeating: nil, count: Self.firstSlotCount) }
      while table[Int(hash % UInt64(table.count))] != nil, table.count < Self.slotCount {
        var grown = [Entry?](repeating: nil, count: table.count * 2)
        for case let old? in table { grown[Int(old.hash % UInt64(grown.count))] = old }
        table = grown
      }
      table[Int(hash % UInt64(table.count))] = entry
    }
  }
}

/// A decoded action with its JSON as the action log writes it (`ActionLog.json(of:)`): what
/// the action cache of a store that logs its actions keeps, so a repeated action is encoded
/// once (sound as the cache itself is: synthesized encoding is a pure function of the value).
@usableFromInline
package struct LoggedAction<Action: Sendable>: Sendable {
  @usableFromInline package let action: Action
  @usableFromInline package let json: [UInt8]

  @inlinable package init(_ action: Action, json: [UInt8]) {
    self.action = action
    self.json = json
  }
}

/// The version a patch subscriber saw last. Only touched by the thread delivering for the
/// store, one delivery at a time (see `Store.subscribe`).
@usableFromInline
package final class SeenVersion: @unchecked Sendable {
  // Safe: read and written only inside the store's observer callback, which the store runs
  // on one thread at a time and in order (`_Observers`), with a happens-before edge from
  // its condition lock between deliveries on different threads.
  @usableFromInline package var version: UInt64
  @usableFromInline package init(_ version: UInt64) { self.version = version }
}

/// The generic host store. Its methods are inlinable and called on the concrete type from the
/// closures of `makeTable()`, so they are specialized per feature.
@usableFromInline
package final class HostStore<R: Reducer>: Sendable
where R: SendableMetatype, R.State: Codable & Sendable, R.Action: Codable & Sendable {
  @usableFromInline package let store: Store<R.State, HostAction<R.Action>>
  @usableFromInline package let clock: TestClock?
  @usableFromInline package let log: ActionLog?
  @usableFromInline package typealias Subscriptions = LockedValue<(next: UInt64, active: [UInt64: StoreSubscription])>
  /// The host's subscriptions by token (made by the first subscription).
  @usableFromInline package let lazySubscriptions = AtomicLazyReference<Subscriptions>()
  @usableFromInline package let actionCache = ActionCache<R.Action>()
  /// Instead of `actionCache`, for a store that logs its actions (nil otherwise).
  @usableFromInline package let loggedActionCache: ActionCache<LoggedAction<R.Action>>?
  /// The whole-state JSON of the newest version encoded, shared by every reader (made on
  /// first use: a store nobody reads costs no memory for it).
  @usableFromInline package let lazyStateCache = AtomicLazyReference<StateJSONCache>()
  /// The last pointer read by `rk_store_get` (made by the first read of a pointer): a retained
  /// `PointerReadCache` as an address, 0 until then. Not `AtomicLazyReference`, whose `load`
  /// is not specialized here (~260 instructions a call, more than a cached read itself).
  @usableFromInline package let pointerReadsAddress = Atomic<UInt>(0)
  /// Patches between versions (made by the first patch call or patch subscription).
  @usableFromInline package let lazyPatches = AtomicLazyReference<PatchEngine<R.State>>()
  @usableFromInline package let requests: HostRequests
  /// The operations C calls on this store (its feature's, shared by the feature's stores).
  @usableFromInline package let table: HostStoreTable

  /// - Parameters:
  ///   - table: the feature's `makeTable()` (nil: a table of its own).
  ///   - recorder: the session recorder of a store created with `"record": true` (the store
  ///     logs its actions into the recorder's log).
  ///   - startVersion: the version of the initial state (a restored snapshot's; else 0).
  @inlinable
  package init(
    initialState: R.State, reducer: R, options: StoreOptions, provided: [Feature.Endpoint],
    table: HostStoreTable? = nil, recorder: SessionRecorder? = nil, startVersion: UInt64 = 0
  ) {
    self.table = table ?? Self.makeTable()
    let clock = options.testClock ? TestClock() : nil
    let stateCache = recorder?.stateCache ?? (options.recordActions ? StateJSONCache() : nil)
    let log = recorder?.log ?? stateCache.map { ActionLog(stateCache: $0) }
    let requests = HostRequests(recorder: recorder)
    if let stateCache { _ = lazyStateCache.storeIfNil(stateCache) }
    self.clock = clock
    self.log = log
    self.loggedActionCache = log == nil ? nil : ActionCache()
    self.requests = requests
    self.store = Store(
      initialState: initialState,
      reducer: HostReducer(base: reducer, log: log),
      withDependencies: { values in
        if let clock {
          values.continuousClock = clock
          values.suspendingClock = clock
        }
        Feature.Endpoint.provide(provided, in: &values, requests: requests)
      }
    )
    if startVersion != 0 {
      start(at: startVersion)
      log?.start(at: startVersion)
    }
    // What decoding an action first settles, settled now: not in the store's first send.
    WireDecoder.prepare(R.Action.self)
  }

  /// Starts the store's version count at `version` (see `Store._startVersion(at:)`).
  @usableFromInline func start(at version: UInt64) { store._startVersion(at: version) }

  /// `rk_store_snapshot`: the current state with what restoring it needs.
  @inlinable
  package func snapshot(_ identity: FeatureIdentity?) throws(HostError) -> [UInt8] {
    guard let identity else {
      throw HostError(.misuse, "this store was not made from a registered Feature, so it has no snapshot identity")
    }
    let (state, version) = currentState()
    let json = try stateCache.json(state, version: version)
    return identity.snapshot(stateJSON: json.dropLast(), version: version)
  }

  @inlinable package var subscriptions: Subscriptions {
    lazySubscriptions.load() ?? lazySubscriptions.storeIfNil(Subscriptions((0, [:])))
  }

  @inlinable package var stateCache: StateJSONCache {
    lazyStateCache.load() ?? lazyStateCache.storeIfNil(StateJSONCache())
  }

  @inlinable package var patches: PatchEngine<R.State> {
    if let engine = lazyPatches.load() { return engine }
    return lazyPatches.storeIfNil(PatchEngine())
  }

  // The core's host API (`@_spi(Host)`) cannot be called from inlinable code: these thin,
  // cold wrappers call it; the hot work around them (decoding, encoding) stays specialized.

  @usableFromInline package func currentState() -> (R.State, UInt64) {
    // The state is the body's result and the version set beside it: a `(State, UInt64)` result
    // would look up its tuple type's metadata on every call (this code is not specialized).
    var version: UInt64 = 0
    let state = store.withCurrentState { state, current -> R.State in
      version = current
      return state
    }
    return (state, version)
  }

  @usableFromInline package func subscribeChanges(
    _ body: @escaping (R.State, UInt64) -> Void
  ) -> StoreSubscription {
    store.subscribeVersioned(deliverCurrent: false, body)
  }

  @usableFromInline package var isHeldByCurrentThread: Bool { store.isHeldByCurrentThread }

  @usableFromInline package func waitUntilIdle(timeoutNanoseconds: Int64) -> Bool {
    store.waitUntilIdle(timeoutNanoseconds: timeoutNanoseconds)
  }

  /// A store of a table made by `makeTable()` (`HostStoreBox.init` checks the pairing).
  @inlinable @inline(__always)
  package static func of(_ store: HostStoreTable.Store) -> HostStore { unsafeDowncast(store, to: HostStore.self) }

  /// This store as the C ABI sees it.
  @inlinable
  package func boxed() -> HostStoreBox {
    HostStoreBox(table: table, store: self, requests: requests)
  }

  /// The table of operations for stores of this type. Each closure is handed a store of this
  /// type only: `HostStoreBox.init` checks that a box pairs a table with its own store type.
  @inlinable
  package static func makeTable(identity: FeatureIdentity? = nil) -> HostStoreTable {
    HostStoreTable(
      storeType: ObjectIdentifier(HostStore.self),
      (
        send: { store, bytes throws(HostError) in try of(store).send(bytes) },
        withStateJSON: { store, body throws(HostError) in try of(store).withStateJSON(body) },
        get: { store, pointer throws(HostError) in try of(store).get(pointer) },
        patch: { store, since throws(HostError) in try of(store).patch(since: since) },
        version: { store in of(store).store.version },
        subscribe: { store, sink in of(store).subscribe(sink) },
        subscribePatches: { store, sink throws(HostError) in try of(store).subscribePatches(sink) },
        unsubscribe: { store, token throws(HostError) in try of(store).unsubscribe(token) },
        waitIdle: { store, timeout throws(HostError) in try of(store).waitIdle(timeoutMilliseconds: timeout) },
        advanceClock: { store, milliseconds throws(HostError) in
          try of(store).advanceClock(milliseconds: milliseconds)
        },
        takeActions: { store throws(HostError) in try of(store).takeActions() },
        snapshot: { store throws(HostError) in try of(store).snapshot(identity) },
        effectCount: { store in of(store).store.effectCount },
        settle: { store in of(store).settle() },
        canResumeEffectsInline: { store in of(store).canResumeEffectsInline },
        destroy: { store in of(store).destroy() }
      ))
  }

  @inlinable
  package func send(_ json: UnsafeRawBufferPointer) throws(HostError) {
    let cacheable = json.count <= ActionCache<R.Action>.maxKeyLength
    var hash: UInt64 = 0  // set by a lookup that hashed the text, for the insert
    if cacheable {
      if let loggedActionCache {
        // A logging store: the log copies the action's JSON kept with it.
        if let entry = loggedActionCache.lookup(json, hash: &hash) {
          store.send(.host(entry.action, logged: entry.json))
          return
        }
      } else if let action = actionCache.lookup(json, hash: &hash) {
        store.send(.host(consume action, logged: nil))
        return
      }
    }
    let action: R.Action
    do {
      action = try WireDecoder(rootNoun: "action").decode(R.Action.self, from: json)
    } catch {
      throw HostError(error, otherwise: .action, context: nil)
    }
    if cacheable {
      if let loggedActionCache {
        let logged = ActionLog.json(of: action)
        loggedActionCache.insert(json, LoggedAction(action, json: logged), hash: hash)
        store.send(.host(action, logged: logged))
        return
      }
      actionCache.insert(json, action, hash: hash)
    }
    store.send(.host(action, logged: nil))
  }

  @inlinable
  package func withStateJSON(_ body: HostStoreTable.BytesBody) throws(HostError) {
    let (state, version) = currentState()
    let json = try stateCache.json(state, version: version)
    let failure: HostError? = json.withUnsafeBytes { buffer in
      do throws(HostError) {
        try body(UnsafeRawBufferPointer(rebasing: buffer.dropLast()))
        return nil
      } catch {
        return error
      }
    }
    if let failure { throw failure }
  }

  /// `rk_store_get`: the JSON at `pointer` (nil or empty: the whole state, from the shared
  /// cache) in the state at the returned version. `count` excludes a trailing NUL.
  /// A pointer read last is not parsed again, and its JSON at an unchanged version is copied
  /// (`PointerReadCache`).
  @inlinable
  package func get(_ pointer: UnsafeRawBufferPointer?) throws(HostError) -> (json: [UInt8], count: Int, version: UInt64) {
    guard let pointer, !pointer.isEmpty else {
      let (state, version) = currentState()
      let json = try stateCache.json(state, version: version)
      return (json, json.count - 1, version)
    }
    // The JSON kept for a version is the JSON at that version: no need to read the state.
    let seen = store.version
    // The repeated read: the cache as held by the store (not retained for the call).
    let address = pointerReadsAddress.load(ordering: .acquiring)
    if address != 0,
      let json = Unmanaged<PointerReadCache>.fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped)
        ._withUnsafeGuaranteedRef({ $0.json(pointer, version: seen) })
    {
      return (json, json.count, seen)
    }
    let reads = pointerReads
    let kept = reads.lookup(pointer, version: seen)
    if let json = kept?.json { return (json, json.count, seen) }
    let (state, version) = currentState()
    let segments: [String]
    if let kept {
      segments = kept.segments
      var reader = kept.reader
      if kept.compile {
        let result = CompiledPointer.compile(R.State.self, segments)
        reads.compiled(pointer, result)
        if case .reader(let read) = result { reader = CompiledPointer(read) }
      }
      // A value there: read in place. None: `Navigator` below says why.
      if let reader, let json = reader.json(of: state, segments: segments) {
        reads.remember(pointer, segments: segments, version: version, json: json)
        return (json, json.count, version)
      }
    } else {
      segments = try HostError.mapping { () throws(PatchError) in try JSONPointer.parse(pointer) }
    }
    if segments.isEmpty {  // not reached: a non-empty pointer has a segment
      let json = try stateCache.json(state, version: version)
      return (json, json.count - 1, version)
    }
    let json = try HostError.mapping { () throws(PatchError) in try Navigator.json(of: state, at: segments) }
    reads.remember(pointer, segments: segments, version: version, json: json)
    return (json, json.count, version)
  }

  @inlinable package var pointerReads: PointerReadCache {
    let address = pointerReadsAddress.load(ordering: .acquiring)
    if address != 0 { return Self.unretained(address) }
    let made = Unmanaged.passRetained(PointerReadCache())
    let madeAddress = UInt(bitPattern: made.toOpaque())
    let (stored, current) = pointerReadsAddress.compareExchange(
      expected: 0, desired: madeAddress, ordering: .acquiringAndReleasing)
    if stored { return made.takeUnretainedValue() }
    made.release()  // another thread made it first
    return Self.unretained(current)
  }

  @inlinable @inline(__always)
  package static func unretained(_ address: UInt) -> PointerReadCache {
    Unmanaged<PointerReadCache>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).takeUnretainedValue()
  }

  deinit {
    let address = pointerReadsAddress.load(ordering: .acquiring)
    if address != 0 { Unmanaged<PointerReadCache>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).release() }
  }

  /// `rk_store_patch`: the JSON Patch from `since` to the current version.
  @inlinable
  package func patch(since: UInt64) throws(HostError) -> (json: [UInt8], version: UInt64) {
    let (state, version) = currentState()
    switch try HostError.mapping({ () throws(PatchError) in try patches.patch(since: since, current: (state, version)) }) {
    case let .ops(ops, version):
      var json: [UInt8] = [UInt8(ascii: "[")]
      json.reserveCapacity(ops.count + 3)
      json.append(contentsOf: ops)
      json.append(UInt8(ascii: "]"))
      return (json, version)
    case let .whole(state, version):
      return (try wholePatch(state, version: version), version)
    }
  }

  /// `[{"op":"replace","path":"","value":<the state>}]`, from the shared state JSON.
  @inlinable
  package func wholePatch(_ state: R.State, version: UInt64) throws(HostError) -> [UInt8] {
    let whole = try stateCache.json(state, version: version)
    var json = Array(#"[{"op":"replace","path":"","value":"#.utf8)
    json.reserveCapacity(whole.count + 40)
    json.append(contentsOf: whole.dropLast())
    json.append(contentsOf: "}]".utf8)
    return json
  }

  @inlinable
  package func subscribe(_ sink: @escaping JSONSink) -> UInt64 {
    let cache = stateCache
    // C hosts get changes only, not the state at registration.
    let subscription = subscribeChanges { (state: R.State, version) in
      guard let json = try? cache.json(state, version: version) else {
        reportToStandardError("ReducerKit: could not encode the state for a callback")
        return
      }
      Self.call(sink, json, count: json.count - 1, version: version)
    }
    return remember(subscription)
  }

  /// `rk_store_subscribe_patches`: `callback` gets the patch from the version it last saw
  /// (at first: the current version) after every delivery that changed the state.
  @inlinable
  package func subscribePatches(_ sink: @escaping JSONSink) throws(HostError) -> UInt64 {
    let (state, version) = currentState()
    try HostError.mapping { () throws(PatchError) in try patches.advance(to: state, version: version) }
    // The empty patch from this version to itself, made and dropped: the subscriber's path
    // finds its first-time type metadata now, not in the store's first send.
    _ = try? patchForSubscriber(since: version, state: state, version: version)
    let seen = SeenVersion(version)
    let subscription = subscribeChanges { (state: R.State, version) in
      do throws(HostError) {
        let (json, to) = try self.patchForSubscriber(since: seen.version, state: state, version: version)
        guard to > seen.version else { return }
        seen.version = to
        guard let json else { return }  // nothing changed
        Self.call(sink, json, count: json.count - 1, version: to)
      } catch {
        reportToStandardError("ReducerKit: could not make the patch for a callback: \(error.message)")
      }
    }
    return remember(subscription)
  }

  /// The patch (NUL-terminated; nil when empty) from `since` to the newest version known.
  @inlinable
  package func patchForSubscriber(since: UInt64, state: R.State, version: UInt64) throws(HostError) -> ([UInt8]?, UInt64) {
    switch try HostError.mapping({ () throws(PatchError) in try patches.patch(since: since, current: (state, version)) }) {
    case let .ops(ops, to):
      guard !ops.isEmpty else { return (nil, to) }
      var json: [UInt8] = [UInt8(ascii: "[")]
      json.reserveCapacity(ops.count + 3)
      json.append(contentsOf: ops)
      json.append(contentsOf: [UInt8(ascii: "]"), 0])
      return (json, to)
    case let .whole(state, to):
      var json = try wholePatch(state, version: to)
      json.append(0)
      return (json, to)
    }
  }

  /// Hands NUL-terminated `json` of `count` bytes to `sink`.
  @inlinable
  package static func call(_ sink: JSONSink, _ json: [UInt8], count: Int, version: UInt64) {
    json.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { sink($0, count, version) }
    }
  }

  @inlinable
  package func remember(_ subscription: StoreSubscription) -> UInt64 {
    subscriptions.withLock { table in
      table.next += 1
      table.active[table.next] = subscription
      return table.next
    }
  }

  @inlinable
  package func unsubscribe(_ token: UInt64) throws(HostError) {
    let subscription = subscriptions.withLock { $0.active.removeValue(forKey: token) }
    guard let subscription else {
      throw HostError(.invalidArgument, "no subscription with token \(token) on this store")
    }
    subscription.cancel()
  }

  @inlinable
  package func waitIdle(timeoutMilliseconds: Int64) throws(HostError) {
    guard !requests.isCallingBackOnCurrentThread else { throw Self.waitInRequestCallback("rk_store_wait_idle") }
    guard !isHeldByCurrentThread else {
      throw HostError(.misuse, "rk_store_wait_idle called from inside a reduce of the same store")
    }
    let nanoseconds: Int64
    if timeoutMilliseconds < 0 {
      nanoseconds = -1
    } else {
      let (product, overflow) = timeoutMilliseconds.multipliedReportingOverflow(by: 1_000_000)
      nanoseconds = overflow ? Int64.max : product
    }
    guard waitUntilIdle(timeoutNanoseconds: nanoseconds) else {
      throw HostError(
        .timeout,
        "effects still running after \(timeoutMilliseconds) ms (\(store.effectCount) in flight)")
    }
  }

  @usableFromInline
  package func advanceClock(milliseconds: Int64) throws(HostError) {
    guard let clock else {
      throw HostError(.misuse, "the store uses the live clock; create it with {\"clock\": \"test\"} to advance time")
    }
    guard milliseconds >= 0 else {
      throw HostError(.invalidArgument, "milliseconds must be >= 0, got \(milliseconds)")
    }
    guard !requests.isCallingBackOnCurrentThread else { throw Self.waitInRequestCallback("rk_store_advance_clock") }
    guard !isHeldByCurrentThread else {
      throw HostError(.misuse, "rk_store_advance_clock called from inside a reduce of the same store")
    }
    let start = clock.now
    let target = start.advanced(by: .milliseconds(milliseconds))
    let result = clock.advanceBlocking(
      by: .milliseconds(milliseconds), stallNanoseconds: settleStallNanoseconds, maxWakeUps: maxAdvanceWakeUps)
    let why: String
    let reached: TestClock.Instant
    switch result {
    case .settled:
      return
    case let .stalled(at):
      reached = at
      why = "woken effects made no progress for \(settleStallNanoseconds / 1_000_000_000) s without settling "
        + "(an effect that waits on something other than the clock)"
    case let .tooManyWakeUps(at):
      reached = at
      why = "\(maxAdvanceWakeUps) sleepers woke and more were due (a timer that fires more often than "
        + "the span allows to run)"
    }
    throw HostError(
      .timeout,
      "\(why); the test clock stopped at \(Self.milliseconds(reached.offset)) ms, "
        + "\(Self.milliseconds(start.duration(to: reached))) ms of the "
        + "\(Self.milliseconds(start.duration(to: target))) ms asked for")
  }

  /// On the test clock, waits until the effects an answer or an action resumed have settled
  /// (finished, or asleep on the clock, or waiting for the host), however long that takes
  /// while they make progress. Does nothing on the live clock, inside a request callback or a
  /// reduce of this store, or on a Swift concurrency thread, where waiting could wait for itself.
  @usableFromInline
  package func settle() {
    guard clock != nil, !requests.isCallingBackOnCurrentThread, !isHeldByCurrentThread,
      !Self.isOnSwiftTask
    else { return }
    _ = store.waitUntilSettled(stallNanoseconds: settleStallNanoseconds)
  }

  /// Whether an answer given on this thread may continue the waiting effect right here (see
  /// `HostRequests.answer`): not inside a reduce of this store (its lock is held), nor a host
  /// callback (a request callback's effect is still running; an observer's delivery holds the
  /// delivery turn), nor on a Swift task (the effect would run inside another task's job).
  @usableFromInline
  package var canResumeEffectsInline: Bool {
    !isHeldByCurrentThread && !_HostCallbackScope.isInside && !Self.isOnSwiftTask
  }

  /// Whether the calling thread runs a Swift task (blocking there could starve the pool).
  @usableFromInline package static var isOnSwiftTask: Bool { withUnsafeCurrentTask { $0 != nil } }

  /// The error of a wait from inside a request callback, which would wait for itself.
  @usableFromInline
  package static func waitInRequestCallback(_ function: String) -> HostError {
    HostError(
      .misuse,
      "\(function) called from inside a request callback of the same store: the effect that made "
        + "the request runs until the callback returns, so this would wait for itself; answer "
        + "the request (or keep its id) and return, then wait")
  }

  /// Whole milliseconds of `duration`.
  static func milliseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
    return overflow ? (seconds > 0 ? .max : .min) : whole &+ attoseconds / 1_000_000_000_000_000
  }

  @inlinable
  package func takeActions() throws(HostError) -> [UInt8] {
    guard let log else {
      throw HostError(.misuse, "the store does not record actions; create it with {\"record_actions\": true}")
    }
    return log.take()
  }

  @inlinable
  package func destroy() {
    let active: [StoreSubscription] =
      lazySubscriptions.load()?.withLock { table in
        defer { table.active.removeAll() }
        return Array(table.active.values)
      } ?? []
    store.invalidate()
    requests.close()
    for subscription in active { subscription.cancel() }
  }
}
