import ReducerKitExamples
@testable import ReducerKitFFI
import ReducerKitTesting
import ReducerKitWire
import Testing

/// Recording a session through the C interface (`"record": true`, `rk_store_scenario`): the
/// document replays in the Swift runner; the recorder's JSON helpers.
@Suite struct RecordingTests {
  @Test func aSessionRecordedThroughTheCInterfaceReplaysInTheSwiftRunner() async throws {
    FeatureRegistry.register(ScenarioTests.features)
    var store: OpaquePointer?
    #expect(rk_store_create("counter", #"{"clock":"test","provide":["numberFact"],"record":true}"#, &store) == 0)
    defer { rk_store_destroy(store) }
    #expect(rk_store_send(store, #""increment""#) == 0)
    #expect(rk_store_send(store, #""incremnt""#) == RKStatus.action.rawValue)
    #expect(rk_store_send(store, #""factButtonTapped""#) == 0)
    #expect(rk_store_resolve(store, 1, "1") == RKStatus.response.rawValue)
    #expect(rk_store_resolve(store, 1, #""one""#) == 0)
    #expect(rk_store_send(store, #""toggleTimer""#) == 0)
    #expect(rk_store_advance_clock(store, 1500) == 0)
    #expect(rk_store_send(store, #""toggleTimer""#) == 0)
    var json: UnsafeMutablePointer<CChar>?
    var length = 0
    #expect(rk_store_scenario(store, &json, &length) == 0)
    let text = json.map { String(cString: $0) } ?? ""
    rk_free(json)
    #expect(text.utf8.count == length)
    #expect(text.contains(#"{"request":{"id":1,"name":"numberFact","payload":1}},{"resolve":1,"response":1,"error":"#))
    #expect(text.hasSuffix(#"{"finish":true}],"final_state":{"count":2,"fact":"one","isTimerOn":false}}"#))
    try await Scenario(json: text).run(features: ScenarioTests.features)
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
