// A stack-depth guard for decoding recursive types. Parsing is iterative, but `init(from:)`
// recurses once per nesting level of the *type*: a recursive type (a tree) given input nested
// hundreds of levels deep could exhaust a small thread stack. Past a nesting depth the
// decoder checks the room left on the calling thread's stack and fails with `.tooDeep`
// before it runs out.

import CReducerKitShims

/// Below this path depth the decoder never checks the stack (no cost for a flat action).
/// Low, because the check only keeps `_stackReserve` free if it runs before the stack is
/// spent: a debug build uses ~3.4 KB of stack per level, so the first eight levels alone
/// took half of a 64 KB thread stack before the check first ran.
let _stackCheckDepth = 2

/// The stack the decoder keeps free for what runs after a check: the next level, building
/// error messages (which may instantiate Swift runtime metadata, tens of KB the first time),
/// and the caller's own work after decoding.
let _stackReserve: UInt = 32 * 1024

/// The lowest usable address of the calling thread's stack (stacks grow down), or 0 when
/// it cannot be known. Read once per thread (the shim caches it); called once per decode
/// that reaches `_stackCheckDepth`.
func _stackLowerBound() -> UInt {
  UInt(rk_shim_stack_lower_bound())
}

/// An address in the caller's stack frame.
@inline(never)
func _currentStackAddress() -> UInt {
  var marker: UInt8 = 0
  return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
}
