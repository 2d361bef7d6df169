/* libFuzzer harness: rk_store_resolve responses. The first byte picks the endpoint
 * (counter's numberFact or search's search); the rest is the response text. A refused
 * response must leave the request pending (a correct answer still works) and change
 * nothing; an accepted one is reduced. */
#include "fuzz_common.h"

static rk_store *counter, *search;
static uint64_t next_counter_id, next_search_id;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int is_search;
    rk_store *store;
    uint64_t id, version = 0;
    char *before, *text;
    rk_status st;
    if (size == 0) return 0;
    if (counter == NULL) {
        FUZZ_CHECK(rk_store_create("counter", "{\"provide\": [\"numberFact\"]}", &counter) == RK_OK, "%s", rk_last_error());
        FUZZ_CHECK(rk_store_create("search", "{\"provide\": [\"search\"], \"clock\": \"test\"}", &search) == RK_OK, "%s", rk_last_error());
    }
    is_search = data[0] & 1;
    store = is_search ? search : counter;
    /* Make one request, and drop the queued events. */
    if (is_search) {
        FUZZ_CHECK(rk_store_send(store, "{\"queryChanged\": \"s\"}") == RK_OK, "%s", rk_last_error());
        FUZZ_CHECK(rk_store_advance_clock(store, 300) == RK_OK, "%s", rk_last_error());
    } else {
        FUZZ_CHECK(rk_store_send(store, "\"factButtonTapped\"") == RK_OK, "%s", rk_last_error());
    }
    {
        char *events = NULL;
        FUZZ_CHECK(rk_store_take_requests(store, &events, NULL) == RK_OK, "%s", rk_last_error());
        FUZZ_CHECK(strstr(events, "\"payload\"") != NULL, "no request: %s", events);
        rk_free(events);
    }
    id = is_search ? ++next_search_id : ++next_counter_id;
    text = (char *)malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    FUZZ_CHECK(rk_store_wait_idle(store, 5000) == RK_OK, "%s", rk_last_error());
    before = fuzz_snapshot(store, &version);
    st = rk_store_resolve(store, id, text);
    if (st != RK_OK) {
        FUZZ_CHECK(st == RK_ERR_JSON || st == RK_ERR_RESPONSE, "resolve returned %d: %s", (int)st,
                   rk_last_error());
        fuzz_unchanged(store, before, version, st, "rk_store_resolve");
        /* Still pending: a correct answer is accepted. */
        st = rk_store_resolve(store, id, is_search ? "[\"ok\"]" : "\"ok\"");
        FUZZ_CHECK(st == RK_OK, "the request did not stay pending: %d %s", (int)st, rk_last_error());
    }
    FUZZ_CHECK(rk_store_wait_idle(store, 5000) == RK_OK, "%s", rk_last_error());
    rk_free(before);
    free(text);
    return 0;
}
