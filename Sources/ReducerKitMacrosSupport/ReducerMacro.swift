import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Reducer`: on a struct, the `Reducer` conformance, `@CasePathable` on its `Action` (and
/// `State`) enum and `@ReducerBuilder` on its `body`; on an enum of features, the `State` and
/// `Action` enums and a body of `Scope`s.
public protocol ReducerMacroDefinition: ExtensionMacro, MemberAttributeMacro, MemberMacro {}

/// The macro, for the expansion tests and `reducerkit-wire-gen`; the plugin declares its own
/// `ReducerMacro` (the compiler finds a macro by its type name in the plugin's module).
public enum ReducerMacro: ReducerMacroDefinition {}

extension ReducerMacroDefinition {
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    // The compiler passes the protocols the type does not conform to yet.
    let missing = { (name: String) in protocols.contains { $0.isNamed(name) } }
    if declaration.is(StructDeclSyntax.self) {
      guard missing("Reducer") else { return [] }
      return [try ExtensionDeclSyntax("extension \(type.trimmed): ReducerKit.Reducer {}")]
    }
    if let enumDecl = declaration.as(EnumDeclSyntax.self), featureCases(enumDecl) != nil,
      synthesizedConformances(node, context, diagnose: false) != nil
    {
      let names = ["CaseReducer", "Reducer"].filter(missing).map { "ReducerKit.\($0)" }
      guard !names.isEmpty else { return [] }
      return [
        try ExtensionDeclSyntax(
          "extension \(type.trimmed): \(raw: names.joined(separator: ", ")) {}")
      ]
    }
    return []  // diagnosed by the member role
  }
}

extension ReducerMacroDefinition {
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingAttributesFor member: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AttributeSyntax] {
    guard declaration.is(StructDeclSyntax.self) else { return [] }
    if let enumDecl = member.as(EnumDeclSyntax.self) {
      let name = enumDecl.name.trimmed.text
      guard name == "Action" || name == "State" else { return [] }
      var attributes: [AttributeSyntax] = []
      if !enumDecl.attributes.contains(named: "CasePathable") {
        attributes.append("@CasePathable")
      }
      if name == "State" && !enumDecl.attributes.contains(named: "dynamicMemberLookup") {
        attributes.append("@dynamicMemberLookup")
      }
      return attributes
    }
    if let variable = member.as(VariableDeclSyntax.self),
      variable.bindings.count == 1,
      let binding = variable.bindings.first,
      binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == "body",
      !variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) }),
      !variable.attributes.contains(named: "ReducerBuilder")
    {
      return ["@ReducerKit.ReducerBuilder<Self.State, Self.Action>"]
    }
    return []
  }
}

extension ReducerMacroDefinition {
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    if declaration.is(StructDeclSyntax.self) { return [] }
    guard let enumDecl = declaration.as(EnumDeclSyntax.self) else {
      context.diagnose(
        Diagnostic(
          node: node,
          message: MacroMessage.error(
            "'@Reducer' can only be applied to a struct or an enum; '\(declaration.kindName)' is neither")))
      return []
    }
    var valid = true
    for element in enumDecl.caseElements where element.featureType == nil {
      valid = false
      context.diagnose(
        Diagnostic(
          node: element,
          message: MacroMessage.error(
            "'@Reducer' enum case '\(element.name.trimmed.text)' must hold exactly one reducer, "
              + "as in 'case \(element.name.trimmed.text)(SomeFeature)'")))
    }
    for member in enumDecl.memberBlock.members {
      if let nested = member.decl.asProtocol(NamedDeclSyntax.self),
        ["State", "Action"].contains(nested.name.trimmed.text)
      {
        valid = false
        context.diagnose(
          Diagnostic(
            node: member.decl,
            message: MacroMessage.error(
              "'@Reducer' writes this enum's '\(nested.name.trimmed.text)'; remove this declaration")))
      }
    }
    guard valid, let cases = featureCases(enumDecl) else { return [] }
    let access = enumDecl.modifiers.accessPrefix
    let enumName = enumDecl.name.trimmed.text
    guard let (stateConformances, actionConformances) = synthesizedConformances(node, context)
    else { return [] }
    let stateInheritance = (["ReducerKit.CaseReducerState"] + stateConformances)
      .joined(separator: ", ")
    let actionInheritance =
      actionConformances.isEmpty ? "" : ": " + actionConformances.joined(separator: ", ")
    // A case holding an alert or a dialog (`case alert(AlertState<Alert>)`) keeps that state
    // and takes its button actions; it has no reducer (`ifLet` clears it after any action).
    let stateCases = cases.map {
      "  case \($0.name)(\($0.ephemeralAction == nil ? "\($0.type).State" : $0.type))"
    }.joined(separator: "\n")
    let actionCases = cases.map {
      "  case \($0.name)(\($0.ephemeralAction ?? "\($0.type).Action"))"
    }.joined(separator: "\n")
    let features = cases.filter { $0.ephemeralAction == nil }
    let scopes: String
    if features.isEmpty {
      scopes = "  ReducerKit.EmptyReducer<Self.State, Self.Action>()"
    } else {
      scopes = features.map {
        "  ReducerKit.Scope(state: \\Self.State.Cases.\($0.name), action: \\Self.Action.Cases.\($0.name)) {\n"
          + "    \($0.type)()\n  }"
      }.joined(separator: "\n")
    }
    return [
      """
      @CasePathable
      @dynamicMemberLookup
      \(raw: access)enum State: \(raw: stateInheritance) {
        \(raw: access)typealias StateReducer = \(raw: enumName)
      \(raw: stateCases)
      }
      """,
      """
      @CasePathable
      \(raw: access)enum Action\(raw: actionInheritance) {
      \(raw: actionCases)
      }
      """,
      """
      @ReducerKit.ReducerBuilder<Self.State, Self.Action>
      \(raw: access)static var body: some ReducerKit.Reducer<Self.State, Self.Action> {
      \(raw: scopes)
      }
      """,
    ]
  }

  /// The protocols `@Reducer(state: .equatable, action: .hashable)` names, or nil after a
  /// diagnostic for an argument that is not one of them.
  static func synthesizedConformances(
    _ node: AttributeSyntax, _ context: some MacroExpansionContext, diagnose: Bool = true
  ) -> (state: [String], action: [String])? {
    let known = [
      "codable": "Codable", "decodable": "Decodable", "encodable": "Encodable",
      "equatable": "Equatable", "hashable": "Hashable", "sendable": "Sendable",
    ]
    guard case let .argumentList(arguments)? = node.arguments else { return ([], []) }
    var state: [String] = []
    var action: [String] = []
    var label = ""
    for argument in arguments {
      if let newLabel = argument.label?.text { label = newLabel }
      guard let member = argument.expression.as(MemberAccessExprSyntax.self),
        member.base == nil, let name = known[member.declName.baseName.text]
      else {
        guard diagnose else { return nil }
        context.diagnose(
          Diagnostic(
            node: argument.expression,
            message: MacroMessage.error(
              "expected one of .codable, .decodable, .encodable, .equatable, .hashable, .sendable")))
        return nil
      }
      if label == "action" { action.append(name) } else { state.append(name) }
    }
    return (state, action)
  }

  /// The enum's cases as (name, feature type), or nil when a case does not hold one feature.
  /// `ephemeralAction` is the button action type of a case holding `AlertState<Action>` or
  /// `ConfirmationDialogState<Action>` (nil for a feature).
  static func featureCases(
    _ enumDecl: EnumDeclSyntax
  ) -> [(name: String, type: String, ephemeralAction: String?)]? {
    var cases: [(name: String, type: String, ephemeralAction: String?)] = []
    for element in enumDecl.caseElements {
      guard let type = element.featureType else { return nil }
      cases.append((element.name.trimmed.text, type, element.ephemeralAction))
    }
    return cases
  }
}

extension EnumCaseElementSyntax {
  /// The feature a `@Reducer` enum's case holds: its one associated value's type.
  var featureType: String? {
    guard let parameters = parameterClause?.parameters, parameters.count == 1,
      let parameter = parameters.first, parameter.defaultValue == nil
    else { return nil }
    return parameter.type.trimmed.description
  }
}

extension EnumCaseElementSyntax {
  /// `Action` when the case holds `AlertState<Action>` or `ConfirmationDialogState<Action>`
  /// (also spelled `ReducerKit.AlertState<Action>`), as TCA recognizes them: by name.
  var ephemeralAction: String? {
    guard let parameters = parameterClause?.parameters, parameters.count == 1,
      let type = parameters.first?.type
    else { return nil }
    let name: String
    let arguments: GenericArgumentClauseSyntax?
    if let identifier = type.as(IdentifierTypeSyntax.self) {
      (name, arguments) = (identifier.name.text, identifier.genericArgumentClause)
    } else if let member = type.as(MemberTypeSyntax.self),
      member.baseType.as(IdentifierTypeSyntax.self)?.name.text == "ReducerKit"
    {
      (name, arguments) = (member.name.text, member.genericArgumentClause)
    } else {
      return nil
    }
    guard ["AlertState", "ConfirmationDialogState"].contains(name),
      let arguments = arguments?.arguments, arguments.count == 1, let argument = arguments.first
    else { return nil }
    return argument.argument.trimmedDescription
  }
}

extension AttributeListSyntax {
  /// Whether an attribute named `name` (or `Module.name`) is in the list.
  func contains(named name: String) -> Bool {
    contains { element in
      guard case let .attribute(attribute) = element else { return false }
      return attribute.attributeName.isNamed(name)
        || attribute.attributeName.as(IdentifierTypeSyntax.self)?.name.text == name
    }
  }
}
