/* Answering a feature's requests from a poll() loop.
 *
 * The search feature debounces its query by 300 ms (on the store's live clock), then calls
 * its host endpoint `search` (payload: the query; response: an array of strings). Created
 * with {"provide": ["search"]}, the store queues each call as an event for this program, and
 * rk_store_request_fd() gives a descriptor that is readable while events are queued: the
 * program adds it to its poll() loop beside its other work, a scripted "user" typing and a
 * fake search backend that takes 150 ms per query. A new query cancels the search in flight;
 * the program then gets {"id": N, "cancelled": true} and drops the job.
 *
 *   make build/examples/requests_poll_c && build/examples/requests_poll_c [QUERY...]
 *
 * With QUERY arguments, they are typed one after the other, 100 ms apart.
 */
#define _POSIX_C_SOURCE 200809L

#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reducerkit.h"

#define BACKEND_MS 150 /* how long the fake backend takes per search */
#define MAX_JOBS 8

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- The fake backend: a word list searched by prefix ---------------------------------- */

static const char *const words[] = {"reduce", "reducer", "redux", "store", "swallow",
                                    "sweet",  "swift",   "swim",  "switch"};

/* The backend's answer for `query`, as the JSON the endpoint's response_schema asks for
 * (an array of strings). The words need no escaping. */
static void search_backend(const char *query, char *out, size_t cap) {
    size_t i, at = 0;
    at += (size_t)snprintf(out + at, cap - at, "[");
    for (i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (strncmp(words[i], query, strlen(query)) != 0) continue;
        at += (size_t)snprintf(out + at, cap - at, "%s\"%s\"", at > 1 ? "," : "", words[i]);
    }
    snprintf(out + at, cap - at, "]");
}

typedef struct job {
    uint64_t id;
    char query[64];
    double due_ms; /* when the backend's answer is ready */
} job;

static job jobs[MAX_JOBS];
static int njobs = 0;

static void drop_job(uint64_t id) {
    int i;
    for (i = 0; i < njobs; i++) {
        if (jobs[i].id != id) continue;
        jobs[i] = jobs[--njobs];
        return;
    }
}

/* ---- Request events ----------------------------------------------------------------- */

/* Reads a JSON string at `p` (after its opening quote) into out; handles \" and \\ only,
 * which is all this example's queries need (a real program uses its JSON library). */
static void read_string(const char *p, char *out, size_t cap) {
    size_t n = 0;
    while (*p != '\0' && *p != '"' && n + 1 < cap) {
        if (*p == '\\' && p[1] != '\0') p++;
        out[n++] = *p++;
    }
    out[n] = '\0';
}

/* Handles the queued events: [{"id":1,"name":"search","payload":"sw"},{"id":1,"cancelled":true}] */
static void handle_events(rk_store *store, double t0) {
    char *events = NULL;
    const char *p;
    if (rk_store_take_requests(store, &events, NULL) != RK_OK) {
        fprintf(stderr, "take_requests: %s\n", rk_last_error());
        return;
    }
    for (p = strstr(events, "{\"id\":"); p != NULL; p = strstr(p + 1, "{\"id\":")) {
        uint64_t id = strtoull(p + 6, NULL, 10);
        const char *end = strchr(p, '}');
        const char *payload = strstr(p, "\"payload\":\"");
        if (end != NULL && strstr(p, "\"cancelled\":true") != NULL &&
            strstr(p, "\"cancelled\":true") < end) {
            printf("%6.0f ms  request %llu cancelled: dropping its job\n", now_ms() - t0,
                   (unsigned long long)id);
            drop_job(id);
        } else if (payload != NULL && njobs < MAX_JOBS) {
            job *j = &jobs[njobs++];
            j->id = id;
            read_string(payload + 11, j->query, sizeof j->query);
            j->due_ms = now_ms() + BACKEND_MS;
            printf("%6.0f ms  request %llu: search \"%s\" (backend started)\n", now_ms() - t0,
                   (unsigned long long)id, j->query);
        } else if (payload != NULL) {
            rk_store_fail(store, id, "too many searches at once");
        }
    }
    rk_free(events);
}

/* Whether events are queued right now. */
static int readable(int fd) {
    struct pollfd p;
    p.fd = fd;
    p.events = POLLIN;
    p.revents = 0;
    return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

/* ---- main ---------------------------------------------------------------------------- */

static void on_state(void *userdata, const char *state, size_t len, uint64_t version) {
    (void)len;
    (void)version;
    printf("%6.0f ms  state %s\n", now_ms() - *(const double *)userdata, state);
}

int main(int argc, char **argv) {
    /* The default script: type "s", "sw", "swi" and see its results; delete a letter, and
     * type another one while the search for "sw" runs (it is cancelled): see "swa"'s. */
    static const char *default_keys[] = {"s", "sw", "swi", "sw", "swa"};
    static const double default_at[] = {0, 100, 200, 900, 1250};
    const char *const *keys = default_keys;
    const double *at = default_at;
    double *typed_at = NULL;
    int nkeys = 5, next_key = 0, i, fd = -1, ok = 1;
    rk_store *store = NULL;
    uint64_t token = 0, effects = 0;
    char *state = NULL;
    rk_status st;
    double t0;

    if (argc > 1) { /* QUERY...: typed 100 ms apart */
        keys = (const char *const *)(argv + 1);
        nkeys = argc - 1;
        typed_at = (double *)malloc((size_t)nkeys * sizeof *typed_at);
        for (i = 0; i < nkeys; i++) typed_at[i] = 100.0 * i;
        at = typed_at;
    }
    st = rk_store_create("search", "{\"provide\": [\"search\"]}", &store);
    if (st != RK_OK) {
        fprintf(stderr, "create: %s: %s\n", rk_status_string(st), rk_last_error());
        return 1;
    }
    /* Owned by the store: never read, write or close it. */
    if (rk_store_request_fd(store, &fd) != RK_OK) {
        fprintf(stderr, "request_fd: %s\n", rk_last_error());
        return 1;
    }
    t0 = now_ms();
    rk_store_subscribe(store, on_state, &t0, &token);

    for (;;) {
        struct pollfd p;
        double now = now_ms() - t0, wake = now + 50;
        int timeout;

        /* The user types. */
        while (next_key < nkeys && at[next_key] <= now) {
            char action[128];
            snprintf(action, sizeof action, "{\"queryChanged\": \"%s\"}", keys[next_key++]);
            printf("%6.0f ms  typed: %s\n", now_ms() - t0, action);
            if (rk_store_send(store, action) != RK_OK) {
                fprintf(stderr, "send %s: %s\n", action, rk_last_error());
                ok = 0;
            }
        }
        /* The backend finishes searches. */
        for (i = 0; i < njobs; i++) {
            char results[512];
            if (jobs[i].due_ms > now_ms()) continue;
            search_backend(jobs[i].query, results, sizeof results);
            printf("%6.0f ms  answering request %llu: %s\n", now_ms() - t0,
                   (unsigned long long)jobs[i].id, results);
            if (rk_store_resolve(store, jobs[i].id, results) != RK_OK) {
                printf("          refused: %s\n", rk_last_error()); /* cancelled meanwhile */
            }
            jobs[i--] = jobs[--njobs];
        }
        /* Done when the script is over, no job runs, and the store has no effect left
         * (its debounce would otherwise still be sleeping). */
        rk_store_effect_count(store, &effects);
        if (next_key == nkeys && njobs == 0 && effects == 0 && !readable(fd)) break;
        if (now_ms() - t0 > 10000) {
            fprintf(stderr, "gave up after 10 s\n");
            ok = 0;
            break;
        }

        /* Sleep until the next keystroke, the next backend answer, or a request event. */
        if (next_key < nkeys && at[next_key] < wake) wake = at[next_key];
        for (i = 0; i < njobs; i++) {
            if (jobs[i].due_ms - t0 < wake) wake = jobs[i].due_ms - t0;
        }
        timeout = (int)(wake - (now_ms() - t0)) + 1;
        p.fd = fd;
        p.events = POLLIN;
        p.revents = 0;
        if (poll(&p, 1, timeout < 0 ? 0 : timeout) > 0 && (p.revents & POLLIN)) {
            handle_events(store, t0);
        }
    }

    rk_store_state(store, &state, NULL);
    printf("final state: %s\n", state);
    if (argc == 1 &&
        (state == NULL || strcmp(state, "{\"query\":\"swa\",\"results\":[\"swallow\"]}") != 0)) {
        printf("unexpected final state\n");
        ok = 0;
    }
    rk_free(state);
    rk_store_unsubscribe(store, token);
    rk_store_destroy(store); /* closes fd: remove it from any event loop first */
    free(typed_at);
    printf("%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
