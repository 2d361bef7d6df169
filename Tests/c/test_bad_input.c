/*
 * test_bad_input.c — bad input never crashes and never changes state.
 *
 * After EACH bad call: the status is the expected one; rk_last_error() is non-empty and says
 * what and where (the checked fragment); out-parameters are untouched; the store's state is
 * byte for byte the one before, its version the same, no subscriber ran, no action was
 * recorded, no effect started; and a following valid action still works.
 */
#include "rk_test.h"
#include "json_mini.h"

#include <stdint.h>

/* A store under test, with what it looked like before the bad call. */
typedef struct target {
    const char *name;
    rk_store *store;
    const char *valid_action; /* an action that must still work after a bad call */
    char *state;              /* state before (rk_free'd) */
    uint64_t version;         /* version before */
    uint64_t effects;         /* effect count before */
    int callbacks;            /* subscriber calls so far */
    uint64_t token;
} target;

static void on_state(void *userdata, const char *json, size_t len, uint64_t version) {
    target *t = (target *)userdata;
    (void)json;
    (void)len;
    (void)version;
    t->callbacks++;
}

/* Records the state, version and effect count as "before", and empties the action log. */
static void snapshot(target *t) {
    char *log = NULL;
    if (rk_store_take_actions(t->store, &log, NULL) == RK_OK) rk_free(log);
    rk_free(t->state);
    t->state = rk_t_state(t->store);
    t->version = rk_t_version(t->store);
    t->effects = 0;
    rk_store_effect_count(t->store, &t->effects);
}

static void open_target(target *t, const char *name, const char *feature, const char *options,
                        const char *valid_action) {
    memset(t, 0, sizeof *t);
    t->name = name;
    t->store = CREATE(feature, options);
    t->valid_action = valid_action;
    CHECK_OK(rk_store_subscribe(t->store, on_state, t, &t->token));
    CHECK_OK(rk_store_send(t->store, valid_action)); /* a non-trivial state to compare */
    snapshot(t);
}

static void close_target(target *t) {
    CHECK_OK(rk_store_unsubscribe(t->store, t->token));
    rk_store_destroy(t->store);
    rk_free(t->state);
    t->state = NULL;
}

/* The checks after a bad call (see the top of the file). `needle` may be NULL. */
static void after_bad(target *t, rk_status got, rk_status expected, const char *needle,
                      const char *expr, const char *file, int line) {
    char message[600];
    char *state;
    char *log = NULL;
    uint64_t version, effects = 99;
    int callbacks = t->callbacks;
    rk_t_report(got == expected, file, line, expr, "[%s] status %d (%s), expected %d (%s)",
                t->name, (int)got, rk_status_string(got), (int)expected,
                rk_status_string(expected));
    snprintf(message, sizeof message, "%s", rk_last_error());
    rk_t_report(strlen(message) > 0, file, line, expr, "[%s] rk_last_error() is empty",
                t->name);
    if (needle != NULL) {
        rk_t_report(strstr(message, needle) != NULL, file, line, expr,
                    "[%s] rk_last_error() \"%s\"\n    does not contain \"%s\"", t->name,
                    message, needle);
    }
    /* Nothing changed. */
    state = rk_t_state_at(t->store, file, line);
    version = rk_t_version_at(t->store, file, line);
    rk_t_report(state != NULL && t->state != NULL && strcmp(state, t->state) == 0, file, line,
                expr, "[%s] the state changed:\n    before %.300s\n    after  %.300s", t->name,
                t->state ? t->state : "(null)", state ? state : "(null)");
    rk_t_report(version == t->version, file, line, expr,
                "[%s] the version changed: %llu -> %llu", t->name,
                (unsigned long long)t->version, (unsigned long long)version);
    rk_free(state);
    rk_store_effect_count(t->store, &effects);
    rk_t_report(effects == t->effects, file, line, expr, "[%s] effects %llu -> %llu", t->name,
                (unsigned long long)t->effects, (unsigned long long)effects);
    rk_t_report(t->callbacks == callbacks, file, line, expr, "[%s] a subscriber ran", t->name);
    if (rk_store_take_actions(t->store, &log, NULL) == RK_OK) {
        rk_t_report(strcmp(log, "[]") == 0, file, line, expr, "[%s] actions were recorded: %.300s",
                    t->name, log);
        rk_free(log);
    }
    /* The store keeps working. */
    rk_t_report(rk_store_send(t->store, t->valid_action) == RK_OK, file, line, expr,
                "[%s] the valid action %s failed after the bad call", t->name, t->valid_action);
    rk_t_report(rk_t_version_at(t->store, file, line) == t->version + 1 &&
                    t->callbacks == callbacks + 1,
                file, line, expr, "[%s] the valid action after the bad call did not count",
                t->name);
    snapshot(t);
}

/* BAD(target, call, expected status, message fragment or NULL) */
#define BAD(t, call, expected, needle) \
    after_bad(&(t), (call), (expected), (needle), #call, __FILE__, __LINE__)

/* A bad action sent both with rk_store_send and rk_store_send_n. */
#define BAD_ACTION(t, json, expected, needle) \
    do { \
        BAD(t, rk_store_send((t).store, (json)), (expected), (needle)); \
        BAD(t, rk_store_send_n((t).store, (json), strlen(json)), (expected), (needle)); \
    } while (0)

static char *nested(int depth, const char *open, const char *middle, const char *close) {
    size_t lo = strlen(open), lm = strlen(middle), lc = strlen(close);
    char *text = (char *)malloc((size_t)depth * (lo + lc) + lm + 1);
    char *p = text;
    int i;
    if (text == NULL) return NULL;
    for (i = 0; i < depth; i++, p += lo) memcpy(p, open, lo);
    memcpy(p, middle, lm);
    p += lm;
    for (i = 0; i < depth; i++, p += lc) memcpy(p, close, lc);
    *p = '\0';
    return text;
}

/* ---- NULL arguments ----------------------------------------------------------------- */

static void test_null_arguments(target *t, target *rec) {
    char *json = (char *)"untouched";
    char *json_before = json;
    size_t len = 777;
    uint64_t value = 777;
    uint64_t token = 777;
    rk_store *out = (rk_store *)&len; /* a sentinel */
    TEST("NULL arguments");

    BAD(*t, rk_features(NULL, &len), RK_ERR_INVALID_ARGUMENT, "out_json");
    CHECK(len == 777);

    BAD(*t, rk_store_create(NULL, NULL, &out), RK_ERR_INVALID_ARGUMENT, "feature");
    CHECK(out == (rk_store *)&len);
    BAD(*t, rk_store_create(NULL, "{\"clock\":\"test\"}", &out), RK_ERR_INVALID_ARGUMENT,
        "feature");
    BAD(*t, rk_store_create("counter", NULL, NULL), RK_ERR_INVALID_ARGUMENT, "out");
    BAD(*t, rk_store_create("counter", "{\"clock\":\"test\"}", NULL), RK_ERR_INVALID_ARGUMENT,
        "out");
    BAD(*t, rk_store_create(NULL, NULL, NULL), RK_ERR_INVALID_ARGUMENT, NULL);
    CHECK(out == (rk_store *)&len);

    BAD(*t, rk_store_send(NULL, "\"increment\""), RK_ERR_INVALID_ARGUMENT, "store");
    BAD(*t, rk_store_send(t->store, NULL), RK_ERR_INVALID_ARGUMENT, "action_json");
    BAD(*t, rk_store_send(NULL, NULL), RK_ERR_INVALID_ARGUMENT, NULL);
    BAD(*t, rk_store_send_n(NULL, "\"increment\"", 11), RK_ERR_INVALID_ARGUMENT, "store");
    BAD(*t, rk_store_send_n(t->store, NULL, 11), RK_ERR_INVALID_ARGUMENT, "action_json");
    BAD(*t, rk_store_send_n(t->store, NULL, 0), RK_ERR_INVALID_ARGUMENT, "action_json");
    /* a length that cannot be a buffer's */
    BAD(*t, rk_store_send_n(t->store, "\"increment\"", SIZE_MAX), RK_ERR_INVALID_ARGUMENT, "len");

    BAD(*t, rk_store_state(NULL, &json, &len), RK_ERR_INVALID_ARGUMENT, "store");
    BAD(*t, rk_store_state(t->store, NULL, &len), RK_ERR_INVALID_ARGUMENT, "out_json");
    BAD(*t, rk_store_state(t->store, NULL, NULL), RK_ERR_INVALID_ARGUMENT, "out_json");
    CHECK(json == json_before && len == 777);

    BAD(*t, rk_store_version(NULL, &value), RK_ERR_INVALID_ARGUMENT, "store");
    BAD(*t, rk_store_version(t->store, NULL), RK_ERR_INVALID_ARGUMENT, "out_version");
    CHECK(value == 777);

    BAD(*t, rk_store_subscribe(NULL, on_state, t, &token), RK_ERR_INVALID_ARGUMENT, "store");
    BAD(*t, rk_store_subscribe(t->store, NULL, t, &token), RK_ERR_INVALID_ARGUMENT, "cb");
    BAD(*t, rk_store_subscribe(t->store, on_state, t, NULL), RK_ERR_INVALID_ARGUMENT,
        "out_token");
    BAD(*t, rk_store_subscribe(t->store, NULL, NULL, NULL), RK_ERR_INVALID_ARGUMENT, NULL);
    CHECK(token == 777);
    /* (after_bad checked that none of those registered a subscriber: one call per action) */

    BAD(*t, rk_store_unsubscribe(NULL, t->token), RK_ERR_INVALID_ARGUMENT, "store");
    BAD(*t, rk_store_wait_idle(NULL, 0), RK_ERR_INVALID_ARGUMENT, "store");
    BAD(*t, rk_store_advance_clock(NULL, 0), RK_ERR_INVALID_ARGUMENT, "store");

    BAD(*rec, rk_store_take_actions(NULL, &json, &len), RK_ERR_INVALID_ARGUMENT, "store");
    BAD(*rec, rk_store_take_actions(rec->store, NULL, &len), RK_ERR_INVALID_ARGUMENT,
        "out_json");
    CHECK(json == json_before && len == 777);

    BAD(*t, rk_store_scenario(NULL, &json, &len), RK_ERR_INVALID_ARGUMENT, "store");
    BAD(*t, rk_store_scenario(t->store, NULL, &len), RK_ERR_INVALID_ARGUMENT, "out_json");
    CHECK(json == json_before && len == 777);

    BAD(*t, rk_store_effect_count(NULL, &value), RK_ERR_INVALID_ARGUMENT, "store");
    BAD(*t, rk_store_effect_count(t->store, NULL), RK_ERR_INVALID_ARGUMENT, "out_count");
    CHECK(value == 777);

    /* NULLs that are allowed: destroy(NULL), rk_free(NULL), options NULL, out_len NULL. */
    rk_store_destroy(NULL);
    rk_free(NULL);
    snapshot(t);
    CHECK_STATE(t->store, t->state);
}

/* ---- Malformed JSON and invalid UTF-8 ----------------------------------------------- */

static void test_malformed_json(target *t) {
    static const char *const syntax[] = {
        "",  " ",  "\n\t ",  "{",   "}",  "[",  "\"increment",  "increment",  "INCREMENT",
        "{\"setCount\": }",  "{\"setCount\" 1}",  "{\"setCount\":1,}",  "{setCount:1}",
        "[1,]",  "nul",  "tru",  "\"increment\" x",  "\"increment\"\"decrement\"",  "01",
        "{\"setCount\":01}",  "{\"setCount\":-}",  "{\"setCount\":1.}",  "{\"setCount\":.5}",
        "{\"setCount\":1e}",  "{\"setCount\":+1}",  "{\"setCount\":NaN}",
        "{\"setCount\":Infinity}",  "'increment'",  "/* c */ \"increment\"",
        "\"increment\" // c",  "\"a\x01\"",  "\"tab\there\"",  "\"\\x41\"",  "\"\\u12\"",
        "\"\\ud800\"",  "\"\\udc00\"",  "\"\\ud800\\u0041\"",  "{\"factResponse\":\"\\ud83d\"}",
        "{\"a\":1 \"b\":2}",  "[\"increment\"]]",  "{\"setCount\":1}}"};
    size_t i;
    TEST("malformed JSON");
    for (i = 0; i < sizeof syntax / sizeof syntax[0]; i++) {
        BAD_ACTION(*t, syntax[i], RK_ERR_JSON, "byte offset");
    }
    /* where: the path of the value being parsed and the offset */
    BAD(*t, rk_store_send(t->store, "{\"setCount\": }"), RK_ERR_JSON, "at $.setCount");
    BAD(*t, rk_store_send(t->store, "{\"setCount\": }"), RK_ERR_JSON, "byte offset 13");
    BAD(*t, rk_store_send(t->store, "[1,]"), RK_ERR_JSON, "$[1]");
    /* bytes after the NUL are not read by rk_store_send; send_n sees the NUL */
    BAD(*t, rk_store_send_n(t->store, "\"incr\0ement\"", 12), RK_ERR_JSON, "U+0000");
    BAD(*t, rk_store_send_n(t->store, "\"increment\"\0", 12), RK_ERR_JSON, "byte offset 11");
    BAD(*t, rk_store_send_n(t->store, "\"increment\"", 0), RK_ERR_JSON, "end of input");
    BAD(*t, rk_store_send_n(t->store, "\"increment\"", 5), RK_ERR_JSON, "byte offset");
}

static void test_invalid_utf8(target *t) {
    static const char *const utf8[] = {
        "\"\xff\"",  "\"\xfe\"",  "\"\x80\"",  "\"\xc0\xaf\"",  "\"\xc1\xbf\"",
        "\"\xe0\x80\xaf\"",  "\"\xed\xa0\x80\"",  "\"\xed\xbf\xbf\"",  "\"\xe2\x82\"",
        "\"\xe2\x82\xac\xac\"",  "\"\xf0\x82\x82\xac\"",  "\"\xf4\x90\x80\x80\"",
        "\"\xf8\x88\x80\x80\x80\"",  "\"\xc3\"",  "\xff",  "\xef\xbb",
        "{\"factResponse\":\"ok\xfe\"}",  "{\"set\377Count\":1}",
        "{\"factResponse\":\"caf\xc3\"}"};
    size_t i;
    TEST("invalid UTF-8");
    for (i = 0; i < sizeof utf8 / sizeof utf8[0]; i++) {
        BAD_ACTION(*t, utf8[i], RK_ERR_JSON, "UTF-8");
    }
    BAD(*t, rk_store_send(t->store, "\"\xff\""), RK_ERR_JSON, "byte offset 1");
    BAD(*t, rk_store_send(t->store, "{\"factResponse\":\"ok\xfe\"}"), RK_ERR_JSON,
        "$.factResponse");
}

/* ---- Not an action ------------------------------------------------------------------ */

static void test_unknown_actions(target *counter, target *todos, target *search) {
    TEST("unknown actions");
    BAD_ACTION(*counter, "\"incremnt\"", RK_ERR_ACTION,
               "unknown action \"incremnt\" at $ (did you mean \"increment\"?); expected one of:");
    /* the expected actions in the wire form a host types */
    BAD(*counter, rk_store_send(counter->store, "\"incremnt\""), RK_ERR_ACTION,
        "\"increment\", \"decrement\", {\"setCount\": <int>}");
    BAD_ACTION(*counter, "\"Increment\"", RK_ERR_ACTION, "unknown action \"Increment\" at $");
    BAD_ACTION(*counter, "\"\"", RK_ERR_ACTION, "at $");
    BAD_ACTION(*counter, "{\"incremnt\":{}}", RK_ERR_ACTION, "\"incremnt\"");
    BAD_ACTION(*counter, "{\"addTodo\":{\"title\":\"x\"}}", RK_ERR_ACTION, "\"addTodo\"");
    BAD_ACTION(*todos, "\"increment\"", RK_ERR_ACTION, "unknown action \"increment\" at $");
    BAD_ACTION(*search, "\"search\"", RK_ERR_ACTION, "unknown action \"search\" at $");
    /* JSON that is no action at all */
    BAD_ACTION(*counter, "5", RK_ERR_ACTION, "at $");
    BAD_ACTION(*counter, "null", RK_ERR_ACTION, "at $");
    BAD_ACTION(*counter, "true", RK_ERR_ACTION, "at $");
    BAD_ACTION(*counter, "[]", RK_ERR_ACTION, "at $");
    BAD_ACTION(*counter, "[\"increment\"]", RK_ERR_ACTION, "at $");
    BAD_ACTION(*counter, "{}", RK_ERR_ACTION, "at $");
    BAD_ACTION(*counter, "{\"increment\":{},\"decrement\":{}}", RK_ERR_ACTION, "at $");
    BAD_ACTION(*counter, "{\"setCount\":5,\"setCount\":6}", RK_ERR_JSON,
               "duplicate key \"setCount\" at $.setCount");
    /* keys beside the action, and unknown payload keys, are errors, not dropped */
    BAD_ACTION(*counter, "{\"increment\":{},\"x\":1}", RK_ERR_ACTION,
               "unknown key \"x\" at $.x beside action \"increment\"");
    BAD_ACTION(*todos, "{\"addTodo\":{\"title\":\"a\",\"titel\":\"b\"}}", RK_ERR_ACTION,
               "unknown key \"titel\" at $.addTodo.titel (did you mean \"title\"?); "
               "expected keys at $.addTodo: \"title\"");
    BAD_ACTION(*todos, "{\"addTodo\":{\"title\":\"a\",\"title\":\"b\"}}", RK_ERR_JSON,
               "duplicate key \"title\" at $.addTodo.title");
}

static void test_wrong_payload_types(target *counter, target *todos, target *search) {
    TEST("wrong payload types");
    BAD_ACTION(*counter, "{\"setCount\":\"x\"}", RK_ERR_ACTION, "$.setCount");
    BAD_ACTION(*counter, "{\"setCount\":1.5}", RK_ERR_ACTION, "$.setCount");
    BAD_ACTION(*counter, "{\"setCount\":true}", RK_ERR_ACTION, "$.setCount");
    BAD_ACTION(*counter, "{\"setCount\":[1]}", RK_ERR_ACTION, "$.setCount");
    BAD_ACTION(*counter, "{\"setCount\":{}}", RK_ERR_ACTION, "$.setCount");
    BAD_ACTION(*counter, "{\"setCount\":9223372036854775808}", RK_ERR_ACTION, "$.setCount");
    BAD_ACTION(*counter, "{\"setCount\":-9223372036854775809}", RK_ERR_ACTION, "$.setCount");
    BAD_ACTION(*counter, "{\"setCount\":1e300}", RK_ERR_ACTION, "$.setCount");
    BAD_ACTION(*counter, "{\"setCount\":null}", RK_ERR_ACTION, "$.setCount");
    {
        /* The wire format never shows Swift's synthesized "_0" keys, errors included. */
        rk_status st = rk_store_send(counter->store, "{\"setCount\":null}");
        CHECK(st == RK_ERR_ACTION);
        CHECK(strstr(rk_last_error(), "_0") == NULL);
    }
    BAD_ACTION(*counter, "{\"setCount\":}", RK_ERR_JSON, "$.setCount");
    BAD_ACTION(*counter, "{\"increment\":5}", RK_ERR_ACTION, "$.increment");
    BAD_ACTION(*counter, "{\"increment\":[]}", RK_ERR_ACTION, "$.increment");
    BAD_ACTION(*counter, "{\"toggleTimer\":\"on\"}", RK_ERR_ACTION, "$.toggleTimer");
    BAD_ACTION(*counter, "{\"factResponse\":5}", RK_ERR_ACTION, "$.factResponse");
    BAD_ACTION(*counter, "\"setCount\"", RK_ERR_ACTION, "setCount");
    BAD_ACTION(*counter, "\"factResponse\"", RK_ERR_ACTION, "factResponse");
    BAD_ACTION(*todos, "{\"addTodo\":{\"title\":5}}", RK_ERR_ACTION, "$.addTodo.title");
    BAD_ACTION(*todos, "{\"addTodo\":{\"title\":null}}", RK_ERR_ACTION, "$.addTodo.title");
    BAD_ACTION(*todos, "{\"addTodo\":{}}", RK_ERR_ACTION, "$.addTodo");
    BAD(*todos, rk_store_send(todos->store, "{\"addTodo\":{}}"), RK_ERR_ACTION, "title");
    BAD_ACTION(*todos, "{\"addTodo\":\"Milk\"}", RK_ERR_ACTION, "$.addTodo");
    BAD_ACTION(*todos, "{\"addTodo\":[\"Milk\"]}", RK_ERR_ACTION, "$.addTodo");
    BAD_ACTION(*todos, "\"addTodo\"", RK_ERR_ACTION, "addTodo");
    BAD_ACTION(*todos, "{\"toggle\":{\"id\":\"1\"}}", RK_ERR_ACTION, "$.toggle.id");
    BAD_ACTION(*todos, "{\"toggle\":{\"id\":1.5}}", RK_ERR_ACTION, "$.toggle.id");
    BAD_ACTION(*todos, "{\"toggle\":{}}", RK_ERR_ACTION, "$.toggle");
    BAD_ACTION(*todos, "{\"delete\":5}", RK_ERR_ACTION, "$.delete");
    BAD_ACTION(*todos, "{\"delete\":{\"id\":[1]}}", RK_ERR_ACTION, "$.delete.id");
    BAD_ACTION(*todos, "{\"setFilter\":\"bogus\"}", RK_ERR_ACTION, "$.setFilter");
    BAD(*todos, rk_store_send(todos->store, "{\"setFilter\":\"bogus\"}"), RK_ERR_ACTION,
        "\"all\", \"active\", \"completed\"");
    BAD_ACTION(*todos, "{\"setFilter\":\"All\"}", RK_ERR_ACTION, "$.setFilter");
    BAD_ACTION(*todos, "{\"setFilter\":1}", RK_ERR_ACTION, "$.setFilter");
    BAD_ACTION(*todos, "{\"clearCompleted\":1}", RK_ERR_ACTION, "$.clearCompleted");
    BAD_ACTION(*search, "{\"queryChanged\":5}", RK_ERR_ACTION, "$.queryChanged");
    BAD_ACTION(*search, "{\"queryChanged\":[\"sw\"]}", RK_ERR_ACTION, "$.queryChanged");
    BAD_ACTION(*search, "{\"searchResponse\":\"swift\"}", RK_ERR_ACTION, "$.searchResponse");
    BAD_ACTION(*search, "{\"searchResponse\":[\"a\",2]}", RK_ERR_ACTION, "$.searchResponse[1]");
    BAD_ACTION(*search, "{\"searchResponse\":[null]}", RK_ERR_ACTION, "$.searchResponse[0]");
}

/* ---- Features, initial state, options --------------------------------------------- */

/* A create that must fail with `expected`: *out untouched, the message has `needle` (and
 * the target store is untouched). */
#define BAD_CREATE(t, feature, options, expected, needle) \
    do { \
        rk_store *out_ = (rk_store *)&(t); \
        BAD(t, rk_store_create((feature), (options), &out_), (expected), (needle)); \
        CHECK_MSG(out_ == (rk_store *)&(t), "create(%s, %s) wrote *out on failure", #feature, \
                  #options); \
    } while (0)

static void test_unknown_features(target *t) {
    TEST("unknown features");
    BAD_CREATE(*t, "nope", NULL, RK_ERR_UNKNOWN_FEATURE, "\"nope\"");
    BAD_CREATE(*t, "nope", NULL, RK_ERR_UNKNOWN_FEATURE, "counter");
    BAD_CREATE(*t, "nope", NULL, RK_ERR_UNKNOWN_FEATURE, "todos");
    BAD_CREATE(*t, "nope", NULL, RK_ERR_UNKNOWN_FEATURE, "search");
    BAD_CREATE(*t, "", NULL, RK_ERR_UNKNOWN_FEATURE, "\"counter\", \"todos\", \"search\"");
    BAD_CREATE(*t, "countr", NULL, RK_ERR_UNKNOWN_FEATURE, "(did you mean \"counter\"?)");
    BAD_CREATE(*t, "Counter", NULL, RK_ERR_UNKNOWN_FEATURE, "\"Counter\"");
    BAD_CREATE(*t, "counter ", NULL, RK_ERR_UNKNOWN_FEATURE, "expected one of");
    BAD_CREATE(*t, "\xff\xfe", NULL, RK_ERR_UNKNOWN_FEATURE, "expected one of");
    /* the feature is checked whatever the options */
    BAD_CREATE(*t, "nope", "{\"clock\":\"test\"}", RK_ERR_UNKNOWN_FEATURE, "\"nope\"");
}

static void test_bad_initial_states(target *t) {
    TEST("bad initial states");
    BAD_CREATE(*t, "counter", "{\"initial_state\":{\"count\":\"x\"}}", RK_ERR_STATE, "$.count");
    BAD_CREATE(*t, "counter", "{\"initial_state\":{\"count\":1.5}}", RK_ERR_STATE, "$.count");
    BAD_CREATE(*t, "counter", "{\"initial_state\":{\"count\":null}}", RK_ERR_STATE, "$.count");
    BAD_CREATE(*t, "counter", "{\"initial_state\":{\"count\":99999999999999999999}}",
               RK_ERR_STATE, "$.count");
    BAD_CREATE(*t, "counter", "{\"initial_state\":{\"fact\":5}}", RK_ERR_STATE, "$.fact");
    BAD_CREATE(*t, "counter", "{\"initial_state\":{\"isTimerOn\":\"yes\"}}", RK_ERR_STATE,
               "$.isTimerOn");
    BAD_CREATE(*t, "counter", "{\"initial_state\":{\"isTimerOn\":1}}", RK_ERR_STATE,
               "$.isTimerOn");
    BAD_CREATE(*t, "counter", "{\"initial_state\":5}", RK_ERR_STATE, "$.initial_state");
    BAD_CREATE(*t, "counter", "{\"initial_state\":[]}", RK_ERR_STATE, "$.initial_state");
    BAD_CREATE(*t, "counter", "{\"initial_state\":\"x\"}", RK_ERR_STATE, "$.initial_state");
    BAD_CREATE(*t, "todos", "{\"initial_state\":{\"todos\":[{\"id\":1,\"title\":\"a\","
                            "\"isComplete\":false},{\"id\":2,\"title\":5,\"isComplete\":false}]}}",
               RK_ERR_STATE, "$.todos[1].title");
    BAD_CREATE(*t, "todos", "{\"initial_state\":{\"todos\":[{\"id\":1}]}}", RK_ERR_STATE,
               "$.todos[0]");
    BAD_CREATE(*t, "todos", "{\"initial_state\":{\"todos\":[{\"id\":\"1\",\"title\":\"a\","
                            "\"isComplete\":false}]}}",
               RK_ERR_STATE, "$.todos[0].id");
    BAD_CREATE(*t, "todos", "{\"initial_state\":{\"todos\":{}}}", RK_ERR_STATE, "$.todos");
    BAD_CREATE(*t, "todos", "{\"initial_state\":{\"filter\":\"x\"}}", RK_ERR_STATE, "$.filter");
    BAD_CREATE(*t, "todos", "{\"initial_state\":{\"nextID\":\"2\"}}", RK_ERR_STATE, "$.nextID");
    BAD_CREATE(*t, "search", "{\"initial_state\":{\"results\":[\"a\",1]}}", RK_ERR_STATE,
               "$.results[1]");
    BAD_CREATE(*t, "search", "{\"initial_state\":{\"query\":false}}", RK_ERR_STATE, "$.query");
    /* unknown keys at any depth, and duplicate keys, are errors */
    BAD_CREATE(*t, "counter", "{\"initial_state\":{\"cnt\":3}}", RK_ERR_STATE,
               "unknown key \"cnt\" at $.cnt (did you mean \"count\"?)");
    BAD_CREATE(*t, "todos", "{\"initial_state\":{\"todos\":[{\"id\":1,\"title\":\"a\","
                            "\"isComplete\":false,\"done\":true}]}}",
               RK_ERR_STATE, "unknown key \"done\" at $.todos[0].done");
    BAD_CREATE(*t, "counter", "{\"initial_state\":{\"count\":1,\"count\":2}}", RK_ERR_JSON,
               "duplicate key \"count\" at $.initial_state.count");
    BAD_CREATE(*t, "counter", "{\"clock\":\"test\",\"clock\":\"live\"}", RK_ERR_JSON,
               "duplicate key \"clock\" at $.clock");
    /* the message says it is about initial_state */
    BAD_CREATE(*t, "counter", "{\"initial_state\":{\"count\":\"x\"}}", RK_ERR_STATE,
               "initial_state");
}

static void test_bad_options(target *t) {
    TEST("bad options");
    BAD_CREATE(*t, "counter", "{\"bogus\":1}", RK_ERR_INVALID_ARGUMENT, "\"bogus\"");
    BAD_CREATE(*t, "counter", "{\"bogus\":1}", RK_ERR_INVALID_ARGUMENT,
               "initial_state, clock, record_actions");
    BAD_CREATE(*t, "counter", "{\"clock\":\"test\",\"Clock\":\"test\"}", RK_ERR_INVALID_ARGUMENT,
               "\"Clock\"");
    BAD_CREATE(*t, "counter", "{\"initialState\":{}}", RK_ERR_INVALID_ARGUMENT,
               "\"initialState\"");
    BAD_CREATE(*t, "counter", "{\"clock\":\"fast\"}", RK_ERR_INVALID_ARGUMENT, "$.clock");
    BAD_CREATE(*t, "counter", "{\"clock\":\"TEST\"}", RK_ERR_INVALID_ARGUMENT,
               "expected \"live\" or \"test\" at $.clock, found the string \"TEST\"");
    BAD_CREATE(*t, "counter", "{\"clock\":\"Test\"}", RK_ERR_INVALID_ARGUMENT, "$.clock");
    BAD_CREATE(*t, "counter", "{\"clock\":5}", RK_ERR_INVALID_ARGUMENT, "$.clock");
    BAD_CREATE(*t, "counter", "{\"record\":1}", RK_ERR_INVALID_ARGUMENT,
               "expected true or false at $.record, found a number");
    BAD_CREATE(*t, "counter", "{\"record\":\"yes\"}", RK_ERR_INVALID_ARGUMENT, "$.record");
    BAD_CREATE(*t, "counter", "{\"clock\":null}", RK_ERR_INVALID_ARGUMENT, "$.clock");
    BAD_CREATE(*t, "counter", "{\"record_actions\":\"yes\"}", RK_ERR_INVALID_ARGUMENT,
               "$.record_actions");
    BAD_CREATE(*t, "counter", "{\"record_actions\":1}", RK_ERR_INVALID_ARGUMENT,
               "$.record_actions");
    BAD_CREATE(*t, "counter", "[]", RK_ERR_INVALID_ARGUMENT, "options_json");
    BAD_CREATE(*t, "counter", "5", RK_ERR_INVALID_ARGUMENT, "options_json");
    BAD_CREATE(*t, "counter", "null", RK_ERR_INVALID_ARGUMENT, "options_json");
    BAD_CREATE(*t, "counter", "\"test\"", RK_ERR_INVALID_ARGUMENT, "options_json");
    BAD_CREATE(*t, "counter", "{", RK_ERR_JSON, "byte offset");
    BAD_CREATE(*t, "counter", "", RK_ERR_JSON, "options_json");
    BAD_CREATE(*t, "counter", "{\"clock\":\"test\",}", RK_ERR_JSON, "byte offset");
    BAD_CREATE(*t, "counter", "{\"clock\":\"te\xffst\"}", RK_ERR_JSON, "UTF-8");
    BAD_CREATE(*t, "counter", "{\"initial_state\":{\"count\":1}", RK_ERR_JSON, "byte offset");
}

/* ---- Handles ------------------------------------------------------------------------ */

static void check_dead_handle(target *t, rk_store *dead, const char *what) {
    char *json = (char *)"untouched";
    char *json_before = json;
    size_t len = 5;
    uint64_t value = 5, token = 5;
    TEST(what);
    BAD(*t, rk_store_send(dead, "\"increment\""), RK_ERR_INVALID_HANDLE, "destroyed or never created");
    BAD(*t, rk_store_send_n(dead, "\"increment\"", 11), RK_ERR_INVALID_HANDLE, "store");
    BAD(*t, rk_store_state(dead, &json, &len), RK_ERR_INVALID_HANDLE, "store");
    BAD(*t, rk_store_version(dead, &value), RK_ERR_INVALID_HANDLE, "store");
    BAD(*t, rk_store_subscribe(dead, on_state, t, &token), RK_ERR_INVALID_HANDLE, "store");
    BAD(*t, rk_store_unsubscribe(dead, 1), RK_ERR_INVALID_HANDLE, "store");
    BAD(*t, rk_store_wait_idle(dead, 0), RK_ERR_INVALID_HANDLE, "store");
    BAD(*t, rk_store_advance_clock(dead, 10), RK_ERR_INVALID_HANDLE, "store");
    BAD(*t, rk_store_take_actions(dead, &json, &len), RK_ERR_INVALID_HANDLE, "store");
    BAD(*t, rk_store_effect_count(dead, &value), RK_ERR_INVALID_HANDLE, "store");
    BAD(*t, rk_store_scenario(dead, &json, &len), RK_ERR_INVALID_HANDLE, "store");
    /* checked before the other arguments: a dead store with a NULL out is still dead */
    BAD(*t, rk_store_state(dead, NULL, NULL), RK_ERR_INVALID_HANDLE, "store");
    CHECK(json == json_before && len == 5 && value == 5 && token == 5);
    /* destroying it is ignored, with a message */
    rk_store_send(NULL, "\"increment\""); /* a different last error first */
    rk_store_destroy(dead);
    CHECK_CONTAINS(rk_last_error(), "rk_store_destroy");
    CHECK_CONTAINS(rk_last_error(), "destroyed or never created");
    snapshot(t);
    CHECK_OK(rk_store_send(t->store, t->valid_action));
    snapshot(t);
}

static void test_handles(target *t) {
    rk_store *dead = NULL;
    int local = 0;
    uint64_t token = 0;
    /* A destroyed store, with a subscription, a running timer and recorded actions. */
    CHECK_OK(rk_store_create("counter", "{\"clock\":\"test\",\"record_actions\":true}", &dead));
    CHECK_OK(rk_store_subscribe(dead, on_state, t, &token));
    CHECK_OK(rk_store_send(dead, "\"toggleTimer\""));
    rk_store_destroy(dead);
    check_dead_handle(t, dead, "a destroyed store");
    check_dead_handle(t, dead, "a destroyed store, destroyed twice");
    check_dead_handle(t, (rk_store *)(uintptr_t)0x1234, "a never-created handle (0x1234)");
    check_dead_handle(t, (rk_store *)(void *)&local, "a never-created handle (a stack address)");
    check_dead_handle(t, (rk_store *)(uintptr_t)UINTPTR_MAX, "a never-created handle (all ones)");
    /* A live store is not disturbed by all of that. */
    rk_store_destroy(NULL);
    CHECK(t->callbacks > 0);
}

/* ---- Big and deep input ------------------------------------------------------------- */

static void test_big(target *t) {
    size_t n = 10u * 1024u * 1024u;
    char *big;
    char *state = NULL;
    size_t len = 0;
    size_t i;
    uint32_t x = 12345;
    TEST("10 MB strings");
    big = (char *)malloc(n + 64);
    if (big == NULL) {
        CHECK(big != NULL);
        return;
    }
    /* A 10 MB string payload is valid: it is taken, and read back whole. */
    memcpy(big, "{\"factResponse\":\"", 17);
    memset(big + 17, 'a', n);
    memcpy(big + 17 + n, "\"}", 3);
    CHECK_OK(rk_store_send(t->store, big));
    CHECK(rk_t_version(t->store) == t->version + 1);
    CHECK_OK(rk_store_state(t->store, &state, &len));
    CHECK(state != NULL && len == strlen(state) && len > n);
    CHECK(state != NULL && strstr(state, "\"fact\":\"aaaaaaaa") != NULL);
    rk_free(state);
    snapshot(t);

    /* 10 MB garbage in many shapes: nothing changes (the 10 MB fact stays). */
    big[17 + n] = '\0'; /* unterminated string */
    BAD(*t, rk_store_send(t->store, big), RK_ERR_JSON, "not terminated");
    big[17 + n - 1] = '\xff'; /* invalid UTF-8 at the end of 10 MB */
    big[17 + n] = '"';
    big[17 + n + 1] = '}';
    big[17 + n + 2] = '\0';
    BAD(*t, rk_store_send(t->store, big), RK_ERR_JSON, "UTF-8");
    memset(big, 'x', n); /* 10 MB of letters */
    big[n] = '\0';
    BAD(*t, rk_store_send(t->store, big), RK_ERR_JSON, "byte offset 0");
    big[0] = '"'; /* a 10 MB unknown action name */
    big[n - 1] = '"';
    BAD(*t, rk_store_send(t->store, big), RK_ERR_ACTION, "unknown action");
    CHECK_MSG(strlen(rk_last_error()) < 4096, "a %lu-byte error message",
              (unsigned long)strlen(rk_last_error()));
    CHECK_CONTAINS(rk_last_error(), "\xe2\x80\xa6(10485758 bytes)");
    /* a 10 MB feature name with newlines and control characters: quoted bounded, escaped */
    memset(big, 'f', n);
    big[1] = '\n';
    big[2] = '\x01';
    big[n - 1] = '\0';
    {
        rk_store *out = NULL;
        const char *message;
        BAD(*t, rk_store_create(big, NULL, &out), RK_ERR_UNKNOWN_FEATURE, "unknown feature \"f\\n\\u0001fff");
        message = rk_last_error();
        CHECK_MSG(strlen(message) < 512, "a %lu-byte error message", (unsigned long)strlen(message));
        CHECK(strchr(message, '\n') == NULL && strchr(message, '\x01') == NULL);
        CHECK_CONTAINS(message, "\xe2\x80\xa6(10485759 bytes); expected one of:");
        CHECK(out == NULL);
    }
    big[0] = '"';
    memset(big + 1, 'x', n - 2);
    big[n - 1] = '"';
    for (i = 0; i < n; i++) { /* 10 MB of pseudo-random bytes, NULs included */
        x = x * 1103515245u + 12345u;
        big[i] = (char)(x >> 24);
    }
    big[0] = '{';
    BAD(*t, rk_store_send_n(t->store, big, n), RK_ERR_JSON, "byte offset");
    memset(big, '[', n); /* 10 MB of open brackets */
    BAD(*t, rk_store_send_n(t->store, big, n), RK_ERR_JSON, "deeper than 512");
    memset(big, ' ', n); /* 10 MB of blanks */
    BAD(*t, rk_store_send_n(t->store, big, n), RK_ERR_JSON, "end of input");
    /* ... and a 10 MB string that is fine everywhere but as a number */
    memcpy(big, "{\"setCount\":\"", 13);
    memset(big + 13, '7', n - 20);
    memcpy(big + 13 + n - 20, "\"}", 3);
    BAD(*t, rk_store_send(t->store, big), RK_ERR_ACTION, "$.setCount");
    free(big);
    /* Back to a small state for the other tests. */
    CHECK_OK(rk_store_send(t->store, "\"factButtonTapped\""));
    CHECK_OK(rk_store_wait_idle(t->store, RK_T_MS(10000)));
    snapshot(t);
    CHECK(strlen(t->state) < 200);
}

static void test_deep(target *t, target *todos) {
    char *text, *wrapped;
    size_t cap;
    int depths[] = {513, 1000, 10000};
    size_t i;
    rk_store *out = NULL;
    TEST("10,000-deep nesting");
    for (i = 0; i < sizeof depths / sizeof depths[0]; i++) {
        text = nested(depths[i], "[", "", "]");
        BAD(*t, rk_store_send(t->store, text), RK_ERR_JSON, "deeper than 512");
        cap = strlen(text) + 64;
        wrapped = (char *)malloc(cap);
        snprintf(wrapped, cap, "{\"setCount\":%s}", text);
        BAD(*t, rk_store_send(t->store, wrapped), RK_ERR_JSON, "deeper than 512");
        snprintf(wrapped, cap, "{\"initial_state\":{\"count\":%s}}", text);
        BAD(*t, rk_store_create("counter", wrapped, &out), RK_ERR_JSON, "deeper than 512");
        snprintf(wrapped, cap, "{\"bogus\":%s}", text);
        BAD(*t, rk_store_create("counter", wrapped, &out), RK_ERR_JSON, "deeper than 512");
        free(wrapped);
        free(text);
        text = nested(depths[i], "{\"a\":", "1", "}");
        BAD(*t, rk_store_send(t->store, text), RK_ERR_JSON, "deeper than 512");
        BAD(*todos, rk_store_send(todos->store, text), RK_ERR_JSON, "deeper than 512");
        free(text);
        /* unclosed */
        text = nested(depths[i], "[", "", "");
        BAD(*t, rk_store_send(t->store, text), RK_ERR_JSON, "deeper than 512");
        free(text);
        text = nested(depths[i], "{\"a\":[", "", "");
        BAD(*t, rk_store_send(t->store, text), RK_ERR_JSON, "deeper than 512");
        free(text);
    }
    CHECK(out == NULL);
    /* 512 levels are JSON (just not an action): the limit is exactly 512. */
    text = nested(512, "[", "", "]");
    BAD(*t, rk_store_send(t->store, text), RK_ERR_ACTION, "at $");
    free(text);
    text = nested(512, "{\"a\":", "1", "}");
    BAD(*t, rk_store_send(t->store, text), RK_ERR_ACTION, "at $");
    free(text);
    /* 100,000 levels: no stack overflow */
    text = nested(100000, "[", "", "]");
    BAD(*t, rk_store_send(t->store, text), RK_ERR_JSON, "deeper than 512");
    free(text);
}

/* ---- Misuse that is not bad input but must not change state either ---------------- */

static void test_misuse(target *t, target *rec) {
    TEST("misuse: negative clock, live clock, unknown token, not recording");
    BAD(*t, rk_store_advance_clock(t->store, -1), RK_ERR_INVALID_ARGUMENT, "-1");
    BAD(*t, rk_store_advance_clock(t->store, INT64_MIN), RK_ERR_INVALID_ARGUMENT, "milliseconds");
    BAD(*t, rk_store_unsubscribe(t->store, 0), RK_ERR_INVALID_ARGUMENT, "token");
    BAD(*t, rk_store_unsubscribe(t->store, UINT64_MAX), RK_ERR_INVALID_ARGUMENT, "token");
    {
        char *json = NULL;
        BAD(*t, rk_store_take_actions(t->store, &json, NULL), RK_ERR_MISUSE, "record_actions");
        CHECK(json == NULL);
        BAD(*t, rk_store_scenario(t->store, &json, NULL), RK_ERR_MISUSE, "{\"record\": true}");
        CHECK(json == NULL);
    }
    {
        rk_store *live = CREATE("counter", NULL);
        target lt;
        memset(&lt, 0, sizeof lt);
        lt.name = "live counter";
        lt.store = live;
        lt.valid_action = "\"increment\"";
        CHECK_OK(rk_store_subscribe(live, on_state, &lt, &lt.token));
        snapshot(&lt);
        BAD(lt, rk_store_advance_clock(live, 1000), RK_ERR_MISUSE, "live clock");
        BAD(lt, rk_store_advance_clock(live, -1), RK_ERR_MISUSE, "live clock");
        close_target(&lt);
    }
    (void)rec;
}

int main(int argc, char **argv) {
    target counter, recorder, todos, search;
    rk_t_select(argc, argv);
    rk_t_watchdog(300);
    open_target(&counter, "counter", "counter", "{\"clock\":\"test\"}", "\"increment\"");
    open_target(&recorder, "recording counter", "counter",
                "{\"clock\":\"test\",\"record_actions\":true}", "\"increment\"");
    open_target(&todos, "todos", "todos", "{\"record_actions\":true}",
                "{\"addTodo\":{\"title\":\"x\"}}");
    open_target(&search, "search", "search", "{\"clock\":\"test\",\"record_actions\":true}",
                "{\"searchResponse\":[\"x\"]}");
    test_null_arguments(&recorder, &recorder);
    test_malformed_json(&recorder);
    test_invalid_utf8(&recorder);
    test_unknown_actions(&recorder, &todos, &search);
    test_wrong_payload_types(&recorder, &todos, &search);
    test_unknown_features(&counter);
    test_bad_initial_states(&counter);
    test_bad_options(&counter);
    test_handles(&recorder);
    test_big(&recorder);
    test_deep(&recorder, &todos);
    test_misuse(&counter, &recorder);
    close_target(&counter);
    close_target(&recorder);
    close_target(&todos);
    close_target(&search);
    RK_TEST_EXIT();
}
