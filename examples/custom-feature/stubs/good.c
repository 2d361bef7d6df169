/* The scoreboard's generated C senders. */
#include <stdio.h>
#include <string.h>

#include "scoreboard_actions.h"

int main(void) {
    rk_store *store = NULL;
    char *json = NULL;
    int ok;
    if (rk_store_create(SCOREBOARD_FEATURE, NULL, &store) != RK_OK) return 1;
    ok = scoreboard_send_score(store, SCOREBOARD_SCORE_TEAM_AWAY, 2) == RK_OK
      && scoreboard_send_saved(store, "game \"7\"", 1) == RK_OK
      && rk_store_state(store, &json, NULL) == RK_OK
      && strcmp(json, "{\"home\":0,\"away\":2,\"log\":[\"away +2\",\"saved as game \\\"7\\\"\"],"
                      "\"saved\":{\"id\":\"game \\\"7\\\"\",\"rank\":1}}") == 0;
    printf("typed scoreboard C program: %s (%s)\n", ok ? "ok" : "FAILED", json ? json : rk_last_error());
    rk_free(json);
    rk_store_destroy(store);
    return ok ? 0 : 1;
}
