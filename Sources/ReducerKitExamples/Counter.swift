import ReducerKit

/// The `counter` example: a count, a number fact fetched by an effect, and a timer.
///
/// ```swift
/// let store = Store(initialState: Counter.State()) { Counter() }
/// store.send(.increment)
/// ```
public struct Counter: Reducer {
  /// The counter's state.
  public struct State: Codable, Equatable, Sendable {
    public var count: Int
    public var fact: String?
    public var isTimerOn: Bool

    public init(count: Int = 0, fact: String? = nil, isTimerOn: Bool = false) {
      self.count = count
      self.fact = fact
      self.isTimerOn = isTimerOn
    }
  }

  /// The counter's actions.
  public enum Action: Codable, Equatable, Sendable {
    case increment
    case decrement
    case setCount(Int)
    case factButtonTapped
    case factResponse(String)
    case toggleTimer
    case timerTick
  }

  enum CancelID { case timer }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.numberFact) var numberFact

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .increment:
        // Saturating: a host can set any Int; the reducer must never trap on overflow.
        state.count = state.count.addingReportingOverflow(1).overflow ? state.count : state.count + 1
        return .none
      case .decrement:
        state.count = state.count.subtractingReportingOverflow(1).overflow ? state.count : state.count - 1
        return .none
      case let .setCount(count):
        state.count = count
        return .none
      case .factButtonTapped:
        state.fact = nil
        return .run { [count = state.count, numberFact] send in
          await send(.factResponse(try await numberFact.fetch(count)))
        }
      case let .factResponse(fact):
        state.fact = fact
        return .none
      case .toggleTimer:
        state.isTimerOn.toggle()
        guard state.isTimerOn else { return .cancel(id: CancelID.timer) }
        return .run { [clock] send in
          while true {
            try await clock.sleep(for: .seconds(1))
            await send(.timerTick)
          }
        }
        .cancellable(id: CancelID.timer, cancelInFlight: true)
      case .timerTick:
        state.count = state.count.addingReportingOverflow(1).overflow ? state.count : state.count + 1
        return .none
      }
    }
  }
}

/// Gives a fact about a number. The live value works offline.
public struct NumberFactClient: Sendable {
  /// Returns a fact about the number.
  public var fetch: @Sendable (Int) async throws -> String

  public init(fetch: @escaping @Sendable (Int) async throws -> String) { self.fetch = fetch }
}

extension NumberFactClient: DependencyKey {
  public static let liveValue = NumberFactClient { number in
    let facts = [
      0: "0 is the additive identity.",
      1: "1 is the multiplicative identity.",
      2: "2 is the only even prime.",
      3: "3 is the number of spatial dimensions we perceive.",
      7: "7 is the number of days in a week.",
      12: "12 is the number of months in a year.",
      42: "42 is the answer to the ultimate question.",
    ]
    return facts[number] ?? "\(number) is a good number."
  }
}

extension DependencyValues {
  /// The number fact client the counter example uses.
  public var numberFact: NumberFactClient {
    get { self[NumberFactClient.self] }
    set { self[NumberFactClient.self] = newValue }
  }
}
