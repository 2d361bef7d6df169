import Foundation
import ReducerKit
import ReducerKitExamples
@testable import ReducerKitFFI
import ReducerKitTesting
import ReducerKitWire
import Testing

/// Runs the cross-language scenarios of Tests/scenarios (see its README) against the Swift
/// types directly, with the exhaustive `TestStore` and a `TestClock`: the same files the C and
/// Python runners use through the C ABI.
@Suite struct ScenarioTests {
  static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scenarios")

  static var files: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(".json") }.sorted()
  }

  @Test func scenariosExist() {
    #expect(Self.files.count >= 3, "no scenarios found in \(Self.directory.path)")
  }

  @Test(arguments: ScenarioTests.files)
  func scenario(_ file: String) async throws {
    let data = try Data(contentsOf: Self.directory.appendingPathComponent(file))
    let scenario = try parseJSON(Array(data))
    guard case let .string(feature)? = scenario["feature"] else {
      Issue.record("\(file): missing \"feature\"")
      return
    }
    switch feature {
    case "counter": await run(scenario, file, Counter.State(), [.endpoint(\.numberFact)]) { Counter() }
    case "todos": await run(scenario, file, Todos.State()) { Todos() }
    case "search": await run(scenario, file, Search.State(), [.endpoint(\.search)]) { Search() }
    default: Issue.record("\(file): unknown feature \(feature)")
    }
  }

  func run<R: Reducer>(
    _ scenario: JSONValue, _ file: String, _ defaultState: R.State,
    _ endpoints: [Feature.Endpoint] = [], _ reducer: @escaping () -> R
  ) async
  where R.State: Codable & Equatable & Sendable, R.Action: Codable & Equatable & Sendable {
    let decoder = WireDecoder(rootNoun: "action")
    var initial = defaultState
    if let given = scenario["initial_state"], given != .null {
      do {
        let base = try WireEncoder().encodeToJSONValue(defaultState)
        initial = try WireDecoder(rootNoun: "state").decode(R.State.self, from: merged(base, given))
      } catch {
        Issue.record("\(file): initial_state: \(error)")
        return
      }
    }
    // Provided endpoints go through the same request table as a C host's store.
    var names: [String] = []
    if case let .array(items)? = scenario["provide"] {
      for case let .string(name) in items { names.append(name) }
    }
    let provided: [Feature.Endpoint]
    do {
      provided = try Feature.Endpoint.select(names, from: endpoints, feature: "\(R.self)")
    } catch {
      Issue.record("\(file): provide: \(error.message)")
      return
    }
    let requests = HostRequests()
    let clock = TestClock()
    let store = TestStore(initialState: initial, reducer: reducer) {
      $0.continuousClock = clock
      $0.suspendingClock = clock
      Feature.Endpoint.provide(provided, in: &$0, requests: requests)
    }
    var events: [JSONValue] = []
    /// The next request event (waiting up to 1 s for effects to make it).
    func nextEvent() async throws -> JSONValue? {
      let deadline = ContinuousClock.now.advanced(by: .seconds(1))
      while events.isEmpty {
        if case let .array(taken) = try parseJSON(requests.take()) { events += taken }
        if !events.isEmpty || ContinuousClock.now > deadline { break }
        try await Task.sleep(for: .milliseconds(1))
      }
      return events.isEmpty ? nil : events.removeFirst()
    }
    guard case let .array(steps)? = scenario["steps"] else {
      Issue.record("\(file): missing \"steps\"")
      return
    }
    for (index, step) in steps.enumerated() {
      let label = "\(file) step \(index + 1)"
      do {
        let expected: R.State? = try step["state"].map {
          try WireDecoder(rootNoun: "state").decode(R.State.self, from: $0)
        }
        let assertion: ((inout R.State) -> Void)? = expected.map { state in { $0 = state } }
        if let action = step["send"] {
          await store.send(try decoder.decode(R.Action.self, from: action), assert: assertion)
        } else if let action = step["receive"] {
          await store.receive(try decoder.decode(R.Action.self, from: action), assert: assertion)
        } else if case let .int(milliseconds)? = step["advance_ms"] {
          await clock.advance(by: .milliseconds(milliseconds))
        } else if let expected = step["request"] {
          let event = try await nextEvent()
          let matches = event?["name"] == expected["name"] && event?["payload"] == expected["payload"]
            && event?["cancelled"] == nil && (expected["id"] == nil || event?["id"] == expected["id"])
          if !matches {
            Issue.record("\(label): expected the request \(expected), got \(event.map { "\($0)" } ?? "no request")")
          }
        } else if case let .int(id)? = step["resolve"] {
          let response = step["response"]?.serializedBytes() ?? []
          let failure: FFIError? = response.withUnsafeBytes { bytes in
            do throws(FFIError) {
              try requests.resolve(UInt64(id), bytes)
              return nil
            } catch {
              return error
            }
          }
          if let failure { Issue.record("\(label): \(failure.message)") }
        } else if case let .int(id)? = step["fail"] {
          guard case let .string(message)? = step["message"] else {
            Issue.record("\(label): a fail step needs a \"message\" string")
            continue
          }
          do throws(FFIError) {
            try requests.fail(UInt64(id), message: message)
          } catch {
            Issue.record("\(label): \(error.message)")
          }
        } else if case let .int(id)? = step["cancelled"] {
          let event = try await nextEvent()
          if event?["id"] != .int(id) || event?["cancelled"] != .bool(true) {
            Issue.record("\(label): expected the cancellation of request \(id), got \(event.map { "\($0)" } ?? "no event")")
          }
        } else if step["finish"] != nil {
          await store.finish()
          if case let .array(taken) = try parseJSON(requests.take()) { events += taken }
          if !events.isEmpty {
            Issue.record("\(label): host events not asserted: \(events)")
          }
        } else {
          Issue.record("\(label): unknown step \(step)")
        }
      } catch {
        Issue.record("\(label): \(error)")
      }
    }
  }

  func merged(_ base: JSONValue, _ overlay: JSONValue) -> JSONValue {
    guard case var .object(members) = base, case let .object(extra) = overlay else { return overlay }
    for (key, value) in extra {
      if let index = members.lastIndex(where: { $0.key == key }) {
        members[index].value = merged(members[index].value, value)
      } else {
        members.append((key: key, value: value))
      }
    }
    return .object(members)
  }
}
