/* The senders of hostile_features.json (scripts/test-stubs.sh): every header of the fixture in
 * one program, which defines rk_store_send and rk_store_send_n itself to print each action's
 * JSON on a line; the script checks the lines against hostile_expected.json. The names below
 * are the generator's mangling, pinned: a change of the mangling must change this file. */
#include <stdio.h>
#include <string.h>

#include "hostile_0_actions.h"
#include "hostile_1_actions.h"
#include "hostile_2_actions.h"
#include "hostile_3_actions.h"
#include "hostile_4_actions.h"

/* The fixture's enum values and names hold code: if any of it reached the header as code,
 * this declaration would clash with it (or #error would stop the build). */
static int INJECTED = 7;

static int failures = 0;
#define CHECK(c) do { if (!(c)) { failures++; fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); } } while (0)

rk_status rk_store_send_n(rk_store *store, const char *action_json, size_t len) {
    (void)store;
    if (memchr(action_json, '\n', len) != NULL) failures++;  /* JSON lines: one per action */
    fwrite(action_json, 1, len, stdout);
    putchar('\n');
    return RK_OK;
}

rk_status rk_store_send(rk_store *store, const char *action_json) {
    return rk_store_send_n(store, action_json, strlen(action_json));
}

/* Prints ["label", "text"] (text as a JSON string, by the headers' own helper). */
static void print_string(const char *label, const char *text) {
    rk_stubs_buf b = {NULL, 0, 0, 0};
    rk_stubs_raw(&b, "[");
    rk_stubs_string(&b, label);
    rk_stubs_raw(&b, ",");
    rk_stubs_string(&b, text);
    rk_stubs_raw(&b, "]");
    CHECK(rk_stubs_send(NULL, &b) == RK_OK);
}

int main(void) {
    rk_store *s = NULL;  /* never used by the printing rk_store_send above */
    int i;
    print_string("feature", H_N_X_UE9_INCLUDE_X_FEATURE);
    print_string("feature", FEATURE_RK_STUBS_FEATURE);
    print_string("feature", TYPED_FEATURE);
    print_string("feature", TEST_FEATURE);
    print_string("feature", F_FEATURE);

    CHECK(h_n_x_ue9_include_x_send_say_hi_ue9_x(s) == RK_OK);
    CHECK(h_n_x_ue9_include_x_send_set_x(s, -42) == RK_OK);        /* setX */
    CHECK(h_n_x_ue9_include_x_send_set_x_2(s, "*/ \"x\" \\") == RK_OK);  /* set_x */
    CHECK(h_n_x_ue9_include_x_send_set_x_3(s, true) == RK_OK);     /* set-x */
    CHECK(h_n_x_ue9_include_x_send_x(s) == RK_OK);
    CHECK(h_n_x_ue9_include_x_send_send_x(s, H_N_X_UE9_INCLUDE_X_SEND_X_2_A_B) == RK_OK);
    CHECK(h_n_x_ue9_include_x_send_send_x(s, H_N_X_UE9_INCLUDE_X_SEND_X_2_A_B_2) == RK_OK);
    CHECK(h_n_x_ue9_include_x_send_keys(s,
        "b", 1, false, 2.5, "bool", 3, 4, "rk_json", 5, 6, 7, 8, 9, "a-b", "a_b",
        "\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac", "\"q\"", "back\\slash", "new\nline", 10,
        "#include <stdio.h>", "class", true, "match", "nul", false, "", "[1,{\"a\":null}]",
        "raw_json", "\?\?=", "keys-pick", H_N_X_UE9_INCLUDE_X_KEYS_PICK_INCLUDE) == RK_OK);
    for (i = 0; i <= (int)H_N_X_UE9_INCLUDE_X_PICK_A_5; i++) {
        CHECK(h_n_x_ue9_include_x_send_pick(s, (h_n_x_ue9_include_x_pick)i) == RK_OK);
        print_string("pick_json", h_n_x_ue9_include_x_pick_json(i));
    }
    CHECK(h_n_x_ue9_include_x_pick_json(-1) == NULL);
    CHECK(h_n_x_ue9_include_x_send_pick(s, (h_n_x_ue9_include_x_pick)99) == RK_OK);  /* null */
    CHECK(h_n_x_ue9_include_x_send_tuple(s, H_N_X_UE9_INCLUDE_X_TUPLE_0_X_Y, "*/", 11) == RK_OK);
    CHECK(h_n_x_ue9_include_x_send_action(s, 12) == RK_OK);
    CHECK(h_n_x_ue9_include_x_send_store(s, "store") == RK_OK);
    CHECK(h_n_x_ue9_include_x_send_state(s, false) == RK_OK);
    CHECK(h_n_x_ue9_include_x_send_test_store(s, 13) == RK_OK);
    CHECK(h_n_x_ue9_include_x_send_default(s, -0.5) == RK_OK);
    CHECK(h_n_x_ue9_include_x_send_n_bullet(s, "\"\"\"\\N{BULLET}") == RK_OK);
    CHECK(h_n_x_ue9_include_x_send_asm(s) == RK_OK);

    CHECK(feature_rk_stubs_send_raw(s, FEATURE_RK_STUBS_RAW_BUF) == RK_OK);
    CHECK(feature_rk_stubs_send_buf(s, 14) == RK_OK);
    CHECK(feature_rk_stubs_send_send(s) == RK_OK);
    CHECK(typed_send_dict(s, 15) == RK_OK);
    CHECK(test_send_store(s) == RK_OK);
    CHECK(f_send_eature(s, "F") == RK_OK);

    CHECK(INJECTED == 7);
    if (failures) fprintf(stderr, "hostile C program: %d failures\n", failures);
    return failures ? 1 : 0;
}
