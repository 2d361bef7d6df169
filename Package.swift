// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription

let package = Package(
  name: "ReducerKit",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "ReducerKit", targets: ["ReducerKit"]),
    .library(name: "ReducerKitTesting", targets: ["ReducerKitTesting"]),
    .library(name: "ReducerKitWire", targets: ["ReducerKitWire"]),
    .library(name: "ReducerKitExamples", targets: ["ReducerKitExamples"]),
    .library(name: "ReducerKitHost", targets: ["ReducerKitHost"]),
    .library(name: "ReducerKitHostTesting", targets: ["ReducerKitHostTesting"]),
    .library(name: "ReducerKitFFI", targets: ["ReducerKitFFI"]),
    // TCA's authoring macros (@Reducer, @CasePathable, @ObservableState, @Presents). Optional:
    // only a package that uses this product builds swift-syntax.
    .library(name: "ReducerKitMacros", targets: ["ReducerKitMacros"]),
    // libreducerkit.so: the C ABI plus the example features.
    .library(name: "reducerkit", type: .dynamic, targets: ["ReducerKitLibrary"]),
  ],
  traits: [
    .trait(
      name: "IdentifiedCollections",
      description: "forEach over IdentifiedArray (swift-identified-collections). Off by default: "
        + "that package imports Foundation, so a statically linked library built with it carries "
        + "all of Foundation and ICU (~60 MB more). Turn it on with "
        + "`.package(url: ..., traits: [\"IdentifiedCollections\"])`."
    ),
    // No default traits: a user's library (see "Exposing your own features") stays small.
    .default(enabledTraits: []),
  ],
  dependencies: [
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.1.1"),
    .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
    // Only the ReducerKitMacros product builds it. A range, so that a user's graph with other
    // macro packages (which pin their own ranges) still resolves; 603 parses Swift 6.3 syntax.
    .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"604.0.0"),
  ],
  targets: [
    // The platform vocabulary (a lock, a locked value, a condition, the thread id) every module
    // below uses; internal to the package.
    .target(name: "ReducerKitPlatform"),
    .target(
      name: "ReducerKit",
      dependencies: [
        "ReducerKitPlatform",
        .product(
          name: "IdentifiedCollections", package: "swift-identified-collections",
          condition: .when(traits: ["IdentifiedCollections"])),
      ]
    ),
    .target(
      name: "ReducerKitTesting",
      dependencies: [
        "ReducerKitPlatform", "ReducerKit",
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        // Links the bridge IssueReporting finds at run time to fail the running Swift Testing
        // or XCTest test. Without it a user's test target that depends on ReducerKitTesting
        // alone would see failures printed and the test pass.
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
        "CReducerKitTestingSupport",
      ]
    ),
    .target(name: "CReducerKitTestingSupport"),
    // The Swift scenario runner: a TestStore of any registered `Feature` (the host runtime and
    // the test store; no C door).
    .target(
      name: "ReducerKitHostTesting",
      dependencies: [
        "ReducerKitHost", "ReducerKitTesting", "ReducerKitWire",
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    .target(name: "ReducerKitWire", dependencies: ["ReducerKitPlatform", "CReducerKitShims"]),
    // The shipped features. Their `WireCodable` shapes are `@Wire`'s expansion, committed
    // (Wire.generated.swift, `make generate-wire`), so building libreducerkit.so needs no
    // swift-syntax; WireGeneratedTests fails when the file differs from what `@Wire` writes.
    .target(name: "ReducerKitExamples", dependencies: ["ReducerKit", "ReducerKitWire"]),
    .target(name: "CReducerKitShims"),
    // The Swift host runtime: features, host stores, requests, recording, scenarios. JSON in and
    // out; no C types.
    .target(name: "ReducerKitHost", dependencies: ["ReducerKitPlatform", "ReducerKit", "ReducerKitWire", "CReducerKitShims"]),
    // The C door: the @_cdecl exports of include/reducerkit.h over the host runtime.
    .target(name: "ReducerKitFFI", dependencies: ["ReducerKitPlatform", "ReducerKitHost", "ReducerKit", "ReducerKitWire", "CReducerKitShims"]),
    .target(name: "ReducerKitLibrary", dependencies: ["ReducerKitFFI", "ReducerKitExamples"]),
    // The compiler plugin: the macros' implementations (swift-syntax). Never linked into a
    // library; the compiler runs it while building code that uses ReducerKitMacros.
    .macro(
      name: "ReducerKitMacrosPlugin",
      dependencies: [
        "ReducerKitMacrosSupport",
        .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
      ]
    ),
    // The macros' code (the plugin's, and the one definition `reducerkit-wire-gen` and the
    // expansion tests use): a library, so that they need not link the macro target.
    .target(
      name: "ReducerKitMacrosSupport",
      dependencies: [
        .product(name: "SwiftBasicFormat", package: "swift-syntax"),
        .product(name: "SwiftDiagnostics", package: "swift-syntax"),
        .product(name: "SwiftParser", package: "swift-syntax"),
        .product(name: "SwiftSyntax", package: "swift-syntax"),
        .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
      ]
    ),
    // `make generate-wire`: writes Sources/ReducerKitExamples/Wire.generated.swift.
    .executableTarget(name: "reducerkit-wire-gen", dependencies: ["ReducerKitMacrosSupport"]),
    // The macros' declarations; re-exports ReducerKit, as `import ComposableArchitecture` does.
    .target(name: "ReducerKitMacros", dependencies: ["ReducerKit", "ReducerKitWire", "ReducerKitMacrosPlugin"]),
    .executableTarget(
      name: "reducerkit-demo",
      dependencies: ["ReducerKit", "ReducerKitExamples"],
      path: "examples/swift"
    ),
    .executableTarget(
      name: "reducerkit-bench",
      dependencies: ["ReducerKit"],
      path: "benchmarks/swift"
    ),
    // What every Swift test target shares (scaled caps of waits); not a product.
    .target(name: "ReducerKitTestSupport", path: "Tests/Support"),
    .testTarget(
      name: "ReducerKitTests",
      dependencies: [
        "ReducerKit", "ReducerKitTesting", "ReducerKitTestSupport",
      ]
    ),
    // Expansion tests of each macro (assertMacroExpansion).
    .testTarget(
      name: "ReducerKitMacrosPluginTests",
      dependencies: [
        "ReducerKitMacrosSupport",
        .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
        // WireMacroTests (XCTest's assertMacroExpansion).
        .product(name: "SwiftSyntaxMacrosTestSupport", package: "swift-syntax"),
      ]
    ),
    // Features written in TCA's current idiom, with their TestStore tests.
    .testTarget(
      name: "TCAIdiomTests",
      dependencies: ["ReducerKitMacros", "ReducerKitTesting", "ReducerKitTestSupport"],
      path: "Tests/TCAIdiom"
    ),
    .testTarget(name: "ReducerKitPlatformTests", dependencies: ["ReducerKitPlatform", "ReducerKitTestSupport"]),
    .testTarget(name: "ReducerKitWireTests", dependencies: ["ReducerKitWire", "ReducerKitTestSupport"]),
    .testTarget(
      name: "ReducerKitHostTests",
      dependencies: [
        "ReducerKitExamples", "ReducerKitWire", "ReducerKitTesting", "ReducerKitHost", "ReducerKitHostTesting", "ReducerKitFFI", "ReducerKitTestSupport",
        "ReducerKitMacros",
      ]
    ),
    .testTarget(
      name: "ReducerKitAdapterTests",
      dependencies: [
        "ReducerKit", "ReducerKitTesting", "ReducerKitTestSupport",
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)

// Warnings are errors in every library target (the tests and the executables keep them as
// warnings). A setting, not an unsafe flag, so the package stays usable as a versioned
// dependency: SwiftPM drops warning settings when it builds a package fetched by URL.
for target in package.targets where target.type == .regular {
  if target.name.hasPrefix("C") {
    target.cSettings = (target.cSettings ?? []) + [.treatAllWarnings(as: .error)]
  } else {
    target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
  }
}
