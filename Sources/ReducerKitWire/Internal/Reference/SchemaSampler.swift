// Random JSON shaped by the schemas `jsonSchema(for:)` writes, for the differential tests of
// the two codecs: mostly valid instances, and (`mutate`) instances with one defect somewhere,
// so both the values read and the errors reported get compared.

/// A seeded generator of JSON values for a schema (the same seed gives the same values).
struct _SchemaSampler {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  /// SplitMix64.
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }
  mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
  mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

  static let strings = [
    "", "a", "Milk", "Buy milk", "é", "日本", "\u{1F600}", "\"quoted\"", "tab\there", "back\\slash",
    "line\nbreak", "\u{1}", "/", "~", "incremnt", "_0", "null",
  ]

  /// A value for `schema` (valid, unless the schema cannot be met within the depth limit).
  mutating func sample(_ schema: JSONValue, depth: Int = 0) -> JSONValue {
    if let constant = schema["const"] { return constant }
    if case .array(let values)? = schema["enum"], !values.isEmpty { return pick(values) }
    for key in ["oneOf", "anyOf"] {
      if case .array(let options)? = schema[key], !options.isEmpty {
        return sample(pick(options), depth: depth + 1)
      }
    }
    var types: [String] = []
    switch schema["type"] {
    case .string(let t)?: types = [t]
    case .array(let list)?: types = list.compactMap { if case .string(let t) = $0 { t } else { nil } }
    default: break
    }
    guard !types.isEmpty else { return anyValue(depth: depth) }  // `{}`, or a recursive reference
    switch pick(types) {
    case "null": return .null
    case "boolean": return .bool(chance(50))
    case "string": return .string(Self.strings[below(Self.strings.count)] + (chance(20) ? String(next() % 1000) : ""))
    case "number": return pick([.int(0), .double(0.5), .double(-1.25), .int(3), .double(1e300), .double(Double(below(1000)) / 8)])
    case "integer": return integer(minimum: schema["minimum"], maximum: schema["maximum"])
    case "array": return array(schema, depth: depth)
    case "object": return object(schema, depth: depth)
    default: return .null
    }
  }

  mutating func integer(minimum: JSONValue?, maximum: JSONValue?) -> JSONValue {
    var candidates: [JSONValue] = [.int(0), .int(1), .int(Int64(below(100))), .int(-Int64(below(100)))]
    if let minimum { candidates.append(minimum) }
    if let maximum { candidates.append(maximum) }
    let chosen = pick(candidates)
    // Keep small candidates inside the range.
    if case .int(let i) = chosen {
      if case .int(let low)? = minimum, i < low { return .int(low) }
      if case .int(let high)? = maximum, i > high { return .int(high) }
    }
    return chosen
  }

  mutating func array(_ schema: JSONValue, depth: Int) -> JSONValue {
    if case .array(let prefix)? = schema["prefixItems"] {
      return .array(prefix.map { sample($0, depth: depth + 1) })
    }
    guard let items = schema["items"], depth < 6 else { return .array([]) }
    return .array((0..<below(4)).map { _ in sample(items, depth: depth + 1) })
  }

  mutating func object(_ schema: JSONValue, depth: Int) -> JSONValue {
    if case .int(0)? = schema["maxProperties"] { return .object([]) }
    var required: Set<String> = []
    if case .array(let names)? = schema["required"] {
      for case .string(let name) in names { required.insert(name) }
    }
    var members: [(key: String, value: JSONValue)] = []
    if case .object(let properties)? = schema["properties"] {
      for property in properties where required.contains(property.key) || (depth < 6 && chance(60)) {
        members.append((key: property.key, value: sample(property.value, depth: depth + 1)))
      }
    }
    if let additional = schema["additionalProperties"], case .object = additional, depth < 6 {
      for i in 0..<below(4) {
        members.append((key: pick(["k\(i)", "key \(i)", "~/\(i)", "é\(i)"]), value: sample(additional, depth: depth + 1)))
      }
    }
    return .object(members)
  }

  /// Small free-form JSON.
  mutating func anyValue(depth: Int) -> JSONValue {
    switch below(depth < 4 ? 8 : 6) {
    case 0: return .null
    case 1: return .bool(chance(50))
    case 2: return .int(Int64(below(2000)) - 1000)
    case 3: return .double(Double(below(1000)) / 16)
    case 4, 5: return .string(pick(Self.strings))
    case 6: return .array((0..<below(3)).map { _ in anyValue(depth: depth + 1) })
    default: return .object((0..<below(3)).map { i in (key: "k\(i)", value: anyValue(depth: depth + 1)) })
    }
  }

  /// `value` with one defect at a random place: a value of the wrong type, a key dropped,
  /// added or misspelt, an integer out of range or with a fraction, an extra array element.
  mutating func mutate(_ value: JSONValue) -> JSONValue {
    switch value {
    case .object(var members) where !members.isEmpty && chance(70):
      let i = below(members.count)
      switch below(4) {
      case 0: members[i].value = mutate(members[i].value)
      case 1: members.remove(at: i)
      case 2: members.append((key: members[i].key + "x", value: members[i].value))
      default: members[i].key = String(members[i].key.dropLast())
      }
      return .object(members)
    case .array(var elements) where !elements.isEmpty && chance(70):
      let i = below(elements.count)
      if chance(70) { elements[i] = mutate(elements[i]) } else { elements.append(elements[i]) }
      return .array(elements)
    default:
      return pick([
        .null, .bool(true), .int(7), .int(.max), .int(.min), .double(1.5), .number("1e400"),
        .number("18446744073709551616"), .string("x"), .string("incremnt"), .array([]), .array([.int(1), .int(2)]),
        .object([]), .object([(key: "unknown", value: .int(1))]), .object([(key: "a", value: .null), (key: "b", value: .null)]),
      ])
    }
  }
}
