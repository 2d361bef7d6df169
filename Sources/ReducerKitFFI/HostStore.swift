#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
@_spi(Internals) import ReducerKit
import ReducerKitWire
import Synchronization

/// The C callback type of `rk_store_subscribe` (`rk_state_callback`).
public typealias StateCallback = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int, UInt64) -> Void

/// A store as the C ABI sees it: JSON in, JSON out, whatever the feature's types.
protocol HostStoreProtocol: AnyObject, Sendable {
  func send(_ json: UnsafeRawBufferPointer) throws(FFIError)
  func withStateJSON(_ body: (UnsafeRawBufferPointer) throws(FFIError) -> Void) throws(FFIError)
  var version: UInt64 { get }
  func subscribe(_ callback: StateCallback, userdata: UnsafeMutableRawPointer?) -> UInt64
  func unsubscribe(_ token: UInt64) throws(FFIError)
  func waitIdle(timeoutMilliseconds: Int64) throws(FFIError)
  func advanceClock(milliseconds: Int64) throws(FFIError)
  func takeActions() throws(FFIError) -> [UInt8]
  var effectCount: Int { get }
  func destroy()
}

/// Whether the host or an effect sent an action.
enum HostAction<Action: Sendable>: Sendable {
  case host(Action)
  case effect(Action)
}

/// The log behind `rk_store_take_actions`: each reduced action with the state after it.
final class ActionLog: Sendable {
  private let entries = Mutex<(version: UInt64, json: [UInt8], count: Int)>((0, [], 0))

  func record<A: Encodable, S: Encodable>(_ action: A, origin: StaticString, state: S) {
    let encoder = WireEncoder()
    let actionJSON = (try? encoder.encode(action)) ?? Array("null".utf8)
    let stateJSON = (try? encoder.encode(state)) ?? Array("null".utf8)
    entries.withLock { log in
      log.version += 1
      log.json.append(contentsOf: log.count == 0 ? Array("{\"action\":".utf8) : Array(",{\"action\":".utf8))
      log.json.append(contentsOf: actionJSON)
      log.json.append(contentsOf: Array(",\"origin\":\"\(origin)\",\"version\":\(log.version),\"state\":".utf8))
      log.json.append(contentsOf: stateJSON)
      log.json.append(UInt8(ascii: "}"))
      log.count += 1
    }
  }

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
struct HostReducer<Base: Reducer>: Reducer
where Base.Action: Codable & Sendable, Base.State: Encodable {
  let base: Base
  let log: ActionLog?

  func reduce(into state: inout Base.State, action: HostAction<Base.Action>) -> Effect<HostAction<Base.Action>> {
    let effect: Effect<Base.Action>
    switch action {
    case let .host(action):
      effect = base.reduce(into: &state, action: action)
      log?.record(action, origin: "host", state: state)
    case let .effect(action):
      effect = base.reduce(into: &state, action: action)
      log?.record(action, origin: "effect", state: state)
    }
    return effect.isNone ? .none : effect.map { HostAction.effect($0) }
  }
}

/// How long `rk_store_advance_clock` waits for woken effects to settle, per step.
let advanceSettleNanoseconds: Int64 = 10_000_000_000

final class HostStore<R: Reducer>: HostStoreProtocol
where R.State: Codable & Sendable, R.Action: Codable & Sendable {
  let store: Store<R.State, HostAction<R.Action>>
  let clock: TestClock?
  let log: ActionLog?
  private let subscriptions = Mutex<(next: UInt64, active: [UInt64: StoreSubscription])>((0, [:]))
  private let decoder = WireDecoder(rootNoun: "action")

  init(initialState: R.State, reducer: R, options: StoreOptions) {
    let clock = options.testClock ? TestClock() : nil
    let log = options.recordActions ? ActionLog() : nil
    self.clock = clock
    self.log = log
    self.store = Store(
      initialState: initialState,
      reducer: HostReducer(base: reducer, log: log),
      withDependencies: { values in
        if let clock {
          values.continuousClock = clock
          values.suspendingClock = clock
        }
      }
    )
  }

  func send(_ json: UnsafeRawBufferPointer) throws(FFIError) {
    let action: R.Action
    do {
      action = try decoder.decode(R.Action.self, from: json)
    } catch {
      throw FFIError(error, otherwise: .action, context: nil)
    }
    store.send(.host(action))
  }

  func withStateJSON(_ body: (UnsafeRawBufferPointer) throws(FFIError) -> Void) throws(FFIError) {
    let state = store.withCurrentState { $0 }
    let encoded: Result<Void, FFIError>
    do {
      encoded = try WireEncoder().withEncodedBytes(state) { bytes in
        do throws(FFIError) {
          try body(bytes)
          return .success(())
        } catch {
          return .failure(error)
        }
      }
    } catch {
      throw FFIError(.internal, "encoding the state: \(error.message)")
    }
    try encoded.get()
  }

  var version: UInt64 { store.version }

  var effectCount: Int { store.effectCount }

  func subscribe(_ callback: StateCallback, userdata: UnsafeMutableRawPointer?) -> UInt64 {
    let address = UInt(bitPattern: userdata)
    var isFirst = true
    let subscription = store.subscribe { [store] (state: R.State) in
      if isFirst {  // the core delivers the current state at once; C hosts get changes only
        isFirst = false
        return
      }
      guard var bytes = try? WireEncoder().encode(state) else {
        _ = "ReducerKit: could not encode the state for a callback\n".withCString { fputs($0, stderr) }
        return
      }
      let count = bytes.count
      bytes.append(0)
      let version = store.version
      bytes.withUnsafeBufferPointer { buffer in
        buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
          callback(UnsafeMutableRawPointer(bitPattern: address), $0, count, version)
        }
      }
    }
    return subscriptions.withLock { table in
      table.next += 1
      table.active[table.next] = subscription
      return table.next
    }
  }

  func unsubscribe(_ token: UInt64) throws(FFIError) {
    let subscription = subscriptions.withLock { $0.active.removeValue(forKey: token) }
    guard let subscription else {
      throw FFIError(.invalidArgument, "no subscription with token \(token) on this store")
    }
    subscription.cancel()
  }

  func waitIdle(timeoutMilliseconds: Int64) throws(FFIError) {
    guard !store.isHeldByCurrentThread else {
      throw FFIError(.misuse, "rk_store_wait_idle called from inside a callback of the same store")
    }
    let nanoseconds = timeoutMilliseconds < 0 ? -1 : timeoutMilliseconds.multipliedReportingOverflow(by: 1_000_000)
      .overflow ? Int64.max : timeoutMilliseconds * 1_000_000
    guard store.waitUntilIdle(timeoutNanoseconds: nanoseconds) else {
      throw FFIError(
        .timeout,
        "effects still running after \(timeoutMilliseconds) ms (\(store.effectCount) in flight)")
    }
  }

  func advanceClock(milliseconds: Int64) throws(FFIError) {
    guard let clock else {
      throw FFIError(.misuse, "the store uses the live clock; create it with {\"clock\": \"test\"} to advance time")
    }
    guard milliseconds >= 0 else {
      throw FFIError(.invalidArgument, "milliseconds must be >= 0, got \(milliseconds)")
    }
    guard !store.isHeldByCurrentThread else {
      throw FFIError(.misuse, "rk_store_advance_clock called from inside a callback of the same store")
    }
    guard clock.advanceBlocking(by: .milliseconds(milliseconds), timeoutNanoseconds: advanceSettleNanoseconds) else {
      throw FFIError(.timeout, "effects woken by the clock did not settle within 10 s")
    }
  }

  func takeActions() throws(FFIError) -> [UInt8] {
    guard let log else {
      throw FFIError(.misuse, "the store does not record actions; create it with {\"record_actions\": true}")
    }
    return log.take()
  }

  func destroy() {
    let active = subscriptions.withLock { table in
      defer { table.active.removeAll() }
      return Array(table.active.values)
    }
    store.invalidate()
    for subscription in active { subscription.cancel() }
  }
}
