// The JSON parser behind `parseJSON`: strict RFC 8259 grammar, strict UTF-8, no duplicate
// object keys, a depth limit, 8-bytes-at-a-time string scanning, exact integers. Iterative:
// open containers live in a heap array, so parsing uses the same stack at any depth.

struct _ParseFailure: Error {
  var kind: WireError.Kind
  var offset: Int
  /// What went wrong or what was expected, e.g. `expected ':' after object key`.
  var message: String
  /// What was found instead, e.g. `'x'` or `end of input`.
  var found: String?
  /// More detail, appended after a colon.
  var detail: String?
  /// Path components from the innermost outwards.
  var reversedPath: [_JSONPathComponent] = []
}

private let _asciiQuote = UInt8(ascii: "\"")
private let _asciiBackslash = UInt8(ascii: "\\")

/// Powers of ten that are exact in a `Double`.
private let _exactPowersOfTen: [Double] = [
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

/// Whether the number `mantissa` × 10^`exponent` (its digits beyond the 19th dropped, some of
/// them nonzero when `droppedNonZero`) is exactly `magnitude`, a whole `Double` (so an integer
/// field may take it). Called only for whole values written with a fraction or exponent:
/// `1.0`, `1e2` and `-0.0` are exact; `1.0000000000000001`, `1e-400` and
/// `9007199254740993.0` are not (their `Double` is a different number), and the parser keeps
/// their text (`.number`), which integer fields refuse.
private func _wholeAndExact(_ magnitude: Double, _ mantissa: UInt64, _ exponent: Int, _ droppedNonZero: Bool) -> Bool {
  if droppedNonZero { return false }
  if mantissa == 0 { return true }
  var whole = UInt128(mantissa)
  if exponent >= 0 {
    for _ in 0..<exponent {
      let (next, overflow) = whole.multipliedReportingOverflow(by: 10)
      if overflow { return false }
      whole = next
    }
  } else {
    var divisor: UInt64 = 1
    for _ in 0 ..< -exponent {
      let (next, overflow) = divisor.multipliedReportingOverflow(by: 10)
      if overflow { return false }  // 10^20 and beyond: more than `mantissa`, not whole
      divisor = next
    }
    guard mantissa % divisor == 0 else { return false }
    whole = UInt128(mantissa / divisor)
  }
  return Double(exactly: whole) == magnitude
}

struct _Parser {
  let base: UnsafeRawPointer
  let end: Int
  let maxDepth: Int
  var i = 0
  /// Reused buffer for strings with escapes.
  var scratch: [UInt8] = []

  init(base: UnsafeRawPointer, end: Int, maxDepth: Int) {
    self.base = base
    self.end = end
    self.maxDepth = maxDepth
  }

  @inline(__always)
  func byte(_ k: Int) -> UInt8 { base.load(fromByteOffset: k, as: UInt8.self) }

  @inline(__always)
  mutating func skipWhitespace() {
    while i < end {
      switch byte(i) {
      case 0x20, 0x0A, 0x0D, 0x09: i &+= 1
      default: return
      }
    }
  }

  /// One open array or object while parsing (the parser keeps these on the heap, not the
  /// call stack, so any depth up to the limit parses on a thread with a small stack).
  struct Frame {
    var isObject: Bool
    var elements: [JSONValue] = []
    var members: [(key: String, value: JSONValue)] = []
    /// The key whose value is being parsed (objects).
    var key = ""
    /// Whether a child value is being parsed (its key or index is part of error paths).
    var inChild = false
    /// The keys seen so far, once the object is large enough for a hash set.
    var keySet: Set<String>? = nil

    var pathComponent: _JSONPathComponent? {
      guard inChild else { return nil }
      return isObject ? .key(key) : .index(elements.count)
    }
  }

  /// The deepest nesting seen so far.
  var deepest = 0
  /// The open containers, outermost first.
  var frames: [Frame] = []

  mutating func parseDocument() throws(_ParseFailure) -> JSONValue {
    if end >= 3, byte(0) == 0xEF, byte(1) == 0xBB, byte(2) == 0xBF { i = 3 }
    do throws(_ParseFailure) {
      var value = try parseValues()
      skipWhitespace()
      if i < end {
        if deepest > _dismantleDepth { value._dismantle() }
        throw unexpected(at: i, expected: "end of input after the JSON value")
      }
      return value
    } catch {
      var failure = error
      failure.reversedPath = frames.reversed().compactMap(\.pathComponent)
      // Free what was built so far without recursion.
      for k in frames.indices {
        var elements = JSONValue.array(frames[k].elements)
        frames[k].elements = []
        var members = JSONValue.object(frames[k].members)
        frames[k].members = []
        elements._dismantle()
        members._dismantle()
      }
      frames = []
      throw failure
    }
  }

  /// Parses one value (with everything nested in it) iteratively.
  mutating func parseValues() throws(_ParseFailure) -> JSONValue {
    while true {
      // Parse the start of a value.
      var value: JSONValue
      skipWhitespace()
      guard i < end else { throw unexpected(at: i, expected: "a JSON value") }
      switch byte(i) {
      case UInt8(ascii: "{"):
        guard frames.count < maxDepth else { throw tooDeep(at: i) }
        i += 1
        skipWhitespace()
        if i < end, byte(i) == UInt8(ascii: "}") {
          i += 1
          value = .object([])
        } else {
          frames.append(Frame(isObject: true))
          deepest = max(deepest, frames.count)
          try parseKey(first: true)
          continue
        }
      case UInt8(ascii: "["):
        guard frames.count < maxDepth else { throw tooDeep(at: i) }
        i += 1
        skipWhitespace()
        if i < end, byte(i) == UInt8(ascii: "]") {
          i += 1
          value = .array([])
        } else {
          frames.append(Frame(isObject: false, inChild: true))
          deepest = max(deepest, frames.count)
          continue
        }
      default:
        value = try parseScalar()
      }
      // A value is complete: add it to its container, closing containers that end here.
      while true {
        let top = frames.count - 1
        guard top >= 0 else { return value }
        frames[top].inChild = false
        if frames[top].isObject {
          frames[top].members.append((key: frames[top].key, value: value))
          skipWhitespace()
          guard i < end else { throw unexpected(at: i, expected: "',' or '}' after object member") }
          switch byte(i) {
          case UInt8(ascii: ","):
            i += 1
            skipWhitespace()
            try parseKey(first: false)
          case UInt8(ascii: "}"):
            i += 1
            value = .object(frames.removeLast().members)
            continue
          default:
            throw unexpected(at: i, expected: "',' or '}' after object member")
          }
        } else {
          frames[top].elements.append(value)
          skipWhitespace()
          guard i < end else { throw unexpected(at: i, expected: "',' or ']' after array element") }
          switch byte(i) {
          case UInt8(ascii: ","):
            i += 1
            skipWhitespace()
            frames[top].inChild = true
            if i < end, byte(i) == UInt8(ascii: "]") {
              var failure = unexpected(at: i, expected: "a value after ','")
              failure.detail = "trailing commas are not allowed"
              throw failure
            }
          case UInt8(ascii: "]"):
            i += 1
            value = .array(frames.removeLast().elements)
            continue
          default:
            throw unexpected(at: i, expected: "',' or ']' after array element")
          }
        }
        break
      }
    }
  }

  /// Reads `"key":` of the innermost (object) frame, rejecting a key it already has.
  mutating func parseKey(first: Bool) throws(_ParseFailure) {
    let top = frames.count - 1
    guard i < end, byte(i) == _asciiQuote else {
      var failure = unexpected(at: i, expected: "'\"' to begin an object key")
      if !first, i < end, byte(i) == UInt8(ascii: "}") {
        failure.detail = "trailing commas are not allowed"
      }
      throw failure
    }
    let keyStart = i
    let key = try parseString()
    frames[top].key = key
    frames[top].inChild = true
    if isDuplicate(key, in: top) {
      throw _ParseFailure(
        kind: .duplicateKey, offset: keyStart, message: "duplicate key \(_quoted(key))")
    }
    skipWhitespace()
    guard i < end, byte(i) == UInt8(ascii: ":") else {
      throw unexpected(at: i, expected: "':' after object key")
    }
    i += 1
  }

  /// Whether the object at `frame` already has `key` (linear for small objects, hashed after).
  mutating func isDuplicate(_ key: String, in frame: Int) -> Bool {
    let count = frames[frame].members.count
    if count < 16 {
      for member in frames[frame].members where member.key == key { return true }
      return false
    }
    if frames[frame].keySet == nil {
      var set = Set<String>(minimumCapacity: count * 2)
      for member in frames[frame].members { set.insert(member.key) }
      frames[frame].keySet = set
    }
    return !frames[frame].keySet!.insert(key).inserted
  }

  mutating func parseScalar() throws(_ParseFailure) -> JSONValue {
    switch byte(i) {
    case _asciiQuote:
      return .string(try parseString())
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return try parseNumber()
    case UInt8(ascii: "t"):
      if end &- i >= 4, base.loadUnaligned(fromByteOffset: i, as: UInt32.self) == _Parser.trueWord {
        i &+= 4
        return .bool(true)
      }
      try parseLiteral("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      if end &- i >= 5, base.loadUnaligned(fromByteOffset: i &+ 1, as: UInt32.self) == _Parser.alseWord {
        i &+= 5
        return .bool(false)
      }
      try parseLiteral("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      if end &- i >= 4, base.loadUnaligned(fromByteOffset: i, as: UInt32.self) == _Parser.nullWord {
        i &+= 4
        return .null
      }
      try parseLiteral("null")
      return .null
    default:
      throw unexpected(at: i, expected: "a JSON value")
    }
  }

  /// `true`, `alse` (of `false`) and `null` as little-endian words.
  static let trueWord = UInt32(littleEndian: 0x6575_7274)
  static let alseWord = UInt32(littleEndian: 0x6573_6C61)
  static let nullWord = UInt32(littleEndian: 0x6C6C_756E)

  mutating func parseLiteral(_ literal: StaticString) throws(_ParseFailure) {
    let start = i
    let n = literal.utf8CodeUnitCount
    let ok = literal.withUTF8Buffer { lit -> Bool in
      guard end - start >= n else { return false }
      for k in 0..<n where byte(start + k) != lit[k] { return false }
      return true
    }
    guard ok else {
      var k = start
      literal.withUTF8Buffer { lit in
        while k - start < n, k < end, byte(k) == lit[k - start] { k += 1 }
      }
      throw unexpected(at: k, expected: "'\(literal)'")
    }
    i += n
  }

  // MARK: Strings

  /// A mask with the high bit set in each of the 8 bytes that is `"`, `\`, a control
  /// character or non-ASCII. (A byte above a flagged byte may be flagged spuriously, never
  /// one below: the lowest flag is exact.)
  @inline(__always)
  static func attentionMask(_ w: UInt64) -> UInt64 {
    let high: UInt64 = 0x8080_8080_8080_8080
    let ones: UInt64 = 0x0101_0101_0101_0101
    let control = (w &- 0x2020_2020_2020_2020) & ~w
    let q = w ^ 0x2222_2222_2222_2222
    let quote = (q &- ones) & ~q
    let b = w ^ 0x5C5C_5C5C_5C5C_5C5C
    let backslash = (b &- ones) & ~b
    return (w | control | quote | backslash) & high
  }

  /// Parses a string starting at the opening quote at `i`.
  mutating func parseString() throws(_ParseFailure) -> String {
    let open = i
    i += 1
    var segment = i
    var escaped = false
    while true {
      // Skip 8 bytes at a time to the first byte that needs attention.
      while i &+ 8 <= end {
        let mask = _Parser.attentionMask(base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        if mask != 0 {
          i &+= mask.trailingZeroBitCount &>> 3
          break
        }
        i &+= 8
      }
      guard i < end else {
        var failure = unexpected(at: i, expected: "'\"' to end the string")
        failure.detail = "the string starting at byte offset \(open) is not terminated"
        throw failure
      }
      let b = byte(i)
      if b == _asciiQuote {
        let string: String
        if escaped {
          scratch.append(contentsOf: UnsafeRawBufferPointer(start: base + segment, count: i - segment))
          string = String(decoding: scratch, as: UTF8.self)
        } else {
          string = makeString(from: segment, count: i - segment)
        }
        i += 1
        return string
      } else if b == _asciiBackslash {
        if !escaped {
          escaped = true
          scratch.removeAll(keepingCapacity: true)
        }
        scratch.append(contentsOf: UnsafeRawBufferPointer(start: base + segment, count: i - segment))
        try parseEscape()
        segment = i
      } else if b < 0x20 {
        var failure = unexpected(at: i, expected: "'\"' to end the string")
        failure.detail = "control characters must be escaped in strings"
        throw failure
      } else if b >= 0x80 {
        try skipUTF8Sequence()
      } else {
        i += 1
      }
    }
  }

  func makeString(from start: Int, count: Int) -> String {
    String(unsafeUninitializedCapacity: count) { buffer in
      guard count > 0, let target = buffer.baseAddress else { return 0 }
      UnsafeMutableRawPointer(target).copyMemory(from: base + start, byteCount: count)
      return count
    }
  }

  /// Parses the escape at `i` (a backslash) and appends its UTF-8 to `scratch`.
  mutating func parseEscape() throws(_ParseFailure) {
    guard i + 1 < end else {
      throw unexpected(at: i + 1, expected: "an escape character after '\\'")
    }
    let c = byte(i + 1)
    switch c {
    case _asciiQuote, _asciiBackslash, UInt8(ascii: "/"): scratch.append(c)
    case UInt8(ascii: "b"): scratch.append(0x08)
    case UInt8(ascii: "f"): scratch.append(0x0C)
    case UInt8(ascii: "n"): scratch.append(0x0A)
    case UInt8(ascii: "r"): scratch.append(0x0D)
    case UInt8(ascii: "t"): scratch.append(0x09)
    case UInt8(ascii: "u"):
      let escapeStart = i
      var scalar = try hex4(at: i + 2)
      i += 6
      if scalar >= 0xD800, scalar < 0xDC00 {
        guard i + 1 < end, byte(i) == _asciiBackslash, byte(i + 1) == UInt8(ascii: "u") else {
          var failure = unexpected(at: escapeStart, expected: "a valid \\u escape")
          failure.found = nil
          failure.detail = "high surrogate \\u\(_hex4(scalar)) is not followed by a low surrogate"
          throw failure
        }
        let low = try hex4(at: i + 2)
        guard low >= 0xDC00, low < 0xE000 else {
          var failure = unexpected(at: i, expected: "a low surrogate escape")
          failure.found = "\\u\(_hex4(low))"
          throw failure
        }
        i += 6
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if scalar >= 0xDC00, scalar < 0xE000 {
        var failure = unexpected(at: escapeStart, expected: "a valid \\u escape")
        failure.found = nil
        failure.detail = "low surrogate \\u\(_hex4(scalar)) without a preceding high surrogate"
        throw failure
      }
      guard let unicode = Unicode.Scalar(scalar) else {
        throw unexpected(at: escapeStart, expected: "a valid \\u escape")
      }
      UTF8.encode(unicode) { scratch.append($0) }
      return
    default:
      var failure = unexpected(at: i + 1, expected: "a valid escape character (one of \"\\/bfnrtu)")
      failure.detail = nil
      throw failure
    }
    i += 2
  }

  func hex4(at k: Int) throws(_ParseFailure) -> UInt32 {
    var value: UInt32 = 0
    for j in k..<(k + 4) {
      guard j < end else { throw unexpected(at: j, expected: "4 hex digits after \\u") }
      let b = byte(j)
      let digit: UInt8
      switch b {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
      default: throw unexpected(at: j, expected: "4 hex digits after \\u")
      }
      value = value << 4 | UInt32(digit)
    }
    return value
  }

  /// Validates the multi-byte UTF-8 sequence starting at `i` and moves past it.
  mutating func skipUTF8Sequence() throws(_ParseFailure) {
    i += try utf8SequenceLength(at: i)
  }

  /// The length of the valid UTF-8 sequence at `k` (whose first byte is >= 0x80).
  func utf8SequenceLength(at k: Int) throws(_ParseFailure) -> Int {
    let lead = byte(k)
    var low: UInt8 = 0x80
    var high: UInt8 = 0xBF
    let continuation: Int
    var problem = "invalid continuation byte"
    switch lead {
    case 0xC2...0xDF: continuation = 1
    case 0xE0: continuation = 2; low = 0xA0; problem = "overlong encoding"
    case 0xE1...0xEC, 0xEE, 0xEF: continuation = 2
    case 0xED: continuation = 2; high = 0x9F; problem = "encoded surrogate (U+D800...U+DFFF)"
    case 0xF0: continuation = 3; low = 0x90; problem = "overlong encoding"
    case 0xF1...0xF3: continuation = 3
    case 0xF4: continuation = 3; high = 0x8F; problem = "code point above U+10FFFF"
    case 0x80...0xBF:
      throw invalidUTF8(at: k, "unexpected continuation byte 0x\(_hexByte(lead))")
    case 0xC0, 0xC1:
      throw invalidUTF8(at: k, "overlong encoding (byte 0x\(_hexByte(lead)))")
    default:
      throw invalidUTF8(at: k, "byte 0x\(_hexByte(lead)) never appears in UTF-8")
    }
    for j in 1...continuation {
      guard k + j < end else {
        throw invalidUTF8(at: k, "truncated sequence (input ends after 0x\(_hexByte(lead)))")
      }
      let b = byte(k + j)
      if j == 1 {
        guard b >= low, b <= high else {
          let why = (b >= 0x80 && b <= 0xBF) ? problem : "invalid continuation byte"
          throw invalidUTF8(at: k, "\(why) (bytes 0x\(_hexByte(lead)) 0x\(_hexByte(b)))")
        }
      } else {
        guard b >= 0x80, b <= 0xBF else {
          throw invalidUTF8(at: k + j, "invalid continuation byte 0x\(_hexByte(b))")
        }
      }
    }
    return continuation + 1
  }

  // MARK: Numbers

  mutating func parseNumber() throws(_ParseFailure) -> JSONValue {
    let start = i
    var negative = false
    if byte(i) == UInt8(ascii: "-") {
      negative = true
      i += 1
    }
    guard i < end, _isDigit(byte(i)) else {
      throw unexpected(at: i, expected: "a digit after '-'")
    }
    var mantissa: UInt64 = 0
    var significantDigits = 0
    var droppedNonZero = false
    var exponent = 0  // decimal exponent to apply to `mantissa`

    if byte(i) == UInt8(ascii: "0") {
      i += 1
      if i < end, _isDigit(byte(i)) {
        throw _ParseFailure(
          kind: .syntax, offset: start, message: "invalid number",
          detail: "leading zeros are not allowed")
      }
    } else {
      while i < end, _isDigit(byte(i)) {
        let d = UInt64(byte(i) - UInt8(ascii: "0"))
        if significantDigits < 19 {
          mantissa = mantissa &* 10 &+ d
          significantDigits += 1
        } else {
          exponent += 1
          if d != 0 { droppedNonZero = true }
        }
        i += 1
      }
    }
    var isInteger = true
    if i < end, byte(i) == UInt8(ascii: ".") {
      isInteger = false
      i += 1
      guard i < end, _isDigit(byte(i)) else {
        throw unexpected(at: i, expected: "a digit after '.'")
      }
      while i < end, _isDigit(byte(i)) {
        let d = UInt64(byte(i) - UInt8(ascii: "0"))
        if significantDigits == 0 && d == 0 {
          exponent -= 1  // leading zeros of the fraction
        } else if significantDigits < 19 {
          mantissa = mantissa &* 10 &+ d
          significantDigits += 1
          exponent -= 1
        } else if d != 0 {
          droppedNonZero = true
        }
        i += 1
      }
    }
    if i < end, byte(i) | 0x20 == UInt8(ascii: "e") {
      isInteger = false
      i += 1
      var exponentNegative = false
      if i < end, byte(i) == UInt8(ascii: "+") || byte(i) == UInt8(ascii: "-") {
        exponentNegative = byte(i) == UInt8(ascii: "-")
        i += 1
      }
      guard i < end, _isDigit(byte(i)) else {
        throw unexpected(at: i, expected: "a digit in the exponent")
      }
      var value = 0
      while i < end, _isDigit(byte(i)) {
        if value < 100_000_000 { value = value * 10 + Int(byte(i) - UInt8(ascii: "0")) }
        i += 1
      }
      exponent += exponentNegative ? -value : value
    }

    if isInteger {
      if exponent == 0 {  // no digit was dropped, so `mantissa` is the exact magnitude
        if negative {
          if mantissa <= UInt64(Int64.max) + 1 {
            return .int(Int64(truncatingIfNeeded: 0 &- mantissa))
          }
        } else if mantissa <= UInt64(Int64.max) {
          return .int(Int64(mantissa))
        }
      }
      return .number(text(from: start))
    }
    // Exact fast path (Clinger): both operands exact, one correctly rounded operation.
    if !droppedNonZero, mantissa <= 1 << 53, exponent >= -22, exponent <= 22 {
      var d = Double(mantissa)
      d = exponent < 0 ? d / _exactPowersOfTen[-exponent] : d * _exactPowersOfTen[exponent]
      if d.rounded(.towardZero) != d || _wholeAndExact(d, mantissa, exponent, droppedNonZero) {
        return .double(negative ? -d : d)
      }
      return .number(text(from: start))
    }
    let text = text(from: start)
    if let d = Double(text), d.isFinite {
      if d.rounded(.towardZero) != d || d.magnitude >= 0x1p128
        || _wholeAndExact(d.magnitude, mantissa, exponent, droppedNonZero)
      {
        return .double(d)
      }
    }
    return .number(text)
  }

  func text(from start: Int) -> String {
    makeString(from: start, count: i - start)
  }

  // MARK: Errors

  func unexpected(at k: Int, expected: String) -> _ParseFailure {
    if k < end, byte(k) >= 0x80 {
      do {
        _ = try utf8SequenceLength(at: k)
      } catch {
        return error
      }
    }
    return _ParseFailure(
      kind: .syntax, offset: k, message: "expected \(expected)", found: describe(at: k))
  }

  func tooDeep(at k: Int) -> _ParseFailure {
    _ParseFailure(
      kind: .tooDeep, offset: k,
      message: "arrays and objects nested deeper than \(maxDepth) levels")
  }

  func invalidUTF8(at k: Int, _ detail: String) -> _ParseFailure {
    _ParseFailure(kind: .invalidUTF8, offset: k, message: "invalid UTF-8", detail: detail)
  }

  /// Describes the character at `k` for a message: `'x'`, `end of input`, `byte 0x80`.
  func describe(at k: Int) -> String {
    guard k < end else { return "end of input" }
    let b = byte(k)
    switch b {
    case 0x21..<0x7F:
      return "'\(Character(Unicode.Scalar(b)))'"
    case 0x20:
      return "' '"
    case 0..<0x20, 0x7F:
      return "control character U+00\(_hexByte(b))"
    default:
      if let length = try? utf8SequenceLength(at: k) {
        let text = String(decoding: UnsafeRawBufferPointer(start: base + k, count: length), as: UTF8.self)
        return "'\(text)'"
      }
      return "byte 0x\(_hexByte(b))"
    }
  }

  func wireError(_ failure: _ParseFailure) -> WireError {
    var line = 1
    var column = 1
    let upTo = min(failure.offset, end)
    var k = 0
    while k < upTo {
      let b = byte(k)
      if b == 0x0A {
        line += 1
        column = 1
      } else if b & 0xC0 != 0x80 {
        column += 1
      }
      k += 1
    }
    let path = _renderJSONPath(failure.reversedPath.reversed())
    let location = "(line \(line), column \(column), byte offset \(failure.offset))"
    var message: String
    if failure.kind == .tooDeep {
      message = "\(failure.message) \(location)"
    } else {
      message = "\(failure.message) at \(path) \(location)"
    }
    if let found = failure.found { message += ", found \(found)" }
    if let detail = failure.detail { message += ": \(detail)" }
    return WireError(
      kind: failure.kind, path: path, message: message, offset: failure.offset, line: line,
      column: column)
  }
}

@inline(__always)
private func _isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

func _hexByte(_ b: UInt8) -> String {
  let s = String(b, radix: 16, uppercase: true)
  return s.count == 1 ? "0" + s : s
}

private func _hex4(_ v: UInt32) -> String {
  let s = String(v, radix: 16, uppercase: true)
  return String(repeating: "0", count: max(0, 4 - s.count)) + s
}
