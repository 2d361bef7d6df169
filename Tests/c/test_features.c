/*
 * test_features.c — the example features end to end through the C API: counter (fact
 * effect, timer on the test clock), todos, search (debounce on the test clock),
 * subscriptions, and concurrent sends from 4 threads while a subscriber runs.
 */
#include "rk_test.h"
#include "json_mini.h"

#include <pthread.h>
#include <sched.h>

#define TEST_CLOCK "{\"clock\":\"test\"}"

static int64_t settle_ms(void) { return RK_T_MS(10000); }

/* Sends an action that must succeed. */
#define SEND(store, action) CHECK_OK(rk_store_send((store), (action)))

/* ---- counter ------------------------------------------------------------------------ */

static void test_counter_basics(void) {
    rk_store *s;
    char *state;
    TEST("counter: increment, decrement, setCount, saturation");
    s = CREATE("counter", TEST_CLOCK);
    state = rk_t_state(s);
    /* fact is nil, so it is absent from the state (not written as null). */
    CHECK_STR_EQ(state, "{\"count\":0,\"fact\":null,\"isTimerOn\":false}");
    rk_free(state);
    SEND(s, "\"increment\"");
    SEND(s, "\"increment\"");
    SEND(s, "\"decrement\"");
    CHECK_STATE_JSON(s, "{\"count\":1,\"isTimerOn\":false}");
    SEND(s, "{\"setCount\":-5}");
    SEND(s, "\"decrement\"");
    CHECK_STATE_JSON(s, "{\"count\":-6,\"isTimerOn\":false}");
    CHECK(rk_t_version(s) == 5);
    /* increment and decrement saturate at the Int64 bounds (no trap, no wrap). */
    SEND(s, "{\"setCount\":9223372036854775807}");
    SEND(s, "\"increment\"");
    CHECK_STATE_JSON(s, "{\"count\":9223372036854775807,\"isTimerOn\":false}");
    SEND(s, "\"decrement\"");
    CHECK_STATE_JSON(s, "{\"count\":9223372036854775806,\"isTimerOn\":false}");
    SEND(s, "{\"setCount\":-9223372036854775808}");
    SEND(s, "\"decrement\"");
    CHECK_STATE_JSON(s, "{\"count\":-9223372036854775808,\"isTimerOn\":false}");
    SEND(s, "\"increment\"");
    CHECK_STATE_JSON(s, "{\"count\":-9223372036854775807,\"isTimerOn\":false}");
    CHECK(rk_t_version(s) == 11);
    rk_store_destroy(s);
}

static void fact_for(const char *clock, long long count, const char *fact) {
    char options[128], expected[256];
    rk_store *s;
    uint64_t n = 99;
    snprintf(options, sizeof options, "{\"clock\":\"%s\",\"initial_state\":{\"count\":%lld}}",
             clock, count);
    s = CREATE("counter", options);
    SEND(s, "\"factButtonTapped\"");
    CHECK_OK(rk_store_wait_idle(s, settle_ms()));
    snprintf(expected, sizeof expected, "{\"count\":%lld,\"fact\":\"%s\",\"isTimerOn\":false}",
             count, fact);
    CHECK_STATE_JSON(s, expected);
    CHECK(rk_t_version(s) == 2); /* factButtonTapped, then factResponse */
    CHECK_OK(rk_store_effect_count(s, &n));
    CHECK(n == 0);
    rk_store_destroy(s);
}

static void test_counter_fact(void) {
    rk_store *s;
    TEST("counter: factButtonTapped -> effect -> factResponse");
    fact_for("test", 1, "1 is the multiplicative identity.");
    fact_for("live", 1, "1 is the multiplicative identity.");
    fact_for("test", 42, "42 is the answer to the ultimate question.");
    fact_for("live", 7, "7 is the number of days in a week.");
    fact_for("live", 5, "5 is a good number.");
    fact_for("test", -3, "-3 is a good number.");
    /* factResponse can also be sent by the host. */
    s = CREATE("counter", NULL);
    SEND(s, "{\"factResponse\":\"hand-written \\u00e9 \\ud83d\\ude00\"}");
    CHECK_STATE_JSON(s, "{\"count\":0,\"fact\":\"hand-written \\u00e9 \\ud83d\\ude00\","
                        "\"isTimerOn\":false}");
    rk_store_destroy(s);
}

static void test_counter_timer(void) {
    rk_store *s;
    rk_store *live;
    uint64_t n = 99;
    TEST("counter: timer on the test clock");
    s = CREATE("counter", TEST_CLOCK);
    live = CREATE("counter", NULL);
    SEND(s, "\"toggleTimer\"");
    CHECK_STATE_JSON(s, "{\"count\":0,\"isTimerOn\":true}");
    CHECK_OK(rk_store_advance_clock(s, 3000));
    CHECK_STATE_JSON(s, "{\"count\":3,\"isTimerOn\":true}"); /* exactly 3 ticks */
    CHECK(rk_t_version(s) == 4);
    CHECK_OK(rk_store_advance_clock(s, 999));
    CHECK(rk_t_version(s) == 4);
    CHECK_OK(rk_store_advance_clock(s, 1));
    CHECK(rk_t_version(s) == 5);
    SEND(s, "\"increment\""); /* ticks and host actions mix */
    CHECK_OK(rk_store_advance_clock(s, 1000));
    CHECK_STATE_JSON(s, "{\"count\":6,\"isTimerOn\":true}");
    CHECK(rk_t_version(s) == 7);
    /* Toggling off cancels the timer: no tick however far the clock goes. */
    SEND(s, "\"toggleTimer\"");
    CHECK_OK(rk_store_advance_clock(s, 500));
    CHECK_OK(rk_store_advance_clock(s, 10000));
    CHECK_STATE_JSON(s, "{\"count\":6,\"isTimerOn\":false}");
    CHECK(rk_t_version(s) == 8);
    CHECK_OK(rk_store_wait_idle(s, settle_ms()));
    CHECK_OK(rk_store_effect_count(s, &n));
    CHECK(n == 0);
    /* On again: a new timer starts from now (the 500 ms already passed do not count). */
    SEND(s, "\"toggleTimer\"");
    CHECK_OK(rk_store_advance_clock(s, 999));
    CHECK(rk_t_version(s) == 9);
    CHECK_OK(rk_store_advance_clock(s, 1));
    CHECK_STATE_JSON(s, "{\"count\":7,\"isTimerOn\":true}");
    /* A tick sent by the host counts as one. */
    SEND(s, "\"timerTick\"");
    CHECK_STATE_JSON(s, "{\"count\":8,\"isTimerOn\":true}");
    rk_store_destroy(s); /* with the timer on: destroy cancels it */

    /* A store on the live clock cannot be advanced. */
    SEND(live, "\"toggleTimer\"");
    CHECK_STATUS(rk_store_advance_clock(live, 3000), RK_ERR_MISUSE);
    CHECK(strlen(rk_last_error()) > 0);
    CHECK_STATE_JSON(live, "{\"count\":0,\"isTimerOn\":true}");
    SEND(live, "\"toggleTimer\"");
    rk_store_destroy(live);
}

/* Many distinct, repeated and differently spelled action texts: each does what it says
 * (the library may cache decoded actions by their text; a cache must never confuse them). */
static void test_action_texts(void) {
    rk_store *s;
    rk_store *t;
    char action[160], expected[200], title[120];
    int i, rounds = rk_t_under_valgrind() ? 300 : 3000;
    int wrong = 0;
    uint64_t version;
    TEST("counter: distinct, repeated and respelled action texts");
    s = CREATE("counter", TEST_CLOCK);
    t = CREATE("todos", TEST_CLOCK);
    for (i = 0; i < rounds; i++) {
        long k = (long)((i * 7919) % 1000) - 500;
        char *state;
        switch (i % 4) {
        case 0: snprintf(action, sizeof action, "{\"setCount\":%ld}", k); break;
        case 1: snprintf(action, sizeof action, "{ \"setCount\" : %ld }", k); break;
        case 2: snprintf(action, sizeof action, "\n{\"setCount\":\t%ld}\n", k); break;
        default: snprintf(action, sizeof action, "{\"setCount\":%ld}", k); break;
        }
        if (rk_store_send(s, action) != RK_OK) wrong++;
        if (i % 5 == 0) {
            if (rk_store_send(s, "\"increment\"") != RK_OK) wrong++;
            k++;
        }
        snprintf(expected, sizeof expected, "{\"count\":%ld,\"fact\":null,\"isTimerOn\":false}", k);
        state = rk_t_state(s);
        if (state == NULL || strcmp(state, expected) != 0) {
            if (wrong++ < 5) CHECK_STR_EQ(state, expected);
        }
        rk_free(state);
    }
    CHECK_MSG(wrong == 0, "%d wrong results", wrong);
    version = rk_t_version(s);
    CHECK(version == (uint64_t)(rounds + (rounds + 4) / 5));
    /* Texts longer than any cache key: still right each time. */
    memset(title, 'q', sizeof title - 1);
    title[sizeof title - 1] = '\0';
    for (i = 0; i < 3; i++) {
        title[0] = (char)('a' + i);
        snprintf(action, sizeof action, "{\"factResponse\":\"%s\"}", title);
        CHECK_OK(rk_store_send(s, action));
        snprintf(expected, sizeof expected, "\"fact\":\"%s\"", title);
        {
            char *state = rk_t_state(s);
            CHECK_CONTAINS(state, expected);
            rk_free(state);
        }
    }
    /* A text another store knows is still checked against this store's feature. */
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK_STATUS(rk_store_send(t, "\"increment\""), RK_ERR_ACTION);
    CHECK_STATUS(rk_store_send(t, "\"increment\""), RK_ERR_ACTION);
    CHECK_OK(rk_store_send(t, "{\"addTodo\":{\"title\":\"increment\"}}"));
    CHECK_OK(rk_store_send(t, "{\"addTodo\":{\"title\":\"increment\"}}"));
    CHECK_STATE_JSON(t, "{\"todos\":[{\"id\":1,\"title\":\"increment\",\"isComplete\":false},"
                        "{\"id\":2,\"title\":\"increment\",\"isComplete\":false}],"
                        "\"filter\":\"all\",\"nextID\":3}");
    /* A rejected text stays rejected, however often it is sent. */
    for (i = 0; i < 3; i++) CHECK_STATUS(rk_store_send(s, "\"incremnt\""), RK_ERR_ACTION);
    rk_store_destroy(s);
    rk_store_destroy(t);
}

/* ---- todos -------------------------------------------------------------------------- */

static void test_todos(void) {
    rk_store *s;
    TEST("todos: add, toggle, delete, filter, clearCompleted, ids");
    s = CREATE("todos", TEST_CLOCK);
    CHECK_STATE_JSON(s, "{\"todos\":[],\"filter\":\"all\",\"nextID\":1}");
    SEND(s, "{\"addTodo\":{\"title\":\"Milk\"}}");
    SEND(s, "{\"addTodo\":{\"title\":\"Eggs\"}}");
    SEND(s, "{\"addTodo\":{\"title\":\"Bread \\\"fresh\\\" \\u00fc\"}}");
    CHECK_STATE_JSON(s, "{\"todos\":[{\"id\":1,\"title\":\"Milk\",\"isComplete\":false},"
                        "{\"id\":2,\"title\":\"Eggs\",\"isComplete\":false},"
                        "{\"id\":3,\"title\":\"Bread \\\"fresh\\\" \\u00fc\",\"isComplete\":false}],"
                        "\"filter\":\"all\",\"nextID\":4}");
    SEND(s, "{\"toggle\":{\"id\":1}}");
    SEND(s, "{\"toggle\":{\"id\":3}}");
    SEND(s, "{\"toggle\":{\"id\":3}}");
    SEND(s, "{\"toggle\":{\"id\":99}}"); /* an unknown id changes nothing */
    CHECK_STATE_JSON(s, "{\"todos\":[{\"id\":1,\"title\":\"Milk\",\"isComplete\":true},"
                        "{\"id\":2,\"title\":\"Eggs\",\"isComplete\":false},"
                        "{\"id\":3,\"title\":\"Bread \\\"fresh\\\" \\u00fc\",\"isComplete\":false}],"
                        "\"filter\":\"all\",\"nextID\":4}");
    SEND(s, "{\"setFilter\":\"active\"}");
    SEND(s, "{\"setFilter\":\"completed\"}");
    CHECK_STATE_JSON(s, "{\"todos\":[{\"id\":1,\"title\":\"Milk\",\"isComplete\":true},"
                        "{\"id\":2,\"title\":\"Eggs\",\"isComplete\":false},"
                        "{\"id\":3,\"title\":\"Bread \\\"fresh\\\" \\u00fc\",\"isComplete\":false}],"
                        "\"filter\":\"completed\",\"nextID\":4}");
    SEND(s, "\"clearCompleted\"");
    CHECK_STATE_JSON(s, "{\"todos\":[{\"id\":2,\"title\":\"Eggs\",\"isComplete\":false},"
                        "{\"id\":3,\"title\":\"Bread \\\"fresh\\\" \\u00fc\",\"isComplete\":false}],"
                        "\"filter\":\"completed\",\"nextID\":4}");
    SEND(s, "{\"delete\":{\"id\":3}}");
    SEND(s, "{\"delete\":{\"id\":3}}"); /* already gone: nothing */
    /* Ids are never reused: the next todo is 4, not 3. */
    SEND(s, "{\"addTodo\":{\"title\":\"Tea\"}}");
    SEND(s, "{\"setFilter\":\"all\"}");
    CHECK_STATE_JSON(s, "{\"todos\":[{\"id\":2,\"title\":\"Eggs\",\"isComplete\":false},"
                        "{\"id\":4,\"title\":\"Tea\",\"isComplete\":false}],"
                        "\"filter\":\"all\",\"nextID\":5}");
    SEND(s, "\"clearCompleted\""); /* nothing completed */
    CHECK(rk_t_version(s) == 15);
    rk_store_destroy(s);

    /* An initial state with todos: nextID carries on from it. */
    s = CREATE("todos", "{\"initial_state\":{\"todos\":[{\"id\":10,\"title\":\"A\","
                        "\"isComplete\":true}],\"nextID\":11}}");
    SEND(s, "{\"addTodo\":{\"title\":\"B\"}}");
    SEND(s, "{\"toggle\":{\"id\":10}}");
    CHECK_STATE_JSON(s, "{\"todos\":[{\"id\":10,\"title\":\"A\",\"isComplete\":false},"
                        "{\"id\":11,\"title\":\"B\",\"isComplete\":false}],"
                        "\"filter\":\"all\",\"nextID\":12}");
    rk_store_destroy(s);
}

/* ---- search ------------------------------------------------------------------------- */

static void test_search(void) {
    rk_store *s;
    uint64_t n = 99;
    TEST("search: debounce on the test clock");
    s = CREATE("search", TEST_CLOCK);
    CHECK_STATE_JSON(s, "{\"query\":\"\",\"results\":[]}");
    SEND(s, "{\"queryChanged\":\"s\"}");
    CHECK_STATE_JSON(s, "{\"query\":\"s\",\"results\":[]}"); /* the query is set at once */
    CHECK_OK(rk_store_advance_clock(s, 100));
    SEND(s, "{\"queryChanged\":\"sw\"}"); /* restarts the 300 ms */
    CHECK_OK(rk_store_advance_clock(s, 299));
    CHECK_STATE_JSON(s, "{\"query\":\"sw\",\"results\":[]}");
    CHECK(rk_t_version(s) == 2);
    CHECK_OK(rk_store_advance_clock(s, 1));
    CHECK_STATE_JSON(s, "{\"query\":\"sw\",\"results\":[\"swift\",\"swim\"]}");
    CHECK(rk_t_version(s) == 3); /* one searchResponse: "s" was debounced away */
    CHECK_OK(rk_store_advance_clock(s, 5000));
    CHECK(rk_t_version(s) == 3);
    CHECK_OK(rk_store_effect_count(s, &n));
    CHECK(n == 0);

    SEND(s, "{\"queryChanged\":\"pe\"}");
    CHECK_OK(rk_store_advance_clock(s, 300));
    CHECK_STATE_JSON(s, "{\"query\":\"pe\",\"results\":[\"pear\"]}");
    SEND(s, "{\"queryChanged\":\"zz\"}");
    CHECK_OK(rk_store_advance_clock(s, 300));
    CHECK_STATE_JSON(s, "{\"query\":\"zz\",\"results\":[]}");
    CHECK(rk_t_version(s) == 7);

    /* An empty query clears the results at once and cancels a pending search. */
    SEND(s, "{\"queryChanged\":\"sw\"}");
    CHECK_OK(rk_store_advance_clock(s, 300));
    CHECK_STATE_JSON(s, "{\"query\":\"sw\",\"results\":[\"swift\",\"swim\"]}");
    SEND(s, "{\"queryChanged\":\"a\"}");
    SEND(s, "{\"queryChanged\":\"\"}");
    CHECK_STATE_JSON(s, "{\"query\":\"\",\"results\":[]}");
    CHECK_OK(rk_store_advance_clock(s, 1000));
    CHECK_STATE_JSON(s, "{\"query\":\"\",\"results\":[]}");
    CHECK(rk_t_version(s) == 11);
    CHECK_OK(rk_store_wait_idle(s, settle_ms()));
    CHECK_OK(rk_store_effect_count(s, &n));
    CHECK(n == 0);
    rk_store_destroy(s);

    /* On the live clock the search still runs, 300 ms later. */
    s = CREATE("search", NULL);
    SEND(s, "{\"queryChanged\":\"sw\"}");
    CHECK_OK(rk_store_wait_idle(s, settle_ms()));
    CHECK_STATE_JSON(s, "{\"query\":\"sw\",\"results\":[\"swift\",\"swim\"]}");
    rk_store_destroy(s);
}

/* ---- subscriptions ------------------------------------------------------------------ */

typedef struct seen {
    int calls;
    int out_of_order;
    uint64_t last_version;
    char last[512];
} seen;

static void on_state(void *userdata, const char *json, size_t len, uint64_t version) {
    seen *s = (seen *)userdata;
    if (version <= s->last_version || strlen(json) != len) s->out_of_order++;
    s->last_version = version;
    s->calls++;
    snprintf(s->last, sizeof s->last, "%s", json);
}

static void test_subscriptions(void) {
    rk_store *s;
    rk_store *t;
    seen a, b;
    uint64_t ta, tb;
    TEST("subscriptions see every send, effects' actions included, coalesced per send");
    s = CREATE("search", TEST_CLOCK);
    t = CREATE("counter", TEST_CLOCK);
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    CHECK_OK(rk_store_subscribe(s, on_state, &a, &ta));
    CHECK_OK(rk_store_subscribe(t, on_state, &b, &tb));
    SEND(s, "{\"queryChanged\":\"sw\"}");
    CHECK(a.calls == 1);
    CHECK_JSON(a.last, "{\"query\":\"sw\",\"results\":[]}");
    CHECK_OK(rk_store_advance_clock(s, 300));
    CHECK(a.calls == 2 && a.last_version == 2); /* the effect's searchResponse */
    CHECK_JSON(a.last, "{\"query\":\"sw\",\"results\":[\"swift\",\"swim\"]}");
    SEND(t, "\"toggleTimer\"");
    CHECK_OK(rk_store_advance_clock(t, 2000));
    CHECK(b.calls == 3 && b.last_version == 3);
    CHECK_JSON(b.last, "{\"count\":2,\"isTimerOn\":true}");
    SEND(t, "\"factButtonTapped\"");
    CHECK_OK(rk_store_wait_idle(t, settle_ms()));
    /* The fact effect answers before its first suspension: factButtonTapped and the
     * factResponse it sent are one send, so one callback, at version 5 (TCA coalesces too). */
    CHECK(b.calls == 4 && b.last_version == 5);
    CHECK_JSON(b.last, "{\"count\":2,\"fact\":\"2 is the only even prime.\",\"isTimerOn\":true}");
    CHECK(a.calls == 2); /* one store's actions do not reach another's subscribers */
    CHECK(a.out_of_order == 0 && b.out_of_order == 0);
    CHECK_OK(rk_store_unsubscribe(t, tb));
    CHECK_OK(rk_store_advance_clock(t, 1000));
    CHECK(b.calls == 4);
    CHECK(rk_t_version(t) == 6);
    rk_store_destroy(s);
    rk_store_destroy(t);
}

/* ---- concurrency ------------------------------------------------------------------- */

typedef struct shared {
    rk_store *store;
    int per_thread;
    int failures;          /* sends that did not return RK_OK */
    pthread_mutex_t guard; /* held during a callback: trylock failure = concurrent callbacks */
    pthread_mutex_t lock;  /* protects the counters below */
    long calls;
    int concurrent;
    int out_of_order;
    uint64_t last_version;
    int reads, bad_reads;
    volatile int done;
} shared;

static void counting_callback(void *userdata, const char *json, size_t len, uint64_t version) {
    shared *sh = (shared *)userdata;
    int got = pthread_mutex_trylock(&sh->guard) == 0;
    pthread_mutex_lock(&sh->lock);
    if (!got) sh->concurrent++;
    sh->calls++;
    if (version <= sh->last_version || strlen(json) != len) sh->out_of_order++;
    sh->last_version = version;
    pthread_mutex_unlock(&sh->lock);
    if (got) pthread_mutex_unlock(&sh->guard);
}

static void *sender(void *arg) {
    shared *sh = (shared *)arg;
    int i, failures = 0;
    for (i = 0; i < sh->per_thread; i++) {
        if (rk_store_send(sh->store, "\"increment\"") != RK_OK) failures++;
    }
    pthread_mutex_lock(&sh->lock);
    sh->failures += failures;
    pthread_mutex_unlock(&sh->lock);
    return NULL;
}

/* Reads the state and version while the senders run: versions never go back. */
static void *reader(void *arg) {
    shared *sh = (shared *)arg;
    uint64_t last = 0;
    int reads = 0, bad = 0;
    while (!sh->done) {
        char *json = NULL;
        uint64_t v = 0;
        jm_value *parsed;
        if (rk_store_version(sh->store, &v) != RK_OK || v < last) bad++;
        last = v;
        if (rk_store_state(sh->store, &json, NULL) != RK_OK) {
            bad++;
            continue;
        }
        parsed = jm_parse_str(json);
        if (parsed == NULL || jm_get(parsed, "count") == NULL ||
            jm_get(parsed, "count")->number < (double)last)
            bad++;
        jm_free(parsed);
        rk_free(json);
        reads++;
        /* valgrind runs one thread at a time: let the senders have the store. */
        if (rk_t_under_valgrind()) sched_yield();
    }
    pthread_mutex_lock(&sh->lock);
    sh->reads += reads;
    sh->bad_reads += bad;
    pthread_mutex_unlock(&sh->lock);
    return NULL;
}

static void test_concurrent_sends(void) {
    shared sh;
    pthread_t threads[4], read_thread;
    uint64_t token;
    char expected[128];
    int i, total;
    TEST("concurrent sends from 4 threads, no lost action");
    memset(&sh, 0, sizeof sh);
    sh.store = CREATE("counter", TEST_CLOCK);
    sh.per_thread = rk_t_under_valgrind() ? 100 : 10000;
    total = 4 * sh.per_thread;
    pthread_mutex_init(&sh.guard, NULL);
    pthread_mutex_init(&sh.lock, NULL);
    CHECK_OK(rk_store_subscribe(sh.store, counting_callback, &sh, &token));
    CHECK(pthread_create(&read_thread, NULL, reader, &sh) == 0);
    for (i = 0; i < 4; i++) CHECK(pthread_create(&threads[i], NULL, sender, &sh) == 0);
    for (i = 0; i < 4; i++) pthread_join(threads[i], NULL);
    sh.done = 1;
    pthread_join(read_thread, NULL);
    CHECK(sh.failures == 0);
    snprintf(expected, sizeof expected, "{\"count\":%d,\"isTimerOn\":false}", total);
    CHECK_STATE_JSON(sh.store, expected);
    CHECK_MSG(rk_t_version(sh.store) == (uint64_t)total, "version %llu, expected %d",
              (unsigned long long)rk_t_version(sh.store), total);
    /* One callback per send at most: states waiting while another thread delivers are
     * coalesced into the newest. */
    CHECK_MSG(sh.calls >= 1 && sh.calls <= total, "%ld callbacks for %d sends", sh.calls, total);
    CHECK(sh.last_version == (uint64_t)total);
    CHECK_MSG(sh.concurrent == 0, "%d callbacks overlapped", sh.concurrent);
    CHECK_MSG(sh.out_of_order == 0, "%d callbacks out of order", sh.out_of_order);
    CHECK_MSG(sh.bad_reads == 0, "%d bad reads of %d", sh.bad_reads, sh.reads);
    CHECK_OK(rk_store_unsubscribe(sh.store, token));
    rk_store_destroy(sh.store);
    pthread_mutex_destroy(&sh.guard);
    pthread_mutex_destroy(&sh.lock);
}

/* Texts the cache must keep apart: "increment" and "decrement" with 0-19 leading spaces, 40
 * texts of two lengths each, so the store's action cache fills its lock-free list (8 entries)
 * and its table while other threads read both. */
typedef struct {
    rk_store *store;
    int seed, rounds;
    long net;     /* increments minus decrements this thread sent */
    int failures;
} text_sender;

static void *send_texts(void *arg) {
    text_sender *t = (text_sender *)arg;
    char action[64];
    int i;
    for (i = 0; i < t->rounds; i++) {
        int v = (i * 7 + t->seed * 13) % 40;
        int up = v < 20;
        snprintf(action, sizeof action, "%*s\"%s\"", v % 20, "", up ? "increment" : "decrement");
        if (rk_store_send(t->store, action) != RK_OK) t->failures++;
        t->net += up ? 1 : -1;
    }
    return NULL;
}

static void test_concurrent_action_texts(void) {
    text_sender senders[4];
    pthread_t threads[4];
    rk_store *s;
    char expected[128];
    long net = 0;
    int i, rounds = rk_t_under_valgrind() ? 200 : 5000;
    TEST("concurrent sends of 40 action texts from 4 threads: each decoded as itself");
    s = CREATE("counter", TEST_CLOCK);
    for (i = 0; i < 4; i++) {
        senders[i].store = s;
        senders[i].seed = i;
        senders[i].rounds = rounds + i; /* the threads' nets differ */
        senders[i].net = 0;
        senders[i].failures = 0;
        CHECK(pthread_create(&threads[i], NULL, send_texts, &senders[i]) == 0);
    }
    for (i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        CHECK(senders[i].failures == 0);
        net += senders[i].net;
    }
    snprintf(expected, sizeof expected, "{\"count\":%ld,\"isTimerOn\":false}", net);
    CHECK_STATE_JSON(s, expected);
    CHECK(rk_t_version(s) == (uint64_t)(4 * rounds + 6));
    rk_store_destroy(s);
}

/* Host sends race with an effect's actions (a live timer and facts): none is lost. */
static void test_concurrent_with_effects(void) {
    shared sh;
    pthread_t threads[4];
    uint64_t token, version, ticks_and_facts;
    jm_value *state;
    char *json;
    int i, total;
    TEST("concurrent sends race with effects' actions");
    memset(&sh, 0, sizeof sh);
    sh.per_thread = rk_t_under_valgrind() ? 100 : 2000;
    total = 4 * sh.per_thread;
    pthread_mutex_init(&sh.guard, NULL);
    pthread_mutex_init(&sh.lock, NULL);
    /* counter on the live clock, with fact effects finishing on pool threads */
    sh.store = CREATE("counter", NULL);
    CHECK_OK(rk_store_subscribe(sh.store, counting_callback, &sh, &token));
    for (i = 0; i < 4; i++) CHECK(pthread_create(&threads[i], NULL, sender, &sh) == 0);
    for (i = 0; i < 20; i++) SEND(sh.store, "\"factButtonTapped\"");
    for (i = 0; i < 4; i++) pthread_join(threads[i], NULL);
    CHECK_OK(rk_store_wait_idle(sh.store, settle_ms()));
    version = rk_t_version(sh.store);
    json = rk_t_state(sh.store);
    state = jm_parse_str(json);
    CHECK(state != NULL && jm_get(state, "count") != NULL &&
          jm_get(state, "count")->number == (double)total);
    /* versions: total increments + 20 taps + one factResponse per tap that was not
     * cancelled by a later tap (at least 1) */
    ticks_and_facts = version - (uint64_t)total - 20;
    CHECK_MSG(version >= (uint64_t)total + 21 && ticks_and_facts <= 20,
              "version %llu after %d increments and 20 taps", (unsigned long long)version,
              total);
    CHECK(jm_str(jm_get(state, "fact")) != NULL);
    CHECK(sh.calls >= 1 && sh.calls <= (long)version && sh.last_version == version);
    CHECK(sh.concurrent == 0 && sh.out_of_order == 0 && sh.failures == 0);
    jm_free(state);
    rk_free(json);
    rk_store_destroy(sh.store);
    pthread_mutex_destroy(&sh.guard);
    pthread_mutex_destroy(&sh.lock);
}

/* Stores created, used and destroyed on several threads at once. */
static void *store_life(void *arg) {
    int *failures = (int *)arg;
    int round, i, rounds = rk_t_under_valgrind() ? 3 : 30;
    for (round = 0; round < rounds; round++) {
        rk_store *s = NULL;
        uint64_t v = 0;
        if (rk_store_create("todos", TEST_CLOCK, &s) != RK_OK) {
            (*failures)++;
            continue;
        }
        for (i = 0; i < 20; i++) {
            if (rk_store_send(s, "{\"addTodo\":{\"title\":\"x\"}}") != RK_OK) (*failures)++;
        }
        if (rk_store_version(s, &v) != RK_OK || v != 20) (*failures)++;
        rk_store_destroy(s);
        if (rk_store_send(s, "\"clearCompleted\"") != RK_ERR_INVALID_HANDLE) (*failures)++;
    }
    return NULL;
}

static void test_concurrent_stores(void) {
    pthread_t threads[4];
    int failures[4] = {0, 0, 0, 0};
    int i;
    TEST("stores created and destroyed on 4 threads at once");
    for (i = 0; i < 4; i++) CHECK(pthread_create(&threads[i], NULL, store_life, &failures[i]) == 0);
    for (i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        CHECK_MSG(failures[i] == 0, "thread %d: %d failures", i, failures[i]);
    }
}

int main(int argc, char **argv) {
    rk_t_select(argc, argv);
    rk_t_watchdog(180);
    test_counter_basics();
    test_counter_fact();
    test_counter_timer();
    test_action_texts();
    test_todos();
    test_search();
    test_subscriptions();
    test_concurrent_sends();
    test_concurrent_action_texts();
    test_concurrent_with_effects();
    test_concurrent_stores();
    RK_TEST_EXIT();
}
