#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Tests wait on conditions; a cap on a wait only turns a real hang into a failure, so it is
// generous and scaled, never a measure of speed. The same variable and rule as the C tests
// (`rk_t_timeout_scale()` in Tests/c/rk_test.h) and the Python tests (conftest.py), for every
// Swift test target.

/// How much longer than on a quiet machine the caps of waits may be: the number in
/// `REDUCERKIT_TEST_TIMEOUT_SCALE` (default 1; from 1 to 1000, e.g. 5 on a machine running
/// other builds), times 20 under valgrind (`RK_UNDER_VALGRIND`).
package let timeoutScale: Double = {
  var scale = 1.0
  if let text = getenv("REDUCERKIT_TEST_TIMEOUT_SCALE"), let value = Double(String(cString: text)),
    value >= 1, value <= 1000
  {
    scale = value
  }
  if let text = getenv("RK_UNDER_VALGRIND"), String(cString: text) != "", String(cString: text) != "0" {
    scale *= 20
  }
  return scale
}()

/// The cap of a wait that should end: `duration` on a quiet machine, times ``timeoutScale``.
package func cap(_ duration: Duration) -> Duration { duration * timeoutScale }
