import ReducerKit
import ReducerKitWire

/// The `counter` example: a count, a number fact fetched by an effect (through the host
/// endpoint `numberFact`), and a timer.
///
/// ```swift
/// let store = Store(initialState: Counter.State()) { Counter() }
/// store.send(.increment)
/// ```
public struct Counter: Reducer {
  /// The counter's state.
  public struct State: Codable, Equatable, Sendable, WireCodable {
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
  public enum Action: Codable, Equatable, Sendable, WireCodable {
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
          await send(.factResponse(try await numberFact(count)))
        } catch: { [count = state.count] error, send in
          // A failed request (the host's rk_store_fail) becomes the fact shown.
          let reason = (error as? HostEndpointError)?.message ?? "\(error)"
          await send(.factResponse("Could not load a fact about \(count): \(reason)"))
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

/// The counter's host endpoint `numberFact`: payload the count, response a sentence about it.
/// Its live implementation works offline; a host store created with
/// `{"provide": ["numberFact"]}` answers it instead.
public enum NumberFactEndpoint: DependencyKey {
  public static let liveValue = HostEndpoint<Int, String>("numberFact") { number in
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
  /// The number fact endpoint the counter example calls (`"numberFact"`).
  public var numberFact: HostEndpoint<Int, String> {
    get { self[NumberFactEndpoint.self] }
    set { self[NumberFactEndpoint.self] = newValue }
  }
}
