/*
 * codec_ir.c — a fixed amount of work through the C API, for instruction counts (repeatable on
 * a loaded machine, unlike times). `make bench-ir` runs every mode under callgrind at two
 * counts and prints the instructions per operation (the difference over the extra operations,
 * so set-up costs cancel out). By hand:
 *
 *   LD_LIBRARY_PATH=build valgrind --tool=callgrind --callgrind-out-file=/dev/null \
 *     build/bench/codec_ir MODE COUNT 2>&1 | grep refs
 *
 * Modes (COUNT operations each):
 *   encode       toggle one todo among 1,000, then rk_store_state (a full state encode)
 *   decode       a never-seen action text ({"setCount": i}) to a counter store
 *   send         "increment" to a counter store (a cached action)
 *   patch        toggle one todo among 1,000 with one patch subscriber (TrackedArray: todos)
 *   patch-plain  the same on a plain [Todo] (todos_untracked: the Equatable diff)
 *   get          rk_store_get(store, "/todos/5/title") on 1,000 todos (a pointer read; the
 *                same pointer at an unchanged version: the store's last read, copied)
 *   get-trusted  the same after 20 toggles + rk_store_state (a `SynthesizedCodable` state's
 *                plan is trusted once checked on 16 encodes; the shipped `@Wire` states are
 *                trusted from the start)
 *   toggle       toggle one todo among 1,000 (no subscriber): the base of get-toggled
 *   get-toggled  toggle, then rk_store_get(store, "/todos/5/title") after 20 toggles +
 *                rk_store_state as in get-trusted: a read after every change (the pointer
 *                is not parsed again; the navigation runs); minus toggle, the read alone
 *   get-root     toggle one todo among 1,000, then rk_store_get(store, "") (the whole state)
 *   record       "increment" to a counter store created with {"record": true}
 *   record-taken the same, then rk_store_scenario once: each send with its share of the
 *                recording's document (the log encodes each state when it is taken)
 *   first-sends  COUNT toggles to a fresh store of 1,000 todos with a patch subscriber: the
 *                first sends of a store's life (ir.sh counts 0 and 16 of them)
 *   round-trip   the queued host round trip on a counter store providing numberFact: send
 *                "factButtonTapped", rk_store_take_requests, rk_store_resolve, rk_store_wait_idle
 *                (every thread's instructions: callgrind counts them all)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reducerkit.h"

static size_t patch_bytes;

static void check(rk_status st, const char *what) {
    if (st != RK_OK) {
        fprintf(stderr, "%s: %s\n", what, rk_last_error());
        exit(1);
    }
}

static void on_patch(void *userdata, const char *patch, size_t len, uint64_t version) {
    (void)userdata;
    (void)patch;
    (void)version;
    patch_bytes += len;
}

static rk_store *todos(const char *feature, int n) {
    size_t cap = 80 * (size_t)n + 256, at = 0;
    char *options = malloc(cap);
    rk_store *store = NULL;
    int i;
    at += (size_t)snprintf(options + at, cap - at, "{\"initial_state\":{\"todos\":[");
    for (i = 0; i < n; i++) {
        at += (size_t)snprintf(options + at, cap - at, "%s{\"id\":%d,\"title\":\"Todo %d\",\"isComplete\":false}",
                               i ? "," : "", i + 1, i + 1);
    }
    snprintf(options + at, cap - at, "],\"nextID\":%d}}", n + 1);
    check(rk_store_create(feature, options, &store), "create");
    free(options);
    return store;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "encode";
    long count = argc > 2 ? atol(argv[2]) : 200, i;
    rk_store *store = NULL;
    char *json = NULL;
    size_t len = 0;
    uint64_t token;
    if (strcmp(mode, "encode") == 0) {
        store = todos("todos", 1000);
        for (i = 0; i < count; i++) {
            check(rk_store_send(store, "{\"toggle\":{\"id\":500}}"), "send");
            check(rk_store_state(store, &json, &len), "state");
            rk_free(json);
        }
    } else if (strcmp(mode, "decode") == 0) {
        char action[48];
        check(rk_store_create("counter", "{\"clock\":\"test\"}", &store), "create");
        for (i = 0; i < count; i++) {
            snprintf(action, sizeof action, "{\"setCount\": %ld}", i);
            check(rk_store_send(store, action), "send");
        }
    } else if (strcmp(mode, "send") == 0) {
        check(rk_store_create("counter", NULL, &store), "create");
        for (i = 0; i < count; i++) check(rk_store_send(store, "\"increment\""), "send");
    } else if (strcmp(mode, "patch") == 0 || strcmp(mode, "patch-plain") == 0) {
        store = todos(strcmp(mode, "patch") == 0 ? "todos" : "todos_untracked", 1000);
        check(rk_store_subscribe_patches(store, on_patch, NULL, &token), "subscribe");
        for (i = 0; i < count; i++) check(rk_store_send(store, "{\"toggle\":{\"id\":500}}"), "send");
        if (count > 0 && patch_bytes == 0) {
            fprintf(stderr, "no patch was delivered\n");
            return 1;
        }
    } else if (strcmp(mode, "get") == 0 || strcmp(mode, "get-trusted") == 0) {
        store = todos("todos", 1000);
        for (i = 0; strcmp(mode, "get-trusted") == 0 && i < 20; i++) {
            check(rk_store_send(store, "{\"toggle\":{\"id\":500}}"), "send");
            check(rk_store_state(store, &json, &len), "state");
            rk_free(json);
        }
        for (i = 0; i < count; i++) {
            check(rk_store_get(store, "/todos/5/title", &json, &len, NULL), "get");
            if (len != 8 || memcmp(json, "\"Todo 6\"", 8) != 0) {
                fprintf(stderr, "get read %.*s\n", (int)len, json);
                return 1;
            }
            rk_free(json);
        }
    } else if (strcmp(mode, "toggle") == 0 || strcmp(mode, "get-toggled") == 0) {
        int read = strcmp(mode, "get-toggled") == 0;
        store = todos("todos", 1000);
        for (i = 0; i < 20; i++) {
            check(rk_store_send(store, "{\"toggle\":{\"id\":500}}"), "send");
            check(rk_store_state(store, &json, &len), "state");
            rk_free(json);
        }
        for (i = 0; i < count; i++) {
            check(rk_store_send(store, "{\"toggle\":{\"id\":500}}"), "send");
            if (!read) continue;
            check(rk_store_get(store, "/todos/5/title", &json, &len, NULL), "get");
            if (len != 8 || memcmp(json, "\"Todo 6\"", 8) != 0) {
                fprintf(stderr, "get read %.*s\n", (int)len, json);
                return 1;
            }
            rk_free(json);
        }
    } else if (strcmp(mode, "get-root") == 0) {
        store = todos("todos", 1000);
        for (i = 0; i < count; i++) {
            check(rk_store_send(store, "{\"toggle\":{\"id\":500}}"), "send");
            check(rk_store_get(store, "", &json, &len, NULL), "get");
            rk_free(json);
        }
    } else if (strcmp(mode, "record") == 0) {
        check(rk_store_create("counter", "{\"record\":true}", &store), "create");
        for (i = 0; i < count; i++) check(rk_store_send(store, "\"increment\""), "send");
    } else if (strcmp(mode, "record-taken") == 0) {
        check(rk_store_create("counter", "{\"record\":true}", &store), "create");
        for (i = 0; i < count; i++) check(rk_store_send(store, "\"increment\""), "send");
        check(rk_store_scenario(store, &json, &len), "scenario");
        rk_free(json);
    } else if (strcmp(mode, "first-sends") == 0) {
        store = todos("todos", 1000);
        check(rk_store_subscribe_patches(store, on_patch, NULL, &token), "subscribe");
        for (i = 0; i < count; i++) check(rk_store_send(store, "{\"toggle\":{\"id\":500}}"), "send");
        if (count > 0 && patch_bytes == 0) {
            fprintf(stderr, "no patch was delivered\n");
            return 1;
        }
    } else if (strcmp(mode, "round-trip") == 0) {
        check(rk_store_create("counter", "{\"provide\":[\"numberFact\"]}", &store), "create");
        for (i = 0; i < count; i++) {
            check(rk_store_send(store, "\"factButtonTapped\""), "send");
            check(rk_store_take_requests(store, &json, &len), "take");
            rk_free(json);
            /* Ids count up from 1 per store. */
            check(rk_store_resolve(store, (uint64_t)i + 1, "\"a fact\""), "resolve");
            check(rk_store_wait_idle(store, -1), "wait");
        }
    } else {
        fprintf(stderr, "unknown mode %s (encode, decode, send, patch, patch-plain, get, get-trusted, toggle, "
                        "get-toggled, get-root, record, record-taken, first-sends, round-trip)\n", mode);
        return 2;
    }
    rk_store_destroy(store);
    printf("%s done\n", mode);
    return 0;
}
