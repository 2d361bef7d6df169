import Foundation
import ReducerKit
import ReducerKitTesting
import Testing

/// A custom dependency, declared the way the docs show.
struct GreetingClient: Sendable {
  var greet: @Sendable (String) async throws -> String
}

extension GreetingClient: DependencyKey {
  static let liveValue = GreetingClient { "Hello, \($0)!" }
  static let testValue = GreetingClient { "test greeting for \($0)" }
}

extension DependencyValues {
  var greeting: GreetingClient {
    get { self[GreetingClient.self] }
    set { self[GreetingClient.self] = newValue }
  }
}

/// A key whose test value is not overridden: it falls back to the live value.
private enum AnswerKey: DependencyKey {
  static let liveValue = 42
}

@Suite(.testStoreIssues) struct DependencyTests {
  struct Greeter: Reducer {
    struct State: Equatable {
      var greeting: String?
      var context: DependencyContext?
    }
    enum Action: Equatable, Sendable { case greet(String), greeted(String), readContext }
    @Dependency(\.greeting) var greeting

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case let .greet(name):
        return .run { send in await send(.greeted(try await greeting.greet(name))) }
      case let .greeted(text):
        state.greeting = text
        return .none
      case .readContext:
        state.context = DependencyValues.current.context
        return .none
      }
    }
  }

  @Test func storeUsesTheLiveValueByDefault() async {
    let store = Store(initialState: Greeter.State()) { Greeter() }
    await store.send(.greet("Ada")).finish()
    #expect(store.greeting == "Hello, Ada!")
    store.send(.readContext)
    #expect(store.context == .live)
  }

  @Test func testStoreUsesTheTestValueAndTheTestContext() async {
    let store = TestStore(initialState: Greeter.State()) { Greeter() }
    await store.send(.greet("Ada"))
    await store.receive(.greeted("test greeting for Ada")) { $0.greeting = "test greeting for Ada" }
    await store.send(.readContext) { $0.context = .test }
    await store.finish()
  }

  @Test func contextIsTestInsideTestStoreEffectsToo() async {
    enum Action: Equatable, Sendable { case read, got(DependencyContext) }
    let store = TestStore(initialState: [DependencyContext]()) {
      Reduce<[DependencyContext], Action> { state, action in
        switch action {
        case .read:
          state.append(DependencyValues.current.context)
          return .run { send in await send(.got(DependencyValues.current.context)) }
        case let .got(context):
          state.append(context)
          return .none
        }
      }
    }
    await store.send(.read) { $0 = [.test] }
    await store.receive(.got(.test)) { $0 = [.test, .test] }
    await store.finish()
  }

  @Test func testValueDefaultsToLiveValue() {
    var values = DependencyValues()
    #expect(values[AnswerKey.self] == 42)
    values.context = .test
    #expect(values[AnswerKey.self] == 42)
    values[AnswerKey.self] = 7
    #expect(values[AnswerKey.self] == 7)
  }

  @Test func withDependenciesOverridesPerStore() async {
    let store = TestStore(initialState: Greeter.State()) { Greeter() } withDependencies: {
      $0.greeting = GreetingClient { "Bonjour, \($0) !" }
    }
    await store.send(.greet("Ada"))
    await store.receive(.greeted("Bonjour, Ada !")) { $0.greeting = "Bonjour, Ada !" }
    await store.finish()
  }

  @Test func twoStoresKeepTheirOwnOverrides() async {
    let english = Store(initialState: Greeter.State()) { Greeter() } withDependencies: {
      $0.greeting = GreetingClient { "Hi \($0)" }
    }
    let german = Store(initialState: Greeter.State()) { Greeter() } withDependencies: {
      $0.greeting = GreetingClient { "Hallo \($0)" }
    }
    async let a: Void = english.send(.greet("Ada")).finish()
    async let b: Void = german.send(.greet("Ada")).finish()
    _ = await (a, b)
    #expect(english.greeting == "Hi Ada")
    #expect(german.greeting == "Hallo Ada")
  }

  @Test func storeCreatedInsideWithDependenciesCapturesThem() async {
    let store = withDependencies {
      $0.greeting = GreetingClient { "Captured \($0)" }
    } operation: {
      Store(initialState: Greeter.State()) { Greeter() }
    }
    // Sent outside the `withDependencies` scope: the store still uses what it captured.
    await store.send(.greet("Ada")).finish()
    #expect(store.greeting == "Captured Ada")
  }

  @Test func effectsSeeTheStoresDependenciesNotTheCallers() async {
    let store = Store(initialState: Greeter.State()) { Greeter() } withDependencies: {
      $0.greeting = GreetingClient { "store \($0)" }
    }
    await withDependencies {
      $0.greeting = GreetingClient { "caller \($0)" }
    } operation: {
      await store.send(.greet("Ada")).finish()
    }
    #expect(store.greeting == "store Ada")
  }

  /// A store without overrides keeps its own (live) dependencies, not its sender's.
  @Test func storeWithoutOverridesIgnoresTheCallersAmbientDependencies() async {
    let store = Store(initialState: Greeter.State()) { Greeter() }
    await withDependencies {
      $0.greeting = GreetingClient { "caller \($0)" }
      $0.context = .test
    } operation: {
      await store.send(.greet("Ada")).finish()
      store.send(.readContext)
    }
    #expect(store.greeting == "Hello, Ada!")
    #expect(store.context == .live)
  }

  @Test func continuousClockDependencyDrivesEffects() async {
    struct Delayed: Reducer {
      struct State: Equatable { var fired = false }
      enum Action: Equatable, Sendable { case start, fire }
      @Dependency(\.continuousClock) var clock
      func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start:
          return .run { send in
            try await clock.sleep(for: .seconds(30))
            await send(.fire)
          }
        case .fire:
          state.fired = true
          return .none
        }
      }
    }
    let clock = TestClock()
    let store = TestStore(initialState: Delayed.State()) { Delayed() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.start)
    await store.settle()
    await clock.advance(by: .seconds(29))
    #expect(clock.sleeperCount == 1)
    await clock.advance(by: .seconds(1))
    await store.receive(.fire) { $0.fired = true }
    await store.finish()
  }

  @Test func dependencyByKeyType() async throws {
    struct Feature: Reducer {
      struct State: Equatable { var text = "" }
      enum Action: Equatable, Sendable { case greet }
      @Dependency(GreetingClient.self) var greeting
      func reduce(into state: inout State, action: Action) -> Effect<Action> {
        .none
      }
      func direct() async throws -> String { try await greeting.greet("Key") }
    }
    #expect(try await Feature().direct() == "Hello, Key!")
    let overridden = try await withDependencies {
      $0[GreetingClient.self] = GreetingClient { "override \($0)" }
    } operation: {
      try await Feature().direct()
    }
    #expect(overridden == "override Key")
  }

  @Test func uuidAndDateGeneratorsAreOverridable() async {
    struct Feature: Reducer {
      struct State: Equatable {
        var ids: [UUID] = []
        var createdAt: Date?
      }
      enum Action: Equatable, Sendable { case add }
      @Dependency(\.uuid) var uuid
      @Dependency(\.date) var date
      func reduce(into state: inout State, action: Action) -> Effect<Action> {
        state.ids.append(uuid())
        state.createdAt = date.now
        return .none
      }
    }
    let now = Date(timeIntervalSince1970: 1_000_000)
    let store = TestStore(initialState: Feature.State()) { Feature() } withDependencies: {
      $0.uuid = .incrementing
      $0.date = .constant(now)
    }
    await store.send(.add) {
      $0.ids = [UUID(uuidString: "00000000-0000-0000-0000-000000000000")!]
      $0.createdAt = now
    }
    await store.send(.add) {
      $0.ids.append(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)
    }
    await store.finish()
    let fixed = UUID()
    #expect(UUIDGenerator.constant(fixed)() == fixed)
    #expect(DateGenerator.constant(now)() == now)
  }

  @Test func withDependenciesRestoresTheOuterValues() {
    let inner = withDependencies { $0.greeting = GreetingClient { _ in "inner" } } operation: {
      DependencyValues.current.context
    }
    #expect(inner == .live)
    let nested = withDependencies { $0.context = .test } operation: {
      withDependencies { _ in } operation: { DependencyValues.current.context }
    }
    #expect(nested == .test)
    #expect(DependencyValues.current.context == .live)
  }
}
