
/// Reads the part of a state at a JSON Pointer (`rk_store_get`), looking only at the values
/// on the way: O(depth), plus the encoding of the part itself.
@usableFromInline
package enum Navigator {
  /// The JSON of the value at `segments` inside `root`.
  @usableFromInline
  package static func json(of root: any Encodable, at segments: [String]) throws(PatchError) -> [UInt8] {
    var current = _ShapeChild.value(root)
    var index = 0
    var unwrapped = 0
    let finder = _ChildFinder()
    while index < segments.count {
      let segment = segments[index]
      // Rendered only for an error (rendering it on every step would be quadratic).
      var parent: String { JSONPointer.render(segments[..<index]) }
      guard case let .value(value) = current else {
        throw missing(segments, index, "\(valueAt(parent)) is null")
      }
      let type = _NavigationType.of(value)
      if let diffable = type.diffable {
        switch diffable._child(of: value, at: segment) {
        case let .found(child):
          current = child
          index += 1
          continue
        case let .missingIndex(count):
          throw missing(segments, index, noElement(segment, count: count, in: at(parent)))
        case .missingKey:
          throw missing(segments, index, "the object \(at(parent)) has no key \(WireQuote.bounded(segment))")
        }
      }
      // A `SynthesizedCodable` struct the codec trusts: the member read at its offset.
      if let fields = type.fields, let field = fields.last(where: { $0.name == segment }) {
        current = field.read(in: value)
        index += 1
        continue
      }
      // A struct's member or an array's element, found without recording its siblings;
      // anything else (missing, a wrapper, a scalar, opaque) by the shape below.
      if let child = finder.find(segment, in: value) {
        current = child
        index += 1
        continue
      }
      switch _Shape.of(value) {
      case let .keyed(members):
        guard let member = members.last(where: { $0.key == segment }) else {
          let keys = members.prefix(20).map { WireQuote.bounded($0.key, limit: 40) }.joined(separator: ", ")
          throw missing(
            segments, index,
            "the object \(at(parent)) has no key \(WireQuote.bounded(segment)) (its keys: \(keys.isEmpty ? "none" : keys))")
        }
        current = member.value
        index += 1
      case let .unkeyed(elements):
        guard let position = JSONPointer.arrayIndex(segment), position < elements.count else {
          throw missing(segments, index, noElement(segment, count: elements.count, in: at(parent)))
        }
        current = elements[position]
        index += 1
      case let .single(child):
        // A wrapper: the wrapped value is at the same position (bounded: no segment is used).
        unwrapped += 1
        guard unwrapped < patchMaxDepth else { throw PatchError(.internal, "the state nests wrappers too deeply") }
        current = child
      case .scalar:
        throw missing(segments, index, "\(valueAt(parent)) is \(scalarKind(value)), not an object or an array")
      case .opaque:
        // An enum with associated values, or a custom encoding: read its JSON.
        do {
          current = .value(try WireEncoder(explicitNulls: true).encodeToJSONValue(value))
        } catch {
          throw PatchError(.internal, "encoding the state at \(parent): \(error.message)")
        }
        if case .value(let json as JSONValue) = current, !json.isContainer {
          throw missing(segments, index, "\(valueAt(parent)) is \(json.kindName), not an object or an array")
        }
      }
    }
    var writer = PatchWriter(pool: unusedPool)
    do {
      try writer.append(current)
    } catch {
      // The path is rendered for the message only: the same append again, with it.
      writer = PatchWriter(pool: unusedPool)
      writer.path = Array(JSONPointer.render(segments).utf8)
      try writer.append(current)
    }
    return writer.out
  }

  /// The writer's pool: `append` records no shapes, so one empty pool serves every call
  /// (never used, so shared across threads safely).
  nonisolated(unsafe) private static let unusedPool = _ShapePool()

  static func at(_ pointer: String) -> String {
    pointer.isEmpty ? "at the root" : "at \(WireQuote.bounded(pointer))"
  }

  static func valueAt(_ pointer: String) -> String {
    pointer.isEmpty ? "the state" : "the value at \(WireQuote.bounded(pointer))"
  }

  /// "no value at P: why", P the pointer up to the missing segment; when that is not the
  /// whole pointer, the whole one too. Every pointer quoted, escaped and bounded.
  static func missing(_ segments: [String], _ index: Int, _ why: String) -> PatchError {
    let upTo = WireQuote.bounded(JSONPointer.render(segments[...index]))
    let whole = index + 1 < segments.count ? " (of the pointer \(WireQuote.bounded(JSONPointer.render(segments))))" : ""
    return PatchError(.invalidArgument, "no value at \(upTo)\(whole): \(why)")
  }

  /// Why the array `array` (described for a message) has no element `segment`: not an index
  /// (RFC 6901: digits, no leading zeros), or beyond its `count` elements.
  static func noElement(_ segment: String, count: Int, in array: String) -> String {
    let utf8 = segment.utf8
    if JSONPointer.arrayIndex(segment) == nil {
      let digits = !utf8.isEmpty && utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
      let element = "the array \(array) has no element \(WireQuote.bounded(segment, limit: 40))"
      if digits && utf8.count > 1 && utf8.first == UInt8(ascii: "0") {
        return "\(element): leading zeros are not allowed in an array index"
      }
      if !digits { return "\(element): an array index is digits" }
    }
    return "the array \(array) has \(count) element\(count == 1 ? "" : "s")"
  }

  static func scalarKind(_ value: any Encodable) -> String {
    switch value {
    case is String: return "a string"
    case is Bool: return "a boolean"
    default:
      let json = (try? WireEncoder(explicitNulls: true).encodeToJSONValue(value)) ?? .null
      return json.kindName
    }
  }
}

extension JSONValue {
  var isContainer: Bool {
    switch self {
    case .array, .object: return true
    default: return false
    }
  }
}

extension JSONValue {
  /// "an object", "a string", … for messages.
  package var kindName: String {
    switch self {
    case .null: return "null"
    case .bool: return "a boolean"
    case .int, .double, .number: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
  }

  /// ``kindName``, and for a string the string itself, quoted and bounded: `the string "TEST"`.
  package var kindShown: String {
    guard case .string(let text) = self else { return kindName }
    return "the string \(WireQuote.bounded(text, limit: 40))"
  }
}

/// What `Navigator` knows of a type, found once per type: whether it finds its own children
/// (`_PatchDiffable`: a protocol cast looks through the runtime's conformance tables, ~1,500
/// instructions, so it is made once, not per step of every pointer), and, for a
/// `SynthesizedCodable` struct whose plan the codec trusts (its JSON members are its stored
/// properties under their names), how to read each property at its offset instead of
/// through `encode(to:)`. Immutable; kept in a table under the codec's tables lock.
final class _NavigationType: @unchecked Sendable {
  let diffable: (any _PatchDiffable.Type)?
  /// The properties of a trusted plan; nil otherwise.
  let fields: [_NavigationField]?
  /// False while the codec is still checking the type's plan (the codec checks it on the
  /// values it encodes): looked up again after `lookupsLeft` more uses.
  let settled: Bool
  /// `_withWireTables` only.
  nonisolated(unsafe) var lookupsLeft = 32

  init(diffable: (any _PatchDiffable.Type)?, fields: [_NavigationField]?, settled: Bool) {
    self.diffable = diffable
    self.fields = fields
    self.settled = settled
  }

  /// `_withWireTables` only.
  nonisolated(unsafe) private static var known: [ObjectIdentifier: _NavigationType] = [:]

  static func of(_ value: any Encodable) -> _NavigationType {
    let type = type(of: value)
    let id = ObjectIdentifier(type)
    let cached: _NavigationType? = _withWireTables {
      guard let entry = known[id] else { return nil }
      if entry.settled { return entry }
      entry.lookupsLeft -= 1
      return entry.lookupsLeft > 0 ? entry : nil
    }
    if let cached { return cached }
    func make<T: Encodable>(_: T.Type) -> _NavigationType {
      let diffable = T.self as? any _PatchDiffable.Type
      guard diffable == nil else { return _NavigationType(diffable: diffable, fields: nil, settled: true) }
      switch _directFields(of: T.self) {
      case .unsupported:
        return _NavigationType(diffable: nil, fields: nil, settled: true)
      case .checking:
        return _NavigationType(diffable: nil, fields: nil, settled: false)
      case .trusted(let properties):
        var fields: [_NavigationField] = []
        for property in properties {
          guard let reader = _memberReader(property.type) else {
            return _NavigationType(diffable: nil, fields: nil, settled: true)
          }
          fields.append(_NavigationField(name: property.name, offset: property.offset, reader: reader))
        }
        return _NavigationType(diffable: nil, fields: fields, settled: true)
      }
    }
    let made = make(type)
    _withWireTables { known[id] = made }
    return made
  }
}

/// A stored property of a trusted struct, and how to read it as `encode(to:)` would have
/// written it (an optional: its value, or `null`).
struct _NavigationField {
  let name: String
  let offset: Int
  let reader: (UnsafeRawPointer) -> _ShapeChild

  /// The property of `value` (a value of the struct this field belongs to).
  func read(in value: any Encodable) -> _ShapeChild {
    func open<T: Encodable>(_ value: T) -> _ShapeChild {
      withUnsafePointer(to: value) { reader(UnsafeRawPointer($0) + offset) }
    }
    return open(value)
  }
}

/// How to read a property of type `type` at its address, as `_ShapeKeyed` records it: a
/// value of the type, or for an optional its wrapped value or `null` (synthesized
/// `encode(to:)` writes optionals with `encodeIfPresent`). nil for a type that is not
/// `Encodable` (not in a trusted plan).
func _memberReader(_ type: Any.Type) -> ((UnsafeRawPointer) -> _ShapeChild)? {
  if let optional = type as? any _NavigableOptional.Type { return optional._memberReader() }
  guard let encodable = type as? any Encodable.Type else { return nil }
  func make<F: Encodable>(_: F.Type) -> (UnsafeRawPointer) -> _ShapeChild {
    { .value($0.load(as: F.self)) }
  }
  return make(encodable)
}

protocol _NavigableOptional {
  static func _memberReader() -> (UnsafeRawPointer) -> _ShapeChild
  /// A property of this type read by a compiled pointer (`CompiledPointer`).
  static func _compileUnwrap(_ segments: ArraySlice<String>) -> _PointerCompilation
}

extension Optional: _NavigableOptional where Wrapped: Encodable {
  static func _memberReader() -> (UnsafeRawPointer) -> _ShapeChild {
    { pointer in pointer.load(as: Wrapped?.self).map { .value($0) } ?? .null }
  }
}

extension _PatchDiffable {
  /// `value`'s child at `segment` (`value` is of this type).
  static func _child(of value: any Encodable, at segment: String) -> _PointerStep {
    _load(value, as: Self.self)._child(at: segment)
  }
}

/// The `Encoder` that finds one child of a keyed or unkeyed value: the last member under a
/// key, or the element at an index, as `_Shape.of` would find it in `.keyed` or `.unkeyed`,
/// without keeping (or boxing) the others. Used by one `Navigator.json` call at a time.
final class _ChildFinder: Encoder {
  enum Kind { case none, keyed, unkeyed, other }
  var kind = Kind.none
  /// The segment looked for, and its array index (-1: none).
  var key = ""
  var position = -1
  var found: _ShapeChild?
  /// Elements seen so far (unkeyed).
  var count = 0

  /// `value`'s child at `segment` if `value` is a keyed or an unkeyed container that has
  /// it; nil otherwise (the caller reads its shape instead).
  func find(_ segment: String, in value: any Encodable) -> _ShapeChild? {
    kind = .none
    key = segment
    position = JSONPointer.arrayIndex(segment) ?? -1
    found = nil
    count = 0
    do {
      try value.encode(to: self)
    } catch {
      return nil
    }
    defer { found = nil }
    switch kind {
    case .keyed: return found
    case .unkeyed: return position >= 0 && position < count ? found : nil
    case .none, .other: return nil
    }
  }

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// As `_ShapeRecorder.enter`: another kind of container than the first makes it opaque.
  func enter(_ next: Kind) {
    if kind == .none {
      kind = next
    } else if kind != next {
      kind = .other
    }
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    enter(.keyed)
    return KeyedEncodingContainer(_FinderKeyed<Key>(finder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    enter(.unkeyed)
    return _FinderUnkeyed(finder: self)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    _FinderSingle(finder: self)
  }

  /// An element: kept if it is the one looked for.
  func element(_ child: @autoclosure () -> _ShapeChild) {
    if count == position { found = child() }
    count += 1
  }
}

struct _FinderKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let finder: _ChildFinder
  var codingPath: [any CodingKey] { [] }

  /// Keeps the member if it is under the key looked for (a later one replaces it, as
  /// `members.last(where:)` finds the last).
  func add(_ key: Key, _ child: @autoclosure () -> _ShapeChild) {
    if key.stringValue == finder.key { finder.found = child() }
  }

  mutating func encodeNil(forKey key: Key) throws { add(key, .null) }
  mutating func encode(_ value: Bool, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: String, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: Double, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: Float, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: Int, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: Int16, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: Int32, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: Int64, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: UInt, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: UInt16, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: UInt32, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { add(key, .value(value)) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { add(key, .value(value)) }

  // `nil` is `null`, as in `_ShapeKeyed`.
  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { add(key, value.map { .value($0) } ?? .null) }
  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
    add(key, value.map { .value($0) } ?? .null)
  }

  // Nested containers and super encoders: opaque, as for `_ShapeKeyed` (what is written into
  // them goes nowhere).
  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    finder.kind = .other
    return KeyedEncodingContainer(_ShapeKeyed<NestedKey>(recorder: _ShapeRecorder()))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    finder.kind = .other
    return _ShapeUnkeyed(recorder: _ShapeRecorder())
  }

  mutating func superEncoder() -> any Encoder {
    finder.kind = .other
    return _ShapeRecorder()
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    finder.kind = .other
    return _ShapeRecorder()
  }
}

struct _FinderUnkeyed: UnkeyedEncodingContainer {
  let finder: _ChildFinder
  var codingPath: [any CodingKey] { [] }
  var count: Int { finder.count }

  mutating func encodeNil() throws { finder.element(.null) }
  mutating func encode(_ value: Bool) throws { finder.element(.value(value)) }
  mutating func encode(_ value: String) throws { finder.element(.value(value)) }
  mutating func encode(_ value: Double) throws { finder.element(.value(value)) }
  mutating func encode(_ value: Float) throws { finder.element(.value(value)) }
  mutating func encode(_ value: Int) throws { finder.element(.value(value)) }
  mutating func encode(_ value: Int8) throws { finder.element(.value(value)) }
  mutating func encode(_ value: Int16) throws { finder.element(.value(value)) }
  mutating func encode(_ value: Int32) throws { finder.element(.value(value)) }
  mutating func encode(_ value: Int64) throws { finder.element(.value(value)) }
  mutating func encode(_ value: UInt) throws { finder.element(.value(value)) }
  mutating func encode(_ value: UInt8) throws { finder.element(.value(value)) }
  mutating func encode(_ value: UInt16) throws { finder.element(.value(value)) }
  mutating func encode(_ value: UInt32) throws { finder.element(.value(value)) }
  mutating func encode(_ value: UInt64) throws { finder.element(.value(value)) }
  mutating func encode<T: Encodable>(_ value: T) throws { finder.element(.value(value)) }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
    finder.kind = .other
    return KeyedEncodingContainer(_ShapeKeyed<NestedKey>(recorder: _ShapeRecorder()))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    finder.kind = .other
    return _ShapeUnkeyed(recorder: _ShapeRecorder())
  }

  mutating func superEncoder() -> any Encoder {
    finder.kind = .other
    return _ShapeRecorder()
  }
}

/// A single value written: the finder leaves wrappers and scalars to `_Shape.of`.
struct _FinderSingle: SingleValueEncodingContainer {
  let finder: _ChildFinder
  var codingPath: [any CodingKey] { [] }

  mutating func encodeNil() throws { finder.kind = .other }
  mutating func encode(_ value: Bool) throws { finder.kind = .other }
  mutating func encode(_ value: String) throws { finder.kind = .other }
  mutating func encode(_ value: Double) throws { finder.kind = .other }
  mutating func encode(_ value: Float) throws { finder.kind = .other }
  mutating func encode(_ value: Int) throws { finder.kind = .other }
  mutating func encode(_ value: Int8) throws { finder.kind = .other }
  mutating func encode(_ value: Int16) throws { finder.kind = .other }
  mutating func encode(_ value: Int32) throws { finder.kind = .other }
  mutating func encode(_ value: Int64) throws { finder.kind = .other }
  mutating func encode(_ value: UInt) throws { finder.kind = .other }
  mutating func encode(_ value: UInt8) throws { finder.kind = .other }
  mutating func encode(_ value: UInt16) throws { finder.kind = .other }
  mutating func encode(_ value: UInt32) throws { finder.kind = .other }
  mutating func encode(_ value: UInt64) throws { finder.kind = .other }
  mutating func encode<T: Encodable>(_ value: T) throws { finder.kind = .other }
}
