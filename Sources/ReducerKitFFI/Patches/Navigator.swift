import ReducerKitWire

/// Reads the part of a state at a JSON Pointer (`rk_store_get`), looking only at the values
/// on the way: O(depth), plus the encoding of the part itself.
@usableFromInline
enum Navigator {
  /// The JSON of the value at `segments` inside `root`.
  @usableFromInline
  static func json(of root: any Encodable, at segments: [String]) throws(FFIError) -> [UInt8] {
    var current = _ShapeChild.value(root)
    var index = 0
    var unwrapped = 0
    while index < segments.count {
      let segment = segments[index]
      let parent = JSONPointer.render(segments[..<index])
      guard case let .value(value) = current else {
        throw missing(segments, index, "\(valueAt(parent)) is null")
      }
      if let diffable = value as? any _PatchDiffable {
        switch diffable._child(at: segment) {
        case let .found(child):
          current = child
          index += 1
          continue
        case let .missingIndex(count):
          throw missing(segments, index, "the array \(at(parent)) has \(count) element\(count == 1 ? "" : "s")")
        case .missingKey:
          throw missing(segments, index, "the object \(at(parent)) has no key \(WireQuote.string(segment))")
        }
      }
      switch _Shape.of(value) {
      case let .keyed(members):
        guard let member = members.last(where: { $0.key == segment }) else {
          let keys = members.map(\.key).prefix(20).map(WireQuote.string).joined(separator: ", ")
          throw missing(
            segments, index,
            "the object \(at(parent)) has no key \(WireQuote.string(segment)) (its keys: \(keys.isEmpty ? "none" : keys))")
        }
        current = member.value
        index += 1
      case let .unkeyed(elements):
        guard let position = JSONPointer.arrayIndex(segment), position < elements.count else {
          throw missing(segments, index, "the array \(at(parent)) has \(elements.count) element\(elements.count == 1 ? "" : "s")")
        }
        current = elements[position]
        index += 1
      case let .single(child):
        // A wrapper: the wrapped value is at the same position (bounded: no segment is used).
        unwrapped += 1
        guard unwrapped < patchMaxDepth else { throw FFIError(.internal, "the state nests wrappers too deeply") }
        current = child
      case .scalar:
        throw missing(segments, index, "\(valueAt(parent)) is \(scalarKind(value)), not an object or an array")
      case .opaque:
        // An enum with associated values, or a custom encoding: read its JSON.
        do {
          current = .value(try WireEncoder(explicitNulls: true).encodeToJSONValue(value))
        } catch {
          throw FFIError(.internal, "encoding the state at \(parent): \(error.message)")
        }
        if case .value(let json as JSONValue) = current, !json.isContainer {
          throw missing(segments, index, "\(valueAt(parent)) is \(json.kindName), not an object or an array")
        }
      }
    }
    var writer = PatchWriter()
    writer.path = Array(JSONPointer.render(segments).utf8)
    try writer.append(current)
    return writer.out
  }

  static func at(_ pointer: String) -> String {
    pointer.isEmpty ? "at the root" : "at \(pointer)"
  }

  static func valueAt(_ pointer: String) -> String {
    pointer.isEmpty ? "the state" : "the value at \(pointer)"
  }

  static func missing(_ segments: [String], _ index: Int, _ why: String) -> FFIError {
    FFIError(
      .invalidArgument,
      "no value at \(JSONPointer.render(segments[...index])): \(why) (pointer \(WireQuote.string(JSONPointer.render(segments))))")
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
