import ReducerKitHostTesting
import Scoreboard
import Testing

// Every scenario of scenarios/, against the same Feature the library registers.
@Test(arguments: Scenario.files(in: "../../scenarios", relativeTo: #filePath))
func scenario(_ path: String) async throws {
  try await Scenario(contentsOfFile: path).run(features: [.scoreboard])
}

// A wrong scenario fails the test (its issue is expected here).
@Test func aWrongScenarioFails() async throws {
  let scenario = try Scenario(json: """
    {"name": "wrong on purpose", "feature": "scoreboard",
     "steps": [{"send": {"score": {"team": "home", "points": 2}},
                "state": {"home": 3, "away": 0, "log": ["home +2"], "saved": null}}]}
    """)
  await withKnownIssue { await scenario.run(features: [.scoreboard]) }
}
