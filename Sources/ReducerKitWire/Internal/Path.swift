import ReducerKitPlatform
// JSONPath rendering (`$.todos[3].title`) and the path bookkeeping shared by the encoder
// and the decoder.

/// One step of a JSON path.
enum _JSONPathComponent: Sendable, Equatable {
  case key(String)
  case index(Int)
}

/// Renders components as a JSONPath starting at `$`. Long keys are cut and control
/// characters escaped; a path of more than 24 steps shows its first 8 and last 12 steps.
func _renderJSONPath(_ components: some Sequence<_JSONPathComponent>) -> String {
  var out = "$"
  let all = Array(components)
  for (n, component) in all.enumerated() {
    if all.count > 24 {
      if n == 8 { out += "…(\(all.count - 20) more steps)…" }
      if n >= 8, n < all.count - 12 { continue }
    }
    switch component {
    case .index(let i):
      out += "[\(i)]"
    case .key(let key):
      let long = key.utf8.count > _quoteLimit
      if !long, _isPlainIdentifier(key) {
        out += "." + key
      } else {
        out += "['"
        var count = 0
        for scalar in key.unicodeScalars {
          if count == _quoteLimit { break }
          count += 1
          switch scalar {
          case "'": out += "\\'"
          case "\\": out += "\\\\"
          case "\n": out += "\\n"
          case "\r": out += "\\r"
          case "\t": out += "\\t"
          case _ where _escapedInMessages(scalar):
            out += _jsonEscape(scalar)
          default: out.unicodeScalars.append(scalar)
          }
        }
        out += "']"
        if long { out += "…(\(key.utf8.count) bytes)" }
      }
    }
  }
  return out
}

private func _isPlainIdentifier(_ key: String) -> Bool {
  var first = true
  for byte in key.utf8 {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "_"), UInt8(ascii: "$"):
      break
    case UInt8(ascii: "0")...UInt8(ascii: "9") where !first:
      break
    default:
      return false
    }
    first = false
  }
  return !first
}

/// How a coding key shows in a JSON path.
enum _PathStyle: UInt8 {
  /// `.name`
  case key
  /// `[n]` (unkeyed containers, positional enum payloads)
  case index
  /// Not shown: the `_0` of a case with a single unlabeled value, which is written bare.
  case hidden
}

/// A coding-path entry: the Swift key (for `codingPath`) plus how it renders in JSON.
struct _PathEntry {
  var key: any CodingKey
  var style: _PathStyle

  var component: _JSONPathComponent? {
    switch style {
    case .key: return .key(key.stringValue)
    case .index: return .index(key.intValue ?? _positionalIndex(key.stringValue) ?? 0)
    case .hidden: return nil
    }
  }
}

/// A key for positions in unkeyed containers (and for keys we make up).
struct _IndexKey: CodingKey {
  var intValue: Int?
  var stringValue: String { intValue.map { "Index \($0)" } ?? "" }
  init(index: Int) { intValue = index }
  init?(intValue: Int) { self.intValue = intValue }
  init?(stringValue: String) { return nil }
}

/// A key with an arbitrary string value.
struct _StringKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(_ string: String) { stringValue = string }
  init?(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { return nil }
}

/// `n` for a positional payload key `_n` of a synthesized enum `CodingKeys`, else nil.
@inline(__always)
func _positionalIndex(_ name: String) -> Int? {
  var utf8 = name.utf8.makeIterator()
  guard utf8.next() == UInt8(ascii: "_") else { return nil }
  var value = 0
  var digits = 0
  while let byte = utf8.next() {
    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 9 else { return nil }
    if digits > 0, value == 0 { return nil }  // no leading zeros: `_01` is a label
    value = value * 10 + Int(byte - UInt8(ascii: "0"))
    digits += 1
  }
  return digits > 0 ? value : nil
}

/// Renders a path of entries plus plain Swift keys appended after them (from errors thrown
/// by user code deeper than our bookkeeping reaches).
func _renderPath(_ entries: some Sequence<_PathEntry>, extra: [any CodingKey] = []) -> String {
  var components: [_JSONPathComponent] = entries.compactMap(\.component)
  for key in extra {
    if let i = key.intValue, key is _IndexKey || key.stringValue == "Index \(i)" {
      components.append(.index(i))
    } else {
      components.append(.key(key.stringValue))
    }
  }
  return _renderJSONPath(components)
}

/// A path entry as kept on the hot path: a key borrowed from a caller's stack frame for the
/// duration of a nested encode or decode call (no copy), or, when `borrowed` is nil, the
/// next key of the owner's owned-keys stack (for nested containers, which outlive calls).
struct _PathSlot {
  var borrowed: UnsafePointer<any CodingKey>?
  var style: _PathStyle
}

/// A path of slots plus the keys owned by it.
struct _PathStack: ~Copyable {
  var slots = _Stack<_PathSlot>()
  var owned = _Stack<any CodingKey>()

  var count: Int { slots.count }

  @inline(__always)
  mutating func push(borrowing key: UnsafePointer<any CodingKey>, style: _PathStyle) {
    slots.push(_PathSlot(borrowed: key, style: style))
  }

  mutating func push(owning key: any CodingKey, style: _PathStyle) {
    owned.push(key)
    slots.push(_PathSlot(borrowed: nil, style: style))
  }

  @inline(__always)
  mutating func removeLast() {
    if slots.pop().borrowed == nil { owned.removeLast() }
  }

  mutating func removeAll(downTo newCount: Int) {
    while slots.count > newCount { removeLast() }
  }

  /// The first `depth` entries with their keys.
  func entries(depth: Int? = nil) -> [_PathEntry] {
    let n = min(depth ?? slots.count, slots.count)
    var result: [_PathEntry] = []
    result.reserveCapacity(n)
    var ownedIndex = 0
    for i in 0..<n {
      let slot = slots[i]
      if let borrowed = slot.borrowed {
        result.append(_PathEntry(key: borrowed.pointee, style: slot.style))
      } else {
        result.append(_PathEntry(key: owned[ownedIndex], style: slot.style))
        ownedIndex += 1
      }
    }
    return result
  }
}
