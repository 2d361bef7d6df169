/* Drives the user package's own feature from C, through libscoreboard.so: actions, state,
 * and the feature's host endpoint "saveScore" answered by this program. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reducerkit.h"

static int failures = 0, passes = 0;
#define CHECK(cond) do { if (cond) { passes++; } else { failures++; \
    fprintf(stderr, "%s:%d: CHECK(%s) failed: %s\n", __FILE__, __LINE__, #cond, rk_last_error()); } } while (0)

/* The request id of an event {"id": N, ...} (events always start with "id"). */
static uint64_t event_id(const char *event) {
    const char *at = strstr(event, "\"id\":");
    return at ? strtoull(at + 5, NULL, 10) : 0;
}

/* Answers each saveScore request at once, from inside the callback. */
static void on_request(void *userdata, const char *event, size_t len) {
    rk_store *store = (rk_store *)userdata;
    (void)len;
    printf("request event: %s\n", event);
    if (strstr(event, "\"cancelled\"") != NULL) return;
    CHECK(rk_store_resolve(store, event_id(event), "{\"id\": \"game-7\", \"rank\": 3}") == RK_OK);
}

int main(void) {
    rk_store *store = NULL;
    char *json = NULL;
    int fd = -1;
    struct pollfd p;
    uint64_t id;

    CHECK(rk_features(&json, NULL) == RK_OK);
    CHECK(json && strstr(json, "\"scoreboard\"") != NULL);
    CHECK(json && strstr(json, "\"counter\"") == NULL);  /* only this library's features */
    CHECK(json && strstr(json, "\"saveScore\"") != NULL);  /* its endpoint is listed */
    rk_free(json);

    /* Without "provide", the Swift implementation answers. */
    CHECK(rk_store_create("scoreboard", NULL, &store) == RK_OK);
    CHECK(rk_store_send(store, "{\"score\": {\"team\": \"home\", \"points\": 3}}") == RK_OK);
    CHECK(rk_store_send(store, "{\"score\": {\"team\": \"away\", \"points\": 2}}") == RK_OK);
    CHECK(rk_store_send(store, "{\"score\": {\"team\": \"middle\", \"points\": 2}}") == RK_ERR_ACTION);
    printf("bad team: %s\n", rk_last_error());
    CHECK(rk_store_send(store, "\"save\"") == RK_OK);
    CHECK(rk_store_wait_idle(store, 5000) == RK_OK);
    CHECK(rk_store_state(store, &json, NULL) == RK_OK);
    printf("state: %s\n", json);
    CHECK(strcmp(json, "{\"home\":3,\"away\":2,\"log\":[\"home +3\",\"away +2\",\"saved as local-3-2\"],"
                       "\"saved\":{\"id\":\"local-3-2\",\"rank\":0}}") == 0);
    rk_free(json);
    rk_store_destroy(store);

    /* The host answers saveScore from a callback. */
    CHECK(rk_store_create("scoreboard", "{\"provide\": [\"saveScore\"]}", &store) == RK_OK);
    CHECK(rk_store_on_request(store, on_request, store) == RK_OK);
    CHECK(rk_store_send(store, "{\"score\": {\"team\": \"home\", \"points\": 1}}") == RK_OK);
    CHECK(rk_store_send(store, "\"save\"") == RK_OK);
    CHECK(rk_store_wait_idle(store, 5000) == RK_OK);
    CHECK(rk_store_state(store, &json, NULL) == RK_OK);
    printf("state: %s\n", json);
    CHECK(strstr(json, "\"saved\":{\"id\":\"game-7\",\"rank\":3}") != NULL);
    rk_free(json);

    /* Or from a queue and its file descriptor (poll, epoll, an event loop). */
    CHECK(rk_store_on_request(store, NULL, NULL) == RK_OK);
    CHECK(rk_store_request_fd(store, &fd) == RK_OK);
    CHECK(rk_store_send(store, "\"save\"") == RK_OK);
    p.fd = fd;
    p.events = POLLIN;
    CHECK(poll(&p, 1, 5000) == 1);
    CHECK(rk_store_take_requests(store, &json, NULL) == RK_OK);
    printf("queued: %s\n", json);
    CHECK(strstr(json, "\"name\":\"saveScore\",\"payload\":{\"home\":1,\"away\":0}") != NULL);
    id = event_id(json);
    rk_free(json);
    /* A response of the wrong shape is refused with its path; the request stays pending. */
    CHECK(rk_store_resolve(store, id, "{\"id\": \"g\", \"rank\": \"first\"}") == RK_ERR_RESPONSE);
    printf("wrong response: %s\n", rk_last_error());
    CHECK(rk_store_resolve(store, id, "{\"id\": \"g\", \"rank\": 1, \"extra\": true}") == RK_ERR_RESPONSE);
    printf("wrong response: %s\n", rk_last_error());
    CHECK(rk_store_resolve(store, id, "{\"id\": \"game-8\", \"rank\": 1}") == RK_OK);
    CHECK(rk_store_resolve(store, id, "{\"id\": \"game-8\", \"rank\": 1}") == RK_ERR_INVALID_ARGUMENT);
    printf("answered twice: %s\n", rk_last_error());
    CHECK(rk_store_wait_idle(store, 5000) == RK_OK);
    CHECK(rk_store_state(store, &json, NULL) == RK_OK);
    CHECK(strstr(json, "\"saved\":{\"id\":\"game-8\",\"rank\":1}") != NULL);
    rk_free(json);
    rk_store_destroy(store);

    CHECK(rk_store_create("scoreboard", "{\"provide\": [\"save\"]}", &store) == RK_ERR_INVALID_ARGUMENT);
    printf("unknown endpoint: %s\n", rk_last_error());
    CHECK(rk_store_create("counter", NULL, &store) == RK_ERR_UNKNOWN_FEATURE);
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
