// A growable byte buffer over raw memory, and JSON text writing (strings with escapes,
// integers, doubles). Raw memory keeps the encoder's hot path free of the uniqueness
// checks and reference counting an `[UInt8]` would cost on every append.

/// Two decimal digits per entry, for integer printing.
private let _digitPairs: StaticString =
  "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

private let _hexDigits: StaticString = "0123456789abcdef"

/// A growable byte buffer. Not copyable: exactly one owner frees the memory.
struct _ByteBuffer: ~Copyable {
  private(set) var base: UnsafeMutablePointer<UInt8>
  private(set) var count = 0
  private(set) var capacity: Int
  /// The memory at `base` belongs to someone else (`init(borrowing:capacity:)`).
  private var borrowed = false

  /// `capacity` 0 allocates nothing until the first write.
  init(capacity: Int = 256) {
    self.capacity = max(capacity, 0)
    base = capacity > 0 ? .allocate(capacity: capacity) : _ByteBuffer.unallocated
  }

  /// A buffer that writes into `capacity` bytes at `base`, owned by someone else (an
  /// `[UInt8]` being initialized): they are not freed here, and if the buffer needs more it
  /// moves to memory of its own (see `isBorrowing`).
  init(borrowing base: UnsafeMutablePointer<UInt8>, capacity: Int) {
    self.base = base
    self.capacity = capacity
    borrowed = true
  }

  deinit {
    if capacity > 0 && !borrowed { base.deallocate() }
  }

  /// Whether the bytes are still in the memory given to `init(borrowing:capacity:)`.
  var isBorrowing: Bool { borrowed }

  /// A placeholder address for an empty buffer; never dereferenced (capacity 0).
  private static var unallocated: UnsafeMutablePointer<UInt8> {
    UnsafeMutablePointer<UInt8>(bitPattern: 1) ?? .allocate(capacity: 1)  // unreachable fallback
  }

  var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

  func makeArray() -> [UInt8] { Array(bytes) }

  func makeString() -> String { String(decoding: bytes, as: UTF8.self) }

  @inline(__always)
  mutating func reserve(_ additional: Int) {
    if count &+ additional > capacity { grow(count &+ additional) }
  }

  @inline(never)
  mutating func grow(_ needed: Int) {
    // Grow 4x while small (fewer copies on the way to a typical state's size), then 2x.
    let newCapacity = max(capacity < 65536 ? capacity &* 4 : capacity &* 2, needed, 64)
    let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    newBase.update(from: base, count: count)
    if capacity > 0 && !borrowed { base.deallocate() }
    borrowed = false
    base = newBase
    capacity = newCapacity
  }

  @inline(__always)
  mutating func append(_ byte: UInt8) {
    reserve(1)
    base[count] = byte
    count &+= 1
  }

  /// Appends a byte where `reserve` made room for it.
  @inline(__always)
  mutating func appendUnchecked(_ byte: UInt8) {
    base[count] = byte
    count &+= 1
  }

  /// Appends bytes where `reserve` made room for them.
  @inline(__always)
  mutating func appendUnchecked(_ source: UnsafePointer<UInt8>, count n: Int) {
    _copyShort(from: source, to: base + count, count: n)
    count &+= n
  }

  /// Appends `true` or `false` where `reserve` made room for it.
  @inline(__always)
  mutating func appendBoolUnchecked(_ value: Bool) {
    if value {
      UnsafeMutableRawPointer(base + count).storeBytes(of: UInt32(0x6575_7274).littleEndian, as: UInt32.self)  // "true"
      count &+= 4
    } else {
      UnsafeMutableRawPointer(base + count).storeBytes(of: UInt32(0x736c_6166).littleEndian, as: UInt32.self)  // "fals"
      base[count &+ 4] = UInt8(ascii: "e")
      count &+= 5
    }
  }

  @inline(__always)
  mutating func append(_ a: UInt8, _ b: UInt8) {
    reserve(2)
    base[count] = a
    base[count &+ 1] = b
    count &+= 2
  }

  @inline(__always)
  mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress, bytes.count > 0 else { return }
    reserve(bytes.count)
    (base + count).update(from: source, count: bytes.count)
    count &+= bytes.count
  }

  @inline(__always)
  mutating func append(_ text: StaticString) {
    text.withUTF8Buffer { append($0) }
  }

  mutating func append(utf8 text: String) {
    var text = text
    text.withUTF8 { append($0) }
  }

  /// Inserts bytes at `offset`, moving what follows.
  mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) {
    guard let source = bytes.baseAddress, bytes.count > 0 else { return }
    reserve(bytes.count)
    (base + offset + bytes.count).update(from: base + offset, count: count - offset)
    (base + offset).update(from: source, count: bytes.count)
    count += bytes.count
  }

  mutating func insert(_ text: StaticString, at offset: Int) {
    text.withUTF8Buffer { insert($0, at: offset) }
  }

  /// Removes the byte at `offset`.
  mutating func remove(at offset: Int) {
    (base + offset).update(from: base + offset + 1, count: count - offset - 1)
    count -= 1
  }

  mutating func truncate(to newCount: Int) {
    count = min(count, max(0, newCount))
  }

  // MARK: JSON text

  /// Appends `string` as a quoted JSON string.
  @inline(__always)
  mutating func appendJSONString(_ string: String) {
    let done: Void? = string.utf8.withContiguousStorageIfAvailable { appendJSONString(utf8: $0) }
    if done == nil {
      var copy = string
      copy.withUTF8 { appendJSONString(utf8: $0) }
    }
  }

  /// Appends UTF-8 text as a quoted JSON string, escaping `"`, `\` and control characters.
  @inline(__always)
  mutating func appendJSONString(utf8 text: UnsafeBufferPointer<UInt8>) {
    let n = text.count
    reserve(n &+ 2)
    base[count] = UInt8(ascii: "\"")
    guard let source = text.baseAddress, n > 0 else {
      base[count &+ 1] = UInt8(ascii: "\"")
      count &+= 2
      return
    }
    if !_ByteBuffer.anyNeedsEscape(source, n) {
      _copyShort(from: source, to: base + (count &+ 1), count: n)
      base[count &+ 1 &+ n] = UInt8(ascii: "\"")
      count &+= n &+ 2
      return
    }
    count &+= 1
    appendEscapedSlow(source, n)
    append(UInt8(ascii: "\""))
  }

  /// Whether any byte of `source[0..<n]` needs escaping (8 bytes at a time).
  @inline(__always)
  static func anyNeedsEscape(_ source: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    if n >= 8 {
      let raw = UnsafeRawPointer(source)
      var i = 0
      while i &+ 8 <= n {
        if needsEscape(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { return true }
        i &+= 8
      }
      // The last (overlapping) 8 bytes.
      return i < n && needsEscape(raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self))
    }
    var i = 0
    while i < n {
      let byte = source[i]
      if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
      i &+= 1
    }
    return false
  }

  @inline(never)
  mutating func appendEscapedSlow(_ source: UnsafePointer<UInt8>, _ n: Int) {
    var start = 0
    while start < n {
      // Chunks, reserving the worst case (`\u00XX`, 6 bytes per input byte) for each.
      let end = min(n, start &+ 4096)
      reserve((end &- start) &* 6)
      var out = base + count
      _hexDigits.withUTF8Buffer { hex in
        for i in start..<end {
          let byte = source[i]
          if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
            out.pointee = byte
            out += 1
            continue
          }
          out[0] = UInt8(ascii: "\\")
          switch byte {
          case UInt8(ascii: "\""): out[1] = UInt8(ascii: "\"")
          case UInt8(ascii: "\\"): out[1] = UInt8(ascii: "\\")
          case 0x0A: out[1] = UInt8(ascii: "n")
          case 0x0D: out[1] = UInt8(ascii: "r")
          case 0x09: out[1] = UInt8(ascii: "t")
          case 0x08: out[1] = UInt8(ascii: "b")
          case 0x0C: out[1] = UInt8(ascii: "f")
          default:
            out[1] = UInt8(ascii: "u")
            out[2] = UInt8(ascii: "0")
            out[3] = UInt8(ascii: "0")
            out[4] = hex[Int(byte >> 4)]
            out[5] = hex[Int(byte & 0xF)]
            out += 6
            continue
          }
          out += 2
        }
      }
      count = out - base
      start = end
    }
  }

  /// Whether any of the 8 bytes is `"`, `\` or a control character.
  @inline(__always)
  static func needsEscape(_ w: UInt64) -> Bool {
    let high: UInt64 = 0x8080_8080_8080_8080
    let ones: UInt64 = 0x0101_0101_0101_0101
    let control = (w &- 0x2020_2020_2020_2020) & ~w
    let q = w ^ 0x2222_2222_2222_2222
    let quote = (q &- ones) & ~q
    let b = w ^ 0x5C5C_5C5C_5C5C_5C5C
    let backslash = (b &- ones) & ~b
    return (control | quote | backslash) & high != 0
  }

  /// Appends the decimal text of `value`.
  @inline(__always)
  mutating func appendInt(_ value: Int64) {
    if value < 0 {
      append(UInt8(ascii: "-"))
      appendUInt(value.magnitude)
    } else {
      appendUInt(UInt64(value))
    }
  }

  /// Appends the decimal text of `value`.
  mutating func appendUInt(_ value: UInt64) {
    if value < 10 {
      append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
      return
    }
    let digits = _decimalDigits(value)
    reserve(digits)
    var position = count &+ digits
    var v = value
    _digitPairs.withUTF8Buffer { pairs in
      while v >= 100 {
        let r = Int(v % 100)
        v /= 100
        position &-= 2
        base[position] = pairs[2 &* r]
        base[position &+ 1] = pairs[2 &* r &+ 1]
      }
      if v >= 10 {
        let r = Int(v)
        position &-= 2
        base[position] = pairs[2 &* r]
        base[position &+ 1] = pairs[2 &* r &+ 1]
      } else {
        position &-= 1
        base[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v)
      }
    }
    count &+= digits
  }

  /// Appends the shortest text that reads back as `value`, which must be finite.
  mutating func appendDouble(_ value: Double) {
    if value.rounded(.towardZero) == value, value.magnitude < 1e15 {
      if value == 0, value.sign == .minus { append(UInt8(ascii: "-")) }
      appendInt(Int64(value))
      append(UInt8(ascii: "."), UInt8(ascii: "0"))
    } else {
      append(utf8: value.description)
    }
  }

  /// Appends the shortest text that reads back as `value`, which must be finite.
  mutating func appendFloat(_ value: Float) {
    if value.rounded(.towardZero) == value, value.magnitude < 1e7 {
      if value == 0, value.sign == .minus { append(UInt8(ascii: "-")) }
      appendInt(Int64(value))
      append(UInt8(ascii: "."), UInt8(ascii: "0"))
    } else {
      append(utf8: value.description)
    }
  }
}

/// Copies bytes; short runs without a `memcpy` call.
@inline(__always)
private func _copyShort(from source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count n: Int) {
  if n >= 8 && n <= 16 {
    let s = UnsafeRawPointer(source)
    let t = UnsafeMutableRawPointer(target)
    let head = s.loadUnaligned(as: UInt64.self)
    let tail = s.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
    t.storeBytes(of: head, as: UInt64.self)
    t.storeBytes(of: tail, toByteOffset: n &- 8, as: UInt64.self)
  } else if n < 8 {
    var i = 0
    while i < n {
      target[i] = source[i]
      i &+= 1
    }
  } else {
    target.update(from: source, count: n)
  }
}

@inline(__always)
private func _decimalDigits(_ value: UInt64) -> Int {
  var digits = 1
  var rest = value
  while rest >= 10 {
    rest /= 10
    digits &+= 1
  }
  return digits
}
