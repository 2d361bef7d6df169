import ReducerKitMacros

// An authentication client as swift-dependencies users write one.
struct AuthenticationClient: Sendable {
  var login: @Sendable (_ email: String, _ password: String) async throws -> String
}

struct InvalidCredentials: Error, Equatable {}

extension AuthenticationClient: DependencyKey {
  static let liveValue = AuthenticationClient { email, password in
    guard password == "password" else { throw InvalidCredentials() }
    return "token-\(email)"
  }
}

extension DependencyValues {
  var authenticationClient: AuthenticationClient {
    get { self[AuthenticationClient.self] }
    set { self[AuthenticationClient.self] = newValue }
  }
}

/// A login form whose request can be cancelled.
@Reducer
struct LoginFeature {
  @ObservableState
  struct State: Equatable {
    var email = ""
    var password = ""
    var isLoginRequestInFlight = false
    var error: String?
  }

  enum Action {
    case cancelButtonTapped
    case emailChanged(String)
    case loginButtonTapped
    case loginResponse(Result<String, any Error>)
    case passwordChanged(String)
  }

  enum CancelID { case login }

  @Dependency(\.authenticationClient) var authenticationClient

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .cancelButtonTapped:
        state.isLoginRequestInFlight = false
        return .cancel(id: CancelID.login)

      case let .emailChanged(email):
        state.email = email
        return .none

      case .loginButtonTapped:
        state.isLoginRequestInFlight = true
        state.error = nil
        return .run { [email = state.email, password = state.password] send in
          await send(
            .loginResponse(
              Result { try await authenticationClient.login(email, password) }))
        }
        .cancellable(id: CancelID.login)

      case .loginResponse(.success):
        // The parent moves on to the signed-in screen.
        state.isLoginRequestInFlight = false
        return .none

      case .loginResponse(.failure):
        state.isLoginRequestInFlight = false
        state.error = "Invalid email or password."
        return .none

      case let .passwordChanged(password):
        state.password = password
        return .none
      }
    }
  }
}

/// The signed-in screen.
@Reducer
struct HomeFeature {
  @ObservableState
  struct State: Equatable {
    var token: String
    var visits = 0
  }

  enum Action: Equatable {
    case logoutButtonTapped
    case visitButtonTapped
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .logoutButtonTapped:
        return .none
      case .visitButtonTapped:
        state.visits += 1
        return .none
      }
    }
  }
}

/// The app's root: enum state (one case per screen), each screen run by `ifCaseLet`.
@Reducer
struct SessionFeature {
  @ObservableState
  enum State: Equatable {
    case login(LoginFeature.State)
    case home(HomeFeature.State)
  }

  enum Action {
    case home(HomeFeature.Action)
    case login(LoginFeature.Action)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .login(.loginResponse(.success(token))):
        state = .home(HomeFeature.State(token: token))
        return .none

      case .home(.logoutButtonTapped):
        state = .login(LoginFeature.State())
        return .none

      case .home, .login:
        return .none
      }
    }
    .ifCaseLet(\.login, action: \.login) {
      LoginFeature()
    }
    .ifCaseLet(\.home, action: \.home) {
      HomeFeature()
    }
  }
}
