import Foundation
import ReducerKitMacros

/// One song of a playlist.
@Reducer
struct SongFeature {
  @ObservableState
  struct State: Equatable, Identifiable {
    let id: UUID
    var title: String
    var isFavorite = false
  }

  enum Action: Equatable {
    case favoriteToggled
    case titleChanged(String)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .favoriteToggled:
        state.isFavorite.toggle()
        return .none
      case let .titleChanged(title):
        state.title = title
        return .none
      }
    }
  }
}

/// A playlist: a collection of child features (`forEach` over an `IdentifiedArray`), with
/// favourites moved to the top a moment after the last change (a cancellable, restartable
/// effect on the clock dependency).
@Reducer
struct PlaylistFeature {
  @ObservableState
  struct State: Equatable {
    var songs: IdentifiedArrayOf<SongFeature.State> = []
  }

  enum Action {
    case addSongButtonTapped
    case deleteFavoritesButtonTapped
    case songs(IdentifiedActionOf<SongFeature>)
    case sortFavorites
  }

  enum CancelID { case sort }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.uuid) var uuid

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .addSongButtonTapped:
        state.songs.insert(SongFeature.State(id: uuid(), title: ""), at: 0)
        return .none

      case .deleteFavoritesButtonTapped:
        state.songs.removeAll(where: \.isFavorite)
        return .none

      case .songs(.element(id: _, action: .favoriteToggled)):
        return .run { send in
          try await clock.sleep(for: .seconds(1))
          await send(.sortFavorites)
        }
        .cancellable(id: CancelID.sort, cancelInFlight: true)

      case .songs:
        return .none

      case .sortFavorites:
        let songs = state.songs.elements
        state.songs = IdentifiedArray(
          uniqueElements: songs.filter(\.isFavorite) + songs.filter { !$0.isFavorite })
        return .none
      }
    }
    .forEach(\.songs, action: \.songs) {
      SongFeature()
    }
  }
}
