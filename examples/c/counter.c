/* A C program driving a Swift store through reducerkit.h.
 *
 *   make demo     (or: cc -Iinclude examples/c/counter.c -Lbuild -lreducerkit -Wl,-rpath,build)
 */
#include <stdio.h>
#include <stdlib.h>
#include "reducerkit.h"

static void on_state(void *userdata, const char *state_json, size_t len, uint64_t version) {
    (void)len;
    printf("  [%s] v%llu %s\n", (const char *)userdata, (unsigned long long)version, state_json);
}

static void print_state(rk_store *store) {
    char *json = NULL;
    if (rk_store_state(store, &json, NULL) == RK_OK) {
        printf("  state: %s\n", json);
        rk_free(json);
    }
}

int main(void) {
    rk_store *store = NULL;
    uint64_t token = 0;
    rk_status status;

    printf("== ReducerKit %s (ABI %d) from C\n", rk_version(), rk_abi_version());
    if (rk_abi_version() != RK_ABI_VERSION) {
        fprintf(stderr, "ABI mismatch: header %d, library %d\n", RK_ABI_VERSION, rk_abi_version());
        return 1;
    }
    status = rk_store_create("counter", "{\"clock\": \"test\"}", &store);
    if (status != RK_OK) {
        fprintf(stderr, "create: %s: %s\n", rk_status_string(status), rk_last_error());
        return 1;
    }
    rk_store_subscribe(store, on_state, "callback", &token);
    rk_store_send(store, "\"increment\"");
    rk_store_send(store, "{\"setCount\": 41}");
    rk_store_send(store, "\"factButtonTapped\"");
    rk_store_wait_idle(store, 1000);

    printf("== a typo is an error, and changes nothing\n");
    status = rk_store_send(store, "\"incremnt\"");
    printf("  %s: %s\n", rk_status_string(status), rk_last_error());

    printf("== the timer, on the store's test clock\n");
    rk_store_unsubscribe(store, token);
    rk_store_send(store, "\"toggleTimer\"");
    rk_store_advance_clock(store, 3000);
    print_state(store);
    rk_store_send(store, "\"toggleTimer\"");
    rk_store_destroy(store);
    return 0;
}
