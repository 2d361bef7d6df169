/* expect: counter_send_increment */
#include "counter_actions.h"
int main(void) { rk_store *store = NULL; return (int)counter_send_increment(store, 1); }
