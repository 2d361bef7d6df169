import ReducerKit

/// The `search` example: a query debounced on the store's clock, searched offline.
public struct Search: Reducer {
  /// The search's state.
  public struct State: Codable, Equatable, Sendable {
    public var query: String
    public var results: [String]

    public init(query: String = "", results: [String] = []) {
      self.query = query
      self.results = results
    }
  }

  /// The search's actions.
  public enum Action: Codable, Equatable, Sendable {
    case queryChanged(String)
    case searchResponse([String])
  }

  enum CancelID { case search }

  /// How long the query must stay unchanged before a search runs.
  public static let debounce: Duration = .milliseconds(300)

  @Dependency(\.continuousClock) var clock
  @Dependency(\.wordSearch) var wordSearch

  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .queryChanged(query):
      state.query = query
      guard !query.isEmpty else {
        state.results = []
        return .cancel(id: CancelID.search)
      }
      return .run { [wordSearch] send in
        await send(.searchResponse(try await wordSearch.search(query)))
      }
      .debounce(id: CancelID.search, for: Self.debounce, clock: clock)
    case let .searchResponse(results):
      state.results = results
      return .none
    }
  }
}

/// Searches a word list. The live value searches an offline list by prefix.
public struct WordSearchClient: Sendable {
  /// Words starting with the query (case-insensitive), in list order.
  public var search: @Sendable (String) async throws -> [String]

  public init(search: @escaping @Sendable (String) async throws -> [String]) { self.search = search }

  /// The offline word list of the live client.
  public static let words = [
    "apple", "apricot", "banana", "blueberry", "cherry", "coconut", "effect", "elm",
    "python", "pear", "plum", "reducer", "redux", "store", "state", "swift", "swim",
  ]
}

extension WordSearchClient: DependencyKey {
  public static let liveValue = WordSearchClient { query in
    let needle = query.lowercased()
    return words.filter { $0.hasPrefix(needle) }
  }
}

extension DependencyValues {
  /// The word search the search example uses.
  public var wordSearch: WordSearchClient {
    get { self[WordSearchClient.self] }
    set { self[WordSearchClient.self] = newValue }
  }
}
