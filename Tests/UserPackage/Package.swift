// swift-tools-version: 6.1
// A user's package, set up exactly as the README's install snippet says: the app depends on
// "ReducerKit", the test target on "ReducerKitTesting" alone. `make test-user-package` runs it
// against this checkout (linked as ../ReducerKit) and checks that wrong expectations fail.
import PackageDescription

let package = Package(
  name: "UserApp",
  platforms: [.macOS(.v15), .iOS(.v18)],
  dependencies: [
    .package(path: "../ReducerKit")
  ],
  targets: [
    .target(name: "App", dependencies: [.product(name: "ReducerKit", package: "ReducerKit")]),
    .testTarget(
      name: "AppTests",
      dependencies: ["App", .product(name: "ReducerKitTesting", package: "ReducerKit")]
    ),
  ]
)
