import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import ReducerKitMacrosSupport

@Suite struct DependencyClientMacroTests {
  let spec: [String: MacroSpec] = ["DependencyClient": MacroSpec(type: DependencyClientMacro.self)]

  @Test func endpointsWithoutDefaultsBecomeUnimplemented() {
    assertExpansion(
      """
      @DependencyClient
      struct FactClient {
        var fetch: @Sendable (Int) async throws -> String
        var log: @Sendable (String, Int) -> Void
        var reset: @Sendable () async -> Void
        var count: @Sendable () -> Int = { 0 }
        var name: String
        var `default`: (@Sendable () throws -> Int)?
        static let shared = 1
        var computed: Int { 1 }
      }
      """,
      expandedSource: #"""
        struct FactClient {
          var fetch: @Sendable (Int) async throws -> String
          var log: @Sendable (String, Int) -> Void
          var reset: @Sendable () async -> Void
          var count: @Sendable () -> Int = { 0 }
          var name: String
          var `default`: (@Sendable () throws -> Int)?
          static let shared = 1
          var computed: Int { 1 }

          init(
            fetch: @escaping @Sendable (Int) async throws -> String = { _ in
              ReducerKit._reportUnimplementedDependency("FactClient.fetch");
              throw ReducerKit.UnimplementedDependencyError("FactClient.fetch")
            },
            log: @escaping @Sendable (String, Int) -> Void = { _, _ in
              ReducerKit._reportUnimplementedDependency("FactClient.log")
            },
            reset: @escaping @Sendable () async -> Void = {
              ReducerKit._reportUnimplementedDependency("FactClient.reset")
            },
            count: @escaping @Sendable () -> Int = {
              0
            },
            name: String,
            `default`: (@Sendable () throws -> Int)? = nil
          ) {
            self.fetch = fetch
            self.log = log
            self.reset = reset
            self.count = count
            self.name = name
            self.default = `default`
          }
        }
        """#,
      specs: spec)
  }

  @Test func publicClientGetsAPublicInitializer() {
    assertExpansion(
      """
      @DependencyClient
      public struct Client {
        public var load: @Sendable () async throws -> [Int]
      }
      """,
      expandedSource: #"""
        public struct Client {
          public var load: @Sendable () async throws -> [Int]

          public init(
            load: @escaping @Sendable () async throws -> [Int] = {
              ReducerKit._reportUnimplementedDependency("Client.load");
              throw ReducerKit.UnimplementedDependencyError("Client.load")
            }
          ) {
            self.load = load
          }
        }
        """#,
      specs: spec)
  }

  @Test func aValueReturningEndpointThatCannotThrowNeedsADefault() {
    assertExpansion(
      """
      @DependencyClient
      struct Client {
        var count: @Sendable () -> Int
      }
      """,
      expandedSource: """
        struct Client {
          var count: @Sendable () -> Int
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message:
            "'@DependencyClient' needs a default for 'count': it neither throws nor returns Void, so an unimplemented call would have nothing to return (write '= { ... }' with a placeholder result)",
          line: 3, column: 7)
      ],
      specs: spec)
  }

  @Test func onlyOnAStruct() {
    assertExpansion(
      """
      @DependencyClient
      enum Client {}
      """,
      expandedSource: """
        enum Client {}
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "'@DependencyClient' can only be applied to a struct; 'enum' is not one",
          line: 1, column: 1)
      ],
      specs: spec)
  }
}
