import Foundation
import ReducerKitExamples
@testable import ReducerKitWire
import Testing

/// The fast and reference codecs agree on the example features: random values from each
/// feature's action and state schemas (valid or with one defect), and every action and state
/// written in the scenarios (Tests/scenarios), with each value read re-encoded both ways.
@Suite struct CodecDifferentialTests {
  func run<T: Codable>(_ type: T.Type, _ rootNoun: String, seed: UInt64) {
    let (failures, decoded) = _differentialRun(T.self, rootNoun: rootNoun, count: 300, seed: seed)
    #expect(failures.isEmpty, "\(failures.count) disagreements; first: \(failures.first ?? "")")
    #expect(decoded >= 100, "only \(decoded) of 300 generated \(T.self) values decoded")
  }

  @Test func exampleFeaturesActionsAndStates() {
    run(Counter.Action.self, "action", seed: 21)
    run(Counter.State.self, "state", seed: 22)
    run(Todos.Action.self, "action", seed: 23)
    run(Todos.State.self, "state", seed: 24)
    run(Search.Action.self, "action", seed: 25)
    run(Search.State.self, "state", seed: 26)
  }

  @Test(arguments: ScenarioTests.files)
  func scenarioValues(_ file: String) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: file))
    let scenario = try parseJSON(Array(data))
    guard case .array(let steps)? = scenario["steps"], case .string(let feature)? = scenario["feature"] else {
      Issue.record("\(file): no steps or feature")
      return
    }
    var compared = 0
    for step in steps {
      for key in ["send", "receive"] {
        guard let action = step[key] else { continue }
        compared += 1
        let failures: [String]
        switch feature {
        case "counter": failures = _differentialCheck(Counter.Action.self, input: action, rootNoun: "action")
        case "todos": failures = _differentialCheck(Todos.Action.self, input: action, rootNoun: "action")
        default: failures = _differentialCheck(Search.Action.self, input: action, rootNoun: "action")
        }
        #expect(failures.isEmpty, "\(file): \(failures.first ?? "")")
      }
      guard let state = step["state"] else { continue }
      compared += 1
      let failures: [String]
      switch feature {
      case "counter": failures = _differentialCheck(Counter.State.self, input: state, rootNoun: "state")
      case "todos": failures = _differentialCheck(Todos.State.self, input: state, rootNoun: "state")
      default: failures = _differentialCheck(Search.State.self, input: state, rootNoun: "state")
      }
      #expect(failures.isEmpty, "\(file): \(failures.first ?? "")")
    }
    #expect(compared > 0, "\(file): no actions or states to compare")
  }
}
