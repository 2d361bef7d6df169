/* libFuzzer harness: reducerkit-check's handling of a scenario file (tools/reducerkit-check.c,
 * linked to the library). The input is the file's bytes. Checks:
 *   - rk_scenario_parse either refuses it, with RK_ERR_JSON or RK_ERR_INVALID_ARGUMENT and a
 *     bounded message without raw control characters, or gives a normal form that it takes
 *     back unchanged (the normal form of a normal form is itself), and that rk_json_match
 *     finds equal to itself;
 *   - the runner runs it (effects waited for 20 ms at most; its output goes to /dev/null)
 *     without a crash, a sanitizer report or a leak, whatever the file says.
 * Leaks are checked once, at exit, not after every input: the runner destroys each store it
 * makes, and rk_store_destroy() cancels the store's effects, which finish unwinding on the
 * library's threads after it returns (as Tests/c/test_scenarios.c says for valgrind). An
 * effect caught half-unwound right after an input read as a leak; a real leak stays
 * unreachable until exit, where it is still found (after those effects settled).
 * Seeds: Tests/fuzz/corpus/scenario (the scenarios, the wrong ones and the hostile ones). */
#define RKC_LINKED 1
#define RKC_MAIN rkc_main
#include "../../tools/reducerkit-check.c"
#include "fuzz_common.h"

/* A message of the library: not empty, bounded, no raw control character (input is quoted
 * with JSON escapes). */
static void check_message(const char *what) {
    const char *message = rk_last_error();
    size_t n = strlen(message), i;
    FUZZ_CHECK(n > 0, "%s failed without a message", what);
    FUZZ_CHECK(n < 4096, "%s: a message of %lu bytes", what, (unsigned long)n);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)message[i];
        FUZZ_CHECK(c >= 0x20 && c != 0x7F, "%s: a raw control character 0x%02x in: %s", what, c, message);
    }
}

/* Before the leak check at exit: let the effects of the last stores finish unwinding. */
static void settle(void) {
    struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, NULL);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    /* -detect_leaks=0 (after the command line's flags, so it wins): no check after each
     * input; LeakSanitizer still checks at exit, after settle(). */
    static char *args[256];
    static char no_per_input_leak_check[] = "-detect_leaks=0";
    int i, n = 0;
    for (i = 0; i < *argc && n < 254; i++) args[n++] = (*argv)[i];
    args[n++] = no_per_input_leak_check;
    args[n] = NULL;
    *argc = n;
    *argv = args;
    atexit(settle);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready = 0;
    static const char empty[1] = "";
    const char *text = size > 0 ? (const char *)data : empty;
    char *normal = NULL, *again = NULL, *diff = NULL;
    size_t normal_len = 0, again_len = 0, diff_len = 0;
    int equal = 0;
    rk_status st;
    if (!ready) {
        char err[256];
        FUZZ_CHECK(freopen("/dev/null", "w", stdout) != NULL, "cannot silence the runner's output");
        FUZZ_CHECK(rkc_load(NULL, err, sizeof err), "%s", err);
        ready = 1;
    }
    st = rk_scenario_parse(text, size, &normal, &normal_len);
    if (st != RK_OK) {
        FUZZ_CHECK(st == RK_ERR_JSON || st == RK_ERR_INVALID_ARGUMENT, "rk_scenario_parse gave %d: %s",
                   (int)st, rk_last_error());
        FUZZ_CHECK(normal == NULL, "rk_scenario_parse failed but set out_json");
        check_message("rk_scenario_parse");
    } else {
        FUZZ_CHECK(normal != NULL && strlen(normal) == normal_len, "a normal form of the wrong length");
        st = rk_scenario_parse(normal, normal_len, &again, &again_len);
        FUZZ_CHECK(st == RK_OK, "the normal form is refused (%s): %s", rk_last_error(), normal);
        FUZZ_CHECK(again_len == normal_len && memcmp(again, normal, normal_len) == 0,
                   "the normal form of the normal form differs:\n  %s\n  %s", normal, again);
        st = rk_json_match(normal, normal_len, normal, normal_len, &equal, &diff, &diff_len);
        FUZZ_CHECK(st == RK_OK && equal && diff == NULL, "a normal form does not match itself: %s",
                   diff ? diff : rk_last_error());
    }
    rk_free(normal);
    rk_free(again);
    rk_free(diff);
    rkc_run_text("fuzz.scenario.json", text, size, 0, 20);
    return 0;
}
