import ReducerKit
import ReducerKitFFI
import ReducerKitMacros  // @Wire

/// A user's feature: two teams' scores, saved through a host endpoint.
public struct Scoreboard: Reducer {
  @Wire
  public struct State: Codable, Equatable, Sendable {
    public var home = 0
    public var away = 0
    public var log: [String] = []
    /// The receipt of the last save, if any.
    public var saved: Receipt?
    public init() {}
  }

  public enum Team: String, Codable, CaseIterable, Sendable { case home, away }

  @Wire
  public enum Action: Codable, Equatable, Sendable {
    case score(team: Team, points: Int)
    case reset
    /// Saves the score through the `saveScore` endpoint.
    case save
    case saved(Receipt)
  }

  @Dependency(\.saveScore) var saveScore

  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .score(team, points):
      switch team {
      case .home: state.home = state.home &+ points
      case .away: state.away = state.away &+ points
      }
      state.log.append("\(team.rawValue) +\(points)")
      return .none
    case .reset:
      state = State()
      return .none
    case .save:
      let report = Report(home: state.home, away: state.away)
      return .run { [saveScore] send in
        await send(.saved(try await saveScore(report)))
      } catch: { error, _ in
        // A failed save changes nothing; say why on standard error.
        print("scoreboard: save failed: \(error)")
      }
    case let .saved(receipt):
      state.saved = receipt
      state.log.append("saved as \(receipt.id)")
      return .none
    }
  }
}

/// What `saveScore` sends: the score.
public struct Report: Codable, Equatable, Sendable {
  public var home: Int
  public var away: Int
}

/// What `saveScore` answers: where the score was saved, and its rank.
public struct Receipt: Codable, Equatable, Sendable {
  public var id: String
  public var rank: Int
  public init(id: String, rank: Int) {
    self.id = id
    self.rank = rank
  }
}

/// The host endpoint `saveScore`. Its Swift implementation keeps nothing (ids "local-1", …);
/// a host that creates the store with `{"provide": ["saveScore"]}` saves for real.
private enum SaveScoreEndpoint: DependencyKey {
  static let liveValue = HostEndpoint<Report, Receipt>("saveScore") { report in
    Receipt(id: "local-\(report.home)-\(report.away)", rank: 0)
  }
}

extension DependencyValues {
  /// Saves a score (endpoint `saveScore`).
  public var saveScore: HostEndpoint<Report, Receipt> {
    get { self[SaveScoreEndpoint.self] }
    set { self[SaveScoreEndpoint.self] = newValue }
  }
}
