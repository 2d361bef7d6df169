import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Wire`: the `WireCodable` conformance (a member `_wireShape` and the conformance) of a struct or an enum whose `Codable` conformance is
/// the synthesized one, so the wire codec reads its values from the shape written here (the
/// stored properties' key paths, the cases' initializers) instead of the runtime's metadata.
///
/// It refuses (with an error) what would make the synthesized `Codable` differ from the shape:
/// `CodingKeys` (or a case's `…CodingKeys`), a hand-written `encode(to:)` (and, for an enum,
/// `init(from:)`), property wrappers, `lazy` properties, raw-value enums.
public protocol WireMacroDefinition: MemberMacro, ExtensionMacro {}

/// The macro, for the expansion tests and `reducerkit-wire-gen`; the plugin declares its own
/// `WireMacro` (the compiler finds a macro by its type name in the plugin's module).
public enum WireMacro: WireMacroDefinition {}

extension WireMacroDefinition {
  /// `static var _wireShape`, inside the type, so the types it names resolve as in its body.
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    let kind: String
    let entries: [String]
    let access: String
    var build = ""
    if let structDecl = declaration.as(StructDeclSyntax.self) {
      guard let fields = structFields(structDecl, context) else { return [] }
      (kind, entries, access) = ("struct", fields, accessPrefix(structDecl.modifiers))
    } else if let enumDecl = declaration.as(EnumDeclSyntax.self) {
      guard let cases = enumCases(enumDecl, context) else { return [] }
      (kind, entries, access) = ("enum", cases.map(\.entry), accessPrefix(enumDecl.modifiers))
      // One builder for the whole enum: a case's index (in the list above) and its payload.
      build =
        " { i, p in\nswitch i {\n"
        + cases.enumerated().map { "case \($0.offset): p.set(\($0.element.value))\n" }.joined()
        + "default: preconditionFailure()\n}\n}"
    } else {
      context.diagnose(
        Diagnostic(node: node, message: WireMessage("'@Wire' applies to a struct or an enum (its values are copied)")))
      return []
    }
    // No indentation: the compiler formats expansions (and would indent it again).
    let text =
      "\(access)static var _wireShape: ReducerKitWire._WireShape<Self> {\n"
      + ".\(kind)([\n" + entries.map { "\($0),\n" }.joined() + "])\(build)\n"
      + "}"
    return [DeclSyntax(stringLiteral: text)]
  }

  /// The conformance (when the type does not declare it), for a type the member expansion
  /// accepted.
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    guard !protocols.isEmpty else { return [] }
    let silent = SilentContext()
    if let structDecl = declaration.as(StructDeclSyntax.self) {
      guard structFields(structDecl, silent) != nil else { return [] }
    } else if let enumDecl = declaration.as(EnumDeclSyntax.self) {
      guard enumCases(enumDecl, silent) != nil else { return [] }
    } else {
      return []
    }
    let decl: DeclSyntax = "extension \(type.trimmed): ReducerKitWire.WireCodable {}"
    guard let extensionDecl = decl.as(ExtensionDeclSyntax.self) else { return [] }
    return [extensionDecl]
  }

  // MARK: Structs

  /// `.init("name", \Self.name)` per stored property, in declaration order; nil (after a
  /// diagnostic) when the type's synthesized `Codable` would not be its stored properties.
  static func structFields(_ decl: StructDeclSyntax, _ context: some MacroExpansionContext) -> [String]? {
    var fields: [(name: String, field: (String) -> String)] = []
    var refused = false
    var codingKeys: EnumDeclSyntax? = nil
    for member in decl.memberBlock.members {
      if let nested = member.decl.as(EnumDeclSyntax.self), nested.name.text == "CodingKeys" {
        codingKeys = nested
        continue
      }
      if refuseCodableMember(member.decl, isEnum: false, context) { refused = true }
      guard let variable = member.decl.as(VariableDeclSyntax.self),
        !variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) })
      else { continue }
      if variable.modifiers.contains(where: { $0.name.text == "lazy" }) {
        context.diagnose(
          Diagnostic(
            node: variable,
            message: WireMessage("'@Wire' does not support 'lazy' properties (their storage is not the property)")))
        refused = true
        continue
      }
      if !variable.attributes.isEmpty, isStored(variable.bindings.first) {
        context.diagnose(
          Diagnostic(
            node: variable.attributes,
            message: WireMessage(
              "'@Wire' does not support property wrappers or attributes on stored properties: Codable writes the wrapper")))
        refused = true
        continue
      }
      // `var a, b: Int`: the annotation of a later binding applies to the earlier ones.
      var laterType: TypeSyntax? = nil
      var entries: [(name: String, field: (String) -> String)] = []
      for binding in variable.bindings.reversed() {
        if let annotation = binding.typeAnnotation?.type { laterType = annotation }
        guard isStored(binding), let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
          if isStored(binding) {  // a tuple pattern: `var (a, b) = (1, 2)`
            context.diagnose(
              Diagnostic(node: binding.pattern, message: WireMessage("'@Wire' needs one name per stored property")))
            refused = true
          }
          continue
        }
        let name = unescaped(identifier.identifier)
        let path = "\\Self.\(identifier.identifier.trimmed.text)"
        let declared = binding.typeAnnotation?.type ?? (binding.initializer == nil ? laterType : nil)
        let label: String
        if let declared { label = isOptional(declared) ? "ifPresent: " : "" } else { label = "inferred: " }
        entries.append((name, { key in ".init(\(stringLiteral(key)), \(label)\(path))" }))
      }
      fields.append(contentsOf: entries.reversed())
    }
    if refused { return nil }
    guard let codingKeys else { return fields.map { $0.field($0.name) } }
    return codingKeyFields(codingKeys, fields, context)
  }

  /// The fields `CodingKeys` names, in its order (the synthesized `encode(to:)` writes them so),
  /// under its keys: a case's name or its string raw value. Nil (after a diagnostic) for keys
  /// this cannot read (a custom `stringValue`, a raw value that is not a plain string, a key
  /// that is not a stored property).
  static func codingKeyFields(
    _ keys: EnumDeclSyntax, _ fields: [(name: String, field: (String) -> String)], _ context: some MacroExpansionContext
  ) -> [String]? {
    func refuse(_ node: some SyntaxProtocol, _ why: String) -> [String]? {
      context.diagnose(
        Diagnostic(
          node: node,
          message: WireMessage("'@Wire' cannot read these 'CodingKeys' (\(why)); remove '@Wire' to keep them")))
      return nil
    }
    var result: [String] = []
    for member in keys.memberBlock.members {
      guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else {
        return refuse(member.decl, "only plain cases are read")
      }
      for element in caseDecl.elements {
        guard element.parameterClause == nil else { return refuse(element, "a case with associated values") }
        let name = unescaped(element.name)
        var key = name
        if let raw = element.rawValue?.value {
          guard let literal = raw.as(StringLiteralExprSyntax.self), literal.segments.count == 1,
            let segment = literal.segments.first?.as(StringSegmentSyntax.self)
          else { return refuse(raw, "a raw value that is not a plain string literal") }
          key = segment.content.text
          if key.contains("\\") { return refuse(raw, "a raw value with escapes") }
        }
        guard let field = fields.first(where: { $0.name == name }) else {
          return refuse(element, "'\(name)' is not a stored property")
        }
        result.append(field.field(key))
      }
    }
    return result
  }

  /// A stored property: no accessors other than observers.
  static func isStored(_ binding: PatternBindingSyntax?) -> Bool {
    guard let binding else { return false }
    switch binding.accessorBlock?.accessors {
    case nil: return true
    case .getter: return false
    case .accessors(let accessors):
      return accessors.allSatisfy { ["willSet", "didSet"].contains($0.accessorSpecifier.text) }
    }
  }

  /// `T?`, `T!`, `Optional<T>`, `Swift.Optional<T>`: the synthesized `Codable` writes it with
  /// `encodeIfPresent`.
  static func isOptional(_ type: TypeSyntax) -> Bool {
    if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
    if let attributed = type.as(AttributedTypeSyntax.self) { return isOptional(attributed.baseType) }
    if let identifier = type.as(IdentifierTypeSyntax.self) {
      return identifier.name.text == "Optional" && identifier.genericArgumentClause != nil
    }
    if let member = type.as(MemberTypeSyntax.self) {
      return member.name.text == "Optional" && member.genericArgumentClause != nil
        && member.baseType.as(IdentifierTypeSyntax.self)?.name.text == "Swift"
    }
    return false
  }

  // MARK: Enums

  /// Per case, in declaration order: its `_WireCase` and the expression that builds it from the
  /// payload `p`; nil (after a diagnostic) when the enum's synthesized `Codable` would not be
  /// its cases.
  static func enumCases(
    _ decl: EnumDeclSyntax, _ context: some MacroExpansionContext
  ) -> [(entry: String, value: String)]? {
    var cases: [(entry: String, value: String)] = []
    var refused = false
    let rawTypes: Set<String> = [
      "String", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Double",
      "Float", "Character", "Bool",
    ]
    if let first = decl.inheritanceClause?.inheritedTypes.first?.type.as(IdentifierTypeSyntax.self),
      rawTypes.contains(first.name.text)
    {
      context.diagnose(
        Diagnostic(
          node: first,
          message: WireMessage("'@Wire' does not apply to a raw-value enum: Codable writes its raw values")))
      return nil
    }
    for member in decl.memberBlock.members {
      if refuseCodableMember(member.decl, isEnum: true, context) { refused = true }
      guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
      for element in caseDecl.elements {
        if let raw = element.rawValue {
          context.diagnose(
            Diagnostic(
              node: raw, message: WireMessage("'@Wire' does not apply to a raw-value enum: Codable writes its raw values")
            ))
          refused = true
          continue
        }
        let name = unescaped(element.name)
        let member = element.name.trimmed.text
        let parameters = element.parameterClause.map { Array($0.parameters) } ?? []
        guard !parameters.isEmpty else {
          let value = element.parameterClause == nil ? "Self.\(member)" : "Self.\(member)()"
          cases.append((".unit(\(stringLiteral(name)))", value))
          continue
        }
        var labels: [String] = []
        var elements: [String] = []
        var arguments: [String] = []
        for (index, parameter) in parameters.enumerated() {
          let type = "(\(parameter.type.trimmed.description)).self"
          elements.append(".init(\(type))")
          if let label = parameter.firstName, label.tokenKind != .wildcard {
            labels.append(stringLiteral(unescaped(label)))
            arguments.append("\(label.trimmed.text): p.take(\(index), \(type))")
          } else {
            labels.append("nil")
            arguments.append("p.take(\(index), \(type))")
          }
        }
        cases.append(
          (
            ".init(\(stringLiteral(name)), labels: [\(labels.joined(separator: ", "))], "
              + "[\(elements.joined(separator: ", "))])",
            "Self.\(member)(\(arguments.joined(separator: ", ")))"
          ))
      }
    }
    return refused ? nil : cases
  }

  // MARK: Shared

  /// Diagnoses a member that makes the type's `Codable` other than the synthesized one.
  static func refuseCodableMember(_ decl: DeclSyntax, isEnum: Bool, _ context: some MacroExpansionContext) -> Bool {
    if isEnum, let nested = decl.as(EnumDeclSyntax.self), nested.name.text.hasSuffix("CodingKeys") {
      context.diagnose(
        Diagnostic(
          node: nested.name,
          message: WireMessage(
            "'@Wire' does not support '\(nested.name.text)' on an enum: its shape uses the case and label names; "
              + "remove '@Wire' to keep renamed keys (the type stays Codable)")))
      return true
    }
    if let function = decl.as(FunctionDeclSyntax.self), function.name.text == "encode",
      function.signature.parameterClause.parameters.first?.firstName.text == "to"
    {
      context.diagnose(
        Diagnostic(
          node: function.name,
          message: WireMessage("'@Wire' needs the synthesized 'encode(to:)'; remove '@Wire' to keep this one")))
      return true
    }
    if isEnum, let initializer = decl.as(InitializerDeclSyntax.self),
      initializer.signature.parameterClause.parameters.first?.firstName.text == "from"
    {
      context.diagnose(
        Diagnostic(
          node: initializer.initKeyword,
          message: WireMessage("'@Wire' needs an enum's synthesized 'init(from:)'; remove '@Wire' to keep this one")))
      return true
    }
    return false
  }

  /// `public `, `package ` or nothing: the witness is as visible as the type.
  static func accessPrefix(_ modifiers: DeclModifierListSyntax) -> String {
    for modifier in modifiers {
      switch modifier.name.text {
      case "public", "open": return "public "
      case "package": return "package "
      default: continue
      }
    }
    return ""
  }

  /// An identifier's name without backticks (`` `default` `` is `default`).
  static func unescaped(_ token: TokenSyntax) -> String {
    token.identifier?.name ?? token.trimmed.text
  }

  /// A Swift string literal of `text` (escaping `\` and `"`; names have no other specials).
  static func stringLiteral(_ text: String) -> String {
    var literal = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": literal += "\\\\"
      case "\"": literal += "\\\""
      default: literal.unicodeScalars.append(scalar)
      }
    }
    return literal + "\""
  }
}

/// An error of `@Wire`.
struct WireMessage: DiagnosticMessage {
  let message: String
  init(_ message: String) { self.message = message }
  var diagnosticID: MessageID { MessageID(domain: "ReducerKitMacros", id: "Wire") }
  var severity: DiagnosticSeverity { .error }
}

/// A context that drops diagnostics (the member expansion reports them; the extension
/// expansion only needs to know whether the type was accepted).
final class SilentContext: MacroExpansionContext {
  func makeUniqueName(_ name: String) -> TokenSyntax { .identifier(name) }
  func diagnose(_ diagnostic: Diagnostic) {}
  func location(
    of node: some SyntaxProtocol, at position: PositionInSyntaxNode, filePathMode: SourceLocationFilePathMode
  ) -> AbstractSourceLocation? { nil }
  var lexicalContext: [Syntax] { [] }
}
