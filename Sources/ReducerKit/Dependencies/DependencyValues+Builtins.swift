import ReducerKitPlatform
#if canImport(FoundationEssentials)
  import FoundationEssentials
#elseif canImport(Foundation)
  import Foundation
#endif

private enum ContinuousClockKey: DependencyKey {
  static var liveValue: any Clock<Duration> { ContinuousClock() }
}

private enum SuspendingClockKey: DependencyKey {
  static var liveValue: any Clock<Duration> { SuspendingClock() }
}

private enum ReportEffectErrorKey: DependencyKey {
  static var liveValue: EffectErrorReporter {
    EffectErrorReporter { _writeToStandardError("ReducerKit: \($0)") }
  }
}

/// Receives errors that effects threw and no `catch:` handler took.
public struct EffectErrorReporter: Sendable {
  private let report: @Sendable (EffectError) -> Void
  /// A reporter that calls `report`.
  public init(_ report: @escaping @Sendable (EffectError) -> Void) { self.report = report }
  /// Reports `error`.
  public func callAsFunction(_ error: EffectError) { report(error) }
}

extension DependencyValues {
  /// The clock effects sleep on (live: `ContinuousClock`). Override with a ``TestClock``.
  public var continuousClock: any Clock<Duration> {
    get { self[ContinuousClockKey.self] }
    set { self[ContinuousClockKey.self] = newValue }
  }

  /// A clock that does not advance while the machine sleeps (live: `SuspendingClock`).
  public var suspendingClock: any Clock<Duration> {
    get { self[SuspendingClockKey.self] }
    set { self[SuspendingClockKey.self] = newValue }
  }

  /// Where errors go that `.run` effects threw and no `catch:` handler took (live: standard
  /// error). ``TestStore`` records them as test failures.
  public var reportEffectError: EffectErrorReporter {
    get { self[ReportEffectErrorKey.self] }
    set { self[ReportEffectErrorKey.self] = newValue }
  }
}

#if canImport(FoundationEssentials) || canImport(Foundation)
  /// Makes UUIDs: live ones are random, ``incrementing`` ones are deterministic for tests.
  public struct UUIDGenerator: Sendable {
    private let generate: @Sendable () -> UUID
    /// A generator that calls `generate`.
    public init(_ generate: @escaping @Sendable () -> UUID) { self.generate = generate }
    /// A new UUID.
    public func callAsFunction() -> UUID { generate() }
    /// Random UUIDs.
    public static var live: Self { Self { UUID() } }
    /// `00000000-0000-0000-0000-000000000000`, `…0001`, … in order.
    public static var incrementing: Self {
      let counter = LockedValue<UInt64>(0)
      return Self {
        let value = counter.withLock { value -> UInt64 in
          defer { value += 1 }
          return value
        }
        let hex = String(value, radix: 16)
        let padded = String(repeating: "0", count: 12 - min(12, hex.count)) + hex
        return UUID(uuidString: "00000000-0000-0000-0000-\(padded)") ?? UUID()
      }
    }
    /// Always `uuid`.
    public static func constant(_ uuid: UUID) -> Self { Self { uuid } }
  }

  extension UUID {
    /// The UUID whose last 12 hex digits are `intValue` (`UUID(0)` is
    /// `00000000-0000-0000-0000-000000000000`): what ``UUIDGenerator/incrementing`` makes,
    /// for tests (as swift-dependencies' `UUID(_:)`). Negative values and values of more than
    /// 12 hex digits keep their low 48 bits.
    public init(_ intValue: Int) {
      let hex = String(UInt64(bitPattern: Int64(intValue)) & 0xFFFF_FFFF_FFFF, radix: 16)
      let padded = String(repeating: "0", count: 12 - hex.count) + hex
      self.init(uuidString: "00000000-0000-0000-0000-\(padded)")!
    }
  }

  /// Gives the current date: live is `Date()`, ``constant(_:)`` for tests.
  public struct DateGenerator: Sendable {
    private let generate: @Sendable () -> Date
    /// A generator that calls `generate`.
    public init(_ generate: @escaping @Sendable () -> Date) { self.generate = generate }
    /// The current date.
    public var now: Date { generate() }
    /// The current date.
    public func callAsFunction() -> Date { generate() }
    /// Always `date`.
    public static func constant(_ date: Date) -> Self { Self { date } }
  }

  private enum UUIDGeneratorKey: DependencyKey {
    static var liveValue: UUIDGenerator { .live }
  }

  private enum DateGeneratorKey: DependencyKey {
    static var liveValue: DateGenerator { DateGenerator { Date() } }
  }

  extension DependencyValues {
    /// Makes UUIDs (live: random). Override with `.incrementing` in tests.
    public var uuid: UUIDGenerator {
      get { self[UUIDGeneratorKey.self] }
      set { self[UUIDGeneratorKey.self] = newValue }
    }

    /// The current date (live: `Date()`). Override with `.constant(…)` in tests.
    public var date: DateGenerator {
      get { self[DateGeneratorKey.self] }
      set { self[DateGeneratorKey.self] = newValue }
    }
  }
#endif
