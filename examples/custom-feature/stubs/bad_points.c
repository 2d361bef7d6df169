/* expect: scoreboard_send_score */
#include "scoreboard_actions.h"
int main(void) { rk_store *store = NULL; return (int)scoreboard_send_score(store, SCOREBOARD_SCORE_TEAM_HOME, "3"); }
