import Foundation
import ReducerKitExamples
@testable import ReducerKitHost
import ReducerKitFFI
import ReducerKitHostTesting
import ReducerKitTesting
import ReducerKitWire
import Testing

/// Recording a session through the C interface (`"record": true`, `rk_store_scenario`): the
/// document replays in the Swift runner; the recorder's JSON helpers.
@Suite struct RecordingTests {
  @Test func aSessionRecordedThroughTheCInterfaceReplaysInTheSwiftRunner() async throws {
    FeatureRegistry.register(ScenarioTests.features)
    // The C calls wait for effects (resolve's effect, the clock's timer), and effects run on
    // the concurrency pool: made on a thread of their own, so a loaded pool (parallel tests,
    // 2 cores) cannot starve the effects they wait for. Statuses are checked afterwards.
    let (statuses, text, length) = await Self.onOwnThread { () -> ([Int32], String, Int) in
      var statuses: [Int32] = []
      var store: OpaquePointer?
      statuses.append(rk_store_create("counter", #"{"clock":"test","provide":["numberFact"],"record":true}"#, &store))
      defer { rk_store_destroy(store) }
      statuses.append(rk_store_send(store, #""increment""#))
      statuses.append(rk_store_send(store, #""incremnt""#))
      statuses.append(rk_store_send(store, #""factButtonTapped""#))
      statuses.append(rk_store_resolve(store, 1, "1"))
      statuses.append(rk_store_resolve(store, 1, #""one""#))
      // The answered effect's action is reduced before the next step (a fixed order). The
      // limit is generous: with every suite running at once (under TSan too), the pool the
      // effect runs on can be busy for many seconds. (Timers recorded from C are replayed by
      // this runner through Tests/scenarios/*_recorded_c.scenario.json.)
      statuses.append(rk_store_wait_idle(store, 120_000))
      statuses.append(rk_store_send(store, #""decrement""#))
      var json: UnsafeMutablePointer<CChar>?
      var length = 0
      statuses.append(rk_store_scenario(store, &json, &length))
      let text = json.map { String(cString: $0) } ?? ""
      rk_free(json)
      return (statuses, text, length)
    }
    let action = HostStatus.action.rawValue
    let response = HostStatus.response.rawValue
    #expect(statuses == [0, 0, action, 0, response, 0, 0, 0, 0])
    #expect(text.utf8.count == length)
    #expect(text.contains(#"{"request":{"id":1,"name":"numberFact","payload":1}},{"resolve":1,"response":1,"error":"#))
    #expect(text.hasSuffix(#"{"finish":true}],"final_state":{"count":0,"fact":"one","isTimerOn":false}}"#))
    try await Scenario(json: text).run(features: ScenarioTests.features)
  }

  /// Runs `body` on a new thread and returns its result.
  static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      Thread.detachNewThread { continuation.resume(returning: body()) }
    }
  }

  @Test func logRecordsAreSplitWithoutParsing() {
    let log = Array(
      (#"[{"action":{"a":"x\"]},"},"origin":"host","version":1,"state":{"s":[1,{"t":"}\\"}],"n":-1.5e3}},"#
        + #"{"action":"b","origin":"effect","version":22,"state":7}]"#).utf8)
    var seen: [String] = []
    LogRecords.forEach(in: log) { action, origin, state in
      seen.append("\(String(decoding: action, as: UTF8.self)) \(origin) \(String(decoding: state, as: UTF8.self))")
    }
    #expect(seen == [#"{"a":"x\"]},"} host {"s":[1,{"t":"}\\"}],"n":-1.5e3}"#, #""b" effect 7"#])
  }

  @Test func valuesAreWrittenCompactAndWithoutRecursion() throws {
    let text = #"{"a":[1,2.5,"x\"y\u0001",null,true,{"b":{},"c":[]}],"d":18446744073709551616,"é":"ü"}"#
    var value = try parseJSON(text)
    var written: [UInt8] = []
    SessionRecorder.write(value, into: &written)
    #expect(written == value.serializedBytes())
    value.releaseIteratively()

    var deep = JSONValue.int(1)
    for level in 0..<100_000 { deep = level % 2 == 0 ? .array([deep]) : .object([(key: "k", value: deep)]) }
    var out: [UInt8] = []
    SessionRecorder.write(deep, into: &out)
    deep.releaseIteratively()
    #expect(out.count == 50_000 * (1 + 5) + 1 + 50_000 * 2)
    #expect(out.prefix(7) == Array("{\"k\":[{".utf8)[...])
    #expect(out.suffix(4) == Array("]}]}".utf8)[...])
  }
}
