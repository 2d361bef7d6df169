import Foundation
import ReducerKitHost
import ReducerKitHostTesting
import ReducerKitTesting
import Testing

/// Tests/scenarios/hostile (see its README): unusual and hostile files, each named for the
/// verdict every runner must give it (`NAME.pass.json`, `NAME.fail.json`). reducerkit-check
/// (`make test-c`) and Python (`bindings/python/tests/test_scenarios.py`) check the same
/// names, so the three runners agree on every file.
@Suite struct HostileScenarioTests {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("scenarios/hostile")

  static let files: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(".pass.json") || $0.hasSuffix(".fail.json") }.sorted()
  }()

  @Test func hostileFilesExist() {
    #expect(Self.files.count >= 15, "no hostile scenarios found in \(Self.directory.path)")
    #expect(Self.files.contains { $0.hasSuffix(".pass.json") })
  }

  /// A FIFO (opening it blocked for ever without a writer), a link to /dev/zero (read until
  /// memory ran out) and a directory are refused before a byte is read, as reducerkit-check and
  /// Python refuse them (bindings/python/tests/test_scenarios.py).
  @Test func aFIFOADeviceOrADirectoryIsRefusedWithoutReadingIt() throws {
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("rk-special-files-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let fifo = dir.appendingPathComponent("fifo.scenario.json").path
    try #require(mkfifo(fifo, 0o600) == 0)
    let zero = dir.appendingPathComponent("zero.scenario.json").path
    try FileManager.default.createSymbolicLink(atPath: zero, withDestinationPath: "/dev/zero")
    for (path, kind) in [(dir.path, "a directory"), (fifo, "a FIFO"), (zero, "a character device")] {
      let error = #expect(throws: ScenarioError.self) { try Scenario(contentsOfFile: path) }
      #expect(error?.message == "\(path): cannot read the file: not a regular file (\(kind))")
    }
  }

  @Test(arguments: HostileScenarioTests.files)
  func verdict(_ name: String) async throws {
    let path = Self.directory.appendingPathComponent(name).path
    if name.hasSuffix(".pass.json") {
      try await Scenario(contentsOfFile: path).run(features: ScenarioTests.features)
      return
    }
    let scenario: Scenario
    do {
      scenario = try Scenario(contentsOfFile: path)
    } catch {
      return  // a malformed file fails before it runs
    }
    await withKnownIssue("\(name) must fail") {
      await scenario.run(features: ScenarioTests.features)
    }
  }
}
