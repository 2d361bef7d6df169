#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import CReducerKitShims
@_spi(Host) import ReducerKit
import ReducerKitWire
import Synchronization
import ReducerKitPlatform

/// The C callback type of `rk_store_on_request` (`rk_request_callback`).
/// Where request events go when the host asked for a callback: the event (NUL-terminated) and
/// its length without the NUL.
@usableFromInline package typealias RequestSink = @Sendable (UnsafePointer<CChar>, Int) -> Void

/// An endpoint's name, and the part of its request events that follows the id, encoded once.
@usableFromInline
package final class EndpointName: Sendable {
  @usableFromInline package let name: String
  /// `,"name":"numberFact","payload":`
  let eventPrefix: [UInt8]

  @usableFromInline package init(_ name: String) {
    self.name = name
    var prefix = Array(",\"name\":".utf8)
    prefix.append(contentsOf: JSONValue.string(name).serializedBytes())
    prefix.append(contentsOf: ",\"payload\":".utf8)
    self.eventPrefix = prefix
  }
}

/// One call of a provided endpoint, waiting for the host's answer.
final class PendingRequest: @unchecked Sendable {
  // Safe: `continuation` and `result` are read and written only under the monitor of the
  // `HostRequests` that made this request; the `let`s are immutable.
  let id: UInt64
  let name: String
  /// Decodes a response of the endpoint's type (a pure function of the bytes).
  let decode: @Sendable (UnsafeRawBufferPointer) throws(WireError) -> any Sendable
  let wait: _EffectWait
  /// Set once the effect suspended; taken by whoever ends the request.
  @exclusivity(unchecked) var continuation: UnsafeContinuation<any Sendable, any Error>?
  /// The outcome, when the request ended before the effect suspended.
  @exclusivity(unchecked) var result: Result<any Sendable, any Error>?

  init(
    id: UInt64, name: String, wait: _EffectWait,
    decode: @escaping @Sendable (UnsafeRawBufferPointer) throws(WireError) -> any Sendable
  ) {
    self.id = id
    self.name = name
    self.wait = wait
    self.decode = decode
  }
}

/// What became of each request id: 2 bits per id ever issued (64 KB per million requests),
/// so that answering an old id can say whether it was answered or cancelled.
struct RequestOutcomes {
  enum Outcome: UInt8 {
    case pending = 0
    case answered = 1
    case cancelled = 2
  }

  private var bits: [UInt8] = []
  private(set) var count: UInt64 = 0

  mutating func append() {
    if count % 4 == 0 { bits.append(0) }
    count += 1
  }

  /// The outcome of request `id` (1-based; `id <= count`).
  subscript(id: UInt64) -> Outcome {
    get {
      let index = id - 1
      return Outcome(rawValue: (bits[Int(index / 4)] >> ((index % 4) * 2)) & 3) ?? .pending
    }
    set {
      let index = id - 1
      let shift = (index % 4) * 2
      bits[Int(index / 4)] = (bits[Int(index / 4)] & ~(3 << shift)) | (newValue.rawValue << shift)
    }
  }
}

/// The host side of a store's provided endpoints: the requests waiting for an answer, the
/// queue of request events (and the pipe that signals it), or the host's callback.
///
/// Ordering: a request's event is queued (or handed to the callback) before the effect
/// suspends, and its cancellation can only be produced after that (by the cancellation
/// handler the effect installs once the request is announced, or by `close`, which first
/// waits for callbacks in flight): so a host always sees a request before its cancellation.
@usableFromInline
package final class HostRequests: @unchecked Sendable {
  // Safe: every `var` below is read and written only while holding `monitor`.
  // `@exclusivity(unchecked)` on them: accesses under the monitor never overlap, and the
  // dynamic checks cost ~1,500 instructions per host round trip.
  /// Made on first use: a store whose effects never call the host pays nothing for it.
  private let lazyMonitor = LazyReference<Condition>()
  private var monitor: Condition { lazyMonitor.load() ?? lazyMonitor.storeIfNil(Condition()) }
  @exclusivity(unchecked) private var pending: [UInt64: PendingRequest] = [:]
  @exclusivity(unchecked) private var outcomes = RequestOutcomes()
  /// Queued events, oldest first.
  @exclusivity(unchecked) private var queue: [[UInt8]] = []
  @exclusivity(unchecked) private var callback: (sink: RequestSink, generation: UInt64)?
  @exclusivity(unchecked) private var generation: UInt64 = 0
  /// Events go to the queue while a new callback drains it (keeps their order).
  @exclusivity(unchecked) private var flushing = false
  /// No new requests (the store is being destroyed).
  @exclusivity(unchecked) private var closed = false
  /// No event is delivered any more.
  @exclusivity(unchecked) private var finished = false
  /// Callbacks running now: (thread, generation of the callback they run), by a token.
  @exclusivity(unchecked) private var inFlight: [UInt64: (thread: UInt, generation: UInt64)] = [:]
  @exclusivity(unchecked) private var nextToken: UInt64 = 0
  @exclusivity(unchecked) private var waiters = 0
  /// What `rk_store_request_fd` hands out: an eventfd (Linux; `read == write`), else a pipe.
  @exclusivity(unchecked) private var pipe: (read: Int32, write: Int32)?
  @exclusivity(unchecked) private var signalled = false
  /// The session recorder of a store created with `"record": true`: told of each event as it
  /// is emitted and of each answer (see `Recording.swift`).
  let recorder: SessionRecorder?

  @usableFromInline package init(recorder: SessionRecorder? = nil) { self.recorder = recorder }

  deinit {
    if let pipe { Self.closeNotifier(pipe) }
  }

  // MARK: The effect's side

  /// Sends a call of `endpoint` to the host and waits for its answer. Inlinable, so the
  /// payload's encoding and the response's decoding are specialized for their types.
  @inlinable
  package func call<Payload: Encodable, Response: Decodable & Sendable>(
    _ endpoint: EndpointName, _ payload: Payload, _ response: Response.Type
  ) async throws -> Response {
    let payloadJSON: [UInt8]
    do {
      payloadJSON = try WireEncoder(explicitNulls: true).encode(payload)
    } catch {
      throw HostEndpointError(endpoint: endpoint.name, message: "could not encode the payload: \(error.message)")
    }
    let value = try await request(endpoint, payloadJSON) { bytes throws(WireError) in
      try WireDecoder(rootNoun: "response").decode(Response.self, from: bytes)
    }
    guard let typed = value as? Response else {
      throw HostEndpointError(endpoint: endpoint.name, message: "internal error: a response of another type")
    }
    return typed
  }

  /// The untyped part of `call`: registers the request, announces it, and waits.
  @usableFromInline
  package func request(
    _ endpoint: EndpointName, _ payloadJSON: [UInt8],
    decode: @escaping @Sendable (UnsafeRawBufferPointer) throws(WireError) -> any Sendable
  ) async throws -> any Sendable {
    try Task.checkCancellation()
    let wait = _EffectWait.current()
    monitor.lock()
    guard !closed else {
      monitor.unlock()
      throw CancellationError()
    }
    outcomes.append()
    let id = outcomes.count
    let entry = PendingRequest(id: id, name: endpoint.name, wait: wait, decode: decode)
    pending[id] = entry
    let target = prepareEmit(Self.requestEvent(id: id, endpoint: endpoint, payload: payloadJSON))
    monitor.unlock()
    if let target { deliver(target) }

    // Answered inside the callback: go on without suspending (the fastest round trip).
    monitor.lock()
    let early = entry.result
    monitor.unlock()
    if let early {
      let value = try early.get()
      holdAnswer(id, wait)
      return value
    }
    let value = try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<any Sendable, any Error>) in
        monitor.lock()
        if let result = entry.result {
          monitor.unlock()
          continuation.resume(with: result)
          return
        }
        entry.continuation = continuation
        monitor.unlock()
        // After registering: a host that sees the store idle also sees this request.
        wait.willSuspend()
      }
    } onCancel: {
      self.cancel(id)
    }
    holdAnswer(id, wait)
    return value
  }

  /// An accepted answer is used by the effect's next action; if the effect is cancelled before
  /// it sends one (the action is dropped, as in TCA), the host hears of it as a cancellation
  /// of the request, so that no accepted answer is lost without a word.
  private func holdAnswer(_ id: UInt64, _ wait: _EffectWait) {
    wait.holdAnswer { [weak self] in
      guard let self else { return }
      self.monitor.lock()
      let target = self.prepareEmit(Self.cancelEvent(id: id))
      self.monitor.unlock()
      if let target { self.deliver(target) }
    }
  }

  /// The effect waiting for request `id` was cancelled: the host hears of it.
  private func cancel(_ id: UInt64) {
    monitor.lock()
    guard let entry = pending.removeValue(forKey: id) else {
      monitor.unlock()
      return
    }
    outcomes[id] = .cancelled
    let continuation = entry.continuation
    entry.continuation = nil
    if continuation == nil { entry.result = .failure(CancellationError()) }
    let target = prepareEmit(Self.cancelEvent(id: id))
    monitor.unlock()
    if let target { deliver(target) }
    if let continuation {
      entry.wait.willResume()
      continuation.resume(throwing: CancellationError())
    }
  }

  // MARK: The host's side

  /// Answers request `id` with `bytes` (a JSON response of its endpoint). With `inline`, the
  /// effect that waited continues on this thread before this returns (see ``answer``).
  package func resolve(_ id: UInt64, _ bytes: UnsafeRawBufferPointer, inline: Bool = false) throws(HostError) {
    let step = recorder.flatMap { _ in SessionRecorder.resolveStep(id, bytes) }
    try answer(id, verb: "resolve", step: step, inline: inline) { entry throws(HostError) in
      do throws(WireError) {
        return .success(try entry.decode(bytes))
      } catch {
        throw HostError(error, otherwise: .response, context: "response to request \(id) (\(entry.name))")
      }
    }
  }

  /// Fails request `id`: the effect's call throws ``HostEndpointError`` with `message`.
  package func fail(_ id: UInt64, message: String, inline: Bool = false) throws(HostError) {
    let step = recorder.map { _ in SessionRecorder.failStep(id, message) }
    try answer(id, verb: "fail", step: step, inline: inline) { entry throws(HostError) in
      .failure(HostEndpointError(endpoint: entry.name, message: message))
    }
  }

  /// Ends request `id` with what `outcome` makes of its entry, unless another answer or a
  /// cancellation ended it first. The call takes effect at one moment, under the monitor:
  /// there it is accepted or refused, and there its step is recorded (`step`, nil when not
  /// recording), so a recording lists answers in the order they were accepted or refused and
  /// replays to the same outcomes. `outcome` (decoding the response) runs outside the monitor.
  /// With `inline` (the caller holds no lock of the store and is neither on a Swift task nor
  /// inside a host callback), the resumed effect runs on this thread until it suspends again
  /// or ends, before this returns: no hop to a pool thread (`_EffectDrain`).
  private func answer(
    _ id: UInt64, verb: String, step: [UInt8]?, inline: Bool,
    _ outcome: (PendingRequest) throws(HostError) -> Result<any Sendable, any Error>
  ) throws(HostError) {
    monitor.lock()
    guard let entry = pending[id] else {
      let error = notPending(id, verb: verb)
      if let step { recorder?.recordAnswer(step, error: error) }
      monitor.unlock()
      throw error
    }
    monitor.unlock()
    let result: Result<Result<any Sendable, any Error>, HostError>
    do {
      result = .success(try outcome(entry))
    } catch {
      result = .failure(error)
    }
    monitor.lock()
    guard pending[id] === entry else {
      // Answered or cancelled meanwhile: that came first.
      let error = notPending(id, verb: verb)
      if let step { recorder?.recordAnswer(step, error: error) }
      monitor.unlock()
      throw error
    }
    let accepted: Result<any Sendable, any Error>
    switch result {
    case let .failure(error):
      // A response of the wrong shape: the request stays pending.
      if let step { recorder?.recordAnswer(step, error: error) }
      monitor.unlock()
      throw error
    case let .success(value):
      accepted = value
    }
    pending[id] = nil
    outcomes[id] = .answered
    if let step { recorder?.recordAnswer(step, error: nil) }
    let continuation = entry.continuation
    entry.continuation = nil
    if continuation == nil { entry.result = accepted }
    monitor.unlock()
    if let continuation {
      entry.wait.willResume()
      if inline {
        _EffectDrain.run { continuation.resume(with: accepted) }
      } else {
        continuation.resume(with: accepted)
      }
    }
  }

  /// Why request `id` cannot be answered (called under the monitor).
  private func notPending(_ id: UInt64, verb: String) -> HostError {
    let function = "rk_store_\(verb)"
    guard id >= 1, id <= outcomes.count else {
      let made = outcomes.count == 0
        ? "this store has made no requests yet" : "this store's requests are 1 to \(outcomes.count)"
      return HostError(.invalidArgument, "\(function): unknown request id \(id): \(made)")
    }
    switch outcomes[id] {
    case .answered:
      return HostError(.invalidArgument, "\(function): request \(id) was already answered")
    case .cancelled:
      return HostError(
        .invalidArgument,
        "\(function): request \(id) was cancelled (its effect no longer waits for an answer)")
    case .pending:
      return HostError(.internal, "\(function): request \(id) is pending but has no entry")
    }
  }

  /// Sets (or, with nil, removes) the callback that gets the events instead of the queue.
  /// Queued events go to a new callback first, in order, on this thread.
  package func setCallback(_ sink: RequestSink?) {
    monitor.lock()
    generation += 1
    let current = generation
    var batch: [[UInt8]] = []
    if let sink {
      callback = (sink, current)
      if !queue.isEmpty, !flushing, !finished {
        flushing = true
        batch = takeQueue()
      }
    } else {
      callback = nil
    }
    // The previous callback does not run again once this returns.
    waitForCallbacks { $0.generation < current }
    monitor.unlock()
    guard !batch.isEmpty else { return }
    // Deliver what was queued, then what queued meanwhile, until the queue stays empty. If
    // the callback is removed meanwhile (by one of these events' own callback, say), what is
    // left goes back to the front of the queue, in order: every event reaches the host once,
    // by the callback or by the queue.
    while true {
      for index in batch.indices {
        monitor.lock()
        if finished {
          flushing = false
          monitor.unlock()
          return
        }
        guard let callback else {
          queue.insert(contentsOf: batch[index...], at: 0)
          flushing = false
          signal()
          monitor.unlock()
          return
        }
        let target = enterCallback(callback)
        monitor.unlock()
        deliver((target.0, batch[index], target.1))
      }
      monitor.lock()
      if !queue.isEmpty, !finished, callback != nil {
        batch = takeQueue()
        monitor.unlock()
      } else {
        flushing = false
        monitor.unlock()
        return
      }
    }
  }

  /// Whether the calling thread is inside a request callback of this store (the effect that
  /// made the request counts as running until the callback returns).
  @usableFromInline package var isCallingBackOnCurrentThread: Bool {
    let me = currentThreadID()
    monitor.lock()
    defer { monitor.unlock() }
    return inFlight.values.contains { $0.thread == me }
  }

  /// The queued events as a JSON array; clears the queue.
  package func take() -> [UInt8] {
    monitor.lock()
    defer { monitor.unlock() }
    let events = takeQueue()
    var bytes: [UInt8] = [UInt8(ascii: "[")]
    bytes.reserveCapacity(events.reduce(2) { $0 + $1.count + 1 })
    for (index, event) in events.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      bytes.append(contentsOf: event)
    }
    bytes.append(UInt8(ascii: "]"))
    return bytes
  }

  /// A descriptor that is readable while events are queued: an eventfd where the system has
  /// one (a signal and a drain are one system call each), else the read end of a pipe.
  package func fileDescriptor() throws(HostError) -> Int32 {
    monitor.lock()
    defer { monitor.unlock() }
    if let pipe { return pipe.read }
    guard !finished else { throw HostError(.invalidHandle, "the store was destroyed") }
    var fds: [Int32] = [-1, -1]
    let result = rk_shim_notifier_open(&fds)
    guard result == 0 else {
      throw HostError(.internal, "could not create the request pipe: errno \(errno)")
    }
    pipe = (fds[0], fds[1])
    if !queue.isEmpty { signal() }
    return fds[0]
  }

  /// The store is being destroyed (its effects were cancelled): no new requests; every
  /// request still pending is cancelled, its cancellation delivered to the callback before
  /// this returns; then no callback runs again, and the pipe is closed.
  @usableFromInline package func close() {
    monitor.lock()
    closed = true
    // A request being announced on another thread finishes first (its cancellation must
    // come after it).
    waitForCallbacks { _ in true }
    finished = true
    let swept = pending.values.sorted { $0.id < $1.id }
    pending.removeAll()
    for entry in swept { outcomes[entry.id] = .cancelled }
    let target = callback
    // Cancellations other threads started delivering before `finished` end first too.
    waitForCallbacks { _ in true }
    if let pipe {
      // A duplicate of the descriptor a host keeps (Python's event loop does) becomes
      // readable for good, as a pipe's read end does at end-of-file, so a reader wakes up.
      signalled = false
      signal()
      Self.closeNotifier(pipe)
      self.pipe = nil
    }
    queue = []
    monitor.unlock()
    for entry in swept {
      if let target {
        var event = Self.cancelEvent(id: entry.id)
        event.append(0)
        Self.call(target.sink, event)
      }
      monitor.lock()
      let continuation = entry.continuation
      entry.continuation = nil
      if continuation == nil { entry.result = .failure(CancellationError()) }
      monitor.unlock()
      if let continuation {
        entry.wait.willResume()
        continuation.resume(throwing: CancellationError())
      }
    }
  }

  // MARK: Events

  /// Where an event goes (called under the monitor): nil when it was queued or dropped,
  /// else the callback to call (after unlocking) through `deliver`.
  private func prepareEmit(_ event: [UInt8]) -> (RequestSink, [UInt8], UInt64)? {
    if finished { return nil }
    recorder?.hostEvent(event)
    if let callback, !flushing {
      let (sink, token) = enterCallback(callback)
      var terminated = event
      terminated.append(0)
      return (sink, terminated, token)
    }
    queue.append(event)
    if queue.count == 1 { signal() }
    return nil
  }

  private func enterCallback(
    _ callback: (sink: RequestSink, generation: UInt64)
  ) -> (RequestSink, UInt64) {
    nextToken += 1
    inFlight[nextToken] = (currentThreadID(), callback.generation)
    return (callback.sink, nextToken)
  }

  /// Calls the callback with a NUL-terminated event, then marks it finished.
  private func deliver(_ target: (RequestSink, [UInt8], UInt64)) {
    var event = target.1
    if event.last != 0 { event.append(0) }
    Self.call(target.0, event)
    monitor.lock()
    inFlight[target.2] = nil
    if waiters > 0 { monitor.broadcast() }
    monitor.unlock()
  }

  private static func call(_ sink: RequestSink, _ event: [UInt8]) {
    _HostCallbackScope.enter()
    event.withUnsafeBufferPointer { buffer in
      buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
        sink($0, buffer.count - 1)
      }
    }
    _HostCallbackScope.exit()
  }

  /// Waits (under the monitor) until no callback matching `matches` runs on another thread.
  /// Not from inside a callback: there, waiting could wait on a thread that waits on this one.
  private func waitForCallbacks(_ matches: ((thread: UInt, generation: UInt64)) -> Bool) {
    guard !_HostCallbackScope.isInside else { return }
    let me = currentThreadID()
    waiters += 1
    while inFlight.values.contains(where: { $0.thread != me && matches($0) }) { monitor.wait() }
    waiters -= 1
  }

  private func takeQueue() -> [[UInt8]] {
    defer {
      queue = []
      if signalled, let pipe {
        var fds: (Int32, Int32) = (pipe.read, pipe.write)
        withUnsafePointer(to: &fds) {
          $0.withMemoryRebound(to: Int32.self, capacity: 2) { rk_shim_notifier_drain($0) }
        }
        signalled = false
      }
    }
    return queue
  }

  private func signal() {
    guard let pipe, !signalled else { return }
    var fds: (Int32, Int32) = (pipe.read, pipe.write)
    let result = withUnsafePointer(to: &fds) {
      $0.withMemoryRebound(to: Int32.self, capacity: 2) { rk_shim_notifier_signal($0) }
    }
    if result == 0 { signalled = true }
  }

  private static func closeNotifier(_ notifier: (read: Int32, write: Int32)) {
    var fds: (Int32, Int32) = (notifier.read, notifier.write)
    withUnsafePointer(to: &fds) {
      $0.withMemoryRebound(to: Int32.self, capacity: 2) { rk_shim_notifier_close($0) }
    }
  }

  static func requestEvent(id: UInt64, endpoint: EndpointName, payload: [UInt8]) -> [UInt8] {
    var event: [UInt8] = []
    event.reserveCapacity(24 + endpoint.eventPrefix.count + payload.count)
    event.append(contentsOf: "{\"id\":".utf8)
    appendDecimal(id, to: &event)
    event.append(contentsOf: endpoint.eventPrefix)
    event.append(contentsOf: payload)
    event.append(UInt8(ascii: "}"))
    return event
  }

  static func cancelEvent(id: UInt64) -> [UInt8] {
    var event: [UInt8] = Array("{\"id\":".utf8)
    appendDecimal(id, to: &event)
    event.append(contentsOf: ",\"cancelled\":true}".utf8)
    return event
  }

  private static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
    var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                 UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
      (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var count = 0
    var rest = value
    withUnsafeMutableBytes(of: &digits) { buffer in
      repeat {
        buffer[19 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
        rest /= 10
        count += 1
      } while rest > 0
      bytes.append(contentsOf: buffer[(20 - count)...])
    }
  }
}

