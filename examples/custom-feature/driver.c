/* Drives the user package's own feature from C, through libscoreboard.so. */
#include <stdio.h>
#include <string.h>
#include "reducerkit.h"

static int failures = 0, passes = 0;
#define CHECK(cond) do { if (cond) { passes++; } else { failures++; \
    fprintf(stderr, "%s:%d: CHECK(%s) failed: %s\n", __FILE__, __LINE__, #cond, rk_last_error()); } } while (0)

int main(void) {
    rk_store *store = NULL;
    char *json = NULL;
    CHECK(rk_features(&json, NULL) == RK_OK);
    CHECK(json && strstr(json, "\"scoreboard\"") != NULL);
    CHECK(json && strstr(json, "\"counter\"") == NULL);  /* only this library's features */
    rk_free(json);
    CHECK(rk_store_create("scoreboard", NULL, &store) == RK_OK);
    CHECK(rk_store_send(store, "{\"score\": {\"team\": \"home\", \"points\": 3}}") == RK_OK);
    CHECK(rk_store_send(store, "{\"score\": {\"team\": \"away\", \"points\": 2}}") == RK_OK);
    CHECK(rk_store_send(store, "{\"score\": {\"team\": \"middle\", \"points\": 2}}") == RK_ERR_ACTION);
    printf("bad team: %s\n", rk_last_error());
    CHECK(rk_store_state(store, &json, NULL) == RK_OK);
    printf("state: %s\n", json);
    CHECK(strcmp(json, "{\"home\":3,\"away\":2,\"log\":[\"home +3\",\"away +2\"]}") == 0);
    rk_free(json);
    rk_store_destroy(store);
    CHECK(rk_store_create("counter", NULL, &store) == RK_ERR_UNKNOWN_FEATURE);
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
