import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@CasePathable`: an `AllCasePaths` struct with one `AnyCasePath` per case, `allCasePaths`,
/// and the `CasePathable` conformance.
public protocol CasePathableMacroDefinition: MemberMacro, ExtensionMacro {}

/// The macro, for the expansion tests and `reducerkit-wire-gen`; the plugin declares its own
/// `CasePathableMacro` (the compiler finds a macro by its type name in the plugin's module).
public enum CasePathableMacro: CasePathableMacroDefinition {}

extension CasePathableMacroDefinition {
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let enumDecl = declaration.as(EnumDeclSyntax.self) else {
      context.diagnose(
        Diagnostic(
          node: node,
          message: MacroMessage.error(
            "'@CasePathable' can only be applied to an enum; '\(declaration.kindName)' is not an enum")))
      return []
    }
    return members(of: enumDecl)
  }

  /// The members `@CasePathable` writes into `enumDecl` (also used by `@Reducer`).
  static func members(of enumDecl: EnumDeclSyntax) -> [DeclSyntax] {
    let access = enumDecl.modifiers.accessPrefix
    let enumType = enumDecl.name.trimmed.text
    var properties: [String] = []
    for element in enumDecl.caseElements {
      properties.append(casePathProperty(element, enumType: enumType, access: access))
    }
    let body = properties.joined(separator: "\n")
    return [
      """
      \(raw: access)struct AllCasePaths: Sendable {
      \(raw: body)
      }
      """,
      "\(raw: access)static var allCasePaths: AllCasePaths { AllCasePaths() }",
    ]
  }

  /// `var name: AnyCasePath<Enum, Value> { … }` for one case.
  static func casePathProperty(
    _ element: EnumCaseElementSyntax, enumType: String, access: String
  ) -> String {
    let name = element.name.trimmed.text
    let parameters = element.parameterClause.map { Array($0.parameters) } ?? []
    let valueType: String
    let embed: String
    let extract: String
    switch parameters.count {
    case 0:
      valueType = "Void"
      embed = "{ _ in .\(name) }"
      extract = "{ if case .\(name) = $0 { return () } else { return nil } }"
    case 1:
      let parameter = parameters[0]
      valueType = parameter.type.trimmed.description
      embed = "{ .\(name)(\(parameter.labelPrefix)$0) }"
      extract = "{ if case let .\(name)(v0) = $0 { return v0 } else { return nil } }"
    default:
      let types = parameters.map { "\($0.labelPrefix)\($0.type.trimmed.description)" }
      valueType = "(\(types.joined(separator: ", ")))"
      let arguments = parameters.indices.map { "\(parameters[$0].labelPrefix)$0.\($0)" }
      embed = "{ .\(name)(\(arguments.joined(separator: ", "))) }"
      let bindings = parameters.indices.map { "v\($0)" }.joined(separator: ", ")
      extract = "{ if case let .\(name)(\(bindings)) = $0 { return (\(bindings)) } else { return nil } }"
    }
    return """
      \(access)var \(name): ReducerKit.AnyCasePath<\(enumType), \(valueType)> {
        ._enumCase(
          name: \(stringLiteral(name)),
          embed: \(embed),
          extract: \(extract)
        )
      }
      """
  }
}

/// `name` without backticks, as a string literal (identifiers hold no quote or backslash).
func stringLiteral(_ name: String) -> String {
  "\"" + name.filter { $0 != "`" } + "\""
}

extension CasePathableMacroDefinition {
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    // Not an enum: diagnosed by the member role. No protocol left: it already conforms.
    guard declaration.is(EnumDeclSyntax.self), protocols.contains(where: { $0.isNamed("CasePathable") })
    else { return [] }
    return [try ExtensionDeclSyntax("extension \(type.trimmed): ReducerKit.CasePathable {}")]
  }
}

extension EnumDeclSyntax {
  /// Every case element, in order (`case a, b(Int)` is two).
  var caseElements: [EnumCaseElementSyntax] {
    memberBlock.members.flatMap { member -> [EnumCaseElementSyntax] in
      guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { return [] }
      return Array(caseDecl.elements)
    }
  }
}

extension EnumCaseParameterSyntax {
  /// `label: ` when the associated value has a label (`_` counts as none), else "".
  var labelPrefix: String {
    guard let label = firstName, label.tokenKind != .wildcard else { return "" }
    return "\(label.trimmed.text): "
  }
}

extension DeclModifierListSyntax {
  /// `public ` or `package ` when the declaration has that access, else "" (internal members
  /// of a private or fileprivate type are as visible as the type).
  var accessPrefix: String {
    for modifier in self {
      switch modifier.name.tokenKind {
      case .keyword(.public), .keyword(.open): return "public "
      case .keyword(.package): return "package "
      default: continue
      }
    }
    return ""
  }
}

extension TypeSyntax {
  /// Whether this is `name` or `ReducerKit.name`.
  func isNamed(_ name: String) -> Bool {
    if let identifier = self.as(IdentifierTypeSyntax.self) { return identifier.name.text == name }
    if let member = self.as(MemberTypeSyntax.self) { return member.name.text == name }
    return false
  }
}

extension DeclGroupSyntax {
  /// "struct", "class", … for diagnostics.
  var kindName: String {
    switch self.kind {
    case .structDecl: "struct"
    case .classDecl: "class"
    case .actorDecl: "actor"
    case .enumDecl: "enum"
    case .protocolDecl: "protocol"
    case .extensionDecl: "extension"
    default: "declaration"
    }
  }
}

/// A diagnostic message of the ReducerKit macros.
struct MacroMessage: DiagnosticMessage {
  let message: String
  let diagnosticID: MessageID
  let severity: DiagnosticSeverity

  static func error(_ message: String) -> MacroMessage {
    MacroMessage(
      message: message, diagnosticID: MessageID(domain: "ReducerKitMacros", id: "error"),
      severity: .error)
  }
}
