/*
 * rk_test.h — a tiny test harness for the C tests of ReducerKit.
 *
 *   CHECK(cond)                  counts a check; on failure prints file:line, the expression
 *                                and rk_last_error()
 *   CHECK_MSG(cond, fmt, ...)    the same with a printf-style explanation
 *   CHECK_STATUS(call, expected) runs `call` (an rk_status expression) once and checks it
 *   CHECK_STR_EQ(a, b)           two C strings are equal (NULL-safe)
 *   CHECK_CONTAINS(hay, needle)  `needle` occurs in `hay` (NULL-safe)
 *   KNOWN_BUG(cond, why)         a check that documents a library bug: a failure is printed
 *                                as "KNOWN BUG" and counted apart, but does not fail the run
 *   TEST(name)                   opens a test case: the function it is in (see "Choosing cases")
 *   CREATE(feature, options)     creates a store or stops the run
 *   rk_t_state(store), rk_t_version(store), CHECK_STATE(store, text)
 *   rk_t_select(argc, argv)      reads the command line (first thing in main)
 *   RK_TEST_EXIT()               prints "N passed, M failed" and returns the exit status
 *
 * Choosing cases: `build/c/test_requests "a replaced callback"` runs only the cases whose
 * name contains one of the arguments (case-sensitive substring); `--list` prints every case's
 * name and runs none. A name that matches no case is an error (exit status 2). With no
 * argument every case runs. A case is one void function whose first statement is
 * TEST("name") (after declarations without side effects: create stores and allocate after
 * it); a case not chosen returns there, so none of its checks run. A second TEST in the same
 * function does not compile ("redeclaration of enumerator rk_t_one_TEST_per_function").
 *
 * Header-only: every function is static inline, so unused ones cost nothing and do not warn.
 */
#ifndef RK_TEST_H
#define RK_TEST_H

/* pthreads, nanosleep, clock_gettime, alarm: include this header before any system header. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "reducerkit.h"

static int rk_t_passed = 0;
static int rk_t_failed = 0;
static int rk_t_known = 0;

/* Counts one check; a failure prints file:line, the expression, an optional printf-style
 * explanation and rk_last_error(). */
static inline void rk_t_report(int ok, const char *file, int line, const char *expr,
                               const char *fmt, ...) {
    va_list ap;
    if (ok) {
        rk_t_passed++;
        return;
    }
    rk_t_failed++;
    fflush(stdout); /* keep stdout and stderr in order in a log */
    fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, expr);
    if (fmt != NULL) {
        fprintf(stderr, "    ");
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, "\n");
    }
    fprintf(stderr, "    rk_last_error(): \"%s\"\n", rk_last_error());
    fflush(stderr);
}

#define CHECK(cond) rk_t_report(!!(cond), __FILE__, __LINE__, #cond, NULL)

/* C99 requires at least one argument for "...": the format is part of the variadic list. */
#define CHECK_MSG(cond, ...) rk_t_report(!!(cond), __FILE__, __LINE__, #cond, __VA_ARGS__)

static inline rk_status rk_t_check_status(rk_status got, rk_status expected, const char *file,
                                          int line, const char *expr) {
    rk_t_report(got == expected, file, line, expr, "status %d (%s), expected %d (%s)", (int)got,
                rk_status_string(got), (int)expected, rk_status_string(expected));
    return got;
}

/* Evaluates `call` once; returns its status. */
#define CHECK_STATUS(call, expected) \
    rk_t_check_status((call), (expected), __FILE__, __LINE__, #call " == " #expected)

#define CHECK_OK(call) CHECK_STATUS(call, RK_OK)

static inline void rk_t_check_str_eq(const char *a, const char *b, const char *file, int line,
                                     const char *expr) {
    int ok = (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
    rk_t_report(ok, file, line, expr, "\"%.400s\"\n    != \"%.400s\"", a ? a : "(null)",
                b ? b : "(null)");
}

#define CHECK_STR_EQ(a, b) rk_t_check_str_eq((a), (b), __FILE__, __LINE__, #a " == " #b)

static inline void rk_t_check_contains(const char *hay, const char *needle, const char *file,
                                       int line, const char *expr) {
    int ok = hay != NULL && needle != NULL && strstr(hay, needle) != NULL;
    rk_t_report(ok, file, line, expr, "\"%.400s\" does not contain \"%s\"",
                hay ? hay : "(null)", needle ? needle : "(null)");
}

#define CHECK_CONTAINS(hay, needle) \
    rk_t_check_contains((hay), (needle), __FILE__, __LINE__, #hay " contains " #needle)

static inline void rk_t_known_bug(int ok, const char *file, int line, const char *expr,
                                  const char *why) {
    if (ok) {
        rk_t_passed++;
        return;
    }
    rk_t_known++;
    fflush(stdout);
    fprintf(stderr, "%s:%d: KNOWN BUG (not counted as a failure): %s\n    %s\n", file, line, expr,
            why);
    fprintf(stderr, "    rk_last_error(): \"%s\"\n", rk_last_error());
}

#define KNOWN_BUG(cond, why) rk_t_known_bug(!!(cond), __FILE__, __LINE__, #cond, (why))

/* ---- Choosing cases ------------------------------------------------------------------ */

#define RK_T_MAX_NAMES 64
static const char *rk_t_program = "test";
static int rk_t_listing = 0;
static int rk_t_name_count = 0;
static const char *rk_t_names[RK_T_MAX_NAMES];
static int rk_t_name_hits[RK_T_MAX_NAMES];

/* PROGRAM [--list] [NAME...]: exits 2 on an unknown option or too many names. */
static inline void rk_t_select(int argc, char **argv) {
    int i, options = 1;
    if (argc > 0 && argv[0] != NULL) rk_t_program = argv[0];
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (options && strcmp(a, "--") == 0) {
            options = 0;
        } else if (options && strcmp(a, "--list") == 0) {
            rk_t_listing = 1;
        } else if (options && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
            printf("usage: %s [--list] [NAME...]\n"
                   "  runs the test cases whose name contains one of the NAMEs (all without one);\n"
                   "  --list prints the cases' names and runs none\n",
                   rk_t_program);
            exit(0);
        } else if (options && a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "%s: unknown option \"%.100s\" (expected --list, --help or a name)\n",
                    rk_t_program, a);
            exit(2);
        } else if (rk_t_name_count == RK_T_MAX_NAMES) {
            fprintf(stderr, "%s: more than %d test names\n", rk_t_program, RK_T_MAX_NAMES);
            exit(2);
        } else {
            rk_t_names[rk_t_name_count++] = a;
        }
    }
}

/* Whether the case `name` runs (printing its header) or is listed / skipped. */
static inline int rk_t_case(const char *name) {
    int i, chosen = rk_t_name_count == 0;
    if (rk_t_listing) {
        printf("%s\n", name);
        return 0;
    }
    for (i = 0; i < rk_t_name_count; i++) {
        if (strstr(name, rk_t_names[i]) != NULL) {
            rk_t_name_hits[i]++;
            chosen = 1;
        }
    }
    if (chosen) {
        printf("-- %s\n", name);
        fflush(stdout);
    }
    return chosen;
}

/* Opens the case `name`: the rest of the enclosing void function runs only if it is chosen.
 * The enumerator makes a second TEST in one function a compile error. */
#define TEST(name) \
    enum { rk_t_one_TEST_per_function = 1 }; \
    if (!rk_t_case(name)) return

static inline int rk_t_exit(void) {
    int i, unmatched = 0;
    fflush(stdout);
    if (rk_t_listing) return rk_t_failed == 0 ? 0 : 1;
    for (i = 0; i < rk_t_name_count; i++) {
        if (rk_t_name_hits[i] == 0) {
            fprintf(stderr, "%s: no test case matches \"%.200s\" (%s --list lists them)\n",
                    rk_t_program, rk_t_names[i], rk_t_program);
            unmatched = 1;
        }
    }
    if (unmatched) return 2;
    if (rk_t_known > 0) printf("(%d known bug check(s) failed; see KNOWN BUG above)\n", rk_t_known);
    printf("%d passed, %d failed\n", rk_t_passed, rk_t_failed);
    fflush(stdout);
    return rk_t_failed == 0 ? 0 : 1;
}

#define RK_TEST_EXIT() return rk_t_exit()

/* 1 under make test-valgrind (scripts/test-c.sh sets RK_UNDER_VALGRIND=1): shrink loops. */
static inline int rk_t_under_valgrind(void) {
    const char *v = getenv("RK_UNDER_VALGRIND");
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

/* How much longer than on a quiet machine the caps of waits may be: the number in
 * REDUCERKIT_TEST_TIMEOUT_SCALE (default 1; e.g. 5 on a machine running other builds), times
 * 20 under valgrind. Tests wait on conditions; a cap only turns a real hang into a failure,
 * so it is generous and scaled, never a measure of speed. */
static inline double rk_t_timeout_scale(void) {
    const char *v = getenv("REDUCERKIT_TEST_TIMEOUT_SCALE");
    double scale = v != NULL ? strtod(v, NULL) : 1.0;
    if (!(scale >= 1.0) || scale > 1000.0) scale = 1.0;
    return rk_t_under_valgrind() ? scale * 20.0 : scale;
}

/* A cap of `ms` milliseconds on a quiet machine, scaled (rk_t_timeout_scale()). */
static inline int64_t rk_t_cap_ms(int64_t ms) { return (int64_t)((double)ms * rk_t_timeout_scale()); }
#define RK_T_MS(ms) rk_t_cap_ms(ms)

/* Kills the test (SIGALRM, a non-zero exit) if it runs longer than `seconds` (scaled like
 * every cap): a deadlock fails the run instead of hanging it. 0 turns it off. */
static inline void rk_t_watchdog(unsigned seconds) {
    alarm(seconds == 0 ? 0 : (unsigned)rk_t_cap_ms((int64_t)seconds));
}

static inline void rk_t_sleep_ms(long ms) {
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Monotonic milliseconds. */
static inline double rk_t_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- Store helpers ------------------------------------------------------------------- */

/* The store's state (rk_free it), or NULL after a failed check. */
static inline char *rk_t_state_at(rk_store *store, const char *file, int line) {
    char *json = NULL;
    size_t len = 0;
    rk_status st = rk_store_state(store, &json, &len);
    if (st != RK_OK) {
        rk_t_report(0, file, line, "rk_store_state(store) == RK_OK", "status %s",
                    rk_status_string(st));
        return NULL;
    }
    if (json == NULL || strlen(json) != len) {
        rk_t_report(0, file, line, "rk_store_state: out_len == strlen(out_json)", NULL);
    }
    return json;
}

#define rk_t_state(store) rk_t_state_at((store), __FILE__, __LINE__)

/* The store's version, or UINT64_MAX after a failed check. */
static inline uint64_t rk_t_version_at(rk_store *store, const char *file, int line) {
    uint64_t v = UINT64_MAX;
    rk_status st = rk_store_version(store, &v);
    if (st != RK_OK) {
        rk_t_report(0, file, line, "rk_store_version(store) == RK_OK", "status %s",
                    rk_status_string(st));
        return UINT64_MAX;
    }
    return v;
}

#define rk_t_version(store) rk_t_version_at((store), __FILE__, __LINE__)

/* Whether the store's state is byte for byte `expected` (prints both if not). */
#define CHECK_STATE(store, expected) \
    do { \
        char *rk_t_s_ = rk_t_state(store); \
        CHECK_STR_EQ(rk_t_s_, (expected)); \
        rk_free(rk_t_s_); \
    } while (0)

/* Creates a store or fails the run at once (nothing else can be tested without it). */
static inline rk_store *rk_t_create(const char *feature, const char *options, const char *file,
                                    int line) {
    rk_store *store = NULL;
    rk_status st = rk_store_create(feature, options, &store);
    if (st != RK_OK || store == NULL) {
        rk_t_report(0, file, line, "rk_store_create", "feature \"%s\", options %s: %s", feature,
                    options ? options : "NULL", rk_status_string(st));
        printf("%d passed, %d failed\n", rk_t_passed, rk_t_failed);
        exit(1);
    }
    rk_t_passed++;
    return store;
}

#define CREATE(feature, options) rk_t_create((feature), (options), __FILE__, __LINE__)

#endif /* RK_TEST_H */
