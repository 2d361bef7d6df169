#define _GNU_SOURCE
#include "CReducerKitShims.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

void *rk_shim_find_symbol(const char *name) {
    Dl_info info;
    if (dladdr((const void *)&rk_shim_find_symbol, &info) != 0 && info.dli_fname != NULL) {
        void *self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
        if (self != NULL) {
            void *found = dlsym(self, name);
            dlclose(self);
            if (found != NULL) return found;
        }
    }
    return dlsym(RTLD_DEFAULT, name);
}

static uintptr_t stack_lower_bound_uncached(void);

/* A thread's stack does not move: read it once per thread (pthread_getattr_np reads
 * /proc/self/maps for the main thread). 0 means not read yet; 1 means unknown. */
static __thread uintptr_t cached_stack_lower_bound;

uintptr_t rk_shim_stack_lower_bound(void) {
    uintptr_t bound = cached_stack_lower_bound;
    if (bound == 0) {
        bound = stack_lower_bound_uncached();
        cached_stack_lower_bound = bound == 0 ? 1 : bound;
    }
    return bound == 1 ? 0 : bound;
}

static uintptr_t stack_lower_bound_uncached(void) {
#if defined(__APPLE__)
    pthread_t self = pthread_self();
    uintptr_t top = (uintptr_t)pthread_get_stackaddr_np(self);
    size_t size = pthread_get_stacksize_np(self);
    return top > size ? top - size : 0;
#elif defined(__linux__)
    pthread_attr_t attr;
    void *address = NULL;
    size_t size = 0, guard = 0;
    uintptr_t bound = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
    if (pthread_attr_getstack(&attr, &address, &size) == 0 && address != NULL) {
        if (pthread_attr_getguardsize(&attr, &guard) != 0) guard = 0;
        bound = (uintptr_t)address + guard;
    }
    pthread_attr_destroy(&attr);
    return bound;
#else
    return 0;
#endif
}

/* ---- fork detection ------------------------------------------------------------------ */

#include <pthread.h>
#include <stdatomic.h>

static _Atomic uint64_t rk_fork_generation_value = 0;
static pthread_once_t rk_fork_handler_once = PTHREAD_ONCE_INIT;

static void rk_after_fork_in_child(void) {
    atomic_fetch_add_explicit(&rk_fork_generation_value, 1, memory_order_relaxed);
}

static void rk_install_fork_handler(void) {
    pthread_atfork(NULL, NULL, rk_after_fork_in_child);
}

uint64_t rk_shim_fork_generation(void) {
    pthread_once(&rk_fork_handler_once, rk_install_fork_handler);
    return atomic_load_explicit(&rk_fork_generation_value, memory_order_relaxed);
}

uint64_t rk_shim_fork_generation_installed(void) {
    return atomic_load_explicit(&rk_fork_generation_value, memory_order_relaxed);
}

#include <fcntl.h>
#include <unistd.h>

int rk_shim_pipe(int fds[2]) {
#if defined(__linux__)
    return pipe2(fds, O_CLOEXEC | O_NONBLOCK);
#else
    int i;
    if (pipe(fds) != 0) return -1;
    for (i = 0; i < 2; i++) {
        if (fcntl(fds[i], F_SETFD, FD_CLOEXEC) != 0 ||
            fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK) != 0) {
            close(fds[0]);
            close(fds[1]);
            return -1;
        }
    }
    return 0;
#endif
}

#if defined(__linux__)
#include <stdint.h>
#include <sys/eventfd.h>
#endif

int rk_shim_notifier_open(int fds[2]) {
#if defined(__linux__)
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd >= 0) {
        fds[0] = fd;
        fds[1] = fd;
        return 0;
    }
#endif
    return rk_shim_pipe(fds);
}

int rk_shim_notifier_signal(const int fds[2]) {
    if (fds[0] == fds[1]) {
#if defined(__linux__)
        uint64_t one = 1;
        return write(fds[1], &one, sizeof one) == (ssize_t)sizeof one ? 0 : -1;
#endif
    }
    {
        unsigned char byte = 1;
        return write(fds[1], &byte, 1) == 1 ? 0 : -1;
    }
}

void rk_shim_notifier_drain(const int fds[2]) {
    if (fds[0] == fds[1]) {
#if defined(__linux__)
        uint64_t count;
        (void)!read(fds[0], &count, sizeof count);
        return;
#endif
    }
    {
        unsigned char bytes[16];
        while (read(fds[0], bytes, sizeof bytes) > 0) {
        }
    }
}

void rk_shim_notifier_close(const int fds[2]) {
    close(fds[0]);
    if (fds[1] != fds[0]) close(fds[1]);
}

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* How many elements from pa/pb onwards (delta bytes apart) are the same, for `words` whole
   words plus the tail; inlined with a constant `words` so the word loop unrolls. */
static inline __attribute__((always_inline)) size_t same_run(
    const unsigned char *pa, const unsigned char *pb, ptrdiff_t delta, size_t limit, size_t words,
    size_t size, int masked, uint64_t mask) {
    size_t n, i;
    for (n = 0; n < limit; n++, pa += delta, pb += delta) {
        uint64_t diff = 0, x, y;
        for (i = 0; i < words; i++) {
            memcpy(&x, pa + i * 8, 8);
            memcpy(&y, pb + i * 8, 8);
            diff |= x ^ y;
        }
        if (masked) {
            memcpy(&x, pa + words * 8, 8);
            memcpy(&y, pb + words * 8, 8);
            diff |= (x ^ y) & mask;
        } else {
            for (i = words * 8; i < size; i++) diff |= (uint64_t)(pa[i] ^ pb[i]);
        }
        if (diff) break;
    }
    return n;
}

size_t rk_shim_same_elements(const void *a, const void *b, size_t from_a, size_t from_b, int step,
                             size_t limit, size_t size, size_t stride) {
    const unsigned char *pa = (const unsigned char *)a + from_a * stride;
    const unsigned char *pb = (const unsigned char *)b + from_b * stride;
    ptrdiff_t delta = step < 0 ? -(ptrdiff_t)stride : (ptrdiff_t)stride;
    size_t words = size / 8, tail = size % 8;
    /* The last partial word is read whole and masked when the element's stride has room for
       it (little-endian: the element's bytes are the word's low bytes), else byte by byte. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    int masked = tail != 0 && words * 8 + 8 <= stride;
#else
    int masked = 0;
#endif
    uint64_t mask = tail ? (((uint64_t)1 << (tail * 8)) - 1) : 0;
#if defined(__SSE2__)
    /* Elements of up to 32 bytes with room for whole 16-byte reads (one or two): compared
       16 bytes at a time (SSE2), the bytes past `size` masked out. */
    if (size > 0 && size <= 32 && stride >= (size > 16 ? 32u : 16u)) {
        int two = size > 16;
        unsigned keep = size >= 32 ? 0xFFFFFFFFu : ((1u << size) - 1u);
        size_t n;
        for (n = 0; n < limit; n++, pa += delta, pb += delta) {
            unsigned eq = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
                _mm_loadu_si128((const __m128i *)pa), _mm_loadu_si128((const __m128i *)pb)));
            if (two) {
                eq |= (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
                          _mm_loadu_si128((const __m128i *)(pa + 16)),
                          _mm_loadu_si128((const __m128i *)(pb + 16)))) << 16;
            }
            if ((eq & keep) != keep) break;
        }
        return n;
    }
#endif
    switch (words) {
    case 0: return same_run(pa, pb, delta, limit, 0, size, masked, mask);
    case 1: return same_run(pa, pb, delta, limit, 1, size, masked, mask);
    case 2: return same_run(pa, pb, delta, limit, 2, size, masked, mask);
    case 3: return same_run(pa, pb, delta, limit, 3, size, masked, mask);
    case 4: return same_run(pa, pb, delta, limit, 4, size, masked, mask);
    case 5: return same_run(pa, pb, delta, limit, 5, size, masked, mask);
    case 6: return same_run(pa, pb, delta, limit, 6, size, masked, mask);
    default: return same_run(pa, pb, delta, limit, words, size, masked, mask);
    }
}

/* The type facts cache: open addressing, slots written once (0 -> address | facts). */
uintptr_t rk_shim_type_facts_table[RK_FACT_SLOTS];

void rk_shim_type_facts_put(const void *type, uint8_t facts) {
    uintptr_t key = (uintptr_t)type;
    if ((key & 7) != 0 || facts == 0 || facts > 7) return; /* metadata is pointer-aligned */
    size_t slot = rk_shim_type_facts_slot(key);
    for (unsigned n = 0; n < RK_FACT_PROBES; n++, slot = (slot + 1) & (RK_FACT_SLOTS - 1)) {
        uintptr_t expected = 0;
        if (__atomic_compare_exchange_n(&rk_shim_type_facts_table[slot], &expected, key | facts, 0,
                                        __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
            return;
        if ((expected & ~(uintptr_t)7) == key) return; /* another thread put it */
    }
}
