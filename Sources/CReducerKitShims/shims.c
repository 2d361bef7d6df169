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

uintptr_t rk_shim_stack_lower_bound(void) {
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
