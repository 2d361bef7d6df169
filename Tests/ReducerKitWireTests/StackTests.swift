#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import Testing
import ReducerKitWire

private final class Job {
  let body: () -> Void
  init(_ body: @escaping () -> Void) { self.body = body }
}

/// Runs `body` on a new thread with a stack of `size` bytes and returns its result.
func onThread<R>(stackSize size: Int, _ body: @escaping () -> R) -> R {
  var result: R?
  withUnsafeMutablePointer(to: &result) { slot in
    let job = Job { slot.pointee = body() }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, size)
    #if canImport(Glibc)
      var thread = pthread_t()
    #else
      var thread: pthread_t?
    #endif
    let started = pthread_create(&thread, &attributes, { argument in
      Unmanaged<Job>.fromOpaque(argument!).takeRetainedValue().body()
      return nil
    }, Unmanaged.passRetained(job).toOpaque())
    precondition(started == 0, "pthread_create failed")
    #if canImport(Glibc)
      pthread_join(thread, nil)
    #else
      pthread_join(thread!, nil)
    #endif
  }
  return result!
}

/// Recursive types are decoded by recursion (their `init(from:)` calls itself per level): the
/// decoder watches the thread's stack and fails cleanly instead of overflowing it.
@Suite struct StackTests {
  func tree(_ levels: Int) -> String {
    String(repeating: #"{"node":["#, count: levels) + #"{"leaf":1}"# + String(repeating: #",{"leaf":2}]}"#, count: levels)
  }

  func nodes(_ levels: Int) -> String {
    String(repeating: #"{"value":1,"children":["#, count: levels) + #"{"value":2,"children":[]}"#
      + String(repeating: "]}", count: levels)
  }

  func outcome<T: Decodable>(_ type: T.Type, _ text: String, stackSize: Int) -> String {
    onThread(stackSize: stackSize) {
      do throws(WireError) {
        _ = try WireDecoder().decode(T.self, from: text)
        return "ok"
      } catch {
        return error.kind == .tooDeep ? "tooDeep" : "other: \(error)"
      }
    }
  }

  @Test func deepRecursiveValuesOnASmallStackFailCleanly() {
    // 255 levels of each type are 511 levels of JSON, within the parser's limit.
    #expect(outcome(Tree.self, tree(255), stackSize: 64 * 1024) == "tooDeep")
    #expect(outcome(Node.self, nodes(255), stackSize: 64 * 1024) == "tooDeep")
    #expect(outcome(Tree.self, tree(5), stackSize: 256 * 1024) == "ok")
    // With a large stack the same values decode.
    #expect(outcome(Tree.self, tree(255), stackSize: 16 << 20) == "ok")
    #expect(outcome(Node.self, nodes(255), stackSize: 16 << 20) == "ok")
  }

  @Test func theGuardMessageNamesTheTypeAndPath() throws {
    let message = onThread(stackSize: 64 * 1024) { () -> String in
      do throws(WireError) {
        _ = try WireDecoder().decode(Node.self, from: nodes(255))
        return ""
      } catch {
        return error.description
      }
    }
    #expect(message.contains("values nested too deeply for the calling thread's stack at $.children[0].children[0]"))
    #expect(message.hasSuffix("decode on a thread with a larger stack"))
  }
}
