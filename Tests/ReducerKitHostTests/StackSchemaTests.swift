@_spi(Host) import ReducerKit
import ReducerKitHost
import ReducerKitWire
import Testing

/// A stack element id's JSON Schema says what its decoding accepts (0 ..< Int.max), where a
/// probe of its `init(from:)` saw a plain `Int` and said negative ids were valid.
struct StackSchemaTests {
  @Test func theSchemaOfAStackIdIsTheRangeItDecodes() throws {
    guard case .object(let members) = jsonSchema(for: StackElementID.self) else {
      Issue.record("not an object")
      return
    }
    // Past the root's "$schema".
    #expect(
      JSONValue.object(members.filter { $0.key != "$schema" })
        == ["type": "integer", "minimum": 0, "maximum": .int(Int64(Int.max - 1))])
    // The bounds agree with decoding: each bound decodes, one past it does not.
    let decoder = WireDecoder()
    #expect(try decoder.decode(StackElementID.self, from: Array("0".utf8)).rawValue == 0)
    #expect(try decoder.decode(StackElementID.self, from: Array("\(Int.max - 1)".utf8)).rawValue == Int.max - 1)
    #expect(throws: (any Error).self) { try decoder.decode(StackElementID.self, from: Array("-1".utf8)) }
    #expect(throws: (any Error).self) { try decoder.decode(StackElementID.self, from: Array("\(Int.max)".utf8)) }
  }

  @Test func aStackAndItsActionsCarryTheIdSchema() {
    let id: JSONValue = ["type": "integer", "minimum": 0, "maximum": .int(Int64(Int.max - 1))]
    // Bool elements: the only integers in these schemas are the ids.
    let state = jsonSchema(for: StackState<Bool>.self)
    let action = jsonSchema(for: StackAction<Bool, Bool>.self)
    #expect(Self.contains(state, id), "\(state)")
    #expect(Self.contains(action, id), "\(action)")
    let anyInt: JSONValue = ["type": "integer", "minimum": .int(Int64.min), "maximum": .int(Int64.max)]
    #expect(!Self.contains(state, anyInt) && !Self.contains(action, anyInt))
  }

  private static func contains(_ value: JSONValue, _ part: JSONValue) -> Bool {
    if value == part { return true }
    switch value {
    case .array(let items): return items.contains { contains($0, part) }
    case .object(let members): return members.contains { contains($0.value, part) }
    default: return false
    }
  }
}
