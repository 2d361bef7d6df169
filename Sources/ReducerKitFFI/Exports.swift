#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import CReducerKitShims
// A feature library imports this module for `Feature` and `FeatureRegistry` (the host runtime).
@_exported import ReducerKitHost
import ReducerKit
import ReducerKitWire
import Synchronization
import ReducerKitPlatform

/// The C callback type of `rk_store_subscribe` (`rk_state_callback`).
public typealias StateCallback = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int, UInt64) -> Void

/// The C callback type of `rk_store_subscribe_patches` (`rk_patch_callback`).
public typealias PatchCallback = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int, UInt64) -> Void

/// The C callback type of `rk_store_on_request` (`rk_request_callback`).
public typealias RequestCallback = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int) -> Void

// The C ABI of include/reducerkit.h. Every export catches and maps errors to a status; no Swift
// error or trap crosses the boundary.

/// Live stores by handle: a slot table. A handle encodes its slot and the serial number of the
/// create that filled it; serials are never reused, so a destroyed handle is always detected,
/// and a lookup is an index and a compare (no hashing).
private struct HandleTable {
  struct Slot {
    var serial: UInt = 0
    var box: HostStoreBox?
    var generation: UInt64 = 0
  }
  var serial: UInt = 0
  var slots: [Slot] = []
  var free: [Int] = []

  /// Handles look like aligned pointers but are only keys; the library never dereferences them.
  static let base: UInt = 0x5_2B00_0000
  static let slotBits = 24

  static func key(serial: UInt, slot: Int) -> UInt {
    base &+ ((serial << UInt(slotBits)) | UInt(slot)) &* 16
  }

  /// The slot and serial a handle names, if it has a handle's form.
  static func decode(_ key: UInt) -> (slot: Int, serial: UInt)? {
    guard key >= base, (key &- base) % 16 == 0 else { return nil }
    let index = (key &- base) / 16
    return (Int(index & ((1 << UInt(slotBits)) - 1)), index >> UInt(slotBits))
  }

  mutating func insert(_ box: HostStoreBox, generation: UInt64) throws(HostError) -> UInt {
    let slot: Int
    if let reused = free.popLast() {
      slot = reused
    } else {
      guard slots.count < 1 << Self.slotBits else {
        throw HostError(.misuse, "too many live stores (\(slots.count)); destroy stores you no longer use")
      }
      slot = slots.count
      slots.append(Slot())
    }
    serial &+= 1
    slots[slot] = Slot(serial: serial, box: box, generation: generation)
    return Self.key(serial: serial, slot: slot)
  }

  /// The slot index of a live handle.
  func index(_ key: UInt) -> Int? {
    guard let (slot, serial) = Self.decode(key), slot < slots.count, slots[slot].serial == serial,
      slots[slot].box != nil
    else { return nil }
    return slot
  }

  func find(_ key: UInt) -> Slot? { index(key).map { slots[$0] } }

  /// The store of a live handle made in fork generation `generation`: nil if the handle is
  /// not live or was made in another generation (`lookup` then tells which). The hot path of
  /// every call: the box only, not the whole slot, leaves the lock.
  @inline(__always)
  func box(_ key: UInt, generation: UInt64) -> HostStoreBox? {
    let index = (key &- Self.base) >> 4  // `decode`, one branch
    let slot = Int(bitPattern: index & ((1 << UInt(Self.slotBits)) - 1))
    guard key >= Self.base, key & 15 == Self.base & 15, slot < slots.count else { return nil }
    return slots.withUnsafeBufferPointer { slots in
      let found = slots.baseAddress.unsafelyUnwrapped + slot
      return found.pointee.serial == index >> UInt(Self.slotBits) && found.pointee.generation == generation
        ? found.pointee.box : nil
    }
  }

  mutating func remove(_ key: UInt) -> Slot? {
    guard let slot = index(key) else { return nil }
    defer {
      slots[slot] = Slot()
      free.append(slot)
    }
    return slots[slot]
  }
}

private let handles = LockedValue(HandleTable())

private func lookup(_ store: OpaquePointer?) throws(HostError) -> HostStoreBox {
  guard let store else { throw HostError(.invalidArgument, "store is NULL") }
  let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(store)))
  // A live handle was made by `rk_store_create`, which installed the fork handler first (and
  // the table's lock orders that before this read), so the generation is read without
  // `pthread_once`. The slow path below only says why a handle is not usable.
  let generation = rk_shim_fork_generation_installed()
  if let box = handles.withLock({ $0.box(key, generation: generation) }) { return box }
  return try lookupFailed(store, key)
}

/// Why `lookup` found no usable store for `key`: destroyed or never made, or made before a fork.
@inline(never)
private func lookupFailed(_ store: OpaquePointer, _ key: UInt) throws(HostError) -> HostStoreBox {
  guard let found = handles.withLock({ $0.find(key) }), let box = found.box else {
    throw HostError(.invalidHandle, "store \(UnsafeRawPointer(store)) was destroyed or never created")
  }
  guard found.generation == rk_shim_fork_generation() else { throw forkedStoreError(store) }
  return box
}

/// Stores of a parent process destroyed in a fork child: never released (see rk_store_destroy).
private let forkedAway = LockedValue<[HostStoreBox]>([])

/// A store made before this process was forked: its effects' threads are not in the child.
private func forkedStoreError(_ store: OpaquePointer) -> HostError {
  HostError(
    .misuse,
    "store \(UnsafeRawPointer(store)) was created before this process forked; its effects "
      + "cannot run in the child. Create stores after forking (Python multiprocessing: the "
      + "'spawn' or 'forkserver' start method, or create the store in the child)")
}

private let versionString: StaticString = "0.2.0"

@_cdecl("rk_version")
public func rk_version() -> UnsafePointer<CChar> {
  UnsafeRawPointer(versionString.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("rk_abi_version")
public func rk_abi_version() -> Int32 { 1 }

private let unknownStatus: StaticString = "unknown status"

@_cdecl("rk_status_string")
public func rk_status_string(_ status: Int32) -> UnsafePointer<CChar> {
  let text = HostStatus(rawValue: status)?.staticText ?? unknownStatus
  return UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("rk_last_error")
public func rk_last_error() -> UnsafePointer<CChar> { lastErrorPointer() }

@_cdecl("rk_free")
public func rk_free(_ pointer: UnsafeMutableRawPointer?) { free(pointer) }

@_cdecl("rk_features")
public func rk_features(
  _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
  _ outLength: UnsafeMutablePointer<Int>?
) -> Int32 {
  ffiCall { () throws(HostError) in
    guard let outJSON else { throw HostError(.invalidArgument, "out_json is NULL") }
    let list = JSONValue.array(FeatureRegistry.all.map { $0.describe() })
    let bytes = list.serializedBytes()
    try copyOut(bytes, outJSON, outLength)
  }
}

@_cdecl("rk_store_create")
public func rk_store_create(
  _ feature: UnsafePointer<CChar>?,
  _ optionsJSON: UnsafePointer<CChar>?,
  _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  ffiCall { () throws(HostError) in
    guard let feature else { throw HostError(.invalidArgument, "feature is NULL") }
    guard let out else { throw HostError(.invalidArgument, "out is NULL") }
    let name = String(decoding: UnsafeRawBufferPointer(start: feature, count: strlen(feature)), as: UTF8.self)
    guard let found = FeatureRegistry.feature(named: name) else {
      let names = FeatureRegistry.all.map(\.name)
      throw HostError(
        .unknownFeature,
        "unknown feature \(WireMessage.quoted(name))\(WireMessage.didYouMean(name, among: names)); expected one of: "
          + (names.isEmpty ? "(none registered)" : WireMessage.listed(names.map(WireMessage.quoted))))
    }
    var options = try StoreOptions(
      parsing: optionsJSON.map { UnsafeRawBufferPointer(start: $0, count: strlen($0)) })
    defer { options.release() }
    let generation = rk_shim_fork_generation()
    let store = try found.makeStore(options)
    let key: UInt
    do throws(HostError) {
      key = try handles.withLock { (table) throws(HostError) in try table.insert(store, generation: generation) }
    } catch {
      store.table.run.destroy(store.store)
      throw error
    }
    out.pointee = OpaquePointer(bitPattern: key)
  }
}

@_cdecl("rk_store_destroy")
public func rk_store_destroy(_ store: OpaquePointer?) {
  guard let store else { return }
  let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(store)))
  guard let removed = handles.withLock({ $0.remove(key) }), let box = removed.box else {
    setLastError("rk_store_destroy: store \(UnsafeRawPointer(store)) was destroyed or never created")
    return
  }
  // In a fork child, a store from the parent is only forgotten, and kept from deinitializing:
  // its effects' threads, and whatever locks they held at the fork, are not in this process.
  guard removed.generation == rk_shim_fork_generation() else {
    forkedAway.withLock { $0.append(box) }
    return
  }
  box.table.run.destroy(box.store)
}

@_cdecl("rk_store_send")
public func rk_store_send(_ store: OpaquePointer?, _ actionJSON: UnsafePointer<CChar>?) -> Int32 {
  // `ffiCall` written out: the hot path of every host, without a closure call around it.
  do throws(HostError) {
    let host = try lookup(store)
    guard let actionJSON else { throw HostError(.invalidArgument, "action_json is NULL") }
    try host.send(UnsafeRawBufferPointer(start: actionJSON, count: strlen(actionJSON)))
    return HostStatus.ok.rawValue
  } catch {
    return ffiFailed(error)
  }
}

@_cdecl("rk_store_send_n")
public func rk_store_send_n(_ store: OpaquePointer?, _ actionJSON: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    guard let actionJSON else { throw HostError(.invalidArgument, "action_json is NULL") }
    guard length >= 0 else { throw HostError(.invalidArgument, "len is too large") }
    try host.send(UnsafeRawBufferPointer(start: actionJSON, count: length))
  }
}

@_cdecl("rk_store_state")
public func rk_store_state(
  _ store: OpaquePointer?,
  _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
  _ outLength: UnsafeMutablePointer<Int>?
) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    guard let outJSON else { throw HostError(.invalidArgument, "out_json is NULL") }
    try host.table.run.withStateJSON(host.store) { (bytes) throws(HostError) in try copyOut(bytes, outJSON, outLength) }
  }
}

@_cdecl("rk_store_get")
public func rk_store_get(
  _ store: OpaquePointer?,
  _ pointer: UnsafePointer<CChar>?,
  _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
  _ outLength: UnsafeMutablePointer<Int>?,
  _ outVersion: UnsafeMutablePointer<UInt64>?
) -> Int32 {
  do throws(HostError) {  // `ffiCall` written out, as in rk_store_send
    let host = try lookup(store)
    guard let outJSON else { throw HostError(.invalidArgument, "out_json is NULL") }
    var bytes: UnsafeRawBufferPointer? = nil
    if let pointer { bytes = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)) }
    let (json, count, version) = try host.get(bytes)
    try copyOut(json, count: count, outJSON, outLength)
    outVersion?.pointee = version
    return HostStatus.ok.rawValue
  } catch {
    return ffiFailed(error)
  }
}

@_cdecl("rk_store_patch")
public func rk_store_patch(
  _ store: OpaquePointer?,
  _ sinceVersion: UInt64,
  _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
  _ outLength: UnsafeMutablePointer<Int>?,
  _ outVersion: UnsafeMutablePointer<UInt64>?
) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    guard let outJSON else { throw HostError(.invalidArgument, "out_json is NULL") }
    let (json, version) = try host.table.run.patch(host.store, sinceVersion)
    try copyOut(json, outJSON, outLength)
    outVersion?.pointee = version
  }
}

@_cdecl("rk_store_subscribe_patches")
public func rk_store_subscribe_patches(
  _ store: OpaquePointer?,
  _ callback: PatchCallback?,
  _ userdata: UnsafeMutableRawPointer?,
  _ outToken: UnsafeMutablePointer<UInt64>?
) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    guard let callback else { throw HostError(.invalidArgument, "cb is NULL") }
    guard let outToken else { throw HostError(.invalidArgument, "out_token is NULL") }
    outToken.pointee = try host.table.run.subscribePatches(host.store, sink(callback, userdata))
  }
}

@_cdecl("rk_store_version")
public func rk_store_version(_ store: OpaquePointer?, _ outVersion: UnsafeMutablePointer<UInt64>?) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    guard let outVersion else { throw HostError(.invalidArgument, "out_version is NULL") }
    outVersion.pointee = host.table.run.version(host.store)
  }
}

@_cdecl("rk_store_subscribe")
public func rk_store_subscribe(
  _ store: OpaquePointer?,
  _ callback: StateCallback?,
  _ userdata: UnsafeMutableRawPointer?,
  _ outToken: UnsafeMutablePointer<UInt64>?
) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    guard let callback else { throw HostError(.invalidArgument, "cb is NULL") }
    guard let outToken else { throw HostError(.invalidArgument, "out_token is NULL") }
    outToken.pointee = host.table.run.subscribe(host.store, sink(callback, userdata))
  }
}

@_cdecl("rk_store_unsubscribe")
public func rk_store_unsubscribe(_ store: OpaquePointer?, _ token: UInt64) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    try host.table.run.unsubscribe(host.store, token)
  }
}

@_cdecl("rk_store_wait_idle")
public func rk_store_wait_idle(_ store: OpaquePointer?, _ timeoutMilliseconds: Int64) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    try host.table.run.waitIdle(host.store, timeoutMilliseconds)
  }
}

@_cdecl("rk_store_advance_clock")
public func rk_store_advance_clock(_ store: OpaquePointer?, _ milliseconds: Int64) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    try host.table.run.advanceClock(host.store, milliseconds)
  }
}

@_cdecl("rk_store_take_actions")
public func rk_store_take_actions(
  _ store: OpaquePointer?,
  _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
  _ outLength: UnsafeMutablePointer<Int>?
) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    guard let outJSON else { throw HostError(.invalidArgument, "out_json is NULL") }
    let bytes = try host.table.run.takeActions(host.store)
    try copyOut(bytes, outJSON, outLength)
  }
}

@_cdecl("rk_store_scenario")
public func rk_store_scenario(
  _ store: OpaquePointer?,
  _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
  _ outLength: UnsafeMutablePointer<Int>?
) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    guard let outJSON else { throw HostError(.invalidArgument, "out_json is NULL") }
    try copyOut(host.scenario(), outJSON, outLength)
  }
}

@_cdecl("rk_store_snapshot")
public func rk_store_snapshot(
  _ store: OpaquePointer?,
  _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
  _ outLength: UnsafeMutablePointer<Int>?
) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    guard let outJSON else { throw HostError(.invalidArgument, "out_json is NULL") }
    try copyOut(host.table.run.snapshot(host.store), outJSON, outLength)
  }
}

@_cdecl("rk_store_effect_count")
public func rk_store_effect_count(_ store: OpaquePointer?, _ outCount: UnsafeMutablePointer<UInt64>?) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    guard let outCount else { throw HostError(.invalidArgument, "out_count is NULL") }
    outCount.pointee = UInt64(host.table.run.effectCount(host.store))
  }
}

// MARK: - Host requests

@_cdecl("rk_store_on_request")
public func rk_store_on_request(
  _ store: OpaquePointer?, _ callback: RequestCallback?, _ userdata: UnsafeMutableRawPointer?
) -> Int32 {
  ffiCall { () throws(HostError) in
    try lookup(store).requests.setCallback(callback.map { requestSink($0, userdata) })
  }
}

@_cdecl("rk_store_take_requests")
public func rk_store_take_requests(
  _ store: OpaquePointer?,
  _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
  _ outLength: UnsafeMutablePointer<Int>?
) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    guard let outJSON else { throw HostError(.invalidArgument, "out_json is NULL") }
    try copyOut(host.requests.take(), outJSON, outLength)
  }
}

@_cdecl("rk_store_request_fd")
public func rk_store_request_fd(_ store: OpaquePointer?, _ outFD: UnsafeMutablePointer<Int32>?) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    guard let outFD else { throw HostError(.invalidArgument, "out_fd is NULL") }
    outFD.pointee = try host.requests.fileDescriptor()
  }
}

@_cdecl("rk_store_resolve")
public func rk_store_resolve(
  _ store: OpaquePointer?, _ requestID: UInt64, _ responseJSON: UnsafePointer<CChar>?
) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    guard let responseJSON else { throw HostError(.invalidArgument, "response_json is NULL") }
    try host.requests.resolve(
      requestID, UnsafeRawBufferPointer(start: responseJSON, count: strlen(responseJSON)),
      inline: host.run.canResumeEffectsInline(host.store))
    host.table.run.settle(host.store)
  }
}

@_cdecl("rk_store_fail")
public func rk_store_fail(
  _ store: OpaquePointer?, _ requestID: UInt64, _ message: UnsafePointer<CChar>?
) -> Int32 {
  ffiCall { () throws(HostError) in
    let host = try lookup(store)
    var text = ""
    if let message {
      // The header's contract: UTF-8. Anything else is refused, and the request stays pending.
      let bytes = UnsafeRawBufferPointer(start: message, count: strlen(message))
      if let offset = _firstInvalidUTF8Offset(bytes) {
        throw HostError(.invalidArgument, "message is not valid UTF-8 (byte \(offset))")
      }
      text = String(decoding: bytes, as: UTF8.self)
    }
    try host.requests.fail(requestID, message: text, inline: host.run.canResumeEffectsInline(host.store))
    host.table.run.settle(host.store)
  }
}

/// The offset of the first byte of `bytes` that does not start a valid UTF-8 sequence, or nil.
private func _firstInvalidUTF8Offset(_ bytes: UnsafeRawBufferPointer) -> Int? {
  var offset = 0
  var parser = Unicode.UTF8.ForwardParser()
  var iterator = bytes.makeIterator()
  while true {
    switch parser.parseScalar(from: &iterator) {
    case .valid(let encoded): offset += encoded.count
    case .emptyInput: return nil
    case .error: return offset
    }
  }
}

// MARK: - Scenario files (the format's one definition: Scenarios/)

@_cdecl("rk_scenario_parse")
public func rk_scenario_parse(
  _ json: UnsafePointer<CChar>?,
  _ length: Int,
  _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
  _ outLength: UnsafeMutablePointer<Int>?
) -> Int32 {
  ffiCall { () throws(HostError) in
    guard let json else { throw HostError(.invalidArgument, "json is NULL") }
    guard let outJSON else { throw HostError(.invalidArgument, "out_json is NULL") }
    guard length >= 0 else { throw HostError(.invalidArgument, "len is too large") }
    let text: [UInt8]
    do throws(ScenarioFormat.Failure) {
      text = try ScenarioFormat.normalFormText(of: UnsafeRawBufferPointer(start: json, count: length))
    } catch {
      throw HostError(error.kind == .json ? .json : .invalidArgument, error.message)
    }
    try copyOut(text, outJSON, outLength)
  }
}

@_cdecl("rk_json_match")
public func rk_json_match(
  _ expected: UnsafePointer<CChar>?,
  _ expectedLength: Int,
  _ actual: UnsafePointer<CChar>?,
  _ actualLength: Int,
  _ outEqual: UnsafeMutablePointer<Int32>?,
  _ outDiff: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
  _ outDiffLength: UnsafeMutablePointer<Int>?
) -> Int32 {
  ffiCall { () throws(HostError) in
    guard let expected else { throw HostError(.invalidArgument, "expected is NULL") }
    guard let actual else { throw HostError(.invalidArgument, "actual is NULL") }
    guard let outEqual else { throw HostError(.invalidArgument, "out_equal is NULL") }
    guard expectedLength >= 0, actualLength >= 0 else { throw HostError(.invalidArgument, "a length is too large") }
    func parse(_ text: UnsafePointer<CChar>, _ count: Int, _ which: String) throws(HostError) -> JSONValue {
      do {
        return try parseJSON(UnsafeRawBufferPointer(start: text, count: count), maxDepth: jsonMaxDepthLimit)
      } catch {
        throw HostError(.json, "\(which): \(error.message)")
      }
    }
    var wanted = try parse(expected, expectedLength, "expected")
    defer { wanted.releaseIteratively() }
    var got = try parse(actual, actualLength, "actual")
    defer { got.releaseIteratively() }
    let description = JSONMatch.describe(expected: wanted, actual: got)
    if let outDiff {
      if let description {
        try copyOut(Array(description.utf8), outDiff, outDiffLength)
      } else {
        outDiff.pointee = nil
        outDiffLength?.pointee = 0
      }
    }
    outEqual.pointee = description == nil ? 1 : 0
  }
}

// MARK: - C callback adapters

/// The C state or patch callback `callback` with `userdata`, as the host runtime's sink.
private func sink(_ callback: StateCallback, _ userdata: UnsafeMutableRawPointer?) -> JSONSink {
  let address = UInt(bitPattern: userdata)
  return { json, count, version in callback(UnsafeMutableRawPointer(bitPattern: address), json, count, version) }
}

/// The C request callback `callback` with `userdata`, as the host runtime's sink.
private func requestSink(_ callback: RequestCallback, _ userdata: UnsafeMutableRawPointer?) -> RequestSink {
  let address = UInt(bitPattern: userdata)
  return { event, count in callback(UnsafeMutableRawPointer(bitPattern: address), event, count) }
}
