import Testing
import ReducerKitWire

@Suite struct SchemaTests {
  let prefix = #"{"$schema":"https://json-schema.org/draft/2020-12/schema","#

  @Test func counterActionSchema() {
    #expect(
      jsonSchema(for: CounterAction.self).serialized()
        == prefix
        + #""oneOf":[{"const":"increment"},{"const":"decrement"},"#
        + #"{"type":"object","properties":{"setCount":{"type":"integer"}},"required":["setCount"],"additionalProperties":false},"#
        + #"{"type":"object","properties":{"addTodo":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}},"required":["addTodo"],"additionalProperties":false},"#
        + #"{"type":"object","properties":{"move":{"type":"array","prefixItems":[{"type":"integer"},{"type":"integer"}],"minItems":2,"maxItems":2}},"required":["move"],"additionalProperties":false}]}"#
    )
  }

  @Test func todosStateSchema() {
    #expect(
      jsonSchema(for: TodosState.self).serialized()
        == prefix
        + #""type":"object","properties":{"#
        + #""todos":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"title":{"type":"string"},"isComplete":{"type":"boolean"}},"required":["id","title","isComplete"]}},"#
        + #""filter":{"type":"string","enum":["all","active","completed"]},"#
        + #""nextID":{"type":"integer"},"#
        + #""editing":{"type":["integer","null"]}},"#
        + #""required":["todos","filter","nextID"]}"#
    )
  }

  @Test func todosActionSchema() {
    #expect(
      jsonSchema(for: TodosAction.self).serialized()
        == prefix
        + #""oneOf":[{"type":"object","properties":{"todos":{"oneOf":[{"type":"object","properties":{"element":"#
        + #"{"type":"object","properties":{"id":{"type":"integer"},"action":{"oneOf":[{"const":"toggle"},"#
        + #"{"type":"object","properties":{"setTitle":{"type":"string"}},"required":["setTitle"],"additionalProperties":false},"#
        + #"{"type":"object","properties":{"setNote":{"type":["string","null"]}},"required":["setNote"],"additionalProperties":false}]}},"#
        + #""required":["id","action"]}},"required":["element"],"additionalProperties":false}]}},"required":["todos"],"additionalProperties":false},"#
        + #"{"type":"object","properties":{"addTodo":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}},"required":["addTodo"],"additionalProperties":false},"#
        + #"{"type":"object","properties":{"setFilter":{"type":"string","enum":["all","active","completed"]}},"required":["setFilter"],"additionalProperties":false},"#
        + #"{"const":"clearCompleted"}]}"#
    )
  }

  @Test func otherShapes() {
    #expect(jsonSchema(for: Int.self) == ["$schema": "https://json-schema.org/draft/2020-12/schema", "type": "integer"])
    #expect(jsonSchema(for: [String: Int].self)["additionalProperties"] == ["type": "integer"])
    #expect(jsonSchema(for: Priority.self)["enum"] == [1, 2])
    #expect(jsonSchema(for: Lonely.self)["enum"] == ["only"])
    #expect(jsonSchema(for: Numbers.self)["properties"]?["i8"] == ["type": "integer", "minimum": -128, "maximum": 127])
    #expect(jsonSchema(for: Numbers.self)["properties"]?["u64"] == ["type": "integer", "minimum": 0])
    #expect(jsonSchema(for: Numbers.self)["properties"]?["d"] == ["type": "number"])
    #expect(jsonSchema(for: JSONValue.self) == ["$schema": "https://json-schema.org/draft/2020-12/schema"])
  }

  @Test func recursiveTypesAreCut() {
    #expect(
      jsonSchema(for: Node.self).serialized()
        == prefix
        + #""type":"object","properties":{"value":{"type":"integer"},"children":{"type":"array","items":{"$comment":"recursive reference to Node"}}},"required":["value","children"]}"#
    )
    #expect(
      jsonSchema(for: Tree.self).serialized()
        == prefix
        + #""oneOf":[{"type":"object","properties":{"leaf":{"type":"integer"}},"required":["leaf"],"additionalProperties":false},"#
        + #"{"type":"object","properties":{"node":{"type":"array","prefixItems":[{"$comment":"recursive reference to Tree"},{"$comment":"recursive reference to Tree"}],"minItems":2,"maxItems":2}},"required":["node"],"additionalProperties":false}]}"#
    )
    #expect(caseSignatures(of: Tree.self) == ["leaf(Int)", "node(Tree, Tree)"])
  }

  @Test func signatures() {
    #expect(caseSignatures(of: CounterAction.self) == counterCases)
    #expect(caseSignatures(of: Todo.Action.self) == ["toggle", "setTitle(String)", "setNote(String?)"])
    #expect(
      caseSignatures(of: Mixed.self)
        == [
          "pair(Int, label: String)", "triple(Int, Int, c: Int)", "point(x: Int, y: Int)", "wrap(Todo)",
          "list([Int])", "opt(Int?)", "nested(CounterAction)",
        ])
    #expect(caseSignatures(of: Filter.self) == ["all", "active", "completed"])
    #expect(caseSignatures(of: Priority.self) == ["1", "2"])
    #expect(caseSignatures(of: Todo.self) == [])
    #expect(caseSignatures(of: Int.self) == [])
  }

  @Test func signaturesAreCachedAndThreadSafe() async {
    await withTaskGroup(of: [String].self) { group in
      for _ in 0..<8 { group.addTask { caseSignatures(of: TodosAction.self) } }
      for await result in group {
        #expect(result == ["todos(IdentifiedAction<Int, Action>)", "addTodo(title: String)", "setFilter(Filter)", "clearCompleted"])
      }
    }
  }

  @Test func validatingInitsYieldPartialSchemas() {
    struct Strict: Decodable {
      var name: String
      var age: Int
      init(from decoder: any Decoder) throws {
        enum K: CodingKey { case name, age }
        let c = try decoder.container(keyedBy: K.self)
        name = try c.decode(String.self, forKey: .name)
        guard !name.isEmpty else { throw DecodingError.dataCorruptedError(forKey: .name, in: c, debugDescription: "empty") }
        age = try c.decode(Int.self, forKey: .age)
      }
    }
    #expect(jsonSchema(for: Strict.self)["properties"] == ["name": ["type": "string"]])
  }
}
