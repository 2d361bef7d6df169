import ReducerKit

/// A counter with a one-second timer: enough to exercise TestStore and TestClock.
public struct Counter: Reducer {
  public init() {}

  public struct State: Equatable, Sendable {
    public var count = 0
    public var isTimerOn = false
    public init() {}
  }

  public enum Action: Equatable, Sendable {
    case increment
    case toggleTimer
    case timerTick
  }

  @Dependency(\.continuousClock) var clock
  private enum CancelID { case timer }

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .increment, .timerTick:
        state.count += 1
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
        .cancellable(id: CancelID.timer)
      }
    }
  }
}
