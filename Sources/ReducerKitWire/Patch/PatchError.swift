/// An error of the patch engine or of a JSON Pointer read: a pointer that is malformed or
/// names no value (`invalidArgument`), a version no longer kept (`unavailable`), or a state the
/// encoder rejects (`internal`). The host layer maps each kind to its status.
@usableFromInline
package struct PatchError: Error, Sendable {
  @usableFromInline package enum Kind: Sendable {
    /// A malformed JSON Pointer, or one that names no value in the state.
    case invalidArgument
    /// A part of the state could not be encoded (a value the encoder rejects).
    case `internal`
  }

  @usableFromInline package let kind: Kind
  /// What was wrong and where (the message hosts get).
  @usableFromInline package let message: String

  @usableFromInline package init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }
}
