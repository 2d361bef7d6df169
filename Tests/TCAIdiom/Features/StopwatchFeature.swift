import Foundation
import ReducerKitMacros

// A client as swift-dependencies users write it with @DependencyClient: `testValue` is
// `Self()`, every endpoint unimplemented until a test gives it one.
@DependencyClient
struct LapClient {
  var save: @Sendable (Int) async throws -> String
  var log: @Sendable (String) -> Void
}

extension LapClient: DependencyKey {
  static let liveValue = LapClient(save: { "lap at \($0) s" }, log: { _ in })
  static let testValue = LapClient()
}

extension DependencyValues {
  var lapClient: LapClient {
    get { self[LapClient.self] }
    set { self[LapClient.self] = newValue }
  }
}

/// A stopwatch: `clock.timer(interval:)`, a @DependencyClient endpoint, a cancellable save, and
/// a child scoped in TCA's newest spelling (`Scope(\.display, action: \.display)`).
@Reducer
struct StopwatchFeature {
  @ObservableState
  struct State: Equatable {
    var seconds = 0
    var isRunning = false
    var lastSaved: String?
    var display = DisplayFeature.State()
  }

  enum Action {
    case startStopButtonTapped
    case tick
    case saveButtonTapped
    case cancelSaveButtonTapped
    case saved(Result<String, any Error>)
    case display(DisplayFeature.Action)
  }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.lapClient) var lapClient
  private enum CancelID { case timer, save }

  var body: some ReducerOf<Self> {
    Scope(\.display, action: \.display) {
      DisplayFeature()
    }
    Reduce { state, action in
      switch action {
      case .startStopButtonTapped:
        state.isRunning.toggle()
        guard state.isRunning else { return .cancel(id: CancelID.timer) }
        return .run { send in
          for await _ in self.clock.timer(interval: .seconds(1)) {
            await send(.tick)
          }
        }
        .cancellable(id: CancelID.timer, cancelInFlight: true)

      case .tick:
        state.seconds += 1
        return .none

      case .saveButtonTapped:
        return .run { [seconds = state.seconds] send in
          await send(.saved(Result { try await self.lapClient.save(seconds) }))
        }
        .cancellable(id: CancelID.save, cancelInFlight: true)

      case .cancelSaveButtonTapped:
        return .cancel(id: CancelID.save)

      case .saved(.success(let text)):
        state.lastSaved = text
        return .none

      case .saved(.failure):
        state.lastSaved = nil
        return .none

      case .display:
        return .none
      }
    }
  }
}

@Reducer
struct DisplayFeature {
  @ObservableState
  struct State: Equatable {
    var isCompact = false
  }

  enum Action {
    case toggleCompactButtonTapped
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .toggleCompactButtonTapped:
        state.isCompact.toggle()
        return .none
      }
    }
  }
}
