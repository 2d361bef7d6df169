#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import Testing
@testable import ReducerKitWire

@Suite struct LayoutTests {
  /// Whether this run asked for the plain paths (`REDUCERKIT_WIRE_FAST_PATHS=0`).
  static var fastPathsRequested: Bool {
    guard let value = getenv("REDUCERKIT_WIRE_FAST_PATHS") else { return true }
    return String(cString: value) != "0"
  }

  /// The switch follows the environment, so the run with the fast paths off really runs the
  /// plain paths (`make test` runs this suite both ways).
  @Test func theFastPathSwitchFollowsTheEnvironment() {
    #expect(_wireFastPaths == Self.fastPathsRequested)
  }

  /// With the fast paths on, the codec reuses keyed-container boxes only when its run-time
  /// layout check holds. If a toolchain changed the layout it checks, this fails (the codec
  /// itself would silently fall back and get slower).
  @Test func keyedContainerBoxesCanBeReused() {
    #expect(
      _canReuseKeyedDecodingBoxes == _wireFastPaths,
      "the decoder's box-reuse check failed on this toolchain: KeyedDecodingContainer is no longer one reference to a KeyedDecodingContainerBox (DecodingContainers.swift, _canReuseKeyedDecodingBoxes)")
    #expect(
      _canReuseKeyedBoxes == _wireFastPaths,
      "the encoder's box-reuse check failed on this toolchain: KeyedEncodingContainer is no longer one reference to a KeyedEncodingContainerBox (EncoderImpl.swift, _canReuseKeyedBoxes)")
  }
}
