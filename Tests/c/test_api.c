/*
 * test_api.c — every function of include/reducerkit.h, used as its comments say.
 * Bad input is test_bad_input.c's; the features' behaviour is test_features.c's.
 */
#include "rk_test.h"
#include "json_mini.h"

#include <pthread.h>

#define COUNTER_0 "{\"count\":0,\"isTimerOn\":false}"
#define TEST_CLOCK "{\"clock\":\"test\"}"
#define RECORDING "{\"clock\":\"test\",\"record_actions\":true}"

/* ---- Versions, statuses, errors, rk_free ---------------------------------------------- */

static void test_versions(void) {
    char expected[32];
    TEST("versions");
    CHECK(rk_version() != NULL);
    CHECK_STR_EQ(rk_version(), RK_VERSION_STRING);
    snprintf(expected, sizeof expected, "%d.%d.%d", RK_VERSION_MAJOR, RK_VERSION_MINOR,
             RK_VERSION_PATCH);
    CHECK_STR_EQ(RK_VERSION_STRING, expected);
    CHECK(rk_version() == rk_version()); /* static storage */
    CHECK(rk_abi_version() == RK_ABI_VERSION);
}

static void test_status_strings(void) {
    static const char *const names[] = {
        "RK_OK",          "RK_ERR_INVALID_ARGUMENT", "RK_ERR_JSON",
        "RK_ERR_ACTION",  "RK_ERR_STATE",            "RK_ERR_UNKNOWN_FEATURE",
        "RK_ERR_INVALID_HANDLE", "RK_ERR_TIMEOUT",   "RK_ERR_INTERNAL",
        "RK_ERR_MISUSE",  "RK_ERR_RESPONSE"};
    static const rk_status codes[] = {RK_OK,           RK_ERR_INVALID_ARGUMENT, RK_ERR_JSON,
                                      RK_ERR_ACTION,   RK_ERR_STATE, RK_ERR_UNKNOWN_FEATURE,
                                      RK_ERR_INVALID_HANDLE, RK_ERR_TIMEOUT, RK_ERR_INTERNAL,
                                      RK_ERR_MISUSE, RK_ERR_RESPONSE};
    size_t i, j;
    TEST("rk_status_string");
    for (i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *s = rk_status_string(codes[i]);
        size_t n = strlen(names[i]);
        CHECK((int)codes[i] == (int)i);
        CHECK_MSG(s != NULL && strncmp(s, names[i], n) == 0 && (s[n] == ':' || s[n] == '\0'),
                  "rk_status_string(%d) = \"%s\", expected it to start with %s", (int)i,
                  s ? s : "(null)", names[i]);
        CHECK(s != NULL && strlen(s) > n + 2); /* a description after the name */
        CHECK(rk_status_string(codes[i]) == s); /* static */
        for (j = 0; j < i; j++) CHECK(strcmp(rk_status_string(codes[j]), s) != 0);
    }
    CHECK_STR_EQ(rk_status_string((rk_status)11), "unknown status");
    CHECK_STR_EQ(rk_status_string((rk_status)42), "unknown status");
    CHECK_STR_EQ(rk_status_string((rk_status)100000), "unknown status");
    CHECK_STR_EQ(rk_status_string((rk_status)-1), "unknown status");
}

static void *last_error_thread(void *arg) {
    const char **out = (const char **)arg;
    rk_store *store = NULL;
    /* A new thread has no error yet, whatever other threads did. */
    out[0] = strcmp(rk_last_error(), "") == 0 ? "empty" : "not empty";
    if (rk_store_create("no-such-feature-in-thread", NULL, &store) != RK_ERR_UNKNOWN_FEATURE)
        out[1] = "wrong status";
    else if (strstr(rk_last_error(), "no-such-feature-in-thread") == NULL)
        out[1] = "message lacks the name";
    else
        out[1] = "ok";
    return NULL;
}

static void test_last_error(void) {
    const char *results[2] = {NULL, NULL};
    pthread_t thread;
    rk_store *store = NULL;
    char before[256];
    TEST("rk_last_error is per thread");
    CHECK(rk_last_error() != NULL);
    CHECK_STATUS(rk_store_create("nope-main", NULL, &store), RK_ERR_UNKNOWN_FEATURE);
    CHECK(store == NULL);
    CHECK_CONTAINS(rk_last_error(), "nope-main");
    snprintf(before, sizeof before, "%s", rk_last_error());
    CHECK(pthread_create(&thread, NULL, last_error_thread, (void *)results) == 0);
    pthread_join(thread, NULL);
    CHECK_STR_EQ(results[0], "empty");
    CHECK_STR_EQ(results[1], "ok");
    /* The other thread's failure did not touch this thread's message. */
    CHECK_STR_EQ(rk_last_error(), before);
    /* A successful call does not make the message invalid. */
    CHECK_STR_EQ(rk_version(), RK_VERSION_STRING);
    CHECK_STR_EQ(rk_last_error(), before);
}

static void test_free(void) {
    char *json = NULL;
    TEST("rk_free");
    rk_free(NULL); /* a no-op */
    CHECK_OK(rk_features(&json, NULL));
    rk_free(json);
    CHECK(1);
}

/* ---- rk_features ---------------------------------------------------------------------- */

static void test_features_list(void) {
    static const char *const names[] = {"counter", "todos", "search"};
    char *json = NULL;
    char *json2 = NULL;
    size_t len = 0;
    jm_value *list;
    char err[160];
    size_t i, k;
    TEST("rk_features");
    CHECK_OK(rk_features(&json, &len));
    CHECK(json != NULL);
    if (json == NULL) return;
    CHECK(len == strlen(json));
    list = jm_parse(json, len, err, sizeof err);
    CHECK_MSG(list != NULL, "rk_features() is not valid JSON: %s", err);
    CHECK(list != NULL && list->type == JM_ARRAY && list->count >= 3);
    for (k = 0; k < 3; k++) {
        const jm_value *feature = NULL;
        for (i = 0; list != NULL && i < list->count; i++) {
            if (jm_str(jm_get(jm_at(list, i), "name")) != NULL &&
                strcmp(jm_str(jm_get(jm_at(list, i), "name")), names[k]) == 0)
                feature = jm_at(list, i);
        }
        CHECK_MSG(feature != NULL, "feature \"%s\" is not listed", names[k]);
        if (feature == NULL) continue;
        CHECK(jm_str(jm_get(feature, "description")) != NULL);
        CHECK(jm_get(feature, "initial_state") != NULL &&
              jm_get(feature, "initial_state")->type == JM_OBJECT);
        CHECK(jm_get(feature, "action_schema") != NULL &&
              jm_get(feature, "action_schema")->type == JM_OBJECT);
        CHECK(jm_get(feature, "state_schema") != NULL &&
              jm_get(feature, "state_schema")->type == JM_OBJECT);
    }
    /* The text names the features and the schema key (as the issue asks). */
    CHECK_CONTAINS(json, "\"counter\"");
    CHECK_CONTAINS(json, "\"todos\"");
    CHECK_CONTAINS(json, "\"search\"");
    CHECK_CONTAINS(json, "\"action_schema\"");
    /* The counter's initial state is the default state of a new store. */
    for (i = 0; list != NULL && i < list->count; i++) {
        if (jm_str(jm_get(jm_at(list, i), "name")) != NULL &&
            strcmp(jm_str(jm_get(jm_at(list, i), "name")), "counter") == 0) {
            char *initial = jm_dump(jm_get(jm_at(list, i), "initial_state"));
            CHECK_JSON(initial, COUNTER_0);
            free(initial);
        }
    }
    /* out_len may be NULL; the same text every time. */
    CHECK_OK(rk_features(&json2, NULL));
    CHECK_STR_EQ(json2, json);
    rk_free(json2);
    jm_free(list);
    rk_free(json);
}

/* ---- Create, destroy, send, state, version -------------------------------------------- */

static void test_create_destroy(void) {
    static const char *const features[] = {"counter", "todos", "search"};
    static const char *const options[] = {NULL, "{}", TEST_CLOCK, "{\"clock\":\"live\"}",
                                          "{\"record_actions\":false}", RECORDING,
                                          " { \"clock\" : \"test\" , \"initial_state\" : {} } "};
    size_t f, o;
    TEST("rk_store_create / rk_store_destroy");
    for (f = 0; f < 3; f++) {
        for (o = 0; o < sizeof options / sizeof options[0]; o++) {
            rk_store *store = NULL;
            rk_status st = rk_store_create(features[f], options[o], &store);
            CHECK_MSG(st == RK_OK && store != NULL, "create(\"%s\", %s) = %s", features[f],
                      options[o] ? options[o] : "NULL", rk_status_string(st));
            if (st == RK_OK) {
                char *state = rk_t_state(store);
                jm_value *parsed = jm_parse_str(state);
                CHECK_MSG(parsed != NULL && parsed->type == JM_OBJECT, "state %s", state);
                jm_free(parsed);
                rk_free(state);
                CHECK(rk_t_version(store) == 0);
                rk_store_destroy(store);
            }
        }
    }
    {
        /* Two stores of one feature are independent, and handles are distinct. */
        rk_store *a = CREATE("counter", NULL);
        rk_store *b = CREATE("counter", NULL);
        CHECK(a != b);
        CHECK_OK(rk_store_send(a, "\"increment\""));
        CHECK_STATE_JSON(a, "{\"count\":1,\"isTimerOn\":false}");
        CHECK_STATE_JSON(b, COUNTER_0);
        rk_store_destroy(a);
        CHECK_OK(rk_store_send(b, "\"decrement\"")); /* b survives a's destroy */
        CHECK_STATE_JSON(b, "{\"count\":-1,\"isTimerOn\":false}");
        rk_store_destroy(b);
    }
    {
        /* initial_state is merged over the defaults. */
        rk_store *s = CREATE("counter", "{\"initial_state\":{\"count\":7}}");
        CHECK_STATE_JSON(s, "{\"count\":7,\"isTimerOn\":false}");
        rk_store_destroy(s);
        s = CREATE("todos", "{\"initial_state\":{\"filter\":\"active\"}}");
        CHECK_STATE_JSON(s, "{\"todos\":[],\"filter\":\"active\",\"nextID\":1}");
        rk_store_destroy(s);
    }
    rk_store_destroy(NULL); /* a no-op */
    CHECK(1);
}

static void test_send_state_version(void) {
    rk_store *s;
    char *json = NULL;
    size_t len = 12345;
    uint64_t v = 999;
    char unterminated[16];
    int i;
    TEST("rk_store_send / rk_store_send_n / rk_store_state / rk_store_version");
    s = CREATE("counter", TEST_CLOCK);
    CHECK_OK(rk_store_version(s, &v));
    CHECK(v == 0);
    CHECK_OK(rk_store_state(s, &json, &len));
    CHECK(json != NULL && len == strlen(json));
    CHECK_JSON(json, COUNTER_0);
    rk_free(json);
    json = NULL;
    CHECK_OK(rk_store_state(s, &json, NULL)); /* out_len may be NULL */
    CHECK_JSON(json, COUNTER_0);
    rk_free(json);

    for (i = 1; i <= 5; i++) {
        CHECK_OK(rk_store_send(s, "\"increment\""));
        CHECK(rk_t_version(s) == (uint64_t)i);
    }
    CHECK_STATE_JSON(s, "{\"count\":5,\"isTimerOn\":false}");
    CHECK_OK(rk_store_send(s, "{\"setCount\": 100}"));
    CHECK(rk_t_version(s) == 6);
    CHECK_OK(rk_store_send(s, "  \"decrement\"\n")); /* whitespace around the value */
    CHECK(rk_t_version(s) == 7);
    CHECK_STATE_JSON(s, "{\"count\":99,\"isTimerOn\":false}");
    /* The other accepted forms of a case without a value. */
    CHECK_OK(rk_store_send(s, "{\"increment\":{}}"));
    CHECK_OK(rk_store_send(s, "{\"increment\":null}"));
    CHECK(rk_t_version(s) == 9);
    CHECK_STATE_JSON(s, "{\"count\":101,\"isTimerOn\":false}");
    /* An action that changes nothing still counts. */
    CHECK_OK(rk_store_send(s, "{\"setCount\":101}"));
    CHECK(rk_t_version(s) == 10);

    /* send_n: exactly len bytes, no NUL needed. */
    memcpy(unterminated, "\"increment\"XXXX", 15);
    CHECK_OK(rk_store_send_n(s, unterminated, 11));
    CHECK(rk_t_version(s) == 11);
    CHECK_OK(rk_store_send_n(s, "{\"setCount\":5}garbage", 14));
    CHECK(rk_t_version(s) == 12);
    CHECK_STATE_JSON(s, "{\"count\":5,\"isTimerOn\":false}");
    /* ... and a length that cuts a valid action is not that action. */
    CHECK_STATUS(rk_store_send_n(s, "\"increment\"", 10), RK_ERR_JSON);
    CHECK(rk_t_version(s) == 12);
    rk_store_destroy(s);
}

/* ---- Subscriptions ------------------------------------------------------------------ */

typedef struct recorder {
    pthread_mutex_t lock;
    rk_store *store;
    int calls;
    int bad_len;         /* len != strlen(state_json) */
    int bad_version;     /* version != previous + 1 */
    int bad_state;       /* state_json differs from rk_store_state() read in the callback */
    uint64_t last_version;
    char last_state[512];
    /* behaviours */
    int resend_until;    /* send "increment" from the callback while version < resend_until */
    rk_status resend_status;
    rk_status wait_status;
    rk_status advance_status;
    char wait_message[256];
    int unsubscribe_self_at; /* version at which the callback unsubscribes itself */
    uint64_t token;
    rk_status unsubscribe_status;
    int destroy_at;          /* version at which the callback destroys its store */
} recorder;

static void recorder_init(recorder *r, rk_store *store) {
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->lock, NULL);
    r->store = store;
}

static void record_state(void *userdata, const char *state_json, size_t len, uint64_t version) {
    recorder *r = (recorder *)userdata;
    pthread_mutex_lock(&r->lock);
    r->calls++;
    if (state_json == NULL || strlen(state_json) != len) r->bad_len++;
    if (r->last_version != 0 && version != r->last_version + 1) r->bad_version++;
    r->last_version = version;
    if (state_json != NULL) snprintf(r->last_state, sizeof r->last_state, "%s", state_json);
    pthread_mutex_unlock(&r->lock);
}

static void busy_callback(void *userdata, const char *state_json, size_t len, uint64_t version) {
    recorder *r = (recorder *)userdata;
    char *now = NULL;
    uint64_t v = 0;
    record_state(userdata, state_json, len, version);
    /* Reads from inside the callback see the state this call carries. */
    if (rk_store_state(r->store, &now, NULL) != RK_OK || strcmp(now, state_json) != 0)
        r->bad_state++;
    rk_free(now);
    if (rk_store_version(r->store, &v) != RK_OK || v != version) r->bad_state++;
    if ((int)version < r->resend_until) r->resend_status = rk_store_send(r->store, "\"increment\"");
    if (version == 1) {
        r->wait_status = rk_store_wait_idle(r->store, RK_T_MS(1000));
        snprintf(r->wait_message, sizeof r->wait_message, "%s", rk_last_error());
        r->advance_status = rk_store_advance_clock(r->store, 10);
    }
    if (r->unsubscribe_self_at != 0 && (int)version == r->unsubscribe_self_at)
        r->unsubscribe_status = rk_store_unsubscribe(r->store, r->token);
    if (r->destroy_at != 0 && (int)version == r->destroy_at) rk_store_destroy(r->store);
}

static int null_userdata_calls;

static void count_null_userdata(void *userdata, const char *state_json, size_t len,
                                uint64_t version) {
    (void)state_json;
    (void)len;
    (void)version;
    if (userdata == NULL) null_userdata_calls++;
}

static void test_subscribe(void) {
    rk_store *s;
    recorder a, b;
    uint64_t ta = 0, tb = 0;
    char *state;
    TEST("rk_store_subscribe / rk_store_unsubscribe");
    s = CREATE("counter", TEST_CLOCK);
    recorder_init(&a, s);
    recorder_init(&b, s);
    CHECK_OK(rk_store_subscribe(s, record_state, &a, &ta));
    CHECK(a.calls == 0); /* not called at registration */
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK(a.calls == 1 && a.last_version == 1);
    CHECK_JSON(a.last_state, "{\"count\":1,\"isTimerOn\":false}");
    state = rk_t_state(s);
    CHECK_STR_EQ(a.last_state, state); /* the same text rk_store_state gives */
    rk_free(state);

    CHECK_OK(rk_store_subscribe(s, record_state, &b, &tb));
    CHECK(ta != tb);
    CHECK_OK(rk_store_send(s, "{\"setCount\":10}"));
    CHECK(a.calls == 2 && a.last_version == 2);
    CHECK(b.calls == 1 && b.last_version == 2);
    CHECK_JSON(b.last_state, "{\"count\":10,\"isTimerOn\":false}");

    CHECK_OK(rk_store_unsubscribe(s, ta));
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK(a.calls == 2); /* not called after unsubscribe */
    CHECK(b.calls == 2 && b.last_version == 3);
    /* A token that is gone, or never was, is an error. */
    CHECK_STATUS(rk_store_unsubscribe(s, ta), RK_ERR_INVALID_ARGUMENT);
    CHECK(strlen(rk_last_error()) > 0);
    CHECK_STATUS(rk_store_unsubscribe(s, 987654321u), RK_ERR_INVALID_ARGUMENT);
    CHECK_OK(rk_store_unsubscribe(s, tb));
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK(b.calls == 2);
    CHECK(a.bad_len == 0 && b.bad_len == 0 && a.bad_version == 0 && b.bad_version == 0);
    /* userdata NULL is passed back as NULL; one callback subscribed twice runs twice. */
    null_userdata_calls = 0;
    CHECK_OK(rk_store_subscribe(s, count_null_userdata, NULL, &ta));
    CHECK_OK(rk_store_subscribe(s, count_null_userdata, NULL, &tb));
    CHECK(ta != tb);
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK(null_userdata_calls == 2);
    CHECK_OK(rk_store_unsubscribe(s, ta));
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK(null_userdata_calls == 3);
    /* destroy removes the remaining subscription */
    rk_store_destroy(s);
    pthread_mutex_destroy(&a.lock);
    pthread_mutex_destroy(&b.lock);
}

static void test_reentrant_callbacks(void) {
    rk_store *s;
    recorder r;
    uint64_t token = 0;
    TEST("callbacks call back into the library");
    s = CREATE("counter", TEST_CLOCK);
    recorder_init(&r, s);
    r.resend_until = 3; /* at versions 1 and 2, send another increment */
    r.resend_status = RK_ERR_INTERNAL;
    CHECK_OK(rk_store_subscribe(s, busy_callback, &r, &token));
    CHECK_OK(rk_store_send(s, "\"increment\""));
    /* Both queued actions were reduced before the outer send returned. */
    CHECK_STATUS(r.resend_status, RK_OK);
    CHECK(rk_t_version(s) == 3);
    CHECK_STATE_JSON(s, "{\"count\":3,\"isTimerOn\":false}");
    CHECK(r.calls == 3 && r.last_version == 3);
    CHECK(r.bad_version == 0 && r.bad_len == 0);
    CHECK_MSG(r.bad_state == 0, "%d reads from a callback disagreed with its state",
              r.bad_state);
    /* Callbacks run outside the store's lock: waiting and moving the clock work there. */
    CHECK_STATUS(r.wait_status, RK_OK);
    CHECK_STATUS(r.advance_status, RK_OK);
    CHECK_OK(rk_store_unsubscribe(s, token));

    /* A callback that unsubscribes itself is not called again. */
    recorder_init(&r, s);
    r.unsubscribe_self_at = 5;
    r.unsubscribe_status = RK_ERR_INTERNAL;
    CHECK_OK(rk_store_subscribe(s, busy_callback, &r, &r.token));
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK_STATUS(r.unsubscribe_status, RK_OK);
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK(r.calls == 2 && r.last_version == 5);
    CHECK_STATUS(rk_store_unsubscribe(s, r.token), RK_ERR_INVALID_ARGUMENT);
    rk_store_destroy(s);
    pthread_mutex_destroy(&r.lock);

    /* A callback may destroy its own store (it runs on this thread). */
    s = CREATE("counter", TEST_CLOCK);
    recorder_init(&r, s);
    r.destroy_at = 2;
    CHECK_OK(rk_store_subscribe(s, busy_callback, &r, &token));
    CHECK_OK(rk_store_send(s, "\"increment\""));
    rk_store_send(s, "\"increment\""); /* its status is not specified */
    CHECK(r.calls == 2);
    CHECK_STATUS(rk_store_send(s, "\"increment\""), RK_ERR_INVALID_HANDLE);
    CHECK(r.calls == 2);
    rk_store_destroy(s); /* already destroyed: ignored */
    pthread_mutex_destroy(&r.lock);
}

/* ---- Effects: wait_idle, advance_clock, effect_count, take_actions -------------------- */

static void test_wait_idle(void) {
    rk_store *s;
    uint64_t n = 99;
    int64_t timeout_ms = RK_T_MS(10000);
    TEST("rk_store_wait_idle");
    s = CREATE("counter", "{\"initial_state\":{\"count\":42}}"); /* live clock */
    CHECK_OK(rk_store_wait_idle(s, 0)); /* nothing running */
    CHECK_OK(rk_store_wait_idle(s, -1));
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK_OK(rk_store_wait_idle(s, timeout_ms));
    CHECK_OK(rk_store_effect_count(s, &n));
    CHECK(n == 0);
    CHECK(rk_t_version(s) == 2);
    CHECK_STATE_JSON(s, "{\"count\":42,\"fact\":\"42 is the answer to the ultimate question.\","
                        "\"isTimerOn\":false}");
    /* A timer on the live clock keeps the store busy: a short wait times out. */
    CHECK_OK(rk_store_send(s, "\"toggleTimer\""));
    CHECK_STATUS(rk_store_wait_idle(s, 20), RK_ERR_TIMEOUT);
    CHECK(strlen(rk_last_error()) > 0);
    CHECK_OK(rk_store_effect_count(s, &n));
    CHECK(n >= 1);
    CHECK_OK(rk_store_send(s, "\"toggleTimer\""));
    CHECK_OK(rk_store_wait_idle(s, timeout_ms));
    CHECK_OK(rk_store_effect_count(s, &n));
    CHECK(n == 0);
    rk_store_destroy(s);

    /* On the test clock a sleeping timer does not keep it busy. */
    s = CREATE("counter", TEST_CLOCK);
    CHECK_OK(rk_store_send(s, "\"toggleTimer\""));
    CHECK_OK(rk_store_wait_idle(s, timeout_ms));
    CHECK_OK(rk_store_effect_count(s, &n));
    CHECK(n == 1); /* sleeping effects are counted */
    rk_store_destroy(s); /* destroying cancels the sleeping timer */
}

static void test_advance_clock(void) {
    rk_store *s;
    rk_store *live;
    uint64_t n = 99;
    TEST("rk_store_advance_clock / rk_store_effect_count");
    s = CREATE("counter", TEST_CLOCK);
    live = CREATE("counter", NULL);
    CHECK_OK(rk_store_advance_clock(s, 0)); /* nothing sleeps: fine */
    CHECK_OK(rk_store_advance_clock(s, 5000));
    CHECK(rk_t_version(s) == 0);
    CHECK_OK(rk_store_effect_count(s, &n));
    CHECK(n == 0);
    CHECK_OK(rk_store_send(s, "\"toggleTimer\""));
    CHECK_OK(rk_store_effect_count(s, &n));
    CHECK(n == 1);
    CHECK_OK(rk_store_advance_clock(s, 999));
    CHECK(rk_t_version(s) == 1);
    CHECK_OK(rk_store_advance_clock(s, 1));
    CHECK(rk_t_version(s) == 2);
    CHECK_STATE_JSON(s, "{\"count\":1,\"isTimerOn\":true}");
    CHECK_OK(rk_store_advance_clock(s, 2500));
    CHECK(rk_t_version(s) == 4);
    CHECK_STATUS(rk_store_advance_clock(s, -1), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "-1");
    CHECK_OK(rk_store_send(s, "\"toggleTimer\""));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(10000)));
    CHECK_OK(rk_store_effect_count(s, &n));
    CHECK(n == 0);
    CHECK_OK(rk_store_advance_clock(s, 10000));
    CHECK(rk_t_version(s) == 5);
    CHECK_STATE_JSON(s, "{\"count\":3,\"isTimerOn\":false}");
    /* A store on the live clock cannot be advanced. */
    CHECK_STATUS(rk_store_advance_clock(live, 1000), RK_ERR_MISUSE);
    CHECK_CONTAINS(rk_last_error(), "live");
    CHECK(rk_t_version(live) == 0);
    rk_store_destroy(live);
    rk_store_destroy(s);
}

static void test_take_actions(void) {
    rk_store *s;
    rk_store *plain;
    char *json = NULL;
    size_t len = 0;
    jm_value *log;
    char err[160];
    size_t i;
    TEST("rk_store_take_actions");
    s = CREATE("counter", RECORDING);
    plain = CREATE("counter", TEST_CLOCK);
    CHECK_OK(rk_store_take_actions(s, &json, &len));
    CHECK_STR_EQ(json, "[]");
    CHECK(len == 2);
    rk_free(json);
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(10000)));
    CHECK_OK(rk_store_send(s, "{\"setCount\":3}"));
    json = NULL;
    CHECK_OK(rk_store_take_actions(s, &json, &len));
    CHECK(json != NULL && len == strlen(json));
    log = jm_parse(json, len, err, sizeof err);
    CHECK_MSG(log != NULL && log->type == JM_ARRAY && log->count == 4, "log %s (%s)", json,
              err);
    if (log != NULL && log->type == JM_ARRAY && log->count == 4) {
        static const char *const actions[] = {
            "\"increment\"", "\"factButtonTapped\"",
            "{\"factResponse\":\"1 is the multiplicative identity.\"}", "{\"setCount\":3}"};
        static const char *const origins[] = {"host", "host", "effect", "host"};
        static const char *const states[] = {
            "{\"count\":1,\"isTimerOn\":false}", "{\"count\":1,\"isTimerOn\":false}",
            "{\"count\":1,\"fact\":\"1 is the multiplicative identity.\",\"isTimerOn\":false}",
            "{\"count\":3,\"fact\":\"1 is the multiplicative identity.\",\"isTimerOn\":false}"};
        for (i = 0; i < 4; i++) {
            const jm_value *rec = jm_at(log, i);
            char *action = jm_dump(jm_get(rec, "action"));
            char *state = jm_dump(jm_get(rec, "state"));
            const jm_value *version = jm_get(rec, "version");
            CHECK_JSON(action, actions[i]);
            CHECK_STR_EQ(jm_str(jm_get(rec, "origin")), origins[i]);
            CHECK(version != NULL && version->type == JM_NUMBER &&
                  version->number == (double)(i + 1));
            CHECK_JSON(state, states[i]);
            free(action);
            free(state);
        }
    }
    jm_free(log);
    rk_free(json);
    /* The log was cleared. */
    json = NULL;
    CHECK_OK(rk_store_take_actions(s, &json, NULL));
    CHECK_STR_EQ(json, "[]");
    rk_free(json);
    /* A store that does not record: misuse. */
    json = NULL;
    CHECK_STATUS(rk_store_take_actions(plain, &json, &len), RK_ERR_MISUSE);
    CHECK(json == NULL);
    CHECK_CONTAINS(rk_last_error(), "record_actions");
    rk_store_destroy(plain);
    rk_store_destroy(s);
}

/* ---- Destroy and callbacks on other threads ----------------------------------------- */

typedef struct slow_cb {
    pthread_mutex_t lock;
    int entered;        /* a callback for an effect's action started */
    int finished;       /* ... and returned */
    int after_destroy;  /* callbacks that started after destroy/unsubscribe returned */
    int gone;           /* destroy/unsubscribe returned */
    int calls;
} slow_cb;

static void slow_callback(void *userdata, const char *state_json, size_t len, uint64_t version) {
    slow_cb *c = (slow_cb *)userdata;
    (void)state_json;
    (void)len;
    pthread_mutex_lock(&c->lock);
    c->calls++;
    if (c->gone) c->after_destroy++;
    if (version >= 2) c->entered = 1; /* the effect's factResponse, on a pool thread */
    pthread_mutex_unlock(&c->lock);
    if (version >= 2) {
        rk_t_sleep_ms(100);
        pthread_mutex_lock(&c->lock);
        c->finished = 1;
        pthread_mutex_unlock(&c->lock);
    }
}

static int slow_flag(slow_cb *c, const int *flag) {
    int v;
    pthread_mutex_lock(&c->lock);
    v = *flag;
    pthread_mutex_unlock(&c->lock);
    return v;
}

/* Waits (bounded) for a callback of an effect's action to be running. */
static int wait_entered(slow_cb *c) {
    double until = rk_t_now_ms() + (double)RK_T_MS(10000);
    while (!slow_flag(c, &c->entered) && rk_t_now_ms() < until) rk_t_sleep_ms(1);
    return slow_flag(c, &c->entered);
}

static void test_destroy_waits_for_callbacks(void) {
    int which;
    TEST("destroy and unsubscribe wait for a callback running on another thread");
    for (which = 0; which < 2; which++) {
        rk_store *s = CREATE("counter", NULL);
        slow_cb c;
        uint64_t token = 0;
        memset(&c, 0, sizeof c);
        pthread_mutex_init(&c.lock, NULL);
        CHECK_OK(rk_store_subscribe(s, slow_callback, &c, &token));
        CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
        CHECK_MSG(wait_entered(&c), "the effect's callback never ran");
        if (which == 0) {
            rk_store_destroy(s);
        } else {
            CHECK_OK(rk_store_unsubscribe(s, token));
        }
        CHECK_MSG(slow_flag(&c, &c.finished),
                  "%s returned while its callback was still running on another thread",
                  which == 0 ? "rk_store_destroy" : "rk_store_unsubscribe");
        pthread_mutex_lock(&c.lock);
        c.gone = 1;
        pthread_mutex_unlock(&c.lock);
        if (which == 1) {
            CHECK_OK(rk_store_send(s, "\"increment\""));
            rk_store_destroy(s);
        }
        CHECK(slow_flag(&c, &c.after_destroy) == 0);
        pthread_mutex_destroy(&c.lock);
    }
}

static void test_no_callback_after_destroy(void) {
    int i, rounds = rk_t_under_valgrind() ? 5 : 50;
    slow_cb c;
    rk_store *s;
    uint64_t token;
    TEST("no callback after rk_store_destroy returns");
    memset(&c, 0, sizeof c);
    pthread_mutex_init(&c.lock, NULL);
    /* Effects racing with destroy: their actions must not reach callbacks after it. */
    for (i = 0; i < rounds; i++) {
        recorder r;
        int at_destroy;
        s = CREATE("counter", NULL);
        recorder_init(&r, s);
        CHECK_OK(rk_store_subscribe(s, record_state, &r, &token));
        CHECK_OK(rk_store_send(s, "\"factButtonTapped\""));
        CHECK_OK(rk_store_send(s, "\"toggleTimer\""));
        rk_store_destroy(s);
        pthread_mutex_lock(&r.lock);
        at_destroy = r.calls;
        pthread_mutex_unlock(&r.lock);
        rk_t_sleep_ms(2);
        pthread_mutex_lock(&r.lock);
        CHECK_MSG(r.calls == at_destroy, "round %d: %d callback(s) after destroy", i,
                  r.calls - at_destroy);
        CHECK(r.calls >= 2 && r.bad_len == 0 && r.bad_version == 0);
        pthread_mutex_unlock(&r.lock);
        pthread_mutex_destroy(&r.lock);
    }
    /* A live timer: no tick reaches the callback after destroy. */
    s = CREATE("counter", NULL);
    CHECK_OK(rk_store_subscribe(s, slow_callback, &c, &token));
    CHECK_OK(rk_store_send(s, "\"toggleTimer\""));
    rk_store_destroy(s);
    pthread_mutex_lock(&c.lock);
    c.gone = 1;
    pthread_mutex_unlock(&c.lock);
    rk_t_sleep_ms(1200);
    CHECK(slow_flag(&c, &c.after_destroy) == 0);
    CHECK(slow_flag(&c, &c.calls) == 1);
    pthread_mutex_destroy(&c.lock);
}

int main(int argc, char **argv) {
    rk_t_select(argc, argv);
    rk_t_watchdog(120);
    test_versions();
    test_status_strings();
    test_last_error();
    test_free();
    test_features_list();
    test_create_destroy();
    test_send_state_version();
    test_subscribe();
    test_reentrant_callbacks();
    test_wait_idle();
    test_advance_clock();
    test_take_actions();
    test_destroy_waits_for_callbacks();
    test_no_callback_after_destroy();
    RK_TEST_EXIT();
}
