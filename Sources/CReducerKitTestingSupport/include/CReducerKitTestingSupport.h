/* Makes linking ReducerKitTesting enough for ReducerKit's runtime issues to fail tests. */
#ifndef CREDUCERKIT_TESTING_SUPPORT_H
#define CREDUCERKIT_TESTING_SUPPORT_H
/* Defined in Swift (ReducerKitTesting): routes runtime issues to the running test. */
void reducerkit_testing_install_issue_reporting(void);
#endif
