/// Whether a message shows `scalar` escaped rather than as itself: the control characters
/// (U+0000 to U+001F, U+007F to U+009F), the line and paragraph separators, and the format
/// characters (Unicode category Cf: the bidi controls U+202A to U+202E and U+2066 to U+2069,
/// zero-width characters, U+FEFF, …), which end a line early, drive a terminal, or reorder
/// and hide what it shows. The one rule of every escaping function of ReducerKit's messages.
@inline(__always)
package func _escapedInMessages(_ scalar: Unicode.Scalar) -> Bool {
  switch scalar.value {
  case 0..<0x20, 0x7F..<0xA0, 0x2028, 0x2029: return true
  case 0x20..<0x7F: return false
  default: return scalar.properties.generalCategory == .format
  }
}

/// `scalar` as a JSON escape, `\u202E` (a pair of them beyond U+FFFF), for messages that quote
/// text as JSON.
package func _jsonEscape(_ scalar: Unicode.Scalar) -> String {
  var out = ""
  for unit in String(Character(scalar)).utf16 {
    let hex = String(unit, radix: 16, uppercase: true)
    out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
  }
  return out
}

/// `json` (JSON text made for a message, its control characters below U+0020 escaped already)
/// with every other character `_escapedInMessages` names escaped as JSON escapes.
package func _escapingForMessages(json: String) -> String {
  guard json.unicodeScalars.contains(where: { $0.value >= 0x7F && _escapedInMessages($0) }) else { return json }
  var out = ""
  for scalar in json.unicodeScalars {
    if scalar.value >= 0x7F && _escapedInMessages(scalar) {
      out += _jsonEscape(scalar)
    } else {
      out.unicodeScalars.append(scalar)
    }
  }
  return out
}
