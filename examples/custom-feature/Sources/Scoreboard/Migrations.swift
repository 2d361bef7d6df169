import ReducerKitFFI

// The scoreboard's state has changed twice since it first shipped; a snapshot saved by an older
// release is migrated step by step when a store is created with {"snapshot": …}
// (snapshots/ keeps one of each version, restored by `make test-custom`).
//
// - state_version 1: {"homeScore": 5, "awayScore": 3, "log": ["home 2", "away 3", "home 3"]}
// - state_version 2: the scores renamed `home` and `away`.
// - state_version 3: a new field, `saved` (the receipt of the last save), and log lines that
//   show the points with a sign ("home +2").
extension Scoreboard {
  /// The version of the state's shape (see the migrations).
  public static let stateVersion = 3

  /// The migrations from each older state version to the next.
  public static let migrations: [StateMigration] = [
    .from(1, renameScores),
    .from(2, addSavedAndSignPoints),
  ]

  /// 1 -> 2: `homeScore` and `awayScore` are renamed `home` and `away`.
  public static func renameScores(_ json: inout JSONValue) throws {
    for (old, new) in [("homeScore", "home"), ("awayScore", "away")] {
      guard case .int? = json[old] else {
        throw MigrationError("expected the score (an integer)", at: "/\(old)")
      }
      json[new] = json[old]
      json[old] = nil
    }
  }

  /// 2 -> 3: `saved` is new (`null`: not saved since the update), and a log line "home 2"
  /// becomes "home +2".
  public static func addSavedAndSignPoints(_ json: inout JSONValue) throws {
    guard case let .array(lines)? = json["log"] else {
      throw MigrationError("expected the log (an array of strings)", at: "/log")
    }
    var signed: [JSONValue] = []
    for (index, line) in lines.enumerated() {
      guard case let .string(text) = line else {
        throw MigrationError("expected a log line (a string)", at: "/log/\(index)")
      }
      let parts = text.split(separator: " ", maxSplits: 1)
      if parts.count == 2, parts[0] == "home" || parts[0] == "away", let points = Int(parts[1]) {
        signed.append(.string("\(parts[0]) +\(points)"))
      } else {
        signed.append(line)  // "saved as …" lines did not change
      }
    }
    json["log"] = .array(signed)
    json["saved"] = .null
  }
}
