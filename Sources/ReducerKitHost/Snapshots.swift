import ReducerKitPlatform
import ReducerKitWire
import Synchronization

// Saved state that outlives the process: `rk_store_snapshot` writes
// {"feature", "state_version", "schema_hash", "version", "state"}; the create option
// `"snapshot"` restores one, migrating its state step by step from the version that wrote it.

/// One step of a feature's state schema: turns the JSON of a state of version `from` into the
/// JSON of a state of version `from + 1`.
///
/// ```swift
/// Feature(name: "todos", initialState: Todos.State(), stateVersion: 3, migrations: [
///   .from(1) { json in json["filter"] = .string("all") },        // 1 -> 2: a new field
///   .from(2) { json in json["items"] = json["todos"]; json["todos"] = nil },  // 2 -> 3: renamed
/// ]) { Todos() }
/// ```
public struct StateMigration: Sendable {
  /// The state version this migration reads (it writes `from + 1`).
  public let from: Int
  @usableFromInline let transform: @Sendable (inout JSONValue) throws -> Void

  @usableFromInline init(from: Int, transform: @escaping @Sendable (inout JSONValue) throws -> Void) {
    self.from = from
    self.transform = transform
  }

  /// The migration from state version `version` to `version + 1`: `transform` edits the
  /// state's JSON in place. Throw a ``MigrationError`` to say which value it cannot convert.
  @inlinable
  public static func from(
    _ version: Int, _ transform: @escaping @Sendable (inout JSONValue) throws -> Void
  ) -> StateMigration {
    StateMigration(from: version, transform: transform)
  }
}

/// What a ``StateMigration`` throws for a value it cannot convert: where it is (a JSON Pointer
/// into the state, `"/todos/3/due"`) and why. The restore fails with `RK_ERR_STATE` naming the
/// migration, the pointer and the message.
public struct MigrationError: Error, Sendable, CustomStringConvertible {
  /// The JSON Pointer of the offending value (`""`: the whole state).
  public let pointer: String
  /// Why it cannot be converted.
  public let message: String

  /// - Parameters:
  ///   - message: why the value cannot be converted.
  ///   - pointer: where it is, as a JSON Pointer into the state being migrated.
  public init(_ message: String, at pointer: String = "") {
    self.message = message
    self.pointer = pointer
  }

  public var description: String { pointer.isEmpty ? message : "at \(pointer): \(message)" }
}

/// A feature's identity for snapshots: its name, state version, migrations and schema hash.
@usableFromInline
package final class FeatureIdentity: Sendable {
  @usableFromInline package let name: String
  @usableFromInline package let stateVersion: Int
  let migrations: [StateMigration]
  /// The action, state and endpoint schemas (as `rk_features` lists them).
  private let schemas: @Sendable () -> JSONValue
  private let hash = AtomicLazyReference<Box>()
  private final class Box: Sendable {
    let text: String
    init(_ text: String) { self.text = text }
  }

  @usableFromInline
  package init(
    name: String, stateVersion: Int, migrations: [StateMigration], schemas: @escaping @Sendable () -> JSONValue
  ) {
    self.name = name
    self.stateVersion = stateVersion
    self.migrations = migrations
    self.schemas = schemas
  }

  /// A stable hash of the feature's schemas: 16 hex digits of FNV-1a (64-bit) over their
  /// canonical JSON (object keys sorted, no white space). Equal schemas give equal hashes on
  /// every machine and in every release; any change to an action, the state or an endpoint
  /// changes it.
  package var schemaHash: String {
    if let box = hash.load() { return box.text }
    var value: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in Self.canonical(schemas()) { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
    let digits = String(value, radix: 16)
    return hash.storeIfNil(Box(String(repeating: "0", count: 16 - digits.count) + digits)).text
  }

  /// `value` as canonical JSON: object members sorted by key (by UTF-8 bytes), no white space.
  static func canonical(_ value: JSONValue) -> [UInt8] {
    func sorted(_ value: JSONValue) -> JSONValue {
      switch value {
      case let .object(members):
        return .object(
          members.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            .map { (key: $0.key, value: sorted($0.value)) })
      case let .array(elements):
        return .array(elements.map(sorted))
      default:
        return value
      }
    }
    return sorted(value).serializedBytes()
  }

  /// The snapshot document of a state (its JSON, NUL-terminated or not) at `version`.
  @usableFromInline package func snapshot(stateJSON: some Collection<UInt8>, version: UInt64) -> [UInt8] {
    var out = Array(#"{"feature":"#.utf8)
    out.append(contentsOf: JSONValue.string(name).serializedBytes())
    out.append(contentsOf: #","state_version":\#(stateVersion),"schema_hash":"\#(schemaHash)","version":\#(version),"state":"#.utf8)
    out.append(contentsOf: stateJSON)
    out.append(UInt8(ascii: "}"))
    return out
  }

  /// The state a snapshot holds, migrated to this feature's state version, and the version
  /// the restored store continues from. Every error is `RK_ERR_STATE` (or
  /// `RK_ERR_INVALID_ARGUMENT` for a snapshot that is not one), saying what and where.
  @usableFromInline package func restore(_ snapshot: JSONValue) throws(HostError) -> (state: JSONValue, version: UInt64) {
    let at = "options_json: $.snapshot"
    guard case let .object(members) = snapshot else {
      throw HostError(.invalidArgument, "\(at): expected a snapshot object (rk_store_snapshot's), found \(snapshot.kindName)")
    }
    let keys = ["feature", "state_version", "schema_hash", "version", "state"]
    for (key, _) in members where !keys.contains(key) {
      throw HostError(
        .invalidArgument,
        "\(at): unknown key \(WireMessage.quoted(key))\(WireMessage.didYouMean(key, among: keys)); "
          + "a snapshot has: \(keys.joined(separator: ", "))")
    }
    guard case let .string(feature)? = snapshot["feature"] else {
      throw HostError(.invalidArgument, "\(at).feature: expected the feature's name (a string)")
    }
    guard feature == name else {
      throw HostError(
        .state, "\(at) is a snapshot of feature \(WireMessage.quoted(feature)), not of \(WireMessage.quoted(name))")
    }
    guard case let .int(number)? = snapshot["state_version"], number >= 1 else {
      throw HostError(.invalidArgument, "\(at).state_version: expected an integer >= 1")
    }
    let written = Int(number)
    guard written <= stateVersion else {
      throw HostError(
        .state,
        "\(at) was written with state_version \(written) of \(WireMessage.quoted(name)), newer than this "
          + "library's state_version \(stateVersion): restore it with the library that wrote it, or a newer one")
    }
    let version: UInt64
    switch snapshot["version"] {
    case let .int(value)? where value >= 0: version = UInt64(value)
    case let .number(text)?:
      guard let value = UInt64(text) else { fallthrough }
      version = value
    default:
      throw HostError(.invalidArgument, "\(at).version: expected the store version (an integer from 0 to 2^64-1)")
    }
    if let hash = snapshot["schema_hash"] {
      guard case .string = hash else {
        throw HostError(.invalidArgument, "\(at).schema_hash: expected a string, found \(hash.kindName)")
      }
    }
    guard var state = snapshot["state"] else {
      throw HostError(.invalidArgument, "\(at): no \"state\"")
    }
    for from in written..<stateVersion {
      guard let migration = migrations.last(where: { $0.from == from }) else {
        throw HostError(
          .state,
          "\(at): no migration from state_version \(from) to \(from + 1) of \(WireMessage.quoted(name)) "
            + "(the feature declares migrations from: "
            + (migrations.isEmpty ? "none" : migrations.map { String($0.from) }.joined(separator: ", ")) + ")")
      }
      do {
        try migration.transform(&state)
      } catch let error as MigrationError {
        throw HostError(
          .state,
          "\(at): the migration from state_version \(from) to \(from + 1) failed at "
            + "\(WireMessage.quoted(error.pointer)): \(Self.bounded(error.message))")
      } catch {
        throw HostError(
          .state,
          "\(at): the migration from state_version \(from) to \(from + 1) failed: \(Self.bounded(String(describing: error)))")
      }
    }
    return (state, version)
  }

  /// The decoding error of a restored state, with the JSON Pointer of the offending value.
  @usableFromInline package func notAState(_ error: WireError, migratedFrom written: Int?) -> HostError {
    let origin = written.map { $0 == stateVersion ? "" : " (migrated from state_version \($0) to \(stateVersion))" } ?? ""
    // The pointer when the message's path names the value exactly (a path cut short for the
    // message, with "…", has no exact pointer: the message's own path says where).
    let at = Self.pointer(of: error.path).map { " at \(WireMessage.quoted($0))" } ?? ""
    return HostError(
      .state,
      "options_json: $.snapshot.state\(origin) is not a state of \(WireMessage.quoted(name))\(at): \(error.message)")
  }

  /// The JSON Pointer of a JSONPath as the codec's messages write it (`$.todos[3].title` ->
  /// `/todos/3/title`; `$['a.b\'c']` -> `/a.b'c`), or nil when the path was shortened for the
  /// message (`…`) or is not of that form.
  static func pointer(of path: String) -> String? {
    var scalars = Array(path.unicodeScalars)[...]
    guard scalars.first == "$" else { return nil }
    scalars = scalars.dropFirst()
    var out = ""
    func append(_ key: String.UnicodeScalarView) {
      out += "/"
      for scalar in key {
        switch scalar {
        case "~": out += "~0"
        case "/": out += "~1"
        default: out.unicodeScalars.append(scalar)
        }
      }
    }
    while let first = scalars.first {
      if first == "." {
        scalars = scalars.dropFirst()
        let end = scalars.firstIndex { $0 == "." || $0 == "[" || $0 == "…" } ?? scalars.endIndex
        guard end > scalars.startIndex else { return nil }
        append(String.UnicodeScalarView(scalars[..<end]))
        scalars = scalars[end...]
      } else if first == "[", scalars.dropFirst().first == "'" {
        scalars = scalars.dropFirst(2)
        var key = String.UnicodeScalarView()
        var closed = false
        while let scalar = scalars.first {
          scalars = scalars.dropFirst()
          if scalar == "'" {
            closed = true
            break
          }
          guard scalar == "\\" else {
            key.append(scalar)
            continue
          }
          guard let escaped = scalars.first else { return nil }
          scalars = scalars.dropFirst()
          switch escaped {
          case "n": key.append("\n")
          case "r": key.append("\r")
          case "t": key.append("\t")
          case "u":
            guard scalars.count >= 4,
              let value = UInt32(String(String.UnicodeScalarView(scalars.prefix(4))), radix: 16),
              let decoded = Unicode.Scalar(value)
            else { return nil }
            key.append(decoded)
            scalars = scalars.dropFirst(4)
          default: key.append(escaped)
          }
        }
        guard closed, scalars.first == "]" else { return nil }
        scalars = scalars.dropFirst()
        append(key)
      } else if first == "[" {
        scalars = scalars.dropFirst()
        guard let end = scalars.firstIndex(of: "]") else { return nil }
        let digits = String(String.UnicodeScalarView(scalars[..<end]))
        guard !digits.isEmpty, digits.unicodeScalars.allSatisfy({ $0.isASCII }), Int(digits) != nil else { return nil }
        out += "/" + digits
        scalars = scalars[scalars.index(after: end)...]
      } else {
        return nil  // "…": shortened for the message
      }
    }
    return out
  }

  /// A message from user code, cut to 300 characters (escaped where it is shown).
  static func bounded(_ text: String) -> String {
    var out = ""
    var count = 0
    for scalar in text.unicodeScalars {
      count += 1
      if count > 300 {
        out += "… (\(text.utf8.count) bytes)"
        break
      }
      if _escapedInMessages(scalar) {
        out += "\\u{" + String(scalar.value, radix: 16) + "}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
