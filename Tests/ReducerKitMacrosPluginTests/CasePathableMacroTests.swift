import SwiftSyntaxMacroExpansion
@testable import ReducerKitMacrosSupport
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite struct CasePathableMacroTests {
  @Test func casesOfEveryShape() {
    assertExpansion(
      """
      @CasePathable
      enum Action {
        case tapped
        case setCount(Int)
        case rename(title: String)
        case move(from: Int, Int), reset
      }
      """,
      expandedSource: """
        enum Action {
          case tapped
          case setCount(Int)
          case rename(title: String)
          case move(from: Int, Int), reset

          struct AllCasePaths: Sendable {
            var tapped: ReducerKit.AnyCasePath<Action, Void> {
              ._enumCase(
                name: "tapped",
                embed: { _ in
                  .tapped
                },
                extract: {
                  if case .tapped = $0 {
                    return ()
                  } else {
                    return nil
                  }
                }
              )
            }
            var setCount: ReducerKit.AnyCasePath<Action, Int> {
              ._enumCase(
                name: "setCount",
                embed: {
                  .setCount($0)
                },
                extract: {
                  if case let .setCount(v0) = $0 {
                    return v0
                  } else {
                    return nil
                  }
                }
              )
            }
            var rename: ReducerKit.AnyCasePath<Action, String> {
              ._enumCase(
                name: "rename",
                embed: {
                  .rename(title: $0)
                },
                extract: {
                  if case let .rename(v0) = $0 {
                    return v0
                  } else {
                    return nil
                  }
                }
              )
            }
            var move: ReducerKit.AnyCasePath<Action, (from: Int, Int)> {
              ._enumCase(
                name: "move",
                embed: {
                  .move(from: $0.0, $0.1)
                },
                extract: {
                  if case let .move(v0, v1) = $0 {
                    return (v0, v1)
                  } else {
                    return nil
                  }
                }
              )
            }
            var reset: ReducerKit.AnyCasePath<Action, Void> {
              ._enumCase(
                name: "reset",
                embed: { _ in
                  .reset
                },
                extract: {
                  if case .reset = $0 {
                    return ()
                  } else {
                    return nil
                  }
                }
              )
            }
          }

          static var allCasePaths: AllCasePaths {
            AllCasePaths()
          }
        }

        extension Action: ReducerKit.CasePathable {
        }
        """)
  }

  @Test func hostileNames() {
    assertExpansion(
      """
      @CasePathable
      enum `Type` {
        case `default`
        case `init`(`for`: Int, `let`: [String: Int]?)
        case café(_ 名前: String)
        case `Type`([`Type`])
      }
      """,
      expandedSource: """
        enum `Type` {
          case `default`
          case `init`(`for`: Int, `let`: [String: Int]?)
          case café(_ 名前: String)
          case `Type`([`Type`])

          struct AllCasePaths: Sendable {
            var `default`: ReducerKit.AnyCasePath<`Type`, Void> {
              ._enumCase(
                name: "default",
                embed: { _ in
                  .`default`
                },
                extract: {
                  if case .`default` = $0 {
                    return ()
                  } else {
                    return nil
                  }
                }
              )
            }
            var `init`: ReducerKit.AnyCasePath<`Type`, (`for`: Int, `let`: [String: Int]?)> {
              ._enumCase(
                name: "init",
                embed: {
                  .`init`(`for`: $0.0, `let`: $0.1)
                },
                extract: {
                  if case let .`init`(v0, v1) = $0 {
                    return (v0, v1)
                  } else {
                    return nil
                  }
                }
              )
            }
            var café: ReducerKit.AnyCasePath<`Type`, String> {
              ._enumCase(
                name: "café",
                embed: {
                  .café($0)
                },
                extract: {
                  if case let .café(v0) = $0 {
                    return v0
                  } else {
                    return nil
                  }
                }
              )
            }
            var `Type`: ReducerKit.AnyCasePath<`Type`, [`Type`]> {
              ._enumCase(
                name: "Type",
                embed: {
                  .`Type`($0)
                },
                extract: {
                  if case let .`Type`(v0) = $0 {
                    return v0
                  } else {
                    return nil
                  }
                }
              )
            }
          }

          static var allCasePaths: AllCasePaths {
            AllCasePaths()
          }
        }

        extension `Type`: ReducerKit.CasePathable {
        }
        """)
  }

  @Test func genericEnum() {
    assertExpansion(
      """
      @CasePathable
      public enum Loadable<Value: Sendable, Failure: Error> {
        case idle
        case loaded(Value)
        case failed(Failure, retries: Int)
        case nested(Loadable<[Value], Failure>?)
      }
      """,
      expandedSource: """
        public enum Loadable<Value: Sendable, Failure: Error> {
          case idle
          case loaded(Value)
          case failed(Failure, retries: Int)
          case nested(Loadable<[Value], Failure>?)

          public struct AllCasePaths: Sendable {
            public var idle: ReducerKit.AnyCasePath<Loadable, Void> {
              ._enumCase(
                name: "idle",
                embed: { _ in
                  .idle
                },
                extract: {
                  if case .idle = $0 {
                    return ()
                  } else {
                    return nil
                  }
                }
              )
            }
            public var loaded: ReducerKit.AnyCasePath<Loadable, Value> {
              ._enumCase(
                name: "loaded",
                embed: {
                  .loaded($0)
                },
                extract: {
                  if case let .loaded(v0) = $0 {
                    return v0
                  } else {
                    return nil
                  }
                }
              )
            }
            public var failed: ReducerKit.AnyCasePath<Loadable, (Failure, retries: Int)> {
              ._enumCase(
                name: "failed",
                embed: {
                  .failed($0.0, retries: $0.1)
                },
                extract: {
                  if case let .failed(v0, v1) = $0 {
                    return (v0, v1)
                  } else {
                    return nil
                  }
                }
              )
            }
            public var nested: ReducerKit.AnyCasePath<Loadable, Loadable<[Value], Failure>?> {
              ._enumCase(
                name: "nested",
                embed: {
                  .nested($0)
                },
                extract: {
                  if case let .nested(v0) = $0 {
                    return v0
                  } else {
                    return nil
                  }
                }
              )
            }
          }

          public static var allCasePaths: AllCasePaths {
            AllCasePaths()
          }
        }

        extension Loadable: ReducerKit.CasePathable {
        }
        """)
  }

  @Test func alreadyConformingWritesNoExtension() {
    assertExpansion(
      """
      @CasePathable
      enum Action: CasePathable {
        case tapped
      }
      """,
      expandedSource: """
        enum Action: CasePathable {
          case tapped

          struct AllCasePaths: Sendable {
            var tapped: ReducerKit.AnyCasePath<Action, Void> {
              ._enumCase(
                name: "tapped",
                embed: { _ in
                  .tapped
                },
                extract: {
                  if case .tapped = $0 {
                    return ()
                  } else {
                    return nil
                  }
                }
              )
            }
          }

          static var allCasePaths: AllCasePaths {
            AllCasePaths()
          }
        }
        """,
      specs: ["CasePathable": MacroSpec(type: CasePathableMacro.self, conformances: [])])
  }

  @Test func notAnEnum() {
    assertExpansion(
      """
      @CasePathable
      struct State {
        var count = 0
      }
      """,
      expandedSource: """
        struct State {
          var count = 0
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "'@CasePathable' can only be applied to an enum; 'struct' is not an enum",
          line: 1, column: 1)
      ])
  }
}
