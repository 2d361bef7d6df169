import ReducerKitMacros
import ReducerKitTesting
import Testing

@MainActor
struct SettingsFeatureTests {
  @Test func bindingActionsSetTheFieldBeforeTheFeatureRuns() async {
    let store = TestStore(initialState: SettingsFeature.State()) {
      SettingsFeature()
    }
    await store.send(.binding(.set(\.displayName, "Blob"))) {
      $0.displayName = "Blob"
      $0.message = "Hello, Blob!"
    }
    await store.send(\.binding.fontSize, 14) {
      $0.fontSize = 14
    }
    await store.send(.set(\.isHaptic, true)) {
      $0.isHaptic = true
    }
    await store.send(.resetButtonTapped) {
      $0 = SettingsFeature.State()
    }
  }

  @Test func bindingActionsCompareByFieldAndValue() {
    typealias Binding = BindingAction<SettingsFeature.State>
    #expect(Binding.set(\.displayName, "a") == .set(\.displayName, "a"))
    #expect(Binding.set(\.displayName, "a") != .set(\.displayName, "b"))
    #expect(Binding.set(\.displayName, "a") != .set(\.message, "a"))
    let action = SettingsFeature.Action.binding(.set(\.fontSize, 20))
    #expect(action.binding == .set(\.fontSize, 20))
    #expect(action[case: \.binding.fontSize] == 20)
    #expect(action[case: \.binding.displayName] == nil)
    #expect(SettingsFeature.Action.resetButtonTapped.binding == nil)
    #expect(Binding.set(\.fontSize, 20).debugDescription.contains("20"))
  }

  @Test func aBindingTheTestDidNotExpectFails() async {
    let store = TestStore(initialState: SettingsFeature.State()) {
      SettingsFeature()
    }
    await withKnownIssue {
      await store.send(.binding(.set(\.fontSize, 14))) {
        $0.fontSize = 15
      }
    }
  }
}
