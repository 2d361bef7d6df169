import ReducerKitWire

// The scenario format's comparison of JSON values (Tests/scenarios/README.md): the one rule
// by which the Swift, C and Python runners compare states, actions and request payloads
// (C and Python through rk_json_match). JSON in and out, no C types.

/// Compares JSON values as the scenario format does, and says where they differ.
///
/// - Object members are matched by key (byte for byte), in any order; a member whose value is
///   `null` equals an absent member (an optional may be written either way).
/// - Arrays are compared element by element.
/// - Numbers are compared by value, exactly: `1` equals `1.0` and `1e0`; integers of any size
///   are exact (`9223372036854775808` is not `9223372036854775807`). A number written with a
///   fraction or exponent stands for the double nearest to it, as in every JSON library.
/// - `true` is not `1`, and `"1"` is not `1`.
///
/// ```swift
/// JSONMatch.describe(expected: ["count": 3], actual: ["count": 2, "fact": nil])
/// // "$.count: expected 3, actual 2"
/// ```
///
/// Runs in constant stack at any nesting (no recursion).
package enum JSONMatch {
  /// One place where the values differ.
  public struct Difference: Sendable, Equatable, CustomStringConvertible {
    /// Where, as a JSON path: `$.todos[0].title`.
    public let path: String
    /// The expected value there as compact JSON (cut after 80 bytes), nil if absent.
    public let expected: String?
    /// The actual value there, likewise.
    public let actual: String?

    /// `$.count: expected 3, actual 2` (an absent value shows as `(missing)`).
    public var description: String {
      "\(path): expected \(expected ?? "(missing)"), actual \(actual ?? "(missing)")"
    }
  }

  /// How many differences ``describe(expected:actual:limit:)`` lists by default.
  public static let defaultLimit = 10

  /// Whether the values are equal under the format's rule.
  public static func matches(_ expected: JSONValue, _ actual: JSONValue) -> Bool {
    differences(expected: expected, actual: actual, limit: 1).isEmpty
  }

  /// The places where the values differ, in document order (expected's members first, then
  /// members only `actual` has), at most `limit` of them; empty when they are equal. A
  /// difference is reported where it starts: the deepest point where the two still share a
  /// shape.
  public static func differences(
    expected: JSONValue, actual: JSONValue, limit: Int = defaultLimit
  ) -> [Difference] {
    guard limit >= 1 else { return [] }
    var found: [Difference] = []
    var paths = JSONPathTree()
    var stack: [(expected: JSONValue?, actual: JSONValue?, path: Int)] = [
      (expected, actual, JSONPathTree.root)
    ]
    while found.count < limit, let (expected, actual, path) = stack.popLast() {
      switch (expected, actual) {
      case (.object(let wanted)?, .object(let got)?):
        var children: [(JSONValue?, JSONValue?, Int)] = []
        let lookup = MemberLookup(got)
        let expectedKeys = MemberLookup(wanted)
        for member in wanted {
          let other = lookup[member.key]
          if other == nil, case .null = member.value { continue }
          children.append((member.value, other, paths.child(path, .key(member.key))))
        }
        for member in got where expectedKeys[member.key] == nil {
          if case .null = member.value { continue }
          children.append((nil, member.value, paths.child(path, .key(member.key))))
        }
        stack.append(contentsOf: children.reversed())
      case (.array(let wanted)?, .array(let got)?):
        for index in (0..<max(wanted.count, got.count)).reversed() {
          stack.append(
            (
              index < wanted.count ? wanted[index] : nil, index < got.count ? got[index] : nil,
              paths.child(path, .index(index))
            ))
        }
      case (let expected?, let actual?) where scalarsEqual(expected, actual):
        continue
      default:
        found.append(
          Difference(
            path: paths.render(path), expected: expected.map { JSONText.shown($0) },
            actual: actual.map { JSONText.shown($0) }))
      }
    }
    return found
  }

  /// The differences as lines (`$.count: expected 3, actual 2`), at most `limit` of them and
  /// then "(more differences not shown)" if there are more; nil when the values are equal.
  public static func describe(
    expected: JSONValue, actual: JSONValue, limit: Int = defaultLimit
  ) -> String? {
    let found = differences(expected: expected, actual: actual, limit: limit + 1)
    guard !found.isEmpty else { return nil }
    var lines = found.prefix(limit).map(\.description)
    if found.count > limit { lines.append("(more differences not shown)") }
    return lines.joined(separator: "\n")
  }

  // MARK: Scalars

  static func scalarsEqual(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.string(let x), .string(let y)): return x.sameBytes(y)
    case (.int(let x), .int(let y)): return x == y
    case (.double(let x), .double(let y)): return x == y
    case (.int, .double), (.int, .number), (.double, .int), (.double, .number), (.number, .int),
      (.number, .double), (.number, .number):
      guard let x = ExactNumber(a), let y = ExactNumber(b) else { return false }
      return x == y
    default: return false
    }
  }
}

/// Finds object members by key, byte for byte (the last of duplicates, as `JSONValue`'s
/// subscript): a linear search for small objects, a hash table for large ones.
private struct MemberLookup {
  let members: [(key: String, value: JSONValue)]
  let table: [[UInt8]: Int]?

  init(_ members: [(key: String, value: JSONValue)]) {
    self.members = members
    if members.count > 8 {
      var table: [[UInt8]: Int] = [:]
      for (index, member) in members.enumerated() { table[Array(member.key.utf8)] = index }
      self.table = table
    } else {
      table = nil
    }
  }

  subscript(key: String) -> JSONValue? {
    if let table { return table[Array(key.utf8)].map { members[$0].value } }
    return members.last(where: { $0.key.sameBytes(key) })?.value
  }
}

// MARK: - Exact numbers

/// A number's exact value: `digits` (decimal, no leading or trailing zeros; empty for zero)
/// times ten to `exponent`, with a sign.
struct ExactNumber: Equatable {
  var negative: Bool
  var digits: [UInt8]
  var exponent: Int

  init?(_ value: JSONValue) {
    switch value {
    case .int(let i):
      self.init(negative: i < 0, magnitude: Array(String(i.magnitude).utf8), exponent: 0)
    case .double(let d):
      guard d.isFinite else { return nil }
      self.init(exactly: d)
    case .number(let text):
      if let d = value._inexactDouble {
        self.init(exactly: d)  // a double (the parser kept its text for integer fields)
      } else {
        self.init(lexeme: text)
      }
    default:
      return nil
    }
  }

  /// From ASCII digits (any leading or trailing zeros) times ten to `exponent`.
  init(negative: Bool, magnitude: [UInt8], exponent: Int) {
    var digits = magnitude.map { $0 &- UInt8(ascii: "0") }
    let leading = digits.firstIndex(where: { $0 != 0 }) ?? digits.count
    digits.removeFirst(leading)
    var exponent = exponent
    while let last = digits.last, last == 0 {
      digits.removeLast()
      exponent += 1
    }
    self.negative = negative && !digits.isEmpty
    self.digits = digits
    self.exponent = digits.isEmpty ? 0 : exponent
  }

  /// From a JSON number's text (`-12.5e3`). Exponents beyond ±2^60 saturate.
  init?(lexeme: String) {
    var bytes = Array(lexeme.utf8)[...]
    let negative = bytes.first == UInt8(ascii: "-")
    if negative { bytes = bytes.dropFirst() }
    var mantissa: [UInt8] = []
    var exponent = 0
    while let byte = bytes.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
      mantissa.append(byte)
      bytes = bytes.dropFirst()
    }
    if bytes.first == UInt8(ascii: ".") {
      bytes = bytes.dropFirst()
      while let byte = bytes.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
        mantissa.append(byte)
        exponent -= 1
        bytes = bytes.dropFirst()
      }
    }
    if let e = bytes.first, e | 0x20 == UInt8(ascii: "e") {
      bytes = bytes.dropFirst()
      let exponentNegative = bytes.first == UInt8(ascii: "-")
      if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
      var value = 0
      for byte in bytes {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        if value < 1 << 60 { value = value * 10 + Int(byte - UInt8(ascii: "0")) }
      }
      exponent += exponentNegative ? -value : value
    } else if !bytes.isEmpty {
      return nil
    }
    guard !mantissa.isEmpty else { return nil }
    self.init(negative: negative, magnitude: mantissa, exponent: exponent)
  }

  /// The exact value of a finite double: its significand times a power of two, written out
  /// in decimal (a double's value always has a finite decimal expansion).
  init(exactly value: Double) {
    let negative = value.sign == .minus
    var significand = UInt64(value.significandBitPattern)
    var twos = Int(value.exponentBitPattern)
    if twos == 0 {
      twos = -1074  // subnormal
    } else {
      significand |= 1 << 52
      twos -= 1075
    }
    // value = significand * 2^twos = (significand * 5^-twos) * 10^twos when twos < 0.
    var number = BigDecimal(significand)
    if twos >= 0 {
      for _ in 0..<twos { number.multiply(by: 2) }
      self.init(negative: negative, magnitude: number.asciiDigits(), exponent: 0)
    } else {
      for _ in 0..<(-twos) { number.multiply(by: 5) }
      self.init(negative: negative, magnitude: number.asciiDigits(), exponent: twos)
    }
  }
}

/// A non-negative integer in base 10^9 limbs, least significant first: just enough to write
/// out a double exactly.
private struct BigDecimal {
  var limbs: [UInt64]
  static let base: UInt64 = 1_000_000_000

  init(_ value: UInt64) {
    limbs = []
    var rest = value
    repeat {
      limbs.append(rest % Self.base)
      rest /= Self.base
    } while rest > 0
  }

  mutating func multiply(by factor: UInt64) {
    var carry: UInt64 = 0
    for index in limbs.indices {
      let product = limbs[index] * factor + carry
      limbs[index] = product % Self.base
      carry = product / Self.base
    }
    while carry > 0 {
      limbs.append(carry % Self.base)
      carry /= Self.base
    }
  }

  func asciiDigits() -> [UInt8] {
    var text = String(limbs.last ?? 0)
    for limb in limbs.dropLast().reversed() {
      let part = String(limb)
      text += String(repeating: "0", count: 9 - part.count) + part
    }
    return Array(text.utf8)
  }
}
