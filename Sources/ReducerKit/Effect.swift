import Synchronization

/// A side effect a reducer returns: work that runs after the state changed and may feed actions
/// back into the store.
///
/// Build effects only with the static constructors: ``none``, ``send(_:)``,
/// ``run(priority:operation:catch:fileID:filePath:line:column:)``, ``merge(_:)-(Self...)`` and
/// ``concatenate(_:)-(Self...)``; then refine them with ``map(_:)``,
/// ``cancellable(id:cancelInFlight:)`` and friends.
///
/// ```swift
/// case .factButtonTapped:
///   return .run { [count = state.count] send in
///     await send(.factResponse(try await numberFact.fetch(count)))
///   }
/// ```
public struct Effect<Action> {
  // Each payload case is a heap box, and an `Operation` is one word: the box's address with
  // the case's index in the pointer's spare bits (Swift's multi-payload enum layout: payload
  // case n is stored as `address | n << 61` on x86-64). Leak checkers (LeakSanitizer,
  // valgrind) look for plain addresses, so a box held only through tagged words looks leaked.
  // `run` is payload case 0, whose words are plain addresses: a running effect's `.run` box is
  // often held only by `Effect` values (a debounce's or a cancellable's captured effect) for
  // the effect's whole life. Keep it first (Tests/c/test_lifetimes.c checks, under
  // `make test-asan`, that LeakSanitizer sees it while effects sleep).
  @usableFromInline
  indirect enum Operation {
    case run(Run)
    case none
    case send(Action)
    case merge([Effect])
    case concatenate([Effect])
    case cancellable(id: CancelID, cancelInFlight: Bool, Effect)
    case cancel(ids: [CancelID])
  }

  @usableFromInline
  struct Run {
    @usableFromInline let id: UInt64
    @usableFromInline let priority: TaskPriority?
    @usableFromInline let operation: @Sendable (Send<Action>) async -> Void

    @inlinable
    init(id: UInt64, priority: TaskPriority?, operation: @escaping @Sendable (Send<Action>) async -> Void) {
      self.id = id
      self.priority = priority
      self.operation = operation
    }
  }

  @usableFromInline let operation: Operation

  @inlinable init(operation: Operation) { self.operation = operation }
}

extension Effect: Sendable where Action: Sendable {}
extension Effect.Operation: Sendable where Action: Sendable {}
extension Effect.Run: Sendable where Action: Sendable {}

/// Identity for `.run` effects, so two copies of one effect compare equal.
@usableFromInline let _runIdentity = Atomic<UInt64>(0)

extension Effect {
  /// An effect that does nothing. The store skips it without allocating or starting a task.
  @inlinable public static var none: Self { Self(operation: .none) }

  /// An effect that feeds `action` back into the store synchronously, before the `send` that
  /// produced it returns. No task is created.
  @inlinable public static func send(_ action: Action) -> Self { Self(operation: .send(action)) }

  /// An effect that runs asynchronous work as a Swift concurrency task.
  ///
  /// ```swift
  /// return .run { send in
  ///   for await _ in clock.timer(interval: .seconds(1)) { await send(.timerTick) }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - priority: The priority of the task that runs the operation.
  ///   - operation: The work. Call `send` to feed actions back into the store.
  ///   - handler: Called with any error `operation` throws (other than cancellation). Without a
  ///     handler the error goes to the store's ``DependencyValues/reportEffectError`` dependency:
  ///     it is never silently lost and never traps.
  ///
  /// Inlinable (as ``map(_:)``), so a reducer's effects are built by code specialized for its
  /// action type: no generic metadata looked up per effect.
  @inlinable
  public static func run(
    priority: TaskPriority? = nil,
    operation: @escaping @Sendable (_ send: Send<Action>) async throws -> Void,
    catch handler: (@Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> Self {
    return Self(
      operation: .run(
        Run(
          id: _runIdentity.wrappingAdd(1, ordering: .relaxed).newValue,
          priority: priority,
          operation: { send in
            do {
              try await operation(send)
            } catch is CancellationError where Task.isCancelled {
              // Cancellation of a cancelled effect is not an error.
            } catch {
              if let handler {
                await handler(error, send)
              } else {
                // Where the effect was made, as text only when it is needed.
                let location = EffectError.Location(fileID: fileID, line: line, column: column)
                EffectRuntime.report(EffectError(error: error, location: location))
              }
            }
          }
        )
      )
    )
  }

  /// Runs the given effects at the same time.
  public static func merge(_ effects: Self...) -> Self { .merge(effects) }

  /// Runs the given effects at the same time.
  public static func merge(_ effects: some Sequence<Self>) -> Self {
    let list = effects.filter { if case .none = $0.operation { return false } else { return true } }
    switch list.count {
    case 0: return .none
    case 1: return list[0]
    default: return Self(operation: .merge(list))
    }
  }

  /// Runs the given effects one after the other: each starts when the previous one finished.
  public static func concatenate(_ effects: Self...) -> Self { .concatenate(effects) }

  /// Runs the given effects one after the other: each starts when the previous one finished.
  public static func concatenate(_ effects: some Collection<Self>) -> Self {
    let list = effects.filter { if case .none = $0.operation { return false } else { return true } }
    switch list.count {
    case 0: return .none
    case 1: return list[0]
    default: return Self(operation: .concatenate(list))
    }
  }

  /// This effect and `other` at the same time.
  public func merge(with other: Self) -> Self { .merge(self, other) }

  /// This effect, then `other`.
  public func concatenate(with other: Self) -> Self { .concatenate(self, other) }

  /// Transforms the actions this effect sends.
  ///
  /// ```swift
  /// Child().reduce(into: &state.child, action: childAction).map(Action.child)
  /// ```
  ///
  /// Inlinable, so a caller's `map` is specialized for its action types (every host store
  /// maps each of its effects).
  @inlinable
  public func map<T>(_ transform: @escaping @Sendable (Action) -> T) -> Effect<T> {
    switch operation {
    case .none:
      return .none
    case let .send(action):
      return .send(transform(action))
    case let .run(run):
      let body = run.operation
      return Effect<T>(
        operation: .run(
          .init(
            id: run.id, priority: run.priority,
            operation: { send in await body(Send<Action> { send.send(transform($0)) }) }
          )
        )
      )
    case let .merge(effects):
      return Effect<T>(operation: .merge(effects.map { $0.map(transform) }))
    case let .concatenate(effects):
      return Effect<T>(operation: .concatenate(effects.map { $0.map(transform) }))
    case let .cancellable(id, cancelInFlight, effect):
      return Effect<T>(
        operation: .cancellable(id: id, cancelInFlight: cancelInFlight, effect.map(transform)))
    case let .cancel(ids):
      return Effect<T>(operation: .cancel(ids: ids))
    }
  }

  /// Whether this is ``none``.
  @inlinable public var isNone: Bool {
    if case .none = operation { return true }
    return false
  }
}

extension Effect: Equatable {
  /// Structural equality: `.none` equals `.none`; `.send` effects are equal when their actions
  /// are equal (for `Equatable` actions); a `.run` effect equals only copies of itself.
  /// This is what lets a test write `XCTAssertEqual(effect, .none)`.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs.operation, rhs.operation) {
    case (.none, .none):
      return true
    case let (.send(a), .send(b)):
      return _isEqual(a, b)
    case let (.run(a), .run(b)):
      return a.id == b.id
    case let (.merge(a), .merge(b)), let (.concatenate(a), .concatenate(b)):
      return a == b
    case let (.cancellable(i1, c1, e1), .cancellable(i2, c2, e2)):
      return i1 == i2 && c1 == c2 && e1 == e2
    case let (.cancel(a), .cancel(b)):
      return a == b
    default:
      return false
    }
  }
}

extension Effect: CustomDebugStringConvertible {
  public var debugDescription: String {
    switch operation {
    case .none: return "Effect.none"
    case let .send(action): return "Effect.send(\(action))"
    case .run: return "Effect.run"
    case let .merge(effects): return "Effect.merge(\(effects.map(\.debugDescription).joined(separator: ", ")))"
    case let .concatenate(effects):
      return "Effect.concatenate(\(effects.map(\.debugDescription).joined(separator: ", ")))"
    case let .cancellable(id, cancelInFlight, effect):
      return "\(effect.debugDescription).cancellable(id: \(id.base), cancelInFlight: \(cancelInFlight))"
    case let .cancel(ids): return "Effect.cancel(ids: \(ids.map { "\($0.base)" }))"
    }
  }
}

func _isEqual(_ lhs: Any, _ rhs: Any) -> Bool {
  func open<T: Equatable>(_ lhs: T) -> Bool { (rhs as? T) == lhs }
  guard let lhs = lhs as? any Equatable else { return false }
  return open(lhs)
}

/// Sends actions from an effect back into the store.
///
/// ```swift
/// return .run { send in await send(.response(try await api.load())) }
/// ```
///
/// Once the effect's task is cancelled, further sends are dropped (as in TCA).
public struct Send<Action>: Sendable {
  @usableFromInline let send: @Sendable (Action) -> Void

  /// Creates a `Send` that forwards actions to `send`.
  public init(send: @escaping @Sendable (Action) -> Void) { self.send = send }

  /// Sends `action` into the store, unless the effect was cancelled. The action is reduced
  /// before this returns.
  public func callAsFunction(_ action: Action) async {
    guard !Task.isCancelled else {
      if _heldAnswerCount.load(ordering: .relaxed) > 0 { Self.settleHeldAnswers(delivered: false) }
      return
    }
    send(action)
    if _heldAnswerCount.load(ordering: .relaxed) > 0 { Self.settleHeldAnswers(delivered: true) }
  }

  private static func settleHeldAnswers(delivered: Bool) {
    if let unit = EffectRuntime.currentUnit, unit.isCurrentTask {
      unit.settleHeldAnswers(delivered: delivered)
    }
  }
}

/// An effect's error that no `catch:` handler took, with where the effect was created.
public struct EffectError: Error, CustomStringConvertible {
  /// Where an effect was created.
  public struct Location: Sendable, Equatable, CustomStringConvertible {
    public var fileID: String
    public var line: UInt
    public var column: UInt

    @usableFromInline
    init(fileID: StaticString, line: UInt, column: UInt) {
      self.fileID = "\(fileID)"
      self.line = line
      self.column = column
    }
    public var description: String { "\(fileID):\(line):\(column)" }
  }
  /// The error the effect threw.
  public var error: any Error
  /// Where the `.run` effect was created.
  public var location: Location

  @usableFromInline
  init(error: any Error, location: Location) {
    self.error = error
    self.location = location
  }

  public var description: String {
    "An Effect.run created at \(location) threw an error that no catch handler took: \(error)"
  }
}
