import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import ReducerKitMacrosSupport

@Suite struct ReducerMacroTests {
  /// Only `@Reducer`, so that the expected source shows what it adds, not what the
  /// `@CasePathable` it adds then writes.
  let reducerOnly: [String: MacroSpec] = [
    "Reducer": MacroSpec(type: ReducerMacro.self, conformances: ["Reducer", "CaseReducer"])
  ]

  @Test func structFeature() {
    assertExpansion(
      """
      @Reducer
      struct Feature {
        @ObservableState
        struct State: Equatable {
          var count = 0
        }
        enum Action {
          case tapped
        }
        var body: some ReducerOf<Self> {
          Reduce { _, _ in .none }
        }
      }
      """,
      expandedSource: #"""
        struct Feature {
          @ObservableState
          struct State: Equatable {
            var count = 0
          }
          @CasePathable
          enum Action {
            case tapped
          }
          @ReducerKit.ReducerBuilder<Self.State, Self.Action>
          var body: some ReducerOf<Self> {
            Reduce { _, _ in .none }
          }
        }

        extension Feature: ReducerKit.Reducer {
        }
        """#,
      specs: reducerOnly)
  }

  @Test func enumStateAndExistingAttributes() {
    assertExpansion(
      """
      @Reducer
      public struct App: Reducer {
        public enum State {
          case loggedIn(LoggedIn.State)
          case loggedOut(Login.State)
        }
        @CasePathable
        public enum Action {
          case loggedIn(LoggedIn.Action)
          case loggedOut(Login.Action)
        }
        @ReducerBuilder<State, Action>
        public var body: some ReducerOf<Self> {
          EmptyReducer()
        }
        static var body: Int { 0 }
      }
      """,
      expandedSource: #"""
        public struct App: Reducer {
          @CasePathable @dynamicMemberLookup
          public enum State {
            case loggedIn(LoggedIn.State)
            case loggedOut(Login.State)
          }
          @CasePathable
          public enum Action {
            case loggedIn(LoggedIn.Action)
            case loggedOut(Login.Action)
          }
          @ReducerBuilder<State, Action>
          public var body: some ReducerOf<Self> {
            EmptyReducer()
          }
          static var body: Int { 0 }
        }
        """#,
      specs: ["Reducer": MacroSpec(type: ReducerMacro.self, conformances: [])])
  }

  @Test func plainReduceFunction() {
    assertExpansion(
      """
      @Reducer
      struct Counter {
        struct State { var count = 0 }
        enum Action { case increment }
        func reduce(into state: inout State, action: Action) -> Effect<Action> {
          state.count += 1
          return .none
        }
      }
      """,
      expandedSource: #"""
        struct Counter {
          struct State { var count = 0 
        }
          @CasePathable
          enum Action { case increment 
        }
          func reduce(into state: inout State, action: Action) -> Effect<Action> {
            state.count += 1
            return .none
          }
        }

        extension Counter: ReducerKit.Reducer {
        }
        """#,
      specs: reducerOnly)
  }

  @Test func enumOfFeatures() {
    assertExpansion(
      """
      @Reducer
      enum Destination {
        case add(AddFeature)
        case `default`(Settings.Feature)
        case détail(DetailFeature<Int>)
      }
      """,
      expandedSource: #"""
        enum Destination {
          case add(AddFeature)
          case `default`(Settings.Feature)
          case détail(DetailFeature<Int>)

          @CasePathable
          @dynamicMemberLookup
          enum State: ReducerKit.CaseReducerState {
            typealias StateReducer = Destination
            case add(AddFeature.State)
            case `default`(Settings.Feature.State)
            case détail(DetailFeature<Int>.State)
          }

          @CasePathable
          enum Action {
            case add(AddFeature.Action)
            case `default`(Settings.Feature.Action)
            case détail(DetailFeature<Int>.Action)
          }

          @ReducerKit.ReducerBuilder<Self.State, Self.Action>
          static var body: some ReducerKit.Reducer<Self.State, Self.Action> {
            ReducerKit.Scope(state: \Self.State.Cases.add, action: \Self.Action.Cases.add) {
              AddFeature()
            }
            ReducerKit.Scope(state: \Self.State.Cases.`default`, action: \Self.Action.Cases.`default`) {
              Settings.Feature()
            }
            ReducerKit.Scope(state: \Self.State.Cases.détail, action: \Self.Action.Cases.détail) {
              DetailFeature<Int>()
            }
          }
        }

        extension Destination: ReducerKit.CaseReducer, ReducerKit.Reducer {
        }
        """#,
      specs: reducerOnly)
  }

  @Test func enumWithAlertAndDialogCases() {
    assertExpansion(
      """
      @Reducer
      enum Destination {
        case alert(AlertState<Feature.Action.Alert>)
        case dialog(ReducerKit.ConfirmationDialogState<Dialog>)
        case edit(EditFeature)
      }
      """,
      expandedSource: #"""
        enum Destination {
          case alert(AlertState<Feature.Action.Alert>)
          case dialog(ReducerKit.ConfirmationDialogState<Dialog>)
          case edit(EditFeature)

          @CasePathable
          @dynamicMemberLookup
          enum State: ReducerKit.CaseReducerState {
            typealias StateReducer = Destination
            case alert(AlertState<Feature.Action.Alert>)
            case dialog(ReducerKit.ConfirmationDialogState<Dialog>)
            case edit(EditFeature.State)
          }

          @CasePathable
          enum Action {
            case alert(Feature.Action.Alert)
            case dialog(Dialog)
            case edit(EditFeature.Action)
          }

          @ReducerKit.ReducerBuilder<Self.State, Self.Action>
          static var body: some ReducerKit.Reducer<Self.State, Self.Action> {
            ReducerKit.Scope(state: \Self.State.Cases.edit, action: \Self.Action.Cases.edit) {
              EditFeature()
            }
          }
        }

        extension Destination: ReducerKit.CaseReducer, ReducerKit.Reducer {
        }
        """#,
      specs: reducerOnly)
  }

  @Test func enumOfFeaturesExpandsItsCasePaths() {
    assertExpansion(
      """
      @Reducer
      public enum Destination {
        case add(AddFeature)
      }
      """,
      expandedSource: #"""
        public enum Destination {
          case add(AddFeature)
          @dynamicMemberLookup
          public enum State: ReducerKit.CaseReducerState {
            public typealias StateReducer = Destination
            case add(AddFeature.State)

            public struct AllCasePaths: Sendable {
              public var add: ReducerKit.AnyCasePath<State, AddFeature.State> {
                ._enumCase(
                  name: "add",
                  embed: {
                    .add($0)
                  },
                  extract: {
                    if case let .add(v0) = $0 {
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
          public enum Action {
            case add(AddFeature.Action)

            public struct AllCasePaths: Sendable {
              public var add: ReducerKit.AnyCasePath<Action, AddFeature.Action> {
                ._enumCase(
                  name: "add",
                  embed: {
                    .add($0)
                  },
                  extract: {
                    if case let .add(v0) = $0 {
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

          @ReducerKit.ReducerBuilder<Self.State, Self.Action>
          public static var body: some ReducerKit.Reducer<Self.State, Self.Action> {
            ReducerKit.Scope(state: \Self.State.Cases.add, action: \Self.Action.Cases.add) {
              AddFeature()
            }
          }
        }

        extension State: ReducerKit.CasePathable {
        }

        extension Action: ReducerKit.CasePathable {
        }

        extension Destination: ReducerKit.CaseReducer, ReducerKit.Reducer {
        }
        """#)
  }

  @Test func enumOfFeaturesWithConformances() {
    assertExpansion(
      """
      @Reducer(state: .equatable, .hashable, action: .sendable)
      enum Destination {
        case add(AddFeature)
      }
      """,
      expandedSource: #"""
        enum Destination {
          case add(AddFeature)

          @CasePathable
          @dynamicMemberLookup
          enum State: ReducerKit.CaseReducerState, Equatable, Hashable {
            typealias StateReducer = Destination
            case add(AddFeature.State)
          }

          @CasePathable
          enum Action: Sendable {
            case add(AddFeature.Action)
          }

          @ReducerKit.ReducerBuilder<Self.State, Self.Action>
          static var body: some ReducerKit.Reducer<Self.State, Self.Action> {
            ReducerKit.Scope(state: \Self.State.Cases.add, action: \Self.Action.Cases.add) {
              AddFeature()
            }
          }
        }

        extension Destination: ReducerKit.CaseReducer, ReducerKit.Reducer {
        }
        """#,
      specs: reducerOnly)
  }

  @Test func unknownConformanceIsAnError() {
    assertExpansion(
      """
      @Reducer(state: .comparable)
      enum Destination {
        case add(AddFeature)
      }
      """,
      expandedSource: #"""
        enum Destination {
          case add(AddFeature)
        }
        """#,
      diagnostics: [
        DiagnosticSpec(
          message: "expected one of .codable, .decodable, .encodable, .equatable, .hashable, .sendable",
          line: 1, column: 17)
      ],
      specs: reducerOnly)
  }

  @Test func emptyEnumOfFeatures() {
    assertExpansion(
      """
      @Reducer
      enum Destination {
      }
      """,
      expandedSource: #"""
        enum Destination {

          @CasePathable
          @dynamicMemberLookup
          enum State: ReducerKit.CaseReducerState {
            typealias StateReducer = Destination

          }

          @CasePathable
          enum Action {

          }

          @ReducerKit.ReducerBuilder<Self.State, Self.Action>
          static var body: some ReducerKit.Reducer<Self.State, Self.Action> {
            ReducerKit.EmptyReducer<Self.State, Self.Action>()
          }
        }

        extension Destination: ReducerKit.CaseReducer, ReducerKit.Reducer {
        }
        """#,
      specs: reducerOnly)
  }

  @Test func enumCaseWithoutOneFeatureIsAnError() {
    assertExpansion(
      """
      @Reducer
      enum Destination {
        case add(AddFeature)
        case none
        case pair(A, B)
        enum State {}
      }
      """,
      expandedSource: #"""
        enum Destination {
          case add(AddFeature)
          case none
          case pair(A, B)
          enum State {}
        }
        """#,
      diagnostics: [
        DiagnosticSpec(
          message: "'@Reducer' enum case 'none' must hold exactly one reducer, as in 'case none(SomeFeature)'",
          line: 4, column: 8),
        DiagnosticSpec(
          message: "'@Reducer' enum case 'pair' must hold exactly one reducer, as in 'case pair(SomeFeature)'",
          line: 5, column: 8),
        DiagnosticSpec(
          message: "'@Reducer' writes this enum's 'State'; remove this declaration", line: 6, column: 3),
      ],
      specs: reducerOnly)
  }

  @Test func classIsAnError() {
    assertExpansion(
      """
      @Reducer
      final class Feature {
      }
      """,
      expandedSource: #"""
        final class Feature {
        }
        """#,
      diagnostics: [
        DiagnosticSpec(
          message: "'@Reducer' can only be applied to a struct or an enum; 'class' is neither",
          line: 1, column: 1)
      ],
      specs: reducerOnly)
  }
}

@Suite struct ObservableStateMacroTests {
  @Test func acceptedAndWritesNothing() {
    assertExpansion(
      """
      @ObservableState
      struct State: Equatable {
        var count = 0
        @ObservationStateIgnored var cache: [Int] = []
      }
      @ObservableState
      enum Path {
        case a
      }
      """,
      expandedSource: #"""
        struct State: Equatable {
          var count = 0
          var cache: [Int] = []
        }
        enum Path {
          case a
        }
        """#)
  }

  @Test func wrongDeclarationsAreErrors() {
    assertExpansion(
      """
      @ObservableState
      final class Model {}
      struct S {
        @ObservationStateIgnored func f() {}
      }
      """,
      expandedSource: #"""
        final class Model {}
        struct S {
          func f() {}
        }
        """#,
      diagnostics: [
        DiagnosticSpec(
          message: "'@ObservableState' can only be applied to a struct or an enum; 'class' is neither",
          line: 1, column: 1),
        DiagnosticSpec(
          message: "'@ObservationStateIgnored' can only be applied to a property", line: 4, column: 3),
      ])
  }
}
