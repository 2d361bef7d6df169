#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import Testing
@testable import ReducerKitWire

/// The toolchain upgrade check: every assumption the codec makes about the Swift runtime
/// (listed in Sources/ReducerKitWire/Internal/ABI/Runtime.swift) must hold. At run time a failed
/// check only turns the fast paths off (or drops key lists from messages); here it fails
/// loudly, naming the assumption and what was read, so an upgrade is a change to that file.
@Suite struct LayoutTests {
  /// Whether this run asked for the plain paths (`REDUCERKIT_WIRE_FAST_PATHS=0`).
  static var fastPathsRequested: Bool {
    guard let value = getenv("REDUCERKIT_WIRE_FAST_PATHS") else { return true }
    return String(cString: value) != "0"
  }

  @Test func everyRuntimeAssumptionHoldsOnThisToolchain() {
    let checks = _wireRuntimeChecks.checks
    #expect(checks.map { String($0.id.prefix(2)) } == ["A1", "A2", "A3", "A7"])
    for check in checks {
      #expect(
        check.failure == nil,
        "runtime assumption \(check.id) no longer holds on this toolchain: \(check.failure ?? ""). See Sources/ReducerKitWire/Internal/ABI/Runtime.swift")
    }
  }

  /// The switch follows the environment (with every check holding), so the run with the fast
  /// paths off really runs the reference codec.
  @Test func theFastPathSwitchFollowsTheEnvironment() {
    #expect(_wireFastPaths == Self.fastPathsRequested)
  }
}
