import ReducerKitWire
import ReducerKitPlatform

// Recording a store's session as a scenario: the create option `"record": true` and
// `rk_store_scenario` (format: Tests/scenarios/README.md).
//
// A recorded store gets a table of its own (`table(wrapping:)`) whose send and clock advance
// tell the recorder, so stores created without the option pay nothing for it. The recorder
// reads the store's action log (`ActionLog`: each reduced action, its origin and the state
// after it, encoded once) and is told of each host-request event as it is emitted and of
// each answer before it is applied (`HostRequests`). Before it appends a step it takes the
// action log, so the steps come out in the order things happened: a request after the send
// that caused it, an answer before the action it lets the effect send.
//
// Lock order: the request monitor, then the recorder's lock, then the action log's. The
// recorder never calls into the store while it holds its lock.

/// Records what a store does as scenario steps, for `rk_store_scenario`.
@usableFromInline
package final class SessionRecorder: Sendable {
  /// The store's action log and the state cache it offers its encodings to.
  @usableFromInline package let stateCache: StateJSONCache
  @usableFromInline package let log: ActionLog
  let feature: String
  /// `"options"` of the scenario: the creation options without `record`/`record_actions`.
  let options: [UInt8]
  let testClock: Bool
  /// Whether the host asked for `"record_actions"` too (`rk_store_take_actions`).
  let userRecords: Bool
  private let book: LockedValue<Book>

  struct Book {
    /// Each step without its closing brace (an answer may get an `"error"` member later);
    /// nil: discarded (a clock advance that failed).
    var steps: [[UInt8]?] = []
    /// The state after the last step (to leave `"state"` out when it did not change).
    var state: [UInt8]
    /// The log's records not taken yet by `rk_store_take_actions`, comma-separated.
    var userRecords: [UInt8] = []
  }

  @usableFromInline
  package init(feature: String, options: StoreOptions, initialState: [UInt8]) {
    stateCache = StateJSONCache()
    log = ActionLog(stateCache: stateCache)
    self.feature = feature
    testClock = options.testClock
    userRecords = options.recordActions
    var json = Array(#"{"clock":"#.utf8)
    json.append(contentsOf: (options.testClock ? #""test""# : #""live""#).utf8)
    if let initial = options.initialState {
      json.append(contentsOf: #","initial_state":"#.utf8)
      Self.write(initial, into: &json)
    }
    if !options.provide.isEmpty {
      json.append(contentsOf: #","provide":"#.utf8)
      Self.write(.array(options.provide.map { .string($0) }), into: &json)
    }
    json.append(UInt8(ascii: "}"))
    self.options = json
    book = LockedValue(Book(state: initialState))
  }

  // MARK: The store's table

  /// `base` (the feature's table) with send, clock advance and `rk_store_take_actions` going
  /// through this recorder.
  @usableFromInline
  package func table(wrapping base: HostStoreTable) -> HostStoreTable {
    var run = base.run
    run.send = { store, bytes throws(HostError) in try self.send(bytes, to: store, base) }
    run.advanceClock = { store, milliseconds throws(HostError) in try self.advance(milliseconds, store, base) }
    run.takeActions = { _ throws(HostError) in try self.takeUserRecords() }
    return HostStoreTable(storeType: base.storeType, run)
  }

  /// On the test clock, lets effects an answer resumed finish (or sleep on the clock) before
  /// the next step, so the steps come out in the order a replay waits for them (the store's
  /// `settle`: bounded by progress, not by wall time; it does not wait where waiting is not
  /// allowed, inside a request callback).
  private func settle(_ store: HostStoreTable.Store, _ base: HostStoreTable) {
    guard testClock else { return }
    base.run.settle(store)
  }

  private func send(_ bytes: UnsafeRawBufferPointer, to store: HostStoreTable.Store, _ base: HostStoreTable) throws(HostError) {
    settle(store, base)
    do {
      try base.run.send(store, bytes)
    } catch {
      // A refused action a replay can send again (it is JSON) is a step that expects the error.
      if error.status == .action || error.status == .json, let action = Self.compactJSON(bytes) {
        var step = Array(#"{"send":"#.utf8)
        step.append(contentsOf: action)
        step.append(contentsOf: Self.errorMember(error))
        append(step)
      }
      throw error
    }
  }

  private func advance(_ milliseconds: Int64, _ store: HostStoreTable.Store, _ base: HostStoreTable) throws(HostError) {
    guard testClock, milliseconds >= 0 else { return try base.run.advanceClock(store, milliseconds) }  // refused
    settle(store, base)
    let index = append(Array(#"{"advance_ms":\#(milliseconds)"#.utf8))
    do {
      try base.run.advanceClock(store, milliseconds)
    } catch {
      book.withLock { $0.steps[index] = nil }
      throw error
    }
  }

  private func takeUserRecords() throws(HostError) -> [UInt8] {
    guard userRecords else {
      throw HostError(.misuse, "the store does not record actions; create it with {\"record_actions\": true}")
    }
    return book.withLock { book in
      drain(&book)
      defer { book.userRecords = [] }
      return [UInt8(ascii: "[")] + book.userRecords + [UInt8(ascii: "]")]
    }
  }

  // MARK: Host requests (called by `HostRequests`)

  /// A request or cancellation event, as it is emitted (under the request monitor).
  func hostEvent(_ event: [UInt8]) {
    // `{"id":N,"cancelled":true}` or `{"id":N,"name":…,"payload":…}` (HostRequests' encoding).
    let prefix = Array(#"{"id":"#.utf8)
    var end = prefix.count
    while end < event.count, event[end] >= UInt8(ascii: "0"), event[end] <= UInt8(ascii: "9") { end += 1 }
    var step: [UInt8]
    if event[end...].starts(with: #","cancelled":true}"#.utf8) {
      step = Array(#"{"cancelled":"#.utf8)
      step.append(contentsOf: event[prefix.count..<end])
    } else {
      step = Array(#"{"request":"#.utf8)
      step.append(contentsOf: event)
    }
    append(step)
  }

  /// The step of `rk_store_resolve(id, bytes)`, without its closing brace; nil when `bytes`
  /// is not JSON (a replay could not send it).
  static func resolveStep(_ id: UInt64, _ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
    guard let response = compactJSON(bytes) else { return nil }
    var step = Array(#"{"resolve":\#(id),"response":"#.utf8)
    step.append(contentsOf: response)
    return step
  }

  /// The step of `rk_store_fail(id, message)`, without its closing brace.
  static func failStep(_ id: UInt64, _ message: String) -> [UInt8] {
    var step = Array(#"{"fail":\#(id),"message":"#.utf8)
    step.append(contentsOf: JSONValue.string(message).serializedBytes())
    return step
  }

  /// Records an answer step with the error the call returns (nil: accepted). Called by
  /// `HostRequests` under its monitor at the moment the answer is accepted or refused, so
  /// the steps keep that order.
  func recordAnswer(_ step: [UInt8], error: HostError?) {
    var step = step
    if let error { step.append(contentsOf: Self.errorMember(error)) }
    append(step)
  }

  // MARK: Steps

  /// Appends `step` (without its closing brace) after the actions reduced so far; returns
  /// its index.
  @discardableResult
  private func append(_ step: [UInt8]) -> Int {
    book.withLock { book in
      drain(&book)
      book.steps.append(step)
      return book.steps.count - 1
    }
  }

  /// Turns the actions logged since the last call into send/receive steps.
  private func drain(_ book: inout Book) {
    let records = log.take()
    guard records.count > 2 else { return }
    let keep = userRecords
    if keep {
      if !book.userRecords.isEmpty { book.userRecords.append(UInt8(ascii: ",")) }
      book.userRecords.append(contentsOf: records[1..<(records.count - 1)])
    }
    LogRecords.forEach(in: records) { action, origin, state in
      var step = Array((origin == .host ? #"{"send":"# : #"{"receive":"#).utf8)
      step.append(contentsOf: action)
      if !state.elementsEqual(book.state) {
        step.append(contentsOf: #","state":"#.utf8)
        step.append(contentsOf: state)
        book.state = Array(state)
      }
      book.steps.append(step)
    }
  }

  /// The scenario document: everything recorded so far, `{"finish": true}` when `idle` (no
  /// effect running, sleeping or waiting for an answer), and the state after the last step.
  func document(idle: Bool) -> [UInt8] {
    book.withLock { book in
      drain(&book)
      var json = Array(#"{"name":"#.utf8)
      json.append(contentsOf: JSONValue.string("a recorded session of \(feature)").serializedBytes())
      json.append(contentsOf: #","feature":"#.utf8)
      json.append(contentsOf: JSONValue.string(feature).serializedBytes())
      json.append(contentsOf: #","options":"#.utf8)
      json.append(contentsOf: options)
      json.append(contentsOf: #","steps":["#.utf8)
      var first = true
      for case let step? in book.steps {
        if !first { json.append(UInt8(ascii: ",")) }
        first = false
        json.append(contentsOf: step)
        json.append(UInt8(ascii: "}"))
      }
      if idle { json.append(contentsOf: (first ? #"{"finish":true}"# : #",{"finish":true}"#).utf8) }
      json.append(contentsOf: #"],"final_state":"#.utf8)
      json.append(contentsOf: book.state)
      json.append(UInt8(ascii: "}"))
      return json
    }
  }

  // MARK: JSON helpers

  /// `,"error":{"status":"RK_ERR_…","message":…}}` without the step's closing brace.
  static func errorMember(_ error: HostError) -> [UInt8] {
    let name = error.status.staticText.description.prefix { $0 != ":" }  // "RK_ERR_ACTION"
    var member = Array(#","error":{"status":"#.utf8)
    member.append(contentsOf: JSONValue.string(String(name)).serializedBytes())
    member.append(contentsOf: #","message":"#.utf8)
    member.append(contentsOf: JSONValue.string(error.message).serializedBytes())
    member.append(UInt8(ascii: "}"))
    return member
  }

  /// `bytes` as compact JSON, or nil if it is not JSON (as the library reads it) or holds
  /// what no scenario may hold: a number with a fraction or exponent beyond the range of a
  /// double (`1e400`; the scenario format refuses it, so the recording would not replay).
  static func compactJSON(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
    guard var value = try? parseJSON(bytes) else { return nil }
    defer { value.releaseIteratively() }
    var json: [UInt8] = []
    guard write(value, into: &json) else { return nil }
    return json
  }

  /// Writes `value` as compact JSON without recursion (a value may be nested 512 deep, and
  /// the calling thread's stack may be small). False if it holds a number with a fraction or
  /// exponent beyond the range of a double, which no scenario may hold.
  @discardableResult
  static func write(_ value: JSONValue, into json: inout [UInt8]) -> Bool {
    var scenarioCanHoldIt = true
    enum Frame {
      case array([JSONValue], Int)
      case object([(key: String, value: JSONValue)], Int)
    }
    var stack: [Frame] = []
    var next: JSONValue? = value
    while true {
      if let current = next {
        next = nil
        switch current {
        case let .array(elements):
          json.append(UInt8(ascii: "["))
          stack.append(.array(elements, 0))
        case let .object(members):
          json.append(UInt8(ascii: "{"))
          stack.append(.object(members, 0))
        case let .number(text) where current._inexactDouble == nil
          && text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }):
          scenarioCanHoldIt = false  // beyond a double
          json.append(contentsOf: current.serializedBytes())
        default:
          json.append(contentsOf: current.serializedBytes())
        }
      }
      guard let top = stack.popLast() else { return scenarioCanHoldIt }
      switch top {
      case let .array(elements, index):
        guard index < elements.count else {
          json.append(UInt8(ascii: "]"))
          continue
        }
        if index > 0 { json.append(UInt8(ascii: ",")) }
        stack.append(.array(elements, index + 1))
        next = elements[index]
      case let .object(members, index):
        guard index < members.count else {
          json.append(UInt8(ascii: "}"))
          continue
        }
        if index > 0 { json.append(UInt8(ascii: ",")) }
        json.append(contentsOf: JSONValue.string(members[index].key).serializedBytes())
        json.append(UInt8(ascii: ":"))
        stack.append(.object(members, index + 1))
        next = members[index].value
      }
    }
  }
}

/// Reads the action log's JSON (`ActionLog.take()`) without parsing the actions and states:
/// `[{"action":A,"origin":"host","version":N,"state":S},…]`, as `ActionLog.record` writes it
/// (compact, from the wire encoder).
enum LogRecords {
  enum Origin { case host, effect }

  /// Calls `body` with the action's and the state's JSON and the origin of each record, in
  /// order. Stops at anything it does not expect (which `ActionLog` does not write).
  static func forEach(
    in log: [UInt8], _ body: (ArraySlice<UInt8>, Origin, ArraySlice<UInt8>) -> Void
  ) {
    var i = 1  // after "["
    while i < log.count, log[i] != UInt8(ascii: "]") {
      if log[i] == UInt8(ascii: ",") { i += 1 }
      guard expect(#"{"action":"#, in: log, at: &i), let actionEnd = valueEnd(log, from: i) else { return }
      let action = log[i..<actionEnd]
      i = actionEnd
      let origin: Origin
      if expect(#","origin":"host""#, in: log, at: &i) {
        origin = .host
      } else if expect(#","origin":"effect""#, in: log, at: &i) {
        origin = .effect
      } else {
        return
      }
      guard expect(#","version":"#, in: log, at: &i) else { return }
      while i < log.count, log[i] >= UInt8(ascii: "0"), log[i] <= UInt8(ascii: "9") { i += 1 }
      guard expect(#","state":"#, in: log, at: &i), let stateEnd = valueEnd(log, from: i) else { return }
      let state = log[i..<stateEnd]
      i = stateEnd
      guard expect("}", in: log, at: &i) else { return }
      body(action, origin, state)
    }
  }

  private static func expect(_ literal: StaticString, in bytes: [UInt8], at i: inout Int) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard i + count <= bytes.count else { return false }
    let matches = literal.withUTF8Buffer { literal in bytes[i..<(i + count)].elementsEqual(literal) }
    if matches { i += count }
    return matches
  }

  /// The end (exclusive) of the compact JSON value at `start`, found without recursion.
  static func valueEnd(_ bytes: [UInt8], from start: Int) -> Int? {
    var i = start
    var depth = 0
    while i < bytes.count {
      switch bytes[i] {
      case UInt8(ascii: "\""):
        i += 1
        while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
          i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1
        }
        guard i < bytes.count else { return nil }
        if depth == 0 { return i + 1 }
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        depth += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        if depth == 0 { return i }  // the end of a number or literal
        depth -= 1
        if depth == 0 { return i + 1 }
      case UInt8(ascii: ","):
        if depth == 0 { return i }
      default:
        break
      }
      i += 1
    }
    return depth == 0 && i > start ? i : nil
  }
}

extension HostStoreBox {
  /// `rk_store_scenario`: waits for effects to settle, then the scenario of
  /// everything the store did since it was created.
  package func scenario() throws(HostError) -> [UInt8] {
    guard let recorder = requests.recorder else {
      throw HostError(
        .misuse, "the store does not record its session; create it with {\"record\": true} to use rk_store_scenario")
    }
    // Not from inside a request callback or a reduce of this store (misuse): then it does not
    // wait, and the effect that is running leaves out `finish`. On the test clock the wait is
    // bounded by progress (`settle`); on the live clock, by 1 s of wall time.
    if recorder.testClock {
      run.settle(store)
    } else {
      do { try run.waitIdle(store, 1000) } catch {}
    }
    return recorder.document(idle: run.effectCount(store) == 0)
  }
}
