#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import ReducerKitPlatform

/// Writes a report to standard error as one line (no Foundation needed). The text may carry
/// anything an error said (a host's message, say): control characters are escaped (`\n`,
/// `\u{1B}`), so it cannot forge log lines or terminal codes, and it is cut to
/// `_standardErrorLimit` bytes, saying how long it was.
func _writeToStandardError(_ message: String) {
  _writeLine(_escapedReport(message), to: stderr)
}

/// `_writeToStandardError` for the host layers: one escaped, bounded line.
@_spi(Host) public func _reportToStandardError(_ message: String) {
  _writeToStandardError(message)
}

/// The longest report written to standard error, in bytes (before escaping).
let _standardErrorLimit = 4096

/// `message` made safe for one line of a log (see `_writeToStandardError`).
func _escapedReport(_ message: String) -> String {
  var out = ""
  var bytes = 0
  for scalar in message.unicodeScalars {
    bytes += UTF8.width(scalar)
    if bytes > _standardErrorLimit {
      out += "... (\(message.utf8.count) bytes)"
      break
    }
    switch scalar.value {
    case 0x0A: out += "\\n"
    case 0x0D: out += "\\r"
    case 0x09: out += "\\t"
    case _ where _escapedInMessages(scalar):
      out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    default: out.unicodeScalars.append(scalar)
    }
  }
  return out
}

private func _writeLine(_ text: String, to stream: UnsafeMutablePointer<FILE>?) {
  var line = text
  line.append("\n")
  line.withCString { _ = fputs($0, stream) }
}
