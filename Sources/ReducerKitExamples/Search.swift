import ReducerKit
import ReducerKitWire

/// The `search` example: a query debounced on the store's clock, then searched through the
/// host endpoint `search` (offline by default).
public struct Search: Reducer {
  /// The search's state.
  public struct State: Codable, Equatable, Sendable, WireCodable {
    public var query: String
    public var results: [String]

    public init(query: String = "", results: [String] = []) {
      self.query = query
      self.results = results
    }
  }

  /// The search's actions.
  public enum Action: Codable, Equatable, Sendable, WireCodable {
    case queryChanged(String)
    case searchResponse([String])
  }

  enum CancelID { case search }

  /// How long the query must stay unchanged before a search runs.
  public static let debounce: Duration = .milliseconds(300)

  @Dependency(\.continuousClock) var clock
  @Dependency(\.search) var search

  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .queryChanged(query):
      state.query = query
      guard !query.isEmpty else {
        state.results = []
        return .cancel(id: CancelID.search)
      }
      return .run { [search] send in
        await send(.searchResponse(try await search(query)))
      }
      .debounce(id: CancelID.search, for: Self.debounce, clock: clock)
    case let .searchResponse(results):
      state.results = results
      return .none
    }
  }
}

/// The search example's host endpoint `search`: payload the query, response the matching
/// words. Its live implementation searches ``words`` by prefix, offline; a host store created
/// with `{"provide": ["search"]}` answers it instead.
public enum SearchEndpoint: DependencyKey {
  /// The offline word list of the live implementation.
  public static let words = [
    "apple", "apricot", "banana", "blueberry", "cherry", "coconut", "effect", "elm",
    "python", "pear", "plum", "reducer", "redux", "store", "state", "swift", "swim",
  ]

  public static let liveValue = HostEndpoint<String, [String]>("search") { query in
    let needle = query.lowercased()
    return words.filter { $0.hasPrefix(needle) }
  }
}

extension DependencyValues {
  /// The search endpoint the search example calls (`"search"`).
  public var search: HostEndpoint<String, [String]> {
    get { self[SearchEndpoint.self] }
    set { self[SearchEndpoint.self] = newValue }
  }
}
