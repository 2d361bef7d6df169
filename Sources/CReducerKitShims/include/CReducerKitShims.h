#ifndef CREDUCERKIT_SHIMS_H
#define CREDUCERKIT_SHIMS_H

/* Internal helpers for ReducerKitFFI. Not part of the public C API (include/reducerkit.h). */

/* Looks `name` up in the shared object that contains this function (works when that object
   was loaded RTLD_LOCAL, as Python's ctypes does), then in the global scope. NULL if absent. */
void *rk_shim_find_symbol(const char *name);

#endif
