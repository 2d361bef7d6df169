/* libFuzzer harness: rk_store_send_n on each shipped feature. The first byte picks the
 * feature; the rest is the action text. A failed send must change neither state nor version;
 * every store is recreated now and then so effects and clocks do not pile up. */
#include "fuzz_common.h"

static const char *const features[] = {"counter", "todos", "search"};
static rk_store *stores[3];
static unsigned calls;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    unsigned k;
    rk_store *store;
    rk_status st;
    uint64_t version = 0;
    char *before;
    if (size == 0) return 0;
    k = data[0] % 3;
    if (stores[k] == NULL || ++calls % 1000 == 0) {
        if (stores[k] != NULL) rk_store_destroy(stores[k]);
        FUZZ_CHECK(rk_store_create(features[k], "{\"clock\": \"test\", \"provide\": []}", &stores[k]) == RK_OK,
                   "%s", rk_last_error());
    }
    store = stores[k];
    FUZZ_CHECK(rk_store_wait_idle(store, 5000) == RK_OK, "%s", rk_last_error());
    before = fuzz_snapshot(store, &version);
    st = rk_store_send_n(store, (const char *)data + 1, size - 1);
    if (st != RK_OK) {
        FUZZ_CHECK(st == RK_ERR_JSON || st == RK_ERR_ACTION, "send returned %d: %s", (int)st,
                   rk_last_error());
        fuzz_unchanged(store, before, version, st, "rk_store_send_n");
    } else {
        /* Time moves, so debounced and timed effects run too. */
        FUZZ_CHECK(rk_store_advance_clock(store, 1000) == RK_OK, "%s", rk_last_error());
    }
    rk_free(before);
    return 0;
}
