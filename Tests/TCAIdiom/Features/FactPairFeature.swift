import Foundation
import ReducerKitMacros

/// A row that makes an id and fetches a number fact: what it sees comes from its dependencies.
@Reducer
struct FactRowFeature {
  @ObservableState
  struct State: Equatable {
    var number = 0
    var id: UUID?
    var fact: String?
  }

  enum Action: Equatable {
    case createTapped
    case factButtonTapped
    case factResponse(String)
  }

  @Dependency(\.numberFact) var numberFact
  @Dependency(\.uuid) var uuid

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .createTapped:
        state.id = uuid()
        return .none
      case .factButtonTapped:
        return .run { [number = state.number] send in
          await send(.factResponse((try? await numberFact.fetch(number)) ?? "no fact"))
        }
      case let .factResponse(fact):
        state.fact = fact
        return .none
      }
    }
  }
}

/// Two rows, each given its dependencies by the parent with `.dependency` and
/// `.transformDependency`.
@Reducer
struct FactPairFeature {
  @ObservableState
  struct State: Equatable {
    var left = FactRowFeature.State()
    var right = FactRowFeature.State()
  }

  enum Action: Equatable {
    case left(FactRowFeature.Action)
    case right(FactRowFeature.Action)
  }

  var body: some ReducerOf<Self> {
    Scope(state: \.left, action: \.left) {
      FactRowFeature()
        .dependency(\.numberFact, NumberFactClient(fetch: { "\($0) is on the left." }))
        .dependency(\.uuid, .constant(UUID(0)))
    }
    Scope(state: \.right, action: \.right) {
      FactRowFeature()
        .transformDependency(\.numberFact) { client in
          let fetch = client.fetch
          client.fetch = { "Right: " + (try await fetch($0)) }
        }
    }
  }
}
