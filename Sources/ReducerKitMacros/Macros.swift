// The macros TCA users write, over ReducerKit. `import ReducerKitMacros` brings ReducerKit too,
// as `import ComposableArchitecture` does.
@_exported import ReducerKit

/// Makes a type a ``ReducerKit/Reducer``, as TCA's `@Reducer` does.
///
/// On a struct: adds the `Reducer` conformance, applies `@CasePathable` to a nested `Action`
/// enum (and `@CasePathable` and `@dynamicMemberLookup` to a nested `State` enum), and marks
/// `body` with `@ReducerBuilder<State, Action>`.
///
/// ```swift
/// @Reducer
/// struct Counter {
///   @ObservableState
///   struct State: Equatable { var count = 0 }
///   enum Action { case increment }
///   var body: some ReducerOf<Self> {
///     Reduce { state, action in
///       state.count += 1
///       return .none
///     }
///   }
/// }
/// ```
///
/// On an enum whose cases each hold a reducer (`case add(AddFeature)`): writes the `State`
/// and `Action` enums (one case per feature, holding its `State` and its `Action`) and a
/// body that scopes each case to its feature, so a parent writes
/// `.ifLet(\.$destination, action: \.destination)` with no trailing closure.
///
/// ```swift
/// @Reducer
/// enum Destination {
///   case add(AddFeature)
///   case edit(EditFeature)
///   case alert(AlertState<Feature.Action.Alert>)
/// }
/// ```
///
/// A case holding `AlertState<A>` or `ConfirmationDialogState<A>` keeps that state, takes the
/// buttons' actions `A`, and has no reducer: `ifLet` makes it nil after any of them.
@attached(member, names: named(State), named(Action), named(body))
@attached(memberAttribute)
@attached(extension, conformances: Reducer, CaseReducer)
public macro Reducer() = #externalMacro(module: "ReducerKitMacrosPlugin", type: "ReducerMacro")

/// `@Reducer` on an enum of features, with conformances for the `State` and `Action` enums
/// it writes, as in TCA: `@Reducer(state: .equatable, action: .equatable)`. (Writing
/// `extension Destination.State: Equatable {}` does the same.)
@attached(member, names: named(State), named(Action), named(body))
@attached(memberAttribute)
@attached(extension, conformances: Reducer, CaseReducer)
public macro Reducer(state: _SynthesizedConformance..., action: _SynthesizedConformance...) =
  #externalMacro(module: "ReducerKitMacrosPlugin", type: "ReducerMacro")

/// A conformance `@Reducer(state:action:)` adds to the enums it writes.
public struct _SynthesizedConformance: Sendable {
  /// `Codable`.
  public static let codable = Self()
  /// `Decodable`.
  public static let decodable = Self()
  /// `Encodable`.
  public static let encodable = Self()
  /// `Equatable`.
  public static let equatable = Self()
  /// `Hashable`.
  public static let hashable = Self()
  /// `Sendable`.
  public static let sendable = Self()
}

/// Gives an enum case key paths (`\.caseName`), as swift-case-paths' `@CasePathable` does:
/// conforms it to ``ReducerKit/CasePathable`` and writes its `AllCasePaths`.
///
/// ```swift
/// @CasePathable
/// enum Action {
///   case child(Child.Action)
///   case move(from: Int, to: Int)
///   case tapped
/// }
/// Action.child(.reset)[case: \.child]  // .reset
/// Action.tapped.is(\.tapped)           // true
/// ```
///
/// A case without an associated value has a `Void` case key path; a case with one value (labeled
/// or not) has that value's type; a case with several has a tuple of them.
@attached(extension, conformances: CasePathable)
@attached(member, names: named(AllCasePaths), named(allCasePaths))
public macro CasePathable() =
  #externalMacro(module: "ReducerKitMacrosPlugin", type: "CasePathableMacro")

/// Accepted for source compatibility with TCA, and does nothing: in TCA it makes state
/// observable by SwiftUI views; ReducerKit's stores publish state through `subscribe`, the
/// state stream and (for hosts) patches, which need nothing from the state type.
@attached(member)
public macro ObservableState() =
  #externalMacro(module: "ReducerKitMacrosPlugin", type: "ObservableStateMacro")

/// Accepted for source compatibility with TCA, and does nothing (see ``ObservableState()``).
@attached(peer)
public macro ObservationStateIgnored() =
  #externalMacro(module: "ReducerKitMacrosPlugin", type: "ObservationStateIgnoredMacro")

/// Writes a memberwise initializer for a struct of closure endpoints in which every endpoint
/// without a default is unimplemented, as swift-dependencies' `@DependencyClient` does: calling
/// one reports an issue (the running test fails) and, if it can throw, throws
/// ``ReducerKit/UnimplementedDependencyError``. A non-throwing endpoint that returns a value
/// needs a default written out.
///
/// ```swift
/// @DependencyClient
/// struct FactClient {
///   var fetch: @Sendable (Int) async throws -> String
/// }
/// extension FactClient: DependencyKey {
///   static let liveValue = Self(fetch: { "\($0) is a good number." })
///   static let testValue = Self()   // every call fails the test that makes it
/// }
/// ```
@attached(member, names: named(init))
public macro DependencyClient() =
  #externalMacro(module: "ReducerKitMacrosPlugin", type: "DependencyClientMacro")
