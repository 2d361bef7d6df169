// swift-tools-version: 6.1
// A user's own package exposing its own Swift features to C and Python through ReducerKit.
import PackageDescription

let package = Package(
  name: "custom-feature",
  platforms: [.macOS(.v15)],
  products: [
    // libscoreboard.so: the ReducerKit C ABI (include/reducerkit.h) with this package's features.
    .library(name: "scoreboard", type: .dynamic, targets: ["Scoreboard"])
  ],
  dependencies: [
    // traits: [] leaves out forEach over IdentifiedArray, whose package imports all of
    // Foundation: the library stays small. Drop it to use IdentifiedArray.
    .package(name: "ReducerKit", path: "../..", traits: [])
  ],
  targets: [
    .target(
      name: "Scoreboard",
      dependencies: [
        .product(name: "ReducerKit", package: "ReducerKit"),
        .product(name: "ReducerKitFFI", package: "ReducerKit"),
      ]
    )
  ],
  swiftLanguageModes: [.v6]
)
