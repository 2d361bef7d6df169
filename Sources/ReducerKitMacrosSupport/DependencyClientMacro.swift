import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@DependencyClient` on a struct of closure properties: writes a memberwise initializer in
/// which every closure without a default is "unimplemented": calling it reports a runtime issue
/// (the running test fails) and, when it can throw, throws `UnimplementedDependencyError`. So
/// `static let testValue = Self()` is a client whose every endpoint fails the test that calls it,
/// and a test overrides only the endpoints it expects (as with swift-dependencies' macro).
public protocol DependencyClientMacroDefinition: MemberMacro {}

/// The macro, for the expansion tests and `reducerkit-wire-gen`; the plugin declares its own
/// `DependencyClientMacro` (the compiler finds a macro by its type name in the plugin's module).
public enum DependencyClientMacro: DependencyClientMacroDefinition {}

extension DependencyClientMacroDefinition {
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let structDecl = declaration.as(StructDeclSyntax.self) else {
      context.diagnose(
        Diagnostic(
          node: node,
          message: MacroMessage.error(
            "'@DependencyClient' can only be applied to a struct; '\(declaration.kindName)' is not one")))
      return []
    }
    let typeName = structDecl.name.trimmedDescription
    var parameters: [String] = []
    var assignments: [String] = []
    for member in structDecl.memberBlock.members {
      guard let variable = member.decl.as(VariableDeclSyntax.self),
        !variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) })
      else { continue }
      let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
      for binding in variable.bindings {
        // Computed properties are not stored: not initialized.
        if let accessors = binding.accessorBlock, !accessors.isStoredObserver { continue }
        guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
        let name = pattern.identifier.trimmedDescription
        let bareName = pattern.identifier.identifier?.name ?? name
        if isLet, binding.initializer != nil { continue }
        guard let type = binding.typeAnnotation?.type else {
          context.diagnose(
            Diagnostic(
              node: Syntax(binding),
              message: MacroMessage.error(
                "'@DependencyClient' needs the type of '\(bareName)' written out")))
          return []
        }
        let function = functionType(of: type)
        var parameterType = type.trimmedDescription
        if function != nil, !type.is(OptionalTypeSyntax.self),
          !type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self)
        {
          parameterType = "@escaping " + parameterType
        }
        var defaultValue: String? = binding.initializer?.value.trimmedDescription
        let isOptional =
          type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self)
        if defaultValue == nil, isOptional {
          // An optional endpoint is absent until given.
          defaultValue = "nil"
        } else if defaultValue == nil, let function {
          let endpoint = "\(typeName).\(bareName)"
          let literal = stringLiteral(endpoint)
          let arguments =
            function.parameters.isEmpty
            ? "" : function.parameters.map { _ in "_" }.joined(separator: ", ") + " in "
          let throwsError = function.effectSpecifiers?.throwsClause != nil
          let returnsVoid = returnsVoid(function)
          if throwsError {
            defaultValue =
              "{ \(arguments)ReducerKit._reportUnimplementedDependency(\(literal)); "
              + "throw ReducerKit.UnimplementedDependencyError(\(literal)) }"
          } else if returnsVoid {
            defaultValue = "{ \(arguments)ReducerKit._reportUnimplementedDependency(\(literal)) }"
          } else {
            context.diagnose(
              Diagnostic(
                node: Syntax(binding),
                message: MacroMessage.error(
                  "'@DependencyClient' needs a default for '\(bareName)': it neither throws nor "
                    + "returns Void, so an unimplemented call would have nothing to return "
                    + "(write '= { ... }' with a placeholder result)")))
            return []
          }
        }
        parameters.append("\(name): \(parameterType)" + (defaultValue.map { " = \($0)" } ?? ""))
        assignments.append("self.\(bareName) = \(name)")
      }
    }
    let access =
      structDecl.modifiers.contains(where: {
        $0.name.tokenKind == .keyword(.public) || $0.name.tokenKind == .keyword(.package)
      })
      ? structDecl.modifiers.first(where: {
        $0.name.tokenKind == .keyword(.public) || $0.name.tokenKind == .keyword(.package)
      })!.name.text + " " : ""
    let initializer: DeclSyntax = """
      \(raw: access)init(
        \(raw: parameters.joined(separator: ",\n"))
      ) {
        \(raw: assignments.joined(separator: "\n"))
      }
      """
    return [initializer]
  }

  /// The function type of a property's type, through attributes (`@Sendable`), parentheses and
  /// an optional.
  private static func functionType(of type: TypeSyntax) -> FunctionTypeSyntax? {
    if let function = type.as(FunctionTypeSyntax.self) { return function }
    if let attributed = type.as(AttributedTypeSyntax.self) {
      return functionType(of: attributed.baseType)
    }
    if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1,
      let only = tuple.elements.first, only.firstName == nil
    {
      return functionType(of: only.type)
    }
    if let optional = type.as(OptionalTypeSyntax.self) {
      return functionType(of: optional.wrappedType)
    }
    return nil
  }

  private static func returnsVoid(_ function: FunctionTypeSyntax) -> Bool {
    let text = function.returnClause.type.trimmedDescription
    return text == "Void" || text == "()" || text == "Swift.Void"
  }

  /// A Swift string literal holding `text` (identifiers never need escapes; done anyway).
  private static func stringLiteral(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      default:
        if scalar.value < 0x20 {
          out += "\\u{\(String(scalar.value, radix: 16))}"
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }
}

extension AccessorBlockSyntax {
  /// `{ willSet ... didSet ... }`: a stored property with observers.
  fileprivate var isStoredObserver: Bool {
    guard case let .accessors(list) = accessors else { return false }
    return list.allSatisfy {
      $0.accessorSpecifier.tokenKind == .keyword(.willSet)
        || $0.accessorSpecifier.tokenKind == .keyword(.didSet)
    }
  }
}
