/*
 * test_scenarios.c — runs every *.json scenario in $REDUCERKIT_SCENARIOS (default
 * Tests/scenarios) through the C API, exhaustively (format: Tests/scenarios/README.md):
 *
 *   {"send": A, "state": S}     the host sends A; S is the full state after it (no "state":
 *                               A changed nothing); fails if effects' actions are pending
 *   {"receive": A, "state": S}  the next action an effect sent is A (waits up to 1 s for
 *                               running effects; sleepers on the test clock do not count)
 *   {"advance_ms": N}           rk_store_advance_clock(N)
 *   {"request": {"id": N, "name": E, "payload": P}}
 *                               the next host event (rk_store_take_requests) is a request
 *                               of endpoint E with payload P ("id" optional)
 *   {"resolve": N, "response": R}   rk_store_resolve(N, R)
 *   {"fail": N, "message": M}   rk_store_fail(N, M)
 *   {"cancelled": N}            the next host event is the cancellation of request N
 *   {"finish": true}            effects settle (1 s), every received action and host event
 *                               was asserted, and no effect runs, sleeps or waits for the
 *                               host (rk_store_effect_count == 0)
 *
 * The store is created with {"clock", "initial_state", "provide", "record_actions": true};
 * sent and
 * received actions, with the state after each, come from rk_store_take_actions. States are
 * compared as JSON values (key order ignored, 1 == 1.0, true != 1, and an optional written
 * null equals an absent key).
 *
 * With no scenario directory it prints "0 scenarios" and passes; a directory that exists
 * must hold at least one scenario, and every one must pass.
 *
 *   usage: test_scenarios [DIR | FILE.json ...]
 */
#include "rk_test.h"
#include "json_mini.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

typedef struct runner {
    const char *file;
    const char *name;
    rk_store *store;
    jm_value *state;      /* the state as asserted so far */
    jm_value **queue;     /* records of actions effects sent, not received yet */
    size_t qhead, qlen, qcap;
    int step;             /* 1-based index of the running step */
    const jm_value *step_value;
    int failed;
    int timeout_ms;
    jm_value **events;    /* host request events not asserted yet */
    size_t ehead, elen, ecap;
} runner;

/* ---- small helpers ----------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    size_t cap = 0, n = 0;
    if (f == NULL) return NULL;
    for (;;) {
        size_t got;
        if (n + 4096 + 1 > cap) {
            char *grown;
            cap = cap ? cap * 2 : 8192;
            grown = (char *)realloc(data, cap);
            if (grown == NULL) {
                free(data);
                fclose(f);
                return NULL;
            }
            data = grown;
        }
        got = fread(data + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    data[n] = '\0';
    *len = n;
    return data;
}

static jm_value *copy_value(const jm_value *v) {
    char *text = jm_dump(v);
    jm_value *copy = text ? jm_parse(text, strlen(text), NULL, 0) : NULL;
    free(text);
    return copy;
}

/* The wire format's output form: {"increment": {}} and {"increment": null} are "increment". */
static jm_value *normalized_action(const jm_value *action) {
    if (action != NULL && action->type == JM_OBJECT && action->count == 1 &&
        (action->items[0]->type == JM_NULL ||
         (action->items[0]->type == JM_OBJECT && action->items[0]->count == 0))) {
        jm_value *name = jm_new(JM_STRING);
        if (name == NULL) return NULL;
        name->text = (char *)malloc(action->key_lens[0] + 1);
        if (name->text == NULL) {
            free(name);
            return NULL;
        }
        memcpy(name->text, action->keys[0], action->key_lens[0] + 1);
        name->text_len = action->key_lens[0];
        return name;
    }
    return copy_value(action);
}

/* Prints a failure of the running step (printf-style) and counts it. */
static void fail(runner *r, const char *fmt, ...) {
    va_list ap;
    char *step = r->step_value ? jm_dump(r->step_value) : NULL;
    r->failed = 1;
    rk_t_failed++;
    fflush(stdout);
    if (r->step > 0)
        fprintf(stderr, "%s: scenario \"%s\", step %d %.200s:\n    ", r->file, r->name,
                r->step, step ? step : "");
    else
        fprintf(stderr, "%s: scenario \"%s\":\n    ", r->file, r->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    free(step);
}

static void pass(void) { rk_t_passed++; }

/* Moves the recorded actions into the queue (effects) or *hosts (host sends; may be NULL,
 * then a host record is a failure). Returns the number of host records. */
static size_t collect(runner *r, jm_value **hosts, size_t max_hosts) {
    char *json = NULL;
    size_t len = 0, i, n_hosts = 0;
    jm_value *log;
    char err[160];
    rk_status st = rk_store_take_actions(r->store, &json, &len);
    if (st != RK_OK) {
        fail(r, "rk_store_take_actions: %s: %s", rk_status_string(st), rk_last_error());
        return 0;
    }
    log = jm_parse(json, len, err, sizeof err);
    if (log == NULL || log->type != JM_ARRAY) {
        fail(r, "rk_store_take_actions gave no JSON array (%s): %.300s", err, json);
        jm_free(log);
        rk_free(json);
        return 0;
    }
    rk_free(json);
    for (i = 0; i < log->count; i++) {
        jm_value *rec = log->items[i];
        const char *origin = jm_str(jm_get(rec, "origin"));
        log->items[i] = NULL; /* taken */
        if (jm_get(rec, "action") == NULL || jm_get(rec, "state") == NULL ||
            jm_get(rec, "version") == NULL || origin == NULL) {
            char *text = jm_dump(rec);
            fail(r, "a malformed action record: %.300s", text ? text : "?");
            free(text);
            jm_free(rec);
        } else if (strcmp(origin, "host") == 0) {
            if (hosts != NULL && n_hosts < max_hosts) {
                hosts[n_hosts++] = rec;
            } else {
                char *text = jm_dump(jm_get(rec, "action"));
                fail(r, "an unexpected host action was recorded: %s", text ? text : "?");
                free(text);
                jm_free(rec);
            }
        } else {
            if (r->qlen == r->qcap) {
                size_t cap = r->qcap ? r->qcap * 2 : 16;
                jm_value **grown = (jm_value **)realloc(r->queue, cap * sizeof *grown);
                if (grown == NULL) {
                    jm_free(rec);
                    continue;
                }
                r->queue = grown;
                r->qcap = cap;
            }
            r->queue[r->qlen++] = rec;
        }
    }
    jm_free(log);
    return n_hosts;
}

static size_t pending(const runner *r) { return r->qlen - r->qhead; }

static void print_pending(const runner *r) {
    size_t i;
    for (i = r->qhead; i < r->qlen; i++) {
        char *text = jm_dump(jm_get(r->queue[i], "action"));
        fprintf(stderr, "      %lu. %s\n", (unsigned long)(i - r->qhead + 1), text ? text : "?");
        free(text);
    }
}

static jm_value *pop(runner *r) {
    jm_value *rec = r->queue[r->qhead];
    r->queue[r->qhead++] = NULL;
    return rec;
}

/* Checks the state of a record against the step's "state" (or the previous state when it has
 * none), and makes it the asserted state. */
static void assert_state(runner *r, const jm_value *record, const jm_value *step,
                         const char *what) {
    const jm_value *actual = jm_get(record, "state");
    const jm_value *expected = jm_get(step, "state");
    if (expected == NULL) expected = r->state;
    if (jm_equal(expected, actual, JM_NULL_IS_MISSING)) {
        pass();
    } else {
        char *e = jm_dump(expected), *a = jm_dump(actual);
        fail(r, "the state after %s is not the expected one%s\n    expected %.1000s\n    actual   %.1000s",
             what, jm_get(step, "state") ? "" : " (the step has no \"state\": no change)",
             e ? e : "?", a ? a : "?");
        free(e);
        free(a);
    }
    jm_free(r->state);
    r->state = copy_value(actual);
}

/* Waits until an effect's action is recorded or effects are idle (bounded). */
static void await_received(runner *r) {
    double deadline = rk_t_now_ms() + r->timeout_ms;
    while (pending(r) == 0) {
        rk_status st;
        double left = deadline - rk_t_now_ms();
        collect(r, NULL, 0);
        if (pending(r) > 0 || left <= 0) return;
        st = rk_store_wait_idle(r->store, left < 50 ? (int64_t)left + 1 : 50);
        collect(r, NULL, 0);
        if (st == RK_OK) return; /* idle: nothing more will come */
        if (st != RK_ERR_TIMEOUT) {
            fail(r, "rk_store_wait_idle: %s: %s", rk_status_string(st), rk_last_error());
            return;
        }
    }
}

/* ---- host requests ---------------------------------------------------------------- */

/* Moves the store's queued request events into r->events. */
static void collect_events(runner *r) {
    char *json = NULL;
    size_t len = 0, i;
    char err[160];
    jm_value *list;
    rk_status st = rk_store_take_requests(r->store, &json, &len);
    if (st != RK_OK) {
        fail(r, "rk_store_take_requests: %s: %s", rk_status_string(st), rk_last_error());
        return;
    }
    list = jm_parse(json, len, err, sizeof err);
    rk_free(json);
    if (list == NULL || list->type != JM_ARRAY) {
        fail(r, "rk_store_take_requests gave no JSON array (%s)", err);
        jm_free(list);
        return;
    }
    for (i = 0; i < list->count; i++) {
        if (r->elen == r->ecap) {
            size_t cap = r->ecap ? r->ecap * 2 : 16;
            jm_value **grown = (jm_value **)realloc(r->events, cap * sizeof *grown);
            if (grown == NULL) break;
            r->events = grown;
            r->ecap = cap;
        }
        r->events[r->elen++] = list->items[i];
        list->items[i] = NULL;
    }
    jm_free(list);
}

/* The next host event, waiting (bounded) for running effects to make one; NULL if none. */
static jm_value *next_event(runner *r) {
    double deadline = rk_t_now_ms() + r->timeout_ms;
    collect_events(r);
    while (r->ehead == r->elen && rk_t_now_ms() < deadline) {
        rk_status st = rk_store_wait_idle(r->store, 50);
        collect_events(r);
        if (st == RK_OK) break; /* idle: nothing more will come */
    }
    if (r->ehead == r->elen) return NULL;
    {
        jm_value *event = r->events[r->ehead];
        r->events[r->ehead++] = NULL;
        return event;
    }
}

static void step_request(runner *r, const jm_value *step) {
    const jm_value *expected = jm_get(step, "request");
    jm_value *event = next_event(r);
    char *e = jm_dump(expected);
    const jm_value *id = jm_get(expected, "id");
    if (event == NULL) {
        fail(r, "expected the request %s, but the host got no event within %d ms", e,
             r->timeout_ms);
    } else if (jm_get(event, "cancelled") != NULL ||
               !jm_equal(jm_get(event, "name"), jm_get(expected, "name"), 0) ||
               !jm_equal(jm_get(event, "payload"), jm_get(expected, "payload"), 0) ||
               (id != NULL && !jm_equal(jm_get(event, "id"), id, 0))) {
        char *g = jm_dump(event);
        fail(r, "expected the request %s\n    got %s", e, g ? g : "?");
        free(g);
    } else {
        pass();
    }
    jm_free(event);
    free(e);
}

static int request_id(runner *r, const jm_value *v, uint64_t *out) {
    if (v == NULL || v->type != JM_NUMBER || v->number < 0 ||
        v->number != (double)(uint64_t)v->number) {
        fail(r, "a request id is a whole number >= 0");
        return 0;
    }
    *out = (uint64_t)v->number;
    return 1;
}

static void step_answer(runner *r, const jm_value *step) {
    uint64_t id;
    rk_status st;
    int resolve = jm_get(step, "resolve") != NULL;
    if (!request_id(r, jm_get(step, resolve ? "resolve" : "fail"), &id)) return;
    if (resolve) {
        const jm_value *response = jm_get(step, "response");
        char *text;
        if (response == NULL) {
            fail(r, "a resolve step needs a \"response\"");
            return;
        }
        text = jm_dump(response);
        st = rk_store_resolve(r->store, id, text);
        free(text);
    } else {
        const char *message = jm_str(jm_get(step, "message"));
        if (message == NULL) {
            fail(r, "a fail step needs a \"message\" string");
            return;
        }
        st = rk_store_fail(r->store, id, message);
    }
    if (st != RK_OK) {
        fail(r, "rk_store_%s(%llu): %s: %s", resolve ? "resolve" : "fail",
             (unsigned long long)id, rk_status_string(st), rk_last_error());
    } else {
        pass();
    }
}

static void step_cancelled(runner *r, const jm_value *step) {
    uint64_t id;
    jm_value *event;
    if (!request_id(r, jm_get(step, "cancelled"), &id)) return;
    event = next_event(r);
    if (event == NULL) {
        fail(r, "expected the cancellation of request %llu, but the host got no event",
             (unsigned long long)id);
    } else if (jm_get(event, "cancelled") == NULL || jm_get(event, "cancelled")->type != JM_BOOL ||
               !jm_get(event, "cancelled")->boolean || jm_get(event, "id") == NULL ||
               jm_get(event, "id")->number != (double)id) {
        char *g = jm_dump(event);
        fail(r, "expected the cancellation of request %llu\n    got %s", (unsigned long long)id,
             g ? g : "?");
        free(g);
    } else {
        pass();
    }
    jm_free(event);
}

/* ---- steps ----------------------------------------------------------------------- */

static void step_send(runner *r, const jm_value *step) {
    const jm_value *action = jm_get(step, "send");
    char *text = jm_dump(action);
    jm_value *hosts[2] = {NULL, NULL};
    size_t n, i;
    rk_status st;
    collect(r, NULL, 0);
    if (pending(r) > 0) {
        fail(r, "%lu action(s) effects sent must be received before sending %s:",
             (unsigned long)pending(r), text);
        print_pending(r);
        while (pending(r) > 0) jm_free(pop(r));
    }
    st = rk_store_send_n(r->store, text, strlen(text));
    if (st != RK_OK) {
        fail(r, "rk_store_send(%s): %s: %s", text, rk_status_string(st), rk_last_error());
        free(text);
        return;
    }
    n = collect(r, hosts, 2);
    if (n != 1) {
        fail(r, "%lu host records for one send of %s; expected exactly 1", (unsigned long)n,
             text);
    } else {
        double version = jm_get(hosts[0], "version")->number;
        jm_value *sent = normalized_action(action);
        jm_value *logged = normalized_action(jm_get(hosts[0], "action"));
        if (!jm_equal(sent, logged, 0)) {
            char *l = jm_dump(logged);
            fail(r, "the action log has %s for the sent %s", l ? l : "?", text);
            free(l);
        }
        jm_free(sent);
        jm_free(logged);
        /* An effect's action reduced before ours (a race) must have been received first. */
        for (i = r->qhead; i < r->qlen; i++) {
            if (jm_get(r->queue[i], "version")->number < version) {
                char *a = jm_dump(jm_get(r->queue[i], "action"));
                fail(r, "an effect sent %s while %s was being sent, and it was not received",
                     a ? a : "?", text);
                free(a);
            }
        }
        assert_state(r, hosts[0], step, "sending it");
    }
    for (i = 0; i < n && i < 2; i++) jm_free(hosts[i]);
    free(text);
}

static void step_receive(runner *r, const jm_value *step) {
    jm_value *expected = normalized_action(jm_get(step, "receive"));
    char *e = jm_dump(expected);
    if (pending(r) == 0) await_received(r);
    if (pending(r) == 0) {
        uint64_t count = 0;
        rk_store_effect_count(r->store, &count);
        fail(r, "expected to receive %s, but no action was received within %d ms (%s)", e,
             r->timeout_ms,
             count ? "effects still running or sleeping on the test clock: advance it?"
                   : "no effect is running");
    } else {
        jm_value *rec = pop(r);
        jm_value *got = normalized_action(jm_get(rec, "action"));
        if (!jm_equal(got, expected, 0)) {
            char *g = jm_dump(got);
            fail(r, "received %s, expected %s", g ? g : "?", e);
            free(g);
        } else {
            pass();
        }
        assert_state(r, rec, step, "receiving it");
        jm_free(got);
        jm_free(rec);
    }
    free(e);
    jm_free(expected);
}

static void step_advance(runner *r, const jm_value *step) {
    const jm_value *ms = jm_get(step, "advance_ms");
    rk_status st;
    if (ms->type != JM_NUMBER || ms->number < 0 || ms->number != (double)(int64_t)ms->number) {
        fail(r, "advance_ms must be a whole number >= 0");
        return;
    }
    st = rk_store_advance_clock(r->store, (int64_t)ms->number);
    if (st != RK_OK) {
        fail(r, "rk_store_advance_clock(%s): %s: %s", ms->text, rk_status_string(st),
             rk_last_error());
        return;
    }
    pass();
    collect(r, NULL, 0);
}

static void step_finish(runner *r, const jm_value *step) {
    const jm_value *flag = jm_get(step, "finish");
    rk_status st;
    uint64_t count = 99;
    if (flag->type != JM_BOOL) {
        fail(r, "finish must be true or false");
        return;
    }
    if (!flag->boolean) return;
    st = rk_store_wait_idle(r->store, r->timeout_ms);
    collect(r, NULL, 0);
    collect_events(r);
    if (r->ehead < r->elen) {
        size_t i;
        fail(r, "%lu host event(s) were not asserted:", (unsigned long)(r->elen - r->ehead));
        for (i = r->ehead; i < r->elen; i++) {
            char *text = jm_dump(r->events[i]);
            fprintf(stderr, "      %s\n", text ? text : "?");
            free(text);
            jm_free(r->events[i]);
            r->events[i] = NULL;
        }
        r->ehead = r->elen;
    }
    if (pending(r) > 0) {
        fail(r, "%lu received action(s) were not asserted:", (unsigned long)pending(r));
        print_pending(r);
        while (pending(r) > 0) jm_free(pop(r));
    } else {
        pass();
    }
    if (rk_store_effect_count(r->store, &count) != RK_OK) count = 99;
    if (st != RK_OK || count != 0) {
        fail(r, "%llu effect(s) still running at finish%s", (unsigned long long)count,
             st == RK_ERR_TIMEOUT ? " (rk_store_wait_idle timed out)"
                                  : " (sleeping on the test clock, or waiting for the host to answer)");
    } else {
        pass();
    }
}

/* ---- one scenario ---------------------------------------------------------------- */

static const char *const top_keys[] = {"name", "feature", "clock", "initial_state", "provide",
                                       "steps"};
static const char *const step_kinds[] = {"send", "receive", "advance_ms", "finish",
                                         "request", "resolve", "fail", "cancelled"};

static int has_key(const char *const *keys, size_t n, const char *key) {
    size_t i;
    for (i = 0; i < n; i++) {
        if (strcmp(keys[i], key) == 0) return 1;
    }
    return 0;
}

/* Checks the scenario's shape; returns 0 (after failing) if it is malformed. */
static int validate(runner *r, const jm_value *sc) {
    const jm_value *steps = jm_get(sc, "steps");
    const jm_value *clock = jm_get(sc, "clock");
    const jm_value *initial = jm_get(sc, "initial_state");
    size_t i, k;
    if (sc->type != JM_OBJECT) {
        fail(r, "a scenario is a JSON object");
        return 0;
    }
    for (i = 0; i < sc->count; i++) {
        if (!has_key(top_keys, 6, sc->keys[i])) {
            fail(r, "unknown top-level key \"%s\" (expected name, feature, clock, "
                    "initial_state, provide, steps)", sc->keys[i]);
            return 0;
        }
    }
    if (jm_str(jm_get(sc, "name")) == NULL || jm_str(jm_get(sc, "feature")) == NULL) {
        fail(r, "\"name\" and \"feature\" are required strings");
        return 0;
    }
    if (clock != NULL && (jm_str(clock) == NULL || (strcmp(clock->text, "test") != 0 &&
                                                    strcmp(clock->text, "live") != 0))) {
        fail(r, "\"clock\" is \"test\" or \"live\"");
        return 0;
    }
    if (initial != NULL && initial->type != JM_NULL && initial->type != JM_OBJECT) {
        fail(r, "\"initial_state\" is null or an object");
        return 0;
    }
    if (steps == NULL || steps->type != JM_ARRAY) {
        fail(r, "\"steps\" is a required array");
        return 0;
    }
    for (i = 0; i < steps->count; i++) {
        const jm_value *step = steps->items[i];
        int kinds = 0, with_state = 0, with_response = 0, with_message = 0;
        r->step = (int)i + 1;
        r->step_value = step;
        if (step->type != JM_OBJECT) {
            fail(r, "a step is an object");
            return 0;
        }
        for (k = 0; k < step->count; k++) {
            if (has_key(step_kinds, 8, step->keys[k])) kinds++;
            else if (strcmp(step->keys[k], "state") == 0) with_state = 1;
            else if (strcmp(step->keys[k], "response") == 0) with_response = 1;
            else if (strcmp(step->keys[k], "message") == 0) with_message = 1;
            else {
                fail(r, "unknown key \"%s\" in a step", step->keys[k]);
                return 0;
            }
        }
        if (kinds != 1) {
            fail(r, "a step has exactly one of send, receive, advance_ms, request, resolve, "
                    "fail, cancelled, finish");
            return 0;
        }
        if ((with_response && jm_get(step, "resolve") == NULL) ||
            (with_message && jm_get(step, "fail") == NULL)) {
            fail(r, "\"response\" belongs to a resolve step, \"message\" to a fail step");
            return 0;
        }
        if (with_state && jm_get(step, "send") == NULL && jm_get(step, "receive") == NULL) {
            fail(r, "\"state\" belongs to a send or receive step");
            return 0;
        }
    }
    r->step = 0;
    r->step_value = NULL;
    return 1;
}

static void run_scenario(const char *path) {
    runner r;
    size_t len = 0, i;
    char err[160];
    char *text = read_file(path, &len);
    jm_value *sc;
    int failed_before = rk_t_failed;
    memset(&r, 0, sizeof r);
    r.file = path;
    r.name = "?";
    r.timeout_ms = rk_t_under_valgrind() ? 30000 : 1000;
    if (text == NULL) {
        fail(&r, "cannot read the file: %s", strerror(errno));
        printf("FAILED %s\n", path);
        return;
    }
    sc = jm_parse(text, len, err, sizeof err);
    free(text);
    if (sc == NULL) {
        fail(&r, "not JSON: %s", err);
        printf("FAILED %s\n", path);
        return;
    }
    if (jm_str(jm_get(sc, "name")) != NULL) r.name = jm_str(jm_get(sc, "name"));
    if (validate(&r, sc)) {
        const jm_value *steps = jm_get(sc, "steps");
        const jm_value *clock = jm_get(sc, "clock");
        const jm_value *initial = jm_get(sc, "initial_state");
        const jm_value *provide = jm_get(sc, "provide");
        char *initial_text = initial ? jm_dump(initial) : NULL;
        char *provide_text = provide ? jm_dump(provide) : NULL;
        size_t cap = 128 + (initial_text ? strlen(initial_text) : 0) +
                     (provide_text ? strlen(provide_text) : 0);
        char *options = (char *)malloc(cap);
        rk_status st;
        snprintf(options, cap, "{\"clock\":\"%s\",\"record_actions\":true%s%s%s%s}",
                 clock ? clock->text : "test", initial_text ? ",\"initial_state\":" : "",
                 initial_text ? initial_text : "", provide_text ? ",\"provide\":" : "",
                 provide_text ? provide_text : "");
        free(initial_text);
        free(provide_text);
        st = rk_store_create(jm_str(jm_get(sc, "feature")), options, &r.store);
        if (st != RK_OK) {
            fail(&r, "rk_store_create(\"%s\", %s): %s: %s", jm_str(jm_get(sc, "feature")),
                 options, rk_status_string(st), rk_last_error());
        } else {
            char *state = rk_t_state(r.store);
            r.state = jm_parse_str(state);
            rk_free(state);
            for (i = 0; i < steps->count; i++) {
                const jm_value *step = steps->items[i];
                r.step = (int)i + 1;
                r.step_value = step;
                if (jm_get(step, "send")) step_send(&r, step);
                else if (jm_get(step, "receive")) step_receive(&r, step);
                else if (jm_get(step, "advance_ms")) step_advance(&r, step);
                else if (jm_get(step, "request")) step_request(&r, step);
                else if (jm_get(step, "resolve") || jm_get(step, "fail")) step_answer(&r, step);
                else if (jm_get(step, "cancelled")) step_cancelled(&r, step);
                else step_finish(&r, step);
            }
            rk_store_destroy(r.store);
        }
        free(options);
    }
    printf("%s %s (%s)\n", rk_t_failed == failed_before ? "ok    " : "FAILED", r.name, path);
    while (pending(&r) > 0) jm_free(pop(&r));
    free(r.queue);
    while (r.ehead < r.elen) jm_free(r.events[r.ehead++]);
    free(r.events);
    jm_free(r.state);
    jm_free(sc);
}

/* ---- main ---------------------------------------------------------------------- */

static int compare_names(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Runs the *.json files of a directory; returns how many, or -1 if it does not exist. */
static int run_directory(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char **paths = NULL;
    size_t n = 0, cap = 0, i;
    if (d == NULL) return -1;
    while ((e = readdir(d)) != NULL) {
        size_t len;
        if (!ends_with(e->d_name, ".json") || e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            paths = (char **)realloc(paths, cap * sizeof *paths);
            if (paths == NULL) break;
        }
        len = strlen(dir) + strlen(e->d_name) + 2;
        paths[n] = (char *)malloc(len);
        snprintf(paths[n], len, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n > 0) qsort(paths, n, sizeof *paths, compare_names);
    for (i = 0; i < n; i++) {
        run_scenario(paths[i]);
        free(paths[i]);
    }
    free(paths);
    return (int)n;
}

int main(int argc, char **argv) {
    int total = 0, i;
    rk_t_watchdog(300);
    if (argc > 1) {
        for (i = 1; i < argc; i++) {
            struct stat sb;
            if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
                int n = run_directory(argv[i]);
                total += n > 0 ? n : 0;
            } else {
                run_scenario(argv[i]);
                total++;
            }
        }
    } else {
        const char *dir = getenv("REDUCERKIT_SCENARIOS");
        int n;
        if (dir == NULL || dir[0] == '\0') dir = "Tests/scenarios";
        n = run_directory(dir);
        if (n < 0) {
            printf("no scenario directory %s: 0 scenarios\n", dir);
            total = 0;
        } else if (n == 0) {
            fprintf(stderr, "%s exists but holds no *.json scenario\n", dir);
            rk_t_failed++;
        } else {
            total = n;
        }
    }
    printf("%d scenarios\n", total);
    RK_TEST_EXIT();
}
