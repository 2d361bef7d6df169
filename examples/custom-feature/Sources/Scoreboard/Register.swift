import ReducerKitFFI

// The few lines that expose this package's features through the C ABI, with the host
// endpoints their effects call (a host answers them with {"provide": ["saveScore"]}).
@_cdecl("reducerkit_register_features")
public func reducerkit_register_features() {
  FeatureRegistry.register(
    Feature(
      name: "scoreboard",
      description: "Two teams' scores, saved through the host.",
      initialState: Scoreboard.State(),
      endpoints: [.endpoint(\.saveScore)]
    ) {
      Scoreboard()
    }
  )
}
