import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@ObservableState`: accepted on a struct or an enum and writes nothing (TCA's version makes
/// state observable by SwiftUI; ReducerKit publishes state without help from the type).
public protocol ObservableStateMacroDefinition: MemberMacro {}

/// The macro, for the expansion tests and `reducerkit-wire-gen`; the plugin declares its own
/// `ObservableStateMacro` (the compiler finds a macro by its type name in the plugin's module).
public enum ObservableStateMacro: ObservableStateMacroDefinition {}

extension ObservableStateMacroDefinition {
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    if !declaration.is(StructDeclSyntax.self), !declaration.is(EnumDeclSyntax.self) {
      context.diagnose(
        Diagnostic(
          node: node,
          message: MacroMessage.error(
            "'@ObservableState' can only be applied to a struct or an enum; '\(declaration.kindName)' is neither")))
    }
    return []
  }
}

/// `@ObservationStateIgnored`: accepted on a property and writes nothing.
public protocol ObservationStateIgnoredMacroDefinition: PeerMacro {}

/// The macro, for the expansion tests and `reducerkit-wire-gen`; the plugin declares its own
/// `ObservationStateIgnoredMacro` (the compiler finds a macro by its type name in the plugin's module).
public enum ObservationStateIgnoredMacro: ObservationStateIgnoredMacroDefinition {}

extension ObservationStateIgnoredMacroDefinition {
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    if !declaration.is(VariableDeclSyntax.self) {
      context.diagnose(
        Diagnostic(
          node: node,
          message: MacroMessage.error("'@ObservationStateIgnored' can only be applied to a property")))
    }
    return []
  }
}
