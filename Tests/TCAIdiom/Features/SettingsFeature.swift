import ReducerKitMacros

/// A form whose fields a UI binds to: `BindingReducer` sets them, the feature reacts after.
@Reducer
struct SettingsFeature {
  @ObservableState
  struct State: Equatable {
    var displayName = ""
    var fontSize = 12
    var isHaptic = false
    var message = ""
  }

  enum Action: BindableAction, Equatable {
    case binding(BindingAction<State>)
    case resetButtonTapped
  }

  var body: some ReducerOf<Self> {
    BindingReducer()
    Reduce { state, action in
      switch action {
      case .binding(\.displayName):
        // The field is already set when this reducer runs.
        state.message = state.displayName.isEmpty ? "" : "Hello, \(state.displayName)!"
        return .none
      case .binding:
        return .none
      case .resetButtonTapped:
        state = State()
        return .none
      }
    }
  }
}
