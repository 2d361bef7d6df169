/*
 * Hangs and traps that 0.1.0 let through the C boundary: stores whose callbacks send to each
 * other (a lock-order deadlock), a test clock advanced past Duration's range (a trap), and a
 * periodic timer advanced by a huge duration (a call that never returned).
 */
#include "rk_test.h"

#include <pthread.h>
#include <stdint.h>
#include <signal.h>
#include <sys/wait.h>

#define TEST_CLOCK "{\"clock\":\"test\"}"

/* Reads "count" out of a counter state. */
static long count_of(const char *json) {
    const char *at = strstr(json, "\"count\":");
    return at ? strtol(at + 8, NULL, 10) : -1;
}

typedef struct {
    rk_store *other;   /* the store this one's callback sends to */
    long last_count;   /* touched only by this store's callbacks: one at a time per store */
    long echoes;
} peer;

/* Sends to the other store whenever this store's count changed. The echo ("toggleTimer")
 * leaves the other store's count alone, so the exchange ends. */
static void echo_to_other(void *userdata, const char *json, size_t len, uint64_t version) {
    peer *p = (peer *)userdata;
    long count = count_of(json);
    (void)len;
    (void)version;
    if (count == p->last_count) return;
    p->last_count = count;
    p->echoes++;
    if (rk_store_send(p->other, "\"toggleTimer\"") != RK_OK) {
        fprintf(stderr, "echo failed: %s\n", rk_last_error());
        abort();
    }
}

typedef struct {
    rk_store *store;
    int rounds;
} sender;

static void *send_increments(void *arg) {
    sender *s = (sender *)arg;
    for (int i = 0; i < s->rounds; i++) {
        if (rk_store_send(s->store, "\"increment\"") != RK_OK) {
            fprintf(stderr, "send failed: %s\n", rk_last_error());
            abort();
        }
    }
    return NULL;
}

static void test_callbacks_that_send_to_each_other(void) {
    rk_store *a, *b;
    peer pa = {NULL, 0, 0}, pb = {NULL, 0, 0};
    uint64_t ta = 0, tb = 0;
    int rounds = rk_t_under_valgrind() ? 500 : 10000;
    sender sa = {NULL, rounds}, sb = {NULL, rounds};
    pthread_t t1, t2;
    char *json;
    TEST("two stores whose callbacks send to each other, driven from two threads");
    a = CREATE("counter", TEST_CLOCK);
    b = CREATE("counter", TEST_CLOCK);
    pa.other = sb.store = b;
    pb.other = sa.store = a;
    CHECK_OK(rk_store_subscribe(a, echo_to_other, &pa, &ta));
    CHECK_OK(rk_store_subscribe(b, echo_to_other, &pb, &tb));
    /* On 0.1.0 this deadlocked within the first rounds: thread 1 held A while its callback
     * waited for B, thread 2 held B while its callback waited for A. The watchdog turns a hang
     * into a failure. */
    rk_t_watchdog(120);
    CHECK(pthread_create(&t1, NULL, send_increments, &sa) == 0);
    CHECK(pthread_create(&t2, NULL, send_increments, &sb) == 0);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    CHECK_OK(rk_store_unsubscribe(a, ta));
    CHECK_OK(rk_store_unsubscribe(b, tb));
    json = rk_t_state(a);
    CHECK_MSG(count_of(json) == rounds, "A: %s", json);
    rk_free(json);
    json = rk_t_state(b);
    CHECK_MSG(count_of(json) == rounds, "B: %s", json);
    rk_free(json);
    /* Callbacks are coalesced per outer send, so each store saw between 1 and `rounds`
     * changes, and the last one it saw was the final count. */
    CHECK_MSG(pa.echoes >= 1 && pa.echoes <= rounds, "A echoed %ld times", pa.echoes);
    CHECK_MSG(pb.echoes >= 1 && pb.echoes <= rounds, "B echoed %ld times", pb.echoes);
    CHECK(pa.last_count == rounds && pb.last_count == rounds);
    rk_store_destroy(a);
    rk_store_destroy(b);
    rk_t_watchdog(0);
}

typedef struct {
    int calls;
    uint64_t last_version;
    long last_count;
} recorder;

static void record(void *userdata, const char *json, size_t len, uint64_t version) {
    recorder *r = (recorder *)userdata;
    (void)len;
    r->calls++;
    r->last_version = version;
    r->last_count = count_of(json);
}

static void test_callbacks_coalesce_per_send(void) {
    rk_store *s;
    recorder r = {0, 0, 0};
    uint64_t token = 0, version = 0;
    TEST("one callback per send, with the final state and its version");
    s = CREATE("todos", NULL);
    CHECK_OK(rk_store_subscribe(s, record, &r, &token));
    CHECK_OK(rk_store_send(s, "{\"addTodo\":{\"title\":\"a\"}}"));
    CHECK(r.calls == 1);
    CHECK_OK(rk_store_version(s, &version));
    CHECK(r.last_version == version);
    CHECK_OK(rk_store_unsubscribe(s, token));
    rk_store_destroy(s);
}

static void test_advance_never_traps(void) {
    rk_store *s;
    TEST("rk_store_advance_clock past the end of time saturates");
    s = CREATE("counter", TEST_CLOCK);
    /* 0.1.0 trapped ("Overflow in +") once the sum passed Duration's range, killing the
     * process. INT64_MAX ms is ~9.2e15 s; 1,100 of them pass the clock's limit of INT64_MAX s. */
    {
        int failures = 0;
        for (int i = 0; i < 1100; i++) failures += rk_store_advance_clock(s, INT64_MAX) != RK_OK;
        CHECK(failures == 0);
    }
    CHECK_STATUS(rk_store_advance_clock(s, -1), RK_ERR_INVALID_ARGUMENT);
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK_STATE(s, "{\"count\":1,\"fact\":null,\"isTimerOn\":false}");
    /* A timer started at the end of time never comes due, and nothing traps. */
    CHECK_OK(rk_store_send(s, "\"toggleTimer\""));
    CHECK_OK(rk_store_advance_clock(s, INT64_MAX));
    CHECK_OK(rk_store_send(s, "\"toggleTimer\""));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    rk_store_destroy(s);
}

static void test_advance_is_bounded(void) {
    rk_store *s;
    char *json;
    TEST("a periodic timer advanced by a huge duration times out, and the store stays usable");
    s = CREATE("counter", TEST_CLOCK);
    CHECK_OK(rk_store_send(s, "\"toggleTimer\""));
    rk_t_watchdog(120);
    /* 0.1.0: ran forever (a one-second timer over 292 million years). */
    CHECK_STATUS(rk_store_advance_clock(s, INT64_MAX / 2), RK_ERR_TIMEOUT);
    CHECK_CONTAINS(rk_last_error(), "the test clock stopped at");
    /* The cap is a count of wake-ups, not wall time: the same clock reading everywhere. */
    CHECK_CONTAINS(rk_last_error(), "sleepers woke and more were due");
    rk_t_watchdog(0);
    json = rk_t_state(s);
    /* Deterministic: one tick per wake-up, as many as the cap allows. */
    CHECK_MSG(count_of(json) == 100000, "the timer ticked 100000 times: %s", json);
    rk_free(json);
    /* Consistent: the timer can be stopped, and the store reduces and advances as before. */
    CHECK_OK(rk_store_send(s, "\"toggleTimer\""));
    CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
    CHECK_OK(rk_store_send(s, "{\"setCount\":7}"));
    CHECK_OK(rk_store_advance_clock(s, 5000));
    CHECK_STATE(s, "{\"count\":7,\"fact\":null,\"isTimerOn\":false}");
    rk_store_destroy(s);
}

/* An effect error no catch handler takes goes to standard error: escaped, one line, bounded,
 * whatever the host's message holds. Run in a child whose stderr is a file read back here;
 * first of all tests, so that no Swift concurrency thread exists yet when it forks (a child
 * forked after they started cannot run effects). */
static void test_effect_error_report_is_escaped(void) {
    char path[] = "/tmp/rk_stderr_XXXXXX";
    int fd, status = 0;
    pid_t pid;
    TEST("an unhandled effect error reaches stderr escaped, on one line, bounded");
    fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        static const char pattern[] = "down\nERROR fake line\x1b[2J\r";
        size_t n = 1u << 20, i;
        char *message = (char *)malloc(n + 1);
        rk_store *s = NULL;
        dup2(fd, 2);
        if (message == NULL) _exit(3);
        /* Fake log lines, terminal escape codes, a megabyte of it. */
        for (i = 0; i < n; i++) message[i] = pattern[i % (sizeof pattern - 1)];
        message[n] = '\0';
        if (rk_store_create("search", "{\"clock\":\"test\",\"provide\":[\"search\"]}", &s) != RK_OK) _exit(4);
        if (rk_store_send(s, "{\"queryChanged\":\"sw\"}") != RK_OK) _exit(5);
        if (rk_store_advance_clock(s, 300) != RK_OK) {
            printf("child: %s\n", rk_last_error());
            fflush(stdout);
            _exit(6);
        }
        if (rk_store_fail(s, 1, message) != RK_OK) _exit(7);
        if (rk_store_wait_idle(s, RK_T_MS(10000)) != RK_OK) _exit(8);
        rk_store_destroy(s);
        free(message);
        _exit(0);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    {
        FILE *f = fopen(path, "rb");
        char *text = (char *)calloc(1, 1u << 21);
        size_t len = 0, lines = 0, controls = 0, i;
        if (f != NULL && text != NULL) len = fread(text, 1, (1u << 21) - 1, f);
        for (i = 0; i < len; i++) {
            if (text[i] == '\n') lines++;
            else if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f) controls++;
        }
        CHECK_MSG(lines == 1, "%lu lines on stderr: %.300s", (unsigned long)lines, text ? text : "");
        CHECK_MSG(controls == 0, "%lu raw control characters on stderr", (unsigned long)controls);
        CHECK_MSG(len > 0 && len < 20000, "%lu bytes on stderr", (unsigned long)len);
        CHECK_CONTAINS(text, "the host failed the search request: down\\nERROR fake line\\u{1B}[2J\\r");
        CHECK_CONTAINS(text, "bytes)");
        if (f != NULL) fclose(f);
        free(text);
    }
    close(fd);
    remove(path);
}

static void test_store_used_after_fork(void) {
    rk_store *s;
    pid_t pid;
    int status = 0, fds[2];
    unsigned char result = 0xff;
    TEST("a store created before fork() is misuse in the child; new stores work there");
    s = CREATE("counter", TEST_CLOCK);
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK(pipe(fds) == 0);
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        /* The child reports a code through the pipe (0: as documented), then dies by SIGKILL:
         * under valgrind an exit would run the leak check, which counts the parent threads'
         * dispatch work, copied into the child without those threads, as lost. */
        rk_store *fresh = NULL;
        uint64_t version = 0;
        unsigned char code = 0;
        if (rk_store_send(s, "\"increment\"") != RK_ERR_MISUSE) code = 1;
        else if (strstr(rk_last_error(), "fork") == NULL) code = 2;
        else if (rk_store_version(s, &version) != RK_ERR_MISUSE) code = 3;
        else {
            rk_store_destroy(s); /* forgets it; no crash, no hang */
            if (rk_store_create("counter", TEST_CLOCK, &fresh) != RK_OK) code = 4;
            else if (rk_store_send(fresh, "{\"setCount\":5}") != RK_OK) code = 5;
            else if (rk_store_version(fresh, &version) != RK_OK || version != 1) code = 6;
        }
        if (write(fds[1], &code, 1) != 1) code = 7;
        kill(getpid(), SIGKILL);
        _exit(code);
    }
    CHECK(pid > 0);
    close(fds[1]);
    CHECK(read(fds[0], &result, 1) == 1);
    close(fds[0]);
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK_MSG(result == 0, "the child reported %d", (int)result);
    /* The parent's store is unaffected. */
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK_STATE(s, "{\"count\":2,\"fact\":null,\"isTimerOn\":false}");
    rk_store_destroy(s);
}

int main(int argc, char **argv) {
    rk_t_select(argc, argv);
    test_effect_error_report_is_escaped();
    test_callbacks_that_send_to_each_other();
    test_callbacks_coalesce_per_send();
    test_advance_never_traps();
    test_advance_is_bounded();
    test_store_used_after_fork();
    RK_TEST_EXIT();
}
