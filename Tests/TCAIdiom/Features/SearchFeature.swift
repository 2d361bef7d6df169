import ReducerKitMacros

struct SearchResult: Equatable, Sendable {
  var name: String
}

// A search client as swift-dependencies users write one.
struct SearchClient: Sendable {
  var search: @Sendable (_ query: String) async throws -> [SearchResult]
}

extension SearchClient: DependencyKey {
  static let liveValue = SearchClient { query in [SearchResult(name: query)] }
}

extension DependencyValues {
  var searchClient: SearchClient {
    get { self[SearchClient.self] }
    set { self[SearchClient.self] = newValue }
  }
}

/// Search as you type: each keystroke restarts a debounced request (cancel in flight), and
/// clearing the query cancels it.
@Reducer
struct SearchFeature {
  @ObservableState
  struct State: Equatable {
    var query = ""
    var results: [SearchResult] = []
  }

  enum Action {
    case queryChanged(String)
    case searchResponse(Result<[SearchResult], any Error>)
  }

  enum CancelID { case search }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.searchClient) var searchClient

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .queryChanged(query):
        state.query = query
        guard !query.isEmpty else {
          state.results = []
          return .cancel(id: CancelID.search)
        }
        return .run { send in
          try await clock.sleep(for: .milliseconds(300))
          await send(.searchResponse(Result { try await searchClient.search(query) }))
        }
        .cancellable(id: CancelID.search, cancelInFlight: true)

      case .searchResponse(.failure):
        state.results = []
        return .none

      case let .searchResponse(.success(results)):
        state.results = results
        return .none
      }
    }
  }
}
