import ReducerKit

/// A user's feature: two teams' scores.
public struct Scoreboard: Reducer {
  public struct State: Codable, Equatable, Sendable {
    public var home = 0
    public var away = 0
    public var log: [String] = []
    public init() {}
  }

  public enum Team: String, Codable, CaseIterable, Sendable { case home, away }

  public enum Action: Codable, Equatable, Sendable {
    case score(team: Team, points: Int)
    case reset
  }

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
    }
  }
}
