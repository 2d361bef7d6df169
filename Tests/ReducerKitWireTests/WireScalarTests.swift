import Testing
@testable import ReducerKitWire

/// `Int` and `String` roots (host endpoint payloads and responses) skip the encoder and the
/// decoder: the same bytes, values and errors as the general path.
@Suite struct WireScalarTests {
  /// What the encoder writes (the general path, without the scalar shortcut).
  func encoded<T: Encodable>(_ value: T) throws -> [UInt8] {
    try WireEncoder().withEncodedBytes(value) { Array($0) }
  }

  static let strings: [String] = [
    "", "a", "numberFact", "quote \" backslash \\ slash /", "\u{0}\u{1}\u{1F}\u{7F}",
    "tab\tnewline\nreturn\r\u{8}\u{C}", "é ü 中文 🎉 \u{202E}", String(repeating: "x", count: 1000),
    "\u{2028}\u{2029}", "\u{FFFD}",
  ]

  @Test func intsEncodeAsTheEncoderWrites() throws {
    var ints: [Int] = [0, 1, -1, 9, 10, 99, 100, -100, 12_345, Int.max, Int.min, Int.max - 1, Int.min + 1]
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<500 { ints.append(Int.random(in: Int.min...Int.max, using: &generator)) }
    for value in ints {
      #expect(try WireEncoder().encode(value) == encoded(value), "\(value)")
      #expect(WireEncoder.encodeScalar(value) != nil)
    }
  }

  @Test func stringsEncodeAsTheEncoderWrites() throws {
    var strings = Self.strings
    for scalar in 0..<0x80 { strings.append(String(UnicodeScalar(UInt8(scalar)))) }
    for value in strings {
      #expect(try WireEncoder().encode(value) == encoded(value), "\(value.debugDescription)")
    }
  }

  @Test func otherTypesTakeTheEncoder() {
    #expect(WireEncoder.encodeScalar(Int32(5)) == nil)
    #expect(WireEncoder.encodeScalar(Optional("x")) == nil)
    #expect(WireEncoder.encodeScalar([1]) == nil)
  }

  @Test func stringsDecodeAsTheDecoderReads() throws {
    var texts = try Self.strings.map { try encoded($0) }
    texts += [#""\ud83c\udf89""#, #""\u00e9\n\"x\"""#, #"  "padded"  "#].map { Array($0.utf8) }
    for bytes in texts {
      let fast = try bytes.withUnsafeBytes { try WireDecoder().decode(String.self, from: $0) }
      let general = try WireDecoder().decode(String.self, from: parseJSON(bytes))
      #expect(fast == general, "\(String(decoding: bytes, as: UTF8.self))")
    }
  }

  /// Not a string, or not JSON: the errors the decoder gives.
  @Test func nonStringsFailAsTheDecoderFails() throws {
    let texts = ["42", "null", "[\"x\"]", "{\"a\":1}", "\"unterminated", "", "\"x\" trailing", "true"]
    for text in texts {
      let bytes = Array(text.utf8)
      var fastError: String?
      do {
        _ = try bytes.withUnsafeBytes { try WireDecoder().decode(String.self, from: $0) }
      } catch {
        fastError = String(describing: error)
      }
      var generalError: String?
      do {
        _ = try WireDecoder().decode(String.self, from: parseJSON(bytes))
      } catch {
        generalError = String(describing: error)
      }
      #expect(fastError != nil, "\(text)")
      #expect(fastError == generalError, "\(text)")
    }
  }
}
