import Testing
import ReducerKitWire
import ReducerKitTestSupport

@Suite struct ParserTests {
  func parseError(_ text: String) -> WireError? {
    do {
      _ = try parseJSON(text)
      return nil
    } catch {
      return error
    }
  }

  func parseError(bytes: [UInt8]) -> WireError? {
    do {
      _ = try parseJSON(bytes)
      return nil
    } catch {
      return error
    }
  }

  @Test func parsesTheGrammar() throws {
    let value = try parseJSON(#" {"a": [1, -2.5e3, true, false, null, "x\u00e9\ud83d\ude00\n"], "b": {}, "c": [], "d": 0} "#)
    guard case .object(let members) = value else {
      Issue.record("not an object")
      return
    }
    #expect(members.map(\.key) == ["a", "b", "c", "d"])
    #expect(members[0].value == [1, -2500.0, true, false, .null, "xé😀\n"])
    #expect(value["d"] == 0)
    #expect(try parseJSON("0") == 0)
    #expect(try parseJSON("-0") == 0)
    #expect(try parseJSON("-0.0") == .double(-0.0))
    #expect(try parseJSON(#""\/\b\f\r\t\"\\""#) == "/\u{8}\u{c}\r\t\"\\")
    #expect(try parseJSON("\u{FEFF}[1]") == [1])
  }

  @Test func numbersKeepIntegersExact() throws {
    #expect(try parseJSON("9223372036854775807") == .int(.max))
    #expect(try parseJSON("-9223372036854775808") == .int(.min))
    #expect(try parseJSON("9223372036854775808") == .number("9223372036854775808"))
    #expect(try parseJSON("123456789012345678901234567890") == .number("123456789012345678901234567890"))
    #expect(try parseJSON("1e400") == .number("1e400"))
    #expect(try parseJSON("1E2") == .double(100))
    #expect(try parseJSON("0.1") == .double(0.1))
    #expect(try parseJSON("2.2250738585072014e-308") == .double(2.2250738585072014e-308))
    #expect(try parseJSON("1.7976931348623157e308") == .double(1.7976931348623157e308))
    #expect(try parseJSON("0.30000000000000004") == .double(0.30000000000000004))
    // A fraction or exponent whose Double is a different whole number keeps its text, so that
    // an integer field refuses it instead of taking that other integer.
    #expect(try parseJSON("123456789012345678.5") == .number("123456789012345678.5"))
    #expect(try parseJSON("1e-400") == .number("1e-400"))
    #expect(try parseJSON("1.0000000000000001") == .number("1.0000000000000001"))
    #expect(try parseJSON("9007199254740993.0") == .number("9007199254740993.0"))
    #expect(try parseJSON("9007199254740992.0") == .double(9007199254740992))
    #expect(try parseJSON("1.0") == .double(1))
    #expect(try parseJSON("1e300") == .double(1e300))  // beyond every integer type
    for text in ["3.141592653589793", "1e22", "1e23", "9007199254740993", "4.9e-324", "-1.5e-10"] {
      let expected = Double(text) ?? .nan
      if case .double(let d) = try parseJSON(text + (text.contains(where: { $0 == "." || $0 == "e" }) ? "" : ".0")) {
        #expect(d == expected, "\(text)")
      }
    }
  }

  @Test func serializationRoundTrips() throws {
    let text = #"{"b":[1,2.5,"x\"\n",true,null,{}],"a":1e400,"c":-0.0}"#
    #expect(try parseJSON(text).serialized() == text)
    #expect(JSONValue.double(.nan).serialized() == "null")
    #expect(try parseJSON(Array(text.utf8)).serializedBytes() == Array(text.utf8))
  }

  @Test func rejectsInvalidJSON() throws {
    let cases: [(String, String)] = [
      ("", "expected a JSON value at $ (line 1, column 1, byte offset 0), found end of input"),
      ("   ", "expected a JSON value at $ (line 1, column 4, byte offset 3), found end of input"),
      ("[1,]", "expected a value after ',' at $[1] (line 1, column 4, byte offset 3), found ']': trailing commas are not allowed"),
      (#"{"a":1,}"#, #"expected '"' to begin an object key at $ (line 1, column 8, byte offset 7), found '}': trailing commas are not allowed"#),
      ("01", "invalid number at $ (line 1, column 1, byte offset 0): leading zeros are not allowed"),
      ("-", "expected a digit after '-' at $ (line 1, column 2, byte offset 1), found end of input"),
      ("1.", "expected a digit after '.' at $ (line 1, column 3, byte offset 2), found end of input"),
      ("1e", "expected a digit in the exponent at $ (line 1, column 3, byte offset 2), found end of input"),
      ("NaN", "expected a JSON value at $ (line 1, column 1, byte offset 0), found 'N'"),
      ("Infinity", "expected a JSON value at $ (line 1, column 1, byte offset 0), found 'I'"),
      ("tru", "expected 'true' at $ (line 1, column 4, byte offset 3), found end of input"),
      ("[1] x", "expected end of input after the JSON value at $ (line 1, column 5, byte offset 4), found 'x'"),
      ("{\"a\":1}\n{}", "expected end of input after the JSON value at $ (line 2, column 1, byte offset 8), found '{'"),
      ("\"abc", #"expected '"' to end the string at $ (line 1, column 5, byte offset 4), found end of input: the string starting at byte offset 0 is not terminated"#),
      ("\"a\tb\"", #"expected '"' to end the string at $ (line 1, column 3, byte offset 2), found control character U+0009: control characters must be escaped in strings"#),
      (#""\x""#, #"expected a valid escape character (one of "\/bfnrtu) at $ (line 1, column 3, byte offset 2), found 'x'"#),
      (#""\u12g4""#, #"expected 4 hex digits after \u at $ (line 1, column 6, byte offset 5), found 'g'"#),
      (#""\ud83d""#, #"expected a valid \u escape at $ (line 1, column 2, byte offset 1): high surrogate \uD83D is not followed by a low surrogate"#),
      (#""\ude00""#, #"expected a valid \u escape at $ (line 1, column 2, byte offset 1): low surrogate \uDE00 without a preceding high surrogate"#),
      (#"{"todos":[{"id":1},{"id":2 "x"}]}"#, "expected ',' or '}' after object member at $.todos[1] (line 1, column 28, byte offset 27), found '\"'"),
      ("[\"é\" é]", "expected ',' or ']' after array element at $ (line 1, column 6, byte offset 6), found 'é'"),
    ]
    for (text, message) in cases {
      let error = parseError(text)
      #expect(error?.description == message, "\(text)")
      #expect(error?.kind == .syntax, "\(text)")
    }
  }

  @Test func invalidUTF8IsAnErrorWithOffset() throws {
    let quote = UInt8(ascii: "\"")
    let cases: [([UInt8], Int, String)] = [
      ([quote, 0x61, 0xFF, quote], 2, "byte 0xFF never appears in UTF-8"),
      ([quote, 0x80, quote], 1, "unexpected continuation byte 0x80"),
      ([quote, 0xC0, 0xAF, quote], 1, "overlong encoding (byte 0xC0)"),
      ([quote, 0xE0, 0x80, 0xAF, quote], 1, "overlong encoding (bytes 0xE0 0x80)"),
      ([quote, 0xED, 0xA0, 0x80, quote], 1, "encoded surrogate (U+D800...U+DFFF) (bytes 0xED 0xA0)"),
      ([quote, 0xF4, 0x90, 0x80, 0x80, quote], 1, "code point above U+10FFFF (bytes 0xF4 0x90)"),
      ([quote, 0xE2, 0x82, quote], 3, "invalid continuation byte 0x22"),
      ([quote, 0xE2, 0x82], 1, "truncated sequence (input ends after 0xE2)"),
      ([UInt8(ascii: "["), 0xFE, UInt8(ascii: "]")], 1, "byte 0xFE never appears in UTF-8"),
    ]
    for (bytes, offset, detail) in cases {
      let error = parseError(bytes: bytes)
      #expect(error?.kind == .invalidUTF8, "\(bytes)")
      #expect(error?.offset == offset, "\(bytes)")
      #expect(error?.description.hasPrefix("invalid UTF-8 at $") == true, "\(bytes)")
      #expect(error?.description.hasSuffix(": " + detail) == true, "\(error?.description ?? "")")
    }
    #expect(parseError(bytes: [quote, 0x61, 0xFF, quote])?.description
      == "invalid UTF-8 at $ (line 1, column 3, byte offset 2): byte 0xFF never appears in UTF-8")
    // Valid multi-byte characters of every length.
    #expect(try parseJSON(Array("\"é€😀\"".utf8)) == "é€😀")
    // An invalid byte inside a nested value names the path.
    let nested = parseError(bytes: Array(#"{"todos":[{"title":""#.utf8) + [0xC3, 0x28] + Array(#""}]}"#.utf8))
    #expect(nested?.path == "$.todos[0].title")
  }

  @Test func deepNestingIsACleanError() throws {
    let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
    let error = try #require(parseError(deep))
    #expect(error.kind == .tooDeep)
    #expect(error.offset == 512)
    #expect(error.description == "arrays and objects nested deeper than 512 levels (line 1, column 513, byte offset 512)")
    let objects = String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)
    #expect(parseError(objects)?.kind == .tooDeep)
    // 512 levels are fine; the limit is configurable (up to jsonMaxDepthLimit).
    #expect(parseError(String(repeating: "[", count: 512) + String(repeating: "]", count: 512)) == nil)
    #expect(throws: WireError.self) { try parseJSON("[[[1]]]", maxDepth: 2) }
    #expect(try parseJSON("[[1]]", maxDepth: 2) == [[1]])
    let decoderError = #expect(throws: WireError.self) { try WireDecoder().decode(JSONValue.self, from: deep) }
    #expect(decoderError?.kind == .tooDeep)
  }

  @Test func tenMegabyteStringsParseInLinearTime() throws {
    let size = 10 * 1024 * 1024
    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: size + 2)
    bytes[0] = UInt8(ascii: "\"")
    bytes[size + 1] = UInt8(ascii: "\"")
    let clock = ContinuousClock()
    let start = clock.now
    let value = try parseJSON(bytes)
    let elapsed = clock.now - start
    guard case .string(let s) = value else {
      Issue.record("not a string")
      return
    }
    #expect(s.utf8.count == size)
    #expect(elapsed < cap(.seconds(5)))  // a few ms; the cap only catches a quadratic parse
    // With escapes and non-ASCII throughout, and unterminated.
    let unit = Array(#"ab\"é\n"#.utf8)
    var mixed: [UInt8] = [UInt8(ascii: "\"")]
    while mixed.count < size { mixed.append(contentsOf: unit) }
    let unterminated = parseError(bytes: mixed)
    #expect(unterminated?.kind == .syntax)
    mixed.append(UInt8(ascii: "\""))
    if case .string(let text) = try parseJSON(mixed) {
      #expect(text.hasPrefix("ab\"é\n"))
    } else {
      Issue.record("not a string")
    }
  }
}
