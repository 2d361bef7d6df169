#include "CReducerKitTestingSupport.h"

/* Runs when the test binary that links ReducerKitTesting loads, so that a runtime issue
 * (a child action without child state, a test clock whose sleepers never settle) fails the
 * running test even in a test that never creates a TestStore. */
__attribute__((constructor)) static void reducerkit_testing_init(void) {
    reducerkit_testing_install_issue_reporting();
}
