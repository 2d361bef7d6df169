extension Store {
  /// Starts the version count at `version` (a store restored from a snapshot continues the
  /// count of the store that took it). Only right after the store was made, before any send
  /// or subscription: the host runtime calls it while creating the store.
  @_spi(Host) public func _startVersion(at version: UInt64) {
    core.version.store(version, ordering: .relaxed)
  }
}
