/*
 * test_deep.c — deeply nested input on a thread with a small (64 KB) stack, and large inputs.
 *
 * JSON nested up to the parser's limit (512 levels) is legal input. Parsing, decoding,
 * rejecting and freeing it must give a status, never a crash, on any thread a host may use:
 * this test sends nested arrays and objects at every depth 1..513 to each shipped feature, and
 * creates stores with a deep initial_state, all from a thread with a 64 KB stack, then checks
 * the stores still work and failed calls changed nothing.
 *
 * It also creates stores from an initial_state with 100,000 keys and 100,000 todos: merging
 * initial_state over the default state is linear (a quadratic merge took minutes here). No
 * timing is asserted; speed is measured in benchmarks/.
 */
#include "rk_test.h"

#include <limits.h>
#include <pthread.h>

#define LIMIT 512 /* the parser's default depth limit */

static char *buf;
static size_t buf_cap;

/* prefix + open*depth + middle + close*depth + suffix, in `buf`. */
static const char *nest(const char *prefix, const char *open, int depth, const char *middle,
                        const char *close, const char *suffix) {
    size_t need = strlen(prefix) + strlen(suffix) + strlen(middle) +
                  (size_t)depth * (strlen(open) + strlen(close)) + 1;
    char *p;
    int k;
    if (need > buf_cap) {
        buf_cap = need * 2;
        buf = realloc(buf, buf_cap);
        if (buf == NULL) abort();
    }
    p = buf;
    p += sprintf(p, "%s", prefix);
    for (k = 0; k < depth; k++) p += sprintf(p, "%s", open);
    p += sprintf(p, "%s", middle);
    for (k = 0; k < depth; k++) p += sprintf(p, "%s", close);
    sprintf(p, "%s", suffix);
    return buf;
}

typedef struct {
    const char *feature;
    rk_store *store;
} target;

/* Sends `json` expecting failure: not OK, a bounded message, version unchanged. When `total`
 * (the document's nesting) exceeds the limit the status must be RK_ERR_JSON. */
static void send_bad(target *t, const char *json, int total, const char *what) {
    uint64_t before = rk_t_version(t->store), after;
    rk_status st = rk_store_send(t->store, json);
    size_t len = strlen(rk_last_error());
    CHECK_MSG(st != RK_OK, "%s %s depth %d: accepted", t->feature, what, total);
    if (total > LIMIT) {
        CHECK_MSG(st == RK_ERR_JSON, "%s %s depth %d: status %s", t->feature, what, total,
                  rk_status_string(st));
    } else {
        CHECK_MSG(st == RK_ERR_JSON || st == RK_ERR_ACTION, "%s %s depth %d: status %s",
                  t->feature, what, total, rk_status_string(st));
    }
    CHECK_MSG(len > 0 && len < 4000, "%s %s depth %d: message of %zu bytes", t->feature, what,
              total, len);
    after = rk_t_version(t->store);
    CHECK_MSG(after == before, "%s %s depth %d: version changed", t->feature, what, total);
}

static void send_ok(target *t, const char *json, int total, const char *what) {
    rk_status st = rk_store_send(t->store, json);
    CHECK_MSG(st == RK_OK, "%s %s depth %d: status %s", t->feature, what, total,
              rk_status_string(st));
}

/* The next depth to test: every depth natively; under valgrind (slow) the first and last 16
 * and every 13th between. */
static int next_depth(int d) {
    if (!rk_t_under_valgrind() || d < 16 || d >= LIMIT - 16) return d + 1;
    return d + 13 < LIMIT - 16 ? d + 13 : LIMIT - 16;
}

static void deep_actions(target *t) {
    int d;
    TEST(t->feature);
    for (d = 1; d <= LIMIT + 1; d = next_depth(d)) {
        /* Shapes that are no action at all. */
        send_bad(t, nest("", "[", d, "", "]", ""), d, "arrays");
        send_bad(t, nest("", "{\"a\":", d, "1", "}", ""), d, "objects");
        send_bad(t, nest("", "[", d, "\"increment\"", "]", ""), d, "arrays around an action");
        /* Invalid JSON, failing at the innermost level (partial containers are freed). */
        send_bad(t, nest("", "[", d, "x", "]", ""), d > LIMIT ? d : LIMIT + 1, "arrays, bad");
        send_bad(t, nest("", "{\"a\":", d, "", "", ""), d > LIMIT ? d : LIMIT + 1,
                 "objects, unterminated");
        if (d >= 2) {
            /* A deep complete value, then a syntax error after it. */
            send_bad(t, nest("[", "[", d - 1, "", "]", ",x]"), d > LIMIT ? d : LIMIT + 1,
                     "arrays then garbage");
            /* Deep values inside an action: the wrong type for the payload, or an unknown
             * key, or a second root key beside a known action. */
            if (strcmp(t->feature, "counter") == 0) {
                send_bad(t, nest("{\"setCount\":", "[", d - 1, "5", "]", "}"), d, "setCount");
                send_bad(t, nest("{\"increment\":", "{\"a\":", d - 1, "1", "}", "}"), d,
                         "increment payload");
                send_bad(t, nest("{\"increment\":{},\"x\":", "[", d - 1, "", "]", "}"), d,
                         "second key");
            } else if (strcmp(t->feature, "todos") == 0) {
                if (d >= 3) {
                    send_bad(t, nest("{\"addTodo\":{\"title\":", "[", d - 2, "", "]", "}}"), d,
                             "addTodo title");
                    send_bad(t, nest("{\"addTodo\":{\"title\":\"a\",\"x\":", "{\"b\":", d - 2,
                                     "1", "}", "}}"),
                             d, "addTodo extra key");
                }
                send_bad(t, nest("{\"setFilter\":", "[", d - 1, "\"all\"", "]", "}"), d,
                         "setFilter");
            } else {
                send_bad(t, nest("{\"searchResponse\":", "[", d - 1, "1", "]", "}"), d,
                         "searchResponse");
                if (d == 2) {
                    send_ok(t, nest("{\"searchResponse\":", "[", d - 1, "\"a\"", "]", "}"), d,
                            "searchResponse");
                }
            }
        }
    }
}

static void deep_initial_states(void) {
    int d;
    rk_store *s = NULL;
    TEST("deep initial_state");
    for (d = 1; d <= LIMIT + 1; d += (d < 8 || d > LIMIT - 8) ? 1 : 7) {
        rk_status st;
        int total = d + 2; /* options object, initial_state object, then d levels */
        st = rk_store_create("counter", nest("{\"initial_state\":{\"count\":", "[", d, "", "]", "}}"), &s);
        CHECK_MSG(st == (total > LIMIT ? RK_ERR_JSON : RK_ERR_STATE), "count depth %d: %s", d,
                  rk_status_string(st));
        st = rk_store_create("counter", nest("{\"initial_state\":{\"x\":", "{\"a\":", d, "1", "}", "}}"), &s);
        CHECK_MSG(st == (total > LIMIT ? RK_ERR_JSON : RK_ERR_STATE), "unknown key depth %d: %s", d,
                  rk_status_string(st));
        st = rk_store_create("todos", nest("{\"initial_state\":{\"todos\":[{\"id\":1,\"title\":", "[", d, "", "]", ",\"isComplete\":false}]}}"), &s);
        CHECK_MSG(st == (total + 2 > LIMIT ? RK_ERR_JSON : RK_ERR_STATE), "todo title depth %d: %s", d,
                  rk_status_string(st));
        st = rk_store_create("search", nest("{\"bogus\":", "[", d, "", "]", "}"), &s);
        CHECK_MSG(st == (d + 1 > LIMIT ? RK_ERR_JSON : RK_ERR_INVALID_ARGUMENT), "bogus option depth %d: %s", d,
                  rk_status_string(st));
    }
}

/* After all of that, each store still takes actions. */
static void stores_still_work(target *targets) {
    TEST("the stores still work");
    CHECK_OK(rk_store_send(targets[0].store, "{\"setCount\":41}"));
    CHECK_OK(rk_store_send(targets[0].store, "\"increment\""));
    CHECK_STATE(targets[0].store, "{\"count\":42,\"fact\":null,\"isTimerOn\":false}");
    CHECK_OK(rk_store_send(targets[1].store, "{\"addTodo\":{\"title\":\"Milk\"}}"));
    CHECK_STATE(targets[1].store,
                "{\"todos\":[{\"id\":1,\"title\":\"Milk\",\"isComplete\":false}],\"filter\":\"all\","
                "\"nextID\":2}");
    CHECK_STATE(targets[2].store, "{\"query\":\"\",\"results\":[\"a\"]}");
}

static void *small_stack_body(void *arg) {
    target targets[3] = {{"counter", NULL}, {"todos", NULL}, {"search", NULL}};
    int k;
    (void)arg;
    for (k = 0; k < 3; k++) {
        CHECK_OK(rk_store_create(targets[k].feature, "{\"clock\":\"test\"}", &targets[k].store));
        if (targets[k].store == NULL) return NULL;
    }
    for (k = 0; k < 3; k++) deep_actions(&targets[k]);
    deep_initial_states();
    stores_still_work(targets);
    for (k = 0; k < 3; k++) rk_store_destroy(targets[k].store);
    return NULL;
}

static void run_on_small_stack(size_t size) {
    pthread_attr_t attr;
    pthread_t thread;
    int rc;
    pthread_attr_init(&attr);
    rc = pthread_attr_setstacksize(&attr, size);
    CHECK_MSG(rc == 0, "pthread_attr_setstacksize(%zu) failed: %d", size, rc);
    rc = pthread_create(&thread, &attr, small_stack_body, NULL);
    CHECK_MSG(rc == 0, "pthread_create failed: %d", rc);
    if (rc == 0) pthread_join(thread, NULL);
    pthread_attr_destroy(&attr);
}

/* ---- Large inputs -------------------------------------------------------------------- */

static void initial_state_with_many_keys(void) {
    const int n = 100000;
    size_t cap = (size_t)n * 64 + 128, len = 0;
    char *json;
    rk_store *s = NULL;
    int k;
    TEST("initial_state with 100,000 keys");
    json = malloc(cap);
    if (json == NULL) abort();
    len += (size_t)sprintf(json + len, "{\"initial_state\":{\"count\":7");
    for (k = 0; k < n; k++) len += (size_t)sprintf(json + len, ",\"k%d\":%d", k, k);
    sprintf(json + len, "}}");
    CHECK_STATUS(rk_store_create("counter", json, &s), RK_ERR_STATE);
    CHECK_CONTAINS(rk_last_error(), "unknown key \"k0\" at $.k0");
    CHECK(strlen(rk_last_error()) < 1000);
    free(json);
}

static void initial_state_with_many_todos(void) {
    const int n = 100000;
    size_t cap = (size_t)n * 64 + 128, len = 0;
    char *json;
    rk_store *s = NULL;
    char *state;
    int k;
    TEST("initial_state with 100,000 todos");
    json = malloc(cap);
    if (json == NULL) abort();
    len += (size_t)sprintf(json + len, "{\"initial_state\":{\"todos\":[");
    for (k = 0; k < n; k++) {
        len += (size_t)sprintf(json + len, "%s{\"id\":%d,\"title\":\"t%d\",\"isComplete\":%s}",
                               k ? "," : "", k + 1, k, k % 2 ? "true" : "false");
    }
    sprintf(json + len, "],\"nextID\":%d}}", n + 1);
    CHECK_OK(rk_store_create("todos", json, &s));
    CHECK_OK(rk_store_send(s, "\"clearCompleted\""));
    state = rk_t_state(s);
    CHECK_CONTAINS(state, "{\"id\":99999,\"title\":\"t99998\",\"isComplete\":false}]");
    CHECK(state != NULL && strstr(state, "\"isComplete\":true") == NULL);
    rk_free(state);
    rk_store_destroy(s);
    free(json);
}

int main(int argc, char **argv) {
    /* RK_DEEP_STACK_KB overrides the stack size, to measure how small a stack still works. */
    const char *kb = getenv("RK_DEEP_STACK_KB");
    size_t size = (kb != NULL && atoi(kb) > 0) ? (size_t)atoi(kb) * 1024 : 64 * 1024;
#ifdef PTHREAD_STACK_MIN
    if (size < (size_t)PTHREAD_STACK_MIN) size = (size_t)PTHREAD_STACK_MIN;
#endif
    rk_t_select(argc, argv);
    rk_t_watchdog(120);
    if (!rk_t_listing) printf("nested input on a thread with a %zu KB stack:\n", size / 1024);
    run_on_small_stack(size);
    initial_state_with_many_keys();
    initial_state_with_many_todos();
    free(buf);
    RK_TEST_EXIT();
}
