// `@Wire`: the wire codec's shape of a type, written by the compiler.
@_exported import ReducerKitWire

/// Writes the ``ReducerKitWire/WireCodable`` conformance of a struct or an enum whose `Codable`
/// conformance is the synthesized one: its stored properties (for a struct) or its cases (for
/// an enum), so `WireEncoder`, `WireDecoder` and the store's patches read its values from code
/// the compiler checked, from the first value on, instead of from the Swift runtime's metadata.
///
/// ```swift
/// @Wire
/// public struct State: Codable, Equatable {
///   public var count = 0
///   public var title: String?
/// }
///
/// @Wire
/// public enum Action: Codable, Equatable {
///   case increment
///   case setCount(Int)
///   case addTodo(title: String)
/// }
/// ```
///
/// The JSON is the same as without it. It is an error to write it on a type whose `Codable`
/// would not be its shape: a hand-written `encode(to:)` (and an enum's `init(from:)`; a
/// struct's own `init(from:)` is kept and always called), an enum's `CodingKeys`, property
/// wrappers, `lazy` properties, raw-value enums. A struct's `CodingKeys` are followed (their
/// order, their string raw values, the properties they leave out).
@attached(member, names: named(_wireShape))
@attached(extension, conformances: WireCodable)
public macro Wire() = #externalMacro(module: "ReducerKitMacrosPlugin", type: "WireMacro")
