/*
 * reducerkit.h — the C interface of ReducerKit.
 *
 * ReducerKit runs reducers written in Swift (state + action -> new state + effects). This
 * header lets C programs (and anything with a C FFI: Python's ctypes, …) create stores of the
 * features a library exposes, send them JSON-encoded actions and read their JSON state.
 *
 * Conventions (as in sqlite3.h and libgit2):
 *   - Every name starts with rk_ / RK_. Stores are opaque handles (rk_store *).
 *   - Every fallible function returns an rk_status: RK_OK (0) on success, a specific code
 *     otherwise. Results come back through out-parameters, which are left untouched on error.
 *   - On error, rk_last_error() returns a message for the calling thread saying what was wrong
 *     and where (for JSON: the path, e.g. "$.todos[2].title"). A failed call changes nothing:
 *     the store's state and version after it are those before it, and the store keeps working.
 *   - Strings the library returns are NUL-terminated UTF-8, come with their length (not
 *     counting the NUL), are owned by the caller and must be freed with rk_free() — never
 *     with libc free(). Strings the caller passes are borrowed for the duration of the call.
 *   - JSON follows the wire format: an action is "increment", {"setCount": 5},
 *     {"addTodo": {"title": "Milk"}}, {"move": [0, 3]} or, for a child element,
 *     {"todos": {"element": {"id": 7, "action": "toggle"}}}. rk_features() lists each
 *     feature's actions and state as JSON Schema.
 *   - Threads: every function may be called from any thread. Calls on one store are
 *     serialized by the store: a send from another thread waits for a running one to finish.
 *   - Misuse that can be detected is an error, not a crash: NULL arguments, a destroyed or
 *     never-created store handle.
 *   - fork(): a store belongs to the process that created it. In a child of fork() (Python's
 *     multiprocessing default on Linux) every call on a store created before the fork returns
 *     RK_ERR_MISUSE, saying to create stores after forking: its effects ran on threads that
 *     the child does not have. rk_store_destroy() of such a store only forgets it. Stores the
 *     child creates itself work as usual.
 *   - Linking: pkg-config --cflags --libs reducerkit (after make install), or -Lbuild
 *     -lreducerkit in the checkout. libreducerkit.so (soname libreducerkit.so.<major>) exports
 *     exactly the RK_API functions below and the registration hook
 *     void reducerkit_register_features(void), which a library exposing its own features
 *     defines instead (README: "Exposing your own features"); nothing else.
 */
#ifndef REDUCERKIT_H
#define REDUCERKIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#  define RK_API __declspec(dllimport)
#elif defined(__GNUC__) || defined(__clang__)
#  define RK_API __attribute__((visibility("default")))
#else
#  define RK_API
#endif

/* ---- Versions ------------------------------------------------------------------------ */

/** The library version this header describes. */
#define RK_VERSION_MAJOR 0
#define RK_VERSION_MINOR 2
#define RK_VERSION_PATCH 0
#define RK_VERSION_STRING "0.2.0"

/** The ABI version of this header. It changes only when an existing signature or meaning
 *  changes (additions keep it). Check it against rk_abi_version() at start-up. */
#define RK_ABI_VERSION 1

/** The library's version string, e.g. "0.2.0". Static storage: do not free. Thread-safe. */
RK_API const char *rk_version(void);

/** The library's ABI version. A host built against RK_ABI_VERSION must refuse a library that
 *  returns another value. Thread-safe. */
RK_API int rk_abi_version(void);

/* ---- Status codes and errors --------------------------------------------------------- */

typedef enum rk_status {
    RK_OK = 0,                  /* success */
    RK_ERR_INVALID_ARGUMENT = 1,/* a NULL or out-of-range argument, a bad options field, or
                                   a malformed scenario file (rk_scenario_parse) */
    RK_ERR_JSON = 2,            /* text that is not JSON: syntax, invalid UTF-8, too deep,
                                   or an object with the same key twice */
    RK_ERR_ACTION = 3,          /* JSON that is not an action of the feature (including an
                                   unknown key anywhere in it) */
    RK_ERR_STATE = 4,           /* JSON that is not a state of the feature (initial_state;
                                   including an unknown key at any depth) */
    RK_ERR_UNKNOWN_FEATURE = 5, /* no feature of that name is registered */
    RK_ERR_INVALID_HANDLE = 6,  /* a store handle that was destroyed or never created */
    RK_ERR_TIMEOUT = 7,         /* effects did not settle within the time given */
    RK_ERR_INTERNAL = 8,        /* a bug in ReducerKit or a feature; the message says what */
    RK_ERR_MISUSE = 9,          /* a call not allowed here, e.g. advancing the clock of a
                                   store on the live clock, or using a store in a fork()
                                   child of the process that created it */
    RK_ERR_RESPONSE = 10        /* JSON that is not a response of the request's endpoint
                                   (rk_store_resolve); the request stays pending */
} rk_status;

/** A static English name for a status, e.g. "RK_ERR_ACTION: not an action of the feature".
 *  Never NULL (unknown values give "unknown status"). Do not free. Thread-safe. */
RK_API const char *rk_status_string(rk_status status);

/** The message of the last failed call on the calling thread: what was wrong and where.
 *  Returns "" when no call failed on this thread yet. The pointer is owned by the library and
 *  valid until the next failing call on the same thread; do not free. Thread-local. */
RK_API const char *rk_last_error(void);

/** Frees a string (or other memory) the library returned. NULL is a no-op. Thread-safe. */
RK_API void rk_free(void *p);

/* ---- Features ------------------------------------------------------------------------ */

/** Lists the features this library exposes, as a JSON array:
 *    [{"name": "counter", "description": "...", "initial_state": {...},
 *      "action_schema": {JSON Schema}, "state_schema": {JSON Schema},
 *      "requests": [{"name": "numberFact", "payload_schema": {JSON Schema},
 *                    "response_schema": {JSON Schema}}, ...],
 *      "state_version": 1, "schema_hash": "9c2f4e0a1b3d5e7f"}, ...]
 *  "requests" lists the feature's host endpoints (see "Effects the host fulfils" below); it is
 *  [] for a feature without any. "state_version" numbers the shape of the feature's state (see
 *  rk_store_snapshot()); "schema_hash" is a stable hash (16 hex digits) of the action, state and
 *  endpoint schemas: equal schemas give equal hashes in every build and release, any change to
 *  them changes it (generated stubs compare it when they create a store).
 *  *out_json receives a string the caller frees with rk_free(); *out_len its length (may be
 *  NULL if not wanted). Errors: RK_ERR_INVALID_ARGUMENT if out_json is NULL. Thread-safe. */
RK_API rk_status rk_features(char **out_json, size_t *out_len);

/* ---- Stores -------------------------------------------------------------------------- */

/** An opaque store handle. */
typedef struct rk_store rk_store;

/** Creates a store of the feature named `feature`.
 *
 *  options_json may be NULL (all defaults) or a JSON object with any of:
 *    "initial_state": an object merged over the feature's default state (keys you give
 *                     replace the defaults, recursively for nested objects; a key the
 *                     state does not have, at any depth, is an error);
 *    "clock": "live" (default) or "test" — with "test", time moves only by
 *             rk_store_advance_clock();
 *    "record_actions": true to record every reduced action for rk_store_take_actions();
 *    "record": true to record the session as a scenario for rk_store_scenario();
 *    "provide": ["numberFact", ...] — the feature's host endpoints this host answers (see
 *             "Effects the host fulfils" below). Without it, or for an endpoint not listed,
 *             the feature's own Swift implementation runs. A name that is not an endpoint
 *             of the feature, or a name given twice, is RK_ERR_INVALID_ARGUMENT (the
 *             message lists the feature's endpoints);
 *    "snapshot": {...} — a document rk_store_snapshot() wrote: the store starts from its state
 *             and continues its version count. A snapshot of an older "state_version" is
 *             migrated step by step by the feature's migrations. RK_ERR_STATE (the message
 *             says what and where) for a snapshot of another feature, one newer than the
 *             library's state version (naming both), a missing or failing migration (naming
 *             it, with the JSON Pointer of the offending value), or a state the feature cannot
 *             decode (with its JSON Pointer); RK_ERR_INVALID_ARGUMENT for a document that is
 *             not a snapshot, or with "initial_state" beside it.
 *  Unknown keys are an error, and so is any key given twice (RK_ERR_JSON).
 *
 *  On success *out receives the handle; destroy it with rk_store_destroy().
 *  Errors: RK_ERR_INVALID_ARGUMENT (NULL feature/out, bad options), RK_ERR_UNKNOWN_FEATURE,
 *  RK_ERR_JSON (malformed options), RK_ERR_STATE (initial_state is not a state of the
 *  feature). Thread-safe. */
RK_API rk_status rk_store_create(const char *feature, const char *options_json, rk_store **out);

/** Destroys a store: cancels its effects, removes its subscriptions, and frees it. Each
 *  request still pending is cancelled: a request callback gets its cancellation event before
 *  this returns (a queued store just closes its request fd). After this returns, none of its
 *  callbacks runs again: a callback running on another thread is waited for first — except
 *  when rk_store_destroy() is itself called from inside a callback (of any store), where
 *  waiting could deadlock; then keep the userdata alive until that other callback returns.
 *  It may be called from inside one of the store's own callbacks: the store stops at once and
 *  that callback is the last. NULL is a no-op; a handle that is already destroyed is ignored
 *  (rk_last_error() says so). Thread-safe.
 *  Hosts with their own runtime (a language VM) must destroy their stores, or at least remove
 *  their callbacks, before that runtime shuts down: effects may still be running and would
 *  call back into it. */
RK_API void rk_store_destroy(rk_store *store);

/** Sends an action (JSON text, borrowed) to the store. The action is reduced before this
 *  returns, on the calling thread. Its effects start right away on the calling thread and run
 *  there until their first suspension: actions they send by then (and actions of `.send`
 *  effects) are also reduced on this thread before this returns, and callbacks see them here.
 *  After their first suspension effects run on Swift's thread pool and send their actions back
 *  into the store from there. Callbacks run after the store is released (see
 *  rk_store_subscribe()), so a send from inside a callback is an ordinary send: its action is
 *  reduced before it returns, and its callbacks run once the current callback has returned.
 *  Errors: RK_ERR_INVALID_ARGUMENT (NULL), RK_ERR_INVALID_HANDLE, RK_ERR_JSON (malformed
 *  JSON, invalid UTF-8, nesting deeper than 512, a key given twice), RK_ERR_ACTION (not an
 *  action of the feature, an unknown key in it, or a second key beside the action: the
 *  message names the path and the expected cases or keys). On error nothing changes. Any
 *  nesting up to 512 is handled in constant stack (threads with 64 KB stacks are fine).
 *  Thread-safe. */
RK_API rk_status rk_store_send(rk_store *store, const char *action_json);

/** Sends an action given as `len` bytes of JSON (need not be NUL-terminated). As
 *  rk_store_send() otherwise. */
RK_API rk_status rk_store_send_n(rk_store *store, const char *action_json, size_t len);

/** The store's current state as JSON. *out_json receives a string the caller frees with
 *  rk_free(); *out_len its length (may be NULL). The JSON is encoded at most once per version
 *  and shared (see "Reading what changed" below; rk_store_get() also gives the version).
 *  Errors: RK_ERR_INVALID_ARGUMENT, RK_ERR_INVALID_HANDLE. Thread-safe (waits for a running
 *  reduce on another thread). */
RK_API rk_status rk_store_state(rk_store *store, char **out_json, size_t *out_len);

/** The store's version: the number of actions it has reduced. It grows by one per action,
 *  so a host can skip re-reading the state while it is unchanged. Errors:
 *  RK_ERR_INVALID_ARGUMENT, RK_ERR_INVALID_HANDLE. Thread-safe. */
RK_API rk_status rk_store_version(rk_store *store, uint64_t *out_version);

/** Called with the state after a send reduced an action.
 *  state_json (len bytes, NUL-terminated) is borrowed: valid only during the call.
 *  version is the store's version that state_json belongs to. */
typedef void (*rk_state_callback)(void *userdata, const char *state_json, size_t len,
                                  uint64_t version);

/** Registers `cb` to be called with the state after every send that reduced an action (not
 *  at registration). Callbacks are coalesced as in TCA: one call per outer send — the host's
 *  rk_store_send(), or an effect's action — with the final state after that action and every
 *  action its `.send` effects queued, so `version` may step by more than one between calls
 *  (rk_store_take_actions() still lists every action). While callbacks of a store are being
 *  delivered on one thread, states sent from other threads wait and may be coalesced further:
 *  a callback always gets the newest state waiting.
 *  Callbacks run after the store's lock is released, in order and one at a time per store:
 *  on the thread whose send changed the state, or on the thread already delivering for this
 *  store. So a callback may call anything in the library, on any store: rk_store_send() to
 *  this or another store (even one whose callback sends back: no lock-order deadlock),
 *  rk_store_state(), rk_store_wait_idle(), rk_store_unsubscribe(), rk_store_destroy().
 *  `userdata` is passed back untouched; it must stay valid until the callback is removed.
 *  *out_token receives the token for rk_store_unsubscribe().
 *  Errors: RK_ERR_INVALID_ARGUMENT (NULL cb or out_token), RK_ERR_INVALID_HANDLE. */
RK_API rk_status rk_store_subscribe(rk_store *store, rk_state_callback cb, void *userdata,
                                    uint64_t *out_token);

/** Removes a state or patch callback. After this returns it is not called again (one running on another
 *  thread is waited for, unless the caller is itself inside a callback of some store, where
 *  waiting could deadlock; from inside the callback itself, it returns at once).
 *  Errors: RK_ERR_INVALID_HANDLE, RK_ERR_INVALID_ARGUMENT (unknown token). */
RK_API rk_status rk_store_unsubscribe(rk_store *store, uint64_t token);

/* ---- Reading what changed: JSON Pointers and JSON Patches ------------------------------ */

/* A host that keeps a copy of the state pays for what changed, not for the whole state:
 *   - rk_store_get() reads a part of the state by RFC 6901 JSON Pointer ("/todos/0/title");
 *   - rk_store_patch() and rk_store_subscribe_patches() give RFC 6902 JSON Patches that turn
 *     an older version of the state into the current one.
 * Pointers address objects by key and arrays by index (decimal, no leading zeros). In a
 * segment "~" is written "~0" and "/" is written "~1": the key "a/b~c" is "/a~1b~0c". Paths
 * in patches are written the same way.
 *
 * Patches use the operations "add", "remove" and "replace" only, with paths into the state
 * as it is when the operation applies (each operation in turn, as RFC 6902 says): a removed
 * array element is {"op":"remove","path":"/todos/3"}, an appended one
 * {"op":"add","path":"/todos/7","value":{...}}. A patch never contains "move", "copy" or
 * "test". [] is the patch of a state that did not change.
 *
 * Cost: the library diffs the Swift values, so parts that were not written are skipped
 * without being encoded (arrays of Equatable elements are compared element by element, a
 * TrackedArray skips its unchanged storage: O(changes x log n)). Only changed parts are
 * encoded. The whole state's JSON is encoded at most once per version and shared by state
 * callbacks, rk_store_state(), rk_store_get(store, "", ...), whole-state patches and the
 * action log. From its first rk_store_patch() or rk_store_subscribe_patches(), a store keeps
 * the state of its last patch (sharing storage with the current state) to diff the next one,
 * and the patches of its recent versions (at least the last 4096 unless they add up to more
 * than 4 MB), so a patch from any of them is their concatenation. */

/** The state, or the part of it at the RFC 6901 JSON Pointer `pointer` (NUL-terminated UTF-8,
 *  borrowed; "" or NULL: the whole state), as JSON, and the version it belongs to: the JSON
 *  is the state at *out_version, read atomically (a reduce on another thread is waited for).
 *  *out_json receives a string the caller frees with rk_free(); out_len and out_version may
 *  be NULL. The whole state comes from the shared per-version JSON; a part costs its depth
 *  plus its own size.
 *  Errors: RK_ERR_INVALID_ARGUMENT (NULL out_json; a pointer that is not valid UTF-8, does
 *  not start with "/", or has "~" not followed by 0 or 1; a pointer to nothing: the message
 *  names the first segment that does not exist, e.g. 'no value at "/todos/7": the array at
 *  "/todos" has 3 elements'; pointers are quoted, escaped and cut to 120 bytes in messages),
 *  RK_ERR_INVALID_HANDLE, RK_ERR_INTERNAL (the state cannot be
 *  encoded). On error the out-parameters are untouched. Thread-safe; may be called from any
 *  callback. */
RK_API rk_status rk_store_get(rk_store *store, const char *pointer, char **out_json,
                              size_t *out_len, uint64_t *out_version);

/** An RFC 6902 JSON Patch (a JSON array of "add", "remove" and "replace" operations) that
 *  turns the state at `since_version` into the current state, and the current version (into
 *  *out_version; may be NULL). since_version == the current version gives []. If
 *  since_version is too old to be known (older than the store's first patch, or than the
 *  patches it keeps, or a version that callbacks coalesced away), the patch is
 *  [{"op":"replace","path":"","value":<whole state>}]: always correct, never an error. So a
 *  host keeps its copy with: rk_store_get(store, "", ...) once (version v), then
 *  rk_store_patch(store, v, ...) whenever it wants to catch up, applying the patch and keeping
 *  the version returned. *out_json is freed with rk_free(); out_len may be NULL.
 *  Errors: RK_ERR_INVALID_ARGUMENT (NULL out_json; since_version newer than the store's
 *  version), RK_ERR_INVALID_HANDLE, RK_ERR_INTERNAL (a changed part cannot be encoded).
 *  Thread-safe; may be called from any callback. */
RK_API rk_status rk_store_patch(rk_store *store, uint64_t since_version, char **out_json,
                                size_t *out_len, uint64_t *out_version);

/** Called with a JSON Patch from the version of the previous call (the first call: from the
 *  version at subscription) to `version`. patch_json (len bytes, NUL-terminated) is borrowed:
 *  valid only during the call. */
typedef void (*rk_patch_callback)(void *userdata, const char *patch_json, size_t len,
                                  uint64_t version);

/** Registers `cb` to be called after every change of the state, whether a host's send or an
 *  effect's action caused it, with the patch since the previous call (the first call: since
 *  the version at subscription). Calls are coalesced per outer send like state callbacks
 *  (rk_store_subscribe()): one call with the patch to the final state of that send, so
 *  `version` may step by more than one. A send whose actions change nothing (the patch would
 *  be []) makes no call. Applying every patch delivered, in order, to the state at
 *  subscription (rk_store_get() before subscribing, or rk_store_patch() from its version)
 *  gives the state at the last `version`. The patch is computed once per version and shared
 *  with every patch subscriber and rk_store_patch().
 *  Threads and re-entrancy as for rk_store_subscribe(): callbacks run after the store's lock
 *  is released, one at a time per store, on the thread whose send changed the state (or the
 *  thread already delivering for the store); a callback may call anything in the library.
 *  `userdata` is passed back untouched; it must stay valid until the callback is removed with
 *  rk_store_unsubscribe() (tokens of state and patch subscriptions are one sequence); none
 *  runs after that returns (see rk_store_unsubscribe()). *out_token receives the token.
 *  Errors: RK_ERR_INVALID_ARGUMENT (NULL cb or out_token), RK_ERR_INVALID_HANDLE,
 *  RK_ERR_INTERNAL (the state cannot be encoded). */
RK_API rk_status rk_store_subscribe_patches(rk_store *store, rk_patch_callback cb,
                                            void *userdata, uint64_t *out_token);

/** Blocks until every effect of the store has finished, sleeps on the store's test clock
 *  (a timer on the test clock does not keep it busy) or waits for the host to answer a
 *  request (rk_store_resolve()), or until timeout_ms milliseconds pass
 *  (a negative timeout waits without limit). Returns RK_OK when idle, RK_ERR_TIMEOUT
 *  otherwise. It may be called from a state callback (callbacks run outside the store's lock).
 *  Errors: RK_ERR_INVALID_HANDLE, RK_ERR_MISUSE (from inside a reduce, or a request callback,
 *  of the same store). Thread-safe; do not call it from a Swift concurrency
 *  thread. */
RK_API rk_status rk_store_wait_idle(rk_store *store, int64_t timeout_ms);

/** Moves the store's test clock forward by `milliseconds` (>= 0). Sleepers that come due
 *  run one at a time, in deadline order (at the same deadline, in the order they went to
 *  sleep), and each returns to sleep or finishes before the next wakes, so the state after
 *  this returns is deterministic (an effect waiting for the host to answer a request counts as
 *  settled, so the call returns while requests are pending). A sleep until "now" waits for the next advance (an advance
 *  by 0 wakes it). The clock saturates at INT64_MAX seconds instead of overflowing; a sleep
 *  whose deadline saturated never comes due.
 *  It is bounded by conditions, not by wall time, so it ends the same way on a loaded machine:
 *  it returns RK_ERR_TIMEOUT when woken effects make no progress for 10 s without settling (an
 *  effect that waits on something other than the clock), or after waking 100,000 sleepers
 *  with more due (a timer over a huge span); the message says why and where the clock
 *  stopped; the store stays usable, with the clock at the last deadline it reached.
 *  Errors: RK_ERR_INVALID_HANDLE, RK_ERR_INVALID_ARGUMENT (negative), RK_ERR_MISUSE (the
 *  store uses the live clock; or a call from inside a request callback of the same store),
 *  RK_ERR_TIMEOUT. Thread-safe; may be called from a callback; like rk_store_wait_idle(),
 *  do not call it from a Swift concurrency thread (the effects it waits for run there). */
RK_API rk_status rk_store_advance_clock(rk_store *store, int64_t milliseconds);

/** Takes the actions the store reduced since the last call (requires "record_actions": true
 *  at creation), as a JSON array in order:
 *    [{"action": <action JSON>, "origin": "host"|"effect", "version": 3, "state": {...}}, ...]
 *  "origin" says whether the host sent the action or an effect did; "state" is the state
 *  right after that action. The log is cleared. *out_json is freed with rk_free().
 *  Errors: RK_ERR_INVALID_ARGUMENT, RK_ERR_INVALID_HANDLE, RK_ERR_MISUSE (not recording). */
RK_API rk_status rk_store_take_actions(rk_store *store, char **out_json, size_t *out_len);

/** The scenario of everything the store has done since it was created (requires "record":
 *  true at creation): a JSON document of the scenario format (Tests/scenarios/README.md) that
 *  replays in reducerkit-check, the Swift runner and Python's run_scenario:
 *    {"name": "a recorded session of counter", "feature": "counter",
 *     "options": {"clock": "test", ...}, "steps": [...], "final_state": {...}}
 *  "options" are the creation options without "record" and "record_actions". The steps come
 *  in the order things happened: sends ({"send": A}, with "state" when it changed; a send
 *  refused with RK_ERR_ACTION or RK_ERR_JSON whose text is JSON gets
 *  "error": {"status": "RK_ERR_ACTION", "message": M}), actions effects sent ({"receive": A}),
 *  clock advances ({"advance_ms": N}), request events ({"request": {"id": 1, "name": ...,
 *  "payload": ...}}, {"cancelled": 1}) and answers ({"resolve": 1, "response": R},
 *  {"fail": 1, "message": M}; with "error" when refused); then {"finish": true} when no
 *  effect is running, sleeping or waiting for an answer. On the test clock a recorded store
 *  lets running effects settle (up to 1 s) before each send and advance, so a replay sees the
 *  same order. "record_actions" works beside it: rk_store_take_actions() keeps every record.
 *  This call first waits up to 1 s for effects to settle (not from inside a request callback
 *  of the store), then reports what it has: while effects still run there is no "finish".
 *  *out_json receives a string the caller frees with rk_free(); *out_len its length (may be
 *  NULL). Errors: RK_ERR_INVALID_ARGUMENT (NULL out_json), RK_ERR_INVALID_HANDLE,
 *  RK_ERR_MISUSE (the store was not created with {"record": true}); on error nothing
 *  changes. Thread-safe; may be called from any callback and while effects run. */
RK_API rk_status rk_store_scenario(rk_store *store, char **out_json, size_t *out_len);

/** The state with what is needed to restore it later, in this process or another one, with
 *  this library or a later release of it:
 *    {"feature": "todos", "state_version": 3, "schema_hash": "9c2f4e0a1b3d5e7f",
 *     "version": 17, "state": {...}}
 *  "version" is the store version of "state" (a store created with {"snapshot": ...}
 *  continues from it). Pass the document back as the "snapshot" option of rk_store_create().
 *  *out_json receives a string the caller frees with rk_free(); *out_len its length (may be
 *  NULL). Errors: RK_ERR_INVALID_ARGUMENT (NULL out_json), RK_ERR_INVALID_HANDLE. Thread-safe;
 *  may be called from any callback and while effects run (the state is the latest reduced). */
RK_API rk_status rk_store_snapshot(rk_store *store, char **out_json, size_t *out_len);

/** How many effects of the store have not finished (sleeping ones, and ones waiting for the
 *  host to answer a request, included), into
 *  *out_count. Errors: RK_ERR_INVALID_ARGUMENT, RK_ERR_INVALID_HANDLE. Thread-safe. */
RK_API rk_status rk_store_effect_count(rk_store *store, uint64_t *out_count);

/* ---- Effects the host fulfils ---------------------------------------------------------- */

/* A feature may declare host endpoints: operations its effects call (a network call, a file
 * read, ...) that have a name, a JSON payload and a JSON response (rk_features() lists them
 * with JSON Schemas). A store created with {"provide": ["numberFact"]} sends each call of
 * that endpoint to the host as an event instead of running the Swift implementation:
 *
 *    a request:        {"id": 1, "name": "numberFact", "payload": 42}
 *    a cancellation:   {"id": 1, "cancelled": true}
 *
 * The host answers a request once, with rk_store_resolve() (the response JSON) or
 * rk_store_fail() (the effect's call throws). A cancellation says the effect that waited for
 * the request was cancelled (by a cancel id, cancelInFlight, its child state going away, or
 * rk_store_destroy()): the request must not be answered any more. Ids count up from 1 per
 * store and are never reused.
 *
 * Events are delivered in one of two ways, per store:
 *   - queued (the default): rk_store_take_requests() takes them; rk_store_request_fd() gives
 *     a file descriptor that is readable while any are queued, for poll()/epoll/select or
 *     asyncio's add_reader;
 *   - to a callback set with rk_store_on_request().
 * A request reaches the host after the effect registered it, so after rk_store_send() (or
 * rk_store_advance_clock(), rk_store_wait_idle()) returns, the requests the effects made so
 * far are queued or were delivered. For one request, the request event always comes before
 * its cancellation.
 *
 * While an effect waits for the host it counts as idle, like one sleeping on the test clock:
 * rk_store_wait_idle() returns and rk_store_advance_clock() settles while requests are
 * pending. rk_store_effect_count() still counts it. */

/** Called with each request or cancellation event of a store (see above).
 *  event_json (len bytes, NUL-terminated) is borrowed: valid only during the call. */
typedef void (*rk_request_callback)(void *userdata, const char *event_json, size_t len);

/** Sends the store's request events to `cb` instead of queueing them. NULL cb: back to
 *  queueing. Events that were queued when a callback is set are delivered to it before this
 *  returns, on the calling thread, oldest first.
 *  The callback runs on the thread where the event happens: for a request, the thread where
 *  the effect makes the call — the thread of the rk_store_send() that started the effect, if
 *  the effect had not suspended yet; the thread of the rk_store_resolve() or rk_store_fail()
 *  whose answer resumed it (see there); else one of Swift's pool threads; for a cancellation,
 *  the thread that cancelled (the one sending the action that cancels, or calling
 *  rk_store_destroy()). Callbacks of one store may run on several threads at once.
 *  From inside the callback the host may call rk_store_resolve() or rk_store_fail() at once
 *  (the fastest path: the effect continues on this thread without suspending),
 *  rk_store_send(), rk_store_state(), or any function on another store; or it may keep the id
 *  and answer later, from any thread. It must not block waiting for another thread that uses
 *  this store: the callback may run while this thread is in the middle of the store's send.
 *  The effect that made a request counts as running until its callback returns, so
 *  rk_store_wait_idle() and rk_store_advance_clock() of this store from inside the callback
 *  are RK_ERR_MISUSE (they would wait for the callback itself).
 *  `userdata` is passed back untouched and must stay valid until the callback is replaced or
 *  the store is destroyed. After this returns, the previous callback is not called again (one
 *  running on another thread is waited for, unless the caller is inside a callback itself).
 *  Errors: RK_ERR_INVALID_HANDLE. Thread-safe. */
RK_API rk_status rk_store_on_request(rk_store *store, rk_request_callback cb, void *userdata);

/** Takes the queued request events, as a JSON array, oldest first ([] when none), and clears
 *  the queue. *out_json is freed with rk_free(); *out_len may be NULL.
 *  Errors: RK_ERR_INVALID_ARGUMENT (NULL out_json), RK_ERR_INVALID_HANDLE. Thread-safe. */
RK_API rk_status rk_store_take_requests(rk_store *store, char **out_json, size_t *out_len);

/** A file descriptor that is readable while request events are queued (and not readable once
 *  rk_store_take_requests() emptied the queue): add it to poll()/epoll/select or asyncio's
 *  loop.add_reader(), and call rk_store_take_requests() when it is readable. Never read from
 *  or write to it, and never close it: it is owned by the store and closed by
 *  rk_store_destroy() (remove it from your event loop first). Every call returns the same
 *  descriptor (close-on-exec, non-blocking): an eventfd on Linux, else (or when the system
 *  refuses one) the read end of a pipe. A duplicate of it (dup()) becomes readable for good
 *  when the store is destroyed.
 *  Errors: RK_ERR_INVALID_ARGUMENT (NULL out_fd), RK_ERR_INVALID_HANDLE, RK_ERR_INTERNAL (the
 *  system refused a pipe). Thread-safe. */
RK_API rk_status rk_store_request_fd(rk_store *store, int *out_fd);

/** Answers request `request_id` with `response_json` (borrowed), a JSON value of the
 *  endpoint's response type (its "response_schema"). The effect's call returns it.
 *  Errors: RK_ERR_INVALID_ARGUMENT (NULL response_json; an id that is unknown, already
 *  answered or cancelled: the message says which of the three), RK_ERR_JSON (malformed
 *  JSON), RK_ERR_RESPONSE (not a response of that endpoint: the message names the path and
 *  the expected type, as for actions), RK_ERR_INVALID_HANDLE. On any error the request stays
 *  as it was: a pending request can be answered again. Exactly one answer of a request takes
 *  effect, whichever threads race. An accepted answer (RK_OK) is used by the effect's next
 *  action; if the effect is cancelled before it sends one (a cancelled effect's actions are
 *  dropped, as in TCA), the host gets the request's cancellation event after all: every
 *  accepted answer is either reduced or reported cancelled.
 *  On a test-clock store, an accepted answer returns only once the effects it resumed have
 *  settled (finished, asleep on the clock, or waiting for the host again; bounded like
 *  rk_store_advance_clock() by progress, not wall time), so answers given one after the
 *  other are reduced in that order: a scenario replays the same every time. Inside a request
 *  callback or a reduce of the same store it does not wait.
 *  Outside any callback and reduce, the effect that waited for the answer continues on the
 *  calling thread before this returns, until it suspends again or ends (its next action
 *  reduced, state callbacks called, its next request made, all on this thread): no hop to
 *  another thread. Inside a callback or a reduce it continues on one of Swift's pool threads.
 *  Thread-safe; may be called from any callback. */
RK_API rk_status rk_store_resolve(rk_store *store, uint64_t request_id, const char *response_json);

/** Fails request `request_id`: the effect's call throws an error carrying `message`
 *  (borrowed, UTF-8; NULL is an empty message), which the effect's catch handler gets, or
 *  else the store's effect error reporting (standard error).
 *  Errors: RK_ERR_INVALID_ARGUMENT (an id that is unknown, already answered or cancelled:
 *  the message says which; a message that is not valid UTF-8, which answers nothing),
 *  RK_ERR_INVALID_HANDLE. On a test-clock store it returns once the
 *  resumed effects settle, as rk_store_resolve() does; the effect continues on the calling
 *  thread as there. Thread-safe; may be called from any callback. */
RK_API rk_status rk_store_fail(rk_store *store, uint64_t request_id, const char *message);

/* ---- Scenario files ---------------------------------------------------------------------- */

/* A scenario file (*.scenario.json) is one test of a feature written as data; the format is
 * Tests/scenarios/README.md of the ReducerKit repository (JSON Schema: scenario.schema.json).
 * The two functions below are the format's one definition, which every runner uses
 * (reducerkit-check, Python's run_scenario, the Swift runner): whether a file is well-formed,
 * and how its values are compared. They touch no store. */

/** Reads a scenario file: `len` bytes of UTF-8 JSON text (need not be NUL-terminated). On
 *  success *out_json receives the scenario in its normal form, compact JSON the caller frees
 *  with rk_free() (*out_len its length; may be NULL): the same document with the defaults
 *  filled in ("options" with "clock", "initial_state" and "provide"; "exhaustive"), every
 *  step's kind as its first member, "state": null and "final_state": null left out (they
 *  stand for absent ones), integers written exactly. A runner reads it without further
 *  checks: the kinds, keys and types are those of the format.
 *  The file is parsed strictly (valid UTF-8, no key twice in an object, nesting at most 516
 *  deep), then checked against the format: exactly one kind per step, no unknown key anywhere,
 *  the strings of the format itself ("name", "feature", endpoint names, "status", "message")
 *  without U+0000, request ids whole numbers from 1 to UINT64_MAX, "advance_ms" one from 0 to
 *  INT64_MAX, numbers with a fraction or exponent within the range of a double.
 *  Errors: RK_ERR_INVALID_ARGUMENT (NULL json or out_json; a file that is JSON but not a
 *  scenario), RK_ERR_JSON (not JSON). The message of rk_last_error() names the JSON path of
 *  the first offending member and what was expected, with input quoted bounded and escaped,
 *  e.g. "malformed step at $.steps[3].advance_ms: expected a whole number of milliseconds
 *  from 0 to 9223372036854775807, found -1". Thread-safe; uses constant stack at any
 *  nesting. */
RK_API rk_status rk_scenario_parse(const char *json, size_t len, char **out_json, size_t *out_len);

/** Compares two JSON values (expected_len and actual_len bytes of JSON text, borrowed) as the
 *  scenario format compares states, actions and request payloads: object members by key in
 *  any order, a member whose value is null equal to an absent member; arrays element by
 *  element; numbers by their exact value (1 equals 1.0; integers exact at any size, so
 *  9223372036854775808 is not 9223372036854775807); true is not 1.
 *  *out_equal receives 1 if they are equal, else 0. If out_diff is not NULL it receives NULL
 *  when they are equal, else a description of the differences the caller frees with
 *  rk_free() (*out_diff_len its length; may be NULL): one line per difference, in document
 *  order, at most 10 (then "(more differences not shown)"), each the JSON path and both
 *  values as compact JSON cut after 80 bytes, e.g. "$.todos[0].title: expected \"Milk\",
 *  actual \"Eggs\"" ("(missing)" for an absent value).
 *  Errors: RK_ERR_INVALID_ARGUMENT (NULL expected, actual or out_equal), RK_ERR_JSON (either
 *  text is not JSON, or nests deeper than 1024; the message starts with "expected: " or
 *  "actual: "). Thread-safe; uses constant stack at any nesting. */
RK_API rk_status rk_json_match(const char *expected, size_t expected_len, const char *actual,
                               size_t actual_len, int *out_equal, char **out_diff,
                               size_t *out_diff_len);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* REDUCERKIT_H */
