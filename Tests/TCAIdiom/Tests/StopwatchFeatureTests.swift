import Foundation
import ReducerKitMacros
import ReducerKitTesting
import Testing

@MainActor
struct StopwatchFeatureTests {
  @Test func timerTicksWithTheTestClock() async {
    let clock = TestClock()
    let store = TestStore(initialState: StopwatchFeature.State()) {
      StopwatchFeature()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.startStopButtonTapped) {
      $0.isRunning = true
    }
    await clock.advance(by: .seconds(1))
    await store.receive(\.tick) {
      $0.seconds = 1
    }
    // Ticks are scheduled from the start: two more seconds are two more ticks.
    await clock.advance(by: .seconds(2))
    await store.receive(\.tick) {
      $0.seconds = 2
    }
    await store.receive(\.tick) {
      $0.seconds = 3
    }
    await store.send(.startStopButtonTapped) {
      $0.isRunning = false
    }
    await clock.advance(by: .seconds(5))
  }

  @Test func savesThroughTheClient() async {
    let store = TestStore(initialState: StopwatchFeature.State(seconds: 7)) {
      StopwatchFeature()
    } withDependencies: {
      $0.lapClient.save = { "saved \($0)" }
    }
    await store.send(.saveButtonTapped)
    await store.receive(\.saved.success) {
      $0.lastSaved = "saved 7"
    }
  }

  @Test func anUnimplementedEndpointFailsTheTestAndThrows() async {
    let store = TestStore(initialState: StopwatchFeature.State(lastSaved: "old")) {
      StopwatchFeature()
    }
    await withKnownIssue {
      await store.send(.saveButtonTapped)
      await store.receive(\.saved.failure) {
        $0.lastSaved = nil
      }
    } matching: { issue in
      issue.description.contains("Unimplemented: 'LapClient.save'")
    }

    let client = LapClient()
    await withKnownIssue {
      await #expect(throws: UnimplementedDependencyError("LapClient.save")) {
        _ = try await client.save(1)
      }
    } matching: { issue in
      issue.description.contains("Unimplemented: 'LapClient.save'")
    }
    withKnownIssue {
      client.log("hello")
    } matching: { issue in
      issue.description.contains("Unimplemented: 'LapClient.log'")
    }
  }

  @Test func aRequestThatNeverAnswersIsCancelled() async {
    let store = TestStore(initialState: StopwatchFeature.State()) {
      StopwatchFeature()
    } withDependencies: {
      $0.lapClient.save = { _ in try await Task.never() }
    }
    await store.send(.saveButtonTapped)
    // The save waits forever; cancelling it ends the effect (the test would fail on an effect
    // still running at its end), and the cancelled effect sends nothing.
    await store.send(.cancelSaveButtonTapped)
  }

  @Test func childScopedInTheNewestSpelling() async {
    let store = TestStore(initialState: StopwatchFeature.State()) {
      StopwatchFeature()
    }
    await store.send(.display(.toggleCompactButtonTapped)) {
      $0.display.isCompact = true
    }
  }

  @Test func uuidFromAnInteger() {
    #expect(UUID(0).uuidString == "00000000-0000-0000-0000-000000000000")
    #expect(UUID(255).uuidString == "00000000-0000-0000-0000-0000000000FF")
    #expect(UUID(-1).uuidString == "00000000-0000-0000-0000-FFFFFFFFFFFF")
    let incrementing = UUIDGenerator.incrementing
    #expect(incrementing() == UUID(0))
    #expect(incrementing() == UUID(1))
  }
}
