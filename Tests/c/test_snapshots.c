/*
 * test_snapshots.c — rk_store_snapshot and the "snapshot" create option: round trips for
 * every shipped feature (the state and the version continue), and every refused snapshot
 * (another feature's, a newer state version, not a snapshot, a state the feature cannot
 * decode) with a message that says what and where, and no store made.
 */
#include "rk_test.h"
#include "json_mini.h"

#include <stdlib.h>

/* The snapshot document of `s` (caller frees). */
static char *snapshot_of(rk_store *s) {
    char *json = NULL;
    size_t len = 0;
    CHECK_OK(rk_store_snapshot(s, &json, &len));
    CHECK(json != NULL && strlen(json) == len);
    return json;
}

/* A store of `feature` restored from `snapshot` (must succeed). */
static rk_store *restore(const char *feature, const char *snapshot, const char *extra) {
    size_t size = strlen(snapshot) + (extra ? strlen(extra) : 0) + 32;
    char *options = malloc(size);
    rk_store *s = NULL;
    snprintf(options, size, "{\"snapshot\":%s%s}", snapshot, extra ? extra : "");
    CHECK_OK(rk_store_create(feature, options, &s));
    free(options);
    return s;
}

/* Creating `feature` with options `options` fails with `status` and a message holding each
 * of the NULL-terminated needles. */
static void refused(const char *feature, const char *options, rk_status status, ...) {
    rk_store *s = NULL;
    va_list needles;
    const char *needle;
    CHECK_STATUS(rk_store_create(feature, options, &s), status);
    CHECK(s == NULL);
    va_start(needles, status);
    while ((needle = va_arg(needles, const char *)) != NULL) CHECK_CONTAINS(rk_last_error(), needle);
    va_end(needles);
}

static void round_trip(const char *feature, const char *const *actions, int count) {
    rk_store *s = CREATE(feature, "{\"clock\":\"test\"}");
    rk_store *r;
    char *snapshot, *again, *state, *restored_state;
    jm_value *doc;
    int i;
    for (i = 0; i < count; i++) CHECK_OK(rk_store_send(s, actions[i]));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(10000)));
    snapshot = snapshot_of(s);
    doc = jm_parse_str(snapshot);
    CHECK(doc != NULL);
    if (doc != NULL) {
        CHECK_STR_EQ(jm_str(jm_get(doc, "feature")), feature);
        CHECK(jm_get(doc, "state_version") != NULL && (jm_get(doc, "state_version"))->number == 1);
        CHECK(jm_get(doc, "schema_hash") != NULL && strlen(jm_str(jm_get(doc, "schema_hash"))) == 16);
        CHECK((jm_get(doc, "version"))->number == (double)rk_t_version(s));
        CHECK(jm_get(doc, "state") != NULL);
        jm_free(doc);
    }
    r = restore(feature, snapshot, ",\"clock\":\"test\"");
    CHECK(rk_t_version(r) == rk_t_version(s));
    state = rk_t_state(s);
    restored_state = rk_t_state(r);
    CHECK_STR_EQ(restored_state, state);
    /* The restored store's snapshot is the same document, and it keeps counting. */
    again = snapshot_of(r);
    CHECK_STR_EQ(again, snapshot);
    if (count > 0) {
        uint64_t before = rk_t_version(r);
        CHECK_OK(rk_store_send(r, actions[0]));
        CHECK(rk_t_version(r) == before + 1);
    }
    rk_free(again);
    rk_free(state);
    rk_free(restored_state);
    rk_free(snapshot);
    rk_store_destroy(r);
    rk_store_destroy(s);
}

static void test_round_trips(void) {
    static const char *const counter[] = {"\"increment\"", "{\"setCount\":41}", "\"increment\""};
    static const char *const todos[] = {"{\"addTodo\":{\"title\":\"Caf\\u00e9 \\\"au lait\\\"\"}}",
                                        "{\"addTodo\":{\"title\":\"</script>\"}}",
                                        "{\"setFilter\":\"completed\"}"};
    static const char *const search[] = {"{\"queryChanged\":\"sw\"}"};
    TEST("snapshot round trips: counter, todos, search (state, version, the same document)");
    round_trip("counter", counter, 3);
    round_trip("todos", todos, 3);
    round_trip("search", search, 1);
    round_trip("counter", NULL, 0);
}

static void test_features_list_versions(void) {
    char *json = NULL;
    jm_value *list;
    size_t i;
    TEST("rk_features lists each feature's state_version and schema_hash");
    CHECK_OK(rk_features(&json, NULL));
    list = jm_parse_str(json);
    CHECK(list != NULL && list->type == JM_ARRAY);
    for (i = 0; list != NULL && i < list->count; i++) {
        const jm_value *feature = jm_at(list, i);
        const char *hash = jm_str(jm_get(feature, "schema_hash"));
        size_t k;
        CHECK((jm_get(feature, "state_version"))->number == 1);
        CHECK(hash != NULL && strlen(hash) == 16);
        for (k = 0; hash != NULL && hash[k]; k++) CHECK(strchr("0123456789abcdef", hash[k]) != NULL);
    }
    jm_free(list);
    rk_free(json);
}

static void test_refused(void) {
    rk_store *s;
    char *snapshot;
    char options[512];
    TEST("refused snapshots: another feature's, newer, malformed, undecodable; nothing made");
    s = CREATE("counter", NULL);
    CHECK_OK(rk_store_send(s, "\"increment\""));
    snapshot = snapshot_of(s);
    snprintf(options, sizeof options, "{\"snapshot\":%s}", snapshot);
    refused("todos", options, RK_ERR_STATE, "snapshot of feature \"counter\"", "not of \"todos\"", NULL);
    refused("counter",
            "{\"snapshot\":{\"feature\":\"counter\",\"state_version\":2,\"version\":3,\"state\":{}}}",
            RK_ERR_STATE, "state_version 2", "state_version 1", NULL);
    refused("counter", "{\"snapshot\":[1,2]}", RK_ERR_INVALID_ARGUMENT, "$.snapshot",
            "expected a snapshot object", NULL);
    refused("counter", "{\"snapshot\":{\"feature\":\"counter\",\"state_version\":1,\"version\":0}}",
            RK_ERR_INVALID_ARGUMENT, "no \"state\"", NULL);
    refused("counter",
            "{\"snapshot\":{\"feature\":\"counter\",\"state_version\":1,\"version\":-1,\"state\":{}}}",
            RK_ERR_INVALID_ARGUMENT, "$.snapshot.version", NULL);
    refused("counter",
            "{\"snapshot\":{\"feature\":\"counter\",\"state_version\":0,\"version\":0,\"state\":{}}}",
            RK_ERR_INVALID_ARGUMENT, "state_version", NULL);
    refused("counter",
            "{\"snapshot\":{\"feature\":\"counter\",\"state_version\":1,\"version\":0,\"state\":{},"
            "\"stat\":1}}",
            RK_ERR_INVALID_ARGUMENT, "unknown key \"stat\"", NULL);
    refused("counter",
            "{\"snapshot\":{\"feature\":\"counter\",\"state_version\":1,\"version\":0,"
            "\"state\":{\"count\":\"x\",\"isTimerOn\":false}}}",
            RK_ERR_STATE, "\"/count\"", "not a state of \"counter\"", NULL);
    refused("todos",
            "{\"snapshot\":{\"feature\":\"todos\",\"state_version\":1,\"version\":5,"
            "\"state\":{\"todos\":[{\"id\":1,\"title\":7,\"isComplete\":false}],\"filter\":\"all\","
            "\"nextID\":2}}}",
            RK_ERR_STATE, "\"/todos/0/title\"", NULL);
    snprintf(options, sizeof options, "{\"snapshot\":%s,\"initial_state\":{\"count\":1}}", snapshot);
    refused("counter", options, RK_ERR_INVALID_ARGUMENT, "not both", NULL);
    /* The store the snapshot came from is untouched. */
    CHECK(rk_t_version(s) == 1);
    CHECK_STATUS(rk_store_snapshot(s, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rk_store_snapshot(NULL, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    rk_free(snapshot);
    rk_store_destroy(s);
}

int main(int argc, char **argv) {
    rk_t_select(argc, argv);
    rk_t_watchdog(300);
    test_round_trips();
    test_features_list_versions();
    test_refused();
    RK_TEST_EXIT();
}
