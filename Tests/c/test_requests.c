/*
 * test_requests.c — effects the host fulfils (reducerkit.h, "Effects the host fulfils"):
 * the provide option, request and cancellation events through the queue, its fd and a
 * callback, rk_store_resolve / rk_store_fail, hostile answers, destroy with requests pending,
 * and many threads answering many requests while effects are cancelled and a store is
 * destroyed (every request answered exactly once or reported as cancelled).
 *
 * Features used: counter (endpoint numberFact: payload the count, response a string, asked by
 * "factButtonTapped", answered as {"factResponse": ...}; a failed call becomes the fact
 * "Could not load a fact about N: <message>") and search (endpoint search: payload the query,
 * response [String]; asked 300 ms after {"queryChanged": q} on the store's clock, cancelled
 * by the next query or an empty one; a failed call reaches no catch handler).
 */
#include "rk_test.h"
#include "json_mini.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>

#define COUNTER0 "{\"count\":0,\"fact\":null,\"isTimerOn\":false}"
#define PROVIDE_FACT "{\"provide\":[\"numberFact\"]}"
#define PROVIDE_FACT_RECORDED "{\"provide\":[\"numberFact\"],\"record_actions\":true}"
#define PROVIDE_FACT_TEST_CLOCK "{\"provide\":[\"numberFact\"],\"clock\":\"test\"}"
#define PROVIDE_SEARCH "{\"provide\":[\"search\"],\"clock\":\"test\"}"

/* ---- Helpers ------------------------------------------------------------------------- */

/* Whether `fd` is readable right now (poll with a 0 timeout). */
static int readable(int fd) {
    struct pollfd p;
    p.fd = fd;
    p.events = POLLIN;
    p.revents = 0;
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0;
}

/* The store's queued request events, parsed (an array; NULL after a failed check). */
static jm_value *take_at(rk_store *store, const char *file, int line) {
    char *json = NULL;
    size_t len = 0;
    jm_value *events;
    char err[160];
    rk_status st = rk_store_take_requests(store, &json, &len);
    rk_t_report(st == RK_OK, file, line, "rk_store_take_requests(store) == RK_OK", "status %s",
                rk_status_string(st));
    if (st != RK_OK) return NULL;
    rk_t_report(json != NULL && strlen(json) == len, file, line,
                "rk_store_take_requests: out_len == strlen(out_json)", NULL);
    events = jm_parse(json, len, err, sizeof err);
    rk_t_report(events != NULL && events->type == JM_ARRAY, file, line,
                "rk_store_take_requests gives a JSON array", "%s: %.300s", err, json);
    rk_free(json);
    if (events != NULL && events->type != JM_ARRAY) {
        jm_free(events);
        return NULL;
    }
    return events;
}

#define take(store) take_at((store), __FILE__, __LINE__)

/* Checks that the queued events are exactly `expected` (JSON text), and takes them. */
#define CHECK_TAKE(store, expected) \
    do { \
        char *rk_q_ = NULL; \
        CHECK_OK(rk_store_take_requests((store), &rk_q_, NULL)); \
        CHECK_JSON(rk_q_, (expected)); \
        rk_free(rk_q_); \
    } while (0)

/* The "id" of an event (0 if it has none). */
static uint64_t id_of(const jm_value *event) {
    const jm_value *id = jm_get(event, "id");
    if (id == NULL || id->type != JM_NUMBER) return 0;
    return strtoull(id->text, NULL, 10);
}

/* The id of an event's text ({"id":N,...}). */
static uint64_t id_of_text(const char *event) {
    const char *at = strstr(event, "\"id\":");
    return at ? strtoull(at + 5, NULL, 10) : 0;
}

static int is_cancellation(const jm_value *event) {
    const jm_value *c = jm_get(event, "cancelled");
    return c != NULL && c->type == JM_BOOL && c->boolean;
}

static uint64_t effects_of(rk_store *store) {
    uint64_t n = UINT64_MAX;
    CHECK_OK(rk_store_effect_count(store, &n));
    return n;
}

/* The string value of `key` in the store's state, copied into buf ("(null)" for null). */
static const char *state_string(rk_store *store, const char *key, char *buf, size_t cap) {
    char *json = rk_t_state(store);
    jm_value *v = jm_parse_str(json);
    const jm_value *field = jm_get(v, key);
    if (field != NULL && field->type == JM_STRING) snprintf(buf, cap, "%s", field->text);
    else if (field != NULL && field->type == JM_NULL) snprintf(buf, cap, "(null)");
    else snprintf(buf, cap, "(missing in %.200s)", json ? json : "NULL");
    jm_free(v);
    rk_free(json);
    return buf;
}

/* ---- The queue and its fd ------------------------------------------------------------ */

static void test_queue_round_trip(void) {
    rk_store *s;
    int fd = -1, fd2 = -2, flags;
    char *json = NULL;
    char fact[256];
    jm_value *events, *log;
    TEST("queued: a request, its fd, rk_store_resolve, the response reduced");
    s = CREATE("counter", PROVIDE_FACT_RECORDED);

    CHECK_OK(rk_store_request_fd(s, &fd));
    CHECK(fd >= 0);
    CHECK_OK(rk_store_request_fd(s, &fd2));
    CHECK_MSG(fd == fd2, "the same descriptor every call: %d, %d", fd, fd2);
    flags = fcntl(fd, F_GETFL);
    CHECK_MSG(flags != -1 && (flags & O_NONBLOCK), "non-blocking: flags %#x", flags);
    flags = fcntl(fd, F_GETFD);
    CHECK_MSG(flags != -1 && (flags & FD_CLOEXEC), "close-on-exec: flags %#x", flags);

    /* Nothing queued: not readable, and the queue is []. */
    CHECK(!readable(fd));
    CHECK_OK(rk_store_take_requests(s, &json, NULL));
    CHECK_STR_EQ(json, "[]");
    rk_free(json);
    CHECK_OK(rk_store_send(s, "{\"setCount\":42}"));
    CHECK(!readable(fd)); /* an action without effects asks nothing */

    /* The request is queued by the time the send returns. */
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK(readable(fd));
    CHECK(readable(fd)); /* poll does not consume it */
    CHECK(effects_of(s) == 1);
    /* The effect waits for the host: idle, but counted. */
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK_OK(rk_store_wait_idle(s, 0));
    CHECK(effects_of(s) == 1);
    CHECK(readable(fd)); /* waiting did not take the events */
    CHECK(rk_t_version(s) == 2);

    CHECK_TAKE(s, "[{\"id\":1,\"name\":\"numberFact\",\"payload\":42}]");
    CHECK(!readable(fd));
    CHECK_TAKE(s, "[]");
    CHECK_STATE(s, "{\"count\":42,\"fact\":null,\"isTimerOn\":false}");

    CHECK_OK(rk_store_resolve(s, 1, "\"42 is the answer.\""));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK(effects_of(s) == 0);
    CHECK_STATE(s, "{\"count\":42,\"fact\":\"42 is the answer.\",\"isTimerOn\":false}");
    CHECK(rk_t_version(s) == 3);
    CHECK(!readable(fd)); /* an answer is not an event */

    /* The response was reduced once, as an action of the effect. */
    CHECK_OK(rk_store_take_actions(s, &json, NULL));
    log = jm_parse_str(json);
    CHECK_MSG(log != NULL && log->count == 3, "%s", json);
    if (log != NULL && log->count == 3) {
        char *action = jm_dump(jm_get(jm_at(log, 2), "action"));
        CHECK_JSON(action, "{\"factResponse\":\"42 is the answer.\"}");
        CHECK_STR_EQ(jm_str(jm_get(jm_at(log, 2), "origin")), "effect");
        free(action);
    }
    jm_free(log);
    rk_free(json);

    /* Several requests at once: ids count up, events in order, answers in any order. */
    CHECK_OK(rk_store_send(s, "{\"setCount\":7}"));
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK_OK(rk_store_send(s, "{\"setCount\":12}"));
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK(effects_of(s) == 3);
    CHECK(readable(fd));
    events = take(s);
    CHECK_MSG(events != NULL && events->count == 3, "3 requests queued");
    if (events != NULL && events->count == 3) {
        char *text = jm_dump(events);
        CHECK_JSON(text, "[{\"id\":2,\"name\":\"numberFact\",\"payload\":7},"
                         "{\"id\":3,\"name\":\"numberFact\",\"payload\":12},"
                         "{\"id\":4,\"name\":\"numberFact\",\"payload\":12}]");
        free(text);
    }
    jm_free(events);
    CHECK(!readable(fd));
    CHECK_OK(rk_store_resolve(s, 4, "\"four\""));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK_STR_EQ(state_string(s, "fact", fact, sizeof fact), "four");
    CHECK_OK(rk_store_resolve(s, 2, "\"two\""));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK_STR_EQ(state_string(s, "fact", fact, sizeof fact), "two");
    CHECK(effects_of(s) == 1);
    /* A response with escapes and non-ASCII text arrives as sent. */
    CHECK_OK(rk_store_resolve(s, 3, "\"tw\\u00e9lve \\\"12\\\" \xe2\x9c\x93\""));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK_STR_EQ(state_string(s, "fact", fact, sizeof fact), "tw\xc3\xa9lve \"12\" \xe2\x9c\x93");
    CHECK(effects_of(s) == 0);
    CHECK(rk_t_version(s) == 3 + 5 + 3);
    rk_store_destroy(s);
}

/* ---- Callbacks ----------------------------------------------------------------------- */

typedef struct cb_log {
    rk_store *store;
    int answer;             /* 1: resolve each request inside the callback */
    int requests, cancellations;
    uint64_t ids[64];       /* ids of the events, in order (cancellations negated: see kinds) */
    int kinds[64];          /* 'r' request, 'c' cancellation */
    int events;
    int on_caller_thread;   /* events delivered on `caller` */
    pthread_t caller;
    rk_status resolve_status, wait_status, advance_status, state_status;
    int after_destroy;      /* callbacks after the test said destroy returned */
    int destroy_returned;
    char last_payload[64];
    pthread_mutex_t mu;
} cb_log;

static void cb_log_init(cb_log *l, rk_store *store, int answer) {
    memset(l, 0, sizeof *l);
    l->store = store;
    l->answer = answer;
    l->caller = pthread_self();
    l->resolve_status = l->wait_status = l->advance_status = l->state_status = (rk_status)-1;
    pthread_mutex_init(&l->mu, NULL);
}

static void on_request(void *userdata, const char *event_json, size_t len) {
    cb_log *l = (cb_log *)userdata;
    jm_value *ev = jm_parse(event_json, len, NULL, 0);
    uint64_t id = id_of(ev);
    int cancelled = is_cancellation(ev);
    pthread_mutex_lock(&l->mu);
    if (l->destroy_returned) l->after_destroy++;
    if (strlen(event_json) != len) l->after_destroy += 1000; /* flagged below as a failure */
    if (l->events < 64) {
        l->ids[l->events] = id;
        l->kinds[l->events] = cancelled ? 'c' : 'r';
    }
    l->events++;
    if (pthread_equal(pthread_self(), l->caller)) l->on_caller_thread++;
    if (cancelled) l->cancellations++;
    else {
        l->requests++;
        snprintf(l->last_payload, sizeof l->last_payload, "%s",
                 jm_get(ev, "payload") ? jm_get(ev, "payload")->text : "?");
    }
    pthread_mutex_unlock(&l->mu);
    if (!cancelled && l->answer) {
        char fact[128];
        char *state = NULL;
        /* Allowed inside: reading the state; not allowed: waiting for the store. */
        l->state_status = rk_store_state(l->store, &state, NULL);
        rk_free(state);
        l->wait_status = rk_store_wait_idle(l->store, 0);
        l->advance_status = rk_store_advance_clock(l->store, 0);
        snprintf(fact, sizeof fact, "\"%s is a fact from the callback.\"",
                 jm_get(ev, "payload") ? jm_get(ev, "payload")->text : "?");
        l->resolve_status = rk_store_resolve(l->store, id, fact);
    }
    jm_free(ev);
}

static void test_callback_round_trip(void) {
    rk_store *s;
    cb_log l;
    int fd = -1;
    TEST("callback: resolved inside the callback, reduced before rk_store_send returns");
    s = CREATE("counter", PROVIDE_FACT_TEST_CLOCK);
    cb_log_init(&l, s, 1);
    CHECK_OK(rk_store_request_fd(s, &fd));
    CHECK_OK(rk_store_on_request(s, on_request, &l));
    CHECK_OK(rk_store_send(s, "{\"setCount\":7}"));
    CHECK(l.events == 0);
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    /* No wait: answered inside the callback, the effect went on without suspending. */
    CHECK(l.requests == 1 && l.cancellations == 0);
    CHECK(l.ids[0] == 1);
    CHECK_STR_EQ(l.last_payload, "7");
    CHECK_MSG(l.on_caller_thread == 1, "the callback ran on the sending thread");
    CHECK_STATUS(l.resolve_status, RK_OK);
    CHECK_STATUS(l.state_status, RK_OK);
    CHECK_STATUS(l.wait_status, RK_ERR_MISUSE);
    CHECK_STATUS(l.advance_status, RK_ERR_MISUSE);
    CHECK_STATE(s, "{\"count\":7,\"fact\":\"7 is a fact from the callback.\",\"isTimerOn\":false}");
    CHECK(rk_t_version(s) == 3);
    CHECK(effects_of(s) == 0);
    CHECK(!readable(fd)); /* events go to the callback, not the queue */
    CHECK_TAKE(s, "[]");
    /* Outside the callback, waiting is fine again. */
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(1000)));
    CHECK_OK(rk_store_advance_clock(s, 10));
    /* The same answered again from outside: already answered. */
    CHECK_STATUS(rk_store_resolve(s, 1, "\"again\""), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "already answered");

    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK(l.requests == 2 && l.ids[1] == 2);
    CHECK_STATE(s, "{\"count\":8,\"fact\":\"8 is a fact from the callback.\",\"isTimerOn\":false}");
    rk_store_destroy(s);
    pthread_mutex_destroy(&l.mu);
}

typedef struct answer_job {
    rk_store *store;
    uint64_t id;
    const char *response;
    rk_status status;
} answer_job;

static void *answer_on_thread(void *arg) {
    answer_job *job = (answer_job *)arg;
    job->status = rk_store_resolve(job->store, job->id, job->response);
    return NULL;
}

static void test_callback_set_and_removed(void) {
    rk_store *s;
    cb_log l;
    int fd = -1;
    char fact[256];
    pthread_t t;
    answer_job job;
    TEST("callback: queued events go to a new callback first; answers later, from a thread");
    s = CREATE("counter", PROVIDE_FACT);
    cb_log_init(&l, s, 0);
    CHECK_OK(rk_store_request_fd(s, &fd));
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK(readable(fd));
    /* Setting a callback hands it the queued events before returning, oldest first. */
    CHECK_OK(rk_store_on_request(s, on_request, &l));
    CHECK_MSG(l.requests == 3 && l.ids[0] == 1 && l.ids[1] == 2 && l.ids[2] == 3,
              "%d requests: %llu %llu %llu", l.requests, (unsigned long long)l.ids[0],
              (unsigned long long)l.ids[1], (unsigned long long)l.ids[2]);
    CHECK(l.on_caller_thread == 3);
    CHECK(!readable(fd));
    CHECK_TAKE(s, "[]");
    CHECK(effects_of(s) == 3);

    /* Kept ids are answered later, from another thread. */
    job.store = s;
    job.id = 2;
    job.response = "\"two, from a thread\"";
    job.status = (rk_status)-1;
    CHECK(pthread_create(&t, NULL, answer_on_thread, &job) == 0);
    pthread_join(t, NULL);
    CHECK_STATUS(job.status, RK_OK);
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK_STR_EQ(state_string(s, "fact", fact, sizeof fact), "two, from a thread");
    CHECK(effects_of(s) == 2);

    /* NULL: back to the queue. The old callback is not called again. */
    CHECK_OK(rk_store_on_request(s, NULL, NULL));
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK(l.events == 3);
    CHECK(readable(fd));
    CHECK_TAKE(s, "[{\"id\":4,\"name\":\"numberFact\",\"payload\":2}]");
    CHECK_OK(rk_store_resolve(s, 1, "\"one\""));
    CHECK_OK(rk_store_resolve(s, 3, "\"three\""));
    CHECK_OK(rk_store_resolve(s, 4, "\"four\""));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK(effects_of(s) == 0);
    CHECK(rk_t_version(s) == 6 + 4);
    CHECK(l.events == 3);
    rk_store_destroy(s);
    pthread_mutex_destroy(&l.mu);
}

/* ---- rk_store_fail ------------------------------------------------------------------- */

static void test_fail(void) {
    rk_store *c;
    rk_store *s;
    char fact[256], *before;
    uint64_t version;
    TEST("rk_store_fail: the effect's call throws");
    c = CREATE("counter", PROVIDE_FACT);
    s = CREATE("search", PROVIDE_SEARCH);

    /* counter catches the error and shows it as the fact. */
    CHECK_OK(rk_store_send(c, "{\"setCount\":5}"));
    CHECK_OK(rk_store_send(c, "\"factButtonTapped\""));
    CHECK_TAKE(c, "[{\"id\":1,\"name\":\"numberFact\",\"payload\":5}]");
    CHECK_OK(rk_store_fail(c, 1, "offline"));
    CHECK_OK(rk_store_wait_idle(c, RK_T_MS(5000)));
    CHECK(effects_of(c) == 0);
    CHECK_STR_EQ(state_string(c, "fact", fact, sizeof fact),
                 "Could not load a fact about 5: offline");
    CHECK_STATUS(rk_store_fail(c, 1, "again"), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "already answered");
    CHECK_STATUS(rk_store_resolve(c, 1, "\"late\""), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "already answered");
    /* A NULL message is an empty one. */
    CHECK_OK(rk_store_send(c, "\"factButtonTapped\""));
    CHECK_TAKE(c, "[{\"id\":2,\"name\":\"numberFact\",\"payload\":5}]");
    CHECK_OK(rk_store_fail(c, 2, NULL));
    CHECK_OK(rk_store_wait_idle(c, RK_T_MS(5000)));
    CHECK_STR_EQ(state_string(c, "fact", fact, sizeof fact), "Could not load a fact about 5: ");
    CHECK_STATUS(rk_store_fail(c, 3, "x"), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "unknown");
    /* A message that is not UTF-8 (the header's contract) is refused and answers nothing: the
     * request stays pending and takes a valid answer afterwards. */
    CHECK_OK(rk_store_send(c, "\"factButtonTapped\""));
    CHECK_TAKE(c, "[{\"id\":3,\"name\":\"numberFact\",\"payload\":5}]");
    CHECK_STATUS(rk_store_fail(c, 3, "off\xffline"), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "message is not valid UTF-8 (byte 3)");
    CHECK_STATUS(rk_store_fail(c, 3, "\xc3"), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "message is not valid UTF-8 (byte 0)");
    CHECK(effects_of(c) == 1);
    CHECK_OK(rk_store_fail(c, 3, "caf\xc3\xa9"));
    CHECK_OK(rk_store_wait_idle(c, RK_T_MS(5000)));
    CHECK_STR_EQ(state_string(c, "fact", fact, sizeof fact), "Could not load a fact about 5: caf\xc3\xa9");

    /* search has no catch handler: no action is reduced (the error goes to standard error),
     * and the effect is over. */
    CHECK_OK(rk_store_send(s, "{\"queryChanged\":\"sw\"}"));
    CHECK_OK(rk_store_advance_clock(s, 300));
    CHECK_TAKE(s, "[{\"id\":1,\"name\":\"search\",\"payload\":\"sw\"}]");
    CHECK(effects_of(s) == 1);
    before = rk_t_state(s);
    version = rk_t_version(s);
    printf("   (an error report about a failed search request is expected on stderr)\n");
    fflush(stdout);
    CHECK_OK(rk_store_fail(s, 1, "the search service is down"));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK(effects_of(s) == 0);
    CHECK(rk_t_version(s) == version);
    CHECK_STATE(s, before);
    CHECK_TAKE(s, "[]"); /* a failure is not an event */
    rk_free(before);
    rk_store_destroy(c);
    rk_store_destroy(s);
}

/* ---- The provide option and rk_features ---------------------------------------------- */

static void test_provide_option(void) {
    rk_store *sentinel = (rk_store *)&sentinel;
    rk_store *out = sentinel;
    rk_store *s;
    TEST("the provide option");
    CHECK_STATUS(rk_store_create("counter", "{\"provide\":[\"nope\"]}", &out),
                 RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "nope");
    CHECK_CONTAINS(rk_last_error(), "numberFact"); /* lists the endpoints */
    CHECK_STATUS(rk_store_create("counter", "{\"provide\":[\"search\"]}", &out),
                 RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "numberFact");
    CHECK_STATUS(rk_store_create("search", "{\"provide\":[\"numberFact\"]}", &out),
                 RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "\"search\"");
    CHECK_STATUS(rk_store_create("counter", "{\"provide\":[\"numberFact\",\"numberFact\"]}", &out),
                 RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "twice");
    CHECK_STATUS(rk_store_create("todos", "{\"provide\":[\"numberFact\"]}", &out),
                 RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "no endpoints");
    CHECK_STATUS(rk_store_create("counter", "{\"provide\":\"numberFact\"}", &out),
                 RK_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rk_store_create("counter", "{\"provide\":[42]}", &out), RK_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rk_store_create("counter", "{\"provide\":[\"numberFact\"],\"provide\":[]}", &out),
                 RK_ERR_JSON);
    CHECK(out == sentinel);

    /* Without provide, or with [], the Swift implementation answers and the host hears
     * nothing. */
    s = CREATE("counter", "{\"provide\":[]}");
    CHECK_OK(rk_store_send(s, "{\"setCount\":42}"));
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK_STATE(s, "{\"count\":42,\"fact\":\"42 is the answer to the ultimate question.\","
                   "\"isTimerOn\":false}");
    CHECK_TAKE(s, "[]");
    CHECK_STATUS(rk_store_resolve(s, 1, "\"x\""), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "unknown");
    rk_store_destroy(s);
    s = CREATE("search", "{\"clock\":\"test\"}");
    CHECK_OK(rk_store_send(s, "{\"queryChanged\":\"sw\"}"));
    CHECK_OK(rk_store_advance_clock(s, 300));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK_STATE(s, "{\"query\":\"sw\",\"results\":[\"swift\",\"swim\"]}");
    CHECK_TAKE(s, "[]");
    rk_store_destroy(s);
}

static void test_features_list_requests(void) {
    char *json = NULL;
    size_t len = 0, i;
    jm_value *features;
    int seen = 0;
    TEST("rk_features lists each feature's requests with their schemas");
    CHECK_OK(rk_features(&json, &len));
    features = jm_parse(json, len, NULL, 0);
    CHECK(features != NULL && features->type == JM_ARRAY);
    for (i = 0; features != NULL && i < features->count; i++) {
        const jm_value *f = jm_at(features, i);
        const char *name = jm_str(jm_get(f, "name"));
        const jm_value *requests = jm_get(f, "requests");
        char *text = jm_dump(requests);
        CHECK_MSG(requests != NULL && requests->type == JM_ARRAY, "feature %s: requests %s",
                  name ? name : "?", text ? text : "missing");
        if (name != NULL && strcmp(name, "counter") == 0) {
            const jm_value *r = jm_at(requests, 0);
            CHECK_MSG(requests != NULL && requests->count == 1, "%s", text);
            CHECK_STR_EQ(jm_str(jm_get(r, "name")), "numberFact");
            CHECK_STR_EQ(jm_str(jm_get(jm_get(r, "payload_schema"), "type")), "integer");
            CHECK_STR_EQ(jm_str(jm_get(jm_get(r, "response_schema"), "type")), "string");
            seen++;
        } else if (name != NULL && strcmp(name, "search") == 0) {
            const jm_value *r = jm_at(requests, 0);
            const jm_value *response = jm_get(r, "response_schema");
            CHECK_MSG(requests != NULL && requests->count == 1, "%s", text);
            CHECK_STR_EQ(jm_str(jm_get(r, "name")), "search");
            CHECK_STR_EQ(jm_str(jm_get(jm_get(r, "payload_schema"), "type")), "string");
            CHECK_STR_EQ(jm_str(jm_get(response, "type")), "array");
            CHECK_STR_EQ(jm_str(jm_get(jm_get(response, "items"), "type")), "string");
            seen++;
        } else if (name != NULL && strcmp(name, "todos") == 0) {
            CHECK_MSG(requests != NULL && requests->count == 0, "todos: %s", text);
            seen++;
        }
        free(text);
    }
    CHECK(seen == 3);
    jm_free(features);
    rk_free(json);
}

/* ---- Idle, clock, cancellation ------------------------------------------------------- */

static void test_clock_idle_and_cancellation(void) {
    rk_store *s;
    int fd = -1;
    char *before;
    uint64_t version;
    TEST("test clock: requests after the debounce; settles while pending; cancellations");
    s = CREATE("search", PROVIDE_SEARCH);
    CHECK_OK(rk_store_request_fd(s, &fd));
    CHECK_OK(rk_store_send(s, "{\"queryChanged\":\"sw\"}"));
    CHECK_OK(rk_store_advance_clock(s, 299));
    CHECK(!readable(fd));
    CHECK_TAKE(s, "[]");
    CHECK_OK(rk_store_advance_clock(s, 1));
    CHECK(readable(fd));
    CHECK(effects_of(s) == 1);
    /* Pending: the clock settles and wait_idle returns; the effect still counts. */
    CHECK_OK(rk_store_advance_clock(s, 1000));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK(effects_of(s) == 1);
    CHECK_TAKE(s, "[{\"id\":1,\"name\":\"search\",\"payload\":\"sw\"}]");
    CHECK_OK(rk_store_resolve(s, 1, "[\"swift\",\"swim\"]"));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK_STATE(s, "{\"query\":\"sw\",\"results\":[\"swift\",\"swim\"]}");
    CHECK(effects_of(s) == 0);

    /* A new query cancels the search in flight; the cancellation is queued by the time the
     * send returns. */
    CHECK_OK(rk_store_send(s, "{\"queryChanged\":\"re\"}"));
    CHECK_OK(rk_store_advance_clock(s, 300));
    CHECK_TAKE(s, "[{\"id\":2,\"name\":\"search\",\"payload\":\"re\"}]");
    CHECK_OK(rk_store_send(s, "{\"queryChanged\":\"red\"}"));
    CHECK(readable(fd));
    CHECK_TAKE(s, "[{\"id\":2,\"cancelled\":true}]");
    before = rk_t_state(s);
    version = rk_t_version(s);
    CHECK_STATUS(rk_store_resolve(s, 2, "[\"reducer\"]"), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "cancelled");
    CHECK_STATUS(rk_store_fail(s, 2, "late"), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "cancelled");
    CHECK_STATE(s, before);
    CHECK(rk_t_version(s) == version);
    rk_free(before);
    CHECK_OK(rk_store_advance_clock(s, 300));
    CHECK_TAKE(s, "[{\"id\":3,\"name\":\"search\",\"payload\":\"red\"}]");
    CHECK_OK(rk_store_resolve(s, 3, "[\"reducer\",\"redux\"]"));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK_STATE(s, "{\"query\":\"red\",\"results\":[\"reducer\",\"redux\"]}");

    /* An empty query cancels it too; a request and its cancellation, in that order. */
    CHECK_OK(rk_store_send(s, "{\"queryChanged\":\"pl\"}"));
    CHECK_OK(rk_store_advance_clock(s, 300));
    CHECK_OK(rk_store_send(s, "{\"queryChanged\":\"\"}"));
    CHECK_TAKE(s, "[{\"id\":4,\"name\":\"search\",\"payload\":\"pl\"},{\"id\":4,\"cancelled\":true}]");
    CHECK_STATE(s, "{\"query\":\"\",\"results\":[]}");
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK(effects_of(s) == 0);
    /* A query that changes within the debounce asks nothing. */
    CHECK_OK(rk_store_send(s, "{\"queryChanged\":\"a\"}"));
    CHECK_OK(rk_store_advance_clock(s, 200));
    CHECK_OK(rk_store_send(s, "{\"queryChanged\":\"ap\"}"));
    CHECK_OK(rk_store_advance_clock(s, 200));
    CHECK_TAKE(s, "[]");
    CHECK_OK(rk_store_advance_clock(s, 100));
    CHECK_TAKE(s, "[{\"id\":5,\"name\":\"search\",\"payload\":\"ap\"}]");
    /* Ids are never reused: the next request after a cancellation is a new id. */
    CHECK_OK(rk_store_resolve(s, 5, "[\"apple\",\"apricot\"]"));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK_STATE(s, "{\"query\":\"ap\",\"results\":[\"apple\",\"apricot\"]}");
    rk_store_destroy(s);
}

/* ---- Destroy with requests pending --------------------------------------------------- */

static void test_destroy_with_pending(void) {
    rk_store *s;
    rk_store *q;
    cb_log l;
    char *json = NULL;
    int fd = -1, i, cancelled_in_order = 1;
    TEST("destroy with requests pending: cancellations before it returns, no callback after");
    s = CREATE("counter", PROVIDE_FACT);
    cb_log_init(&l, s, 0);
    CHECK_OK(rk_store_on_request(s, on_request, &l));
    for (i = 0; i < 3; i++) CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK(l.requests == 3);
    CHECK_OK(rk_store_resolve(s, 2, "\"two\"")); /* answered: not cancelled at destroy */
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK(effects_of(s) == 2);
    l.on_caller_thread = 0;
    rk_store_destroy(s);
    pthread_mutex_lock(&l.mu);
    l.destroy_returned = 1;
    pthread_mutex_unlock(&l.mu);
    CHECK_MSG(l.cancellations == 2, "%d cancellations", l.cancellations);
    CHECK(l.events == 5);
    for (i = 3; i < 5 && i < l.events; i++) {
        if (l.kinds[i] != 'c') cancelled_in_order = 0;
    }
    CHECK(cancelled_in_order);
    CHECK(l.ids[3] + l.ids[4] == 1 + 3 && l.ids[3] != l.ids[4]);
    CHECK_MSG(l.on_caller_thread == 2, "cancellations delivered on the destroying thread");
    rk_t_sleep_ms(rk_t_under_valgrind() ? 200 : 50);
    CHECK(l.after_destroy == 0);
    CHECK_STATUS(rk_store_resolve(s, 1, "\"late\""), RK_ERR_INVALID_HANDLE);
    CHECK_STATUS(rk_store_fail(s, 3, "late"), RK_ERR_INVALID_HANDLE);
    CHECK_STATUS(rk_store_take_requests(s, &json, NULL), RK_ERR_INVALID_HANDLE);
    CHECK_STATUS(rk_store_request_fd(s, &fd), RK_ERR_INVALID_HANDLE);
    CHECK_STATUS(rk_store_on_request(s, on_request, &l), RK_ERR_INVALID_HANDLE);
    pthread_mutex_destroy(&l.mu);

    /* Queued: destroy just closes the fd (valgrind: nothing leaks). */
    q = CREATE("search", PROVIDE_SEARCH);
    CHECK_OK(rk_store_request_fd(q, &fd));
    CHECK_OK(rk_store_send(q, "{\"queryChanged\":\"sw\"}"));
    CHECK_OK(rk_store_advance_clock(q, 300));
    CHECK(readable(fd));
    rk_store_destroy(q);

    /* A store whose debounce is asleep and whose request is pending, with a callback. */
    q = CREATE("search", PROVIDE_SEARCH);
    cb_log_init(&l, q, 0);
    CHECK_OK(rk_store_on_request(q, on_request, &l));
    CHECK_OK(rk_store_send(q, "{\"queryChanged\":\"sw\"}"));
    CHECK_OK(rk_store_advance_clock(q, 300));
    CHECK(l.requests == 1);
    rk_store_destroy(q);
    pthread_mutex_lock(&l.mu);
    l.destroy_returned = 1;
    pthread_mutex_unlock(&l.mu);
    CHECK(l.cancellations == 1 && l.kinds[1] == 'c' && l.ids[1] == 1);
    rk_t_sleep_ms(20);
    CHECK(l.after_destroy == 0);
    pthread_mutex_destroy(&l.mu);
}

/* ---- Every event reaches the host once; answers reduced in the order given ------------ */

typedef struct flush_probe {
    rk_store *store;
    int calls;
    uint64_t first_id;
    rk_status removed;
} flush_probe;

/* Takes the first event, then goes back to queueing (removes itself). */
static void remove_on_first(void *userdata, const char *event_json, size_t len) {
    flush_probe *p = (flush_probe *)userdata;
    (void)len;
    p->calls++;
    if (p->calls == 1) {
        p->first_id = id_of_text(event_json);
        p->removed = rk_store_on_request(p->store, NULL, NULL);
    }
}

static void test_callback_removed_while_flushing(void) {
    flush_probe p;
    jm_value *events;
    size_t i;
    int in_order = 1;
    TEST("a callback removed while it is handed queued events: the rest stay queued, in order");
    memset(&p, 0, sizeof p);
    p.store = CREATE("counter", PROVIDE_FACT);
    for (i = 0; i < 10; i++) CHECK_OK(rk_store_send(p.store, "\"factButtonTapped\""));
    /* 031112b: 9 of the 10 were neither delivered nor re-queued. */
    CHECK_OK(rk_store_on_request(p.store, remove_on_first, &p));
    CHECK_OK(p.removed);
    CHECK_MSG(p.calls == 1 && p.first_id == 1, "%d calls, first id %llu", p.calls,
              (unsigned long long)p.first_id);
    events = take(p.store);
    CHECK_MSG(events != NULL && events->count == 9, "%d events queued",
              events ? (int)events->count : -1);
    for (i = 0; events != NULL && i < events->count; i++) {
        if (id_of(events->items[i]) != i + 2 || is_cancellation(events->items[i])) in_order = 0;
    }
    CHECK(in_order);
    jm_free(events);
    for (i = 1; i <= 10; i++) CHECK_OK(rk_store_resolve(p.store, (uint64_t)i, "\"f\""));
    CHECK_OK(rk_store_wait_idle(p.store, RK_T_MS(10000)));
    CHECK(effects_of(p.store) == 0);
    CHECK(rk_t_version(p.store) == 20);
    /* Nothing left to cancel: destroy tells the host of no request it never saw. */
    CHECK_TAKE(p.store, "[]");
    rk_store_destroy(p.store);
}

/* The "factResponse" texts of a take_actions log, in order, joined by ",". */
static void fact_responses(rk_store *s, char *out, size_t cap) {
    char *json = NULL;
    jm_value *log;
    size_t i, used = 0;
    out[0] = '\0';
    if (rk_store_take_actions(s, &json, NULL) != RK_OK) return;
    log = jm_parse_str(json);
    for (i = 0; log != NULL && i < log->count; i++) {
        const char *fact = jm_str(jm_get(jm_get(log->items[i], "action"), "factResponse"));
        if (fact != NULL && used + strlen(fact) + 2 < cap) {
            used += (size_t)snprintf(out + used, cap - used, "%s%s", used ? "," : "", fact);
        }
    }
    jm_free(log);
    rk_free(json);
}

static void test_answers_reduced_in_order(void) {
    int runs = rk_t_under_valgrind() ? 20 : 200, i, same = 0;
    char order[128];
    TEST("on the test clock, answers given back to back are reduced in the order given");
    for (i = 0; i < runs; i++) {
        rk_store *s = CREATE("counter", "{\"provide\":[\"numberFact\"],\"clock\":\"test\","
                                        "\"record_actions\":true}");
        jm_value *events;
        CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
        CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
        events = take(s);
        CHECK(events != NULL && events->count == 2);
        jm_free(events);
        /* 031112b: the two resumed effects raced, and either response could come first. */
        CHECK_OK(rk_store_resolve(s, 2, "\"two\""));
        CHECK_OK(rk_store_fail(s, 1, "one"));
        CHECK_OK(rk_store_wait_idle(s, RK_T_MS(10000)));
        fact_responses(s, order, sizeof order);
        if (strcmp(order, "two,Could not load a fact about 0: one") == 0) same++;
        else if (i == same) printf("   run %d: %s\n", i, order);
        rk_store_destroy(s);
    }
    CHECK_MSG(same == runs, "%d of %d runs reduced the answers in the order given", same, runs);
}

/* ---- Where an answered effect continues ------------------------------------------- */

typedef struct resumer {
    rk_store *store;
    pthread_t thread;           /* the thread that answers */
    uint64_t id;
    rk_status status;
    char *state_after;          /* the state right after rk_store_resolve returned */
    uint64_t effects_after;
    rk_status state_status, count_status;
    int states_on_thread, states_elsewhere;
    int answered;               /* set (under mu) once rk_store_resolve returned */
    pthread_mutex_t mu;
    pthread_cond_t cond;
} resumer;

static void count_state_thread(void *userdata, const char *json, size_t len, uint64_t version) {
    resumer *r = (resumer *)userdata;
    (void)json;
    (void)len;
    (void)version;
    pthread_mutex_lock(&r->mu);
    if (r->thread && pthread_equal(pthread_self(), r->thread)) r->states_on_thread++;
    else r->states_elsewhere++;
    pthread_mutex_unlock(&r->mu);
}

static void *resolve_and_look(void *arg) {
    resumer *r = (resumer *)arg;
    pthread_mutex_lock(&r->mu);
    r->thread = pthread_self();
    pthread_mutex_unlock(&r->mu);
    r->status = rk_store_resolve(r->store, r->id, "\"from a host thread\"");
    /* No wait: what the effect did after its answer is done already. (No CHECK on this
     * thread: the test's counters belong to the main thread.) */
    r->state_status = rk_store_state(r->store, &r->state_after, NULL);
    r->count_status = rk_store_effect_count(r->store, &r->effects_after);
    pthread_mutex_lock(&r->mu);
    r->answered = 1;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

static void test_answer_continues_effect_on_answering_thread(void) {
    int runs = rk_t_under_valgrind() ? 5 : 50, i, failed_before = rk_t_failed;
    TEST("live clock: an answer from a host thread reduces the effect's next action before "
         "rk_store_resolve returns, on that thread");
    for (i = 0; i < runs; i++) {
        rk_store *s = CREATE("counter", PROVIDE_FACT);
        resumer r;
        pthread_t t;
        uint64_t token = 0;
        jm_value *events;
        memset(&r, 0, sizeof r);
        r.store = s;
        pthread_mutex_init(&r.mu, NULL);
        pthread_cond_init(&r.cond, NULL);
        CHECK_OK(rk_store_send(s, "{\"setCount\":3}"));
        CHECK_OK(rk_store_subscribe(s, count_state_thread, &r, &token));
        CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
        /* The effect suspended waiting for the answer (it counts as idle). */
        CHECK_OK(rk_store_wait_idle(s, RK_T_MS(10000)));
        events = take(s);
        CHECK(events != NULL && events->count == 1);
        r.id = events != NULL && events->count == 1 ? id_of(jm_at(events, 0)) : 0;
        jm_free(events);
        pthread_mutex_lock(&r.mu);
        r.states_on_thread = r.states_elsewhere = 0; /* the sends' own deliveries */
        pthread_mutex_unlock(&r.mu);
        CHECK(pthread_create(&t, NULL, resolve_and_look, &r) == 0);
        pthread_mutex_lock(&r.mu);
        while (!r.answered) pthread_cond_wait(&r.cond, &r.mu);
        pthread_mutex_unlock(&r.mu);
        pthread_join(t, NULL);
        CHECK_STATUS(r.status, RK_OK);
        CHECK_STATUS(r.state_status, RK_OK);
        CHECK_STATUS(r.count_status, RK_OK);
        CHECK_CONTAINS(r.state_after ? r.state_after : "", "\"fact\":\"from a host thread\"");
        rk_free(r.state_after);
        CHECK_MSG(r.effects_after == 0, "run %d: %llu effects after the answer", i,
                  (unsigned long long)r.effects_after);
        CHECK_MSG(r.states_on_thread == 1 && r.states_elsewhere == 0,
                  "run %d: the response's state delivered %d times on the answering thread, %d "
                  "elsewhere", i, r.states_on_thread, r.states_elsewhere);
        CHECK_OK(rk_store_unsubscribe(s, token));
        rk_store_destroy(s);
        pthread_cond_destroy(&r.cond);
        pthread_mutex_destroy(&r.mu);
        if (rk_t_failed > failed_before) break;
    }
}

/* ---- More callback rules ------------------------------------------------------------- */

typedef struct inner {
    rk_store *store;
    int events, after_destroy, destroyed;
    char seen[8][64];
    rk_status send_after;
} inner;

/* Destroys the store from inside the callback of request 2. */
static void destroy_inside(void *userdata, const char *event, size_t len) {
    inner *in = (inner *)userdata;
    (void)len;
    if (in->destroyed) in->after_destroy++;
    if (in->events < 8) snprintf(in->seen[in->events], sizeof in->seen[0], "%s", event);
    in->events++;
    if (strcmp(event, "{\"id\":2,\"name\":\"numberFact\",\"payload\":0}") == 0) {
        rk_store_destroy(in->store);
        in->destroyed = 1;
    }
}

/* Answers from a state subscriber: the request is in the queue when the state changes. */
static void answer_from_subscriber(void *userdata, const char *json, size_t len, uint64_t version) {
    inner *in = (inner *)userdata;
    char *events = NULL;
    (void)json;
    (void)len;
    (void)version;
    if (rk_store_take_requests(in->store, &events, NULL) == RK_OK && strstr(events, "\"id\":") != NULL) {
        in->send_after = rk_store_resolve(in->store, strtoull(strstr(events, "\"id\":") + 5, NULL, 10),
                                          "\"from a subscriber\"");
        in->events++;
    }
    rk_free(events);
}

typedef struct swapper {
    rk_store *store;
    int stop;
    int old_calls_after_swap; /* the old callback ran after rk_store_on_request returned */
    int swapped;
    long sends;
    pthread_mutex_t mu;
} swapper;

static void old_callback(void *userdata, const char *event, size_t len) {
    swapper *sw = (swapper *)userdata;
    (void)len;
    pthread_mutex_lock(&sw->mu);
    if (sw->swapped) sw->old_calls_after_swap++;
    pthread_mutex_unlock(&sw->mu);
    rk_t_sleep_ms(1); /* be inside when the swap comes */
    if (strstr(event, "cancelled") == NULL) rk_store_resolve(sw->store, id_of_text(event), "\"old\"");
}

static void new_callback(void *userdata, const char *event, size_t len) {
    swapper *sw = (swapper *)userdata;
    (void)len;
    if (strstr(event, "cancelled") == NULL) rk_store_resolve(sw->store, id_of_text(event), "\"new\"");
}

static void *keep_asking(void *arg) {
    swapper *sw = (swapper *)arg;
    for (;;) {
        int stop;
        pthread_mutex_lock(&sw->mu);
        stop = sw->stop;
        pthread_mutex_unlock(&sw->mu);
        if (stop) return NULL;
        if (rk_store_send(sw->store, "\"factButtonTapped\"") != RK_OK) abort();
        sw->sends++;
    }
}

static void test_destroy_inside_callback(void) {
    inner in;
    char fact[128];
    TEST("destroy from inside a request callback; answers from a state subscriber");
    memset(&in, 0, sizeof in);
    in.store = CREATE("counter", PROVIDE_FACT);
    CHECK_OK(rk_store_on_request(in.store, destroy_inside, &in));
    CHECK_OK(rk_store_send(in.store, "\"factButtonTapped\""));
    CHECK_OK(rk_store_send(in.store, "\"factButtonTapped\"")); /* its callback destroys */
    CHECK(in.destroyed);
    /* Both pending requests were cancelled before destroy returned, each after its request. */
    CHECK_MSG(in.events == 4, "%d events", in.events);
    CHECK_STR_EQ(in.seen[2], "{\"id\":1,\"cancelled\":true}");
    CHECK_STR_EQ(in.seen[3], "{\"id\":2,\"cancelled\":true}");
    CHECK_STATUS(rk_store_send(in.store, "\"factButtonTapped\""), RK_ERR_INVALID_HANDLE);
    rk_t_sleep_ms(20);
    CHECK(in.after_destroy == 0);

    memset(&in, 0, sizeof in);
    in.store = CREATE("counter", PROVIDE_FACT);
    in.send_after = (rk_status)-1;
    {
        uint64_t token;
        CHECK_OK(rk_store_subscribe(in.store, answer_from_subscriber, &in, &token));
        CHECK_OK(rk_store_send(in.store, "\"factButtonTapped\""));
        CHECK(in.events == 1);
        CHECK_STATUS(in.send_after, RK_OK);
        CHECK_OK(rk_store_wait_idle(in.store, RK_T_MS(5000)));
        CHECK_STR_EQ(state_string(in.store, "fact", fact, sizeof fact), "from a subscriber");
        CHECK_OK(rk_store_unsubscribe(in.store, token));
    }
    rk_store_destroy(in.store);
}

static void test_cancellation_on_cancelling_thread(void) {
    rk_store *s;
    cb_log l;
    TEST("a cancellation is delivered on the thread that cancels, before its send returns");
    s = CREATE("search", PROVIDE_SEARCH);
    cb_log_init(&l, s, 0);
    CHECK_OK(rk_store_on_request(s, on_request, &l));
    CHECK_OK(rk_store_send(s, "{\"queryChanged\":\"sw\"}"));
    CHECK_OK(rk_store_advance_clock(s, 300));
    CHECK(l.requests == 1);
    l.on_caller_thread = 0;
    CHECK_OK(rk_store_send(s, "{\"queryChanged\":\"\"}"));
    CHECK(l.cancellations == 1 && l.kinds[1] == 'c' && l.ids[1] == 1);
    CHECK_MSG(l.on_caller_thread == 1, "delivered on the sending thread");
    rk_store_destroy(s);
    pthread_mutex_destroy(&l.mu);
}

static void test_many_requests_queued(void) {
    rk_store *s;
    int i;
    jm_value *events;
    TEST("many requests queued: one readable fd, all taken in order");
    s = CREATE("counter", PROVIDE_FACT);
    for (i = 0; i < 1000; i++) rk_store_send(s, "\"factButtonTapped\"");
    CHECK(effects_of(s) == 1000);
    events = take(s);
    CHECK(events != NULL && events->count == 1000);
    for (i = 0; events != NULL && i < (int)events->count; i++) {
        if (id_of(events->items[i]) != (uint64_t)i + 1) break;
    }
    CHECK_MSG(events != NULL && i == (int)events->count, "in order up to %d", i);
    jm_free(events);
    for (i = 1000; i >= 1; i--) {
        if (rk_store_resolve(s, (uint64_t)i, "\"f\"") != RK_OK) break;
    }
    CHECK_MSG(i == 0, "resolve %d failed", i);
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(10000)));
    CHECK(effects_of(s) == 0);
    CHECK(rk_t_version(s) == 2000);
    rk_store_destroy(s);
}

/* Issue 25: the descriptor is an eventfd on Linux (a signal and a drain are one system call
 * each, where a pipe took a write and two reads), with the same contract as the pipe it
 * replaced: readable while events are queued, not once they are taken, and a duplicate a host
 * keeps (Python's event loop watches one) readable for good once the store is destroyed, as
 * a pipe's read end is at end-of-file. */
static void test_request_fd_kind_and_destroy(void) {
    rk_store *s;
    int fd = -1, copy;
    jm_value *events;
    TEST("the request descriptor: an eventfd on Linux; a duplicate wakes once the store is destroyed");
    s = CREATE("counter", PROVIDE_FACT);
    CHECK_OK(rk_store_request_fd(s, &fd));
#if defined(__linux__)
    {
        char path[64], target[64];
        ssize_t n;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        n = readlink(path, target, sizeof target - 1);
        target[n > 0 ? n : 0] = 0;
        CHECK_MSG(strcmp(target, "anon_inode:[eventfd]") == 0, "descriptor %d is %s", fd, target);
    }
#endif
    /* Signalled and drained more than once: readable exactly while something is queued. */
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK(readable(fd));
    events = take(s);
    CHECK(events != NULL && events->count == 2);
    jm_free(events);
    CHECK(!readable(fd));
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK(readable(fd));
    events = take(s);
    CHECK(events != NULL && events->count == 1 && id_of(events->items[0]) == 3);
    jm_free(events);
    CHECK(!readable(fd));
    copy = dup(fd);
    CHECK(copy >= 0);
    CHECK(!readable(copy));
    rk_store_destroy(s);
    CHECK_MSG(readable(copy), "a duplicate of the descriptor is readable after destroy");
    if (copy >= 0) close(copy);
}

static void test_replaced_callback(void) {
    swapper sw;
    pthread_t t;
    int i, rounds = rk_t_under_valgrind() ? 5 : 50;
    TEST("a replaced callback is not called after rk_store_on_request returns");
    memset(&sw, 0, sizeof sw);
    pthread_mutex_init(&sw.mu, NULL);
    sw.store = CREATE("counter", PROVIDE_FACT);
    for (i = 0; i < rounds; i++) {
        sw.stop = 0;
        sw.swapped = 0;
        CHECK_OK(rk_store_on_request(sw.store, old_callback, &sw));
        CHECK(pthread_create(&t, NULL, keep_asking, &sw) == 0);
        rk_t_sleep_ms(2);
        CHECK_OK(rk_store_on_request(sw.store, new_callback, &sw));
        pthread_mutex_lock(&sw.mu);
        sw.swapped = 1;
        pthread_mutex_unlock(&sw.mu);
        rk_t_sleep_ms(2);
        pthread_mutex_lock(&sw.mu);
        sw.stop = 1;
        pthread_mutex_unlock(&sw.mu);
        pthread_join(t, NULL);
    }
    CHECK_MSG(sw.old_calls_after_swap == 0, "the old callback ran %d times after the swap",
              sw.old_calls_after_swap);
    CHECK_OK(rk_store_wait_idle(sw.store, RK_T_MS(10000)));
    CHECK(effects_of(sw.store) == 0);
    CHECK_MSG(sw.sends > rounds, "%ld sends", sw.sends);
    rk_store_destroy(sw.store);
    pthread_mutex_destroy(&sw.mu);
}

/* ---- Hostile answers ----------------------------------------------------------------- */

typedef struct target {
    rk_store *store;
    char *state;
    uint64_t version, effects;
    int callbacks;
    uint64_t token;
} target;

static void on_state(void *userdata, const char *json, size_t len, uint64_t version) {
    (void)json;
    (void)len;
    (void)version;
    ((target *)userdata)->callbacks++;
}

static void snapshot(target *t) {
    rk_free(t->state);
    t->state = rk_t_state(t->store);
    t->version = rk_t_version(t->store);
    t->effects = 0;
    rk_store_effect_count(t->store, &t->effects);
}

/* After a refused answer: the status, a message with `needle`, and nothing changed. */
static void after_refused(target *t, rk_status got, rk_status expected, const char *needle,
                          const char *expr, const char *file, int line) {
    char message[600];
    char *state;
    uint64_t effects = 99;
    int callbacks = t->callbacks;
    rk_t_report(got == expected, file, line, expr, "status %d (%s), expected %d (%s)", (int)got,
                rk_status_string(got), (int)expected, rk_status_string(expected));
    snprintf(message, sizeof message, "%s", rk_last_error());
    if (needle != NULL) {
        rk_t_report(strstr(message, needle) != NULL, file, line, expr,
                    "rk_last_error() \"%s\"\n    does not contain \"%s\"", message, needle);
    } else {
        rk_t_report(strlen(message) > 0, file, line, expr, "rk_last_error() is empty");
    }
    /* Give a wrongly accepted answer the time to be reduced before comparing. */
    rk_store_wait_idle(t->store, RK_T_MS(2000));
    state = rk_t_state_at(t->store, file, line);
    rk_t_report(state != NULL && t->state != NULL && strcmp(state, t->state) == 0, file, line,
                expr, "the state changed:\n    before %.300s\n    after  %.300s",
                t->state ? t->state : "(null)", state ? state : "(null)");
    rk_free(state);
    rk_t_report(rk_t_version_at(t->store, file, line) == t->version, file, line, expr,
                "the version changed");
    rk_store_effect_count(t->store, &effects);
    rk_t_report(effects == t->effects, file, line, expr,
                "effects %llu -> %llu (the request should still be pending as it was)",
                (unsigned long long)t->effects, (unsigned long long)effects);
    rk_t_report(t->callbacks == callbacks, file, line, expr, "a subscriber ran");
}

#define REFUSED(t, call, expected, needle) \
    after_refused(&(t), (call), (expected), (needle), #call, __FILE__, __LINE__)

static void test_hostile_responses(void) {
    target t;
    char *deep;
    int i;
    char *json = (char *)"untouched";
    int fd = 777;
    TEST("hostile answers: refused with the path, the request stays pending, state unchanged");
    memset(&t, 0, sizeof t);
    t.store = CREATE("search", PROVIDE_SEARCH);
    CHECK_OK(rk_store_subscribe(t.store, on_state, &t, &t.token));

    /* No request made yet. */
    snapshot(&t);
    REFUSED(t, rk_store_resolve(t.store, 1, "[]"), RK_ERR_INVALID_ARGUMENT, "unknown");
    REFUSED(t, rk_store_fail(t.store, 1, "x"), RK_ERR_INVALID_ARGUMENT, "unknown");

    CHECK_OK(rk_store_send(t.store, "{\"queryChanged\":\"sw\"}"));
    CHECK_OK(rk_store_advance_clock(t.store, 300));
    CHECK_TAKE(t.store, "[{\"id\":1,\"name\":\"search\",\"payload\":\"sw\"}]");
    snapshot(&t);
    CHECK(t.effects == 1);

    /* Not JSON. */
    REFUSED(t, rk_store_resolve(t.store, 1, ""), RK_ERR_JSON, "$");
    REFUSED(t, rk_store_resolve(t.store, 1, "["), RK_ERR_JSON, "$");
    REFUSED(t, rk_store_resolve(t.store, 1, "[\"swift\",]"), RK_ERR_JSON, "$[1]");
    REFUSED(t, rk_store_resolve(t.store, 1, "[\"swift\"] x"), RK_ERR_JSON, NULL);
    REFUSED(t, rk_store_resolve(t.store, 1, "[\"sw\xff\"]"), RK_ERR_JSON, "UTF-8");
    REFUSED(t, rk_store_resolve(t.store, 1, "[\"swift\" \"swim\"]"), RK_ERR_JSON, NULL);
    REFUSED(t, rk_store_resolve(t.store, 1, "{\"a\":1,\"a\":2}"), RK_ERR_JSON, NULL);
    REFUSED(t, rk_store_resolve(t.store, 1, "[swift]"), RK_ERR_JSON, NULL);
    deep = (char *)malloc(2 * 2000 + 1);
    for (i = 0; i < 2000; i++) {
        deep[i] = '[';
        deep[2000 + i] = ']';
    }
    deep[4000] = '\0';
    REFUSED(t, rk_store_resolve(t.store, 1, deep), RK_ERR_JSON, NULL);
    free(deep);

    /* JSON, but not a [String]. */
    REFUSED(t, rk_store_resolve(t.store, 1, "42"), RK_ERR_RESPONSE, "$");
    REFUSED(t, rk_store_resolve(t.store, 1, "42"), RK_ERR_RESPONSE, "String");
    REFUSED(t, rk_store_resolve(t.store, 1, "{\"x\":1}"), RK_ERR_RESPONSE, "$");
    REFUSED(t, rk_store_resolve(t.store, 1, "[1]"), RK_ERR_RESPONSE, "$[0]");
    REFUSED(t, rk_store_resolve(t.store, 1, "[\"swift\",1]"), RK_ERR_RESPONSE, "$[1]");
    REFUSED(t, rk_store_resolve(t.store, 1, "[\"swift\",null]"), RK_ERR_RESPONSE, "$[1]");
    REFUSED(t, rk_store_resolve(t.store, 1, "[[\"swift\"]]"), RK_ERR_RESPONSE, "$[0]");
    REFUSED(t, rk_store_resolve(t.store, 1, "null"), RK_ERR_RESPONSE, "$");
    REFUSED(t, rk_store_resolve(t.store, 1, "true"), RK_ERR_RESPONSE, "$");
    REFUSED(t, rk_store_resolve(t.store, 1, "\"swift\""), RK_ERR_RESPONSE, "$");
    /* Which request the message is about. */
    REFUSED(t, rk_store_resolve(t.store, 1, "[1]"), RK_ERR_RESPONSE, "request 1");

    /* NULLs and ids that are not requests. */
    REFUSED(t, rk_store_resolve(t.store, 1, NULL), RK_ERR_INVALID_ARGUMENT, "response_json");
    REFUSED(t, rk_store_resolve(NULL, 1, "[]"), RK_ERR_INVALID_ARGUMENT, "store");
    REFUSED(t, rk_store_fail(NULL, 1, "x"), RK_ERR_INVALID_ARGUMENT, "store");
    REFUSED(t, rk_store_resolve(t.store, 0, "[]"), RK_ERR_INVALID_ARGUMENT, "unknown");
    REFUSED(t, rk_store_resolve(t.store, 2, "[]"), RK_ERR_INVALID_ARGUMENT, "unknown");
    REFUSED(t, rk_store_resolve(t.store, 1000000007ULL, "[]"), RK_ERR_INVALID_ARGUMENT, "unknown");
    REFUSED(t, rk_store_resolve(t.store, UINT64_MAX, "[]"), RK_ERR_INVALID_ARGUMENT, "unknown");
    REFUSED(t, rk_store_fail(t.store, 0, "x"), RK_ERR_INVALID_ARGUMENT, "unknown");
    REFUSED(t, rk_store_fail(t.store, UINT64_MAX, NULL), RK_ERR_INVALID_ARGUMENT, "unknown");
    REFUSED(t, rk_store_take_requests(t.store, NULL, NULL), RK_ERR_INVALID_ARGUMENT, "out_json");
    REFUSED(t, rk_store_take_requests(NULL, &json, NULL), RK_ERR_INVALID_ARGUMENT, "store");
    REFUSED(t, rk_store_request_fd(t.store, NULL), RK_ERR_INVALID_ARGUMENT, "out_fd");
    REFUSED(t, rk_store_request_fd(NULL, &fd), RK_ERR_INVALID_ARGUMENT, "store");
    CHECK(json == (char *)"untouched" || strcmp(json, "untouched") == 0);
    CHECK(fd == 777);

    /* After all that, the right answer still works. */
    CHECK_OK(rk_store_resolve(t.store, 1, "[\"swift\",\"swim\"]"));
    CHECK_OK(rk_store_wait_idle(t.store, RK_T_MS(5000)));
    CHECK_STATE(t.store, "{\"query\":\"sw\",\"results\":[\"swift\",\"swim\"]}");
    CHECK(rk_t_version(t.store) == t.version + 1);
    snapshot(&t);
    CHECK(t.effects == 0);

    /* Answered twice. */
    REFUSED(t, rk_store_resolve(t.store, 1, "[\"again\"]"), RK_ERR_INVALID_ARGUMENT,
            "already answered");
    REFUSED(t, rk_store_fail(t.store, 1, "again"), RK_ERR_INVALID_ARGUMENT, "already answered");
    REFUSED(t, rk_store_resolve(t.store, 2, "[]"), RK_ERR_INVALID_ARGUMENT, "unknown");

    /* Cancelled. */
    CHECK_OK(rk_store_send(t.store, "{\"queryChanged\":\"re\"}"));
    CHECK_OK(rk_store_advance_clock(t.store, 300));
    CHECK_OK(rk_store_send(t.store, "{\"queryChanged\":\"\"}"));
    CHECK_TAKE(t.store, "[{\"id\":2,\"name\":\"search\",\"payload\":\"re\"},"
                        "{\"id\":2,\"cancelled\":true}]");
    CHECK_OK(rk_store_wait_idle(t.store, RK_T_MS(5000))); /* the cancelled effect ends */
    snapshot(&t);
    CHECK(t.effects == 0);
    REFUSED(t, rk_store_resolve(t.store, 2, "[\"reducer\"]"), RK_ERR_INVALID_ARGUMENT,
            "cancelled");
    REFUSED(t, rk_store_resolve(t.store, 2, "[1]"), RK_ERR_INVALID_ARGUMENT, "cancelled");
    REFUSED(t, rk_store_fail(t.store, 2, "late"), RK_ERR_INVALID_ARGUMENT, "cancelled");
    REFUSED(t, rk_store_resolve(t.store, 3, "[]"), RK_ERR_INVALID_ARGUMENT, "unknown");
    CHECK_OK(rk_store_unsubscribe(t.store, t.token));
    rk_store_destroy(t.store);
    rk_free(t.state);

    /* numberFact's response is a String. */
    memset(&t, 0, sizeof t);
    t.store = CREATE("counter", PROVIDE_FACT);
    CHECK_OK(rk_store_subscribe(t.store, on_state, &t, &t.token));
    CHECK_OK(rk_store_send(t.store, "\"factButtonTapped\""));
    CHECK_TAKE(t.store, "[{\"id\":1,\"name\":\"numberFact\",\"payload\":0}]");
    snapshot(&t);
    REFUSED(t, rk_store_resolve(t.store, 1, "42"), RK_ERR_RESPONSE, "String");
    REFUSED(t, rk_store_resolve(t.store, 1, "null"), RK_ERR_RESPONSE, "$");
    REFUSED(t, rk_store_resolve(t.store, 1, "[\"a fact\"]"), RK_ERR_RESPONSE, "$");
    REFUSED(t, rk_store_resolve(t.store, 1, "{\"fact\":\"a\"}"), RK_ERR_RESPONSE, "$");
    REFUSED(t, rk_store_resolve(t.store, 1, "\"a \xc0\xaf fact\""), RK_ERR_JSON, "UTF-8");
    REFUSED(t, rk_store_resolve(t.store, 1, "\"unterminated"), RK_ERR_JSON, "$");
    REFUSED(t, rk_store_resolve(t.store, 1, "\"\\ud800\""), RK_ERR_JSON, NULL);
    CHECK_OK(rk_store_resolve(t.store, 1, "\"0 is the additive identity.\""));
    CHECK_OK(rk_store_wait_idle(t.store, RK_T_MS(5000)));
    CHECK_STATE(t.store, "{\"count\":0,\"fact\":\"0 is the additive identity.\",\"isTimerOn\":false}");
    CHECK_OK(rk_store_unsubscribe(t.store, t.token));
    rk_store_destroy(t.store);
    rk_free(t.state);
}

/* ---- Reliability ----------------------------------------------------------------------- */
/*
 * The words: "4 threads resolving 100,000 requests while effects are being cancelled
 * at random and one store is destroyed mid-way: every response reduced exactly once or
 * reported as cancelled, none lost, no callback after destroy returns, valgrind-clean".
 *
 * Stores (all with "record_actions", so every reduced response can be counted):
 *   A  counter, provide numberFact, queued: the resolvers poll its fd and take its requests
 *   B  counter, provide numberFact, a callback that answers inside (1 id in 4) or hands the
 *      id to the resolvers; destroyed by the main thread once half the requests were made
 *   C  as B, kept to the end
 *   S  search on a test clock, provide search, queued: a canceller thread types queries,
 *      advances the clock by 300 ms (a request) or clears the query, at random, so searches
 *      are cancelled while the resolvers answer them
 * Threads: 4 resolvers, a sender (factButtonTapped to A, B, C, at most MAX_OUTSTANDING
 * unanswered), the canceller, and the main thread.
 * Each answer names its store and id ("A17", ["S9"]); 1 counter id in 8 is failed with
 * rk_store_fail instead (the counter shows "Could not load a fact about 0: A17"); 1 id in 16
 * is answered a second time by another resolver, racing the first answer.
 *
 * Per id the test records request and cancellation events, answers accepted (RK_OK), answers
 * refused (already answered / cancelled / the store was destroyed / anything else), and how
 * often the response was reduced (from the action logs). Then:
 *   - a store's ids are 1..n, each requested exactly once;
 *   - each request has exactly one outcome: one accepted answer, one cancellation event, or
 *     an accepted answer whose effect was cancelled before it sent the response, reported by
 *     a cancellation event after the answer (then the response is not reduced);
 *   - "cancelled" refusals only for cancelled ids, "already answered" only for answered ones,
 *     no other refusal;
 *   - A, C, S: each accepted answer not reported cancelled reduced exactly once, nothing else
 *     reduced (none lost);
 *     B: what its log showed before the destroy, at most once and only accepted answers;
 *   - no callback of B after rk_store_destroy(B) returned;
 *   - afterwards A, C and S are idle, with no effect left and nothing queued.
 */
enum { SA, SB, SC, SS, NSTORES };
#define MAX_OUTSTANDING 256
#define RESOLVERS 4

typedef struct rec {
    unsigned char requested, cancels, accepted, refused_answered, refused_cancelled,
        refused_destroyed, refused_other, reduced;
} rec;

typedef struct sstore {
    char letter;
    rk_store *store;
    int fd;            /* queued stores: the request fd; else -1 */
    int destroyed;     /* set once rk_store_destroy returned */
    rec *recs;         /* by id: 1 .. cap-1 */
    uint64_t cap, max_id, requested, cancels, accepted;
    uint64_t both;     /* ids with an accepted answer and then a cancellation event */
    uint64_t callbacks_after_destroy, bad_events;
} sstore;

/* Everything below is shared: read and written under stress_mu, which no thread holds while
 * it calls into the library. */
static pthread_mutex_t stress_mu = PTHREAD_MUTEX_INITIALIZER;
static sstore ss[NSTORES];
typedef struct job {
    int store;
    uint64_t id;
} job;
static job *jobs;
static size_t njobs, jobs_cap;
#define HELD 64
static uint64_t held[HELD];
static size_t nheld;
static int stop_sending, stop_cancelling, draining;
static uint64_t total_requested, fact_sends, fact_finished;
static uint64_t send_failures, take_failures;
static char first_problem[512];

static void sleep_us(long us) {
    struct timespec ts;
    ts.tv_sec = us / 1000000L;
    ts.tv_nsec = (us % 1000000L) * 1000L;
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void problem(const char *what, const char *detail) {
    if (first_problem[0] == '\0') snprintf(first_problem, sizeof first_problem, "%s: %s", what, detail);
}

/* Records an event of store k (under stress_mu). Returns the id of a request, else 0. */
static uint64_t note_event(int k, const jm_value *ev) {
    sstore *st = &ss[k];
    uint64_t id = id_of(ev);
    if (id == 0 || id >= st->cap) {
        st->bad_events++;
        problem("an event with a bad id", "");
        return 0;
    }
    if (is_cancellation(ev)) {
        st->recs[id].cancels++;
        st->cancels++;
        if (st->recs[id].accepted) st->both++;
        else if (k != SS) fact_finished++;
        return 0;
    }
    if (jm_get(ev, "payload") == NULL || jm_str(jm_get(ev, "name")) == NULL) {
        st->bad_events++;
        problem("a request without name or payload", "");
    }
    st->recs[id].requested++;
    st->requested++;
    total_requested++;
    if (id > st->max_id) st->max_id = id;
    return id;
}

static void push_locked(int k, uint64_t id) {
    if (njobs == jobs_cap) {
        size_t cap = jobs_cap ? jobs_cap * 2 : 1024;
        job *grown = (job *)realloc(jobs, cap * sizeof *jobs);
        if (grown == NULL) abort();
        jobs = grown;
        jobs_cap = cap;
    }
    jobs[njobs].store = k;
    jobs[njobs].id = id;
    njobs++;
}

/* Hands B's held ids to the resolvers once B is gone or the test drains (under stress_mu). */
static void release_held_locked(void) {
    size_t i;
    if (!(ss[SB].destroyed || draining)) return;
    for (i = 0; i < nheld; i++) push_locked(SB, held[i]);
    nheld = 0;
}

/* Leaves request `id` of store k to the resolvers. 1 id of B in 8 is held back until HELD
 * others wait, so that B has requests pending when it is destroyed. */
static void push_job(int k, uint64_t id) {
    pthread_mutex_lock(&stress_mu);
    if (k == SB && id % 8 == 1 && !ss[SB].destroyed && !draining) {
        if (nheld == HELD) {
            push_locked(SB, held[0]);
            memmove(held, held + 1, (HELD - 1) * sizeof *held);
            nheld--;
        }
        held[nheld++] = id;
    } else {
        push_locked(k, id);
    }
    pthread_mutex_unlock(&stress_mu);
}

/* Answers request `id` of store k and records what the library said. */
static void answer(int k, uint64_t id) {
    sstore *st = &ss[k];
    char text[64];
    char message[300] = "";
    rk_status r;
    rec *re;
    if (k == SS) {
        snprintf(text, sizeof text, "[\"S%llu\"]", (unsigned long long)id);
        r = rk_store_resolve(st->store, id, text);
    } else if (id % 8 == 5) {
        snprintf(text, sizeof text, "%c%llu", st->letter, (unsigned long long)id);
        r = rk_store_fail(st->store, id, text);
    } else {
        snprintf(text, sizeof text, "\"%c%llu\"", st->letter, (unsigned long long)id);
        r = rk_store_resolve(st->store, id, text);
    }
    if (r != RK_OK) snprintf(message, sizeof message, "%s", rk_last_error());
    pthread_mutex_lock(&stress_mu);
    re = &st->recs[id];
    if (r == RK_OK) {
        re->accepted++;
        st->accepted++;
        if (re->cancels) st->both++;
        else if (k != SS) fact_finished++;
    } else if (r == RK_ERR_INVALID_ARGUMENT && strstr(message, "already answered") != NULL) {
        re->refused_answered++;
    } else if (r == RK_ERR_INVALID_ARGUMENT && strstr(message, "cancelled") != NULL) {
        re->refused_cancelled++;
    } else if (r == RK_ERR_INVALID_HANDLE && k == SB) {
        re->refused_destroyed++;
    } else {
        re->refused_other++;
        problem(rk_status_string(r), message);
    }
    pthread_mutex_unlock(&stress_mu);
}

/* A request just seen: answer it now or leave it to any resolver; some get a second answer. */
static void dispatch(int k, uint64_t id, int in_callback) {
    int now = in_callback ? id % 4 == 0 : id % 2 == 0;
    if (now) answer(k, id);
    else push_job(k, id);
    if (id % 16 == 3) push_job(k, id);
}

static void stress_on_request(void *userdata, const char *event_json, size_t len) {
    sstore *st = (sstore *)userdata;
    int k = (int)(st - ss);
    jm_value *ev = jm_parse(event_json, len, NULL, 0);
    uint64_t id = 0;
    pthread_mutex_lock(&stress_mu);
    if (st->destroyed) st->callbacks_after_destroy++;
    if (ev == NULL) {
        st->bad_events++;
        problem("an event that is not JSON", event_json);
    } else {
        id = note_event(k, ev);
    }
    pthread_mutex_unlock(&stress_mu);
    if (id != 0) dispatch(k, id, 1);
    jm_free(ev);
}

/* Takes store k's queued events and handles them; returns how many there were. */
static int take_and_dispatch(int k) {
    char *json = NULL;
    size_t len = 0, i;
    jm_value *events;
    int n = 0;
    if (rk_store_take_requests(ss[k].store, &json, &len) != RK_OK) {
        pthread_mutex_lock(&stress_mu);
        take_failures++;
        problem("rk_store_take_requests", rk_last_error());
        pthread_mutex_unlock(&stress_mu);
        return 0;
    }
    events = jm_parse(json, len, NULL, 0);
    if (events == NULL || events->type != JM_ARRAY) {
        pthread_mutex_lock(&stress_mu);
        ss[k].bad_events++;
        problem("take_requests gave no array", json);
        pthread_mutex_unlock(&stress_mu);
    }
    for (i = 0; events != NULL && i < events->count; i++) {
        uint64_t id;
        pthread_mutex_lock(&stress_mu);
        id = note_event(k, events->items[i]);
        pthread_mutex_unlock(&stress_mu);
        if (id != 0) dispatch(k, id, 0);
        n++;
    }
    jm_free(events);
    rk_free(json);
    return n;
}

/* Every request of A, C and S seen so far has its outcome (under stress_mu). */
static int settled(void) {
    int k;
    for (k = 0; k < NSTORES; k++) {
        if (k == SB) continue;
        if (ss[k].requested != ss[k].accepted + ss[k].cancels - ss[k].both) return 0;
    }
    return 1;
}

static void *resolver(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u + 17u;
    for (;;) {
        struct pollfd p[2];
        int did = 0, j, done;
        p[0].fd = ss[SA].fd;
        p[1].fd = ss[SS].fd;
        p[0].events = p[1].events = POLLIN;
        p[0].revents = p[1].revents = 0;
        if (poll(p, 2, 1) > 0) {
            if (p[0].revents & POLLIN) did += take_and_dispatch(SA);
            if (p[1].revents & POLLIN) did += take_and_dispatch(SS);
        }
        for (j = 0; j < 8; j++) {
            job jb;
            size_t at;
            pthread_mutex_lock(&stress_mu);
            release_held_locked();
            if (njobs == 0) {
                pthread_mutex_unlock(&stress_mu);
                break;
            }
            at = (size_t)rand_r(&seed) % njobs; /* in any order */
            jb = jobs[at];
            jobs[at] = jobs[--njobs];
            pthread_mutex_unlock(&stress_mu);
            answer(jb.store, jb.id);
            did++;
        }
        if (did) continue;
        pthread_mutex_lock(&stress_mu);
        done = draining && njobs == 0 && nheld == 0 && settled();
        pthread_mutex_unlock(&stress_mu);
        /* An accepted answer is not the last word: until its effect sends the response, a
         * cancellation can still turn it into a cancellation event (no accepted answer is lost
         * silently). So the survivors must be idle too (then every such event is queued)
         * before an empty queue means the end. (Quitting on accepted answers alone lost the
         * race on a loaded machine: the event came after the resolvers had gone.) */
        if (done && rk_store_wait_idle(ss[SA].store, 0) == RK_OK &&
            rk_store_wait_idle(ss[SC].store, 0) == RK_OK &&
            rk_store_wait_idle(ss[SS].store, 0) == RK_OK && !readable(ss[SA].fd) &&
            !readable(ss[SS].fd))
            return NULL;
    }
}

static void *sender(void *arg) {
    uint64_t i = 0;
    (void)arg;
    for (;;) {
        int stop, b_gone, k;
        uint64_t outstanding;
        rk_status r;
        pthread_mutex_lock(&stress_mu);
        stop = stop_sending;
        outstanding = fact_sends - fact_finished;
        b_gone = ss[SB].destroyed;
        pthread_mutex_unlock(&stress_mu);
        if (stop) return NULL;
        if (outstanding > MAX_OUTSTANDING) {
            sleep_us(100);
            continue;
        }
        k = (int)(i % 3); /* SA, SB, SC */
        if (k == SB && b_gone) k = (i / 3) % 2 ? SA : SC;
        r = rk_store_send(ss[k].store, "\"factButtonTapped\"");
        pthread_mutex_lock(&stress_mu);
        if (r == RK_OK) fact_sends++;
        else if (!(k == SB && r == RK_ERR_INVALID_HANDLE)) {
            send_failures++;
            problem("rk_store_send(factButtonTapped)", rk_status_string(r));
        }
        pthread_mutex_unlock(&stress_mu);
        i++;
    }
}

static void *canceller(void *arg) {
    unsigned seed = 12345u;
    unsigned long n = 0;
    (void)arg;
    for (;;) {
        char action[64];
        unsigned r = (unsigned)rand_r(&seed);
        int stop, enough;
        rk_status st = RK_OK;
        pthread_mutex_lock(&stress_mu);
        stop = stop_cancelling;
        enough = ss[SS].requested >= ss[SS].cap / 2;
        pthread_mutex_unlock(&stress_mu);
        if (stop) return NULL;
        if (r % 8 == 0) {
            st = rk_store_send(ss[SS].store, "{\"queryChanged\":\"\"}"); /* cancels */
        } else {
            snprintf(action, sizeof action, "{\"queryChanged\":\"q%lu\"}", n++);
            st = rk_store_send(ss[SS].store, action); /* cancels the search in flight */
            if (st == RK_OK && r % 8 > 2 && !enough) st = rk_store_advance_clock(ss[SS].store, 300);
        }
        if (st != RK_OK) {
            pthread_mutex_lock(&stress_mu);
            send_failures++;
            problem("canceller", rk_last_error());
            pthread_mutex_unlock(&stress_mu);
        }
        if (r & 16) sleep_us(50 + (long)(r % 200)); /* leave the resolvers time to answer */
    }
}

/* Counts the responses store k reduced, by the id they name. */
static void count_reduced(int k, const char *log, uint64_t *bad) {
    jm_value *v = jm_parse_str(log);
    size_t i;
    if (v == NULL || v->type != JM_ARRAY) {
        (*bad)++;
        jm_free(v);
        return;
    }
    for (i = 0; i < v->count; i++) {
        const jm_value *action = jm_get(v->items[i], "action");
        const char *text = k == SS ? jm_str(jm_at(jm_get(action, "searchResponse"), 0))
                                   : jm_str(jm_get(action, "factResponse"));
        const char *name;
        uint64_t id;
        if (text == NULL) continue; /* factButtonTapped, queryChanged, ... */
        name = strrchr(text, ' ');  /* "Could not load a fact about 0: A17" */
        name = name ? name + 1 : text;
        id = name[0] == ss[k].letter ? strtoull(name + 1, NULL, 10) : 0;
        if (id == 0 || id >= ss[k].cap) (*bad)++;
        else ss[k].recs[id].reduced++;
    }
    jm_free(v);
}

static void test_reliability(void) {
    uint64_t target = rk_t_under_valgrind() ? 5000 : 100000;
    pthread_t resolvers[RESOLVERS], send_thread, cancel_thread;
    char *b_log = NULL, *json = NULL;
    const char letters[NSTORES] = {'A', 'B', 'C', 'S'};
    int k, i;
    double start = rk_t_now_ms();
    uint64_t requested;
    TEST("reliability: 4 threads answer requests while effects are cancelled and a store is "
         "destroyed");
    memset(ss, 0, sizeof ss);
    for (k = 0; k < NSTORES; k++) {
        ss[k].letter = letters[k];
        ss[k].fd = -1;
        ss[k].cap = target + 4 * MAX_OUTSTANDING + 1024;
        ss[k].recs = (rec *)calloc((size_t)ss[k].cap, sizeof(rec));
        ss[k].store = k == SS ? CREATE("search", "{\"provide\":[\"search\"],\"clock\":\"test\","
                                                 "\"record_actions\":true}")
                              : CREATE("counter", PROVIDE_FACT_RECORDED);
    }
    CHECK_OK(rk_store_request_fd(ss[SA].store, &ss[SA].fd));
    CHECK_OK(rk_store_request_fd(ss[SS].store, &ss[SS].fd));
    CHECK_OK(rk_store_on_request(ss[SB].store, stress_on_request, &ss[SB]));
    CHECK_OK(rk_store_on_request(ss[SC].store, stress_on_request, &ss[SC]));

    for (i = 0; i < RESOLVERS; i++) {
        CHECK(pthread_create(&resolvers[i], NULL, resolver, (void *)(uintptr_t)(i + 1)) == 0);
    }
    CHECK(pthread_create(&send_thread, NULL, sender, NULL) == 0);
    CHECK(pthread_create(&cancel_thread, NULL, canceller, NULL) == 0);

    /* Half-way: B goes, with requests pending and answers on their way. */
    for (;;) {
        pthread_mutex_lock(&stress_mu);
        requested = total_requested;
        pthread_mutex_unlock(&stress_mu);
        if (b_log == NULL && requested >= target / 2) {
            CHECK_OK(rk_store_take_actions(ss[SB].store, &b_log, NULL));
            rk_store_destroy(ss[SB].store);
            pthread_mutex_lock(&stress_mu);
            ss[SB].destroyed = 1;
            pthread_mutex_unlock(&stress_mu);
        }
        if (requested >= target) break;
        rk_t_sleep_ms(1);
    }
    pthread_mutex_lock(&stress_mu);
    stop_sending = 1;
    pthread_mutex_unlock(&stress_mu);
    pthread_join(send_thread, NULL);
    pthread_mutex_lock(&stress_mu);
    stop_cancelling = 1;
    pthread_mutex_unlock(&stress_mu);
    pthread_join(cancel_thread, NULL);
    /* The search in flight, if any, is cancelled too. */
    CHECK_OK(rk_store_send(ss[SS].store, "{\"queryChanged\":\"\"}"));
    pthread_mutex_lock(&stress_mu);
    draining = 1;
    pthread_mutex_unlock(&stress_mu);
    for (i = 0; i < RESOLVERS; i++) pthread_join(resolvers[i], NULL);

    /* The survivors are idle, with nothing left. */
    for (k = 0; k < NSTORES; k++) {
        uint64_t bad = 0;
        if (k == SB) {
            if (b_log != NULL) count_reduced(k, b_log, &bad);
        } else {
            CHECK_OK(rk_store_wait_idle(ss[k].store, RK_T_MS(10000)));
            CHECK_MSG(effects_of(ss[k].store) == 0, "store %c has effects left", ss[k].letter);
            CHECK_TAKE(ss[k].store, "[]");
            CHECK_OK(rk_store_take_actions(ss[k].store, &json, NULL));
            count_reduced(k, json, &bad);
            rk_free(json);
            json = NULL;
        }
        CHECK_MSG(bad == 0, "store %c reduced %llu responses naming no request", ss[k].letter,
                  (unsigned long long)bad);
    }

    /* The accounts. */
    for (k = 0; k < NSTORES; k++) {
        sstore *st = &ss[k];
        uint64_t id, missing = 0, twice = 0, beyond = 0, no_outcome = 0, two_outcomes = 0,
                     bad_refusal = 0, other = 0, lost = 0, extra = 0, reduced = 0;
        uint64_t r_answered = 0, r_cancelled = 0, r_destroyed = 0, first_bad = 0;
        for (id = 1; id < st->cap; id++) {
            const rec *re = &st->recs[id];
            unsigned outcomes = (unsigned)re->accepted + re->cancels;
            /* An accepted answer reported cancelled afterwards: one outcome, not reduced. */
            int reported = re->accepted == 1 && re->cancels == 1;
            int bad_pair = outcomes > 1 && (!reported || re->reduced != 0);
            if (id <= st->max_id) {
                if (re->requested == 0) missing++;
                if (re->requested > 1) twice++;
                if (outcomes == 0) no_outcome++;
                if (bad_pair) two_outcomes++;
            } else if (re->requested || re->cancels || re->accepted || re->reduced) {
                beyond++;
            }
            if ((re->refused_cancelled && !re->cancels) || (re->refused_answered && !re->accepted))
                bad_refusal++;
            other += re->refused_other;
            r_answered += re->refused_answered;
            r_cancelled += re->refused_cancelled;
            r_destroyed += re->refused_destroyed;
            reduced += re->reduced;
            if (re->reduced > re->accepted) extra++;
            if (k != SB && !reported && re->accepted > re->reduced) lost++;
            if (first_bad == 0 && id <= st->max_id &&
                (re->requested != 1 || outcomes == 0 || bad_pair || re->reduced > re->accepted ||
                 (k != SB && !reported && re->accepted > re->reduced)))
                first_bad = id;
        }
        printf("   %c: %llu requests, %llu answers accepted, %llu cancelled (%llu of them after "
               "an accepted answer); refused: %llu "
               "already answered, %llu cancelled, %llu destroyed; %llu responses reduced%s\n",
               st->letter, (unsigned long long)st->requested, (unsigned long long)st->accepted,
               (unsigned long long)st->cancels, (unsigned long long)st->both, (unsigned long long)r_answered,
               (unsigned long long)r_cancelled, (unsigned long long)r_destroyed,
               (unsigned long long)reduced, k == SB ? " (by its log before the destroy)" : "");
        if (first_bad != 0) {
            const rec *re = &st->recs[first_bad];
            printf("   %c: first id with a bad account: %llu (requested %d, cancelled %d, "
                   "accepted %d, reduced %d, refused: answered %d cancelled %d destroyed %d "
                   "other %d)\n",
                   st->letter, (unsigned long long)first_bad, re->requested, re->cancels,
                   re->accepted, re->reduced, re->refused_answered, re->refused_cancelled,
                   re->refused_destroyed, re->refused_other);
        }
        CHECK_MSG(st->max_id == st->requested && missing == 0 && twice == 0 && beyond == 0,
                  "%c: ids 1..%llu: %llu missing, %llu requested twice, %llu beyond", st->letter,
                  (unsigned long long)st->max_id, (unsigned long long)missing,
                  (unsigned long long)twice, (unsigned long long)beyond);
        CHECK_MSG(no_outcome == 0 && two_outcomes == 0,
                  "%c: %llu requests neither answered nor cancelled, %llu both or twice",
                  st->letter, (unsigned long long)no_outcome, (unsigned long long)two_outcomes);
        CHECK_MSG(st->requested == st->accepted + st->cancels - st->both,
                  "%c: %llu != %llu + %llu - %llu", st->letter, (unsigned long long)st->requested,
                  (unsigned long long)st->accepted, (unsigned long long)st->cancels,
                  (unsigned long long)st->both);
        CHECK_MSG(bad_refusal == 0 && other == 0,
                  "%c: %llu refusals that do not match the outcome, %llu other refusals (%s)",
                  st->letter, (unsigned long long)bad_refusal, (unsigned long long)other,
                  first_problem);
        CHECK_MSG(extra == 0, "%c: %llu responses reduced more often than answered", st->letter,
                  (unsigned long long)extra);
        /* "Every response reduced exactly once or reported as cancelled, none lost": an answer
         * accepted (RK_OK) whose effect is cancelled before it sends the response is reported
         * by a cancellation event after the answer. */
        CHECK_MSG(lost == 0,
                  "%c: %llu accepted answers (RK_OK) never reduced and never reported as "
                  "cancelled (lost)",
                  st->letter, (unsigned long long)lost);
        CHECK_MSG(st->bad_events == 0, "%c: %llu bad events (%s)", st->letter,
                  (unsigned long long)st->bad_events, first_problem);
    }
    CHECK_MSG(ss[SB].callbacks_after_destroy == 0, "%llu callbacks of B after its destroy",
              (unsigned long long)ss[SB].callbacks_after_destroy);
    CHECK_MSG(send_failures == 0 && take_failures == 0, "%llu sends, %llu takes failed: %s",
              (unsigned long long)send_failures, (unsigned long long)take_failures, first_problem);
    CHECK_MSG(total_requested >= target, "%llu requests, wanted %llu",
              (unsigned long long)total_requested, (unsigned long long)target);
    CHECK_MSG(ss[SS].cancels > 0, "the canceller cancelled no search in flight");
    CHECK_MSG(ss[SB].cancels > 0, "B had no request pending when it was destroyed");
    printf("   %llu requests in %.0f ms\n", (unsigned long long)total_requested,
           rk_t_now_ms() - start);

    for (k = 0; k < NSTORES; k++) {
        if (k != SB) rk_store_destroy(ss[k].store);
        free(ss[k].recs);
    }
    rk_free(b_log);
    free(jobs);
}

int main(int argc, char **argv) {
    rk_t_select(argc, argv);
    rk_t_watchdog(300);
    test_queue_round_trip();
    test_callback_round_trip();
    test_callback_set_and_removed();
    test_fail();
    test_provide_option();
    test_features_list_requests();
    test_clock_idle_and_cancellation();
    test_destroy_with_pending();
    test_destroy_inside_callback();
    test_cancellation_on_cancelling_thread();
    test_many_requests_queued();
    test_request_fd_kind_and_destroy();
    test_replaced_callback();
    test_hostile_responses();
    test_callback_removed_while_flushing();
    test_answers_reduced_in_order();
    test_answer_continues_effect_on_answering_thread();
    test_reliability();
    RK_TEST_EXIT();
}
