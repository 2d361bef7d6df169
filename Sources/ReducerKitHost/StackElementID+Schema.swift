@_spi(Host) import ReducerKit
import ReducerKitWire

// A stack element id decodes from the integers 0 ..< Int.max only (StackElementID's
// `init(from:)`): its JSON Schema says so, where probing would see a plain `Int`.
extension StackElementID: _WireSchemaProviding {
  package static var _wireSchema: JSONValue {
    ["type": "integer", "minimum": 0, "maximum": .int(Int64(Int.max - 1))]
  }
}
