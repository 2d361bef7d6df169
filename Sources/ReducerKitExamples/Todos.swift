import ReducerKit
import ReducerKitWire

/// The `todos` example: a list of todos with a filter.
public struct Todos: Reducer {
  /// One todo.
  public struct Todo: Codable, Equatable, Identifiable, Sendable, WireCodable {
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
  ///
  /// `todos` is a ``TrackedArray``: a toggle finds its todo by id in O(1), and a host that
  /// watches the store (a patch subscriber, Python's `store.state`) pays for the todo that
  /// changed, not for the whole list. It encodes as a plain JSON array.
  ///
  /// `nextID` is the id the next todo gets. The initializers (decoding included) raise it above
  /// every id in `todos`, so adding a todo is O(1): no search for a free id. Code that appends
  /// todos itself should take their ids from `nextID` the same way.
  public struct State: Codable, Equatable, Sendable, WireCodable {
    public var todos: TrackedArray<Todo>
    public var filter: Filter
    public var nextID: Int

    /// A state of `todos` (ids should be unique; lookups by id find the first).
    public init(todos: [Todo] = [], filter: Filter = .all, nextID: Int = 1) {
      self.init(todos: TrackedArray(todos), filter: filter, nextID: nextID)
    }

    /// A state of `todos`.
    public init(todos: TrackedArray<Todo>, filter: Filter = .all, nextID: Int = 1) {
      self.todos = todos
      self.filter = filter
      self.nextID = Self.aboveEveryID(todos, nextID)
    }

    private enum CodingKeys: String, CodingKey { case todos, filter, nextID }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      let todos = try container.decode(TrackedArray<Todo>.self, forKey: .todos)
      self.init(
        todos: todos,
        filter: try container.decode(Filter.self, forKey: .filter),
        nextID: try container.decode(Int.self, forKey: .nextID))
    }

    /// `nextID`, or one more than the largest id when that is not below it (one pass, once
    /// per state made, and per action only when the todo with id `Int.max` goes away).
    /// While a todo has id `Int.max`, `nextID` is left as it is (it wrapped around).
    fileprivate static func aboveEveryID(_ todos: TrackedArray<Todo>, _ nextID: Int) -> Int {
      guard let largest = todos.lazy.map(\.id).max(), largest >= nextID, largest < .max else {
        return nextID
      }
      return largest + 1
    }

    /// The todos the filter shows.
    public var filtered: [Todo] {
      switch filter {
      case .all: return Array(todos)
      case .active: return todos.filter { !$0.isComplete }
      case .completed: return todos.filter(\.isComplete)
      }
    }
  }

  /// The todos' actions.
  public enum Action: Codable, Equatable, Sendable, WireCodable {
    case addTodo(title: String)
    case toggle(id: Int)
    case delete(id: Int)
    // Qualified: the generated shape (Wire.generated.swift) names it outside `Todos`.
    case setFilter(Todos.Filter)
    case clearCompleted
  }

  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .addTodo(title):
      // `nextID` is above every id (see `State`), so the first try is free; only after the
      // ids ran up to `Int.max` (nextID wrapped around) does it step to a free one.
      var id = state.nextID
      while state.todos.contains(id: id) { id = id == .max ? .min : id + 1 }
      state.todos.append(Todo(id: id, title: title))
      state.nextID = id == .max ? .min : id + 1
      return .none
    case let .toggle(id):
      state.todos[id: id]?.isComplete.toggle()  // O(log n): found by id
      return .none
    case let .delete(id):
      var removed = false
      while state.todos.remove(id: id) != nil { removed = true }  // a host may repeat ids
      // Without the todo at `Int.max`, `nextID` is raised above every id again: the state is
      // then the one a snapshot of it restores (decoding raises it so).
      if removed, id == .max { state.nextID = State.aboveEveryID(state.todos, state.nextID) }
      return .none
    case let .setFilter(filter):
      state.filter = filter
      return .none
    case .clearCompleted:
      let removesLargest = state.todos.contains { $0.isComplete && $0.id == .max }
      state.todos.removeAll(where: \.isComplete)
      if removesLargest { state.nextID = State.aboveEveryID(state.todos, state.nextID) }
      return .none
    }
  }
}
