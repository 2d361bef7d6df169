import ReducerKitWire

// Feature-like types, declared here (the real features live in other modules).

enum CounterAction: Codable, Equatable, Sendable {
  case increment
  case decrement
  case setCount(Int)
  case addTodo(title: String)
  case move(Int, Int)
}

struct Todo: Codable, Equatable, Identifiable, Sendable {
  var id: Int
  var title: String
  var isComplete: Bool

  enum Action: Codable, Equatable, Sendable {
    case toggle
    case setTitle(String)
    case setNote(String?)
  }
}

/// Like swift-composable-architecture's `IdentifiedAction`.
enum IdentifiedAction<ID: Hashable & Codable & Sendable, Action: Codable & Equatable & Sendable>:
  Codable, Equatable, Sendable
{
  case element(id: ID, action: Action)
}

enum Filter: String, Codable, CaseIterable, Equatable, Sendable {
  case all, active, completed
}

enum TodosAction: Codable, Equatable, Sendable {
  case todos(IdentifiedAction<Int, Todo.Action>)
  case addTodo(title: String)
  case setFilter(Filter)
  case clearCompleted
}

struct TodosState: Codable, Equatable, Sendable {
  var todos: [Todo]
  var filter: Filter
  var nextID: Int
  var editing: Int?
}

/// Cases outside the main table: mixed labels, struct and array payloads, optionals.
enum Mixed: Codable, Equatable, Sendable {
  case pair(Int, label: String)
  case triple(Int, Int, c: Int)
  case point(x: Int, y: Int)
  case wrap(Todo)
  case list([Int])
  case opt(Int?)
  case nested(CounterAction)
}

struct Node: Codable, Equatable, Sendable {
  var value: Int
  var children: [Node]
}

indirect enum Tree: Codable, Equatable, Sendable {
  case leaf(Int)
  case node(Tree, Tree)
}

enum Priority: Int, Codable, Equatable, Sendable {
  case low = 1, high = 2
}

enum Lonely: Codable, Equatable, Sendable {
  case only
}

struct Numbers: Codable, Equatable, Sendable {
  var i8: Int8
  var u8: UInt8
  var i64: Int64
  var u64: UInt64
  var d: Double
  var f: Float
}

let counterCases = [
  #""increment""#, #""decrement""#, #"{"setCount": <int>}"#, #"{"addTodo": {"title": <string>}}"#,
  #"{"move": [<int>, <int>]}"#,
]
let counterList = #"; expected one of: "increment", "decrement", {"setCount": <int>}, {"addTodo": {"title": <string>}}, {"move": [<int>, <int>]}"#
