#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import ReducerKitFFI
import Scoreboard
import Testing

// The scoreboard's migration chain (state_version 1 -> 2 -> 3, Sources/Scoreboard/Migrations.swift),
// step by step, and every snapshot of snapshots/ restored through the C door as a host would.

private let v1: JSONValue = .object([
  (key: "homeScore", value: .int(5)), (key: "awayScore", value: .int(3)),
  (key: "log", value: .array([.string("home 2"), .string("away 3"), .string("saved as x")])),
])

@Test func theChainTurnsAVersionOneStateIntoTodaysState() throws {
  var json = v1
  try Scoreboard.renameScores(&json)
  #expect(json["home"] == .int(5) && json["away"] == .int(3) && json["homeScore"] == nil)
  try Scoreboard.addSavedAndSignPoints(&json)
  let state = try WireDecoder().decode(Scoreboard.State.self, from: json)
  var expected = Scoreboard.State()
  expected.home = 5
  expected.away = 3
  expected.log = ["home +2", "away +3", "saved as x"]
  #expect(state == expected)
  #expect(Scoreboard.migrations.map(\.from) == [1, 2])
  #expect(Scoreboard.stateVersion == 3)
}

@Test func aMigrationSaysWhichValueItCannotConvert() {
  var json = v1
  json["homeScore"] = .string("five")
  #expect(throws: MigrationError.self) { try Scoreboard.renameScores(&json) }
  do {
    try Scoreboard.renameScores(&json)
  } catch let error as MigrationError {
    #expect(error.pointer == "/homeScore")
  } catch {
    Issue.record("unexpected \(error)")
  }
  var log: JSONValue = .object([(key: "log", value: .array([.string("home 1"), .int(2)]))])
  do {
    try Scoreboard.addSavedAndSignPoints(&log)
    Issue.record("a log line that is not a string was accepted")
  } catch let error as MigrationError {
    #expect(error.pointer == "/log/1")
  } catch {
    Issue.record("unexpected \(error)")
  }
}

/// A committed snapshot file's text (`name` relative to snapshots/).
private func snapshotText(_ name: String) throws -> String {
  var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
  parts.removeLast(3)  // Tests/ScoreboardTests/MigrationTests.swift
  let path = parts.joined(separator: "/") + "/snapshots/" + name
  guard let file = fopen(path, "rb") else { throw HostErrorText(status: -1, message: "cannot open \(path)") }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 4096)
  while true {
    let count = fread(&buffer, 1, buffer.count, file)
    if count == 0 { break }
    bytes.append(contentsOf: buffer[0..<count])
  }
  return String(decoding: bytes, as: UTF8.self)
}

/// Creates a scoreboard store from the snapshot document `text` through rk_store_create, and
/// returns its state and version, or the status and message of the error.
private func restore(_ text: String) -> Result<(state: JSONValue, version: UInt64), HostErrorText> {
  FeatureRegistry.register(.scoreboard)
  let options = "{\"snapshot\":\(text),\"clock\":\"test\"}"
  var store: OpaquePointer?
  let status = rk_store_create("scoreboard", options, &store)
  guard status == 0, let store else {
    return .failure(HostErrorText(status: status, message: String(cString: rk_last_error())))
  }
  defer { rk_store_destroy(store) }
  var json: UnsafeMutablePointer<CChar>?
  var version: UInt64 = 0
  guard rk_store_state(store, &json, nil) == 0, let json, rk_store_version(store, &version) == 0 else {
    return .failure(HostErrorText(status: -1, message: String(cString: rk_last_error())))
  }
  defer { rk_free(json) }
  guard let state = try? parseJSON(Array(String(cString: json).utf8)) else {
    return .failure(HostErrorText(status: -1, message: "the state is not JSON"))
  }
  return .success((state, version))
}

private struct HostErrorText: Error {
  let status: Int32
  let message: String
}

@Test(arguments: ["scoreboard-v1.json", "scoreboard-v2.json", "scoreboard-v3.json"])
func aCommittedSnapshotRestores(_ name: String) throws {
  let text = try snapshotText(name)
  let written = try parseJSON(Array(text.utf8))
  let restored = try restore(text).get()
  guard case let .int(version)? = written["version"] else {
    Issue.record("\(name) has no version")
    return
  }
  #expect(restored.version == UInt64(version))
  #expect(restored.state["home"] == .int(5) && restored.state["away"] == .int(3))
  #expect(restored.state["saved"] != nil)
  guard case let .array(lines)? = restored.state["log"] else {
    Issue.record("\(name): no log after the restore")
    return
  }
  #expect(lines.prefix(3) == [.string("home +2"), .string("away +3"), .string("home +3")])
}

@Test func aSnapshotWhoseMigrationFailsIsRefusedNamingIt() throws {
  let text = try snapshotText("wrong/score-not-a-number-v1.json")
  switch restore(text) {
  case .success:
    Issue.record("a snapshot with a score that is not a number was restored")
  case let .failure(error):
    #expect(error.status == 4)  // RK_ERR_STATE
    #expect(error.message.contains("migration from state_version 1 to 2"))
    #expect(error.message.contains("\"/homeScore\""))
  }
}
