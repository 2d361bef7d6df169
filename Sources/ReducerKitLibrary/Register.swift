import ReducerKitExamples
import ReducerKitFFI

/// The features `libreducerkit.so` ships: the examples. A user's own library defines this same
/// symbol to register its features instead (see examples/custom-feature).
@_cdecl("reducerkit_register_features")
public func reducerkit_register_features() {
  FeatureRegistry.register(
    Feature(
      name: "counter",
      description: "A count, a number fact fetched by an effect (endpoint numberFact), and a 1-second timer.",
      initialState: Counter.State(),
      endpoints: [.endpoint(\.numberFact)]
    ) { Counter() },
    Feature(
      name: "todos",
      description: "A todo list with a filter.",
      initialState: Todos.State()
    ) { Todos() },
    Feature(
      name: "search",
      description: "A query searched (endpoint search: an offline word list by default) 300 ms after it stops changing.",
      initialState: Search.State(),
      endpoints: [.endpoint(\.search)]
    ) { Search() },
    Feature(
      name: "todos_untracked",
      description: "The todos feature over a plain array (no change tracking): the baseline for benchmarks.",
      initialState: UntrackedTodos.State()
    ) { UntrackedTodos() }
  )
}
