/* expect: h_n_x_ue9_include_x_send_set_x_2 */
#include "hostile_0_actions.h"
int main(void) { rk_store *store = NULL; return (int)h_n_x_ue9_include_x_send_set_x_2(store, 5); }
