@testable import App
import ReducerKitTesting
import XCTest

final class XCTestTests: XCTestCase {
  func testPasses() async {
    let store = TestStore(initialState: Counter.State()) { Counter() }
    await store.send(.increment) { $0.count = 1 }
  }

  /// Deliberately wrong: `make test-user-package` runs it alone and expects `swift test` to fail.
  func testWrongStateExpectation() async {
    let store = TestStore(initialState: Counter.State()) { Counter() }
    await store.send(.increment) { $0.count = 5 }
  }
}
