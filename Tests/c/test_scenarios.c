/*
 * test_scenarios.c — the scenarios of $REDUCERKIT_SCENARIOS (default Tests/scenarios) run by
 * reducerkit-check's runner (tools/reducerkit-check.c), linked to the library directly
 * instead of loading it with dlopen, so that the valgrind, AddressSanitizer and codec-check
 * runs of the C tests cover the scenarios too. Under valgrind effects get 30 s.
 *
 *   usage: test_scenarios [FILE_OR_DIRECTORY ...]
 */
#define RKC_LINKED 1
#define RKC_MAIN rkc_main
#include "../../tools/reducerkit-check.c"

int main(int argc, char **argv) {
    const char *dir = getenv("REDUCERKIT_SCENARIOS");
    const char *valgrind = getenv("RK_UNDER_VALGRIND");
    char *args[64];
    int n = 0, i;
    args[n++] = argv[0];
    args[n++] = "--timeout-ms";
    args[n++] = (valgrind != NULL && valgrind[0] != '\0') ? "30000" : "1000";
    for (i = 1; i < argc && n < 63; i++) args[n++] = argv[i];
    if (argc == 1) args[n++] = (char *)((dir != NULL && dir[0] != '\0') ? dir : "Tests/scenarios");
    args[n] = NULL;
    n = rkc_main(n, args);
    /* Effects cancelled by the last rk_store_destroy finish unwinding on the library's threads
       after it returns; under valgrind, let them, so the leak check at exit does not catch a
       task between two threads (a block only a register points to reads as lost). */
    if (valgrind != NULL && valgrind[0] != '\0') {
        struct timespec pause = {0, 300 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return n;
}
