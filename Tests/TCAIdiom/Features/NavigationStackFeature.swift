import Foundation
import ReducerKitMacros

/// A navigation stack in TCA's idiom: `StackState` of a `@Reducer enum`'s states,
/// `StackActionOf<Path>`, `forEach(\.path, action: \.path)` without a closure, pushes from the
/// parent and from a screen's action, `pop(to:)`, `removeAll()`, a screen with a timer
/// whose effect ends when the screen is popped, and a screen that closes itself with
/// `@Dependency(\.dismiss)`, pushed or presented (`@Presents`).
@Reducer
struct NavigationStackFeature {
  @Reducer(state: .equatable)
  enum Path {
    case counter(CounterFeature)
    case menu(MenuScreen)
  }

  @ObservableState
  struct State: Equatable {
    var path = StackState<Path.State>()
    @Presents var about: MenuScreen.State?
  }

  enum Action {
    case about(PresentationAction<MenuScreen.Action>)
    case aboutButtonTapped
    case backToScreen(id: StackElementID)
    case openMenuAndCounterTapped
    case path(StackActionOf<Path>)
    case popToRoot
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .about:
        return .none

      case .aboutButtonTapped:
        state.about = MenuScreen.State()
        return .none

      case let .backToScreen(id):
        state.path.pop(to: id)
        return .none

      case .openMenuAndCounterTapped:
        state.path.append(.menu(MenuScreen.State()))
        state.path.append(.counter(CounterFeature.State()))
        return .none

      case .path(.element(id: _, action: .menu(.counterButtonTapped))):
        state.path.append(.counter(CounterFeature.State()))
        return .none

      case .path(.element(id: _, action: .menu(.menuButtonTapped))):
        state.path.append(.menu(MenuScreen.State()))
        return .none

      case .path:
        return .none

      case .popToRoot:
        state.path.removeAll()
        return .none
      }
    }
    .forEach(\.path, action: \.path)
    .ifLet(\.$about, action: \.about) { MenuScreen() }
  }
}

/// A screen that pushes other screens through its parent.
@Reducer
struct MenuScreen {
  @ObservableState
  struct State: Equatable {
    var visits = 0
  }

  enum Action {
    case closeButtonTapped
    case counterButtonTapped
    case menuButtonTapped
    case onAppear
  }

  @Dependency(\.dismiss) var dismiss

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .closeButtonTapped:
        return .run { _ in await dismiss() }
      case .counterButtonTapped, .menuButtonTapped:
        return .none
      case .onAppear:
        state.visits += 1
        return .none
      }
    }
  }
}
