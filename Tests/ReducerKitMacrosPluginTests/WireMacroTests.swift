import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

@testable import ReducerKitMacrosSupport

/// What `@Wire` writes: the `WireCodable` shape of structs and enums, and errors for what would
/// make the synthesized `Codable` differ from the shape.
final class WireMacroTests: XCTestCase {
  /// As the compiler calls it for a type that does not conform yet.
  let macros = ["Wire": MacroSpec(type: WireMacro.self, conformances: ["WireCodable"])]

  func testStruct() {
    assertMacroExpansion(
      """
      @Wire
      public struct Todo: Equatable {
        public var id: Int
        var title = ""
        var note: String?, tags: [String]
        let created: Optional<Int>
        var `default`: Bool { didSet {} }
        var naïve: Swift.Optional<String> = nil
        var total: Int { id + 1 }
        static var count = 0
        var items: Array<Todo> {
          get { [] }
          set {}
        }
      }
      """,
      expandedSource: """
        public struct Todo: Equatable {
          public var id: Int
          var title = ""
          var note: String?, tags: [String]
          let created: Optional<Int>
          var `default`: Bool { didSet {} }
          var naïve: Swift.Optional<String> = nil
          var total: Int { id + 1 }
          static var count = 0
          var items: Array<Todo> {
            get { [] }
            set {}
          }

          public static var _wireShape: ReducerKitWire._WireShape<Self> {
            .struct([
                .init("id", \\Self.id),
                .init("title", inferred: \\Self.title),
                .init("note", ifPresent: \\Self.note),
                .init("tags", \\Self.tags),
                .init("created", ifPresent: \\Self.created),
                .init("default", \\Self.`default`),
                .init("naïve", ifPresent: \\Self.naïve),
              ])
          }
        }

        extension Todo: ReducerKitWire.WireCodable {
        }
        """,
      macroSpecs: macros,
      indentationWidth: .spaces(2)
    )
  }

  /// `var a, b: Int?`: the later annotation is the earlier names' type too.
  func testSharedAnnotation() {
    assertMacroExpansion(
      """
      @Wire
      struct Pair<Value: Codable> {
        var a, b: Int?
        var value: Value
      }
      """,
      expandedSource: """
        struct Pair<Value: Codable> {
          var a, b: Int?
          var value: Value

          static var _wireShape: ReducerKitWire._WireShape<Self> {
            .struct([
                .init("a", ifPresent: \\Self.a),
                .init("b", ifPresent: \\Self.b),
                .init("value", \\Self.value),
              ])
          }
        }

        extension Pair: ReducerKitWire.WireCodable {
        }
        """,
      macroSpecs: macros,
      indentationWidth: .spaces(2)
    )
  }

  func testEnum() {
    assertMacroExpansion(
      """
      @Wire
      public enum Action: Equatable {
        case increment, `default`
        case setCount(Int)
        case addTodo(title: String)
        case move(Int, to: Int)
        case note(String?)
        indirect case nested(Action)
        case café(ü: [Int])
        case empty()
      }
      """,
      expandedSource: """
        public enum Action: Equatable {
          case increment, `default`
          case setCount(Int)
          case addTodo(title: String)
          case move(Int, to: Int)
          case note(String?)
          indirect case nested(Action)
          case café(ü: [Int])
          case empty()

          public static var _wireShape: ReducerKitWire._WireShape<Self> {
            .enum([
                .unit("increment"),
                .unit("default"),
                .init("setCount", labels: [nil], [.init((Int).self)]),
                .init("addTodo", labels: ["title"], [.init((String).self)]),
                .init("move", labels: [nil, "to"], [.init((Int).self), .init((Int).self)]),
                .init("note", labels: [nil], [.init((String?).self)]),
                .init("nested", labels: [nil], [.init((Action).self)]),
                .init("café", labels: ["ü"], [.init(([Int]).self)]),
                .unit("empty"),
              ]) { i, p in
              switch i {
              case 0:
                p.set(Self.increment)
              case 1:
                p.set(Self.`default`)
              case 2:
                p.set(Self.setCount(p.take(0, (Int).self)))
              case 3:
                p.set(Self.addTodo(title: p.take(0, (String).self)))
              case 4:
                p.set(Self.move(p.take(0, (Int).self), to: p.take(1, (Int).self)))
              case 5:
                p.set(Self.note(p.take(0, (String?).self)))
              case 6:
                p.set(Self.nested(p.take(0, (Action).self)))
              case 7:
                p.set(Self.café(ü: p.take(0, ([Int]).self)))
              case 8:
                p.set(Self.empty())
              default:
                preconditionFailure()
              }
            }
          }
        }

        extension Action: ReducerKitWire.WireCodable {
        }
        """,
      macroSpecs: macros,
      indentationWidth: .spaces(2)
    )
  }

  /// `CodingKeys` are respected: its order, its keys, the properties it leaves out.
  func testCodingKeys() {
    assertMacroExpansion(
      """
      @Wire
      struct Renamed {
        var id: Int
        var cache = 0
        var title: String?
        private enum CodingKeys: String, CodingKey {
          case title = "Title"
          case id
        }
      }
      @Wire
      struct Computed {
        var id: Int
        enum CodingKeys: CodingKey {
          case id, missing
        }
      }
      """,
      expandedSource: """
        struct Renamed {
          var id: Int
          var cache = 0
          var title: String?
          private enum CodingKeys: String, CodingKey {
            case title = "Title"
            case id
          }

          static var _wireShape: ReducerKitWire._WireShape<Self> {
            .struct([
                .init("Title", ifPresent: \\Self.title),
                .init("id", \\Self.id),
              ])
          }
        }
        struct Computed {
          var id: Int
          enum CodingKeys: CodingKey {
            case id, missing
          }
        }

        extension Renamed: ReducerKitWire.WireCodable {
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "'@Wire' cannot read these 'CodingKeys' ('missing' is not a stored property); remove '@Wire' to keep them",
          line: 15, column: 14)
      ],
      macroSpecs: macros,
      indentationWidth: .spaces(2)
    )
  }

  func testWhatCodableWouldWriteDifferentlyIsRefused() {
    assertMacroExpansion(
      """
      @Wire
      enum Filter: String {
        case all, active
      }
      @Wire
      enum Custom {
        case a(Int)
        enum ACodingKeys: CodingKey {
          case value
        }
        init(from decoder: any Decoder) throws { self = .a(0) }
      }
      @Wire
      struct Wrapped {
        @Clamped var level: Int
        lazy var cache = 0
        func encode(to encoder: any Encoder) throws {}
      }
      @Wire
      class Box {}
      """,
      expandedSource: """
        enum Filter: String {
          case all, active
        }
        enum Custom {
          case a(Int)
          enum ACodingKeys: CodingKey {
            case value
          }
          init(from decoder: any Decoder) throws { self = .a(0) }
        }
        struct Wrapped {
          @Clamped var level: Int
          lazy var cache = 0
          func encode(to encoder: any Encoder) throws {}
        }
        class Box {}
        """,
      diagnostics: [
        DiagnosticSpec(message: "'@Wire' does not apply to a raw-value enum: Codable writes its raw values", line: 2, column: 14),
        DiagnosticSpec(
          message: "'@Wire' does not support 'ACodingKeys' on an enum: its shape uses the case and label names; "
            + "remove '@Wire' to keep renamed keys (the type stays Codable)",
          line: 8, column: 8),
        DiagnosticSpec(
          message: "'@Wire' needs an enum's synthesized 'init(from:)'; remove '@Wire' to keep this one", line: 11, column: 3),
        DiagnosticSpec(
          message: "'@Wire' does not support property wrappers or attributes on stored properties: Codable writes the wrapper",
          line: 15, column: 3),
        DiagnosticSpec(
          message: "'@Wire' does not support 'lazy' properties (their storage is not the property)", line: 16, column: 3),
        DiagnosticSpec(
          message: "'@Wire' needs the synthesized 'encode(to:)'; remove '@Wire' to keep this one", line: 17, column: 8),
        DiagnosticSpec(message: "'@Wire' applies to a struct or an enum (its values are copied)", line: 19, column: 1),
      ],
      macroSpecs: macros,
      indentationWidth: .spaces(2)
    )
  }

  /// A type that already conforms (declared `WireCodable`) gets the shape alone.
  func testExistingConformance() {
    assertMacroExpansion(
      """
      @Wire
      struct One: WireCodable {
        var x: Int
      }
      """,
      expandedSource: """
        struct One: WireCodable {
          var x: Int

          static var _wireShape: ReducerKitWire._WireShape<Self> {
            .struct([
                .init("x", \\Self.x),
              ])
          }
        }
        """,
      macroSpecs: ["Wire": MacroSpec(type: WireMacro.self, conformances: [])],
      indentationWidth: .spaces(2)
    )
  }
}
