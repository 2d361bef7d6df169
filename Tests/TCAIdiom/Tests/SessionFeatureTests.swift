import ReducerKitMacros
import ReducerKitTesting
import Testing

@MainActor
struct SessionFeatureTests {
  @Test func loginThenLogout() async {
    let store = TestStore(initialState: SessionFeature.State.login(LoginFeature.State())) {
      SessionFeature()
    } withDependencies: {
      $0.authenticationClient.login = { email, _ in "token-\(email)" }
    }
    await store.send(\.login.emailChanged, "blob@example.com") {
      $0.login?.email = "blob@example.com"
    }
    await store.send(\.login.passwordChanged, "secret") {
      $0.login?.password = "secret"
    }
    await store.send(\.login.loginButtonTapped) {
      $0.login?.isLoginRequestInFlight = true
    }
    await store.receive(\.login.loginResponse.success, "token-blob@example.com") {
      $0 = .home(HomeFeature.State(token: "token-blob@example.com"))
    }
    await store.send(\.home.visitButtonTapped) {
      $0.home?.visits = 1
    }
    #expect(store.state.is(\.home))
    await store.send(.home(.logoutButtonTapped)) {
      $0 = .login(LoginFeature.State())
    }
  }

  @Test func loginFailure() async {
    let store = TestStore(initialState: SessionFeature.State.login(LoginFeature.State())) {
      SessionFeature()
    } withDependencies: {
      $0.authenticationClient.login = { _, _ in throw InvalidCredentials() }
    }
    await store.send(\.login.loginButtonTapped) {
      $0.login?.isLoginRequestInFlight = true
    }
    await store.receive(\.login.loginResponse.failure) {
      $0.login?.isLoginRequestInFlight = false
      $0.login?.error = "Invalid email or password."
    }
  }

  @Test func cancelLogin() async {
    let clock = TestClock()
    let store = TestStore(initialState: SessionFeature.State.login(LoginFeature.State())) {
      SessionFeature()
    } withDependencies: {
      $0.authenticationClient.login = { _, _ in
        try await clock.sleep(for: .seconds(5))
        return "late"
      }
    }
    await store.send(\.login.loginButtonTapped) {
      $0.login?.isLoginRequestInFlight = true
    }
    await store.send(\.login.cancelButtonTapped) {
      $0.login?.isLoginRequestInFlight = false
    }
    await clock.advance(by: .seconds(10))
  }

  @Test func homeActionWhileLoggedOutIsReported() async {
    let store = TestStore(initialState: SessionFeature.State.login(LoginFeature.State())) {
      SessionFeature()
    }
    await withKnownIssue {
      await store.send(\.home.visitButtonTapped)
    }
  }
}
