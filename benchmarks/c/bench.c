/*
 * bench.c — ReducerKit through the C API, in one run: the median ns/op of several
 * repetitions of each operation, with the floor (a bare call into the library) beside it.
 *
 *   cc -O2 -std=c99 -Wall -Iinclude -o build/bench/c_bench benchmarks/c/bench.c \
 *      -Lbuild -lreducerkit -Wl,-rpath,'$ORIGIN/..'
 *   build/bench/c_bench [REPETITIONS]        (default 11; make bench runs it)
 *
 * Each repetition runs an operation for about 100 ms (the iteration count is calibrated
 * once per operation); the table shows the median, the fastest and the slowest repetition.
 *
 * The library caches the state JSON while the version is unchanged and decoded actions by
 * their text, so the table has both sides: "unchanged state" is a cached read, "send toggle +
 * rk_store_state" encodes the 1,000 todos on every read (subtract the toggle row for the
 * read alone), and "4096 distinct texts" decodes every action.
 *
 * Effects the host fulfils (issue 9, target <= 5 us per round trip): "host round trip" sends
 * an action whose effect asks the host (counter's numberFact), the request callback resolves
 * it inside the callback, and the response action is reduced, all within one rk_store_send.
 * Beside it: a plain send on the same store (the floor), the same action answered by the
 * Swift implementation (0.1.0's path, no host), and the queued path (take, resolve, wait).
 */
#define _POSIX_C_SOURCE 200809L

#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reducerkit.h"

#define TODOS 1000

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what, rk_status st) {
    fprintf(stderr, "bench: %s: %s: %s\n", what, rk_status_string(st), rk_last_error());
    exit(1);
}

/* ---- the operations: each runs `n` times and returns a status (non-zero = failure) ---- */

static rk_store *counter;
static rk_store *todos;
static volatile int sink;
static size_t last_len;

static int op_floor(long n) {
    long i;
    int acc = 0;
    for (i = 0; i < n; i++) acc += rk_abi_version();
    sink = acc;
    return 0;
}

static int op_send_increment(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) bad |= (int)rk_store_send(counter, "\"increment\"");
    return bad;
}

static int op_send_and_state(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) {
        char *json = NULL;
        size_t len = 0;
        bad |= (int)rk_store_send(counter, "\"increment\"");
        bad |= (int)rk_store_state(counter, &json, &len);
        last_len = len;
        rk_free(json);
    }
    return bad;
}

static int op_state_todos(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) {
        char *json = NULL;
        size_t len = 0;
        bad |= (int)rk_store_state(todos, &json, &len);
        last_len = len;
        rk_free(json);
    }
    return bad;
}

/* The state changes before each read, so it is encoded again (no state cache). */
static int op_toggle_and_state(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) {
        char *json = NULL;
        size_t len = 0;
        bad |= (int)rk_store_send(todos, "{\"toggle\":{\"id\":500}}");
        bad |= (int)rk_store_state(todos, &json, &len);
        last_len = len;
        rk_free(json);
    }
    return bad;
}

/* The floor of a whole-state read (issue 25: toggle + whole state <= 10 us): a malloc +
 * memcpy + free of the 1,000 todos' state (its bytes as rk_store_state gave them). */
static char *todos_json;
static size_t todos_json_len;
static int op_state_floor(long n) {
    long i;
    for (i = 0; i < n; i++) {
        char *copy = malloc(todos_json_len + 1);
        if (copy == NULL) return 1;
        memcpy(copy, todos_json, todos_json_len + 1);
        sink += copy[(size_t)i % todos_json_len];
        free(copy);
    }
    return 0;
}

/* A pointer read of one small value (issue 25: <= 150 ns at any state size), and its floor:
 * a malloc + memcpy + free of the same bytes. */
static int op_get_title(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) {
        char *json = NULL;
        size_t len = 0;
        bad |= (int)rk_store_get(todos, "/todos/5/title", &json, &len, NULL);
        last_len = len;
        rk_free(json);
    }
    return bad;
}

/* The same read after every change (a toggle first: subtract the toggle row). */
static int op_toggle_and_get_title(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) {
        char *json = NULL;
        size_t len = 0;
        bad |= (int)rk_store_send(todos, "{\"toggle\":{\"id\":500}}");
        bad |= (int)rk_store_get(todos, "/todos/5/title", &json, &len, NULL);
        bad |= len != 9; /* "Todo #6" */
        rk_free(json);
    }
    return bad;
}

static int op_get_floor(long n) {
    static const char title[] = "\"Todo 6\"";
    long i;
    for (i = 0; i < n; i++) {
        char *copy = malloc(sizeof title);
        if (copy == NULL) return 1;
        memcpy(copy, title, sizeof title);
        sink += copy[(size_t)i % (sizeof title - 1)];
        free(copy);
    }
    return 0;
}

/* "increment" to a counter created with {"record": true} (issue 25: <= 4x the unrecorded
 * send). The recording keeps every step, so the store is made anew every 10,000 sends. */
static int op_send_recorded(long n) {
    long i;
    int bad = 0;
    rk_store *store = NULL;
    for (i = 0; i < n; i++) {
        if (i % 10000 == 0) {
            if (store != NULL) rk_store_destroy(store);
            store = NULL;
            if (rk_store_create("counter", "{\"record\":true}", &store) != RK_OK) return 1;
        }
        bad |= (int)rk_store_send(store, "\"increment\"");
    }
    if (store != NULL) rk_store_destroy(store);
    return bad;
}

/* 4096 distinct action texts in turn: each is decoded (the library's action cache, if it
 * has one, keeps far fewer). */
#define DISTINCT 4096
static char distinct[DISTINCT][32];

static int op_send_distinct(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) bad |= (int)rk_store_send(counter, distinct[i % DISTINCT]);
    return bad;
}

static int op_toggle_todo(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) bad |= (int)rk_store_send(todos, "{\"toggle\":{\"id\":500}}");
    return bad;
}

/* ---- Effects the host fulfils ---------------------------------------------------------
 * `provided` is a counter created with {"provide": ["numberFact"]} whose request callback
 * answers each request at once, inside the callback: one round trip is rk_store_send of
 * "factButtonTapped" -> its effect calls numberFact -> the request event reaches the callback
 * -> rk_store_resolve -> the effect goes on without suspending -> {"factResponse": ...} is
 * reduced, all before rk_store_send returns (checked before the run). `queued` is the same
 * feature answered through the queue: send, take the event, resolve, wait for the response
 * to be reduced (the effect resumes on Swift's thread pool). */
static rk_store *provided;
static rk_store *queued;
static long answered;
static int answer_failures;

static void answer_inline(void *userdata, const char *event, size_t len) {
    uint64_t id;
    (void)userdata;
    (void)len;
    /* Events start with {"id":N (request or cancellation; none is cancelled here). */
    id = strtoull(event + 6, NULL, 10);
    answer_failures |= rk_store_resolve(provided, id, "\"a fact from the host\"") != RK_OK;
    answered++;
}

static int op_host_round_trip(long n) {
    long i, before = answered;
    int bad = 0;
    for (i = 0; i < n; i++) bad |= (int)rk_store_send(provided, "\"factButtonTapped\"");
    return bad | answer_failures | (answered - before != n);
}

static int op_provided_increment(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) bad |= (int)rk_store_send(provided, "\"increment\"");
    return bad;
}

/* 0.1.0's path: the Swift implementation of numberFact answers (no host involved). */
static int op_live_fact(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) bad |= (int)rk_store_send(counter, "\"factButtonTapped\"");
    return bad;
}

static int op_queued_round_trip(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) {
        char *events = NULL;
        uint64_t id;
        bad |= (int)rk_store_send(queued, "\"factButtonTapped\"");
        bad |= (int)rk_store_take_requests(queued, &events, NULL);
        id = events != NULL && events[0] == '[' ? strtoull(events + 7, NULL, 10) : 0; /* [{"id":N */
        rk_free(events);
        bad |= (int)rk_store_resolve(queued, id, "\"a fact from the host\"");
        bad |= (int)rk_store_wait_idle(queued, -1);
    }
    return bad;
}

/* The queued path as an event loop drives it (issue 25: <= 5 us): send, poll() the request
 * descriptor, take the request, resolve it, wait for the response to be reduced. Since 0.2.x
 * the answered effect continues on the resolving thread (rk_store_resolve runs it inline), so
 * this loop makes no thread hop at all: what it costs is instructions (`make bench-ir`
 * round-trip). The row below it is what the earlier design's two hops cost on this machine. */
static int request_fd = -1;

static int op_fd_round_trip(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) {
        char *events = NULL;
        uint64_t id;
        struct pollfd p;
        bad |= (int)rk_store_send(queued, "\"factButtonTapped\"");
        p.fd = request_fd;
        p.events = POLLIN;
        p.revents = 0;
        bad |= poll(&p, 1, -1) != 1 || !(p.revents & POLLIN);
        bad |= (int)rk_store_take_requests(queued, &events, NULL);
        id = events != NULL && events[0] == '[' ? strtoull(events + 7, NULL, 10) : 0; /* [{"id":N */
        rk_free(events);
        bad |= (int)rk_store_resolve(queued, id, "\"a fact from the host\"");
        bad |= (int)rk_store_wait_idle(queued, -1);
    }
    return bad;
}

/* What two thread hops cost, no library (the earlier design's floor). This thread wakes a sleeping
 * thread (as resolve wakes a pool thread), which wakes this one back (as the finished
 * effect wakes rk_store_wait_idle), through a mutex and two condition variables. */
static pthread_mutex_t hop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hop_there = PTHREAD_COND_INITIALIZER, hop_back = PTHREAD_COND_INITIALIZER;
static long hop_sent, hop_returned;
static int hop_stop;

static void *hop_thread(void *unused) {
    long seen = 0;
    (void)unused;
    pthread_mutex_lock(&hop_lock);
    for (;;) {
        while (hop_sent == seen && !hop_stop) pthread_cond_wait(&hop_there, &hop_lock);
        if (hop_stop) break;
        seen = hop_sent;
        hop_returned = seen;
        pthread_cond_signal(&hop_back);
    }
    pthread_mutex_unlock(&hop_lock);
    return NULL;
}

static int op_two_hops(long n) {
    long i;
    pthread_mutex_lock(&hop_lock);
    for (i = 0; i < n; i++) {
        hop_sent++;
        pthread_cond_signal(&hop_there);
        while (hop_returned != hop_sent) pthread_cond_wait(&hop_back, &hop_lock);
    }
    pthread_mutex_unlock(&hop_lock);
    return 0;
}

/* Before timing: one round trip of each kind does what it says. */
static void check_round_trips(void) {
    uint64_t v0 = 0, v1 = 0, effects = 1;
    char *json = NULL;
    rk_store_version(provided, &v0);
    if (op_host_round_trip(1) != 0) die("host round trip", RK_ERR_INTERNAL);
    rk_store_version(provided, &v1);
    rk_store_effect_count(provided, &effects);
    rk_store_state(provided, &json, NULL);
    if (v1 != v0 + 2 || effects != 0 || json == NULL || strstr(json, "a fact from the host") == NULL) {
        fprintf(stderr, "bench: the host round trip did not reduce its response before "
                        "rk_store_send returned (version %llu -> %llu, %llu effects, state %s)\n",
                (unsigned long long)v0, (unsigned long long)v1, (unsigned long long)effects,
                json ? json : "?");
        exit(1);
    }
    rk_free(json);
    rk_store_version(counter, &v0);
    if (op_live_fact(1) != 0) die("live fact", RK_ERR_INTERNAL);
    rk_store_version(counter, &v1);
    rk_store_effect_count(counter, &effects);
    if (v1 != v0 + 2 || effects != 0) {
        fprintf(stderr, "bench: the live fact was not reduced before rk_store_send returned\n");
        exit(1);
    }
    rk_store_version(queued, &v0);
    if (op_queued_round_trip(1) != 0) die("queued round trip", RK_ERR_INTERNAL);
    rk_store_version(queued, &v1);
    if (v1 != v0 + 2) die("queued round trip: response not reduced", RK_ERR_INTERNAL);
    rk_store_version(queued, &v0);
    if (op_fd_round_trip(1) != 0) die("fd round trip", RK_ERR_INTERNAL);
    rk_store_version(queued, &v1);
    if (v1 != v0 + 2) die("fd round trip: response not reduced", RK_ERR_INTERNAL);
}

/* rk_store_create with a large initial_state: 1,000 todos (accepted), and 100,000 keys the
 * state does not have (rejected after the merge over the default state, which is linear). */
static char *todos_options;
static char *many_keys_options;

static int op_create_todos(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) {
        rk_store *s = NULL;
        bad |= (int)rk_store_create("todos", todos_options, &s);
        rk_store_destroy(s);
    }
    return bad;
}

static int op_create_many_keys(long n) {
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) {
        rk_store *s = NULL;
        bad |= rk_store_create("counter", many_keys_options, &s) != RK_ERR_STATE;
    }
    return bad;
}

static char *make_many_keys_options(int keys) {
    size_t cap = 64 + (size_t)keys * 24, at = 0;
    char *options = (char *)malloc(cap);
    int i;
    at += (size_t)snprintf(options + at, cap - at, "{\"initial_state\":{\"count\":1");
    for (i = 0; i < keys; i++) at += (size_t)snprintf(options + at, cap - at, ",\"k%d\":%d", i, i);
    snprintf(options + at, cap - at, "}}");
    return options;
}

typedef struct bench {
    const char *name;
    int (*op)(long n);
    double target_ns; /* the target, 0 if none */
    const char *target_text;
} bench;

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Iterations for about `budget_ns` per repetition. */
static long calibrate(const bench *b, double budget_ns) {
    long n = 1;
    for (;;) {
        double t0 = now_ns(), dt;
        if (b->op(n) != 0) die(b->name, RK_ERR_INTERNAL);
        dt = now_ns() - t0;
        if (dt > budget_ns / 10 || n > (1L << 30)) {
            double per = dt / (double)n;
            long want = (long)(budget_ns / (per > 0.1 ? per : 0.1));
            return want < 1 ? 1 : want;
        }
        n *= 4;
    }
}

static char *make_todos_options(void) {
    /* {"initial_state": {"todos": [{"id": 1, "title": "Todo #1", "isComplete": false}, ...],
     *  "nextID": 1001}} */
    size_t cap = 64 + (size_t)TODOS * 80;
    char *options = (char *)malloc(cap);
    size_t at = 0;
    int i;
    at += (size_t)snprintf(options + at, cap - at, "{\"initial_state\":{\"todos\":[");
    for (i = 1; i <= TODOS; i++) {
        at += (size_t)snprintf(options + at, cap - at,
                               "%s{\"id\":%d,\"title\":\"Todo #%d\",\"isComplete\":%s}",
                               i > 1 ? "," : "", i, i, i % 3 == 0 ? "true" : "false");
    }
    snprintf(options + at, cap - at, "],\"nextID\":%d}}", TODOS + 1);
    return options;
}

static rk_store *make_todos(void) {
    rk_store *store = NULL;
    rk_status st = rk_store_create("todos", todos_options, &store);
    if (st != RK_OK) die("creating the todos store", st);
    return store;
}

int main(int argc, char **argv) {
    bench benches[] = {
        {"floor: rk_abi_version() (a bare call)", op_floor, 0, ""},
        {"rk_store_send(\"increment\"), counter, no state out", op_send_increment, 300,
         "<= 300"},
        {"rk_store_send({\"setCount\":N}), 4096 distinct texts", op_send_distinct, 0, ""},
        {"rk_store_send(\"increment\") + rk_store_state + rk_free", op_send_and_state, 0, ""},
        {"rk_store_state + rk_free, 1,000 todos, unchanged state", op_state_todos, 0, ""},
        {"rk_store_send({\"toggle\":{\"id\":500}}), 1,000 todos", op_toggle_todo, 0, ""},
        {"send toggle + rk_store_state + rk_free, 1,000 todos", op_toggle_and_state, 10000,
         "<= 10000"},
        {"  floor: malloc + memcpy + free of that state's bytes", op_state_floor, 0, ""},
        {"rk_store_get(\"/todos/5/title\") + rk_free, 1,000 todos", op_get_title, 150, "<= 150"},
        {"  floor: malloc + memcpy + free of those 8 bytes", op_get_floor, 0, ""},
        {"send toggle + rk_store_get(\"/todos/5/title\"), 1,000 todos", op_toggle_and_get_title,
         0, "(minus the toggle row: the read)"},
        {"rk_store_send(\"increment\"), created with {\"record\": true}", op_send_recorded, 0,
         "<= 4x the unrecorded send"},
        {"host round trip: send, callback resolves, response reduced", op_host_round_trip,
         5000, "<= 5000"},
        {"  floor: rk_store_send(\"increment\") on that store", op_provided_increment, 0, ""},
        {"  0.1.0 path: send factButtonTapped, Swift answers", op_live_fact, 0, ""},
        {"  queued: send + take_requests + resolve + wait_idle", op_queued_round_trip, 0, ""},
        {"host round trip, queue + fd: send, poll, take, resolve, wait", op_fd_round_trip, 5000,
         "<= 5000"},
        {"  for scale: two thread hops (condition variables, no library)", op_two_hops, 0, ""},
        {"rk_store_create + destroy, initial_state of 1,000 todos", op_create_todos, 0, ""},
        {"rk_store_create, initial_state of 100,000 unknown keys", op_create_many_keys, 0,
         "(rejected)"},
    };
    size_t nb = sizeof benches / sizeof benches[0], i;
    int reps = argc > 1 ? atoi(argv[1]) : 11;
    double *samples;
    rk_status st;
    char *json = NULL;
    size_t counter_len = 0, todos_len = 0;

    if (reps < 1) reps = 1;
    for (i = 0; i < DISTINCT; i++) snprintf(distinct[i], sizeof distinct[i], "{\"setCount\":%lu}",
                                            (unsigned long)(i * 7919u % 100000u));
    if (rk_abi_version() != RK_ABI_VERSION) {
        fprintf(stderr, "bench: library ABI %d, header ABI %d\n", rk_abi_version(),
                RK_ABI_VERSION);
        return 1;
    }
    st = rk_store_create("counter", NULL, &counter);
    if (st != RK_OK) die("creating the counter store", st);
    st = rk_store_create("counter", "{\"provide\":[\"numberFact\"]}", &provided);
    if (st != RK_OK) die("creating the provided counter store", st);
    if ((st = rk_store_on_request(provided, answer_inline, NULL)) != RK_OK) die("on_request", st);
    st = rk_store_create("counter", "{\"provide\":[\"numberFact\"]}", &queued);
    if (st != RK_OK) die("creating the queued counter store", st);
    if ((st = rk_store_request_fd(queued, &request_fd)) != RK_OK) die("request_fd", st);
    {
        pthread_t hop;
        if (pthread_create(&hop, NULL, hop_thread, NULL) != 0) die("pthread_create", RK_ERR_INTERNAL);
        pthread_detach(hop);
    }
    check_round_trips();
    todos_options = make_todos_options();
    many_keys_options = make_many_keys_options(100000);
    todos = make_todos();
    if ((st = rk_store_state(counter, &json, &counter_len)) != RK_OK) die("counter state", st);
    rk_free(json);
    if ((st = rk_store_state(todos, &json, &todos_len)) != RK_OK) die("todos state", st);
    todos_json = json; /* kept for the floor of a whole-state read */
    todos_json_len = todos_len;

    printf("ReducerKit C benchmark: library %s (ABI %d), median of %d repetitions of ~100 ms\n",
           rk_version(), rk_abi_version(), reps);
    printf("counter state %lu bytes; todos state %lu bytes (%d items)\n\n",
           (unsigned long)counter_len, (unsigned long)todos_len, TODOS);
    printf("%-58s %12s %12s %12s %12s  %s\n", "operation", "median ns/op", "min", "max",
           "iterations", "target ns");
    samples = (double *)malloc((size_t)reps * sizeof *samples);
    for (i = 0; i < nb; i++) {
        const bench *b = &benches[i];
        long n = calibrate(b, 1e8);
        int r;
        b->op(n / 10 + 1); /* warm-up */
        for (r = 0; r < reps; r++) {
            double t0 = now_ns();
            if (b->op(n) != 0) die(b->name, RK_ERR_INTERNAL);
            samples[r] = (now_ns() - t0) / (double)n;
        }
        qsort(samples, (size_t)reps, sizeof *samples, compare_doubles);
        {
            double median = reps % 2 ? samples[reps / 2]
                                     : (samples[reps / 2 - 1] + samples[reps / 2]) / 2;
            printf("%-58s %12.1f %12.1f %12.1f %12ld  %s%s\n", b->name, median, samples[0],
                   samples[reps - 1], n, b->target_text,
                   b->target_ns > 0 ? (median <= b->target_ns ? " (met)" : " (NOT met)") : "");
        }
        fflush(stdout);
    }
    free(samples);
    rk_store_destroy(counter);
    rk_store_destroy(todos);
    rk_store_destroy(provided);
    rk_store_destroy(queued);
    free(todos_options);
    free(many_keys_options);
    rk_free(todos_json);
    return 0;
}
