import Synchronization

/// A reference made on first use and kept from then on, readable without a lock: what
/// `Synchronization.AtomicLazyReference` does, but inlinable, so `load()` is specialized where
/// it is called (one atomic load). `AtomicLazyReference.load()` is not specialized in this
/// library's build: each call looks up the metadata of `Unmanaged<Instance>`, ~350 of its
/// ~660 instructions, and a host round trip called it 16 times.
///
/// ```swift
/// let lazyMonitor = LazyReference<Condition>()
/// let monitor = lazyMonitor.load() ?? lazyMonitor.storeIfNil(Condition())
/// ```
@usableFromInline
package struct LazyReference<Instance: AnyObject>: ~Copyable {
  /// The retained instance's address; 0 until one is stored.
  @usableFromInline let address = Atomic<UInt>(0)

  /// No instance yet.
  @inlinable package init() {}

  /// The stored instance, nil before the first `storeIfNil`.
  @inlinable @inline(__always) package func load() -> Instance? {
    let raw = address.load(ordering: .acquiring)
    guard let pointer = UnsafeRawPointer(bitPattern: raw) else { return nil }
    return Unmanaged<Instance>.fromOpaque(pointer).takeUnretainedValue()
  }

  /// Stores `desired` unless an instance is stored already; returns the one stored (which
  /// the caller must use: a concurrent first use may have won).
  @inlinable package func storeIfNil(_ desired: consuming Instance) -> Instance {
    let retained = Unmanaged<Instance>.passRetained(desired)
    let new = UInt(bitPattern: retained.toOpaque())
    let (exchanged, original) = address.compareExchange(
      expected: 0, desired: new, ordering: .acquiringAndReleasing)
    if exchanged { return retained.takeUnretainedValue() }
    retained.release()
    // `original` is not 0: the exchange failed because an instance was stored.
    return Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: original)!).takeUnretainedValue()
  }

  @inlinable deinit {
    if let pointer = UnsafeRawPointer(bitPattern: address.load(ordering: .acquiring)) {
      Unmanaged<Instance>.fromOpaque(pointer).release()
    }
  }
}

extension LazyReference: @unchecked Sendable where Instance: Sendable {}
// Safe: the instance is published with release ordering and read with acquire ordering; it is
// never replaced, and it is Sendable itself.
