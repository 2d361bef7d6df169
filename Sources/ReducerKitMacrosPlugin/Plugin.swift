import ReducerKitMacrosSupport
import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin of the `ReducerKitMacros` product: every macro it implements. Their code
/// is in ReducerKitMacrosSupport (one definition, which `reducerkit-wire-gen` and the expansion
/// tests use without linking this target); the types are declared here because the compiler
/// finds `#externalMacro(module: "ReducerKitMacrosPlugin", type: …)` by this module's names.
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

enum CasePathableMacro: CasePathableMacroDefinition {}
enum ReducerMacro: ReducerMacroDefinition {}
enum ObservableStateMacro: ObservableStateMacroDefinition {}
enum ObservationStateIgnoredMacro: ObservationStateIgnoredMacroDefinition {}
enum DependencyClientMacro: DependencyClientMacroDefinition {}
enum WireMacro: WireMacroDefinition {}
