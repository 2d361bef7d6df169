/* Shared checks of the fuzz harnesses: a failed call must change nothing. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reducerkit.h"

#define FUZZ_CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "fuzz check failed: %s: ", #cond); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); abort(); } } while (0)

/* The state JSON (caller frees with rk_free) and version of a store. */
static char *fuzz_snapshot(rk_store *store, uint64_t *version) {
    char *json = NULL;
    FUZZ_CHECK(rk_store_version(store, version) == RK_OK, "%s", rk_last_error());
    FUZZ_CHECK(rk_store_state(store, &json, NULL) == RK_OK, "%s", rk_last_error());
    return json;
}

/* After a failed call: the state and version are those before it, and the error has a
 * message. */
static void fuzz_unchanged(rk_store *store, const char *before, uint64_t version_before,
                           rk_status status, const char *what) {
    uint64_t version = 0;
    char *after = fuzz_snapshot(store, &version);
    FUZZ_CHECK(version == version_before, "%s failed (%d: %s) but the version moved", what,
               (int)status, rk_last_error());
    FUZZ_CHECK(strcmp(after, before) == 0, "%s failed (%d: %s) but the state changed", what,
               (int)status, rk_last_error());
    FUZZ_CHECK(rk_last_error()[0] != '\0', "%s failed (%d) without a message", what, (int)status);
    rk_free(after);
}
#endif
