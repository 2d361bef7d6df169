import ReducerKitPlatform
/// RFC 6901 JSON Pointers: `""` is the whole document, `/todos/0/title` a part of it; in a
/// segment `~1` stands for `/` and `~0` for `~`.
@usableFromInline
package enum JSONPointer {
  /// The unescaped segments of `pointer` (UTF-8 bytes), or an error naming what is wrong.
  @usableFromInline
  package static func parse(_ bytes: UnsafeRawBufferPointer) throws(PatchError) -> [String] {
    guard !bytes.isEmpty else { return [] }
    guard bytes[0] == UInt8(ascii: "/") else {
      throw PatchError(
        .invalidArgument,
        "pointer \(quoted(bytes)) is not a JSON Pointer: it must be \"\" (the whole state) or start with \"/\"")
    }
    // Validated once over the contiguous bytes (a lazy view would take the generic path);
    // ASCII, the usual pointer, is valid as it is.
    var ascii = true
    for byte in bytes where byte >= 0x80 {
      ascii = false
      break
    }
    if !ascii, bytes.withMemoryRebound(to: UInt8.self, { String(validating: $0, as: UTF8.self) }) == nil {
      throw PatchError(.invalidArgument, "pointer is not valid UTF-8")
    }
    // One pass over the bytes; a segment without "~" is made straight from its bytes.
    var segments: [String] = []
    var slashes = 0
    for byte in bytes where byte == UInt8(ascii: "/") { slashes += 1 }
    segments.reserveCapacity(slashes)
    var start = 1
    while start <= bytes.count {
      var end = start
      var escaped = false
      while end < bytes.count, bytes[end] != UInt8(ascii: "/") {
        if bytes[end] == UInt8(ascii: "~") { escaped = true }
        end += 1
      }
      let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
      segments.append(escaped ? try unescape(raw, bytes) : String(decoding: raw, as: UTF8.self))
      start = end + 1
    }
    return segments
  }

  /// A segment with `~0` and `~1` turned into `~` and `/` (`pointer`: the whole pointer, valid
  /// UTF-8, for the message).
  private static func unescape(_ raw: UnsafeRawBufferPointer, _ pointer: UnsafeRawBufferPointer) throws(PatchError) -> String {
    var segment: [UInt8] = []
    segment.reserveCapacity(raw.count)
    var iterator = raw.makeIterator()
    while let byte = iterator.next() {
      guard byte == UInt8(ascii: "~") else {
        segment.append(byte)
        continue
      }
      switch iterator.next() {
      case UInt8(ascii: "0"): segment.append(UInt8(ascii: "~"))
      case UInt8(ascii: "1"): segment.append(UInt8(ascii: "/"))
      default:
        throw PatchError(
          .invalidArgument,
          "pointer \(WireQuote.bounded(String(decoding: pointer, as: UTF8.self))) has \"~\" not followed by 0 or 1 (write \"~\" as \"~0\" and \"/\" as \"~1\")")
      }
    }
    return String(decoding: segment, as: UTF8.self)
  }

  /// The array index a segment names: decimal digits without a leading zero (RFC 6901).
  /// `-` (the position after the last element) and anything else are not indices.
  package static func arrayIndex(_ segment: String) -> Int? {
    let utf8 = segment.utf8
    guard let first = utf8.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9"),
      first != UInt8(ascii: "0") || utf8.count == 1, utf8.count <= 18,
      utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else { return nil }
    return Int(segment)
  }

  /// The pointer of `segments` (escaped).
  static func render<S: Sequence>(_ segments: S) -> String where S.Element == String {
    var out: [UInt8] = []
    for segment in segments {
      out.append(UInt8(ascii: "/"))
      appendEscaped(segment, to: &out)
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Appends `segment` with `~` written `~0` and `/` written `~1`.
  static func appendEscaped(_ segment: String, to out: inout [UInt8]) {
    // The common case (nothing to escape) over the contiguous bytes, appended at once.
    let plain = segment.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
      for byte in bytes where byte == UInt8(ascii: "~") || byte == UInt8(ascii: "/") { return false }
      out.append(contentsOf: bytes)
      return true
    }
    if plain == true { return }
    if plain == nil, !segment.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) {
      out.append(contentsOf: segment.utf8)
      return
    }
    for byte in segment.utf8 {
      switch byte {
      case UInt8(ascii: "~"): out.append(contentsOf: [UInt8(ascii: "~"), UInt8(ascii: "0")])
      case UInt8(ascii: "/"): out.append(contentsOf: [UInt8(ascii: "~"), UInt8(ascii: "1")])
      default: out.append(byte)
      }
    }
  }

  /// Appends `text` as a JSON string, escaped as `WireEncoder` escapes: the runs that need
  /// no escape are copied whole (the same bytes as the byte-by-byte `appendJSONString`).
  static func appendJSONString(_ text: String, to out: inout [UInt8]) {
    var text = text
    text.withUTF8 { bytes in
      out.append(UInt8(ascii: "\""))
      var start = 0
      for i in bytes.indices {
        let byte = bytes[i]
        guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
        if start < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i])) }
        appendStringEscape(byte, to: &out)
        start = i + 1
      }
      if start < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...])) }
      out.append(UInt8(ascii: "\""))
    }
  }

  /// A byte `appendJSONString` escapes, escaped.
  private static func appendStringEscape(_ byte: UInt8, to out: inout [UInt8]) {
    switch byte {
    case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
    case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
    case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
    case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
    case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
    case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
    case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
    default:
      let hex = Array("0123456789abcdef".utf8)
      out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
      out.append(hex[Int(byte >> 4)])
      out.append(hex[Int(byte & 0xF)])
    }
  }

  /// Appends `text` (valid UTF-8) as a JSON string, escaped as `WireEncoder` escapes.
  static func appendJSONString<Bytes: Sequence<UInt8>>(_ text: Bytes, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for byte in text {
      switch byte {
      case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
      case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
      case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
      case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
      case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
      case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
      case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
      case 0..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
        out.append(hex[Int(byte >> 4)])
        out.append(hex[Int(byte & 0xF)])
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  static func quoted(_ bytes: UnsafeRawBufferPointer) -> String {
    WireQuote.bounded(
      String(decoding: bytes.prefix(WireQuote.defaultLimit + 4), as: UTF8.self), totalBytes: bytes.count)
  }
}

/// Strings quoted for messages: as JSON strings (control characters, quotes and backslashes
/// escaped), and bounded, so a message never carries a caller's text raw or whole.
enum WireQuote {
  /// How many bytes of a text a message quotes by default.
  static let defaultLimit = 120

  /// `text` as a JSON string, whole (for texts the library made, of bounded size).
  static func string(_ text: String) -> String {
    var out: [UInt8] = []
    JSONPointer.appendJSONString(Array(text.utf8), to: &out)
    return _escapingForMessages(json: String(decoding: out, as: UTF8.self))
  }

  /// At most `limit` bytes of `text` (cut at a character boundary) as a JSON string; a longer
  /// text ends with `..."` and says how long it was.
  /// `totalBytes`: the length of the whole text when `text` is a prefix of it.
  static func bounded(_ text: String, limit: Int = defaultLimit, totalBytes: Int? = nil) -> String {
    let utf8 = text.utf8
    guard utf8.count > limit else { return string(text) }
    var end = utf8.index(utf8.startIndex, offsetBy: limit)
    while end > utf8.startIndex, UTF8.isContinuation(utf8[end]) { end = utf8.index(before: end) }
    var out: [UInt8] = []
    JSONPointer.appendJSONString(Array(utf8[..<end]), to: &out)
    out.insert(contentsOf: Array("...".utf8), at: out.count - 1)
    return _escapingForMessages(json: String(decoding: out, as: UTF8.self)) + " (\(totalBytes ?? utf8.count) bytes)"
  }
}
