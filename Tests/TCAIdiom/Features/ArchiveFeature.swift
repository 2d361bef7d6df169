import ReducerKitMacros

/// A `@Reducer enum` destination with a feature case and an alert case.
@Reducer
struct ArchiveFeature {
  @ObservableState
  struct State: Equatable {
    var items: [String] = []
    @Presents var destination: Destination.State?
  }

  enum Action: Equatable {
    case clearButtonTapped
    case destination(PresentationAction<Destination.Action>)
    case tickerButtonTapped

    @CasePathable
    enum Alert: Equatable {
      case confirmClear
    }
  }

  @Reducer(state: .equatable, action: .equatable)
  enum Destination {
    case alert(AlertState<ArchiveFeature.Action.Alert>)
    case ticker(TickerFeature)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .clearButtonTapped:
        state.destination = .alert(
          AlertState {
            TextState("Clear \(state.items.count) items?")
          } actions: {
            ButtonState(role: .destructive, action: .confirmClear) { TextState("Clear") }
            ButtonState(role: .cancel) { TextState("Cancel") }
          })
        return .none

      case .destination(.presented(.alert(.confirmClear))):
        state.items = []
        return .none

      case .destination:
        return .none

      case .tickerButtonTapped:
        state.destination = .ticker(TickerFeature.State())
        return .none
      }
    }
    .ifLet(\.$destination, action: \.destination)
  }
}
