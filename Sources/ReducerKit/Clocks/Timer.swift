extension Clock {
  /// An async sequence that ticks every `interval` of this clock, from when iteration starts,
  /// until the iterating task is cancelled: `for await _ in clock.timer(interval: .seconds(1))`.
  ///
  /// Ticks are scheduled from the start (the n-th at start + n × interval), so a slow consumer
  /// does not make the timer drift. On a ``TestClock`` each tick comes when the clock is
  /// advanced past it. Elements count the ticks (1, 2, 3, …); swift-clocks' timer yields the
  /// clock's instant instead.
  public func timer(interval: Duration) -> ClockTimer {
    ClockTimer { [self] in
      let start = self.now
      return { tick in try await self.sleep(until: start.advanced(by: interval * tick), tolerance: nil) }
    }
  }
}

/// The ticks of ``_Concurrency/Clock/timer(interval:)``.
public struct ClockTimer: AsyncSequence, Sendable {
  public typealias Element = Int

  /// Made when iteration starts: sleeps until the given tick.
  let makeSleeper: @Sendable () -> @Sendable (Int) async throws -> Void

  init(makeSleeper: @escaping @Sendable () -> @Sendable (Int) async throws -> Void) {
    self.makeSleeper = makeSleeper
  }

  public func makeAsyncIterator() -> Iterator {
    Iterator(sleepUntilTick: makeSleeper())
  }

  /// Waits for the next tick; ends when the task is cancelled.
  public struct Iterator: AsyncIteratorProtocol {
    let sleepUntilTick: @Sendable (Int) async throws -> Void
    var tick = 0

    public mutating func next() async -> Int? {
      guard !Task.isCancelled else { return nil }
      tick += 1
      do {
        try await sleepUntilTick(tick)
      } catch {
        return nil
      }
      return tick
    }
  }
}
