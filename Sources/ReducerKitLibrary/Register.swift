import ReducerKitExamples
import ReducerKitFFI

/// The features `libreducerkit.so` ships: the examples. A user's own library defines this same
/// symbol to register its features instead (see examples/custom-feature).
@_cdecl("reducerkit_register_features")
public func reducerkit_register_features() {
  FeatureRegistry.register(
    Feature(
      name: "counter",
      description: "A count, a number fact fetched by an effect, and a 1-second timer.",
      initialState: Counter.State()
    ) { Counter() },
    Feature(
      name: "todos",
      description: "A todo list with a filter.",
      initialState: Todos.State()
    ) { Todos() },
    Feature(
      name: "search",
      description: "A query searched over an offline word list 300 ms after it stops changing.",
      initialState: Search.State()
    ) { Search() }
  )
}
