#define _GNU_SOURCE
#include "CReducerKitShims.h"
#include <dlfcn.h>
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
