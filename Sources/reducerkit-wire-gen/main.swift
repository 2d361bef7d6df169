// reducerkit-wire-gen DIR: writes DIR/Wire.generated.swift, what `@Wire` writes for each type in
// DIR/*.swift that declares `WireCodable` (`make generate-wire` runs it on the shipped features).
import Foundation
import ReducerKitMacrosSupport

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 1, let directory = arguments.first else {
  FileHandle.standardError.write(Data("usage: reducerkit-wire-gen DIR (writes DIR/\(WireGenerator.fileName))\n".utf8))
  exit(2)
}
do {
  let names = try FileManager.default.contentsOfDirectory(atPath: directory)
    .filter { $0.hasSuffix(".swift") && $0 != WireGenerator.fileName }.sorted()
  let sources = try names.map {
    WireGenerator.Source(name: $0, text: try String(contentsOfFile: "\(directory)/\($0)", encoding: .utf8))
  }
  let text = try WireGenerator.generate(sources, command: WireGenerator.command)
  let output = "\(directory)/\(WireGenerator.fileName)"
  if (try? String(contentsOfFile: output, encoding: .utf8)) == text {
    print("\(output): up to date")
  } else {
    try text.write(toFile: output, atomically: true, encoding: .utf8)
    print("\(output): written")
  }
} catch {
  FileHandle.standardError.write(Data("reducerkit-wire-gen: \(error)\n".utf8))
  exit(1)
}
