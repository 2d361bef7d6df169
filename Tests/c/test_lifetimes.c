/*
 * Effects that outlive their store's use: random action sequences on `search` (the debounced
 * effect sleeps on the test clock, and a new query cancels the sleeping one) and `counter`
 * (a timer, a fact), with stores destroyed while effects sleep, then recreated. Every effect's
 * task must end when its store is destroyed: under `make test-valgrind` (definite leaks are
 * errors) and `make test-asan` (LeakSanitizer), a task that never finished would leave its
 * Effect.run box and closure unreachable and fail this test.
 */
#include "rk_test.h"

#include <stdint.h>

/* Built with AddressSanitizer (`make test-asan`): LeakSanitizer can be asked for a check at
 * any moment. */
#if defined(__SANITIZE_ADDRESS__)
#define RK_T_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RK_T_LSAN 1
#endif
#endif
#ifdef RK_T_LSAN
#include <sanitizer/lsan_interface.h>
#endif

static uint64_t rng = 0x9E3779B97F4A7C15u;

static unsigned next_random(unsigned below) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % below);
}

static void random_search_run(int steps) {
    static const char *queries[] = {"\"\"", "\"s\"", "\"sw\"", "\"swi\"", "\"pe\"", "\"a\""};
    rk_store *s = CREATE("search", "{\"clock\":\"test\"}");
    char action[64];
    int i;
    for (i = 0; i < steps; i++) {
        switch (next_random(4)) {
        case 0:
        case 1:
            snprintf(action, sizeof action, "{\"queryChanged\":%s}", queries[next_random(6)]);
            CHECK_OK(rk_store_send(s, action));
            break;
        case 2:
            CHECK_OK(rk_store_advance_clock(s, (int64_t)next_random(400)));
            break;
        default:
            break; /* destroy with whatever is sleeping */
        }
    }
    rk_store_destroy(s);
}

static void random_counter_run(int steps) {
    static const char *actions[] = {"\"increment\"", "\"toggleTimer\"", "\"factButtonTapped\"",
                                    "\"decrement\""};
    rk_store *s = CREATE("counter", "{\"clock\":\"test\"}");
    int i;
    for (i = 0; i < steps; i++) {
        if (next_random(3) == 0) {
            CHECK_OK(rk_store_advance_clock(s, (int64_t)next_random(2500)));
        } else {
            CHECK_OK(rk_store_send(s, actions[next_random(4)]));
        }
    }
    rk_store_destroy(s);
}

/* A store destroyed while its only effect sleeps, many times: the sleeping tasks end. */
static void test_destroyed_while_debouncing(void) {
    int i, rounds = rk_t_under_valgrind() ? 50 : 1000;
    TEST("stores destroyed while their debounce sleeps");
    for (i = 0; i < rounds; i++) {
        rk_store *s = CREATE("search", "{\"clock\":\"test\"}");
        uint64_t effects = 0;
        CHECK_OK(rk_store_send(s, "{\"queryChanged\":\"sw\"}"));
        CHECK_OK(rk_store_effect_count(s, &effects));
        CHECK(effects == 1);
        rk_store_destroy(s);
    }
}

/* Whether LeakSanitizer finds nothing unreachable right now (1 without AddressSanitizer). */
static int leak_check_clean(void) {
#ifdef RK_T_LSAN
    return __lsan_do_recoverable_leak_check() == 0;
#else
    return 1;
#endif
}

/* While effects run, and right after their store is destroyed (cancelled tasks may still be
 * unwinding), every effect's boxes are reachable through plain addresses: a leak check at
 * that moment (libFuzzer runs one after an input, a process may exit) reports nothing. An
 * Effect holds its `.run` box as a word that LeakSanitizer must recognise; with the case tag
 * in the word's spare bits it reported the search effect's box (Search.swift:42) as a leak
 * whenever a check ran while the debounce slept (Effect.swift, `Operation`). */
static void test_effects_visible_to_leak_checks(void) {
    static const char *const clocks[] = {"{\"clock\":\"test\"}", "{\"clock\":\"live\"}"};
    int c, i;
    TEST("effects' boxes stay visible to leak checks while they run and after destroy");
    for (c = 0; c < 2; c++) {
        for (i = 0; i < 3; i++) {
            rk_store *s = CREATE("search", clocks[c]);
            uint64_t effects = 0;
            CHECK_OK(rk_store_send(s, "{\"queryChanged\":\"sw\"}"));
            if (i == 1) CHECK_OK(rk_store_send(s, "{\"queryChanged\":\"swi\"}")); /* cancels in flight */
            CHECK_MSG(leak_check_clean(), "search, %s: a leak reported while the debounce sleeps", clocks[c]);
            if (c == 0) {
                /* the test clock's debounce sleeps until advanced; a cancelled one has ended */
                CHECK_OK(rk_store_wait_idle(s, RK_T_MS(10000)));
                CHECK_OK(rk_store_effect_count(s, &effects));
                CHECK_MSG(effects == 1, "%llu effects", (unsigned long long)effects);
            }
            rk_store_destroy(s);
            CHECK_MSG(leak_check_clean(), "search, %s: a leak reported right after destroy", clocks[c]);
        }
    }
    {
        /* a cancellable timer: `.run { for await _ in clock.timer ... }.cancellable(id:)` */
        rk_store *s = CREATE("counter", "{\"clock\":\"test\"}");
        uint64_t effects = 0;
        CHECK_OK(rk_store_send(s, "\"toggleTimer\""));
        CHECK_OK(rk_store_advance_clock(s, 2500));
        CHECK_OK(rk_store_effect_count(s, &effects));
        CHECK(effects == 1);
        CHECK_MSG(leak_check_clean(), "counter: a leak reported while the timer runs");
        rk_store_destroy(s);
        CHECK_MSG(leak_check_clean(), "counter: a leak reported right after destroy");
    }
}

static void test_random_sequences(void) {
    int i, rounds = rk_t_under_valgrind() ? 30 : 500;
    TEST("random action sequences on search and counter, stores destroyed while effects sleep");
    for (i = 0; i < rounds; i++) {
        random_search_run(1 + (int)next_random(20));
        random_counter_run(1 + (int)next_random(20));
    }
}

int main(int argc, char **argv) {
    rk_t_select(argc, argv);
    test_destroyed_while_debouncing();
    test_effects_visible_to_leak_checks();
    test_random_sequences();
    RK_TEST_EXIT();
}
