// The Swift demo: drives the example stores and prints every state.
//
//   swift run reducerkit-demo        (or: make demo)
import ReducerKit
import ReducerKitExamples

func show<State>(_ label: String, _ state: State) { print("  \(label): \(state)") }

print("== counter (Store, effects, a subscription)")
let counter = Store(initialState: Counter.State()) { Counter() }
let subscription = counter.subscribe(select: \.count) { print("  subscriber sees count = \($0)") }
counter.send(.increment)
counter.send(.increment)
counter.send(.setCount(41))
await counter.send(.factButtonTapped).finish()
show("state", counter.state)
subscription.cancel()

print("== counter timer on a TestClock (time moves only when advanced)")
let clock = TestClock()
let timer = Store(initialState: Counter.State()) { Counter() } withDependencies: {
  $0.continuousClock = clock
}
timer.send(.toggleTimer)
await clock.advance(by: .seconds(3))
show("after 3 s", timer.state)
timer.send(.toggleTimer)
await clock.advance(by: .seconds(5))
show("timer off, 5 s later", timer.state)

print("== todos")
let todos = Store(initialState: Todos.State()) { Todos() }
todos.send(.addTodo(title: "Milk"))
todos.send(.addTodo(title: "Eggs"))
todos.send(.toggle(id: 1))
todos.send(.setFilter(.active))
show("all", todos.todos.map { "\($0.id) \($0.title)\($0.isComplete ? " ✓" : "")" })
show("active", todos.state.filtered.map(\.title))

print("== search (debounced 300 ms on a TestClock)")
let searchClock = TestClock()
let search = Store(initialState: Search.State()) { Search() } withDependencies: {
  $0.continuousClock = searchClock
}
search.send(.queryChanged("s"))
await searchClock.advance(by: .milliseconds(100))
search.send(.queryChanged("sw"))
await searchClock.advance(by: .milliseconds(299))
show("after 299 ms", search.state)
await searchClock.advance(by: .milliseconds(1))
show("after 300 ms", search.state)
