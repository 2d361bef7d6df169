// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Scoreboard",
  platforms: [.macOS(.v15)],
  products: [
    // libscoreboard.so: the C interface of include/reducerkit.h, with this package's features.
    .library(name: "scoreboard", type: .dynamic, targets: ["Scoreboard"])
  ],
  dependencies: [
    .package(name: "ReducerKit", path: "../..")
  ],
  targets: [
    .target(
      name: "Scoreboard",
      dependencies: [
        .product(name: "ReducerKit", package: "ReducerKit"),
        .product(name: "ReducerKitFFI", package: "ReducerKit"),
        // `@Wire` (optional: without it the feature's types stay `SynthesizedCodable`, and
        // swift-syntax is not built).
        .product(name: "ReducerKitMacros", package: "ReducerKit"),
      ]
    ),
    // The package's scenarios (scenarios/*.scenario.json), run by ReducerKitHostTesting.
    .testTarget(
      name: "ScoreboardTests",
      dependencies: ["Scoreboard", .product(name: "ReducerKitHostTesting", package: "ReducerKit")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
