import ReducerKitFFI

extension Feature {
  /// The scoreboard as hosts create it, with the host endpoint its effects call (a host
  /// answers it with {"provide": ["saveScore"]}).
  public static let scoreboard = Feature(
    name: "scoreboard",
    description: "Two teams' scores, saved through the host.",
    initialState: Scoreboard.State(),
    stateVersion: Scoreboard.stateVersion,
    migrations: Scoreboard.migrations,
    endpoints: [.endpoint(\.saveScore)]
  ) {
    Scoreboard()
  }
}

// The few lines that expose this package's features through the C ABI.
@_cdecl("reducerkit_register_features")
public func reducerkit_register_features() {
  FeatureRegistry.register(.scoreboard)
}
