// Readable Swift type names for messages.

/// A readable Swift type name: `[Todo]` rather than `Array<Todo>`, `Int?` rather than
/// `Optional<Int>`, `[String: Int]` rather than `Dictionary<String, Int>`.
func _typeName(_ type: Any.Type) -> String {
  _prettyGenericName(String(describing: type))
}

func _prettyGenericName(_ name: String) -> String {
  var parser = _TypeNameParser(chars: Array(name))
  guard let tree = parser.parse(), parser.index == parser.chars.count else { return name }
  return tree.rendered
}

private struct _TypeNameParser {
  struct Node {
    var base: String
    var args: [Node]
    var rendered: String {
      let a = args.map(\.rendered)
      switch (base, a.count) {
      case ("Array", 1), ("Swift.Array", 1): return "[\(a[0])]"
      case ("Optional", 1), ("Swift.Optional", 1): return "\(a[0])?"
      case ("Dictionary", 2), ("Swift.Dictionary", 2): return "[\(a[0]): \(a[1])]"
      case (_, 0): return base
      default: return "\(base)<\(a.joined(separator: ", "))>"
      }
    }
  }
  let chars: [Character]
  var index = 0

  mutating func parse() -> Node? {
    var base = ""
    while index < chars.count, chars[index] != "<", chars[index] != ">", chars[index] != "," {
      base.append(chars[index])
      index += 1
    }
    base = String(base.drop(while: { $0 == " " }))
    guard !base.isEmpty else { return nil }
    var args: [Node] = []
    if index < chars.count, chars[index] == "<" {
      index += 1
      while true {
        guard let arg = parse() else { return nil }
        args.append(arg)
        guard index < chars.count else { return nil }
        if chars[index] == "," {
          index += 1
          continue
        }
        if chars[index] == ">" {
          index += 1
          break
        }
        return nil
      }
      // A nested member of a generic type, e.g. `Outer<Int>.Inner`.
      if index < chars.count, chars[index] == "." {
        guard let rest = parse() else { return nil }
        let rendered = Node(base: base, args: args).rendered
        return Node(base: rendered + rest.rendered, args: [])
      }
    }
    return Node(base: base, args: args)
  }
}
