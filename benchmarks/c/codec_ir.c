/*
 * codec_ir.c — a fixed amount of codec work through the C API, for instruction counts
 * (repeatable on a loaded machine, unlike times): compare two builds of the library with
 *
 *   cc -O2 -std=c99 -Iinclude -o build/bench/codec_ir benchmarks/c/codec_ir.c -Lbuild -lreducerkit
 *   LD_LIBRARY_PATH=DIR valgrind --tool=callgrind --callgrind-out-file=/dev/null \
 *     build/bench/codec_ir encode|decode 2>&1 | grep refs
 *
 * "encode": 200 toggles of one todo among 1,000, each followed by rk_store_state (a full
 * state encode). "decode": 20,000 never-seen action texts ({"setCount": i}), each decoded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reducerkit.h"

static void check(rk_status st, const char *what) {
    if (st != RK_OK) {
        fprintf(stderr, "%s: %s\n", what, rk_last_error());
        exit(1);
    }
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "encode";
    rk_store *store = NULL;
    char *json = NULL;
    size_t len = 0;
    int i;
    if (strcmp(mode, "encode") == 0) {
        size_t cap = 64 * 1000 + 256, at = 0;
        char *options = malloc(cap);
        at += (size_t)snprintf(options + at, cap - at, "{\"initial_state\":{\"todos\":[");
        for (i = 0; i < 1000; i++) {
            at += (size_t)snprintf(options + at, cap - at, "%s{\"id\":%d,\"title\":\"Todo %d\",\"isComplete\":false}",
                                   i ? "," : "", i + 1, i + 1);
        }
        snprintf(options + at, cap - at, "],\"nextID\":1001}}");
        check(rk_store_create("todos", options, &store), "create");
        free(options);
        for (i = 0; i < 200; i++) {
            check(rk_store_send(store, "{\"toggle\":{\"id\":500}}"), "send");
            check(rk_store_state(store, &json, &len), "state");
            rk_free(json);
        }
    } else {
        char action[48];
        check(rk_store_create("counter", "{\"clock\":\"test\"}", &store), "create");
        for (i = 0; i < 20000; i++) {
            snprintf(action, sizeof action, "{\"setCount\": %d}", i);
            check(rk_store_send(store, action), "send");
        }
    }
    rk_store_destroy(store);
    printf("%s done\n", mode);
    return 0;
}
