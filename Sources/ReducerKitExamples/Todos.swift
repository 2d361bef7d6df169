import ReducerKit

/// The `todos` example: a list of todos with a filter.
public struct Todos: Reducer {
  /// One todo.
  public struct Todo: Codable, Equatable, Identifiable, Sendable {
    public var id: Int
    public var title: String
    public var isComplete: Bool

    public init(id: Int, title: String, isComplete: Bool = false) {
      self.id = id
      self.title = title
      self.isComplete = isComplete
    }
  }

  /// Which todos to show.
  public enum Filter: String, Codable, CaseIterable, Equatable, Sendable {
    case all, active, completed
  }

  /// The todos' state.
  public struct State: Codable, Equatable, Sendable {
    public var todos: [Todo]
    public var filter: Filter
    public var nextID: Int

    public init(todos: [Todo] = [], filter: Filter = .all, nextID: Int = 1) {
      self.todos = todos
      self.filter = filter
      self.nextID = nextID
    }

    /// The todos the filter shows.
    public var filtered: [Todo] {
      switch filter {
      case .all: return todos
      case .active: return todos.filter { !$0.isComplete }
      case .completed: return todos.filter(\.isComplete)
      }
    }
  }

  /// The todos' actions.
  public enum Action: Codable, Equatable, Sendable {
    case addTodo(title: String)
    case toggle(id: Int)
    case delete(id: Int)
    case setFilter(Filter)
    case clearCompleted
  }

  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .addTodo(title):
      // Ids come from `nextID`; skip any already taken (an initial state may hold any ids).
      var id = state.nextID
      while state.todos.contains(where: { $0.id == id }) { id = id == .max ? .min : id + 1 }
      state.todos.append(Todo(id: id, title: title))
      state.nextID = id == .max ? .min : id + 1
      return .none
    case let .toggle(id):
      if let index = state.todos.firstIndex(where: { $0.id == id }) {
        state.todos[index].isComplete.toggle()
      }
      return .none
    case let .delete(id):
      state.todos.removeAll { $0.id == id }
      return .none
    case let .setFilter(filter):
      state.filter = filter
      return .none
    case .clearCompleted:
      state.todos.removeAll(where: \.isComplete)
      return .none
    }
  }
}
