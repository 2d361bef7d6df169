/// The largest nesting depth `parseJSON` accepts, whatever `maxDepth` asks for: deeper
/// values would risk the stack of secondary threads in recursive code (including the
/// destruction of the parsed `JSONValue`).
public let jsonMaxDepthLimit = 1024

/// Parses JSON text (RFC 8259) into a `JSONValue`.
///
/// ```swift
/// let value = try parseJSON(#"{"todos": [{"id": 1}]}"#)
/// ```
///
/// The input must be valid UTF-8 (checked strictly) holding exactly one JSON value,
/// optionally surrounded by whitespace (a leading UTF-8 byte order mark is skipped). An object
/// with the same key twice is an error (`WireError.Kind.duplicateKey`). Runs in time linear in
/// the input and in constant stack space at any depth. Errors carry the byte offset, line,
/// column and JSON path.
///
/// Releasing a deeply nested `JSONValue` the ordinary way recurses once per level; call
/// `releaseIteratively()` to drop one on a thread with a small stack.
///
/// - Parameters:
///   - bytes: UTF-8 JSON text.
///   - maxDepth: the deepest nesting of arrays and objects accepted (at most
///     `jsonMaxDepthLimit`); deeper input fails with `WireError.Kind.tooDeep`.
public func parseJSON(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 512) throws(WireError)
  -> JSONValue
{
  try _parseJSON(bytes, maxDepth: maxDepth).value
}

/// Parses JSON text, also returning the deepest nesting of arrays and objects in it.
func _parseJSON(_ bytes: UnsafeRawBufferPointer, maxDepth: Int) throws(WireError)
  -> (value: JSONValue, depth: Int)
{
  guard let base = bytes.baseAddress, bytes.count > 0 else {
    throw WireError(
      kind: .syntax, path: "$",
      message: "expected a JSON value at $ (line 1, column 1, byte offset 0), found end of input",
      offset: 0, line: 1, column: 1)
  }
  var parser = _Parser(
    base: base, end: bytes.count, maxDepth: min(max(maxDepth, 0), jsonMaxDepthLimit))
  do {
    let value = try parser.parseDocument()
    return (value, parser.deepest)
  } catch {
    throw parser.wireError(error)
  }
}

/// Values nested deeper than this are freed with `_dismantle()` rather than by recursive
/// release, which costs about 100 bytes of stack per level.
let _dismantleDepth = 32

/// Parses JSON text (RFC 8259) into a `JSONValue`. See `parseJSON(_:maxDepth:)`.
public func parseJSON(_ bytes: [UInt8], maxDepth: Int = 512) throws(WireError) -> JSONValue {
  try bytes.withUnsafeBytes { raw in
    Result { () throws(WireError) in try parseJSON(raw, maxDepth: maxDepth) }
  }.get()
}

/// Parses JSON text (RFC 8259) into a `JSONValue`. See `parseJSON(_:maxDepth:)`.
public func parseJSON(_ text: String, maxDepth: Int = 512) throws(WireError) -> JSONValue {
  var text = text
  return try text.withUTF8 { utf8 in
    Result { () throws(WireError) in try parseJSON(UnsafeRawBufferPointer(utf8), maxDepth: maxDepth) }
  }.get()
}
