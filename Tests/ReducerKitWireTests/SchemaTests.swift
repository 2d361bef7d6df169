import Testing
import ReducerKitWire

@Suite struct SchemaTests {
  let prefix = #"{"$schema":"https://json-schema.org/draft/2020-12/schema","#

  @Test func counterActionSchema() {
    #expect(
      jsonSchema(for: CounterAction.self).serialized()
        == prefix
        + #""oneOf":[{"anyOf":[{"const":"increment"},{"type":"object","properties":{"increment":{"type":["object","null"],"maxProperties":0}},"required":["increment"],"additionalProperties":false}]},{"anyOf":[{"const":"decrement"},{"type":"object","properties":{"decrement":{"type":["object","null"],"maxProperties":0}},"required":["decrement"],"additionalProperties":false}]},"#
        + #"{"type":"object","properties":{"setCount":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}},"required":["setCount"],"additionalProperties":false},"#
        + #"{"type":"object","properties":{"addTodo":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"],"additionalProperties":false}},"required":["addTodo"],"additionalProperties":false},"#
        + #"{"type":"object","properties":{"move":{"type":"array","prefixItems":[{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}],"minItems":2,"maxItems":2}},"required":["move"],"additionalProperties":false}]}"#
    )
  }

  @Test func todosStateSchema() {
    #expect(
      jsonSchema(for: TodosState.self).serialized()
        == prefix
        + #""type":"object","properties":{"#
        + #""todos":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"title":{"type":"string"},"isComplete":{"type":"boolean"}},"required":["id","title","isComplete"],"additionalProperties":false}},"#
        + #""filter":{"type":"string","enum":["all","active","completed"]},"#
        + #""nextID":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"#
        + #""editing":{"type":["integer","null"],"minimum":-9223372036854775808,"maximum":9223372036854775807}},"#
        + #""required":["todos","filter","nextID"],"additionalProperties":false}"#
    )
  }

  @Test func todosActionSchema() {
    #expect(
      jsonSchema(for: TodosAction.self).serialized()
        == prefix
        + #""oneOf":[{"type":"object","properties":{"todos":{"oneOf":[{"type":"object","properties":{"element":"#
        + #"{"type":"object","properties":{"id":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"action":{"oneOf":[{"anyOf":[{"const":"toggle"},{"type":"object","properties":{"toggle":{"type":["object","null"],"maxProperties":0}},"required":["toggle"],"additionalProperties":false}]},"#
        + #"{"type":"object","properties":{"setTitle":{"type":"string"}},"required":["setTitle"],"additionalProperties":false},"#
        + #"{"type":"object","properties":{"setNote":{"type":["string","null"]}},"required":["setNote"],"additionalProperties":false}]}},"#
        + #""required":["id","action"],"additionalProperties":false}},"required":["element"],"additionalProperties":false}]}},"required":["todos"],"additionalProperties":false},"#
        + #"{"type":"object","properties":{"addTodo":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"],"additionalProperties":false}},"required":["addTodo"],"additionalProperties":false},"#
        + #"{"type":"object","properties":{"setFilter":{"type":"string","enum":["all","active","completed"]}},"required":["setFilter"],"additionalProperties":false},"#
        + #"{"anyOf":[{"const":"clearCompleted"},{"type":"object","properties":{"clearCompleted":{"type":["object","null"],"maxProperties":0}},"required":["clearCompleted"],"additionalProperties":false}]}]}"#
    )
  }

  @Test func otherShapes() {
    // Integers carry their exact range (the decoder rejects values outside it).
    #expect(
      jsonSchema(for: Int.self)
        == ["$schema": "https://json-schema.org/draft/2020-12/schema", "type": "integer", "minimum": .int(.min), "maximum": .int(.max)])
    #expect(jsonSchema(for: [String: Int].self)["additionalProperties"] == ["type": "integer", "minimum": .int(.min), "maximum": .int(.max)])
    #expect(jsonSchema(for: [String: Int].self)["properties"] == nil)
    #expect(jsonSchema(for: Priority.self)["enum"] == [1, 2])
    #expect(jsonSchema(for: Lonely.self)["enum"] == ["only"])
    #expect(jsonSchema(for: Numbers.self)["properties"]?["i8"] == ["type": "integer", "minimum": -128, "maximum": 127])
    #expect(jsonSchema(for: Numbers.self)["properties"]?["u64"] == ["type": "integer", "minimum": 0, "maximum": .number("18446744073709551615")])
    #expect(jsonSchema(for: Numbers.self)["properties"]?["d"] == ["type": "number"])
    #expect(jsonSchema(for: JSONValue.self) == ["$schema": "https://json-schema.org/draft/2020-12/schema"])
  }

  @Test func recursiveTypesAreCut() {
    #expect(
      jsonSchema(for: Node.self).serialized()
        == prefix
        + #""type":"object","properties":{"value":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"children":{"type":"array","items":{"$comment":"recursive reference to Node"}}},"required":["value","children"],"additionalProperties":false}"#
    )
    #expect(
      jsonSchema(for: Tree.self).serialized()
        == prefix
        + #""oneOf":[{"type":"object","properties":{"leaf":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}},"required":["leaf"],"additionalProperties":false},"#
        + #"{"type":"object","properties":{"node":{"type":"array","prefixItems":[{"$comment":"recursive reference to Tree"},{"$comment":"recursive reference to Tree"}],"minItems":2,"maxItems":2}},"required":["node"],"additionalProperties":false}]}"#
    )
    #expect(caseSignatures(of: Tree.self) == [#"{"leaf": <int>}"#, #"{"node": [<Tree>, <Tree>]}"#])
  }

  @Test func signatures() {
    #expect(caseSignatures(of: CounterAction.self) == counterCases)
    #expect(caseSignatures(of: Todo.Action.self) == [#""toggle""#, #"{"setTitle": <string>}"#, #"{"setNote": <string|null>}"#])
    #expect(
      caseSignatures(of: Mixed.self)
        == [
          #"{"pair": {"_0": <int>, "label": <string>}}"#, #"{"triple": {"_0": <int>, "_1": <int>, "c": <int>}}"#,
          #"{"point": {"x": <int>, "y": <int>}}"#, #"{"wrap": <Todo>}"#, #"{"list": [<int>]}"#,
          #"{"opt": <int|null>}"#, #"{"nested": <CounterAction>}"#,
        ])
    #expect(caseSignatures(of: Filter.self) == [#""all""#, #""active""#, #""completed""#])
    #expect(caseSignatures(of: Priority.self) == ["1", "2"])
    #expect(caseSignatures(of: Todo.self) == [])
    #expect(caseSignatures(of: Int.self) == [])
  }

  @Test func signaturesAreCachedAndThreadSafe() async {
    await withTaskGroup(of: [String].self) { group in
      for _ in 0..<8 { group.addTask { caseSignatures(of: TodosAction.self) } }
      for await result in group {
        #expect(
          result == [
            #"{"todos": <IdentifiedAction<Int, Action>>}"#, #"{"addTodo": {"title": <string>}}"#,
            #"{"setFilter": <Filter>}"#, #""clearCompleted""#,
          ])
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
    // `age` was never read: the decoder accepts any value for it, so the schema does too.
    #expect(jsonSchema(for: Strict.self)["properties"] == ["name": ["type": "string"], "age": [:]])
    #expect(jsonSchema(for: Strict.self)["additionalProperties"] == false)
  }
}
