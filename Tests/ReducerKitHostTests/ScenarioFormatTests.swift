import Foundation
import ReducerKit
import ReducerKitFFI
import ReducerKitHost
import ReducerKitHostTesting
import ReducerKitTesting
import ReducerKitWire
import Testing

/// The issue's example: a checkout whose request payload has an optional field.
private struct Order: Codable, Equatable, Sendable {
  var total: Int
  var coupon: String?
}

private enum CheckoutEndpoint: DependencyKey {
  static let liveValue = HostEndpoint<Order, String>("checkout") { "receipt for \($0.total)" }
}

extension DependencyValues {
  fileprivate var checkout: HostEndpoint<Order, String> {
    get { self[CheckoutEndpoint.self] }
    set { self[CheckoutEndpoint.self] = newValue }
  }
}

private struct Checkout: Reducer {
  struct State: Codable, Equatable, Sendable {
    var receipt: String?
    var order: Order?
  }
  enum Action: Codable, Equatable, Sendable {
    case pay(Int)
    case paid(Order)
  }
  @Dependency(\.checkout) var checkout

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .pay(total):
      let order = Order(total: total, coupon: nil)
      return .run { [checkout] send in
        _ = try await checkout(order)
        await send(.paid(order))
      }
    case let .paid(order):
      state.order = order
      return .none
    }
  }
}

private let checkoutFeature = Feature(
  name: "checkout", initialState: Checkout.State(), endpoints: [.endpoint(\.checkout)]
) { Checkout() }

/// The format's one definition (ScenarioFormat, JSONMatch in ReducerKitFFI, exported as
/// rk_scenario_parse and rk_json_match) as the Swift runner uses it.
@Suite struct ScenarioFormatTests {
  /// `{"request": {"name": "checkout", "payload": {"total": 500}}}` matches a request whose
  /// optional payload field is nil (`"coupon": null`), in every runner (the format: a null
  /// member equals an absent one, for payloads and actions too).
  @Test func aNullMemberEqualsAnAbsentOneInPayloadsAndActions() async throws {
    let scenario = try Scenario(
      json: """
        {"name": "checkout", "feature": "checkout", "options": {"provide": ["checkout"]},
         "steps": [
           {"send": {"pay": 500}},
           {"request": {"id": 1, "name": "checkout", "payload": {"total": 500}}},
           {"resolve": 1, "response": "r-1"},
           {"receive": {"paid": {"total": 500, "coupon": null, "extra": null}},
            "state": {"order": {"total": 500}, "receipt": null}},
           {"finish": true}],
         "final_state": {"order": {"total": 500, "coupon": null}}}
        """)
    await scenario.run(features: [checkoutFeature])
  }

  @Test func aPayloadThatDiffersFailsWithItsPath() async throws {
    let scenario = try Scenario(
      json: """
        {"name": "checkout", "feature": "checkout", "options": {"provide": ["checkout"]},
         "steps": [{"send": {"pay": 500}},
                   {"request": {"name": "checkout", "payload": {"total": 501}}}]}
        """)
    await withKnownIssue {
      await scenario.run(features: [checkoutFeature])
    } matching: { issue in
      issue.description.contains("$.payload.total: expected 501, actual 500")
        || issue.description.contains("host event(s) were not asserted")
    }
  }

  @Test func anExpected2To63IsNotAnActual2To63Minus1() async throws {
    let path = HostileScenarioTests.directory.appendingPathComponent("int64_state.fail.json").path
    let scenario = try Scenario(contentsOfFile: path)
    await withKnownIssue {
      await scenario.run(features: ScenarioTests.features)
    } matching: { issue in
      issue.description.contains("$.count: expected 9223372036854775808, actual 9223372036854775807")
    }
  }

  /// A malformed file gets the library's message (rk_scenario_parse's, for C and Python).
  @Test(arguments: HostileScenarioTests.files.filter { $0.hasSuffix(".fail.json") })
  func formatErrorsAreTheLibrarys(_ name: String) throws {
    let path = HostileScenarioTests.directory.appendingPathComponent(name).path
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    var out: UnsafeMutablePointer<CChar>?
    let status = bytes.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { rk_scenario_parse($0.baseAddress, $0.count, &out, nil) }
    }
    defer { rk_free(out) }
    do {
      _ = try Scenario(contentsOfFile: path)
      #expect(status == 0, "Swift read a file rk_scenario_parse refuses: \(String(cString: rk_last_error()))")
    } catch {
      #expect(status != 0)
      #expect(error.message == "\(path): \(String(cString: rk_last_error()))")
    }
  }

  @Test func theNormalForm() throws {
    let normal = try ScenarioFormat.normalForm(
      of: Array(#"{"steps": [{"state": null, "send": "increment"}, {"message": "m", "fail": 1.0}], "feature": "counter", "name": "n", "final_state": null}"#.utf8))
    #expect(
      normal.serialized()
        == #"{"name":"n","feature":"counter","options":{"clock":"test","initial_state":null,"provide":[]},"exhaustive":true,"steps":[{"send":"increment"},{"fail":1,"message":"m"}]}"#
    )
    #expect(throws: ScenarioFormat.Failure.self) {
      _ = try ScenarioFormat.normalForm(of: Array(#"{"name": "n", "feature": "counter", "steps": [{"advance_ms\u0000": 1}]}"#.utf8))
    }
  }

  @Test func jsonMatch() throws {
    #expect(JSONMatch.matches(["total": 500], ["total": 500, "coupon": .null]))
    #expect(JSONMatch.matches(["a": [1, 2.0]], ["a": [1.0, 2]]))
    #expect(!JSONMatch.matches(.bool(true), .int(1)))
    let big = try parseJSON("9223372036854775808")
    #expect(
      JSONMatch.describe(expected: big, actual: .int(Int64.max))
        == "$: expected 9223372036854775808, actual 9223372036854775807")
    #expect(JSONMatch.matches(try parseJSON("18446744073709551616"), try parseJSON("1.8446744073709552e19")))
    #expect(!JSONMatch.matches(try parseJSON("18446744073709551617"), try parseJSON("1.8446744073709552e19")))
    // A fraction or exponent the parser keeps as text for integer fields is still its double.
    #expect(JSONMatch.matches(try parseJSON("1"), try parseJSON("1.0000000000000001")))
    #expect(JSONMatch.matches(try parseJSON("0"), try parseJSON("1e-400")))
    #expect(JSONMatch.matches(try parseJSON("123456789012345680"), try parseJSON("123456789012345678.9")))
    #expect(!JSONMatch.matches(.string("\u{212A}"), .string("K")))  // Kelvin sign: not "K"
    #expect(
      JSONMatch.describe(expected: ["a": ["b": [1, ["c": "x"]]]], actual: ["a": ["b": [1, ["c": "y"]]]])
        == #"$.a.b[1].c: expected "x", actual "y""#)
  }

  /// A link to a directory is not followed: a link to itself ran every file again and again.
  @Test func filesDoNotFollowDirectoryLinks() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("rk-scenario-links-\(getpid())")
    try? FileManager.default.removeItem(at: root)
    try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    try Data("{}".utf8).write(to: root.appendingPathComponent("sub/a.scenario.json"))
    try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("self").path, withDestinationPath: ".")
    try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("sub/up").path, withDestinationPath: "..")
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("b.scenario.json").path, withDestinationPath: "sub/a.scenario.json")
    let found = Scenario.files(in: root.path).map { URL(fileURLWithPath: $0).lastPathComponent }
    #expect(found == ["b.scenario.json", "a.scenario.json"])
  }
}
