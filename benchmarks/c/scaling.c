/*
 * scaling.c — what observing a store costs from C, against the state's size (issue 11).
 *
 *   build/bench/c_scaling [REPETITIONS]      (make bench runs it; benchmarks/scaling.py reads it)
 *
 * For 10, 1,000, 10,000 and 100,000 todos, toggling one todo per action, ns per action:
 *   c_send            rk_store_send alone, no observer (the floor)
 *   c_patch           send + one rk_store_subscribe_patches subscriber (todos: TrackedArray)
 *   c_patch_equatable send + one patch subscriber on todos_untracked (a plain [Todo]: the
 *                     Equatable diff, no change tracking)
 *   c_state_callback  send + one rk_store_subscribe whole-state callback
 * and, at one size: rk_store_send of a cached action (counter "increment"), a never-seen
 * action ({"setCount": i}, a fresh i each time), the full-state encode of 1,000 todos (toggle
 * + rk_store_state, minus the toggle), and the heap bytes one counter store holds.
 * Each figure is the median of REPETITIONS runs of about 100 ms (the fastest and slowest
 * beside it). Output: one JSON object per line.
 */
#define _GNU_SOURCE

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reducerkit.h"

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what, rk_status st) {
    fprintf(stderr, "scaling: %s: %s: %s\n", what, rk_status_string(st), rk_last_error());
    exit(1);
}

static size_t received;
static void on_patch(void *u, const char *json, size_t len, uint64_t v) {
    (void)u; (void)json; (void)v;
    received += len;
}
static void on_state(void *u, const char *json, size_t len, uint64_t v) {
    (void)u; (void)json; (void)v;
    received += len;
}

typedef int (*op_fn)(long n);
static rk_store *target;
static char toggle[64];
static long fresh = 1000000;

static int op_toggle(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) bad |= (int)rk_store_send(target, toggle);
    return bad;
}

static int op_increment(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) bad |= (int)rk_store_send(target, "\"increment\"");
    return bad;
}

static int op_never_seen(long n) {
    long i;
    int bad = 0;
    char action[48];
    for (i = 0; i < n; i++) {
        snprintf(action, sizeof action, "{\"setCount\":%ld}", fresh++);
        bad |= (int)rk_store_send(target, action);
    }
    return bad;
}

static int op_toggle_and_state(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) {
        char *json = NULL;
        size_t len = 0;
        bad |= (int)rk_store_send(target, toggle);
        bad |= (int)rk_store_state(target, &json, &len);
        received += len;
        rk_free(json);
    }
    return bad;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median, min and max ns/op over `reps` runs of about 100 ms each. */
static void measure(op_fn op, int reps, double out[3]) {
    double times[64];
    long n = 1;
    int r;
    double t0, dt = 0;
    while (1) { /* calibrate */
        t0 = now_ns();
        if (op(n) != 0) die("an operation", RK_ERR_INTERNAL);
        dt = now_ns() - t0;
        if (dt > 20e6 || n > (1L << 28)) break;
        n *= 4;
    }
    n = (long)((double)n * 100e6 / dt) + 1;
    for (r = 0; r < reps; r++) {
        t0 = now_ns();
        if (op(n) != 0) die("an operation", RK_ERR_INTERNAL);
        times[r] = (now_ns() - t0) / (double)n;
    }
    qsort(times, (size_t)reps, sizeof times[0], compare);
    out[0] = times[reps / 2];
    out[1] = times[0];
    out[2] = times[reps - 1];
}

static void report(const char *bench, const char *feature, long size, const double r[3]) {
    printf("{\"bench\":\"%s\",\"feature\":\"%s\",\"size\":%ld,\"ns\":%.1f,\"min\":%.1f,\"max\":%.1f}\n",
           bench, feature, size, r[0], r[1], r[2]);
    fflush(stdout);
}

static char *todos_options(long n) {
    size_t cap = 64 + (size_t)n * 64, used;
    char *o = (char *)malloc(cap);
    long i;
    used = (size_t)snprintf(o, cap, "{\"initial_state\":{\"todos\":[");
    for (i = 0; i < n; i++) {
        used += (size_t)snprintf(o + used, cap - used,
                                 "%s{\"id\":%ld,\"title\":\"todo %ld\",\"isComplete\":false}",
                                 i ? "," : "", i + 1, i + 1);
    }
    snprintf(o + used, cap - used, "]}}");
    return o;
}

static void scaling(long size, int reps) {
    static const char *features[] = {"todos", "todos_untracked"};
    int f;
    char *options = todos_options(size);
    snprintf(toggle, sizeof toggle, "{\"toggle\":{\"id\":%ld}}", size / 2 + 1);
    for (f = 0; f < 2; f++) {
        rk_store *s = NULL;
        uint64_t token = 0;
        double r[3];
        rk_status st = rk_store_create(features[f], options, &s);
        if (st != RK_OK) die("rk_store_create", st);
        target = s;
        if (f == 0) {
            measure(op_toggle, reps, r);
            report("c_send", features[f], size, r);
        }
        if ((st = rk_store_subscribe_patches(s, on_patch, NULL, &token)) != RK_OK) die("subscribe", st);
        measure(op_toggle, reps, r);
        report(f == 0 ? "c_patch" : "c_patch_equatable", features[f], size, r);
        rk_store_unsubscribe(s, token);
        if (f == 0) {
            if ((st = rk_store_subscribe(s, on_state, NULL, &token)) != RK_OK) die("subscribe", st);
            measure(op_toggle, size >= 10000 ? 3 : reps, r);
            report("c_state_callback", features[f], size, r);
            rk_store_unsubscribe(s, token);
        }
        rk_store_destroy(s);
    }
    free(options);
}

/* Heap bytes held by one counter store (mallinfo2 over 1,000 stores). */
static double counter_store_bytes(void) {
    enum { N = 1000 };
    static rk_store *stores[N];
    struct mallinfo2 before, after;
    int i;
    rk_store *warm = NULL;
    rk_store_create("counter", NULL, &warm); /* load features, runtime caches */
    rk_store_send(warm, "\"increment\"");
    rk_store_destroy(warm);
    before = mallinfo2();
    for (i = 0; i < N; i++) {
        if (rk_store_create("counter", NULL, &stores[i]) != RK_OK) die("create", RK_ERR_INTERNAL);
        rk_store_send(stores[i], "\"increment\"");
        rk_store_send(stores[i], "\"decrement\"");
    }
    after = mallinfo2();
    for (i = 0; i < N; i++) rk_store_destroy(stores[i]);
    return (double)(after.uordblks - before.uordblks) / N;
}

int main(int argc, char **argv) {
    static const long sizes[] = {10, 1000, 10000, 100000};
    int reps = argc > 1 ? atoi(argv[1]) : 7;
    size_t i;
    double r[3], toggle_only[3];
    rk_store *s = NULL;
    char *options;
    if (reps < 1 || reps > 63) reps = 7;
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) scaling(sizes[i], reps);

    if (rk_store_create("counter", NULL, &s) != RK_OK) die("create", RK_ERR_INTERNAL);
    target = s;
    measure(op_increment, reps, r);
    report("c_send_increment", "counter", 0, r);
    measure(op_never_seen, reps, r);
    report("c_send_never_seen", "counter", 0, r);
    rk_store_destroy(s);

    options = todos_options(1000);
    if (rk_store_create("todos", options, &s) != RK_OK) die("create", RK_ERR_INTERNAL);
    free(options);
    target = s;
    snprintf(toggle, sizeof toggle, "{\"toggle\":{\"id\":500}}");
    measure(op_toggle, reps, toggle_only);
    measure(op_toggle_and_state, reps, r);
    r[0] -= toggle_only[0];
    r[1] -= toggle_only[0];
    r[2] -= toggle_only[0];
    report("c_full_encode", "todos", 1000, r);
    rk_store_destroy(s);

    r[0] = r[1] = r[2] = counter_store_bytes();
    printf("{\"bench\":\"c_counter_store_bytes\",\"feature\":\"counter\",\"size\":0,\"bytes\":%.0f}\n", r[0]);
    return received == 0; /* the callbacks ran */
}
