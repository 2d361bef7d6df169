// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "ReducerKit",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "ReducerKit", targets: ["ReducerKit"]),
    .library(name: "ReducerKitTesting", targets: ["ReducerKitTesting"]),
    .library(name: "ReducerKitWire", targets: ["ReducerKitWire"]),
  ],
  dependencies: [
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.1.1"),
    .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
  ],
  targets: [
    .target(
      name: "ReducerKit",
      dependencies: [
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
      ]
    ),
    .target(
      name: "ReducerKitTesting",
      dependencies: [
        "ReducerKit",
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    .target(name: "ReducerKitWire"),
    .testTarget(name: "ReducerKitTests", dependencies: ["ReducerKit", "ReducerKitTesting"]),
    .testTarget(name: "ReducerKitWireTests", dependencies: ["ReducerKitWire"]),
  ],
  swiftLanguageModes: [.v6]
)

// TEMPORARY (development only): lets parallel work on one module not break another's build.
import Foundation
if ProcessInfo.processInfo.environment["RK_DEV_SKIP_WIRE"] != nil {
  package.targets.removeAll { $0.name.hasPrefix("ReducerKitWire") }
  package.products.removeAll { $0.name == "ReducerKitWire" }
}
