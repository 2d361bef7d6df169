import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import ReducerKitMacrosSupport

/// Every macro of the plugin, by the name users write, with the conformances the compiler
/// would pass to its extension role for a type that has none yet.
let macroSpecs: [String: MacroSpec] = [
  "CasePathable": MacroSpec(type: CasePathableMacro.self, conformances: ["CasePathable"]),
  "Reducer": MacroSpec(type: ReducerMacro.self, conformances: ["Reducer", "CaseReducer"]),
  "ObservableState": MacroSpec(type: ObservableStateMacro.self),
  "ObservationStateIgnored": MacroSpec(type: ObservationStateIgnoredMacro.self),
  "DependencyClient": MacroSpec(type: DependencyClientMacro.self),
]

/// `assertMacroExpansion` reporting through Swift Testing.
func assertExpansion(
  _ source: String,
  expandedSource: String,
  diagnostics: [DiagnosticSpec] = [],
  specs: [String: MacroSpec] = macroSpecs,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  assertMacroExpansion(
    source, expandedSource: expandedSource, diagnostics: diagnostics, macroSpecs: specs,
    indentationWidth: .spaces(2),
    failureHandler: { failure in
      Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
    })
}
