#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
@_spi(Host) import ReducerKit
import ReducerKitWire
import Synchronization

/// The C callback type of `rk_store_subscribe` (`rk_state_callback`).
public typealias StateCallback = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int, UInt64) -> Void

/// The C callback type of `rk_store_subscribe_patches` (`rk_patch_callback`).
public typealias PatchCallback = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int, UInt64) -> Void

/// The operations of one feature's stores as the C ABI sees them: JSON in, JSON out. Closures
/// specialized for the feature's types where the feature was declared (see `Feature.init`), so
/// no call from C runs unspecialized generic code; made once per feature and shared by all of
/// its stores, so a store costs no memory for them.
@usableFromInline
final class HostStoreTable: Sendable {
  @usableFromInline typealias BytesBody = (UnsafeRawBufferPointer) throws(FFIError) -> Void
  @usableFromInline typealias Store = AnyObject & Sendable

  /// The type of the stores this table serves (checked when a box pairs them).
  let storeType: ObjectIdentifier
  let send: @Sendable (Store, UnsafeRawBufferPointer) throws(FFIError) -> Void
  let withStateJSON: @Sendable (Store, BytesBody) throws(FFIError) -> Void
  let get: @Sendable (Store, UnsafeRawBufferPointer?) throws(FFIError) -> (json: [UInt8], count: Int, version: UInt64)
  let patch: @Sendable (Store, UInt64) throws(FFIError) -> (json: [UInt8], version: UInt64)
  let version: @Sendable (Store) -> UInt64
  let subscribe: @Sendable (Store, StateCallback, UnsafeMutableRawPointer?) -> UInt64
  let subscribePatches: @Sendable (Store, PatchCallback, UnsafeMutableRawPointer?) throws(FFIError) -> UInt64
  let unsubscribe: @Sendable (Store, UInt64) throws(FFIError) -> Void
  let waitIdle: @Sendable (Store, Int64) throws(FFIError) -> Void
  let advanceClock: @Sendable (Store, Int64) throws(FFIError) -> Void
  let takeActions: @Sendable (Store) throws(FFIError) -> [UInt8]
  let effectCount: @Sendable (Store) -> Int
  /// On the test clock, waits for effects to settle (see `HostStore.settle()`).
  let settle: @Sendable (Store) -> Void
  let destroy: @Sendable (Store) -> Void

  @usableFromInline
  init(
    storeType: ObjectIdentifier,
    send: @escaping @Sendable (Store, UnsafeRawBufferPointer) throws(FFIError) -> Void,
    withStateJSON: @escaping @Sendable (Store, BytesBody) throws(FFIError) -> Void,
    get: @escaping @Sendable (Store, UnsafeRawBufferPointer?) throws(FFIError) -> (json: [UInt8], count: Int, version: UInt64),
    patch: @escaping @Sendable (Store, UInt64) throws(FFIError) -> (json: [UInt8], version: UInt64),
    version: @escaping @Sendable (Store) -> UInt64,
    subscribe: @escaping @Sendable (Store, StateCallback, UnsafeMutableRawPointer?) -> UInt64,
    subscribePatches: @escaping @Sendable (Store, PatchCallback, UnsafeMutableRawPointer?) throws(FFIError) -> UInt64,
    unsubscribe: @escaping @Sendable (Store, UInt64) throws(FFIError) -> Void,
    waitIdle: @escaping @Sendable (Store, Int64) throws(FFIError) -> Void,
    advanceClock: @escaping @Sendable (Store, Int64) throws(FFIError) -> Void,
    takeActions: @escaping @Sendable (Store) throws(FFIError) -> [UInt8],
    effectCount: @escaping @Sendable (Store) -> Int,
    settle: @escaping @Sendable (Store) -> Void,
    destroy: @escaping @Sendable (Store) -> Void
  ) {
    self.storeType = storeType
    self.send = send
    self.withStateJSON = withStateJSON
    self.get = get
    self.patch = patch
    self.version = version
    self.subscribe = subscribe
    self.subscribePatches = subscribePatches
    self.unsubscribe = unsubscribe
    self.waitIdle = waitIdle
    self.advanceClock = advanceClock
    self.takeActions = takeActions
    self.effectCount = effectCount
    self.settle = settle
    self.destroy = destroy
  }
}

/// A store as the C ABI sees it: the store and its feature's table (no allocation of its own).
@usableFromInline
struct HostStoreBox: Sendable {
  @usableFromInline typealias BytesBody = HostStoreTable.BytesBody

  /// The store (the box keeps it alive).
  let store: HostStoreTable.Store
  // `unowned(unsafe)`: the store holds its table and its requests strongly, and this box holds
  // the store, so both outlive every use through the box; no reference count is touched for
  // them on each call from C.
  unowned(unsafe) let table: HostStoreTable
  /// The store's host requests (its provided endpoints).
  unowned(unsafe) let requests: HostRequests

  /// Pairs `store` with the table of its type and its requests, both of which `store` holds
  /// (`HostStore.boxed()`).
  @usableFromInline
  init(table: HostStoreTable, store: HostStoreTable.Store, requests: HostRequests) {
    precondition(table.storeType == ObjectIdentifier(type(of: store)), "a store paired with another type's table")
    self.table = table
    self.store = store
    self.requests = requests
  }

  func send(_ bytes: UnsafeRawBufferPointer) throws(FFIError) { try table.send(store, bytes) }
  func withStateJSON(_ body: BytesBody) throws(FFIError) { try table.withStateJSON(store, body) }
  func get(_ pointer: UnsafeRawBufferPointer?) throws(FFIError) -> (json: [UInt8], count: Int, version: UInt64) {
    try table.get(store, pointer)
  }
  func patch(_ since: UInt64) throws(FFIError) -> (json: [UInt8], version: UInt64) { try table.patch(store, since) }
  func version() -> UInt64 { table.version(store) }
  func subscribe(_ callback: StateCallback, _ userdata: UnsafeMutableRawPointer?) -> UInt64 {
    table.subscribe(store, callback, userdata)
  }
  func subscribePatches(_ callback: PatchCallback, _ userdata: UnsafeMutableRawPointer?) throws(FFIError) -> UInt64 {
    try table.subscribePatches(store, callback, userdata)
  }
  func unsubscribe(_ token: UInt64) throws(FFIError) { try table.unsubscribe(store, token) }
  func waitIdle(_ milliseconds: Int64) throws(FFIError) { try table.waitIdle(store, milliseconds) }
  func advanceClock(_ milliseconds: Int64) throws(FFIError) { try table.advanceClock(store, milliseconds) }
  func takeActions() throws(FFIError) -> [UInt8] { try table.takeActions(store) }
  func effectCount() -> Int { table.effectCount(store) }
  func settle() { table.settle(store) }
  func destroy() { table.destroy(store) }
}

/// Whether the host or an effect sent an action.
@usableFromInline
enum HostAction<Action: Sendable>: Sendable {
  case host(Action)
  case effect(Action)
}

/// The whole-state JSON of the newest version encoded so far, shared by state callbacks,
/// `rk_store_state`, `rk_store_get("")`, whole-state patches and the action log: each version
/// is encoded at most once. The bytes end with a NUL (for callbacks), not counted in `count`.
@usableFromInline
final class StateJSONCache: Sendable {
  private let entry = Locked<(version: UInt64, json: [UInt8])?>(nil)

  @usableFromInline init() {}

  /// The JSON of `state` (the state at `version`), encoded now unless it was already.
  @inlinable
  func json<S: Encodable>(_ state: S, version: UInt64) throws(FFIError) -> [UInt8] {
    if let cached = lookup(version) { return cached }
    var json: [UInt8]
    do {
      json = try WireEncoder(explicitNulls: true).encode(state)
    } catch {
      throw FFIError(.internal, "encoding the state: \(error.message)")
    }
    json.append(0)
    offer(json, version: version)
    return json
  }

  @usableFromInline func lookup(_ version: UInt64) -> [UInt8]? {
    entry.withLock { $0?.version == version ? $0?.json : nil }
  }

  /// Keeps `json` (NUL-terminated) as the JSON of `version` unless a newer one is kept.
  @usableFromInline func offer(_ json: [UInt8], version: UInt64) {
    entry.withLock { entry in
      if entry == nil || entry!.version <= version { entry = (version, json) }
    }
  }
}

/// The log behind `rk_store_take_actions`: each reduced action with the state after it.
@usableFromInline
final class ActionLog: Sendable {
  private let entries = Locked<(version: UInt64, json: [UInt8], count: Int)>((0, [], 0))
  private let stateCache: StateJSONCache

  @usableFromInline init(stateCache: StateJSONCache) { self.stateCache = stateCache }

  @usableFromInline
  func record<A: Encodable, S: Encodable>(_ action: A, origin: StaticString, state: S) {
    let encoder = WireEncoder(explicitNulls: true)
    let actionJSON = (try? encoder.encode(action)) ?? Array("null".utf8)
    let encoded = try? encoder.encode(state)
    let stateJSON = encoded ?? Array("null".utf8)
    entries.withLock { log in
      log.version += 1
      log.json.append(contentsOf: log.count == 0 ? Array("{\"action\":".utf8) : Array(",{\"action\":".utf8))
      log.json.append(contentsOf: actionJSON)
      log.json.append(contentsOf: Array(",\"origin\":\"\(origin)\",\"version\":\(log.version),\"state\":".utf8))
      log.json.append(contentsOf: stateJSON)
      log.json.append(UInt8(ascii: "}"))
      log.count += 1
      // The log counts every action from the store's creation, so its version is the
      // store's: the state callback and reads of this version use these bytes.
      if var encoded {
        encoded.append(0)
        stateCache.offer(encoded, version: log.version)
      }
    }
  }

  @usableFromInline
  func take() -> [UInt8] {
    entries.withLock { log in
      defer {
        log.json = []
        log.count = 0
      }
      return [UInt8(ascii: "[")] + log.json + [UInt8(ascii: "]")]
    }
  }
}

/// Runs the feature's reducer on `HostAction`s, so effects' actions can be told apart.
@usableFromInline
struct HostReducer<Base: Reducer>: Reducer
where Base.Action: Codable & Sendable, Base.State: Encodable {
  @usableFromInline let base: (inout Base.State, Base.Action) -> Effect<Base.Action>
  @usableFromInline let log: ActionLog?

  @inlinable init(base: Base, log: ActionLog?) {
    self.base = base._reduceFunction()
    self.log = log
  }

  @inlinable
  func reduce(into state: inout Base.State, action: HostAction<Base.Action>) -> Effect<HostAction<Base.Action>> {
    let effect: Effect<Base.Action>
    switch action {
    case let .host(action):
      effect = base(&state, action)
      if let log { log.record(action, origin: "host", state: state) }
    case let .effect(action):
      effect = base(&state, action)
      if let log { log.record(action, origin: "effect", state: state) }
    }
    return effect.isNone ? .none : effect.map { HostAction.effect($0) }
  }
}

/// How long the library's own waits for quiescence (`rk_store_advance_clock`, an answer on
/// the test clock, a recording's settling) go on while no effect makes progress: only an
/// effect stuck on something other than the clock stops them, never a slow machine.
@usableFromInline let settleStallNanoseconds: Int64 = 10_000_000_000

/// Writes a report to standard error: escaped, one line, bounded (the core's reporter).
@usableFromInline func reportToStandardError(_ message: String) {
  _reportToStandardError(message)
}

/// How many sleepers one `rk_store_advance_clock` wakes at most (a timer over a huge span):
/// a count, not a time, so the call ends at the same clock reading on every machine.
@usableFromInline let maxAdvanceWakeUps = 100_000

/// Decoded actions by their exact JSON text, so a host that sends the same action again
/// (`"increment"`) skips decoding. Sound because decoding is a pure function of the text
/// (synthesized `Decodable` is). Bounded in entries and key length. The first few entries are
/// a short list scanned by hash (a store whose host sends a few distinct actions keeps only
/// those); past that, a direct-mapped table that doubles (up to 256 slots) when an insert
/// would evict.
@usableFromInline
final class ActionCache<Action: Sendable>: Sendable {
  @usableFromInline struct Entry: Sendable {
    @usableFromInline let key: [UInt8]
    @usableFromInline let hash: UInt64
    @usableFromInline let action: Action

    @inlinable init(key: [UInt8], hash: UInt64, action: Action) {
      self.key = key
      self.hash = hash
      self.action = action
    }

    @inlinable func matches(_ bytes: UnsafeRawBufferPointer, hash: UInt64) -> Bool {
      guard self.hash == hash, key.count == bytes.count else { return false }
      return key.withUnsafeBytes { key in
        bytes.count == 0 || memcmp(key.baseAddress!, bytes.baseAddress!, bytes.count) == 0
      }
    }
  }

  @usableFromInline static var listLimit: Int { 8 }
  @usableFromInline static var firstSlotCount: Int { 32 }
  @usableFromInline static var slotCount: Int { 256 }
  @usableFromInline static var maxKeyLength: Int { 96 }
  /// The list (while the table is empty), then the table.
  @usableFromInline let cache = Locked<(list: [Entry], table: [Entry?])>(([], []))

  @usableFromInline init() {}

  @inlinable
  static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
    for byte in bytes {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    return hash
  }

  @inlinable
  func lookup(_ bytes: UnsafeRawBufferPointer, hash: UInt64) -> Action? {
    cache.withLock { cache in
      if cache.table.isEmpty {
        for entry in cache.list where entry.matches(bytes, hash: hash) { return entry.action }
        return nil
      }
      guard let entry = cache.table[Int(hash % UInt64(cache.table.count))], entry.matches(bytes, hash: hash)
      else { return nil }
      return entry.action
    }
  }

  @inlinable
  func insert(_ bytes: UnsafeRawBufferPointer, hash: UInt64, _ action: Action) {
    let entry = Entry(key: Array(bytes), hash: hash, action: action)
    cache.withLock { cache in
      if cache.table.isEmpty {
        if cache.list.count < Self.listLimit {
          if cache.list.capacity == 0 { cache.list.reserveCapacity(2) }
          cache.list.append(entry)
          return
        }
        cache.table = Array(repeating: nil, count: Self.firstSlotCount)
        for old in cache.list { cache.table[Int(old.hash % UInt64(cache.table.count))] = old }
        cache.list = []
      }
      while cache.table[Int(hash % UInt64(cache.table.count))] != nil, cache.table.count < Self.slotCount {
        var grown = [Entry?](repeating: nil, count: cache.table.count * 2)
        for case let old? in cache.table { grown[Int(old.hash % UInt64(grown.count))] = old }
        cache.table = grown
      }
      cache.table[Int(hash % UInt64(cache.table.count))] = entry
    }
  }
}

/// The version a patch subscriber saw last. Only touched by the thread delivering for the
/// store, one delivery at a time (see `Store.subscribe`).
@usableFromInline
final class SeenVersion: @unchecked Sendable {
  // Safe: read and written only inside the store's observer callback, which the store runs
  // on one thread at a time and in order (`_Observers`), with a happens-before edge from
  // its condition lock between deliveries on different threads.
  @usableFromInline var version: UInt64
  @usableFromInline init(_ version: UInt64) { self.version = version }
}

/// The generic host store. Its methods are inlinable and called on the concrete type from the
/// closures of `makeTable()`, so they are specialized per feature.
@usableFromInline
final class HostStore<R: Reducer>: Sendable
where R: SendableMetatype, R.State: Codable & Sendable, R.Action: Codable & Sendable {
  @usableFromInline let store: Store<R.State, HostAction<R.Action>>
  @usableFromInline let clock: TestClock?
  @usableFromInline let log: ActionLog?
  @usableFromInline typealias Subscriptions = Locked<(next: UInt64, active: [UInt64: StoreSubscription])>
  /// The host's subscriptions by token (made by the first subscription).
  @usableFromInline let lazySubscriptions = AtomicLazyReference<Subscriptions>()
  @usableFromInline let actionCache = ActionCache<R.Action>()
  /// The whole-state JSON of the newest version encoded, shared by every reader (made on
  /// first use: a store nobody reads costs no memory for it).
  @usableFromInline let lazyStateCache = AtomicLazyReference<StateJSONCache>()
  /// Patches between versions (made by the first patch call or patch subscription).
  @usableFromInline let lazyPatches = AtomicLazyReference<PatchEngine<R.State>>()
  @usableFromInline let requests: HostRequests
  /// The operations C calls on this store (its feature's, shared by the feature's stores).
  @usableFromInline let table: HostStoreTable

  /// - Parameters:
  ///   - table: the feature's `makeTable()` (nil: a table of its own).
  ///   - recorder: the session recorder of a store created with `"record": true` (the store
  ///     logs its actions into the recorder's log).
  @inlinable
  init(
    initialState: R.State, reducer: R, options: StoreOptions, provided: [Feature.Endpoint],
    table: HostStoreTable? = nil, recorder: SessionRecorder? = nil
  ) {
    self.table = table ?? Self.makeTable()
    let clock = options.testClock ? TestClock() : nil
    let stateCache = recorder?.stateCache ?? (options.recordActions ? StateJSONCache() : nil)
    let log = recorder?.log ?? stateCache.map { ActionLog(stateCache: $0) }
    let requests = HostRequests(recorder: recorder)
    if let stateCache { _ = lazyStateCache.storeIfNil(stateCache) }
    self.clock = clock
    self.log = log
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
  }

  @inlinable var subscriptions: Subscriptions {
    lazySubscriptions.load() ?? lazySubscriptions.storeIfNil(Subscriptions((0, [:])))
  }

  @inlinable var stateCache: StateJSONCache {
    lazyStateCache.load() ?? lazyStateCache.storeIfNil(StateJSONCache())
  }

  @inlinable var patches: PatchEngine<R.State> {
    if let engine = lazyPatches.load() { return engine }
    return lazyPatches.storeIfNil(PatchEngine())
  }

  // The core's host API (`@_spi(Host)`) cannot be called from inlinable code: these thin,
  // cold wrappers call it; the hot work around them (decoding, encoding) stays specialized.

  @usableFromInline func currentState() -> (R.State, UInt64) {
    store.withCurrentState { ($0, $1) }
  }

  @usableFromInline func subscribeChanges(
    _ body: @escaping (R.State, UInt64) -> Void
  ) -> StoreSubscription {
    store.subscribeVersioned(deliverCurrent: false, body)
  }

  @usableFromInline var isHeldByCurrentThread: Bool { store.isHeldByCurrentThread }

  @usableFromInline func waitUntilIdle(timeoutNanoseconds: Int64) -> Bool {
    store.waitUntilIdle(timeoutNanoseconds: timeoutNanoseconds)
  }

  /// A store of a table made by `makeTable()` (`HostStoreBox.init` checks the pairing).
  @inlinable @inline(__always)
  static func of(_ store: HostStoreTable.Store) -> HostStore { unsafeDowncast(store, to: HostStore.self) }

  /// This store as the C ABI sees it.
  @inlinable
  func boxed() -> HostStoreBox {
    HostStoreBox(table: table, store: self, requests: requests)
  }

  /// The table of operations for stores of this type. Each closure is handed a store of this
  /// type only: `HostStoreBox.init` checks that a box pairs a table with its own store type.
  @inlinable
  static func makeTable() -> HostStoreTable {
    HostStoreTable(
      storeType: ObjectIdentifier(HostStore.self),
      send: { store, bytes throws(FFIError) in try of(store).send(bytes) },
      withStateJSON: { store, body throws(FFIError) in try of(store).withStateJSON(body) },
      get: { store, pointer throws(FFIError) in try of(store).get(pointer) },
      patch: { store, since throws(FFIError) in try of(store).patch(since: since) },
      version: { store in of(store).store.version },
      subscribe: { store, callback, userdata in of(store).subscribe(callback, userdata: userdata) },
      subscribePatches: { store, callback, userdata throws(FFIError) in
        try of(store).subscribePatches(callback, userdata: userdata)
      },
      unsubscribe: { store, token throws(FFIError) in try of(store).unsubscribe(token) },
      waitIdle: { store, timeout throws(FFIError) in try of(store).waitIdle(timeoutMilliseconds: timeout) },
      advanceClock: { store, milliseconds throws(FFIError) in try of(store).advanceClock(milliseconds: milliseconds) },
      takeActions: { store throws(FFIError) in try of(store).takeActions() },
      effectCount: { store in of(store).store.effectCount },
      settle: { store in of(store).settle() },
      destroy: { store in of(store).destroy() }
    )
  }

  @inlinable
  func send(_ json: UnsafeRawBufferPointer) throws(FFIError) {
    let cacheable = json.count <= ActionCache<R.Action>.maxKeyLength
    let hash = cacheable ? ActionCache<R.Action>.hash(json) : 0
    if cacheable, let action = actionCache.lookup(json, hash: hash) {
      store.send(.host(action))
      return
    }
    let action: R.Action
    do {
      action = try WireDecoder(rootNoun: "action").decode(R.Action.self, from: json)
    } catch {
      throw FFIError(error, otherwise: .action, context: nil)
    }
    if cacheable { actionCache.insert(json, hash: hash, action) }
    store.send(.host(action))
  }

  @inlinable
  func withStateJSON(_ body: HostStoreBox.BytesBody) throws(FFIError) {
    let (state, version) = currentState()
    let json = try stateCache.json(state, version: version)
    let failure: FFIError? = json.withUnsafeBytes { buffer in
      do throws(FFIError) {
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
  @inlinable
  func get(_ pointer: UnsafeRawBufferPointer?) throws(FFIError) -> (json: [UInt8], count: Int, version: UInt64) {
    let segments = try pointer.map { (bytes) throws(FFIError) in try JSONPointer.parse(bytes) } ?? []
    let (state, version) = currentState()
    if segments.isEmpty {
      let json = try stateCache.json(state, version: version)
      return (json, json.count - 1, version)
    }
    let json = try Navigator.json(of: state, at: segments)
    return (json, json.count, version)
  }

  /// `rk_store_patch`: the JSON Patch from `since` to the current version.
  @inlinable
  func patch(since: UInt64) throws(FFIError) -> (json: [UInt8], version: UInt64) {
    let (state, version) = currentState()
    switch try patches.patch(since: since, current: (state, version)) {
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
  func wholePatch(_ state: R.State, version: UInt64) throws(FFIError) -> [UInt8] {
    let whole = try stateCache.json(state, version: version)
    var json = Array(#"[{"op":"replace","path":"","value":"#.utf8)
    json.reserveCapacity(whole.count + 40)
    json.append(contentsOf: whole.dropLast())
    json.append(contentsOf: "}]".utf8)
    return json
  }

  @inlinable
  func subscribe(_ callback: StateCallback, userdata: UnsafeMutableRawPointer?) -> UInt64 {
    let address = UInt(bitPattern: userdata)
    let cache = stateCache
    // C hosts get changes only, not the state at registration.
    let subscription = subscribeChanges { (state: R.State, version) in
      guard let json = try? cache.json(state, version: version) else {
        reportToStandardError("ReducerKit: could not encode the state for a callback")
        return
      }
      Self.call(callback, address, json, count: json.count - 1, version: version)
    }
    return remember(subscription)
  }

  /// `rk_store_subscribe_patches`: `callback` gets the patch from the version it last saw
  /// (at first: the current version) after every delivery that changed the state.
  @inlinable
  func subscribePatches(_ callback: PatchCallback, userdata: UnsafeMutableRawPointer?) throws(FFIError) -> UInt64 {
    let address = UInt(bitPattern: userdata)
    let (state, version) = currentState()
    try patches.advance(to: state, version: version)
    let seen = SeenVersion(version)
    let subscription = subscribeChanges { (state: R.State, version) in
      do throws(FFIError) {
        let (json, to) = try self.patchForSubscriber(since: seen.version, state: state, version: version)
        guard to > seen.version else { return }
        seen.version = to
        guard let json else { return }  // nothing changed
        Self.call(callback, address, json, count: json.count - 1, version: to)
      } catch {
        reportToStandardError("ReducerKit: could not make the patch for a callback: \(error.message)")
      }
    }
    return remember(subscription)
  }

  /// The patch (NUL-terminated; nil when empty) from `since` to the newest version known.
  @inlinable
  func patchForSubscriber(since: UInt64, state: R.State, version: UInt64) throws(FFIError) -> ([UInt8]?, UInt64) {
    switch try patches.patch(since: since, current: (state, version)) {
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

  /// Calls a C callback with NUL-terminated `json` of `count` bytes.
  @inlinable
  static func call(
    _ callback: StateCallback, _ address: UInt, _ json: [UInt8], count: Int, version: UInt64
  ) {
    json.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
        callback(UnsafeMutableRawPointer(bitPattern: address), $0, count, version)
      }
    }
  }

  @inlinable
  func remember(_ subscription: StoreSubscription) -> UInt64 {
    subscriptions.withLock { table in
      table.next += 1
      table.active[table.next] = subscription
      return table.next
    }
  }

  @inlinable
  func unsubscribe(_ token: UInt64) throws(FFIError) {
    let subscription = subscriptions.withLock { $0.active.removeValue(forKey: token) }
    guard let subscription else {
      throw FFIError(.invalidArgument, "no subscription with token \(token) on this store")
    }
    subscription.cancel()
  }

  @inlinable
  func waitIdle(timeoutMilliseconds: Int64) throws(FFIError) {
    guard !requests.isCallingBackOnCurrentThread else { throw Self.waitInRequestCallback("rk_store_wait_idle") }
    guard !isHeldByCurrentThread else {
      throw FFIError(.misuse, "rk_store_wait_idle called from inside a reduce of the same store")
    }
    let nanoseconds: Int64
    if timeoutMilliseconds < 0 {
      nanoseconds = -1
    } else {
      let (product, overflow) = timeoutMilliseconds.multipliedReportingOverflow(by: 1_000_000)
      nanoseconds = overflow ? Int64.max : product
    }
    guard waitUntilIdle(timeoutNanoseconds: nanoseconds) else {
      throw FFIError(
        .timeout,
        "effects still running after \(timeoutMilliseconds) ms (\(store.effectCount) in flight)")
    }
  }

  @usableFromInline
  func advanceClock(milliseconds: Int64) throws(FFIError) {
    guard let clock else {
      throw FFIError(.misuse, "the store uses the live clock; create it with {\"clock\": \"test\"} to advance time")
    }
    guard milliseconds >= 0 else {
      throw FFIError(.invalidArgument, "milliseconds must be >= 0, got \(milliseconds)")
    }
    guard !requests.isCallingBackOnCurrentThread else { throw Self.waitInRequestCallback("rk_store_advance_clock") }
    guard !isHeldByCurrentThread else {
      throw FFIError(.misuse, "rk_store_advance_clock called from inside a reduce of the same store")
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
    throw FFIError(
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
  func settle() {
    guard clock != nil, !requests.isCallingBackOnCurrentThread, !isHeldByCurrentThread,
      !Self.isOnSwiftTask
    else { return }
    _ = store.waitUntilSettled(stallNanoseconds: settleStallNanoseconds)
  }

  /// Whether the calling thread runs a Swift task (blocking there could starve the pool).
  @usableFromInline static var isOnSwiftTask: Bool { withUnsafeCurrentTask { $0 != nil } }

  /// The error of a wait from inside a request callback, which would wait for itself.
  @usableFromInline
  static func waitInRequestCallback(_ function: String) -> FFIError {
    FFIError(
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
  func takeActions() throws(FFIError) -> [UInt8] {
    guard let log else {
      throw FFIError(.misuse, "the store does not record actions; create it with {\"record_actions\": true}")
    }
    return log.take()
  }

  @inlinable
  func destroy() {
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
