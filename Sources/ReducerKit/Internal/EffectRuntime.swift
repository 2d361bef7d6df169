import Synchronization
import ReducerKitPlatform

/// How many host answers effects hold, process-wide (see `EffectRuntime.Unit.holdAnswer`):
/// while 0, sends skip looking for them.
let _heldAnswerCount = Atomic<Int>(0)

/// The non-generic engine behind a store's effects: it starts effect tasks, tracks them for
/// cancellation, counts which of them are running (as opposed to asleep on a ``TestClock``) so
/// that tests and hosts can wait for quiescence, and reports errors effects did not handle.
@usableFromInline
final class EffectRuntime: @unchecked Sendable {
  // Safe: every mutable field lives in `state`, which is read and written only while holding
  // `condition`'s mutex (see `locked(_:)`); everything else is immutable after init.

  /// The runtime whose effect is running on the current task, if any.
  static var current: EffectRuntime? { currentUnit?.runtime }
  /// The tracked unit (task) running on the current task, if any (child tasks inherit it).
  @TaskLocal static var currentUnit: Unit?

  /// One tracked effect task. Lets a clock tell a tracked task from a structured child of it.
  final class Unit: @unchecked Sendable {
    // Safe: `firstHeldAnswer` and `moreHeldAnswers` are read and written only while holding
    // the runtime's lock; the `let`s are immutable.
    let runtime: EffectRuntime
    let taskIdentity: Int
    /// What to do if this task's next action is dropped because the task was cancelled (or
    /// the task ends cancelled before sending one): a host answer it holds reports itself.
    /// Guarded by the runtime's lock (no lock or box of its own: a unit is made per effect).
    /// The first in a slot of its own (an effect holds one answer at a time, as a rule: no
    /// array to allocate), the others after it, in order.
    @exclusivity(unchecked) private var firstHeldAnswer: (@Sendable () -> Void)?
    @exclusivity(unchecked) private var moreHeldAnswers: [@Sendable () -> Void] = []
    /// Whether answers may be held: settling skips the lock while it is false.
    private let mayHoldAnswers = Atomic<Bool>(false)
    init(runtime: EffectRuntime, taskIdentity: Int) {
      self.runtime = runtime
      self.taskIdentity = taskIdentity
    }

    /// Keeps `report` until the task's next action (see `settleHeldAnswers`).
    func holdAnswer(_ report: @escaping @Sendable () -> Void) {
      runtime.locked { _ in
        if firstHeldAnswer == nil {
          firstHeldAnswer = report
        } else {
          moreHeldAnswers.append(report)
        }
      }
      mayHoldAnswers.store(true, ordering: .releasing)
    }

    /// The task sent an action (`delivered`) or had it dropped or ended cancelled: held
    /// answers are consumed, or reported.
    func settleHeldAnswers(delivered: Bool) {
      guard mayHoldAnswers.load(ordering: .acquiring) else { return }
      let (first, more) = runtime.locked { _ in
        defer {
          firstHeldAnswer = nil
          if !moreHeldAnswers.isEmpty { moreHeldAnswers = [] }
        }
        return (firstHeldAnswer, moreHeldAnswers)
      }
      guard let first else { return }
      _heldAnswerCount.subtract(1 + more.count, ordering: .relaxed)
      if !delivered {
        first()
        for report in more { report() }
      }
    }
    /// Whether the calling task is this unit's own task (not a child task that inherited it).
    var isCurrentTask: Bool {
      Self.currentTaskIdentity() == taskIdentity
    }

    /// The calling task's address (0 outside a task): one word read, where `hashValue` of the
    /// `UnsafeCurrentTask` hashed it (~420 instructions, three times per host round trip).
    /// Only compared, never dereferenced; a task's address identifies it while it runs.
    static func currentTaskIdentity() -> Int {
      withUnsafeCurrentTask { task in
        guard let task else { return 0 }
        // `UnsafeCurrentTask` is one reference to the task (checked here, not assumed).
        guard MemoryLayout<UnsafeCurrentTask>.size == MemoryLayout<Int>.size else { return task.hashValue }
        return unsafeBitCast(task, to: Int.self)
      }
    }
  }

  @usableFromInline
  final class Join: @unchecked Sendable {
    // Safe: `remaining` is only read and written while holding the runtime's lock.
    var remaining: Int
    /// Whether the parent gave its unit up to wait for the children.
    var parentWaiting = false
    init(_ remaining: Int) { self.remaining = remaining }
  }

  struct Entry {
    var task: Task<Void, Never>?
    var cancelled = false
    var ids: [CancelID]
    /// Whether `ids` holds a child's lifetime id (counted in `_childEffectsInFlight`).
    var isChildEffect: Bool
  }

  struct State {
    var nextID: UInt64 = 0
    var entries: [UInt64: Entry] = [:]
    /// Entries by the base of each of their cancel ids (paths are checked on cancel).
    var byCancelBase: [AnyHashable: Set<UInt64>] = [:]
    /// Tracked tasks that are running: not finished and not asleep on a test clock.
    var busy = 0
    var idleWaiters: [UInt64: UnsafeContinuation<Bool, Never>] = [:]
    var finishWaiters: [UInt64: UnsafeContinuation<Bool, Never>] = [:]
    var nextWaiter: UInt64 = 0
    var throttles: [CancelID: AnyObject] = [:]
    var invalidated = false
    /// Counts the moments a tracked task stopped running (finished, or went to sleep on a
    /// test clock or to wait for the host): waits for quiescence give up only when it stands
    /// still (see `waitUntilSettled(stallNanoseconds:)`).
    var progress: UInt64 = 0
  }

  private let condition = Condition()
  // `@exclusivity(unchecked)`: read and written only under `condition`'s mutex, so accesses
  // never overlap; the dynamic checks cost ~80 instructions each, several per effect.
  @exclusivity(unchecked) private var state = State()
  let dependencies: DependencyValues
  let reportError: @Sendable (EffectError) -> Void

  init(dependencies: DependencyValues, reportError: @escaping @Sendable (EffectError) -> Void) {
    self.dependencies = dependencies
    self.reportError = reportError
  }

  private func locked<R>(_ body: (inout State) -> R) -> R {
    condition.lock()
    defer { condition.unlock() }
    return body(&state)
  }

  // MARK: Starting tasks

  /// Starts `operation` as a tracked task. Returns nil when the runtime was invalidated.
  @discardableResult
  @usableFromInline
  func spawn(
    priority: TaskPriority?,
    ids: [CancelID],
    join: Join? = nil,
    operation: @escaping @Sendable () async -> Void
  ) -> Task<Void, Never>? {
    let id: UInt64? = locked { state in
      guard !state.invalidated else { return nil }
      state.nextID += 1
      let id = state.nextID
      let isChildEffect = ids.contains(where: \.isLifetime)
      state.entries[id] = Entry(ids: ids, isChildEffect: isChildEffect)
      if isChildEffect { _childEffectsInFlight.add(1, ordering: .relaxed) }
      for cancelID in ids { state.byCancelBase[cancelID.base, default: []].insert(id) }
      state.busy += 1
      return id
    }
    guard let id else { return nil }
    let dependencies = self.dependencies
    let body: @Sendable () async -> Void = { [self] in
      let unit = Unit(runtime: self, taskIdentity: Unit.currentTaskIdentity())
      await EffectRuntime.$currentUnit.withValue(unit) {
        // An effect sees its store's dependencies, never its sender's: bind them unless both
        // are the defaults.
        if dependencies.isDefault && DependencyValues._isAmbientDefault {
          await operation()
        } else {
          await DependencyValues._with(dependencies) { await operation() }
        }
      }
      if _heldAnswerCount.load(ordering: .relaxed) > 0 {
        unit.settleHeldAnswers(delivered: !Task.isCancelled)
      }
      self.finished(id, join: join)
    }
    // Effects start at once on the sending thread and run there until their first suspension
    // (no thread hop for an effect that sends right away); then they continue on the pool, or
    // on the host thread whose answer resumed them (`_EffectExecutor`).
    let task: Task<Void, Never>
    if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
      task = Task.immediate(priority: priority, executorPreference: _EffectExecutor.shared, operation: body)
    } else {
      task = Task(executorPreference: _EffectExecutor.shared, priority: priority, operation: body)
    }
    let cancelNow: Bool = locked { state in
      // One lookup (each costs a hash of the id).
      guard let index = state.entries.index(forKey: id) else { return false }  // already finished
      state.entries.values[index].task = task
      return state.entries.values[index].cancelled
    }
    if cancelNow { task.cancel() }
    return task
  }

  private func finished(_ id: UInt64, join: Join?) {
    let resumed: [UnsafeContinuation<Bool, Never>] = locked { state in
      if let entry = state.entries.removeValue(forKey: id) {
        if entry.isChildEffect { _childEffectsInFlight.subtract(1, ordering: .relaxed) }
        for cancelID in entry.ids {
          state.byCancelBase[cancelID.base]?.remove(id)
          if state.byCancelBase[cancelID.base]?.isEmpty == true {
            state.byCancelBase[cancelID.base] = nil
          }
        }
      }
      if let join {
        join.remaining -= 1
        // The last child hands its unit to a waiting parent, which resumes now: no gap where
        // the runtime would look idle while the parent is about to run.
        if join.remaining > 0 || !join.parentWaiting { state.busy -= 1 }
      } else {
        state.busy -= 1
      }
      state.progress &+= 1
      return Self.collectWaiters(&state)
    }
    condition.broadcast()
    for continuation in resumed { continuation.resume(returning: true) }
  }

  private static func collectWaiters(_ state: inout State) -> [UnsafeContinuation<Bool, Never>] {
    var resumed: [UnsafeContinuation<Bool, Never>] = []
    if state.busy == 0, !state.idleWaiters.isEmpty {
      resumed += state.idleWaiters.values
      state.idleWaiters.removeAll()
    }
    if state.entries.isEmpty, !state.finishWaiters.isEmpty {
      resumed += state.finishWaiters.values
      state.finishWaiters.removeAll()
    }
    return resumed
  }

  /// Runs `children` as tracked tasks and waits for all of them. The calling task's unit is
  /// handed to the children while it waits, and back when the last one finishes.
  func awaitChildren(
    _ children: [(ids: [CancelID], priority: TaskPriority?, operation: @Sendable () async -> Void)]
  ) async {
    guard !children.isEmpty else { return }
    let join = Join(children.count)
    var tasks: [Task<Void, Never>] = []
    for child in children {
      if let task = spawn(priority: child.priority, ids: child.ids, join: join, operation: child.operation) {
        tasks.append(task)
      } else {
        locked { _ in join.remaining -= 1 }
      }
    }
    let waitsOnChildren: Bool = locked { state in
      if join.remaining > 0 {
        join.parentWaiting = true
        state.busy -= 1
        return true
      }
      return false
    }
    guard waitsOnChildren else { return }
    let resumed = locked { Self.collectWaiters(&$0) }
    condition.broadcast()
    for continuation in resumed { continuation.resume(returning: true) }
    let children = tasks
    await withTaskCancellationHandler {
      for task in children { await task.value }
    } onCancel: {
      for task in children { task.cancel() }
    }
  }

  // MARK: Cancellation

  /// Cancels every running effect marked with an id that one of `ids` covers (the same id
  /// declared in the same child scope or in one of its children).
  @usableFromInline
  func cancel(_ ids: [CancelID]) {
    let tasks: [Task<Void, Never>] = locked { state in
      var tasks: [Task<Void, Never>] = []
      for cancelID in ids {
        for id in state.byCancelBase[cancelID.base] ?? []
        where state.entries[id]?.ids.contains(where: cancelID.covers) == true {
          if let task = state.entries[id]?.task { tasks.append(task) }
          // Read when the task is attached (cancel it then) and by `uncancelledCount`.
          state.entries[id]?.cancelled = true
        }
      }
      return tasks
    }
    // Cancel outside the lock: cancellation handlers (a test clock's sleep) call back in.
    for task in tasks { task.cancel() }
  }

  /// Cancels every effect and refuses new ones. Used when the store goes away.
  func invalidate() {
    let tasks: [Task<Void, Never>] = locked { state in
      state.invalidated = true
      return state.entries.values.compactMap { entry in entry.task }
    }
    for task in tasks { task.cancel() }
  }

  func cancelAll() {
    let tasks: [Task<Void, Never>] = locked { state in
      state.entries.values.compactMap { entry in entry.task }
    }
    for task in tasks { task.cancel() }
  }

  // MARK: Activity (for test clocks and hosts)

  /// Called by a test clock when a tracked task goes to sleep on it.
  func unitWillSleep() {
    let resumed = locked { state -> [UnsafeContinuation<Bool, Never>] in
      state.busy -= 1
      state.progress &+= 1
      return Self.collectWaiters(&state)
    }
    condition.broadcast()
    for continuation in resumed { continuation.resume(returning: true) }
  }

  /// Called by a test clock right before it resumes a tracked task that slept on it.
  func unitWillWake() {
    locked { $0.busy += 1 }
  }

  /// Whether no tracked task is running (each has finished or sleeps on a test clock).
  var isIdle: Bool { locked { $0.busy == 0 } }

  /// How many effect tasks have not finished (sleeping ones included).
  var inFlightCount: Int { locked { $0.entries.count } }

  /// How many effects have not finished and were not cancelled by id (a cancelled effect may
  /// take a moment to wind down; for a test it is over, as in TCA).
  var uncancelledCount: Int { locked { state in state.entries.values.count { !$0.cancelled } } }

  /// Blocks the calling thread until ``isIdle`` or the timeout. Negative waits forever.
  func waitUntilIdle(timeoutNanoseconds: Int64) -> Bool {
    condition.wait(timeoutNanoseconds: timeoutNanoseconds) { state.busy == 0 }
  }

  /// Blocks the calling thread until ``isIdle``, however long that takes while effects make
  /// progress; gives up (returns false) only when no tracked task stopped running for
  /// `stallNanoseconds` — an effect stuck on something that is not coming, not a slow
  /// machine. No wall-clock budget: on a loaded machine, or under valgrind, it waits longer.
  func waitUntilSettled(stallNanoseconds: Int64) -> Bool {
    while true {
      let seen: UInt64? = locked { $0.busy == 0 ? nil : $0.progress }
      guard let seen else { return true }
      let moved = condition.wait(timeoutNanoseconds: stallNanoseconds) {
        state.busy == 0 || state.progress != seen
      }
      if !moved { return false }
    }
  }

  /// Suspends until ``isIdle``, or `timeout` passes on the continuous clock (nil: no limit).
  func idle(timeout: Duration?) async -> Bool {
    await wait(timeout: timeout, idle: true)
  }

  /// Suspends until every effect finished, or `timeout` passes (nil: no limit).
  func finished(timeout: Duration?) async -> Bool {
    await wait(timeout: timeout, idle: false)
  }

  private func wait(timeout: Duration?, idle: Bool) async -> Bool {
    var waiterID: UInt64 = 0
    let result = await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
      let done: Bool = locked { state in
        if idle ? state.busy == 0 : state.entries.isEmpty { return true }
        state.nextWaiter += 1
        waiterID = state.nextWaiter
        if idle {
          state.idleWaiters[waiterID] = continuation
        } else {
          state.finishWaiters[waiterID] = continuation
        }
        return false
      }
      if done {
        continuation.resume(returning: true)
        return
      }
      if let timeout {
        let id = waiterID
        Task { [self] in
          try? await Task.sleep(for: timeout)
          let waiter = locked { state in
            idle ? state.idleWaiters.removeValue(forKey: id) : state.finishWaiters.removeValue(forKey: id)
          }
          waiter?.resume(returning: false)
        }
      }
    }
    return result
  }

  // MARK: Throttling state

  func throttleState<T: AnyObject>(for id: CancelID, make: () -> T) -> T {
    locked { state in
      if let existing = state.throttles[id] as? T { return existing }
      let made = make()
      state.throttles[id] = made
      return made
    }
  }

  // MARK: Errors

  /// Reports an effect's unhandled error to the current store, or to standard error.
  @usableFromInline
  static func report(_ error: EffectError) {
    if let runtime = current {
      runtime.reportError(error)
    } else {
      _writeToStandardError("ReducerKit: \(error)")
    }
  }
}

extension EffectRuntime {
  /// Runs `effect` to completion inside the current effect task.
  @usableFromInline
  static func runNested<Action: Sendable>(_ effect: Effect<Action>, send: Send<Action>) async {
    switch effect.operation {
    case .none:
      return
    case let .send(action):
      await send(action)
    case let .run(run):
      guard let priority = run.priority, let runtime = current else {
        await run.operation(send)
        return
      }
      // A child with its own priority runs in its own task at that priority.
      await runtime.awaitChildren(
        [(ids: [], priority: priority, operation: { await run.operation(send) })])
    case let .concatenate(effects):
      for effect in effects { await runNested(effect, send: send) }
    case let .merge(effects):
      guard let runtime = current else {
        await withTaskGroup(of: Void.self) { group in
          for effect in effects {
            group.addTask { await runNested(effect, send: send) }
          }
        }
        return
      }
      await runtime.awaitChildren(
        effects.map { effect in
          (ids: [], priority: nil, operation: { await runNested(effect, send: send) })
        })
    case let .cancellable(id, cancelInFlight, inner):
      guard let runtime = current else {
        await runNested(inner, send: send)
        return
      }
      if cancelInFlight { runtime.cancel([id]) }
      await runtime.awaitChildren(
        [(ids: [id], priority: nil, operation: { await runNested(inner, send: send) })])
    case let .cancel(ids):
      current?.cancel(ids)
    }
  }
}

