/* libFuzzer harness: rk_store_create's options_json (and so initial_state) for each shipped
 * feature. The first byte picks the feature; the rest is the options text (NUL-terminated
 * here). A failed create must leave *out untouched and say why; a store it makes works
 * (and gives its scenario when the options asked to record). */
#include "fuzz_common.h"

static const char *const features[] = {"counter", "todos", "search"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rk_store *store = (rk_store *)(uintptr_t)0x1234;
    rk_status st;
    char *text;
    if (size == 0) return 0;
    text = (char *)malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    st = rk_store_create(features[data[0] % 3], text, &store);
    if (st == RK_OK) {
        char *json = NULL;
        FUZZ_CHECK(store != NULL && store != (rk_store *)(uintptr_t)0x1234, "no handle");
        FUZZ_CHECK(rk_store_state(store, &json, NULL) == RK_OK, "%s", rk_last_error());
        rk_free(json);
        /* "record": true writes the options (initial_state as given) into its scenario */
        json = NULL;
        st = rk_store_scenario(store, &json, NULL);
        FUZZ_CHECK(st == RK_OK || st == RK_ERR_MISUSE, "rk_store_scenario returned %d: %s",
                   (int)st, rk_last_error());
        FUZZ_CHECK((st == RK_OK) == (json != NULL), "rk_store_scenario: out_json");
        rk_free(json);
        rk_store_destroy(store);
    } else {
        FUZZ_CHECK(store == (rk_store *)(uintptr_t)0x1234, "a failed create wrote *out");
        FUZZ_CHECK(st == RK_ERR_JSON || st == RK_ERR_STATE || st == RK_ERR_INVALID_ARGUMENT,
                   "create returned %d: %s", (int)st, rk_last_error());
        FUZZ_CHECK(rk_last_error()[0] != '\0', "create failed without a message");
    }
    free(text);
    return 0;
}
