#ifndef CREDUCERKIT_SHIMS_H
#define CREDUCERKIT_SHIMS_H

#include <stddef.h>
#include <stdint.h>

/* Internal helpers for ReducerKitFFI and ReducerKitWire. Not part of the public C API
   (include/reducerkit.h). */

/* Looks `name` up in the shared object that contains this function (works when that object
   was loaded RTLD_LOCAL, as Python's ctypes does), then in the global scope. NULL if absent. */
void *rk_shim_find_symbol(const char *name);

/* The lowest usable address of the calling thread's stack (above its guard pages), or 0 when
   unknown. Stacks grow down. Read once per thread, then cached. */
uintptr_t rk_shim_stack_lower_bound(void);

/* How many times this process is a fork() child of a process that had loaded the library:
   0 in the original process. The first call installs the pthread_atfork handler that counts;
   rk_store_create calls it, so every store records the generation it was created in. */
uint64_t rk_shim_fork_generation(void);
/* The same count without installing the handler (no pthread_once): for a caller that knows
   rk_shim_fork_generation() has been called in this process (the C ABI's handle lookup: every
   live handle was made by a create that called it first). */
uint64_t rk_shim_fork_generation_installed(void);

/* Makes a pipe whose two ends are close-on-exec and non-blocking (atomically where the
   system can: pipe2). Returns 0, or -1 with errno set. */
int rk_shim_pipe(int fds[2]);

/* A notifier: a descriptor that is readable once signalled and until drained. On Linux an
   eventfd (one descriptor: fds[0] == fds[1]; a signal and a drain are one system call each),
   else (or when the system refuses an eventfd) a pipe (rk_shim_pipe: read end fds[0], write
   end fds[1]). Close-on-exec and non-blocking. Returns 0, or -1 with errno set. */
int rk_shim_notifier_open(int fds[2]);
/* Makes the notifier readable. Returns 0, or -1 (errno set; a full pipe is readable already). */
int rk_shim_notifier_signal(const int fds[2]);
/* Makes the notifier not readable (reads what signals left). */
void rk_shim_notifier_drain(const int fds[2]);
/* Closes the notifier's descriptors (one for an eventfd, two for a pipe). */
void rk_shim_notifier_close(const int fds[2]);

/* Array elements compared as bytes (the first `size` bytes of each `stride`-byte element,
   without the padding after them): how many elements of `a` and `b`, from index `from`
   upwards (`step` 1) or downwards from `from` (`step` -1), are the same, stopping at the
   first that differs or after `limit` elements. For the patch differ's common prefix and
   suffix (elements whose bytes differ are then compared with `==`). */
size_t rk_shim_same_elements(const void *a, const void *b, size_t from_a, size_t from_b, int step,
                             size_t limit, size_t size, size_t stride);

/* A process-wide, lock-free cache of one small answer (1..7) per Swift type, by the type's
   metadata address (its identity, as ObjectIdentifier gives it): what the wire codec asks of a
   type before reading it (ReducerKitWire's `_typeFacts`). 0: not cached. A put may be dropped
   (the table is full near the type's slot); a get then answers 0 again. */
void rk_shim_type_facts_put(const void *type, uint8_t facts);

/* The table (shims.c) and the lookup, inline: the codec asks on hot paths. */
#define RK_FACT_SLOTS 4096u
#define RK_FACT_PROBES 32u
extern uintptr_t rk_shim_type_facts_table[RK_FACT_SLOTS];

static inline size_t rk_shim_type_facts_slot(uintptr_t key) {
    return (size_t)(((uint64_t)(key >> 3) * 0x9E3779B97F4A7C15ull) >> 52) & (RK_FACT_SLOTS - 1);
}

static inline uint8_t rk_shim_type_facts_get(const void *type) {
    uintptr_t key = (uintptr_t)type;
    size_t slot = rk_shim_type_facts_slot(key);
    for (unsigned n = 0; n < RK_FACT_PROBES; n++, slot = (slot + 1) & (RK_FACT_SLOTS - 1)) {
        uintptr_t word = __atomic_load_n(&rk_shim_type_facts_table[slot], __ATOMIC_ACQUIRE);
        if (word == 0) return 0;
        if ((word & ~(uintptr_t)7) == key) return (uint8_t)(word & 7);
    }
    return 0;
}

#endif
