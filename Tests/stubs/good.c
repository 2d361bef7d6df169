/* A C program over the generated senders: compile-time checked names and payload types. */
#include <stdio.h>
#include <string.h>

#include "counter_actions.h"
#include "search_actions.h"
#include "todos_actions.h"

static int failures = 0;
#define CHECK(c) do { if (!(c)) { failures++; fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #c, rk_last_error()); } } while (0)

static int state_is(rk_store *store, const char *expected) {
    char *json = NULL;
    int same;
    if (rk_store_state(store, &json, NULL) != RK_OK) return 0;
    same = strcmp(json, expected) == 0;
    if (!same) fprintf(stderr, "state %s\n   != %s\n", json, expected);
    rk_free(json);
    return same;
}

int main(void) {
    rk_store *store = NULL;
    char message[256];
    /* The generated create function: the library's feature has the header's schema. */
    CHECK(counter_store_create("{\"clock\": \"test\"}", &store, message, sizeof message) == RK_OK);
    rk_store_destroy(store);
    store = NULL;
    CHECK(rk_store_create(COUNTER_FEATURE, "{\"clock\": \"test\"}", &store) == RK_OK);
    CHECK(counter_send_increment(store) == RK_OK);
    CHECK(counter_send_set_count(store, -42) == RK_OK);
    CHECK(counter_send_fact_response(store, "a \"quoted\"\\ fact\n\t\x01") == RK_OK);
    CHECK(state_is(store, "{\"count\":-42,\"fact\":\"a \\\"quoted\\\"\\\\ fact\\n\\t\\u0001\",\"isTimerOn\":false}"));
    rk_store_destroy(store);

    CHECK(rk_store_create(TODOS_FEATURE, "{\"clock\": \"test\"}", &store) == RK_OK);
    CHECK(todos_send_add_todo(store, "Milk \xc3\xa9") == RK_OK);
    CHECK(todos_send_toggle(store, 1) == RK_OK);
    CHECK(todos_send_set_filter(store, TODOS_SET_FILTER_COMPLETED) == RK_OK);
    CHECK(todos_send_clear_completed(store) == RK_OK);
    CHECK(state_is(store, "{\"todos\":[],\"filter\":\"completed\",\"nextID\":2}"));
    rk_store_destroy(store);

    CHECK(rk_store_create(SEARCH_FEATURE, "{\"clock\": \"test\"}", &store) == RK_OK);
    CHECK(search_send_query_changed(store, "sw") == RK_OK);
    CHECK(search_send_search_response(store, "[\"a\", \"b\"]") == RK_OK);
    CHECK(state_is(store, "{\"query\":\"sw\",\"results\":[\"a\",\"b\"]}"));
    rk_store_destroy(store);
    printf("typed C program: %s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
