import ReducerKit
import ReducerKitTesting
import Testing

@Suite(.testStoreIssues) struct EffectTests {
  // MARK: Structural equality (what makes `XCTAssertEqual(effect, .none)` work)

  @Test func noneIsRecognisable() {
    let none = Effect<Int>.none
    #expect(none == .none)
    #expect(none.isNone)
    #expect(Effect<Int>.merge() == .none)
    #expect(Effect<Int>.merge(.none, .none).isNone)
    #expect(Effect<Int>.concatenate(.none, .none).isNone)
    #expect(Effect<Int>.none.map { $0 + 1 }.isNone)
    #expect(Effect<Int>.none.cancellable(id: "id").isNone)
    #expect(!Effect<Int>.send(1).isNone)
    #expect(!Effect<Int>.run { _ in }.isNone)
    #expect(!Effect<Int>.cancel(id: "id").isNone)
    #expect(Effect<Int>.none.debugDescription == "Effect.none")
  }

  @Test func sendEffectsCompareByAction() {
    #expect(Effect<Int>.send(1) == .send(1))
    #expect(Effect<Int>.send(1) != .send(2))
    #expect(Effect<Int>.send(1) != .none)
    #expect(Effect<Int>.send(1).map { "\($0)" } == .send("1"))
    #expect(Effect<Int>.merge(.send(1), .send(2)) == .merge(.send(1), .send(2)))
    #expect(Effect<Int>.merge(.send(1), .send(2)) != .concatenate(.send(1), .send(2)))
    // A single effect after dropping `.none`s is that effect.
    #expect(Effect<Int>.merge(.none, .send(3), .none) == .send(3))
    #expect(Effect<Int>.concatenate(.none, .send(3)) == .send(3))
    #expect(Effect<Int>.send(1).merge(with: .send(2)) == .merge(.send(1), .send(2)))
    #expect(Effect<Int>.send(1).concatenate(with: .send(2)) == .concatenate(.send(1), .send(2)))
    #expect(Effect<Int>.cancel(id: "a") == .cancel(id: "a"))
    #expect(Effect<Int>.cancel(id: "a") != .cancel(id: "b"))
    #expect(Effect<Int>.send(1).cancellable(id: "a") == Effect<Int>.send(1).cancellable(id: "a"))
    #expect(
      Effect<Int>.send(1).cancellable(id: "a") != Effect<Int>.send(1).cancellable(id: "a", cancelInFlight: true))
    #expect(Effect<Int>.send(7).debugDescription == "Effect.send(7)")
  }

  @Test func runEffectsEqualOnlyTheirCopies() {
    let run = Effect<Int>.run { send in await send(1) }
    let copy = run
    let other = Effect<Int>.run { send in await send(1) }
    #expect(run == copy)
    #expect(run != other)
    #expect(run != .none)
    #expect(run.debugDescription == "Effect.run")
  }

  // MARK: .none / .send / .run

  @Test func noneStartsNothing() async {
    enum Action: Equatable, Sendable { case tap }
    let store = TestStore(initialState: 0) {
      Reduce<Int, Action> { state, _ in
        state += 1
        return .none
      }
    }
    let task = await store.send(.tap) { $0 = 1 }
    #expect(store.effectCount == 0)
    #expect(task.isCancelled)  // no task was started
    await store.finish()
  }

  @Test func sendFeedsAnActionBack() async {
    enum Action: Equatable, Sendable { case tap, tapped }
    let store = TestStore(initialState: [String]()) {
      Reduce<[String], Action> { state, action in
        state.append("\(action)")
        return action == .tap ? .send(.tapped) : .none
      }
    }
    await store.send(.tap) { $0 = ["tap"] }
    await store.receive(.tapped) { $0 = ["tap", "tapped"] }
    await store.finish()
  }

  @Test func runSendsActionsBack() async {
    enum Action: Equatable, Sendable { case load, loaded(Int) }
    let store = TestStore(initialState: 0) {
      Reduce<Int, Action> { state, action in
        switch action {
        case .load:
          return .run { [state] send in await send(.loaded(state + 41)) }
        case let .loaded(value):
          state = value
          return .none
        }
      }
    }
    await store.send(.load)
    await store.receive(.loaded(41)) { $0 = 41 }
    await store.finish()
  }

  struct Boom: Error, Equatable { var code = 7 }

  @Test func runErrorGoesToTheCatchHandler() async {
    enum Action: Equatable, Sendable { case load, failed(Int) }
    let store = TestStore(initialState: 0) {
      Reduce<Int, Action> { state, action in
        switch action {
        case .load:
          return .run { _ in
            throw Boom(code: 42)
          } catch: { error, send in
            await send(.failed((error as? Boom)?.code ?? -1))
          }
        case let .failed(code):
          state = code
          return .none
        }
      }
    }
    await store.send(.load)
    await store.receive(.failed(42)) { $0 = 42 }
    await store.finish()
  }

  @Test func runErrorWithoutHandlerReachesTheStoresReporter() async throws {
    enum Action: Sendable { case load }
    let reported = Log<EffectError>()
    let store = Store(
      initialState: 0,
      reducer: Reduce<Int, Action> { _, _ in
        .run { _ in throw Boom(code: 9) }
      },
      withDependencies: { $0.reportEffectError = EffectErrorReporter { reported.append($0) } }
    )
    await store.send(.load).finish()
    let errors = reported.values
    try #require(errors.count == 1)
    #expect((errors.first?.error as? Boom) == Boom(code: 9))
    #expect(errors.first?.location.fileID.hasSuffix("EffectTests.swift") == true)
    #expect(errors.first?.description.contains("Boom") == true)
  }

  @Test func eachStoreReportsToItsOwnReporter() async {
    enum Action: Sendable { case load }
    let first = Log<EffectError>()
    let second = Log<EffectError>()
    func makeStore(_ log: Log<EffectError>) -> Store<Int, Action> {
      Store(
        initialState: 0,
        reducer: Reduce<Int, Action> { _, _ in .run { _ in throw Boom() } },
        withDependencies: { $0.reportEffectError = EffectErrorReporter { log.append($0) } })
    }
    let a = makeStore(first)
    let b = makeStore(second)
    await a.send(.load).finish()
    await a.send(.load).finish()
    await b.send(.load).finish()
    #expect(first.count == 2)
    #expect(second.count == 1)
  }

  @Test func cancellationOfACancelledEffectIsNotAnError() async {
    enum Action: Sendable { case start }
    let reported = Log<EffectError>()
    let started = Latch()
    let store = Store(
      initialState: 0,
      reducer: Reduce<Int, Action> { _, _ in
        .run { _ in
          started.open()
          try await Task.sleep(for: .seconds(100_000))  // throws CancellationError when cancelled
        }
      },
      withDependencies: { $0.reportEffectError = EffectErrorReporter { reported.append($0) } })
    let task = store.send(.start)
    #expect(await started.wait())
    task.cancel()
    await task.finish()
    #expect(reported.count == 0)
  }

  @Test func uncaughtErrorInAMergedChildEffectIsReported() async {
    enum Action: Sendable { case start }
    let reported = Log<EffectError>()
    let store = Store(
      initialState: 0,
      reducer: Reduce<Int, Action> { _, _ in
        .concatenate(.run { _ in }, .merge(.run { _ in throw Boom(code: 1) }, .run { _ in }))
      },
      withDependencies: { $0.reportEffectError = EffectErrorReporter { reported.append($0) } })
    await store.send(.start).finish()
    #expect(reported.values.map { ($0.error as? Boom)?.code } == [1])
  }

  // MARK: .merge / .concatenate / .map

  @Test func mergeRunsAllEffects() async {
    enum Action: Equatable, Sendable { case start, got(Int) }
    let store = TestStore(initialState: Set<Int>()) {
      Reduce<Set<Int>, Action> { state, action in
        switch action {
        case .start:
          return .merge((1...3).map { value in .run { send in await send(.got(value)) } })
        case let .got(value):
          state.insert(value)
          return .none
        }
      }
    }
    store.exhaustivity = .off  // merged effects finish in any order
    await store.send(.start)
    await store.finish()
    #expect(store.state == [1, 2, 3])
  }

  @Test func mergedEffectsRunAtTheSameTime() async {
    enum Action: Equatable, Sendable { case start, done }
    let firstWaiting = Latch()
    let secondRan = Latch()
    let store = TestStore(initialState: 0) {
      Reduce<Int, Action> { state, action in
        switch action {
        case .start:
          return .merge(
            .run { send in
              firstWaiting.open()
              // Only returns if the second effect runs while this one is still running.
              _ = await secondRan.wait()
              await send(.done)
            },
            .run { _ in
              _ = await firstWaiting.wait()
              secondRan.open()
            })
        case .done:
          state += 1
          return .none
        }
      }
    }
    await store.send(.start).finish()
    #expect(secondRan.isOpen)
    await store.receive(.done) { $0 = 1 }
    await store.finish()
  }

  @Test func concatenateRunsEffectsOneAfterTheOther() async {
    enum Action: Equatable, Sendable { case start, step(Int) }
    let store = TestStore(initialState: [Int]()) {
      Reduce<[Int], Action> { state, action in
        switch action {
        case .start:
          return .concatenate(
            .run { send in
              // The slowest effect comes first: concatenation must still deliver it first.
              for _ in 0..<200 { await Task.yield() }
              await send(.step(1))
            },
            .send(.step(2)),
            .run { send in
              for _ in 0..<50 { await Task.yield() }
              await send(.step(3))
            },
            .run { send in await send(.step(4)) })
        case let .step(value):
          state.append(value)
          return .none
        }
      }
    }
    await store.send(.start).finish()
    await store.receive(.step(1)) { $0 = [1] }
    await store.receive(.step(2)) { $0 = [1, 2] }
    await store.receive(.step(3)) { $0 = [1, 2, 3] }
    await store.receive(.step(4)) { $0 = [1, 2, 3, 4] }
    await store.finish()
  }

  @Test func concatenateWaitsForMergedEffectsBeforeMovingOn() async {
    enum Action: Equatable, Sendable { case start, merged(Int), after }
    let store = Store(initialState: [String](), reducer: Reduce<[String], Action> { state, action in
      switch action {
      case .start:
        return .concatenate(
          .merge(
            .run { send in
              for _ in 0..<100 { await Task.yield() }
              await send(.merged(1))
            },
            .run { send in await send(.merged(2)) }),
          .run { send in await send(.after) })
      case let .merged(value):
        state.append("merged \(value)")
        return .none
      case .after:
        state.append("after")
        return .none
      }
    })
    await store.send(.start).finish()
    #expect(store.state.count == 3)
    #expect(store.state.last == "after")
    #expect(Set(store.state.prefix(2)) == ["merged 1", "merged 2"])
  }

  @Test func synchronousConcatenationIsDeliveredBeforeSendReturns() {
    enum Action: Sendable { case start, step(Int) }
    let store = Store(initialState: [Int](), reducer: Reduce<[Int], Action> { state, action in
      switch action {
      case .start: return .concatenate(.send(.step(1)), .send(.step(2)), .send(.step(3)))
      case let .step(value):
        state.append(value)
        return .none
      }
    })
    store.send(.start)
    #expect(store.state == [1, 2, 3])
    #expect(store.effectCount == 0)
  }

  @Test func mapTransformsEveryKindOfEffect() async {
    enum Child: Equatable, Sendable { case ping, pong(Int) }
    enum Parent: Equatable, Sendable { case start, child(Child) }
    let childEffect: Effect<Child> = .merge(
      .send(.pong(1)),
      .run { send in await send(.pong(2)) }.cancellable(id: "child"),
      .concatenate(.run { send in await send(.pong(3)) }, .send(.pong(4))))
    let store = TestStore(initialState: [Int]()) {
      Reduce<[Int], Parent> { state, action in
        switch action {
        case .start: return childEffect.map(Parent.child)
        case let .child(.pong(value)):
          state.append(value)
          return .none
        case .child(.ping): return .none
        }
      }
    }
    store.exhaustivity = .off
    await store.send(.start).finish()
    await store.finish()
    #expect(store.state.sorted() == [1, 2, 3, 4])
    #expect(store.state.firstIndex(of: 3)! < store.state.firstIndex(of: 4)!)
  }
}
