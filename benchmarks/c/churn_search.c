/*
 * churn_search.c — stores destroyed while an effect sleeps, many times over: does memory
 * stay flat? Each cycle creates a `search` store, sends a query (its 300 ms debounce starts
 * sleeping) and destroys the store, which cancels the sleeping effect. The resident set size
 * (from /proc/self/statm) is printed every INTERVAL cycles; a leak of even one small box per
 * cycle would add tens of MB per million cycles.
 *
 *   make build/bench/churn_search
 *   build/bench/churn_search [CYCLES [INTERVAL [OPTIONS_JSON]]]
 *       (defaults: 1000000, 100000, {"clock":"live"})
 *
 * Runs natively (not under a sanitizer). Exits 1 if a call fails; the figures are for a
 * reader to judge (cancelled tasks finish on Swift's pool threads after each destroy, so a
 * few MB of them may be in flight at any moment; what matters is that it does not grow).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "reducerkit.h"

/* Resident set size in KiB, or -1. */
static long rss_kib(void) {
    long size = 0, resident = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL) return -1;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    long cycles = argc > 1 ? atol(argv[1]) : 1000000;
    long interval = argc > 2 ? atol(argv[2]) : 100000;
    const char *options = argc > 3 ? argv[3] : "{\"clock\":\"live\"}";
    double start = now_s();
    long i, first = -1;
    if (cycles < 1 || interval < 1) {
        fprintf(stderr, "usage: %s [CYCLES [INTERVAL [OPTIONS_JSON]]]\n", argv[0]);
        return 2;
    }
    printf("%10s %10s %9s\n", "cycles", "RSS KiB", "seconds");
    printf("%10d %10ld %9.1f\n", 0, rss_kib(), 0.0);
    for (i = 1; i <= cycles; i++) {
        rk_store *store = NULL;
        if (rk_store_create("search", options, &store) != RK_OK ||
            rk_store_send(store, "{\"queryChanged\":\"sw\"}") != RK_OK) {
            fprintf(stderr, "cycle %ld: %s\n", i, rk_last_error());
            return 1;
        }
        rk_store_destroy(store);
        if (i % interval == 0 || i == cycles) {
            long rss = rss_kib();
            if (first < 0) first = rss;
            printf("%10ld %10ld %9.1f\n", i, rss, now_s() - start);
            fflush(stdout);
        }
    }
    printf("RSS after the first %ld cycles: %ld KiB; after %ld: %ld KiB (%+ld KiB)\n",
           interval < cycles ? interval : cycles, first, cycles, rss_kib(), rss_kib() - first);
    return 0;
}
