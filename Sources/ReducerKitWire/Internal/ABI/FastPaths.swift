#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif

/// Whether the codec's layout-dependent fast paths are on. They change speed, never output:
///   - keyed container boxes kept and handed out again (`_canReuseKeyedBoxes`,
///     `_canReuseKeyedDecodingBoxes`: they check the standard library's private box class);
///   - pre-escaped key bytes cached by a key enum's metadata address and case tag
///     (`_KeyCache`: it reads a payload-less enum's tag from its bytes).
/// `REDUCERKIT_WIRE_FAST_PATHS=0` in the environment turns them off (read once, at the first
/// encode or decode), so the plain paths run: `make test` runs the Wire tests both ways.
let _wireFastPaths: Bool = {
  guard let value = getenv("REDUCERKIT_WIRE_FAST_PATHS") else { return true }
  return String(cString: value) != "0"
}()
