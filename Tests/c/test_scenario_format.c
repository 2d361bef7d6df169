/*
 * test_scenario_format.c — the scenario format's functions of reducerkit.h (rk_scenario_parse,
 * rk_json_match), and the fixes of tools/json_mini.h they came with (keys holding U+0000,
 * duplicate keys, exact integers).
 */
#include "rk_test.h"
#include "json_mini.h"

/* rk_scenario_parse of a NUL-terminated text: the status; *normal gets the normal form (or
 * NULL). */
static rk_status parse(const char *text, char **normal) {
    size_t len = 0;
    *normal = NULL;
    return rk_scenario_parse(text, strlen(text), normal, &len);
}

static void expect_refused(const char *text, rk_status status, const char *fragment) {
    char *normal = (char *)"untouched";
    size_t len = 7;
    rk_status st = rk_scenario_parse(text, strlen(text), &normal, &len);
    CHECK_MSG(st == status, "status %d for %s: %s", (int)st, text, rk_last_error());
    CHECK_CONTAINS(rk_last_error(), fragment);
    CHECK(strcmp(normal, "untouched") == 0 && len == 7); /* out-parameters untouched */
}

static void test_scenario_parse_refuses(void) {
    TEST("rk_scenario_parse: the issue's files are refused, saying where and what");
    expect_refused("{\"name\":\"x\",\"feature\":\"counter\",\"steps\":[{\"advance_ms\\u0000\":1}]}",
                   RK_ERR_INVALID_ARGUMENT,
                   "malformed step at $.steps[0]: a step has exactly one of send, receive, advance_ms");
    expect_refused("{\"name\":\"x\",\"feature\":\"counter\",\"steps\":[{\"send\\u0000x\":\"increment\"}]}",
                   RK_ERR_INVALID_ARGUMENT, "found {\"send\\u0000x\":\"increment\"}");
    expect_refused("{\"name\":\"x\",\"feature\":\"counter\\u0000garbage\",\"steps\":[]}",
                   RK_ERR_INVALID_ARGUMENT,
                   "$.feature: expected a non-empty string without control or format characters, found \"counter\\u0000garbage\"");
    /* A name is printed on the runner's result line: a newline in it forged an "ok" line. */
    expect_refused("{\"name\":\"x\\nok     forged.scenario.json: fine\",\"feature\":\"counter\",\"steps\":[]}",
                   RK_ERR_INVALID_ARGUMENT,
                   "$.name: expected a non-empty string without control or format characters, found \"x\\nok     forged");
    expect_refused("{\"name\":\"\\u001b[31mred\\u009b\",\"feature\":\"counter\",\"steps\":[]}",
                   RK_ERR_INVALID_ARGUMENT, "$.name: expected a non-empty string without control or format characters");
    /* A bidi control reorders the result line; a 1 MB name was printed whole by every runner. */
    expect_refused("{\"name\":\"ok \\u202etxt.exe\",\"feature\":\"counter\",\"steps\":[]}",
                   RK_ERR_INVALID_ARGUMENT,
                   "$.name: expected a non-empty string without control or format characters, found \"ok \\u202Etxt.exe\"");
    {
        static char big[1100000];
        size_t n = (size_t)snprintf(big, sizeof big, "{\"name\":\"");
        memset(big + n, 'x', 1000000);
        n += 1000000;
        snprintf(big + n, sizeof big - n, "\",\"feature\":\"counter\",\"steps\":[]}");
        expect_refused(big, RK_ERR_INVALID_ARGUMENT,
                       "$.name: expected at most 512 bytes (runners print it on their result line), "
                       "found a string of 1000000 bytes");
        CHECK(strlen(rk_last_error()) < 300);
    }
    expect_refused("{\"name\":\"x\",\"feature\":\"counter\",\"steps\":[{\"send\":\"increment\",\"send\":\"decrement\"}]}",
                   RK_ERR_JSON, "duplicate key \"send\" at $.steps[0]");
    expect_refused("{\"name\":\"x\",\"feature\":\"counter\",\"steps\":[{\"resolve\":18446744073709551617,\"response\":1}]}",
                   RK_ERR_INVALID_ARGUMENT,
                   "malformed step at $.steps[0].resolve: expected a request id, a whole number from 1 to "
                   "18446744073709551615, found 18446744073709551617");
    expect_refused("{\"name\":\"x\",\"feature\":\"counter\",\"steps\":[{\"advance_ms\":9223372036854775808}]}",
                   RK_ERR_INVALID_ARGUMENT, "from 0 to 9223372036854775807, found 9223372036854775808");
    expect_refused("{\"name\":\"x\",\"feature\":\"counter\",\"clock\":\"test\",\"steps\":[]}",
                   RK_ERR_INVALID_ARGUMENT, "unknown key \"clock\" at $ (it belongs in \"options\")");
    expect_refused("[1", RK_ERR_JSON, "not JSON: ");
    /* Input reaches a message escaped: DEL and C1 controls too (fuzz_scenario found a raw
     * DEL), and cut. */
    expect_refused("{\"name\":\"x\",\"feature\":\"counter\",\"steps\":[{\"send\":1,"
                   "\"error\":{\"status\":\"RK_\x7f\\u0085\"}}]}",
                   RK_ERR_INVALID_ARGUMENT, "found \"RK_\\u007F\\u0085\"");
    {
        /* Nested 1000 deep: refused at the format's limit, in constant stack. */
        char deep[2100];
        size_t i, n = (size_t)sprintf(deep, "{\"name\":\"x\",\"feature\":\"counter\",\"steps\":[{\"send\":");
        for (i = 0; i < 997; i++) deep[n++] = '[';
        for (i = 0; i < 997; i++) deep[n++] = ']';
        deep[n++] = '}';
        deep[n++] = ']';
        deep[n++] = '}';
        deep[n] = '\0';
        expect_refused(deep, RK_ERR_JSON, "nested deeper than 516 levels");
    }
}

static void test_scenario_parse_normal_form(void) {
    char *normal = NULL;
    size_t len = 0;
    TEST("rk_scenario_parse: the normal form");
    CHECK_OK(parse("{\"steps\":[{\"state\":null,\"send\":\"increment\"},{\"advance_ms\":1.0},"
                   "{\"advance_ms\":9223372036854775807},{\"message\":\"m\",\"fail\":18446744073709551615}],"
                   "\"feature\":\"counter\",\"name\":\"n\",\"final_state\":null}",
                   &normal));
    CHECK_STR_EQ(normal, "{\"name\":\"n\",\"feature\":\"counter\",\"options\":{\"clock\":\"test\","
                         "\"initial_state\":null,\"provide\":[]},\"exhaustive\":true,\"steps\":["
                         "{\"send\":\"increment\"},{\"advance_ms\":1},{\"advance_ms\":9223372036854775807},"
                         "{\"fail\":18446744073709551615,\"message\":\"m\"}]}");
    rk_free(normal);
    /* len bytes only: what follows is not read. */
    {
        const char *text = "{\"name\":\"n\",\"feature\":\"f\",\"steps\":[]}garbage";
        CHECK_OK(rk_scenario_parse(text, strlen(text) - 7, &normal, &len));
        CHECK(normal != NULL && strlen(normal) == len);
        rk_free(normal);
        normal = NULL;
    }
}

static void test_scenario_parse_null_arguments(void) {
    char *normal = NULL;
    size_t len = 0;
    TEST("rk_scenario_parse: NULL arguments");
    CHECK_STATUS(rk_scenario_parse(NULL, 0, &normal, &len), RK_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rk_scenario_parse("{}", 2, NULL, &len), RK_ERR_INVALID_ARGUMENT);
    CHECK(normal == NULL);
}

/* rk_json_match: the description, or NULL when equal (and *equal set). */
static char *match(const char *expected, const char *actual, int *equal) {
    char *diff = (char *)"untouched";
    size_t len = 0;
    CHECK_OK(rk_json_match(expected, strlen(expected), actual, strlen(actual), equal, &diff, &len));
    CHECK(diff == NULL || strlen(diff) == len);
    return diff;
}

static void test_json_match(void) {
    int equal = -1;
    char *diff;
    TEST("rk_json_match: the format's rule");
    diff = match("{\"total\":500}", "{\"coupon\":null,\"total\":500}", &equal);
    CHECK(equal == 1 && diff == NULL); /* a null member equals an absent one */
    diff = match("[1,{\"a\":2.0}]", "[1.0,{\"a\":2}]", &equal);
    CHECK(equal == 1 && diff == NULL);
    diff = match("{\"count\":9223372036854775808}", "{\"count\":9223372036854775807}", &equal);
    CHECK(equal == 0);
    CHECK_STR_EQ(diff, "$.count: expected 9223372036854775808, actual 9223372036854775807");
    rk_free(diff);
    diff = match("{\"a\":true,\"b\":[1]}", "{\"a\":1,\"b\":[1,2],\"c\":\"x\"}", &equal);
    CHECK(equal == 0);
    CHECK_STR_EQ(diff, "$.a: expected true, actual 1\n$.b[1]: expected (missing), actual 2\n"
                       "$.c: expected (missing), actual \"x\"");
    rk_free(diff);
    /* out_diff may be NULL. */
    CHECK_OK(rk_json_match("1", 1, "2", 1, &equal, NULL, NULL));
    CHECK(equal == 0);
}

static void test_json_match_errors(void) {
    int equal = -1;
    TEST("rk_json_match: errors");
    CHECK_STATUS(rk_json_match("{", 1, "1", 1, &equal, NULL, NULL), RK_ERR_JSON);
    CHECK_CONTAINS(rk_last_error(), "expected: ");
    CHECK_STATUS(rk_json_match("1", 1, "[", 1, &equal, NULL, NULL), RK_ERR_JSON);
    CHECK_CONTAINS(rk_last_error(), "actual: ");
    CHECK(equal == -1); /* untouched */
    CHECK_STATUS(rk_json_match(NULL, 0, "1", 1, &equal, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rk_json_match("1", 1, NULL, 0, &equal, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rk_json_match("1", 1, "1", 1, NULL, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
}

static void test_json_mini(void) {
    char text[8192], err[160];
    size_t n = 0;
    int i;
    jm_value *v;
    uint64_t u = 0;
    int64_t s = 0;
    TEST("json_mini: keys holding U+0000, duplicate keys, exact integers");
    v = jm_parse("{\"send\\u0000x\":1,\"send\":2}", 26, err, sizeof err);
    CHECK(v != NULL);
    CHECK(jm_get(v, "send") != NULL && strcmp(jm_get(v, "send")->text, "2") == 0);
    CHECK(jm_get_n(v, "send\0x", 6) != NULL && strcmp(jm_get_n(v, "send\0x", 6)->text, "1") == 0);
    jm_free(v);
    CHECK(jm_parse("{\"a\\u0000\":1,\"a\\u0000\":2}", 25, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "the same key twice");
    /* A large object: sorted, not compared pairwise. */
    n += (size_t)sprintf(text + n, "{");
    for (i = 0; i < 400; i++) n += (size_t)sprintf(text + n, "%s\"k%d\":%d", i ? "," : "", (i * 7919) % 400, i);
    n += (size_t)sprintf(text + n, "}");
    CHECK_MSG((v = jm_parse(text, n, err, sizeof err)) != NULL, "%s", err);
    jm_free(v);
    n += (size_t)sprintf(text + n, ",\"k123\":0}");
    text[n - 11] = ' '; /* the first object's '}' */
    CHECK(jm_parse(text, n, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "the same key twice");
    v = jm_parse_str("[9223372036854775808,9223372036854775807,-0,0,18446744073709551616]");
    CHECK(v != NULL && v->count == 5);
    CHECK(!jm_equal(v->items[0], v->items[1], 0));
    CHECK(jm_equal(v->items[2], v->items[3], 0));
    CHECK(jm_uint64(v->items[0], &u) && u == 9223372036854775808ULL);
    CHECK(!jm_int64(v->items[0], &s) && jm_int64(v->items[1], &s) && s == INT64_MAX);
    CHECK(!jm_uint64(v->items[4], &u));
    jm_free(v);
}

int main(int argc, char **argv) {
    rk_t_select(argc, argv);
    rk_t_watchdog(60);
    test_scenario_parse_refuses();
    test_scenario_parse_normal_form();
    test_scenario_parse_null_arguments();
    test_json_match();
    test_json_match_errors();
    test_json_mini();
    RK_TEST_EXIT();
}
