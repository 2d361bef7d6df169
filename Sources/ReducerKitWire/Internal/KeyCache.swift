/// Pre-escaped `"key":` bytes for the keys of enum `CodingKey` types (such as synthesized
/// `CodingKeys`), so repeated structs skip `stringValue` and escaping. A key of a
/// payload-less enum type is identified by its type and its case tag; its `stringValue` is
/// assumed to depend on nothing else.
struct _KeyCache: ~Copyable {
  struct Entry {
    var type: UInt = 0  // metadata address; 0 = empty
    var tag: UInt = 0
    var offset: Int = 0
    var length: Int = 0
  }

  static let capacity = 64
  /// Allocated by `enable()`; until then every key is written directly.
  private var entries: UnsafeMutablePointer<Entry>?
  private var storage = _ByteBuffer(capacity: 0)

  init() {}

  deinit { entries?.deallocate() }

  mutating func enable() {
    guard entries == nil, _wireFastPaths else { return }
    storage.reserve(256)
    let table = UnsafeMutablePointer<Entry>.allocate(capacity: _KeyCache.capacity)
    table.initialize(repeating: Entry(), count: _KeyCache.capacity)
    entries = table
  }

  @inline(__always)
  private static func slot(_ type: UInt, _ tag: UInt) -> Int {
    Int(truncatingIfNeeded: ((type >> 4) &* 31 &+ tag) & UInt(capacity - 1))
  }

  /// Appends `"name":` for `key` to `out`, from the cache when possible.
  @inline(__always)
  mutating func appendKey<K: CodingKey>(_ key: K, to out: inout _ByteBuffer) {
    guard let entries, let (type, tag) = _KeyCache.identity(of: key) else {
      out.appendJSONString(key.stringValue)
      out.append(UInt8(ascii: ":"))
      return
    }
    let entry = entries + _KeyCache.slot(type, tag)
    if entry.pointee.type == type, entry.pointee.tag == tag {
      out.append(UnsafeBufferPointer(start: storage.base + entry.pointee.offset, count: entry.pointee.length))
      return
    }
    let offset = storage.count
    storage.appendJSONString(key.stringValue)
    storage.append(UInt8(ascii: ":"))
    entry.pointee = Entry(type: type, tag: tag, offset: offset, length: storage.count - offset)
    out.append(UnsafeBufferPointer(start: storage.base + offset, count: storage.count - offset))
  }
}
