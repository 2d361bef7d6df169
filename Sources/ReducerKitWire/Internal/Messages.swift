import ReducerKitPlatform
// Pieces of error messages: input quoted in a bounded, escaped form, "did you mean"
// suggestions, and lists cut to a readable length.

/// The most characters of input quoted in a message.
let _quoteLimit = 64

/// `"text"` with JSON escapes (so control characters never reach a message raw). Input longer
/// than `limit` characters is cut: `"first 64 characters"…(10485760 bytes)`.
func _quoted(_ text: String, limit: Int = _quoteLimit) -> String {
  var buffer = _ByteBuffer(capacity: 32)
  var count = 0
  var end = text.unicodeScalars.startIndex
  while end < text.unicodeScalars.endIndex, count < limit {
    end = text.unicodeScalars.index(after: end)
    count += 1
  }
  let cut = end < text.unicodeScalars.endIndex
  buffer.appendJSONString(cut ? String(text.unicodeScalars[..<end]) : text)
  let quoted = _escapingForMessages(json: buffer.makeString())
  return cut ? quoted + "…(\(text.utf8.count) bytes)" : quoted
}

/// `text` cut to about `limit` characters (for text that is not user input, or already safe).
func _truncated(_ text: String, to limit: Int) -> String {
  var count = 0
  var end = text.startIndex
  while end < text.endIndex {
    if count == limit { return String(text[..<end]) + "…(\(text.utf8.count) bytes)" }
    end = text.index(after: end)
    count += 1
  }
  return text
}

/// The candidate closest to `name` when it is one or two edits away (insert, delete,
/// substitute, or swap two neighbours), else nil.
func _suggestion(for name: String, among candidates: [String]) -> String? {
  let a = Array(name.unicodeScalars)
  guard !a.isEmpty, a.count <= 64 else { return nil }
  var best: (name: String, distance: Int)?
  for candidate in candidates where candidate != name {
    let b = Array(candidate.unicodeScalars)
    guard abs(a.count - b.count) <= 2, b.count <= 64 else { continue }
    let d = _editDistance(a, b)
    // Two edits turn any 2-character name into any other: require the rest to match.
    guard d <= 2, d < b.count, d < a.count + 1, best.map({ d < $0.distance }) ?? true else { continue }
    best = (candidate, d)
  }
  return best?.name
}

/// The optimal string alignment distance between `a` and `b`.
func _editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var previous2 = [Int](repeating: 0, count: b.count + 1)
  var previous = Array(0...b.count)
  var current = [Int](repeating: 0, count: b.count + 1)
  for i in 1...a.count {
    current[0] = i
    for j in 1...b.count {
      let cost = a[i - 1] == b[j - 1] ? 0 : 1
      var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
        d = min(d, previous2[j - 2] + 1)
      }
      current[j] = d
    }
    (previous2, previous, current) = (previous, current, previous2)
  }
  return previous[b.count]
}

/// ` (did you mean "x"?)` when a candidate is close to `name`, else "".
func _didYouMean(_ name: String, among candidates: [String]) -> String {
  guard let suggestion = _suggestion(for: name, among: candidates) else { return "" }
  return " (did you mean \(_quoted(suggestion))?)"
}

/// The most entries a list in a message shows.
let _listLimit = 12

/// `items` joined with ", ", cut after 10 entries when there are more than 12.
func _listed(_ items: [String]) -> String {
  guard items.count > _listLimit else { return items.joined(separator: ", ") }
  return items.prefix(_listLimit - 2).joined(separator: ", ") + ", … (\(items.count - _listLimit + 2) more)"
}

/// Message helpers for code that reports errors about wire input outside this module (such
/// as the C layer's options and feature names), so every message quotes input the same way.
public enum WireMessage {
  /// `text` JSON-quoted, with control characters escaped, cut after 64 characters:
  /// `"abc"`, `"first 64 characters"…(10485760 bytes)`.
  public static func quoted(_ text: String) -> String { _quoted(text) }

  /// ` (did you mean "x"?)` when one of `candidates` is one or two edits from `name`, else "".
  public static func didYouMean(_ name: String, among candidates: [String]) -> String {
    _didYouMean(name, among: candidates)
  }

  /// A JSONPath for object keys below the root: `["a", "b c"]` gives `$.a['b c']`. Long keys
  /// are cut and control characters escaped.
  public static func path(_ keys: [String]) -> String {
    _renderJSONPath(keys.map { .key($0) })
  }

  /// `items` joined with ", ", cut with "… (N more)" when there are more than 12.
  public static func listed(_ items: [String]) -> String { _listed(items) }
}
