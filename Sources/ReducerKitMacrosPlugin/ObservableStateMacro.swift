import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@ObservableState`: accepted on a struct or an enum and writes nothing (TCA's version makes
/// state observable by SwiftUI; ReducerKit publishes state without help from the type).
public enum ObservableStateMacro: MemberMacro {
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
public enum ObservationStateIgnoredMacro: PeerMacro {
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
