/*
 * test_record.c — recording a session from C: the create option "record": true and
 * rk_store_scenario().
 *
 * Sessions on counter (sends, refused sends, a timer on the test clock, numberFact requests
 * resolved, failed and answered wrongly), todos (live clock, initial_state) and search
 * (debounce, a host request cancelled) are recorded; each document is written to a temporary
 * *.scenario.json and replayed green by the scenario runner linked in here
 * (tools/reducerkit-check.c, so valgrind and the sanitizers cover it) and by the
 * build/reducerkit-check program beside this test's directory (when it is built); an edited
 * copy must fail both. The counter and search sessions must equal the committed
 * Tests/scenarios/{counter,search}_recorded_c.scenario.json, which the Swift and Python runners
 * replay too (RK_RECORD_WRITE=1 rewrites them). Then: recording beside "record_actions",
 * answers inside a request callback, calls while effects run and from several threads, and
 * the errors (not recording, NULL arguments, a destroyed store, a wrong "record" value).
 */
#define _DEFAULT_SOURCE 1 /* DT_DIR in the runner, mkdtemp */
#include "rk_test.h"

#define RKC_LINKED 1
#define RKC_MAIN rkc_main
#include "../../tools/reducerkit-check.c"

#include <pthread.h>
#include <sys/types.h>
#include <sys/wait.h>

static char tmpdir[] = "/tmp/rk_record_XXXXXX";

/* ---- helpers ------------------------------------------------------------------------- */

static void send_ok(rk_store *s, const char *action) {
    rk_status st = rk_store_send(s, action);
    CHECK_MSG(st == RK_OK, "sending %s: %s", action, rk_status_string(st));
}

static void send_fails(rk_store *s, const char *action, rk_status expected) {
    rk_status st = rk_store_send(s, action);
    CHECK_MSG(st == expected, "sending %s: %s, expected %s", action, rk_status_string(st),
              rk_status_string(expected));
}

/* The store's scenario document (free with rk_free), NULL after a failed check. */
static char *scenario_of(rk_store *s) {
    char *json = NULL;
    size_t len = 0;
    if (CHECK_OK(rk_store_scenario(s, &json, &len)) != RK_OK) return NULL;
    CHECK(json != NULL && strlen(json) == len);
    return json;
}

static jm_value *parse(const char *json) {
    char err[160];
    jm_value *v = json ? jm_parse(json, strlen(json), err, sizeof err) : NULL;
    CHECK_MSG(v != NULL && v->type == JM_OBJECT, "not a JSON object (%s): %.300s",
              json ? err : "NULL", json ? json : "");
    return v;
}

/* The steps of a parsed document. */
static const jm_value *steps_of(const jm_value *doc) {
    const jm_value *steps = jm_get(doc, "steps");
    return steps != NULL && steps->type == JM_ARRAY ? steps : NULL;
}

/* Whether some step equals `step` (JSON text). */
static int has_step(const jm_value *doc, const char *step) {
    const jm_value *steps = steps_of(doc);
    jm_value *want = jm_parse(step, strlen(step), NULL, 0);
    size_t i;
    int found = 0;
    for (i = 0; steps != NULL && want != NULL && i < steps->count && !found; i++) {
        found = jm_equal(steps->items[i], want, 0);
    }
    jm_free(want);
    return found;
}

/* The index of the first step equal to `step`, or -1. */
static long step_index(const jm_value *doc, const char *step) {
    const jm_value *steps = steps_of(doc);
    jm_value *want = jm_parse(step, strlen(step), NULL, 0);
    size_t i;
    long found = -1;
    for (i = 0; steps != NULL && want != NULL && i < steps->count && found < 0; i++) {
        if (jm_equal(steps->items[i], want, 0)) found = (long)i;
    }
    jm_free(want);
    return found;
}

static int has_finish(const jm_value *doc) { return has_step(doc, "{\"finish\":true}"); }

static char *path_in_tmp(const char *name) {
    size_t n = strlen(tmpdir) + strlen(name) + 2;
    char *path = (char *)malloc(n);
    if (path != NULL) snprintf(path, n, "%s/%s", tmpdir, name);
    return path;
}

static int write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    int ok;
    if (f == NULL) return 0;
    ok = fwrite(text, 1, strlen(text), f) == strlen(text);
    ok = fclose(f) == 0 && ok;
    return ok;
}

/* The scenario runner linked in (reducerkit-check's): its exit status for `path`. */
static int replay_linked(const char *path) {
    char *args[5];
    char timeout[32];
    snprintf(timeout, sizeof timeout, "%lld", (long long)RK_T_MS(2000));
    args[0] = "test_record";
    args[1] = "--timeout-ms";
    args[2] = timeout;
    args[3] = (char *)path;
    args[4] = NULL;
    fflush(stdout);
    return rkc_main(4, args);
}

/* build/reducerkit-check (beside the directory of this program): its exit status for `path`,
 * with its output in `path`.log (printed when `expected` is not what it returned); -1 when it
 * is not built. */
static int replay_program(const char *path, int expected) {
    char self[4096], check[4200], log[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    char *slash;
    pid_t pid;
    int status = 0;
    if (n <= 0) return -1;
    self[n] = '\0';
    slash = strrchr(self, '/');
    if (slash == NULL) return -1;
    *slash = '\0';
    snprintf(check, sizeof check, "%s/../reducerkit-check", self);
    if (access(check, X_OK) != 0) return -1;
    snprintf(log, sizeof log, "%s.log", path);
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        FILE *out = freopen(log, "w", stdout);
        char *argv[3];
        if (out == NULL) _exit(127);
        argv[0] = check;
        argv[1] = (char *)path;
        argv[2] = NULL;
        execv(check, argv);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return 126;
    if (WEXITSTATUS(status) != expected) {
        size_t len = 0;
        char why[160];
        char *text = read_file(log, &len, why, sizeof why);
        fprintf(stderr, "%s %s exited %d:\n%s", check, path, WEXITSTATUS(status),
                text ? text : "(no output)\n");
        free(text);
    }
    remove(log);
    return WEXITSTATUS(status);
}

/* Writes `json` to TMP/name.scenario.json and replays it in both runners: each must pass. */
static void check_replays(const char *name, const char *json) {
    char file[256];
    char *path;
    int status;
    snprintf(file, sizeof file, "%s.scenario.json", name);
    path = path_in_tmp(file);
    CHECK(path != NULL && write_text(path, json));
    if (path == NULL) return;
    CHECK_MSG(replay_linked(path) == 0, "the recorded %s does not replay (linked runner)", name);
    status = replay_program(path, 0);
    if (status == -1) {
        printf("   (build/reducerkit-check is not built: replayed by the linked runner only)\n");
    } else {
        CHECK_MSG(status == 0, "the recorded %s does not replay in reducerkit-check", name);
    }
    remove(path);
    free(path);
}

/* `json` with the first `from` replaced by `to` must fail both runners (exit status 1). */
static void check_edit_fails(const char *name, const char *json, const char *from, const char *to) {
    const char *at = strstr(json, from);
    char file[256];
    char *edited, *path;
    int status;
    CHECK_MSG(at != NULL, "%s: the document has no %s to edit", name, from);
    if (at == NULL) return;
    edited = (char *)malloc(strlen(json) - strlen(from) + strlen(to) + 1);
    if (edited == NULL) return;
    memcpy(edited, json, (size_t)(at - json));
    strcpy(edited + (at - json), to);
    strcat(edited, at + strlen(from));
    snprintf(file, sizeof file, "%s_edited.scenario.json", name);
    path = path_in_tmp(file);
    CHECK(path != NULL && write_text(path, edited));
    if (path != NULL) {
        printf("   (the edited copy must fail: a FAILED line below is expected)\n");
        CHECK_MSG(replay_linked(path) == 1, "an edited %s (%s -> %s) passed the linked runner", name,
                  from, to);
        status = replay_program(path, 1);
        CHECK_MSG(status == -1 || status == 1, "an edited %s (%s -> %s): reducerkit-check exited %d",
                  name, from, to, status);
        remove(path);
    }
    free(path);
    free(edited);
}

/* The document with one step per line (as the committed files are written). */
static char *pretty(const jm_value *doc) {
    jm_buf b = {NULL, 0, 0, 0};
    size_t i, j;
    jm_buf_put(&b, "{\n", 2);
    for (i = 0; i < doc->count; i++) {
        jm_buf_put(&b, "  ", 2);
        jm_dump_string(&b, doc->keys[i], doc->key_lens[i]);
        jm_buf_put(&b, ": ", 2);
        if (strcmp(doc->keys[i], "steps") == 0 && doc->items[i]->type == JM_ARRAY) {
            jm_buf_put(&b, "[\n", 2);
            for (j = 0; j < doc->items[i]->count; j++) {
                jm_buf_put(&b, "    ", 4);
                jm_dump_to(&b, doc->items[i]->items[j]);
                if (j + 1 < doc->items[i]->count) jm_buf_putc(&b, ',');
                jm_buf_putc(&b, '\n');
            }
            jm_buf_put(&b, "  ]", 3);
        } else {
            jm_dump_to(&b, doc->items[i]);
        }
        if (i + 1 < doc->count) jm_buf_putc(&b, ',');
        jm_buf_putc(&b, '\n');
    }
    jm_buf_put(&b, "}\n", 2);
    return b.data;
}

/* The document must equal the committed Tests/scenarios/NAME.scenario.json as JSON (with
 * RK_RECORD_WRITE=1: rewrites that file instead). */
static void check_committed(const char *name, const char *json) {
    const char *dir = getenv("REDUCERKIT_SCENARIOS");
    const char *write = getenv("RK_RECORD_WRITE");
    char path[1024], why[160];
    size_t len = 0;
    char *committed;
    jm_value *doc = parse(json), *want;
    snprintf(path, sizeof path, "%s/%s.scenario.json", dir && dir[0] ? dir : "Tests/scenarios", name);
    if (doc == NULL) return;
    if (write != NULL && strcmp(write, "1") == 0) {
        char *text = pretty(doc);
        CHECK_MSG(text != NULL && write_text(path, text), "could not write %s", path);
        printf("   wrote %s\n", path);
        free(text);
        jm_free(doc);
        return;
    }
    committed = read_file(path, &len, why, sizeof why);
    CHECK_MSG(committed != NULL, "cannot read %s: %s (run from the repository root)", path, why);
    want = committed ? jm_parse(committed, len, NULL, 0) : NULL;
    CHECK_MSG(want != NULL && jm_equal(doc, want, 0),
              "the recorded session differs from %s (RK_RECORD_WRITE=1 rewrites it):\n    %.2000s",
              path, json);
    jm_free(want);
    free(committed);
    jm_free(doc);
}

/* The queued request events (rk_free it). */
static char *take_requests(rk_store *s) {
    char *json = NULL;
    CHECK_OK(rk_store_take_requests(s, &json, NULL));
    return json;
}

/* ---- the sessions -------------------------------------------------------------------- */

static void test_counter_session(void) {
    rk_store *s;
    char *json, *events;
    jm_value *doc;
    TEST("counter: sends, refused sends, the timer, numberFact resolved, failed, answered wrongly");
    s = CREATE("counter", "{\"clock\":\"test\",\"provide\":[\"numberFact\"],\"record\":true}");
    send_ok(s, "\"increment\"");
    send_ok(s, "{ \"setCount\" : 7 }");
    send_ok(s, "\"decrement\"");
    send_ok(s, "{\"setCount\":6}"); /* changes nothing: no "state" */
    send_fails(s, "\"incremnt\"", RK_ERR_ACTION);
    send_fails(s, "{\"setCount\":\"x\"}", RK_ERR_ACTION);
    send_fails(s, "{not json", RK_ERR_JSON); /* not JSON: not a step (nothing to replay) */
    send_fails(s, "{\"a\":1,\"a\":2}", RK_ERR_JSON); /* a key twice: not JSON for the runners */

    send_ok(s, "\"factButtonTapped\"");
    events = take_requests(s);
    CHECK_JSON(events, "[{\"id\":1,\"name\":\"numberFact\",\"payload\":6}]");
    rk_free(events);
    CHECK_STATUS(rk_store_resolve(s, 1, "42"), RK_ERR_RESPONSE);    /* refused: stays pending */
    CHECK_STATUS(rk_store_resolve(s, 1, "[1,"), RK_ERR_JSON);       /* not JSON: not a step */
    CHECK_OK(rk_store_resolve(s, 1, " \"6 is a perfect number.\" "));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000))); /* the response action first (a fixed order) */
    CHECK_STATUS(rk_store_resolve(s, 1, "\"again\""), RK_ERR_INVALID_ARGUMENT); /* answered */
    CHECK_STATUS(rk_store_fail(s, 99, "nobody asked"), RK_ERR_INVALID_ARGUMENT); /* unknown id */

    send_ok(s, "\"factButtonTapped\"");
    events = take_requests(s);
    CHECK_JSON(events, "[{\"id\":2,\"name\":\"numberFact\",\"payload\":6}]");
    rk_free(events);
    CHECK_OK(rk_store_fail(s, 2, "offline"));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));

    send_ok(s, "\"toggleTimer\"");
    CHECK_STATUS(rk_store_advance_clock(s, -1), RK_ERR_INVALID_ARGUMENT); /* not a step */
    CHECK_OK(rk_store_advance_clock(s, 2500));
    send_ok(s, "\"toggleTimer\"");
    CHECK_OK(rk_store_advance_clock(s, 1000)); /* the timer is off: nothing happens */

    json = scenario_of(s);
    doc = parse(json);
    if (doc != NULL) {
        CHECK(jm_str(jm_get(doc, "name")) != NULL &&
              strcmp(jm_str(jm_get(doc, "name")), "a recorded session of counter") == 0);
        CHECK(jm_str(jm_get(doc, "feature")) != NULL &&
              strcmp(jm_str(jm_get(doc, "feature")), "counter") == 0);
        {
            char *options = jm_dump(jm_get(doc, "options"));
            CHECK_JSON(options, "{\"clock\":\"test\",\"provide\":[\"numberFact\"]}");
            free(options);
        }
        CHECK(has_step(doc, "{\"send\":\"increment\",\"state\":{\"count\":1,\"fact\":null,"
                            "\"isTimerOn\":false}}"));
        CHECK(has_step(doc, "{\"send\":{\"setCount\":6}}"));
        CHECK(step_index(doc, "{\"send\":\"factButtonTapped\"}") >= 0);
        CHECK(step_index(doc, "{\"send\":\"factButtonTapped\"}") + 1 ==
              step_index(doc, "{\"request\":{\"id\":1,\"name\":\"numberFact\",\"payload\":6}}"));
        CHECK(has_step(doc, "{\"resolve\":1,\"response\":\"6 is a perfect number.\"}"));
        CHECK(step_index(doc, "{\"resolve\":1,\"response\":\"6 is a perfect number.\"}") + 1 ==
              step_index(doc, "{\"receive\":{\"factResponse\":\"6 is a perfect number.\"},"
                              "\"state\":{\"count\":6,\"fact\":\"6 is a perfect number.\","
                              "\"isTimerOn\":false}}"));
        CHECK(has_step(doc, "{\"fail\":2,\"message\":\"offline\"}"));
        CHECK(has_step(doc, "{\"advance_ms\":2500}"));
        CHECK(has_step(doc, "{\"advance_ms\":1000}"));
        CHECK(!has_step(doc, "{\"advance_ms\":-1}"));
        CHECK(has_finish(doc));
        CHECK_CONTAINS(json, "{\"send\":\"incremnt\",\"error\":{\"status\":\"RK_ERR_ACTION\","
                             "\"message\":\"unknown action \\\"incremnt\\\"");
        CHECK_CONTAINS(json, "{\"resolve\":1,\"response\":42,\"error\":{\"status\":\"RK_ERR_RESPONSE\"");
        CHECK_CONTAINS(json, "\"error\":{\"status\":\"RK_ERR_INVALID_ARGUMENT\",\"message\":"
                             "\"rk_store_resolve: request 1 was already answered\"}");
        CHECK_CONTAINS(json, "{\"fail\":99,\"message\":\"nobody asked\",\"error\":");
        CHECK(strstr(json, "not json") == NULL && strstr(json, "\"a\":2") == NULL &&
              strstr(json, "[1,") == NULL);
        {
            char *final_state = jm_dump(jm_get(doc, "final_state"));
            CHECK_JSON(final_state, "{\"count\":8,\"fact\":\"Could not load a fact about 6: offline\","
                                    "\"isTimerOn\":false}");
            free(final_state);
        }
    }
    jm_free(doc);
    check_replays("counter_recorded_c", json);
    check_edit_fails("counter_state", json, "\"count\":1,", "\"count\":5,");
    check_edit_fails("counter_error", json, "\"RK_ERR_ACTION\"", "\"RK_ERR_JSON\"");
    check_edit_fails("counter_request", json, "\"payload\":6", "\"payload\":7");
    check_committed("counter_recorded_c", json);
    rk_free(json);
    rk_store_destroy(s);
}

static void test_todos_session(void) {
    rk_store *s;
    char *json;
    jm_value *doc;
    TEST("todos: the live clock and an initial_state, as given");
    s = CREATE("todos", "{\"record\":true,\"initial_state\":{\"filter\":\"active\",\"nextID\":10}}");
    send_ok(s, "{\"addTodo\":{\"title\":\"Milk\"}}");
    send_ok(s, "{\"addTodo\":{\"title\":\"Caf\\u00e9 \\\"au lait\\\"\"}}");
    send_ok(s, "{\"toggle\":{\"id\":10}}");
    send_fails(s, "{\"addTodo\":{}}", RK_ERR_ACTION);
    send_ok(s, "\"clearCompleted\"");
    send_ok(s, "{\"toggle\":{\"id\":99}}");
    send_ok(s, "{\"setFilter\":\"all\"}");
    json = scenario_of(s);
    doc = parse(json);
    if (doc != NULL) {
        char *options = jm_dump(jm_get(doc, "options"));
        CHECK_JSON(options, "{\"clock\":\"live\",\"initial_state\":{\"filter\":\"active\",\"nextID\":10}}");
        free(options);
        CHECK(has_step(doc, "{\"send\":{\"toggle\":{\"id\":99}}}"));
        CHECK(has_finish(doc));
        CHECK_CONTAINS(json, "Caf\xc3\xa9 \\\"au lait\\\"");
    }
    jm_free(doc);
    check_replays("todos_recorded_c", json);
    check_edit_fails("todos_state", json, "\"filter\":\"all\"", "\"filter\":\"completed\"");
    rk_free(json);
    rk_store_destroy(s);
}

static void test_search_session(void) {
    rk_store *s;
    char *json, *events;
    jm_value *doc;
    TEST("search: debounce on the test clock, a host request cancelled by a new query");
    s = CREATE("search", "{\"clock\":\"test\",\"provide\":[\"search\"],\"record\":true}");
    send_ok(s, "{\"queryChanged\":\"sw\"}");
    CHECK_OK(rk_store_advance_clock(s, 300));
    send_ok(s, "{\"queryChanged\":\"swi\"}"); /* cancels request 1 (debounce, cancel in flight) */
    CHECK_OK(rk_store_advance_clock(s, 299));
    CHECK_OK(rk_store_advance_clock(s, 1));
    events = take_requests(s);
    CHECK_JSON(events, "[{\"id\":1,\"name\":\"search\",\"payload\":\"sw\"},{\"id\":1,\"cancelled\":true},"
                       "{\"id\":2,\"name\":\"search\",\"payload\":\"swi\"}]");
    rk_free(events);
    CHECK_STATUS(rk_store_resolve(s, 1, "[\"too late\"]"), RK_ERR_INVALID_ARGUMENT); /* cancelled */
    CHECK_OK(rk_store_resolve(s, 2, "[\"swift\",\"swim\"]"));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    send_ok(s, "{\"queryChanged\":\"p\"}");
    CHECK_OK(rk_store_advance_clock(s, 300));
    send_ok(s, "{\"queryChanged\":\"\"}"); /* clearing the query cancels request 3 */
    json = scenario_of(s);
    doc = parse(json);
    if (doc != NULL) {
        CHECK(step_index(doc, "{\"advance_ms\":300}") + 1 ==
              step_index(doc, "{\"request\":{\"id\":1,\"name\":\"search\",\"payload\":\"sw\"}}"));
        CHECK(step_index(doc, "{\"cancelled\":1}") ==
              step_index(doc, "{\"request\":{\"id\":1,\"name\":\"search\",\"payload\":\"sw\"}}") + 2);
        CHECK(has_step(doc, "{\"cancelled\":3}"));
        CHECK_CONTAINS(json, "{\"resolve\":1,\"response\":[\"too late\"],\"error\":{\"status\":"
                             "\"RK_ERR_INVALID_ARGUMENT\"");
        CHECK(has_finish(doc));
    }
    jm_free(doc);
    check_replays("search_recorded_c", json);
    check_edit_fails("search_cancel", json, "{\"cancelled\":3}", "{\"cancelled\":2}");
    check_committed("search_recorded_c", json);
    rk_free(json);
    rk_store_destroy(s);
}

/* ---- beside record_actions --------------------------------------------------------- */

static void test_with_record_actions(void) {
    rk_store *s;
    char *json = NULL, *doc;
    TEST("\"record\" beside \"record_actions\": rk_store_take_actions keeps every record");
    s = CREATE("counter", "{\"clock\":\"test\",\"record\":true,\"record_actions\":true}");
    send_ok(s, "\"increment\"");
    send_ok(s, "\"increment\"");
    doc = scenario_of(s); /* takes the log first: the records must still be there */
    CHECK_CONTAINS(doc, "\"options\":{\"clock\":\"test\"}");
    rk_free(doc);
    CHECK_OK(rk_store_take_actions(s, &json, NULL));
    CHECK_JSON(json, "[{\"action\":\"increment\",\"origin\":\"host\",\"version\":1,"
                     "\"state\":{\"count\":1,\"fact\":null,\"isTimerOn\":false}},"
                     "{\"action\":\"increment\",\"origin\":\"host\",\"version\":2,"
                     "\"state\":{\"count\":2,\"fact\":null,\"isTimerOn\":false}}]");
    rk_free(json);
    send_ok(s, "\"decrement\"");
    json = NULL;
    CHECK_OK(rk_store_take_actions(s, &json, NULL)); /* before the recorder looked */
    CHECK_JSON(json, "[{\"action\":\"decrement\",\"origin\":\"host\",\"version\":3,"
                     "\"state\":{\"count\":1,\"fact\":null,\"isTimerOn\":false}}]");
    rk_free(json);
    json = NULL;
    CHECK_OK(rk_store_take_actions(s, &json, NULL));
    CHECK_JSON(json, "[]");
    rk_free(json);
    doc = scenario_of(s); /* the recording still has all three */
    CHECK_CONTAINS(doc, "{\"send\":\"decrement\",\"state\":{\"count\":1,");
    check_replays("with_record_actions", doc);
    rk_free(doc);
    rk_store_destroy(s);

    /* "record" alone: take_actions is still the misuse it always was */
    s = CREATE("counter", "{\"record\":true}");
    json = NULL;
    CHECK_STATUS(rk_store_take_actions(s, &json, NULL), RK_ERR_MISUSE);
    CHECK_CONTAINS(rk_last_error(), "record_actions");
    CHECK(json == NULL);
    rk_store_destroy(s);
}

/* Issue 25: a logging store keeps the logged JSON of a cached action with it, so a repeated
 * action is encoded once. What is logged stays the action's own encoding, not the text the
 * host sent: a spaced or reordered text logs as the canonical JSON on its first send and on
 * every repeat (from the cache), and so does its recording. */
static void test_repeated_actions_logged(void) {
    rk_store *s;
    char *json = NULL, *doc;
    int i;
    TEST("a repeated action is logged as its own JSON, not the host's text (the cached path)");
    s = CREATE("counter", "{\"clock\":\"test\",\"record\":true,\"record_actions\":true}");
    for (i = 0; i < 3; i++) send_ok(s, " { \"setCount\" :  7 } ");
    send_ok(s, "\"increment\"");
    send_ok(s, "\"increment\"");
    CHECK_OK(rk_store_take_actions(s, &json, NULL));
    CHECK_JSON(json, "[{\"action\":{\"setCount\":7},\"origin\":\"host\",\"version\":1,"
                     "\"state\":{\"count\":7,\"fact\":null,\"isTimerOn\":false}},"
                     "{\"action\":{\"setCount\":7},\"origin\":\"host\",\"version\":2,"
                     "\"state\":{\"count\":7,\"fact\":null,\"isTimerOn\":false}},"
                     "{\"action\":{\"setCount\":7},\"origin\":\"host\",\"version\":3,"
                     "\"state\":{\"count\":7,\"fact\":null,\"isTimerOn\":false}},"
                     "{\"action\":\"increment\",\"origin\":\"host\",\"version\":4,"
                     "\"state\":{\"count\":8,\"fact\":null,\"isTimerOn\":false}},"
                     "{\"action\":\"increment\",\"origin\":\"host\",\"version\":5,"
                     "\"state\":{\"count\":9,\"fact\":null,\"isTimerOn\":false}}]");
    CHECK(json != NULL && strstr(json, " ") == NULL);
    rk_free(json);
    doc = scenario_of(s);
    CHECK_CONTAINS(doc, "{\"send\":{\"setCount\":7},\"state\":{\"count\":7,");
    CHECK_CONTAINS(doc, "{\"send\":{\"setCount\":7}},{\"send\":{\"setCount\":7}},{\"send\":\"increment\",");
    check_replays("repeated_actions", doc);
    rk_free(doc);
    rk_store_destroy(s);
}

/* A refused send is a step expecting its error only when a scenario can hold its JSON: 1e400
 * (beyond a double) was recorded, and the recording did not parse as a scenario. */
static void test_refused_send_a_scenario_cannot_hold(void) {
    rk_store *s;
    char *doc;
    TEST("a refused send whose JSON no scenario may hold (1e400) is left out; the rest replays");
    s = CREATE("counter", "{\"clock\":\"test\",\"record\":true}");
    send_fails(s, "{\"setCount\":1e400}", RK_ERR_ACTION);
    send_fails(s, "{\"setCount\":[1e400, 1.5]}", RK_ERR_ACTION);
    send_fails(s, "{\"setCount\":1.5}", RK_ERR_ACTION);
    send_ok(s, "\"increment\"");
    doc = scenario_of(s);
    CHECK(doc != NULL && strstr(doc, "1e400") == NULL);
    CHECK_CONTAINS(doc, "{\"send\":{\"setCount\":1.5},\"error\":{\"status\":\"RK_ERR_ACTION\"");
    check_replays("refused_beyond_double", doc);
    rk_free(doc);
    rk_store_destroy(s);
}

/* ---- answers inside the request callback -------------------------------------------- */

typedef struct answering {
    rk_store *store;
    int requests;
    rk_status scenario_status;
    int scenario_had_finish;
    double scenario_ms;
} answering;

static void answer_in_callback(void *userdata, const char *event, size_t len) {
    answering *a = (answering *)userdata;
    (void)len;
    if (strstr(event, "\"cancelled\"") != NULL) return;
    a->requests++;
    {
        /* from inside the callback: it must not wait for the effect that called it */
        char *json = NULL;
        double start = rk_t_now_ms();
        a->scenario_status = rk_store_scenario(a->store, &json, NULL);
        a->scenario_ms = rk_t_now_ms() - start;
        a->scenario_had_finish = json != NULL && strstr(json, "\"finish\"") != NULL;
        rk_free(json);
    }
    rk_store_resolve(a->store, (uint64_t)a->requests, "\"a fact from the callback\"");
}

static void test_callback_answers(void) {
    answering a;
    char *json;
    jm_value *doc;
    TEST("answers inside the request callback; rk_store_scenario from inside it");
    memset(&a, 0, sizeof a);
    a.store = CREATE("counter", "{\"clock\":\"test\",\"provide\":[\"numberFact\"],\"record\":true}");
    CHECK_OK(rk_store_on_request(a.store, answer_in_callback, &a));
    send_ok(a.store, "\"factButtonTapped\"");
    CHECK_OK(rk_store_wait_idle(a.store, RK_T_MS(5000)));
    CHECK(a.requests == 1);
    CHECK(a.scenario_status == RK_OK);
    CHECK(!a.scenario_had_finish); /* the effect that made the request is running */
    CHECK_MSG(a.scenario_ms < (double)RK_T_MS(500), "took %.0f ms (it must not wait)", a.scenario_ms);
    json = scenario_of(a.store);
    doc = parse(json);
    if (doc != NULL) {
        long request = step_index(doc, "{\"request\":{\"id\":1,\"name\":\"numberFact\",\"payload\":0}}");
        CHECK(request == 1);
        CHECK(step_index(doc, "{\"resolve\":1,\"response\":\"a fact from the callback\"}") == request + 1);
        CHECK(has_finish(doc));
    }
    jm_free(doc);
    check_replays("callback_answers", json);
    rk_free(json);
    CHECK_OK(rk_store_on_request(a.store, NULL, NULL));
    rk_store_destroy(a.store);
}

/* ---- while effects run; from several threads --------------------------------------- */

static void test_while_effects_run(void) {
    rk_store *s;
    char *json;
    double start, took;
    jm_value *doc;
    TEST("while effects run: a bounded wait, then what it has, without finish");
    s = CREATE("counter", "{\"record\":true}"); /* the live clock: a real 1 s timer */
    send_ok(s, "\"toggleTimer\"");
    start = rk_t_now_ms();
    json = scenario_of(s);
    took = rk_t_now_ms() - start;
    CHECK_MSG(took >= 900, "took %.0f ms: rk_store_scenario waits up to 1 s on the live clock", took);
    doc = parse(json);
    CHECK(doc != NULL && !has_finish(doc));
    jm_free(doc);
    rk_free(json);
    send_ok(s, "\"toggleTimer\"");
    json = scenario_of(s);
    doc = parse(json);
    CHECK(doc != NULL && has_finish(doc));
    jm_free(doc);
    rk_free(json);
    rk_store_destroy(s);

    /* a pending request (test clock): idle at once, but the effect runs: no finish */
    s = CREATE("counter", "{\"clock\":\"test\",\"provide\":[\"numberFact\"],\"record\":true}");
    send_ok(s, "\"factButtonTapped\"");
    json = scenario_of(s);
    doc = parse(json);
    CHECK(doc != NULL && !has_finish(doc) &&
          has_step(doc, "{\"request\":{\"id\":1,\"name\":\"numberFact\",\"payload\":0}}"));
    jm_free(doc);
    check_replays("pending_request", json);
    rk_free(json);
    rk_store_destroy(s); /* cancels the request */
}

typedef struct sender {
    rk_store *store;
    int count;
    int failures;
} sender;

static void *send_many(void *arg) {
    sender *t = (sender *)arg;
    int i;
    for (i = 0; i < t->count; i++) {
        if (rk_store_send(t->store, i % 7 == 6 ? "\"incremnt\"" : "\"increment\"") != RK_OK &&
            i % 7 != 6)
            t->failures++;
    }
    return NULL;
}

static void test_threads(void) {
    enum { THREADS = 4 };
    rk_store *s;
    pthread_t threads[THREADS];
    sender senders[THREADS];
    int i, per = rk_t_under_valgrind() ? 20 : 300;
    char *json;
    jm_value *doc;
    TEST("sends from several threads while rk_store_scenario runs: every send recorded, in order");
    s = CREATE("counter", "{\"record\":true,\"record_actions\":true}");
    for (i = 0; i < THREADS; i++) {
        senders[i].store = s;
        senders[i].count = per;
        senders[i].failures = 0;
        CHECK(pthread_create(&threads[i], NULL, send_many, &senders[i]) == 0);
    }
    for (i = 0; i < 5; i++) {
        char *log = NULL;
        json = scenario_of(s);
        rk_free(json);
        if (rk_store_take_actions(s, &log, NULL) == RK_OK) rk_free(log);
    }
    for (i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK(senders[i].failures == 0);
    }
    json = scenario_of(s);
    doc = parse(json);
    if (doc != NULL) {
        const jm_value *steps = steps_of(doc);
        size_t k, sends = 0, errors = 0;
        int increasing = 1;
        double last = 0;
        for (k = 0; steps != NULL && k < steps->count; k++) {
            const jm_value *state = jm_get(steps->items[k], "state");
            if (jm_get(steps->items[k], "error") != NULL) errors++;
            else if (jm_get(steps->items[k], "send") != NULL) sends++;
            if (state != NULL) {
                double count = jm_get(state, "count") ? jm_get(state, "count")->number : -1;
                if (count != last + 1) increasing = 0;
                last = count;
            }
        }
        CHECK_MSG(sends == (size_t)(THREADS * (per - per / 7)), "%lu sends", (unsigned long)sends);
        CHECK_MSG(errors == (size_t)(THREADS * (per / 7)), "%lu errors", (unsigned long)errors);
        CHECK_MSG(increasing, "the states are not in the order of the sends");
    }
    jm_free(doc);
    check_replays("threads", json);
    rk_free(json);
    rk_store_destroy(s);
}

/* ---- two threads answer one request at once ---------------------------------------- */

typedef struct racer {
    rk_store *store;
    const char *response;
    pthread_mutex_t *mu;
    pthread_cond_t *cv;
    int *go;
    rk_status status;
} racer;

static void *answer_when_told(void *arg) {
    racer *r = (racer *)arg;
    pthread_mutex_lock(r->mu);
    while (!*r->go) pthread_cond_wait(r->cv, r->mu);
    pthread_mutex_unlock(r->mu);
    r->status = rk_store_resolve(r->store, 1, r->response);
    return NULL;
}

static void test_racing_answers(void) {
    int rounds = rk_t_under_valgrind() ? 40 : 1000, i, in_order = 0, replayed = 0, checked = 0;
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
    TEST("two threads answer one request at once: answers recorded in the order accepted");
    for (i = 0; i < rounds; i++) {
        rk_store *s = CREATE("counter", "{\"clock\":\"test\",\"provide\":[\"numberFact\"],"
                                        "\"record\":true}");
        pthread_t t[2];
        racer r[2];
        int go = 0, k;
        char *json, *events;
        jm_value *doc;
        send_ok(s, "\"factButtonTapped\"");
        events = take_requests(s);
        rk_free(events);
        for (k = 0; k < 2; k++) {
            r[k].store = s;
            r[k].response = k == 0 ? "\"A\"" : "\"B\"";
            r[k].mu = &mu;
            r[k].cv = &cv;
            r[k].go = &go;
            r[k].status = RK_ERR_INTERNAL;
            CHECK(pthread_create(&t[k], NULL, answer_when_told, &r[k]) == 0);
        }
        pthread_mutex_lock(&mu);
        go = 1;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mu);
        for (k = 0; k < 2; k++) pthread_join(t[k], NULL);
        CHECK((r[0].status == RK_OK) != (r[1].status == RK_OK));
        json = scenario_of(s);
        doc = parse(json);
        if (doc != NULL) {
            /* The first resolve step is the accepted one; the second was refused. */
            const jm_value *steps = steps_of(doc), *first = NULL, *second = NULL;
            size_t n;
            for (n = 0; steps != NULL && n < steps->count; n++) {
                if (jm_get(steps->items[n], "resolve") == NULL) continue;
                if (first == NULL) first = steps->items[n];
                else if (second == NULL) second = steps->items[n];
            }
            checked++;
            if (first != NULL && second != NULL && jm_get(first, "error") == NULL &&
                jm_get(second, "error") != NULL &&
                strcmp(jm_str(jm_get(first, "response")),
                       r[0].status == RK_OK ? "A" : "B") == 0)
                in_order++;
            else if (in_order + 1 == checked)
                printf("   round %d: %.600s\n", i, json);
        }
        /* And a sample replays (the runner linked in): 031112b failed ~15 in 1,000. */
        if (i % (rk_t_under_valgrind() ? 20 : 100) == 0) {
            char *path = path_in_tmp("racing.scenario.json");
            if (path != NULL && write_text(path, json)) replayed += replay_linked(path) == 0;
            if (path != NULL) remove(path);
            free(path);
        } else {
            replayed++;
        }
        jm_free(doc);
        rk_free(json);
        rk_store_destroy(s);
    }
    CHECK_MSG(in_order == rounds, "%d of %d recordings list the accepted answer first", in_order,
              rounds);
    CHECK_MSG(replayed == rounds, "%d of %d sampled recordings replay", replayed, rounds);
}

/* ---- errors ------------------------------------------------------------------------ */

static void test_errors(void) {
    rk_store *s, *dead;
    char *json = (char *)"untouched";
    size_t len = 777;
    TEST("errors: not recording, NULL arguments, a destroyed store, a wrong \"record\" value");
    s = CREATE("counter", "{\"clock\":\"test\"}");
    CHECK_STATUS(rk_store_scenario(s, &json, &len), RK_ERR_MISUSE);
    CHECK_CONTAINS(rk_last_error(), "create it with {\"record\": true}");
    CHECK(strcmp(json, "untouched") == 0 && len == 777);
    rk_store_destroy(s);
    s = CREATE("counter", "{\"record\":false}");
    CHECK_STATUS(rk_store_scenario(s, &json, NULL), RK_ERR_MISUSE);
    rk_store_destroy(s);
    s = CREATE("counter", "{\"record_actions\":true}");
    CHECK_STATUS(rk_store_scenario(s, &json, NULL), RK_ERR_MISUSE);
    rk_store_destroy(s);

    s = CREATE("counter", "{\"record\":true}");
    CHECK_STATUS(rk_store_scenario(NULL, &json, &len), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "store is NULL");
    CHECK_STATUS(rk_store_scenario(s, NULL, &len), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "out_json is NULL");
    CHECK(strcmp(json, "untouched") == 0 && len == 777);
    json = NULL;
    CHECK_OK(rk_store_scenario(s, &json, NULL)); /* out_len may be NULL */
    CHECK_JSON(json, "{\"name\":\"a recorded session of counter\",\"feature\":\"counter\","
                     "\"options\":{\"clock\":\"live\"},\"steps\":[{\"finish\":true}],"
                     "\"final_state\":{\"count\":0,\"fact\":null,\"isTimerOn\":false}}");
    rk_free(json);
    dead = s;
    rk_store_destroy(s);
    json = (char *)"untouched";
    CHECK_STATUS(rk_store_scenario(dead, &json, &len), RK_ERR_INVALID_HANDLE);
    CHECK(strcmp(json, "untouched") == 0 && len == 777);

    {
        static const char *const bad[] = {"{\"record\":1}", "{\"record\":\"true\"}",
                                          "{\"record\":null}", "{\"record\":[true]}"};
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            rk_store *out = (rk_store *)&len;
            CHECK_STATUS(rk_store_create("counter", bad[i], &out), RK_ERR_INVALID_ARGUMENT);
            CHECK_CONTAINS(rk_last_error(), "expected true or false at $.record,");
            CHECK(out == (rk_store *)&len);
        }
        {
            rk_store *out = NULL;
            CHECK_STATUS(rk_store_create("counter", "{\"recrod\":true}", &out), RK_ERR_INVALID_ARGUMENT);
            CHECK_CONTAINS(rk_last_error(), "did you mean \"record\"");
            CHECK_CONTAINS(rk_last_error(), "record_actions, record, provide");
        }
    }
}

int main(int argc, char **argv) {
    rk_t_select(argc, argv);
    rk_t_watchdog(120);
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_counter_session();
    test_todos_session();
    test_search_session();
    test_with_record_actions();
    test_repeated_actions_logged();
    test_refused_send_a_scenario_cannot_hold();
    test_callback_answers();
    test_while_effects_run();
    test_threads();
    test_racing_answers();
    test_errors();
    rmdir(tmpdir);
    RK_TEST_EXIT();
}
