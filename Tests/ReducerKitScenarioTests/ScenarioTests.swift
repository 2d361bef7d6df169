import Foundation
import ReducerKit
import ReducerKitExamples
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
    case "counter": await run(scenario, file, Counter.State()) { Counter() }
    case "todos": await run(scenario, file, Todos.State()) { Todos() }
    case "search": await run(scenario, file, Search.State()) { Search() }
    default: Issue.record("\(file): unknown feature \(feature)")
    }
  }

  func run<R: Reducer>(
    _ scenario: JSONValue, _ file: String, _ defaultState: R.State, _ reducer: @escaping () -> R
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
    let clock = TestClock()
    let store = TestStore(initialState: initial, reducer: reducer) {
      $0.continuousClock = clock
      $0.suspendingClock = clock
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
        } else if step["finish"] != nil {
          await store.finish()
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
