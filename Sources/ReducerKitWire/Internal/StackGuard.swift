// A stack-depth guard for decoding recursive types. Parsing is iterative, but `init(from:)`
// recurses once per nesting level of the *type*: a recursive type (a tree) given input nested
// hundreds of levels deep could exhaust a small thread stack. Past a nesting depth the
// decoder checks the room left on the calling thread's stack and fails with `.tooDeep`
// before it runs out.

import CReducerKitShims

/// Below this path depth the decoder never checks the stack (no cost for ordinary data).
let _stackCheckDepth = 8

/// The stack the decoder keeps free for what runs after a check: the next level, building
/// error messages (which may instantiate Swift runtime metadata, tens of KB the first time),
/// and the caller's own work after decoding.
let _stackReserve: UInt = 32 * 1024

/// The lowest usable address of the calling thread's stack (stacks grow down), or 0 when
/// it cannot be known. Costs a system call or two: called once per decode, only for deep
/// input.
func _stackLowerBound() -> UInt {
  UInt(rk_shim_stack_lower_bound())
}

/// An address in the caller's stack frame.
@inline(never)
func _currentStackAddress() -> UInt {
  var marker: UInt8 = 0
  return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
}
