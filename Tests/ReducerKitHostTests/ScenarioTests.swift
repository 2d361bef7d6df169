import Foundation
import ReducerKitExamples
import ReducerKitHost
import ReducerKitHostTesting
import ReducerKitTesting
import Testing

/// The cross-language scenarios of Tests/scenarios (format: its README), run by the public
/// Swift runner (`Scenario`) against the shipped features: the same files `reducerkit-check`
/// and Python's `run_scenario` run through the C interface.
@Suite struct ScenarioTests {
  static let files = Scenario.files(in: "../scenarios", relativeTo: #filePath)
  /// Tests/scenarios/wrong/*.wrong.json: wrong on purpose (see its README).
  static let wrong: [String] = {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("scenarios/wrong")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(".wrong.json") }.sorted().map { directory.appendingPathComponent($0).path }
  }()

  /// The shipped library's features, as `ReducerKitLibrary` registers them.
  static let features: [Feature] = [
    Feature(name: "counter", initialState: Counter.State(), endpoints: [.endpoint(\.numberFact)]) { Counter() },
    Feature(name: "todos", initialState: Todos.State()) { Todos() },
    Feature(name: "search", initialState: Search.State(), endpoints: [.endpoint(\.search)]) { Search() },
  ]

  @Test func scenariosExist() {
    #expect(Self.files.count >= 8, "no scenarios found beside \(#filePath)")
    #expect(Self.wrong.count >= 10)
  }

  @Test(arguments: ScenarioTests.files)
  func scenario(_ path: String) async throws {
    try await Scenario(contentsOfFile: path).run(features: Self.features)
  }

  /// On the test clock a scenario is a deterministic program: two answers given back to back
  /// are reduced in the order given, every time (031112b's runners raced them).
  @Test func answersBackToBackReplayTheSameEveryTime() async throws {
    let path = Self.files.first { $0.hasSuffix("counter_two_answers.scenario.json") }
    let scenario = try Scenario(contentsOfFile: try #require(path))
    for _ in 0..<200 { await scenario.run(features: Self.features) }
  }

  /// Every wrong scenario fails the Swift runner too (each must report at least one issue).
  @Test(arguments: ScenarioTests.wrong)
  func wrongScenarioFails(_ path: String) async throws {
    let scenario: Scenario
    do {
      scenario = try Scenario(contentsOfFile: path)
    } catch {
      #expect(path.contains("malformed") || path.contains("old_format"), "\(error)")
      return
    }
    await withKnownIssue("\(path) is wrong on purpose") {
      await scenario.run(features: Self.features)
    }
  }

}
