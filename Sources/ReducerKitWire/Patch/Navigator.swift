
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
    while index < segments.count {
      let segment = segments[index]
      // Rendered only for an error (rendering it on every step would be quadratic).
      var parent: String { JSONPointer.render(segments[..<index]) }
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
          throw missing(segments, index, "the object \(at(parent)) has no key \(WireQuote.bounded(segment))")
        }
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
          throw missing(segments, index, "the array \(at(parent)) has \(elements.count) element\(elements.count == 1 ? "" : "s")")
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
    var writer = PatchWriter()
    writer.path = Array(JSONPointer.render(segments).utf8)
    try writer.append(current)
    return writer.out
  }

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
}
