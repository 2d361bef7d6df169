import Foundation
import Synchronization
@_spi(Host) import ReducerKit
import ReducerKitTesting
import Testing
import ReducerKitTestSupport

/// A host endpoint declared the way docs/host-effects.md shows.
private enum WeatherEndpoint: DependencyKey {
  static let liveValue = HostEndpoint<String, Int>("temperature") { city in city.count * 3 }
}

extension DependencyValues {
  fileprivate var temperature: HostEndpoint<String, Int> {
    get { self[WeatherEndpoint.self] }
    set { self[WeatherEndpoint.self] = newValue }
  }
}

@Suite(.testStoreIssues) struct HostEndpointTests {
  struct Weather: Reducer {
    struct State: Equatable {
      var city = ""
      var temperature: Int?
      var error: String?
    }
    enum Action: Equatable, Sendable {
      case lookUp(String)
      case temperature(Int)
      case failed(String)
    }
    @Dependency(\.temperature) var temperature

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .lookUp(city):
        state.city = city
        return .run { send in
          await send(.temperature(try await temperature(city)))
        } catch: { error, send in
          await send(.failed((error as? HostEndpointError)?.message ?? "\(error)"))
        }
      case let .temperature(degrees):
        state.temperature = degrees
        return .none
      case let .failed(message):
        state.error = message
        return .none
      }
    }
  }

  @Test func theLiveImplementationRunsInSwift() async {
    let store = Store(initialState: Weather.State()) { Weather() }
    await store.send(.lookUp("Oslo")).finish()
    #expect(store.state.temperature == 12)
    #expect(DependencyValues().temperature.name == "temperature")
  }

  @Test func aStoreOverridesTheImplementation() async {
    let store = Store(initialState: Weather.State()) {
      Weather()
    } withDependencies: {
      $0.temperature.implementation = { _ in -5 }
    }
    await store.send(.lookUp("Oslo")).finish()
    #expect(store.state.temperature == -5)
  }

  @Test func aTestStoreAssertsTheResponse() async {
    let store = TestStore(initialState: Weather.State()) {
      Weather()
    } withDependencies: {
      $0.temperature = HostEndpoint("temperature") { city in city == "Rome" ? 30 : 0 }
    }
    await store.send(.lookUp("Rome")) { $0.city = "Rome" }
    await store.receive(.temperature(30)) { $0.temperature = 30 }
    await store.finish()
  }

  @Test func aFailedCallReachesTheCatchHandler() async {
    let store = TestStore(initialState: Weather.State()) {
      Weather()
    } withDependencies: {
      $0.temperature.implementation = { _ in
        throw HostEndpointError(endpoint: "temperature", message: "no such city")
      }
    }
    await store.send(.lookUp("Atlantis")) { $0.city = "Atlantis" }
    await store.receive(.failed("no such city")) { $0.error = "no such city" }
    await store.finish()
    #expect(
      "\(HostEndpointError(endpoint: "temperature", message: "no such city"))"
        == "the host failed the temperature request: no such city")
  }

  /// An effect that waits outside Swift (as for a host's answer) counts as idle but in flight.
  @Test func anEffectWaitingForTheHostIsIdleButInFlight() async throws {
    let gate = Gate()
    let store = Store(initialState: Weather.State()) {
      Weather()
    } withDependencies: {
      $0.temperature.implementation = { _ in await gate.wait() }
    }
    store.send(.lookUp("Oslo"))
    #expect(await store.idle(timeout: cap(.seconds(10))))
    #expect(store.effectCount == 1)
    #expect(gate.isWaiting)
    gate.open(with: 7)
    #expect(await eventually { store.state.temperature != nil })
    #expect(store.state.temperature == 7)
  }
}

/// Suspends a caller as a host request does: registered, then marked as waiting.
private final class Gate: Sendable {
  private let state = Mutex<(continuation: UnsafeContinuation<Int, Never>?, wait: _EffectWait?)>((nil, nil))

  var isWaiting: Bool { state.withLock { $0.continuation != nil } }

  func wait() async -> Int {
    let wait = _EffectWait.current()
    return await withUnsafeContinuation { continuation in
      state.withLock { $0 = (continuation, wait) }
      wait.willSuspend()
    }
  }

  func open(with value: Int) {
    let (continuation, wait) = state.withLock { state in
      defer { state = (nil, nil) }
      return state
    }
    wait?.willResume()
    continuation?.resume(returning: value)
  }
}
