#ifndef CREDUCERKIT_SHIMS_H
#define CREDUCERKIT_SHIMS_H

#include <stdint.h>

/* Internal helpers for ReducerKitFFI and ReducerKitWire. Not part of the public C API
   (include/reducerkit.h). */

/* Looks `name` up in the shared object that contains this function (works when that object
   was loaded RTLD_LOCAL, as Python's ctypes does), then in the global scope. NULL if absent. */
void *rk_shim_find_symbol(const char *name);

/* The lowest usable address of the calling thread's stack (above its guard pages), or 0 when
   unknown. Stacks grow down. */
uintptr_t rk_shim_stack_lower_bound(void);

#endif
