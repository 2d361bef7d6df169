import ReducerKitWire

/// The status of a host operation: the C `rk_status` codes (include/reducerkit.h), by value.
@usableFromInline
package enum HostStatus: Int32, Sendable {
  case ok = 0
  case invalidArgument = 1
  case json = 2
  case action = 3
  case state = 4
  case unknownFeature = 5
  case invalidHandle = 6
  case timeout = 7
  case `internal` = 8
  case misuse = 9
  case response = 10

  /// The static text `rk_status_string` returns (`"RK_ERR_ACTION: not an action of the feature"`).
  package var staticText: StaticString {
    switch self {
    case .ok: return "RK_OK: success"
    case .invalidArgument: return "RK_ERR_INVALID_ARGUMENT: invalid argument"
    case .json: return "RK_ERR_JSON: malformed JSON"
    case .action: return "RK_ERR_ACTION: not an action of the feature"
    case .state: return "RK_ERR_STATE: not a state of the feature"
    case .unknownFeature: return "RK_ERR_UNKNOWN_FEATURE: no such feature"
    case .invalidHandle: return "RK_ERR_INVALID_HANDLE: store destroyed or never created"
    case .timeout: return "RK_ERR_TIMEOUT: timed out"
    case .internal: return "RK_ERR_INTERNAL: internal error"
    case .misuse: return "RK_ERR_MISUSE: call not allowed here"
    case .response: return "RK_ERR_RESPONSE: not a response of the request's endpoint"
    }
  }

  /// The C name of the status (`"RK_ERR_ACTION"`).
  package var name: String { String("\(staticText)".prefix { $0 != ":" }) }
}

/// An error of a host operation: its status and the message hosts get (`rk_last_error`).
@usableFromInline
package struct HostError: Error, Sendable {
  @usableFromInline package let status: HostStatus
  @usableFromInline package let message: String
  @usableFromInline package init(_ status: HostStatus, _ message: String) {
    self.status = status
    self.message = message
  }

  /// Maps a wire-codec error: unparsable text is `RK_ERR_JSON`, the rest is `otherwise`.
  @usableFromInline package init(_ error: WireError, otherwise: HostStatus, context: String?) {
    let message = context.map { "\($0): \(error.message)" } ?? error.message
    switch error.kind {
    case .syntax, .invalidUTF8, .tooDeep, .duplicateKey:
      self.init(.json, message)
    default:
      self.init(otherwise, message)
    }
  }
}


extension HostError {
  /// A patch-engine or JSON Pointer error as hosts see it.
  @usableFromInline package init(_ error: PatchError) {
    switch error.kind {
    case .invalidArgument: self.init(.invalidArgument, error.message)
    case .internal: self.init(.internal, error.message)
    }
  }

  /// Runs `body`, mapping a patch-engine error to its host error.
  @inlinable package static func mapping<T>(_ body: () throws(PatchError) -> T) throws(HostError) -> T {
    do {
      return try body()
    } catch {
      throw HostError(error)
    }
  }
}
