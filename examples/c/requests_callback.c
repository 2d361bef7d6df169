/* Answering a feature's requests from a callback.
 *
 * The counter feature fetches a "number fact" through its host endpoint `numberFact`
 * (payload: the count; response: a string). Created with {"provide": ["numberFact"]}, the
 * store asks this program instead of running the Swift implementation: each call of the
 * endpoint arrives as an event {"id": 1, "name": "numberFact", "payload": 42} in the callback
 * set with rk_store_on_request(). The callback here
 *   - answers at once when the fact is in its own table: rk_store_resolve() inside the
 *     callback is the fastest path, and the response is reduced before rk_store_send()
 *     returns;
 *   - hands other numbers to a worker thread (think of a network call), which answers later
 *     with rk_store_resolve(), or with rk_store_fail() when it cannot (negative numbers here:
 *     the counter shows the failure as its fact).
 *
 *   make build/examples/requests_callback_c && build/examples/requests_callback_c
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reducerkit.h"

/* ---- A worker thread: the "slow" fact service ------------------------------------------ */

#define MAX_JOBS 16

typedef struct service {
    rk_store *store;
    pthread_mutex_t mu;
    pthread_cond_t changed;
    uint64_t ids[MAX_JOBS];
    long numbers[MAX_JOBS];
    int queued;       /* jobs waiting for the worker */
    int in_progress;  /* jobs handed to the service and not answered yet */
    int stop;
} service;

static void *worker(void *arg) {
    service *svc = (service *)arg;
    pthread_mutex_lock(&svc->mu);
    for (;;) {
        uint64_t id;
        long number;
        char fact[160];
        struct timespec latency = {0, 20 * 1000000L}; /* 20 ms, as a network call */
        rk_status st;
        while (svc->queued == 0 && !svc->stop) pthread_cond_wait(&svc->changed, &svc->mu);
        if (svc->queued == 0) break;
        id = svc->ids[0];
        number = svc->numbers[0];
        memmove(svc->ids, svc->ids + 1, (size_t)(svc->queued - 1) * sizeof svc->ids[0]);
        memmove(svc->numbers, svc->numbers + 1, (size_t)(svc->queued - 1) * sizeof svc->numbers[0]);
        svc->queued--;
        pthread_mutex_unlock(&svc->mu); /* never hold a lock while calling the library */

        nanosleep(&latency, NULL);
        if (number < 0) {
            st = rk_store_fail(svc->store, id, "the fact service knows no negative numbers");
        } else {
            /* The response is JSON: a string here (the endpoint's "response_schema"). */
            snprintf(fact, sizeof fact, "\"%ld has %d decimal digits.\"", number,
                     snprintf(NULL, 0, "%ld", number));
            st = rk_store_resolve(svc->store, id, fact);
        }
        /* A request can be cancelled while we work on it; then the answer is refused. */
        if (st != RK_OK) printf("  [worker] request %llu: %s\n", (unsigned long long)id, rk_last_error());
        else printf("  [worker] answered request %llu\n", (unsigned long long)id);

        pthread_mutex_lock(&svc->mu);
        svc->in_progress--;
        pthread_cond_broadcast(&svc->changed);
    }
    pthread_mutex_unlock(&svc->mu);
    return NULL;
}

/* Blocks until the service answered everything it was given. rk_store_wait_idle() alone
 * would not do: an effect waiting for the host counts as idle. */
static void wait_for_service(service *svc) {
    pthread_mutex_lock(&svc->mu);
    while (svc->in_progress > 0) pthread_cond_wait(&svc->changed, &svc->mu);
    pthread_mutex_unlock(&svc->mu);
}

/* ---- The request callback ------------------------------------------------------------- */

static const char *known_fact(long n) {
    switch (n) {
    case 0: return "\"0 is the additive identity.\"";
    case 7: return "\"7 is the number of days in a week.\"";
    case 42: return "\"42 is the answer to the ultimate question.\"";
    default: return NULL;
    }
}

/* Events are {"id": N, "name": "numberFact", "payload": <count>} or {"id": N, "cancelled":
 * true}. This program reads the two numbers with strstr/strtol; a bigger one would use its
 * JSON library. */
static void on_request(void *userdata, const char *event, size_t len) {
    service *svc = (service *)userdata;
    const char *at_id = strstr(event, "\"id\":");
    const char *at_payload = strstr(event, "\"payload\":");
    uint64_t id = at_id ? strtoull(at_id + 5, NULL, 10) : 0;
    long number;
    const char *fact;
    (void)len;
    printf("  [callback] %s\n", event);
    if (strstr(event, "\"cancelled\":true") != NULL) {
        /* Its effect no longer waits: a job for it may still be in the service; its answer
         * will be refused, which is harmless. */
        return;
    }
    if (at_payload == NULL) return;
    number = strtol(at_payload + 10, NULL, 10);
    fact = known_fact(number);
    if (fact != NULL) {
        if (rk_store_resolve(svc->store, id, fact) != RK_OK)
            printf("  [callback] resolve: %s\n", rk_last_error());
        return;
    }
    /* Keep the id and answer later, from the worker. The callback must not wait for it. */
    pthread_mutex_lock(&svc->mu);
    if (svc->queued < MAX_JOBS) {
        svc->ids[svc->queued] = id;
        svc->numbers[svc->queued] = number;
        svc->queued++;
        svc->in_progress++;
        pthread_cond_broadcast(&svc->changed);
        pthread_mutex_unlock(&svc->mu);
    } else {
        pthread_mutex_unlock(&svc->mu);
        rk_store_fail(svc->store, id, "the fact service is busy");
    }
}

/* ---- main ---------------------------------------------------------------------------- */

static char *state_of(rk_store *store) {
    char *json = NULL;
    if (rk_store_state(store, &json, NULL) != RK_OK) return NULL;
    return json;
}

static int expect_fact(rk_store *store, const char *fact) {
    char *json = state_of(store);
    char needle[200];
    int ok;
    snprintf(needle, sizeof needle, "\"fact\":%s", fact);
    ok = json != NULL && strstr(json, needle) != NULL;
    printf("  state: %s%s\n", json ? json : "(none)", ok ? "" : "   <-- unexpected");
    rk_free(json);
    return ok;
}

int main(void) {
    rk_store *store = NULL;
    service svc;
    pthread_t thread;
    rk_status st;
    int ok = 1;

    if (rk_abi_version() != RK_ABI_VERSION) {
        fprintf(stderr, "ABI mismatch: header %d, library %d\n", RK_ABI_VERSION, rk_abi_version());
        return 1;
    }
    st = rk_store_create("counter", "{\"provide\": [\"numberFact\"]}", &store);
    if (st != RK_OK) {
        fprintf(stderr, "create: %s: %s\n", rk_status_string(st), rk_last_error());
        return 1;
    }
    memset(&svc, 0, sizeof svc);
    svc.store = store;
    pthread_mutex_init(&svc.mu, NULL);
    pthread_cond_init(&svc.changed, NULL);
    pthread_create(&thread, NULL, worker, &svc);
    rk_store_on_request(store, on_request, &svc);

    printf("== a fact from the callback's table: reduced before rk_store_send returns\n");
    rk_store_send(store, "{\"setCount\": 42}");
    rk_store_send(store, "\"factButtonTapped\"");
    ok &= expect_fact(store, "\"42 is the answer to the ultimate question.\"");

    printf("== a fact from the worker thread: answered later\n");
    rk_store_send(store, "{\"setCount\": 1234}");
    rk_store_send(store, "\"factButtonTapped\"");
    ok &= expect_fact(store, "null"); /* asked, not answered yet */
    wait_for_service(&svc);
    rk_store_wait_idle(store, 5000); /* the answer's action is reduced on Swift's pool */
    ok &= expect_fact(store, "\"1234 has 4 decimal digits.\"");

    printf("== a request the service fails: the counter shows the error\n");
    rk_store_send(store, "{\"setCount\": -5}");
    rk_store_send(store, "\"factButtonTapped\"");
    wait_for_service(&svc);
    rk_store_wait_idle(store, 5000);
    ok &= expect_fact(store,
                      "\"Could not load a fact about -5: the fact service knows no negative numbers\"");

    printf("== destroyed while a request is pending: the callback hears it was cancelled\n");
    rk_store_send(store, "{\"setCount\": 99}");
    rk_store_send(store, "\"factButtonTapped\"");
    rk_store_destroy(store); /* the cancellation event is delivered before this returns */
    wait_for_service(&svc);  /* the worker's late answer is refused: the store is gone */

    pthread_mutex_lock(&svc.mu);
    svc.stop = 1;
    pthread_cond_broadcast(&svc.changed);
    pthread_mutex_unlock(&svc.mu);
    pthread_join(thread, NULL);
    pthread_cond_destroy(&svc.changed);
    pthread_mutex_destroy(&svc.mu);
    printf("%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
