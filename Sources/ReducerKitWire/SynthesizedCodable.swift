/// Marks a struct whose `Codable` conformance is the one Swift synthesizes, so `WireEncoder`
/// may write it from its stored properties directly instead of through `encode(to:)`.
///
/// ```swift
/// struct Todo: SynthesizedCodable, Equatable {
///   var id: Int
///   var title: String
///   var isComplete: Bool
/// }
/// ```
///
/// The bytes are the same either way; the direct path skips the `Encoder` protocol's
/// per-struct cost (a container, a metadata lookup and a dynamic call per property), which
/// makes encoding an array of such structs about 3x faster (`make bench-ir`, mode `encode`).
///
/// The promise is yours: conform only types whose `encode(to:)` the compiler writes. The
/// encoder checks it as far as it can. A type that is not a struct, that has a property whose
/// name starts with `_` or `$` (a property wrapper's or a `lazy` property's storage), or
/// whose first 16 values do not encode to the same bytes both ways (custom `CodingKeys`, a
/// hand-written `encode(to:)`) is encoded through `encode(to:)` as any other type. Decoding
/// always goes through `init(from:)`. With `REDUCERKIT_WIRE_CHECK=1` every value is also
/// encoded by the reference encoder (which never takes the direct path) and compared.
public protocol SynthesizedCodable: Codable {}
