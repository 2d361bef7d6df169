import ReducerKitPlatform
import ReducerKitWire

// JSON text and paths for the scenario format's messages and normal form, in constant stack
// at any nesting: a scenario's values come from files, and the C functions over them may run
// on threads with small stacks. JSON in and out, no C types.

/// Writing `JSONValue`s as compact JSON without recursion, and showing them in messages.
enum JSONText {
  /// Compact JSON text of `value`, members in order (as `serializedBytes()`, iteratively).
  /// With `limit`, stops once more than `limit` bytes are written.
  static func bytes(_ value: JSONValue, limit: Int? = nil) -> [UInt8] {
    enum Work {
      case value(JSONValue)
      case text(StaticString)
      case key(String)
    }
    var out: [UInt8] = []
    var stack: [Work] = [.value(value)]
    while let work = stack.popLast() {
      if let limit, out.count > limit { break }
      switch work {
      case .text(let text):
        text.withUTF8Buffer { out.append(contentsOf: $0) }
      case .key(let key):
        out.append(contentsOf: JSONValue.string(key).serializedBytes())
        out.append(UInt8(ascii: ":"))
      case .value(.array(let elements)):
        out.append(UInt8(ascii: "["))
        stack.append(.text("]"))
        for (index, element) in elements.enumerated().reversed() {
          stack.append(.value(element))
          if index > 0 { stack.append(.text(",")) }
        }
      case .value(.object(let members)):
        out.append(UInt8(ascii: "{"))
        stack.append(.text("}"))
        for (index, member) in members.enumerated().reversed() {
          stack.append(.value(member.value))
          stack.append(.key(member.key))
          if index > 0 { stack.append(.text(",")) }
        }
      case .value(let leaf):
        out.append(contentsOf: leaf.serializedBytes())
      }
    }
    return out
  }

  /// `value` as compact JSON for a message, cut after about `limit` bytes with "…". Control
  /// and format characters are escaped (`_escapedInMessages`, as the library's paths escape
  /// them), so no input reaches a message raw.
  static func shown(_ value: JSONValue, limit: Int = 80) -> String {
    let text = bytes(value, limit: limit + 4)
    var end = text.count
    if end > limit {
      end = limit
      while end > 0, text[end] & 0xC0 == 0x80 { end -= 1 }  // not inside a UTF-8 sequence
    }
    let out = _escapingForMessages(json: String(decoding: text[..<end], as: UTF8.self))
    return end < text.count ? out + "…" : out
  }

  /// Frees a value nested any depth deep without recursion (see `releaseIteratively()`).
  static func release(_ value: inout JSONValue) {
    value.releaseIteratively()
  }
}

/// A JSON path (`$.steps[3].request.id`) built one component at a time: a tree of components
/// shared by every path of one walk, rendered only for a message.
struct JSONPathTree {
  enum Component {
    case key(String)
    case index(Int)
  }

  private var nodes: [(parent: Int, component: Component)] = []

  /// The root, `$`.
  static let root = -1

  /// The path of `component` below the path `parent`.
  mutating func child(_ parent: Int, _ component: Component) -> Int {
    nodes.append((parent, component))
    return nodes.count - 1
  }

  /// `$.todos[3].title`, as the library's other messages write paths: keys that are not
  /// identifiers in `['…']`, cut and escaped; a path of more than 24 steps shows its first 8
  /// and last 12.
  func render(_ node: Int) -> String {
    var components: [Component] = []
    var current = node
    while current != Self.root {
      components.append(nodes[current].component)
      current = nodes[current].parent
    }
    components.reverse()
    var out = "$"
    for (n, component) in components.enumerated() {
      if components.count > 24 {
        if n == 8 { out += "…(\(components.count - 20) more steps)…" }
        if n >= 8, n < components.count - 12 { continue }
      }
      switch component {
      case .index(let index): out += "[\(index)]"
      case .key(let key): out += WireMessage.path([key]).dropFirst()
      }
    }
    return out
  }
}

extension String {
  /// Whether the two strings have the same UTF-8 bytes. (`==` is Unicode canonical
  /// equivalence: "\u{212A}" == "K". JSON keys and strings are compared by code points.)
  func sameBytes(_ other: String) -> Bool { utf8.elementsEqual(other.utf8) }
}
