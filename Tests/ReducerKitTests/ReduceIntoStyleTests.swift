// `reduce(into:action:)`-style features: the counter with a number-fact effect, the todos feature, and the
// README's XCTest-style reducer tests. URLSession and `TodoAPI` are replaced by dependencies.
import Foundation
import ReducerKit
import ReducerKitTesting
import Testing
import XCTest

// MARK: - Dependencies standing in for the network

/// Replaces `URLSession.shared.data(from: "http://numbersapi.com/\(count)/trivia")`.
struct NumberFactClient: Sendable {
  var fetch: @Sendable (Int) async throws -> String
}

extension NumberFactClient: DependencyKey {
  static let liveValue = NumberFactClient { "\($0) is a good number." }
  static let testValue = NumberFactClient { "\($0) is a test number." }
}

extension DependencyValues {
  var numberFact: NumberFactClient {
    get { self[NumberFactClient.self] }
    set { self[NumberFactClient.self] = newValue }
  }
}

struct Todo: Equatable, Identifiable, Sendable {
  let id: Int
  var title: String
  var isCompleted = false
}

/// Replaces the README's static `TodoAPI`.
struct TodoAPIClient: Sendable {
  var fetchTodos: @Sendable () async -> Result<[Todo], Error>
  var createTodo: @Sendable (_ title: String) async -> Todo
}

extension TodoAPIClient: DependencyKey {
  static let liveValue = TodoAPIClient(
    fetchTodos: { .success([]) },
    createTodo: { Todo(id: 1, title: $0) })
}

extension DependencyValues {
  var todoAPI: TodoAPIClient {
    get { self[TodoAPIClient.self] }
    set { self[TodoAPIClient.self] = newValue }
  }
}

// MARK: - The README's reducers

struct CounterReducer: Reducer {
  struct State: Equatable {
    var count: Int = 0
    var isLoading: Bool = false
    var numberFact: String?
  }

  enum Action: Sendable {
    case increment
    case decrement
    case numberFactButtonTapped
    case numberFactResponse(String)
  }

  @Dependency(\.numberFact) var numberFact

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment:
      state.count += 1
      return .none

    case .decrement:
      state.count -= 1
      return .none

    case .numberFactButtonTapped:
      state.isLoading = true
      state.numberFact = nil
      return .run { [count = state.count] send in
        do {
          let fact = try await numberFact.fetch(count)
          await send(.numberFactResponse(fact))
        } catch {
          await send(.numberFactResponse("팩트를 불러오는데 실패했습니다"))
        }
      }

    case let .numberFactResponse(fact):
      state.isLoading = false
      state.numberFact = fact
      return .none
    }
  }
}

struct TodosReducer: Reducer {
  struct State: Equatable {
    var todos: [Todo] = []
    var isLoading: Bool = false
    var error: String?
  }

  enum Action: Sendable {
    case loadTodos
    case todosLoaded(Result<[Todo], Error>)
    case addTodo(String)
    case todoAdded(Todo)
    case toggleTodo(Todo.ID)
  }

  @Dependency(\.todoAPI) var todoAPI

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .loadTodos:
      state.isLoading = true
      state.error = nil
      return .run { send in
        let result = await todoAPI.fetchTodos()
        await send(.todosLoaded(result))
      }

    case let .todosLoaded(.success(todos)):
      state.isLoading = false
      state.todos = todos
      return .none

    case let .todosLoaded(.failure(error)):
      state.isLoading = false
      state.error = error.localizedDescription
      return .none

    case let .addTodo(title):
      return .run { send in
        let todo = await todoAPI.createTodo(title)
        await send(.todoAdded(todo))
      }

    case let .todoAdded(todo):
      state.todos.append(todo)
      return .none

    case let .toggleTodo(id):
      guard let index = state.todos.firstIndex(where: { $0.id == id }) else {
        return .none
      }
      state.todos[index].isCompleted.toggle()
      return .none
    }
  }
}

// MARK: - The README's XCTest tests, as written there

final class CounterReducerTests: XCTestCase {
  func testIncrement() {
    var state = CounterReducer.State(count: 0)
    let reducer = CounterReducer()

    let effect = reducer.reduce(into: &state, action: .increment)

    XCTAssertEqual(state.count, 1)
    XCTAssertEqual(effect, .none)
  }

  func testDecrement() {
    var state = CounterReducer.State(count: 5)
    let reducer = CounterReducer()

    let effect = reducer.reduce(into: &state, action: .decrement)

    XCTAssertEqual(state.count, 4)
    XCTAssertEqual(effect, .none)
  }

  func testNumberFactRequest() {
    var state = CounterReducer.State(count: 42)
    let reducer = CounterReducer()

    let effect = reducer.reduce(into: &state, action: .numberFactButtonTapped)

    XCTAssertTrue(state.isLoading)
    XCTAssertNil(state.numberFact)
    // "Effect 테스트는 추가 설정이 필요합니다": here it is at least recognisably not `.none`.
    XCTAssertNotEqual(effect, .none)
    XCTAssertFalse(effect.isNone)
  }

  func testNumberFactResponse() {
    var state = CounterReducer.State(count: 42, isLoading: true)
    let effect = CounterReducer().reduce(into: &state, action: .numberFactResponse("42!"))
    XCTAssertEqual(state, CounterReducer.State(count: 42, isLoading: false, numberFact: "42!"))
    XCTAssertEqual(effect, .none)
  }
}

// MARK: - Behaviour through stores

private func isResponse(_ fact: String) -> (CounterReducer.Action) -> Bool {
  { action in
    if case .numberFactResponse(fact) = action { true } else { false }
  }
}

@Suite(.testStoreIssues) struct ReduceIntoCounterTests {
  @Test func storeAsTheReadmeCreatesIt() async {
    let store = Store(
      initialState: CounterReducer.State(),
      reducer: CounterReducer()
    )
    store.send(.increment)
    store.send(.increment)
    store.send(.decrement)
    #expect(store.state.count == 1)
    await store.send(.numberFactButtonTapped).finish()
    #expect(store.state.isLoading == false)
    #expect(store.state.numberFact == "1 is a good number.")
  }

  @Test func numberFactFlow() async {
    let store = TestStore(initialState: CounterReducer.State(count: 42)) { CounterReducer() }
    await store.send(.numberFactButtonTapped) { $0.isLoading = true }
    await store.receive(isResponse("42 is a test number.")) {
      $0.isLoading = false
      $0.numberFact = "42 is a test number."
    }
    await store.send(.increment) { $0.count = 43 }
    await store.send(.numberFactButtonTapped) {
      $0.isLoading = true
      $0.numberFact = nil  // the old fact is cleared while loading
    }
    await store.receive(isResponse("43 is a test number.")) {
      $0.isLoading = false
      $0.numberFact = "43 is a test number."
    }
    await store.finish()
  }

  @Test func numberFactFailureShowsTheReadmesMessage() async {
    struct Offline: Error {}
    let store = TestStore(initialState: CounterReducer.State()) { CounterReducer() } withDependencies: {
      $0.numberFact = NumberFactClient { _ in throw Offline() }
    }
    await store.send(.numberFactButtonTapped) { $0.isLoading = true }
    await store.receive(isResponse("팩트를 불러오는데 실패했습니다")) {
      $0.isLoading = false
      $0.numberFact = "팩트를 불러오는데 실패했습니다"
    }
    await store.finish()
  }
}

@Suite(.testStoreIssues) struct ReduceIntoTodosTests {
  struct ServerDown: LocalizedError {
    var errorDescription: String? { "The server is down." }
  }

  static let sample = [Todo(id: 1, title: "Milk"), Todo(id: 2, title: "Eggs")]

  @Test func loadTodosSuccess() async {
    let store = TestStore(initialState: TodosReducer.State()) { TodosReducer() } withDependencies: {
      $0.todoAPI.fetchTodos = { .success(Self.sample) }
    }
    await store.send(.loadTodos) { $0.isLoading = true }
    await store.receive({ if case .todosLoaded(.success) = $0 { true } else { false } }) {
      $0.isLoading = false
      $0.todos = Self.sample
    }
    await store.finish()
  }

  @Test func loadTodosFailureShowsTheErrorAndClearsItOnRetry() async {
    let fail = Locked(true)
    let store = TestStore(initialState: TodosReducer.State()) { TodosReducer() } withDependencies: {
      $0.todoAPI.fetchTodos = { fail.value ? .failure(ServerDown()) : .success(Self.sample) }
    }
    await store.send(.loadTodos) { $0.isLoading = true }
    await store.receive({ if case .todosLoaded(.failure) = $0 { true } else { false } }) {
      $0.isLoading = false
      $0.error = "The server is down."
    }
    fail.value = false
    await store.send(.loadTodos) {
      $0.isLoading = true
      $0.error = nil
    }
    await store.receive({ if case .todosLoaded(.success) = $0 { true } else { false } }) {
      $0.isLoading = false
      $0.todos = Self.sample
    }
    await store.finish()
  }

  @Test func addAndToggleTodos() async {
    let nextID = Locked(10)
    let store = TestStore(initialState: TodosReducer.State()) { TodosReducer() } withDependencies: {
      $0.todoAPI.createTodo = { title in
        Todo(id: nextID.withLock { id in
          defer { id += 1 }
          return id
        }, title: title)
      }
    }
    await store.send(.addTodo("Milk"))
    await store.receive({ if case .todoAdded = $0 { true } else { false } }) {
      $0.todos = [Todo(id: 10, title: "Milk")]
    }
    await store.send(.addTodo("Eggs"))
    await store.receive({ if case .todoAdded = $0 { true } else { false } }) {
      $0.todos.append(Todo(id: 11, title: "Eggs"))
    }
    await store.send(.toggleTodo(11)) { $0.todos[1].isCompleted = true }
    await store.send(.toggleTodo(11)) { $0.todos[1].isCompleted = false }
    await store.send(.toggleTodo(999))  // unknown id: no change
    await store.finish()
  }

  @Test func toggleReturnsNoEffect() {
    var state = TodosReducer.State(todos: Self.sample)
    let effect = TodosReducer().reduce(into: &state, action: .toggleTodo(1))
    #expect(effect == .none)
    #expect(state.todos[0].isCompleted)
    #expect(TodosReducer().reduce(into: &state, action: .toggleTodo(42)) == .none)
  }
}
