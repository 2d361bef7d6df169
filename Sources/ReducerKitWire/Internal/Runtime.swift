// Reads of Swift runtime metadata used to recognise enums and enumerate the cases of
// payload-less enums (such as synthesized `CodingKeys`).
//
// Everything here relies on the Swift ABI, which is stable on Linux and Apple platforms:
// - the first word of a type's metadata is its kind (0x201 = enum, 0x202 = Optional);
// - an enum's metadata stores its nominal type descriptor in the second word; the
//   descriptor's low 5 flag bits are its context kind (18 = enum), and at byte offsets
//   20 and 24 it stores the number of payload cases (low 24 bits) and of empty cases;
// - the value witness table sits one word before the metadata; it holds 8 function
//   pointers, then size, stride, flags (UInt32) and the extra-inhabitant count (UInt32).
// A payload-less enum stores its case index (declaration order) in 0, 1 or 2 bytes.
// Every read is cross-checked against an independent source before a value is built.

@usableFromInline let _metadataKindEnum: UInt = 0x201

/// The metadata kind word of `type`.
@inline(__always)
func _metadataKind(_ type: Any.Type) -> UInt {
  unsafeBitCast(type, to: UnsafeRawPointer.self).load(as: UInt.self)
}

/// Whether `type` is an enum (not `Optional`, which has its own metadata kind).
@inline(__always)
func _isEnumType(_ type: Any.Type) -> Bool {
  _metadataKind(type) == _metadataKindEnum
}

/// The number of cases of a payload-less enum, or nil when `type` is not one (or its
/// layout is not the one we know how to build values for).
func _payloadlessCaseCount(_ type: Any.Type) -> Int? {
  #if _endian(little) && (arch(x86_64) || arch(arm64))
  let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
  guard metadata.load(as: UInt.self) == _metadataKindEnum,
    let descriptor = metadata.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
  else { return nil }
  guard descriptor.load(as: UInt32.self) & 0x1F == 18,  // context kind: enum
    descriptor.load(fromByteOffset: 20, as: UInt32.self) & 0x00FF_FFFF == 0  // no payload cases
  else { return nil }
  let cases = Int(descriptor.load(fromByteOffset: 24, as: UInt32.self))
  // Cross-check with the value witness table: size and extra inhabitants must be exactly
  // those of a plain tag of `cases` values.
  let witnesses = metadata.load(fromByteOffset: -8, as: UnsafeRawPointer.self)
  let size = witnesses.load(fromByteOffset: 64, as: UInt.self)
  let extraInhabitants = Int(witnesses.load(fromByteOffset: 84, as: UInt32.self))
  switch cases {
  case 0, 1:
    guard size == 0, extraInhabitants == 0 else { return nil }
  case 2...256:
    guard size == 1, extraInhabitants == 256 - cases else { return nil }
  case 257...65536:
    guard size == 2, extraInhabitants == 65536 - cases else { return nil }
  default:
    return nil
  }
  return cases
  #else
  return nil
  #endif
}

/// All values of a payload-less enum, in declaration order, or nil when `T` is not one.
func _payloadlessCases<T>(of type: T.Type) -> [T]? {
  guard let count = _payloadlessCaseCount(T.self),
    MemoryLayout<T>.size <= 2, MemoryLayout<T>.alignment <= 8
  else { return nil }
  var result: [T] = []
  result.reserveCapacity(count)
  for tag in 0..<count {
    var raw = UInt64(tag)
    result.append(withUnsafeBytes(of: &raw) { $0.load(as: T.self) })
  }
  return result
}

/// The case names of a `CodingKey` enum such as a synthesized `CodingKeys`, in declaration
/// order; nil when `K` is not a payload-less enum or its names do not round-trip.
func _codingKeyCases<K: CodingKey>(of type: K.Type) -> [K]? {
  guard let cases = _payloadlessCases(of: K.self) else { return nil }
  for value in cases {
    // Sanity check: the name must map back to the same case.
    guard let back = K(stringValue: value.stringValue),
      _sameBits(back, value)
    else { return nil }
  }
  return cases
}

/// Whether `K` is a single-case key enum whose only key is `_0` (the keys of a case with
/// one unlabeled associated value).
func _isSinglePositionalKeys<K: CodingKey>(_ type: K.Type) -> Bool {
  guard _payloadlessCaseCount(K.self) == 1, let keys = _payloadlessCases(of: K.self) else {
    return false
  }
  return keys[0].stringValue == "_0"
}

/// Whether the keys of a payload-less `CodingKey` enum with `count` cases are exactly
/// `_0`, `_1`, … (the keys of a case whose values are all unlabeled).
func _allPositional<K: CodingKey>(_ type: K.Type, count: Int) -> Bool {
  guard count > 0 else { return false }
  for i in 0..<count where K(stringValue: "_\(i)") == nil { return false }
  return true
}

private func _sameBits<T>(_ a: T, _ b: T) -> Bool {
  var a = a, b = b
  return withUnsafeBytes(of: &a) { pa in
    withUnsafeBytes(of: &b) { pb in pa.elementsEqual(pb) }
  }
}

// MARK: - Type names

/// A readable Swift type name: `[Todo]` rather than `Array<Todo>`, `Int?` rather than
/// `Optional<Int>`, `[String: Int]` rather than `Dictionary<String, Int>`.
func _typeName(_ type: Any.Type) -> String {
  _prettyGenericName(String(describing: type))
}

func _prettyGenericName(_ name: String) -> String {
  var parser = _TypeNameParser(chars: Array(name))
  guard let tree = parser.parse(), parser.index == parser.chars.count else { return name }
  return tree.rendered
}

private struct _TypeNameParser {
  struct Node {
    var base: String
    var args: [Node]
    var rendered: String {
      let a = args.map(\.rendered)
      switch (base, a.count) {
      case ("Array", 1), ("Swift.Array", 1): return "[\(a[0])]"
      case ("Optional", 1), ("Swift.Optional", 1): return "\(a[0])?"
      case ("Dictionary", 2), ("Swift.Dictionary", 2): return "[\(a[0]): \(a[1])]"
      case (_, 0): return base
      default: return "\(base)<\(a.joined(separator: ", "))>"
      }
    }
  }
  let chars: [Character]
  var index = 0

  mutating func parse() -> Node? {
    var base = ""
    while index < chars.count, chars[index] != "<", chars[index] != ">", chars[index] != "," {
      base.append(chars[index])
      index += 1
    }
    base = String(base.drop(while: { $0 == " " }))
    guard !base.isEmpty else { return nil }
    var args: [Node] = []
    if index < chars.count, chars[index] == "<" {
      index += 1
      while true {
        guard let arg = parse() else { return nil }
        args.append(arg)
        guard index < chars.count else { return nil }
        if chars[index] == "," {
          index += 1
          continue
        }
        if chars[index] == ">" {
          index += 1
          break
        }
        return nil
      }
      // A nested member of a generic type, e.g. `Outer<Int>.Inner`.
      if index < chars.count, chars[index] == "." {
        guard let rest = parse() else { return nil }
        let rendered = Node(base: base, args: args).rendered
        return Node(base: rendered + rest.rendered, args: [])
      }
    }
    return Node(base: base, args: args)
  }
}
