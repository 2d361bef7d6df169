/* One store, two languages, one process.
 *
 * C creates a store and owns it; embedded CPython borrows the same store through
 * reducerkit.Store.from_handle(), sends actions and subscribes, while C reads the state.
 * Closing the borrowed Python object leaves the store alive; C destroys it at the end.
 *
 * Build: cc embed_python.c $(python3-config --includes) -Iinclude -Lbuild -lreducerkit
 *        $(python3-config --ldflags --embed)        (see `make test-embed`)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdio.h>
#include <string.h>
#include "reducerkit.h"

static int passes = 0, failures = 0;
#define CHECK(cond) do { if (cond) passes++; else { failures++; \
    fprintf(stderr, "%s:%d: CHECK(%s) failed; rk_last_error: %s\n", __FILE__, __LINE__, #cond, rk_last_error()); } } while (0)

static char *state_of(rk_store *store) {
    char *json = NULL;
    return rk_store_state(store, &json, NULL) == RK_OK ? json : NULL;
}

int main(void) {
    rk_store *store = NULL;
    char *json;
    char code[4096];
    uint64_t version = 0;

    CHECK(rk_store_create("counter", "{\"clock\": \"test\"}", &store) == RK_OK);
    CHECK(rk_store_send(store, "\"increment\"") == RK_OK);

    Py_Initialize();
    snprintf(code, sizeof code,
        "import reducerkit\n"
        "seen = []\n"
        "py_store = reducerkit.Store.from_handle(%llu)\n"
        "token = py_store.subscribe(lambda state: seen.append(state['count']))\n"
        "assert py_store.state['count'] == 1, py_store.state\n"
        "py_store.send({'setCount': 40})\n"
        "py_store.send('increment')\n"
        "py_store.send('toggleTimer')\n"
        "py_store.advance(seconds=2)\n"
        "py_store.send('toggleTimer')\n"
        "assert seen == [40, 41, 41, 42, 43, 43], seen\n"
        "try:\n"
        "    py_store.send('incremnt')\n"
        "    raise SystemExit('a bad action was accepted')\n"
        "except reducerkit.ActionError as error:\n"
        "    assert 'expected one of' in str(error), error\n"
        "py_store.close()\n"
        "try:\n"
        "    py_store.send('increment')\n"
        "    raise SystemExit('a closed store accepted an action')\n"
        "except reducerkit.StoreClosedError:\n"
        "    pass\n",
        (unsigned long long)(uintptr_t)store);
    CHECK(PyRun_SimpleString(code) == 0);

    /* C still owns a working store, and sees what Python did. */
    json = state_of(store);
    CHECK(json != NULL && strcmp(json, "{\"count\":43,\"fact\":null,\"isTimerOn\":false}") == 0);
    if (json) printf("state after Python: %s\n", json);
    rk_free(json);
    CHECK(rk_store_send(store, "\"decrement\"") == RK_OK);
    CHECK(rk_store_version(store, &version) == RK_OK && version == 8);
    json = state_of(store);
    CHECK(json != NULL && strstr(json, "\"count\":42") != NULL);
    rk_free(json);

    /* Python's subscription ended with close(): no callback into a finished closure. */
    CHECK(PyRun_SimpleString("assert seen == [40, 41, 41, 42, 43, 43], seen\n") == 0);
    CHECK(Py_FinalizeEx() == 0);
    rk_store_destroy(store);
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
