import ReducerKitFFI

// The few lines that expose this package's features through the C ABI.
@_cdecl("reducerkit_register_features")
public func reducerkit_register_features() {
  FeatureRegistry.register(
    Feature(name: "scoreboard", description: "Two teams' scores.", initialState: Scoreboard.State()) {
      Scoreboard()
    }
  )
}
