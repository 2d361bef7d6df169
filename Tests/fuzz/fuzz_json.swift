// libFuzzer harness for the JSON parser and the two codecs, compiled together with the
// ReducerKitWire sources (so it reaches their internals; see scripts/fuzz.sh).
//
// For any input: parsing either fails with an error whose offset, line and column lie inside
// the input, or gives a value that writes back to text which parses to the same value, the
// reference writer writes the same bytes, and both decoders read it the same way (value or
// error, path and message) as each of a few representative types, whose values both encoders
// then write identically.

enum FuzzAction: Codable {
  case increment
  case setCount(Int)
  case addTodo(title: String, note: String?)
  case move(Int, Int)
  case child(FuzzChild)
  case setFilter(FuzzFilter)
  case mixed(Int, label: String)
}

enum FuzzChild: Codable { case toggle, setTitle(String), element(id: Int8, action: FuzzFilter?) }

enum FuzzFilter: String, Codable { case all, active, completed }

struct FuzzState: Codable {
  var count: Int
  var ratio: Double?
  var title: String
  var flags: [Bool]
  var tags: [String: UInt8]
  var items: [FuzzItem]
  var extra: JSONValue?
}

struct FuzzItem: Codable {
  var id: UInt64
  var f: Float
  var child: FuzzChild?
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeRawBufferPointer(start: data, count: size)
  let value: JSONValue
  do {
    value = try parseJSON(bytes, maxDepth: 512)
  } catch {
    if let offset = error.offset {
      precondition(offset >= 0 && offset <= size, "error offset \(offset) outside an input of \(size) bytes: \(error)")
      precondition((error.line ?? 0) >= 1 && (error.column ?? 0) >= 1, "bad line/column in \(error)")
    }
    precondition(!error.message.isEmpty, "an empty error message")
    return 0
  }
  var value2 = value
  defer { value2.releaseIteratively() }
  let text = value.serializedBytes()
  var reference: [UInt8] = []
  _referenceWrite(value, into: &reference)
  precondition(reference == text, "the writers differ: \(String(decoding: text, as: UTF8.self)) vs \(String(decoding: reference, as: UTF8.self))")
  guard let again = try? parseJSON(text, maxDepth: 512), again == value else {
    preconditionFailure("written text does not parse back to the same value: \(String(decoding: text, as: UTF8.self))")
  }
  var failures: [String] = []
  failures += _differentialCheck(FuzzAction.self, input: value, rootNoun: "action")
  failures += _differentialCheck(FuzzState.self, input: value, rootNoun: "state")
  failures += _differentialCheck([FuzzChild].self, input: value, rootNoun: "case")
  failures += _differentialCheck([String: Int16].self, input: value, rootNoun: "case")
  failures += _differentialCheck(JSONValue.self, input: value, rootNoun: "case")
  precondition(failures.isEmpty, "the codecs disagree: \(failures[0])")
  return 0
}
