/*
 * reducerkit-check — runs scenario files (*.scenario.json, format: Tests/scenarios/README.md,
 * JSON Schema: Tests/scenarios/scenario.schema.json) against a ReducerKit library, through
 * the C interface of reducerkit.h alone.
 *
 *   reducerkit-check [--lib PATH] [--timeout-ms N] FILE_OR_DIRECTORY...
 *
 * The library is loaded with dlopen: --lib PATH, else libreducerkit.so.0 found beside the
 * program or in ../lib (where `make` and `make install` put them), else by the loader's
 * search. A directory stands for the *.scenario.json files under it (links to directories
 * are not followed). Each scenario prints one line, "ok     PATH: NAME" or "FAILED PATH: NAME"
 * followed by what failed (with the JSON paths where the values differ); a file that fails,
 * however malformed, never stops the run, and the last line is "N passed, N failed". The
 * exit status is 0 when every scenario passed, 1 when one failed, 2 for bad usage or a
 * library that cannot be loaded.
 *
 * The library defines the format: rk_scenario_parse() checks each file and gives it in its
 * normal form, which this runner drives; rk_json_match() compares states, actions and request
 * payloads. This file only drives stores through reducerkit.h.
 *
 * Compiled with RKC_LINKED defined, the runner calls the library it is linked with instead
 * (Tests/c/test_scenarios.c: the sanitizer and valgrind runs; Tests/fuzz/fuzz_scenario.c).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1 /* DT_DIR, d_type */
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifndef RKC_LINKED
#include <dlfcn.h>
#endif

#include "reducerkit.h"
#include "json_mini.h"

/* ---- the library's functions: looked up with dlsym, or the linked ones ---------------- */

typedef struct rkc_api {
    int (*abi_version)(void);
    const char *(*version)(void);
    const char *(*status_string)(rk_status);
    const char *(*last_error)(void);
    void (*free_)(void *);
    rk_status (*store_create)(const char *, const char *, rk_store **);
    void (*store_destroy)(rk_store *);
    rk_status (*store_send_n)(rk_store *, const char *, size_t);
    rk_status (*store_state)(rk_store *, char **, size_t *);
    rk_status (*store_wait_idle)(rk_store *, int64_t);
    rk_status (*store_advance_clock)(rk_store *, int64_t);
    rk_status (*store_take_actions)(rk_store *, char **, size_t *);
    rk_status (*store_effect_count)(rk_store *, uint64_t *);
    rk_status (*store_take_requests)(rk_store *, char **, size_t *);
    rk_status (*store_resolve)(rk_store *, uint64_t, const char *);
    rk_status (*store_fail)(rk_store *, uint64_t, const char *);
    rk_status (*scenario_parse)(const char *, size_t, char **, size_t *);
    rk_status (*json_match)(const char *, size_t, const char *, size_t, int *, char **, size_t *);
} rkc_api;

static rkc_api rk;

#ifdef RKC_LINKED
static int rkc_load(const char *path, char *err, size_t errlen) {
    (void)path;
    (void)err;
    (void)errlen;
    rk.abi_version = rk_abi_version;
    rk.version = rk_version;
    rk.status_string = rk_status_string;
    rk.last_error = rk_last_error;
    rk.free_ = rk_free;
    rk.store_create = rk_store_create;
    rk.store_destroy = rk_store_destroy;
    rk.store_send_n = rk_store_send_n;
    rk.store_state = rk_store_state;
    rk.store_wait_idle = rk_store_wait_idle;
    rk.store_advance_clock = rk_store_advance_clock;
    rk.store_take_actions = rk_store_take_actions;
    rk.store_effect_count = rk_store_effect_count;
    rk.store_take_requests = rk_store_take_requests;
    rk.store_resolve = rk_store_resolve;
    rk.store_fail = rk_store_fail;
    rk.scenario_parse = rk_scenario_parse;
    rk.json_match = rk_json_match;
    return 1;
}
#else
/* dlsym returns void *; POSIX guarantees it converts to a function pointer. */
#define RKC_SYM(field, name)                                                                  \
    do {                                                                                      \
        void *sym = dlsym(handle, name);                                                      \
        if (sym == NULL) {                                                                    \
            snprintf(err, errlen, "%s is not a ReducerKit library of this version: it has no %s", shown, name); \
            return 0;                                                                         \
        }                                                                                     \
        memcpy(&rk.field, &sym, sizeof sym);                                                  \
    } while (0)

/* Loads the library (path NULL: the default). Returns 0 with err set if it cannot. */
static int rkc_load(const char *path, char *err, size_t errlen) {
    void *handle = NULL;
    const char *shown = path;
    if (path != NULL) {
        handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            snprintf(err, errlen, "cannot load --lib %s: %s", path, dlerror());
            return 0;
        }
    } else {
        /* The runpath ($ORIGIN and $ORIGIN/../lib) finds the library beside the program in
         * build/ and in PREFIX/lib after make install; then the loader's usual search. */
        shown = "libreducerkit.so.0";
        handle = dlopen("libreducerkit.so.0", RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            snprintf(err, errlen,
                     "cannot load the default library libreducerkit.so.0 (looked beside this "
                     "program, in ../lib and in the loader's search path): %s; name one with "
                     "--lib PATH",
                     dlerror());
            return 0;
        }
    }
    RKC_SYM(abi_version, "rk_abi_version");
    RKC_SYM(version, "rk_version");
    RKC_SYM(status_string, "rk_status_string");
    RKC_SYM(last_error, "rk_last_error");
    RKC_SYM(free_, "rk_free");
    RKC_SYM(store_create, "rk_store_create");
    RKC_SYM(store_destroy, "rk_store_destroy");
    RKC_SYM(store_send_n, "rk_store_send_n");
    RKC_SYM(store_state, "rk_store_state");
    RKC_SYM(store_wait_idle, "rk_store_wait_idle");
    RKC_SYM(store_advance_clock, "rk_store_advance_clock");
    RKC_SYM(store_take_actions, "rk_store_take_actions");
    RKC_SYM(store_effect_count, "rk_store_effect_count");
    RKC_SYM(store_take_requests, "rk_store_take_requests");
    RKC_SYM(store_resolve, "rk_store_resolve");
    RKC_SYM(store_fail, "rk_store_fail");
    RKC_SYM(scenario_parse, "rk_scenario_parse");
    RKC_SYM(json_match, "rk_json_match");
    if (rk.abi_version() != RK_ABI_VERSION) {
        snprintf(err, errlen, "%s has ABI version %d; this reducerkit-check knows %d", shown,
                 rk.abi_version(), RK_ABI_VERSION);
        return 0;
    }
    return 1;
}
#endif

/* ---- the status names of the format ("RK_ERR_ACTION") --------------------------------- */

static const char *const status_names[] = {
    "RK_OK", "RK_ERR_INVALID_ARGUMENT", "RK_ERR_JSON", "RK_ERR_ACTION", "RK_ERR_STATE",
    "RK_ERR_UNKNOWN_FEATURE", "RK_ERR_INVALID_HANDLE", "RK_ERR_TIMEOUT", "RK_ERR_INTERNAL",
    "RK_ERR_MISUSE", "RK_ERR_RESPONSE"};
#define STATUS_COUNT (sizeof status_names / sizeof status_names[0])

static const char *status_name(rk_status st) {
    return (unsigned)st < STATUS_COUNT ? status_names[st] : "RK_ERR_?";
}

/* ---- one scenario's run ---------------------------------------------------------------- */

typedef struct runner {
    const char *file;
    rk_store *store;
    int exhaustive;
    int timeout_ms;
    jm_value *state;   /* the state as asserted so far */
    jm_value **queue;  /* records of actions effects sent, not received yet */
    size_t qhead, qlen, qcap;
    jm_value **events; /* host request events not asserted yet */
    size_t ehead, elen, ecap;
    int step;          /* 1-based index of the running step, 0 outside steps */
    const jm_value *step_value;
    int failures;
    jm_buf out;        /* what failed, printed under the scenario's line */
} runner;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static void outf(runner *r, const char *fmt, ...) {
    char small[1024];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        jm_buf_put(&r->out, small, (size_t)n);
    } else {
        char *big = (char *)malloc((size_t)n + 1);
        if (big == NULL) return;
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        jm_buf_put(&r->out, big, (size_t)n);
        free(big);
    }
}

/* Starts a failure of the running step: "    step N {...}: MESSAGE". */
static void fail(runner *r, const char *fmt, ...) {
    char message[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    r->failures++;
    if (r->step > 0) {
        char *step = r->step_value ? jm_dump(r->step_value) : NULL;
        size_t n = step ? strlen(step) : 0;
        outf(r, "    step %d %.*s%s: %s\n", r->step, (int)(n > 120 ? 117 : n), step ? step : "",
             n > 120 ? "..." : "", message);
        free(step);
    } else {
        outf(r, "    %s\n", message);
    }
}

/* ---- comparing JSON values: the format's rule, rk_json_match ---------------------------- */

/* Whether the JSON texts are equal under the format's rule (rk_json_match). When they differ,
 * or cannot be compared, prints `heading` as a failure of the running step and the
 * differences under it ("      $.count: expected 3, actual 2"). */
static int compare_text(runner *r, const char *expected, const char *actual, const char *heading) {
    char *diff = NULL;
    size_t diff_len = 0;
    int equal = 0;
    rk_status st = rk.json_match(expected, strlen(expected), actual, strlen(actual), &equal, &diff, &diff_len);
    if (st != RK_OK) {
        fail(r, "%s: rk_json_match: %s: %s", heading, status_name(st), rk.last_error());
    } else if (!equal) {
        const char *line = diff ? diff : "";
        fail(r, "%s", heading);
        while (*line != '\0') {
            const char *end = strchr(line, '\n');
            size_t n = end ? (size_t)(end - line) : strlen(line);
            outf(r, "      %.*s\n", (int)n, line);
            line += n + (end ? 1 : 0);
        }
    }
    rk.free_(diff);
    return st == RK_OK && equal;
}

/* compare_text() for two values. */
static int compare_values(runner *r, const jm_value *expected, const jm_value *actual, const char *heading) {
    char *e = jm_dump(expected), *a = jm_dump(actual);
    int equal = 0;
    if (e == NULL || a == NULL) fail(r, "%s: %s", heading, "a value is missing, or out of memory");
    else equal = compare_text(r, e, a, heading);
    free(e);
    free(a);
    return equal;
}

/* Whether the values are equal under the format's rule, printing nothing (NULL: absent). */
static int same(const jm_value *expected, const jm_value *actual) {
    char *e = expected ? jm_dump(expected) : NULL, *a = actual ? jm_dump(actual) : NULL;
    int equal = 0;
    if (e != NULL && a != NULL && rk.json_match(e, strlen(e), a, strlen(a), &equal, NULL, NULL) != RK_OK)
        equal = 0;
    free(e);
    free(a);
    return equal;
}

/* ---- small helpers --------------------------------------------------------------------- */

/* What a path names when it is not a regular file: such a file is not read (a FIFO would block
 * without a writer, /dev/zero never ends). */
static const char *file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "an unknown kind of file";
}

/* The whole of a regular file, or of the file a link names (NUL-terminated; it may hold NUL
 * bytes too: *len counts them), or NULL with *why saying why not: errno's text, or "not a
 * regular file (a FIFO)". It is opened without blocking, so a FIFO is refused at once. */
static char *read_file(const char *path, size_t *len, char *why, size_t why_len) {
    char *data = NULL;
    size_t cap = 0, n = 0;
    struct stat sb;
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        snprintf(why, why_len, "%s", strerror(errno));
        return NULL;
    }
    if (fstat(fd, &sb) != 0) {
        snprintf(why, why_len, "%s", strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(why, why_len, "not a regular file (%s)", file_kind(sb.st_mode));
        close(fd);
        return NULL;
    }
    for (;;) {
        ssize_t got;
        if (n + 4096 + 1 > cap) {
            char *grown;
            cap = cap ? cap * 2 : 8192;
            grown = (char *)realloc(data, cap);
            if (grown == NULL) {
                free(data);
                close(fd);
                snprintf(why, why_len, "%s", strerror(ENOMEM));
                return NULL;
            }
            data = grown;
        }
        got = read(fd, data + n, cap - n - 1);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            snprintf(why, why_len, "%s", strerror(errno));
            free(data);
            close(fd);
            return NULL;
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    close(fd);
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

static int push(jm_value ***items, size_t *len, size_t *cap, jm_value *v) {
    if (*len == *cap) {
        size_t grown_cap = *cap ? *cap * 2 : 16;
        jm_value **grown = (jm_value **)realloc(*items, grown_cap * sizeof *grown);
        if (grown == NULL) return 0;
        *items = grown;
        *cap = grown_cap;
    }
    (*items)[(*len)++] = v;
    return 1;
}

/* Moves recorded actions into the queue (effects) or *host (the host's send; NULL: a host
 * record is a failure). Returns the number of host records. */
static size_t collect(runner *r, jm_value **host) {
    char *json = NULL;
    size_t len = 0, i, hosts = 0;
    jm_value *log;
    char err[160];
    rk_status st = rk.store_take_actions(r->store, &json, &len);
    if (st != RK_OK) {
        fail(r, "rk_store_take_actions: %s: %s", status_name(st), rk.last_error());
        return 0;
    }
    log = jm_parse(json, len, err, sizeof err);
    rk.free_(json);
    if (log == NULL || log->type != JM_ARRAY) {
        fail(r, "rk_store_take_actions gave no JSON array (%s)", err);
        jm_free(log);
        return 0;
    }
    for (i = 0; i < log->count; i++) {
        jm_value *rec = log->items[i];
        const char *origin = jm_str(jm_get(rec, "origin"));
        log->items[i] = NULL;
        if (jm_get(rec, "action") == NULL || jm_get(rec, "state") == NULL || origin == NULL) {
            fail(r, "a malformed action record");
            jm_free(rec);
        } else if (strcmp(origin, "host") == 0) {
            hosts++;
            if (host != NULL && *host == NULL) {
                *host = rec;
            } else {
                char *text = jm_dump(jm_get(rec, "action"));
                fail(r, "an unexpected host action was recorded: %s", text ? text : "?");
                free(text);
                jm_free(rec);
            }
        } else if (!push(&r->queue, &r->qlen, &r->qcap, rec)) {
            jm_free(rec);
        }
    }
    jm_free(log);
    return hosts;
}

static size_t pending(const runner *r) { return r->qlen - r->qhead; }

/* Lists of unasserted actions and events show this many, then how many more there are (a
 * timer over a long advance left 100,000 of them, each a line). */
#define LIST_AT_MOST 20

static void print_pending(runner *r) {
    size_t i;
    for (i = r->qhead; i < r->qlen && i - r->qhead < LIST_AT_MOST; i++) {
        char *text = jm_dump(jm_get(r->queue[i], "action"));
        outf(r, "      %lu. %s\n", (unsigned long)(i - r->qhead + 1), text ? text : "?");
        free(text);
    }
    if (r->qlen - r->qhead > LIST_AT_MOST)
        outf(r, "      (%lu more not shown)\n", (unsigned long)(r->qlen - r->qhead - LIST_AT_MOST));
}

static jm_value *pop(runner *r) {
    jm_value *rec = r->queue[r->qhead];
    r->queue[r->qhead++] = NULL;
    return rec;
}

/* Takes the state of a record as the asserted state, after checking it against the step's
 * "state" (exhaustive: the previous state when the step has none). */
static void assert_state(runner *r, const jm_value *record, const jm_value *step,
                         const char *what) {
    const jm_value *actual = jm_get(record, "state");
    const jm_value *expected = jm_get(step, "state");
    char heading[160];
    if (expected == NULL && r->exhaustive) expected = r->state;
    snprintf(heading, sizeof heading, "the state after %s is not the expected one%s:", what,
             jm_get(step, "state") ? "" : " (the step has no \"state\": no change)");
    if (expected != NULL) compare_values(r, expected, actual, heading);
    jm_free(r->state);
    r->state = copy_value(actual);
}

/* Waits until an effect's action is recorded or effects are idle (bounded). */
static void await_received(runner *r) {
    double deadline = now_ms() + r->timeout_ms;
    while (pending(r) == 0) {
        rk_status st;
        double left = deadline - now_ms();
        collect(r, NULL);
        if (pending(r) > 0 || left <= 0) return;
        st = rk.store_wait_idle(r->store, left < 50 ? (int64_t)left + 1 : 50);
        collect(r, NULL);
        if (st == RK_OK) return; /* idle: nothing more will come */
        if (st != RK_ERR_TIMEOUT) {
            fail(r, "rk_store_wait_idle: %s: %s", status_name(st), rk.last_error());
            return;
        }
    }
}

/* ---- host requests --------------------------------------------------------------------- */

static void collect_events(runner *r) {
    char *json = NULL;
    size_t len = 0, i;
    char err[160];
    jm_value *list;
    rk_status st = rk.store_take_requests(r->store, &json, &len);
    if (st != RK_OK) {
        fail(r, "rk_store_take_requests: %s: %s", status_name(st), rk.last_error());
        return;
    }
    list = jm_parse(json, len, err, sizeof err);
    rk.free_(json);
    if (list == NULL || list->type != JM_ARRAY) {
        fail(r, "rk_store_take_requests gave no JSON array (%s)", err);
        jm_free(list);
        return;
    }
    for (i = 0; i < list->count; i++) {
        if (push(&r->events, &r->elen, &r->ecap, list->items[i])) list->items[i] = NULL;
    }
    jm_free(list);
}

/* The next host event, waiting (bounded) for running effects to make one; NULL if none. */
static jm_value *next_event(runner *r) {
    double deadline = now_ms() + r->timeout_ms;
    collect_events(r);
    while (r->ehead == r->elen && now_ms() < deadline) {
        rk_status st = rk.store_wait_idle(r->store, 50);
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

static int is_cancellation(const jm_value *event) {
    const jm_value *c = jm_get(event, "cancelled");
    return c != NULL && c->type == JM_BOOL && c->boolean;
}

static void step_request(runner *r, const jm_value *step) {
    const jm_value *expected = jm_get(step, "request");
    uint64_t id = 0, got = 0;
    int has_id = jm_uint64(jm_get(expected, "id"), &id);
    char *e = jm_dump(expected);
    for (;;) {
        jm_value *event = next_event(r);
        int matches;
        if (event == NULL) {
            fail(r, "expected the request %s, but the host got no request event within %d ms",
                 e, r->timeout_ms);
            break;
        }
        matches = !is_cancellation(event) &&
                  jm_equal(jm_get(event, "name"), jm_get(expected, "name"), 0) &&
                  same(jm_get(expected, "payload"), jm_get(event, "payload"));
        if (matches && has_id && !(jm_uint64(jm_get(event, "id"), &got) && got == id)) {
            char *g = jm_dump(jm_get(event, "id"));
            fail(r, "expected the request %s, but its id is %s", e, g ? g : "?");
            free(g);
        }
        if (matches || r->exhaustive) {
            if (!matches && !is_cancellation(event)) {
                /* What differs, as in Python: {"name", "payload"} of both. */
                char *n = jm_dump(jm_get(event, "name")), *p = jm_dump(jm_get(event, "payload"));
                char *want_n = jm_dump(jm_get(expected, "name")), *want_p = jm_dump(jm_get(expected, "payload"));
                jm_buf want_text = {NULL, 0, 0, 0}, got_text = {NULL, 0, 0, 0};
                if (n && p && want_n && want_p) {
                    jm_buf_put(&want_text, "{\"name\":", 8);
                    jm_buf_put(&want_text, want_n, strlen(want_n));
                    jm_buf_put(&want_text, ",\"payload\":", 11);
                    jm_buf_put(&want_text, want_p, strlen(want_p));
                    jm_buf_putc(&want_text, '}');
                    jm_buf_put(&got_text, "{\"name\":", 8);
                    jm_buf_put(&got_text, n, strlen(n));
                    jm_buf_put(&got_text, ",\"payload\":", 11);
                    jm_buf_put(&got_text, p, strlen(p));
                    jm_buf_putc(&got_text, '}');
                }
                if (want_text.data != NULL && got_text.data != NULL && !want_text.oom && !got_text.oom)
                    compare_text(r, want_text.data, got_text.data, "the next request is not the expected one:");
                else
                    fail(r, "expected the request %s, but the next host event is another request", e);
                free(want_text.data);
                free(got_text.data);
                free(n);
                free(p);
                free(want_n);
                free(want_p);
            } else if (!matches) {
                char *g = jm_dump(event);
                fail(r, "expected the request %s, but the next host event is %s", e, g ? g : "?");
                free(g);
            }
            jm_free(event);
            break;
        }
        jm_free(event); /* not exhaustive: skip what the scenario does not assert */
    }
    free(e);
}

static void step_cancelled(runner *r, const jm_value *step) {
    uint64_t id = 0, got = 0;
    jm_uint64(jm_get(step, "cancelled"), &id); /* the normal form: an id */
    for (;;) {
        jm_value *event = next_event(r);
        int matches;
        if (event == NULL) {
            fail(r, "expected the cancellation of request %llu, but the host got no event within %d ms",
                 (unsigned long long)id, r->timeout_ms);
            return;
        }
        matches = is_cancellation(event) && jm_uint64(jm_get(event, "id"), &got) && got == id;
        if (!matches && r->exhaustive) {
            char *g = jm_dump(event);
            fail(r, "expected the cancellation of request %llu, but the next host event is %s",
                 (unsigned long long)id, g ? g : "?");
            free(g);
        }
        jm_free(event);
        if (matches || r->exhaustive) return;
    }
}

/* Checks a call's status against the step's "error" (or RK_OK when it has none); returns
 * whether the call succeeded. */
static int check_status(runner *r, const jm_value *step, rk_status st, const char *call) {
    const jm_value *error = jm_get(step, "error");
    const char *message = rk.last_error();
    if (error == NULL) {
        if (st != RK_OK) fail(r, "%s failed: %s: %s", call, status_name(st), message);
        return st == RK_OK;
    }
    {
        const char *want = jm_str(jm_get(error, "status"));
        const char *fragment = jm_str(jm_get(error, "message"));
        if (st == RK_OK) {
            fail(r, "expected %s to fail with %s, but it succeeded", call, want);
        } else if (strcmp(status_name(st), want) != 0) {
            fail(r, "expected %s to fail with %s, but it failed with %s: %s", call, want,
                 status_name(st), message);
        } else if (fragment != NULL && strstr(message, fragment) == NULL) {
            fail(r, "expected the error of %s to contain \"%s\", but it is: %s", call, fragment,
                 message);
        }
    }
    return st == RK_OK;
}

static void step_answer(runner *r, const jm_value *step) {
    int resolve = jm_get(step, "resolve") != NULL;
    uint64_t id = 0;
    char call[64];
    rk_status st;
    jm_uint64(jm_get(step, resolve ? "resolve" : "fail"), &id); /* the normal form: an id */
    snprintf(call, sizeof call, "rk_store_%s(%llu)", resolve ? "resolve" : "fail", (unsigned long long)id);
    if (resolve) {
        char *text = jm_dump(jm_get(step, "response"));
        st = rk.store_resolve(r->store, id, text ? text : "null");
        free(text);
    } else {
        st = rk.store_fail(r->store, id, jm_str(jm_get(step, "message")));
    }
    check_status(r, step, st, call);
}

/* ---- steps ----------------------------------------------------------------------------- */

static void step_send(runner *r, const jm_value *step) {
    const jm_value *action = jm_get(step, "send");
    char *text = jm_dump(action);
    jm_value *host = NULL;
    size_t n;
    rk_status st;
    collect(r, NULL);
    if (pending(r) > 0) {
        if (r->exhaustive) {
            fail(r, "%lu action(s) effects sent must be received before sending %s:",
                 (unsigned long)pending(r), text);
            print_pending(r);
        }
        while (pending(r) > 0) {
            jm_value *rec = pop(r);
            jm_free(r->state);
            r->state = copy_value(jm_get(rec, "state"));
            jm_free(rec);
        }
    }
    st = rk.store_send_n(r->store, text, strlen(text));
    if (!check_status(r, step, st, "the send")) {
        free(text);
        n = collect(r, &host);
        if (n > 0) fail(r, "the failed send recorded an action");
        jm_free(host);
        return;
    }
    n = collect(r, &host);
    if (n != 1 || host == NULL) {
        fail(r, "%lu host records for one send of %s; expected exactly 1", (unsigned long)n, text);
    } else {
        /* Effect actions reduced before this one (a race with a running effect) come first. */
        double version = jm_get(host, "version") ? jm_get(host, "version")->number : 0;
        size_t i;
        for (i = r->qhead; i < r->qlen; i++) {
            const jm_value *v = jm_get(r->queue[i], "version");
            if (v != NULL && v->number < version && r->exhaustive) {
                char *a = jm_dump(jm_get(r->queue[i], "action"));
                fail(r, "an effect sent %s while %s was sent, and it was not received", a ? a : "?",
                     text);
                free(a);
            }
        }
        assert_state(r, host, step, "sending it");
    }
    jm_free(host);
    free(text);
}

static void step_receive(runner *r, const jm_value *step) {
    jm_value *expected = normalized_action(jm_get(step, "receive"));
    char *e = jm_dump(expected);
    for (;;) {
        jm_value *rec, *got;
        int matches;
        if (pending(r) == 0) await_received(r);
        if (pending(r) == 0) {
            uint64_t count = 0;
            rk.store_effect_count(r->store, &count);
            fail(r, "expected to receive %s, but no action was received within %d ms (%s)", e,
                 r->timeout_ms,
                 count ? "effects still running or sleeping on the test clock: advance it?"
                       : "no effect is running");
            break;
        }
        rec = pop(r);
        got = normalized_action(jm_get(rec, "action"));
        matches = same(expected, got);
        if (matches) {
            assert_state(r, rec, step, "receiving it");
        } else if (r->exhaustive) {
            char *g = jm_dump(got);
            char heading[400];
            snprintf(heading, sizeof heading, "received %.180s, expected %.180s:", g ? g : "?", e ? e : "?");
            compare_values(r, expected, got, heading);
            free(g);
            jm_free(r->state);
            r->state = copy_value(jm_get(rec, "state"));
        } else {
            jm_free(r->state);
            r->state = copy_value(jm_get(rec, "state"));
        }
        jm_free(got);
        jm_free(rec);
        if (matches || r->exhaustive) break;
    }
    free(e);
    jm_free(expected);
}

static void step_advance(runner *r, const jm_value *step) {
    int64_t ms = 0;
    rk_status st;
    jm_int64(jm_get(step, "advance_ms"), &ms); /* the normal form: 0 to INT64_MAX */
    st = rk.store_advance_clock(r->store, ms);
    if (st != RK_OK) {
        fail(r, "rk_store_advance_clock(%lld): %s: %s", (long long)ms, status_name(st), rk.last_error());
        return;
    }
    collect(r, NULL);
}

/* What the end of an exhaustive scenario (or a finish step) requires: every received action
 * and host event asserted. */
static void check_unasserted(runner *r) {
    collect(r, NULL);
    collect_events(r);
    if (r->ehead < r->elen) {
        size_t i;
        if (r->exhaustive) {
            fail(r, "%lu host event(s) were not asserted:", (unsigned long)(r->elen - r->ehead));
            for (i = r->ehead; i < r->elen && i - r->ehead < LIST_AT_MOST; i++) {
                char *text = jm_dump(r->events[i]);
                outf(r, "      %s\n", text ? text : "?");
                free(text);
            }
            if (r->elen - r->ehead > LIST_AT_MOST)
                outf(r, "      (%lu more not shown)\n", (unsigned long)(r->elen - r->ehead - LIST_AT_MOST));
        }
        for (i = r->ehead; i < r->elen; i++) {
            jm_free(r->events[i]);
            r->events[i] = NULL;
        }
        r->ehead = r->elen;
    }
    if (pending(r) > 0) {
        if (r->exhaustive) {
            fail(r, "%lu received action(s) were not asserted:", (unsigned long)pending(r));
            print_pending(r);
        }
        while (pending(r) > 0) {
            jm_value *rec = pop(r);
            jm_free(r->state);
            r->state = copy_value(jm_get(rec, "state"));
            jm_free(rec);
        }
    }
}

static void step_finish(runner *r) {
    uint64_t count = 0;
    rk_status st = rk.store_wait_idle(r->store, r->timeout_ms);
    check_unasserted(r);
    if (rk.store_effect_count(r->store, &count) != RK_OK) count = 0;
    if (r->exhaustive && (st != RK_OK || count != 0)) {
        fail(r, "%llu effect(s) still running at finish%s", (unsigned long long)count,
             st == RK_ERR_TIMEOUT ? " (rk_store_wait_idle timed out)"
                                  : " (sleeping on the test clock, or waiting for the host to answer)");
    }
}

/* rk_store_create's options: the scenario's (the normal form has each, with its default),
 * with the action record on; a null initial_state (the feature's default) is left out. */
static char *store_options(const jm_value *options) {
    jm_buf b = {NULL, 0, 0, 0};
    size_t i;
    jm_buf_put(&b, "{\"record_actions\":true", 22);
    for (i = 0; options != NULL && i < options->count; i++) {
        if (strcmp(options->keys[i], "initial_state") == 0 && options->items[i]->type == JM_NULL) continue;
        jm_buf_putc(&b, ',');
        jm_dump_string(&b, options->keys[i], options->key_lens[i]);
        jm_buf_putc(&b, ':');
        jm_dump_to(&b, options->items[i]);
    }
    jm_buf_putc(&b, '}');
    if (b.oom) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

static void run_steps(runner *r, const jm_value *sc) {
    const jm_value *steps = jm_get(sc, "steps");
    const jm_value *final_state = jm_get(sc, "final_state");
    size_t i;
    int finished = 0;
    for (i = 0; i < steps->count; i++) {
        const jm_value *step = steps->items[i];
        /* The normal form: every step is an object whose first member is its kind. */
        const char *kind = step->type == JM_OBJECT && step->count > 0 ? step->keys[0] : "";
        r->step = (int)i + 1;
        r->step_value = step;
        finished = 0;
        if (strcmp(kind, "send") == 0) step_send(r, step);
        else if (strcmp(kind, "receive") == 0) step_receive(r, step);
        else if (strcmp(kind, "advance_ms") == 0) step_advance(r, step);
        else if (strcmp(kind, "request") == 0) step_request(r, step);
        else if (strcmp(kind, "resolve") == 0 || strcmp(kind, "fail") == 0) step_answer(r, step);
        else if (strcmp(kind, "cancelled") == 0) step_cancelled(r, step);
        else if (strcmp(kind, "finish") == 0) {
            step_finish(r);
            finished = 1;
        } else {
            fail(r, "not a step of the normal form (a library that does not match this runner?)");
        }
    }
    r->step = 0;
    r->step_value = NULL;
    if (!finished) check_unasserted(r);
    if (final_state != NULL) {
        char *json = NULL;
        size_t len = 0;
        rk_status st = rk.store_state(r->store, &json, &len);
        if (st != RK_OK) {
            fail(r, "rk_store_state: %s: %s", status_name(st), rk.last_error());
        } else {
            char *expected = jm_dump(final_state);
            if (expected != NULL) compare_text(r, expected, json, "the final state is not the expected one:");
            else fail(r, "out of memory");
            free(expected);
            rk.free_(json);
        }
    }
}

/* Runs one scenario file; prints its line (and what failed). Returns 1 if it passed. */
/* Runs one scenario file given as `len` bytes of text (any bytes: the library checks them),
 * labelled `label` in the output; prints its line (and what failed). Returns 1 if it passed.
 * With `text` NULL, `read_error` says why the file could not be read. */
static int rkc_run_text(const char *label, const char *text, size_t len, const char *read_error,
                        int timeout_ms) {
    runner r;
    jm_value *sc = NULL;
    char *normal = NULL;
    size_t normal_len = 0;
    const char *name = NULL;
    int passed;
    rk_status st;
    memset(&r, 0, sizeof r);
    r.file = label;
    r.timeout_ms = timeout_ms;
    r.exhaustive = 1;
    if (text == NULL) {
        fail(&r, "cannot read the file: %s", read_error);
    } else if ((st = rk.scenario_parse(text, len, &normal, &normal_len)) != RK_OK) {
        /* Not a scenario: the library's message says what and where (bounded, escaped). */
        fail(&r, "%s", rk.last_error());
    } else if ((sc = jm_parse(normal, normal_len, NULL, 0)) == NULL || sc->type != JM_OBJECT) {
        fail(&r, "rk_scenario_parse gave no scenario in normal form (out of memory?)");
    } else {
        const jm_value *exhaustive = jm_get(sc, "exhaustive");
        const char *feature = jm_str(jm_get(sc, "feature"));
        char *options = store_options(jm_get(sc, "options"));
        name = jm_str(jm_get(sc, "name"));
        r.exhaustive = exhaustive == NULL || exhaustive->type != JM_BOOL || exhaustive->boolean;
        if (options == NULL || feature == NULL || jm_get(sc, "steps") == NULL ||
            jm_get(sc, "steps")->type != JM_ARRAY) {
            fail(&r, "rk_scenario_parse gave no scenario in normal form (out of memory?)");
        } else if ((st = rk.store_create(feature, options, &r.store)) != RK_OK) {
            fail(&r, "the store could not be created: rk_store_create(\"%s\", %s): %s: %s", feature,
                 options, status_name(st), rk.last_error());
        } else {
            char *json = NULL;
            size_t n = 0;
            if (rk.store_state(r.store, &json, &n) == RK_OK) {
                r.state = jm_parse(json, n, NULL, 0);
                rk.free_(json);
            }
            run_steps(&r, sc);
            rk.store_destroy(r.store);
        }
        free(options);
    }
    rk.free_(normal);
    passed = r.failures == 0;
    printf("%s %s: %s\n", passed ? "ok    " : "FAILED", label, name ? name : "(no name)");
    if (r.out.data != NULL) fputs(r.out.data, stdout);
    fflush(stdout);
    while (pending(&r) > 0) jm_free(pop(&r));
    free(r.queue);
    while (r.ehead < r.elen) jm_free(r.events[r.ehead++]);
    free(r.events);
    free(r.out.data);
    jm_free(r.state);
    jm_free(sc);
    return passed;
}

/* Runs one scenario file; prints its line (and what failed). Returns 1 if it passed. */
static int run_scenario(const char *path, int timeout_ms) {
    size_t len = 0;
    char read_error[160];
    char *text = read_file(path, &len, read_error, sizeof read_error);
    int passed = rkc_run_text(path, text, len, read_error, timeout_ms);
    free(text);
    return passed;
}

/* ---- files and the command line -------------------------------------------------------- */

typedef struct path_list {
    char **items;
    size_t len, cap;
} path_list;

static void add_path(path_list *list, const char *path) {
    if (list->len == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 32;
        char **grown = (char **)realloc(list->items, cap * sizeof *grown);
        if (grown == NULL) return;
        list->items = grown;
        list->cap = cap;
    }
    list->items[list->len] = (char *)malloc(strlen(path) + 1);
    if (list->items[list->len] != NULL) strcpy(list->items[list->len++], path);
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int compare_paths(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Adds the *.scenario.json files under dir (recursively, skipping hidden entries). Links to
 * directories are not followed (a link to a parent would make the walk endless); a link to a
 * file is taken like the file. */
static void add_directory(path_list *list, const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    if (d == NULL) return;
    while ((e = readdir(d)) != NULL) {
        char *path;
        struct stat sb;
        if (e->d_name[0] == '.') continue;
        path = (char *)malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (path == NULL) continue;
        sprintf(path, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", e->d_name);
        if (lstat(path, &sb) == 0) {
            if (S_ISDIR(sb.st_mode)) {
                add_directory(list, path);
            } else if (ends_with(e->d_name, ".scenario.json") &&
                       !(S_ISLNK(sb.st_mode) && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))) {
                add_path(list, path);
            }
        }
        free(path);
    }
    closedir(d);
}

static void usage(FILE *to) {
    fprintf(to,
            "usage: reducerkit-check [--lib PATH] [--timeout-ms N] FILE_OR_DIRECTORY...\n"
            "Runs ReducerKit scenario files (*.scenario.json; a directory: those under it)\n"
            "against a library: one line per scenario, then \"N passed, N failed\".\n"
            "  --lib PATH       the library to load (default: libreducerkit.so.0 beside this\n"
            "                   program, in ../lib, or in the loader's search path)\n"
            "  --timeout-ms N   how long to wait for effects (default 1000)\n"
            "Exit status: 0 all passed, 1 a scenario failed, 2 bad usage or no library.\n");
}

#ifndef RKC_MAIN
#define RKC_MAIN main
#endif

int RKC_MAIN(int argc, char **argv) {
    const char *lib = NULL;
    int timeout_ms = 1000, i, passed = 0, failed = 0;
    path_list files = {NULL, 0, 0};
    char err[512];
    size_t k;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(arg, "--lib") == 0 || strcmp(arg, "--timeout-ms") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "reducerkit-check: %s needs a value\n", arg);
                usage(stderr);
                return 2;
            }
            if (strcmp(arg, "--lib") == 0) {
                lib = argv[++i];
            } else {
                char *end;
                long v = strtol(argv[++i], &end, 10);
                if (*end != '\0' || v <= 0 || v > 3600000) {
                    fprintf(stderr, "reducerkit-check: --timeout-ms takes a whole number of "
                                    "milliseconds from 1 to 3600000, not \"%s\"\n", argv[i]);
                    return 2;
                }
                timeout_ms = (int)v;
            }
        } else if (strncmp(arg, "--lib=", 6) == 0) {
            lib = arg + 6;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "reducerkit-check: unknown option %s\n", arg);
            usage(stderr);
            return 2;
        } else {
            struct stat sb;
            if (stat(arg, &sb) != 0) {
                fprintf(stderr, "reducerkit-check: %s: %s\n", arg, strerror(errno));
                return 2;
            }
            if (S_ISDIR(sb.st_mode)) {
                size_t before = files.len;
                add_directory(&files, arg);
                if (files.len == before) {
                    fprintf(stderr, "reducerkit-check: %s holds no *.scenario.json file\n", arg);
                    return 2;
                }
                qsort(files.items + before, files.len - before, sizeof *files.items, compare_paths);
            } else {
                add_path(&files, arg);
            }
        }
    }
    if (files.len == 0) {
        fprintf(stderr, "reducerkit-check: no scenario file given\n");
        usage(stderr);
        return 2;
    }
    if (!rkc_load(lib, err, sizeof err)) {
        fprintf(stderr, "reducerkit-check: %s\n", err);
        return 2;
    }
    for (k = 0; k < files.len; k++) {
        if (run_scenario(files.items[k], timeout_ms)) passed++;
        else failed++;
        free(files.items[k]);
    }
    free(files.items);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
