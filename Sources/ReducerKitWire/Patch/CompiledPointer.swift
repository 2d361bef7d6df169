
// A JSON Pointer read compiled for one root type: `rk_store_get` of a pointer it read before,
// after the state changed. `Navigator` finds each step's type at run time (a box per step, a
// type lookup under the codec's lock, a dynamic call); a compiled read knows every step's type
// and offset, so it reads the addressed value in place and writes only it.
//
// It compiles only what it reads exactly as `Navigator` does: a `SynthesizedCodable`/`@Wire`
// struct whose plan the codec trusts (a property at its offset; an optional property's value
// or `null`), an element of an `Array` or a `TrackedArray`, and any value at the end (written
// as `PatchWriter.append` writes it). Anything else (a class, an enum with associated values,
// a dictionary, a custom encoding, a wrapper) is left to `Navigator`, and so is every pointer
// that names nothing: a compiled read that finds no value returns false and the caller asks
// `Navigator`, whose message says why.

/// Appends the JSON of the part of the value at the pointer (the value of the compiled type at
/// the address given) to `out`; false when that part is not there (nothing else is known: the
/// caller reads it again with `Navigator` for the error).
@usableFromInline package typealias _PointerReader = (UnsafeRawPointer, inout [UInt8]) -> Bool

/// What compiling a pointer for a type gave.
@usableFromInline package enum _PointerCompilation {
  case reader(_PointerReader)
  /// Not yet: the codec is still checking a struct's plan on the way (try again later).
  case notYet
  /// Never: a step is read another way (by `Navigator`).
  case never
}

/// A pointer read compiled for one root type (`HostStore.get`). Immutable.
@usableFromInline package final class CompiledPointer: @unchecked Sendable {
  let reader: _PointerReader

  @usableFromInline package init(_ reader: @escaping _PointerReader) { self.reader = reader }

  /// The pointer's segments compiled for values of `Root`: `.never` when a step is read
  /// another way (by `Navigator`); `.notYet` while the codec checks a struct's plan.
  @usableFromInline package static func compile<Root>(_: Root.Type, _ segments: [String]) -> _PointerCompilation {
    guard !segments.isEmpty else { return .never }
    return _compilePointer(Root.self, segments[...])
  }

  /// The JSON at the pointer in `root` (a value of the type it was compiled for); nil when
  /// there is none there (`Navigator` says why). With `REDUCERKIT_WIRE_CHECK=1` each read
  /// is compared with `Navigator`'s, and a difference stops the process with a report.
  @usableFromInline package func json<Root>(of root: Root, segments: [String]) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(32)
    let found = withUnsafePointer(to: root) { reader(UnsafeRawPointer($0), &out) }
    if _wireCrossChecking, let value = root as? any Encodable {
      let reference = try? Navigator.json(of: value, at: segments)
      if (found ? out : nil) != reference {
        let text = { (bytes: [UInt8]?) in bytes.map { String(decoding: $0, as: UTF8.self) } ?? "-" }
        fatalError(
          "ReducerKit (REDUCERKIT_WIRE_CHECK): the compiled pointer read disagrees with Navigator on \(Root.self) at "
            + "\(JSONPointer.render(segments))\n  compiled:  \(text(found ? out : nil))\n  navigator: \(text(reference))")
      }
    }
    return found ? out : nil
  }
}

/// `segments` compiled for values of `type` (read at their address).
package func _compilePointer(_ type: Any.Type, _ segments: ArraySlice<String>) -> _PointerCompilation {
  guard let encodable = type as? any Encodable.Type else { return .never }
  return _compileTyped(encodable, segments)
}

private func _compileTyped<T: Encodable>(_: T.Type, _ segments: ArraySlice<String>) -> _PointerCompilation {
  // A class's values may be of a subclass (`Navigator` reads the dynamic type).
  if T.self is AnyClass { return .never }
  guard let segment = segments.first else { return .reader(_leafWriter(T.self)) }
  if let diffable = T.self as? any _PatchDiffable.Type { return diffable._compileChild(segments) }
  switch _directFields(of: T.self) {
  case .unsupported: return .never
  case .checking: return .notYet
  case .trusted(let properties):
    // As `_NavigationType`: every property must be readable, else the type is read by its
    // `encode(to:)`; the last property of the name is the member.
    guard properties.allSatisfy({ _memberReader($0.type) != nil }),
      let property = properties.last(where: { $0.name == segment })
    else { return .never }
    let rest = segments.dropFirst()
    let inner: _PointerCompilation
    if let optional = property.type as? any _NavigableOptional.Type {
      inner = optional._compileUnwrap(rest)
    } else {
      inner = _compilePointer(property.type, rest)
    }
    guard case .reader(let next) = inner else { return inner }
    let offset = property.offset
    return .reader { pointer, out in next(pointer + offset, &out) }
  }
}

/// Writes a `T` as `PatchWriter.append` writes it.
private func _leafWriter<T: Encodable>(_: T.Type) -> _PointerReader {
  if T.self == Bool.self {
    return { pointer, out in
      out.append(contentsOf: (pointer.load(as: Bool.self) ? "true" : "false").utf8)
      return true
    }
  } else if T.self == Int.self {
    return { pointer, out in
      out.append(contentsOf: String(pointer.load(as: Int.self)).utf8)
      return true
    }
  } else if T.self == String.self {
    return { pointer, out in
      JSONPointer.appendJSONString(pointer.assumingMemoryBound(to: String.self).pointee, to: &out)
      return true
    }
  }
  return { pointer, out in
    do throws(WireError) {
      try WireEncoder(explicitNulls: true).withEncodedBytes(pointer.assumingMemoryBound(to: T.self).pointee) {
        out.append(contentsOf: $0)
      }
      return true
    } catch {
      return false  // `Navigator` reports it
    }
  }
}

extension _PatchDiffable {
  /// Left to `Navigator` (a collection that reads its element in place implements it).
  package static func _compileChild(_ segments: ArraySlice<String>) -> _PointerCompilation { .never }
}

/// A collection whose elements a compiled pointer reads in place (`Array`, `TrackedArray`).
package protocol _PointerIndexable {
  /// Reads the rest of the pointer with `next` from the element at `index` of the collection
  /// at `pointer` (a value of this type); false when there is no such element.
  static func _withElement(at index: Int, of pointer: UnsafeRawPointer, _ next: _PointerReader, _ out: inout [UInt8])
    -> Bool
}

/// An element step of `C` (generic over the collection, so that a read finds the element
/// without looking up the collection type's metadata each time).
package func _compileElement<C: _PointerIndexable>(
  _: C.Type, _ segments: ArraySlice<String>, element: Any.Type
) -> _PointerCompilation {
  // Indices as `Navigator` reads them: digits, no leading zero, at most 18 (anything else
  // names no element; `Navigator` says so).
  guard let segment = segments.first, let index = JSONPointer.arrayIndex(segment) else { return .never }
  let inner = _compilePointer(element, segments.dropFirst())
  guard case .reader(let next) = inner else { return inner }
  return .reader { pointer, out in C._withElement(at: index, of: pointer, next, &out) }
}

extension Array: _PointerIndexable where Element: Encodable & Equatable {
  package static func _compileChild(_ segments: ArraySlice<String>) -> _PointerCompilation {
    _compileElement(Self.self, segments, element: Element.self)
  }

  package static func _withElement(
    at index: Int, of pointer: UnsafeRawPointer, _ next: _PointerReader, _ out: inout [UInt8]
  ) -> Bool {
    pointer.assumingMemoryBound(to: Self.self).pointee.withUnsafeBufferPointer { elements in
      guard index < elements.count, let base = elements.baseAddress else { return false }
      return next(UnsafeRawPointer(base + index), &out)
    }
  }
}

extension Optional where Wrapped: Encodable {
  /// A property of this optional type (`_memberReader`): its value, or `null` at the end of
  /// the pointer (a pointer through `null` names nothing).
  static func _compileUnwrap(_ segments: ArraySlice<String>) -> _PointerCompilation {
    let inner = _compilePointer(Wrapped.self, segments)
    guard case .reader(let next) = inner else { return inner }
    let isLast = segments.isEmpty
    return .reader { pointer, out in
      guard let wrapped = pointer.assumingMemoryBound(to: Wrapped?.self).pointee else {
        if isLast { out.append(contentsOf: "null".utf8) }
        return isLast
      }
      return withUnsafePointer(to: wrapped) { next(UnsafeRawPointer($0), &out) }
    }
  }
}
