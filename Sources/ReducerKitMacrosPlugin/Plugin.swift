import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin of the `ReducerKitMacros` product: every macro it implements.
@main
struct ReducerKitMacrosPlugin: CompilerPlugin {
  let providingMacros: [Macro.Type] = [
    CasePathableMacro.self,
    ReducerMacro.self,
    ObservableStateMacro.self,
    ObservationStateIgnoredMacro.self,
    DependencyClientMacro.self,
    WireMacro.self,
  ]
}
