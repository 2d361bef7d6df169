#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif

/// The executor every effect task prefers: it hands its jobs to Swift's global pool, except
/// on a thread inside ``_EffectDrain/run(_:)``, which runs them itself right after. A host
/// thread answering a request (`rk_store_resolve`) thus continues the waiting effect — its
/// next action reduced, its next request made — before the call returns, with no hop to a
/// pool thread and back.
final class _EffectExecutor: TaskExecutor, @unchecked Sendable {
  // Safe: stateless; the drain state is per thread.
  static let shared = _EffectExecutor()

  func enqueue(_ job: consuming ExecutorJob) {
    if let drain = _EffectDrain.active, drain.accept() {
      drain.jobs.append(UnownedJob(job))
      return
    }
    globalConcurrentExecutor.enqueue(job)
  }
}

/// Runs, on the calling thread, the effect jobs that a piece of host code makes ready.
@_spi(Host)
public final class _EffectDrain {
  /// At most this many jobs run inline per drain; later ones go to the pool. An effect that
  /// yields in a loop (`Task.yield()`) would otherwise keep the host's call from returning.
  static let limit = 32

  /// Jobs queued during the drain, in order; `next` is the first not yet run.
  // `@exclusivity(unchecked)`: a drain is used by its own thread only, never re-entrantly
  // (a nested `run` only calls its body; `enqueue` appends between jobs).
  @exclusivity(unchecked) var jobs: [UnownedJob] = []
  @exclusivity(unchecked) var next = 0
  /// Whether a drain is running on this thread (the object is kept per thread).
  @exclusivity(unchecked) var running = false

  static let key: pthread_key_t = {
    var key = pthread_key_t()
    let err = pthread_key_create(&key) { raw in
      #if canImport(Darwin)
        Unmanaged<_EffectDrain>.fromOpaque(raw).release()
      #else
        if let raw { Unmanaged<_EffectDrain>.fromOpaque(raw).release() }
      #endif
    }
    precondition(err == 0, "pthread_key_create failed: \(err)")
    return key
  }()

  /// This thread's drain while it runs one.
  static var active: _EffectDrain? {
    guard let raw = pthread_getspecific(key) else { return nil }
    let drain = Unmanaged<_EffectDrain>.fromOpaque(raw).takeUnretainedValue()
    return drain.running ? drain : nil
  }

  /// Whether one more job may run inline.
  func accept() -> Bool { jobs.count < Self.limit }

  /// Calls `body` (which resumes effects, e.g. a continuation), then runs on this thread the
  /// effect jobs it made ready, and those they make ready in turn (up to ``limit``), before
  /// returning. Inside another drain on this thread it only calls `body`: the outer drain
  /// runs the jobs. The caller must not hold a lock the effects may take, nor run on a Swift
  /// task (the jobs would run inside it).
  public static func run(_ body: () -> Void) {
    let drain: _EffectDrain
    if let raw = pthread_getspecific(key) {
      drain = Unmanaged<_EffectDrain>.fromOpaque(raw).takeUnretainedValue()
      if drain.running {
        body()
        return
      }
    } else {
      drain = _EffectDrain()
      drain.jobs.reserveCapacity(4)
      _ = pthread_setspecific(key, Unmanaged.passRetained(drain).toOpaque())
    }
    drain.running = true
    body()
    let executor = _EffectExecutor.shared.asUnownedTaskExecutor()
    while drain.next < drain.jobs.count {
      let job = drain.jobs[drain.next]
      drain.next += 1
      job.runSynchronously(on: executor)
    }
    drain.running = false
    drain.jobs.removeAll(keepingCapacity: true)
    drain.next = 0
  }
}
