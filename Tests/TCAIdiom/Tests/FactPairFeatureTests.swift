import Foundation
import ReducerKitMacros
import ReducerKitTesting
import Testing

@MainActor
struct FactPairFeatureTests {
  @Test func dependencyReachesTheChildAndItsEffects() async {
    let store = TestStore(initialState: FactPairFeature.State()) {
      FactPairFeature()
    } withDependencies: {
      $0.uuid = .incrementing
      $0.numberFact.fetch = { "\($0) is a store number." }
    }
    // The left row's reducer sees its own uuid, the right row the store's.
    await store.send(\.left.createTapped) {
      $0.left.id = UUID(0)
    }
    await store.send(\.left.createTapped)
    await store.send(\.right.createTapped) {
      $0.right.id = UUID(0)
    }
    await store.send(\.right.createTapped) {
      $0.right.id = UUID(1)
    }
    // The left row's effect sees the replaced client.
    await store.send(\.left.factButtonTapped)
    await store.receive(\.left.factResponse, "0 is on the left.") {
      $0.left.fact = "0 is on the left."
    }
  }

  @Test func transformDependencyChangesTheValueInEffect() async {
    let store = TestStore(initialState: FactPairFeature.State()) {
      FactPairFeature()
    } withDependencies: {
      $0.numberFact.fetch = { "\($0) is a store number." }
    }
    await store.send(\.right.factButtonTapped)
    await store.receive(\.right.factResponse, "Right: 0 is a store number.") {
      $0.right.fact = "Right: 0 is a store number."
    }
  }

  @Test func reducerAroundTheModifierKeepsItsOwnDependencies() async {
    let store = TestStore(initialState: FactRowFeature.State(number: 3)) {
      FactRowFeature()
    } withDependencies: {
      $0.numberFact.fetch = { "\($0) is a store number." }
    }
    await store.send(.factButtonTapped)
    await store.receive(\.factResponse, "3 is a store number.") {
      $0.fact = "3 is a store number."
    }
  }
}

/// A dependency that is its own key, set with `.dependency(value)`.
struct Greeting: DependencyKey, Sendable {
  var text: String
  static let liveValue = Greeting(text: "live")
}

@Reducer
struct GreeterFeature {
  struct State: Equatable { var greeting = "" }
  enum Action: Equatable {
    case greet
    case greetLater
    case greeted(String)
  }
  @Dependency(Greeting.self) var greeting

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .greet:
        state.greeting = greeting.text
        return .none
      case .greetLater:
        return .run { send in await send(.greeted(greeting.text)) }
      case let .greeted(text):
        state.greeting = text
        return .none
      }
    }
  }
}

@MainActor
struct DependencyValueModifierTests {
  @Test func aValueThatIsItsOwnKey() async {
    let store = TestStore(initialState: GreeterFeature.State()) {
      GreeterFeature()
        .dependency(Greeting(text: "inner"))
        .dependency(Greeting(text: "outer"))
    }
    // As in TCA, the modifier nearest the reducer wins.
    await store.send(.greet) {
      $0.greeting = "inner"
    }
    await store.send(.greetLater)
    await store.receive(\.greeted, "inner")
  }
}
