import ReducerKit
import ReducerKitWire

/// The `todos` example over a plain Swift array: the same actions and JSON, without
/// ``TrackedArray``. A toggle searches the array, and a host reading patches pays for
/// comparing the array with the copy the patch engine keeps (element by element, O(n)):
/// the baseline the benchmarks measure change tracking against (`todos_untracked` in the
/// shipped library).
public struct UntrackedTodos: Reducer {
  /// The state: ``Todos/State`` with `todos` a plain array.
  public struct State: SynthesizedCodable, Equatable, Sendable {
    public var todos: [Todos.Todo]
    public var filter: Todos.Filter
    public var nextID: Int

    public init(todos: [Todos.Todo] = [], filter: Todos.Filter = .all, nextID: Int = 1) {
      self.todos = todos
      self.filter = filter
      self.nextID = max(nextID, (todos.lazy.map(\.id).max() ?? 0) &+ 1)
    }
  }

  public typealias Action = Todos.Action

  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .addTodo(title):
      var id = state.nextID
      if id == .max || state.nextID < (state.todos.last?.id ?? .min) {
        let taken = Set(state.todos.lazy.map(\.id))
        while taken.contains(id) { id = id == .max ? .min : id + 1 }
      }
      state.todos.append(Todos.Todo(id: id, title: title))
      state.nextID = id == .max ? .min : id + 1
    case let .toggle(id):
      if let index = state.todos.firstIndex(where: { $0.id == id }) {
        state.todos[index].isComplete.toggle()
      }
    case let .delete(id):
      state.todos.removeAll { $0.id == id }
    case let .setFilter(filter):
      state.filter = filter
    case .clearCompleted:
      state.todos.removeAll(where: \.isComplete)
    }
    return .none
  }
}
