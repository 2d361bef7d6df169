import ReducerKitMacros

/// A ticking timer, shown as optional child state.
@Reducer
struct TickerFeature {
  @ObservableState
  struct State: Equatable {
    var ticks = 0
  }

  enum Action: Equatable {
    case onAppear
    case tick
  }

  @Dependency(\.continuousClock) var clock

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .onAppear:
        return .run { send in
          while true {
            try await clock.sleep(for: .seconds(1))
            await send(.tick)
          }
        }
      case .tick:
        state.ticks += 1
        return .none
      }
    }
  }
}

/// Navigation-style optional child state with `ifLet`: hiding the child cancels its effects.
@Reducer
struct TimerSheetFeature {
  @ObservableState
  struct State: Equatable {
    var ticker: TickerFeature.State?
  }

  enum Action {
    case ticker(TickerFeature.Action)
    case toggleTickerButtonTapped
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .ticker:
        return .none
      case .toggleTickerButtonTapped:
        state.ticker = state.ticker == nil ? TickerFeature.State() : nil
        return .none
      }
    }
    .ifLet(\.ticker, action: \.ticker) {
      TickerFeature()
    }
  }
}

/// Composes two features side by side with `Scope` on case key paths.
@Reducer
struct DashboardFeature {
  @ObservableState
  struct State: Equatable {
    var counter = CounterFeature.State()
    var timerSheet = TimerSheetFeature.State()
  }

  enum Action {
    case counter(CounterFeature.Action)
    case timerSheet(TimerSheetFeature.Action)
  }

  var body: some ReducerOf<Self> {
    Scope(state: \.counter, action: \.counter) {
      CounterFeature()
    }
    Scope(state: \.timerSheet, action: \.timerSheet) {
      TimerSheetFeature()
    }
  }
}

/// A sheet of a plain feature (`@Presents` with a trailing closure) and an optional enum of
/// features (`ifLet` without one).
@Reducer
struct SheetsFeature {
  @ObservableState
  struct State: Equatable {
    @Presents var counter: CounterFeature.State?
    var mode: Mode.State?
  }

  enum Action {
    case counter(PresentationAction<CounterFeature.Action>)
    case mode(Mode.Action)
    case showCounterButtonTapped
    case showTickerModeButtonTapped
  }

  @Reducer(state: .equatable)
  enum Mode {
    case ticker(TickerFeature)
    case search(SearchFeature)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .counter, .mode:
        return .none
      case .showCounterButtonTapped:
        state.counter = CounterFeature.State()
        return .none
      case .showTickerModeButtonTapped:
        state.mode = .ticker(TickerFeature.State())
        return .none
      }
    }
    .ifLet(\.$counter, action: \.counter) {
      CounterFeature()
    }
    .ifLet(\.mode, action: \.mode)
  }
}
