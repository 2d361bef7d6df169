import Testing
@testable import ReducerKitWire

@Suite struct LayoutTests {
  /// The decoder reuses keyed-container boxes only when its run-time layout check holds; if it
  /// silently failed, decoding arrays of structs would get slower.
  @Test func keyedContainerBoxesCanBeReused() {
    #expect(_canReuseKeyedDecodingBoxes)
  }
}
