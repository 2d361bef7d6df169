/*
 * header_only.c — reducerkit.h must compile alone, warning-free, as C99 and as C++11:
 *   cc  -std=c99   -Wall -Wextra -pedantic -Werror -Iinclude -fsyntax-only Tests/c/header_only.c
 *   c++ -std=c++11 -Wall -Wextra -pedantic -Werror -Iinclude -x c++ -fsyntax-only Tests/c/header_only.c
 * Nothing else is included, so the header must bring in what it uses (size_t, uint64_t).
 */
#include "reducerkit.h"

/* A callback with the exact rk_state_callback signature. */
static void on_state(void *userdata, const char *state_json, size_t len, uint64_t version) {
    (void)userdata;
    (void)state_json;
    (void)len;
    (void)version;
}

/* A callback with the exact rk_request_callback signature. */
static void on_request(void *userdata, const char *event_json, size_t len) {
    (void)userdata;
    (void)event_json;
    (void)len;
}

/* Uses every type and every declaration, so a typo in the header cannot hide. */
int header_only_uses_everything(void);
int header_only_uses_everything(void) {
    rk_store *store = 0;
    char *json = 0;
    size_t len = 0;
    uint64_t value = 0;
    rk_state_callback cb = on_state;
    rk_request_callback rcb = on_request;
    int fd = -1;
    rk_status st = RK_OK;
    int abi = RK_ABI_VERSION + RK_VERSION_MAJOR + RK_VERSION_MINOR + RK_VERSION_PATCH;
    const char *v = RK_VERSION_STRING;

    if (rk_abi_version() != RK_ABI_VERSION || rk_version() == v) return 1;
    (void)rk_status_string(RK_ERR_MISUSE);
    (void)rk_last_error();
    st = rk_features(&json, &len);
    rk_free(json);
    st = rk_store_create("counter", 0, &store);
    st = rk_store_send(store, "\"increment\"");
    st = rk_store_send_n(store, "\"increment\"", 11);
    st = rk_store_state(store, &json, &len);
    rk_free(json);
    st = rk_store_version(store, &value);
    st = rk_store_subscribe(store, cb, 0, &value);
    st = rk_store_unsubscribe(store, value);
    st = rk_store_wait_idle(store, 0);
    st = rk_store_advance_clock(store, 0);
    st = rk_store_take_actions(store, &json, &len);
    st = rk_store_scenario(store, &json, &len);
    rk_free(json);
    st = rk_store_effect_count(store, &value);
    st = rk_store_on_request(store, rcb, 0);
    st = rk_store_take_requests(store, &json, &len);
    rk_free(json);
    st = rk_store_request_fd(store, &fd);
    st = rk_store_resolve(store, 1, "\"a fact\"");
    st = rk_store_fail(store, (uint64_t)fd, "offline");
    rk_store_destroy(store);
    switch (st) {
    case RK_OK:
    case RK_ERR_INVALID_ARGUMENT:
    case RK_ERR_JSON:
    case RK_ERR_ACTION:
    case RK_ERR_STATE:
    case RK_ERR_UNKNOWN_FEATURE:
    case RK_ERR_INVALID_HANDLE:
    case RK_ERR_TIMEOUT:
    case RK_ERR_INTERNAL:
    case RK_ERR_MISUSE:
    case RK_ERR_RESPONSE:
        break;
    }
    return abi;
}
