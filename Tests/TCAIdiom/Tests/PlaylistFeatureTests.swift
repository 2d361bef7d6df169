import Foundation
import ReducerKitMacros
import ReducerKitTesting
import Testing

@MainActor
struct PlaylistFeatureTests {
  let first = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
  let second = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!

  @Test func addAndEdit() async {
    let store = TestStore(initialState: PlaylistFeature.State()) {
      PlaylistFeature()
    } withDependencies: {
      $0.uuid = .incrementing
    }
    await store.send(.addSongButtonTapped) {
      $0.songs = [SongFeature.State(id: self.first, title: "")]
    }
    await store.send(\.songs[id: first].titleChanged, "Blue in Green") {
      $0.songs[id: self.first]?.title = "Blue in Green"
    }
  }

  @Test func favoritesMoveUpAfterASecond() async {
    let clock = TestClock()
    let store = TestStore(
      initialState: PlaylistFeature.State(songs: [
        SongFeature.State(id: first, title: "So What"),
        SongFeature.State(id: second, title: "Freddie Freeloader"),
      ])
    ) {
      PlaylistFeature()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.songs(.element(id: second, action: .favoriteToggled))) {
      $0.songs[id: self.second]?.isFavorite = true
    }
    await clock.advance(by: .milliseconds(500))
    // A second change restarts the wait (cancelInFlight).
    await store.send(\.songs[id: first].favoriteToggled) {
      $0.songs[id: self.first]?.isFavorite = true
    }
    await store.send(\.songs[id: first].favoriteToggled) {
      $0.songs[id: self.first]?.isFavorite = false
    }
    await clock.advance(by: .milliseconds(999))
    #expect(store.state.songs.ids.elements == [first, second])
    await clock.advance(by: .milliseconds(1))
    await store.receive(\.sortFavorites) {
      $0.songs = [
        SongFeature.State(id: self.second, title: "Freddie Freeloader", isFavorite: true),
        SongFeature.State(id: self.first, title: "So What"),
      ]
    }
  }

  @Test func deleteFavorites() async {
    let store = TestStore(
      initialState: PlaylistFeature.State(songs: [
        SongFeature.State(id: first, title: "So What", isFavorite: true),
        SongFeature.State(id: second, title: "Freddie Freeloader"),
      ])
    ) {
      PlaylistFeature()
    }
    await store.send(.deleteFavoritesButtonTapped) {
      $0.songs.remove(id: self.first)
    }
  }
}
