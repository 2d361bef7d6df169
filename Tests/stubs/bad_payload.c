/* expect: counter_send_set_count */
#include "counter_actions.h"
int main(void) { rk_store *store = NULL; return (int)counter_send_set_count(store, "5"); }
