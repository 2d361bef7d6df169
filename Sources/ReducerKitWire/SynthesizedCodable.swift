/// Marks a struct or an enum whose `Codable` conformance is the one Swift synthesizes, so the
/// wire codec may read and write it directly instead of through `encode(to:)` and
/// `init(from:)`. For a struct, only its `encode(to:)` need be synthesized: its
/// `init(from:)` is always called, so it may validate or repair what it decodes.
///
/// ```swift
/// struct Todo: SynthesizedCodable, Equatable {
///   var id: Int
///   var title: String
///   var isComplete: Bool
/// }
///
/// enum Action: SynthesizedCodable, Equatable {
///   case increment
///   case setCount(Int)
///   case addTodo(title: String)
/// }
/// ```
///
/// The JSON is the same either way; what changes is the cost. `WireEncoder` writes such a
/// struct from its stored properties (found once, by reflection), skipping the `Encoder`
/// protocol's container, metadata lookup and dynamic call per property: encoding 1,000 todos
/// takes a third of the instructions. `WireDecoder` builds such an enum from its case's name
/// and values (the cases read once from the enum's metadata), and reads `"increment"` and
/// `{"setCount": 5}` straight from the bytes: a never-seen action from C takes a quarter of the
/// instructions.
///
/// The promise is yours; the codec checks it as far as it can and otherwise uses
/// `encode(to:)` and `init(from:)` as for any type:
/// - Structs are encoded directly (and a store's patches read them by their stored
///   properties), enums decoded directly; the other directions, and types that are neither,
///   always go through `Codable`.
/// - A struct with a property whose name starts with `_` or `$` (a property wrapper's or a
///   `lazy` property's storage) is not read directly.
/// - A type is trusted only after its first 16 values came out the same both ways, and an
///   enum only when its `init(from:)` takes exactly its cases' names. A hand-written
///   `encode(to:)` or `init(from:)`, or renamed `CodingKeys`, is usually caught this way, but
///   one that agrees on 16 values and differs on the 17th is not: such a type should stay
///   `Codable`.
/// - Input the direct path does not read exactly as the synthesized `init(from:)` would (any
///   other form, a value that fails) goes to `init(from:)`, so errors and messages are the
///   same as for `Codable`.
///
/// `WireCodable` (what `@Wire` generates) is the same promise kept by the compiler: its
/// shape is written out, so it is read from its first value, with no sampling and no read of
/// the runtime's layout. Prefer it where the macros are available.
///
/// With `REDUCERKIT_WIRE_CHECK=1` every encode and decode is compared with the reference
/// codec, which never takes these paths; `REDUCERKIT_WIRE_FAST_PATHS=0` turns them off.
public protocol SynthesizedCodable: Codable {}
