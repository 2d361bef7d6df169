/*
 * test_patch.c — reading what changed: rk_store_get (RFC 6901 JSON Pointers), rk_store_patch
 * and rk_store_subscribe_patches (RFC 6902 JSON Patches).
 *
 * The property test: random initial states and random action sequences on todos,
 * todos_untracked and counter. After every step, applying every patch the callback delivered
 * so far to the first state gives exactly the state rk_store_get returns for that version,
 * and rk_store_patch from every earlier version gives the same state from that version's
 * copy. A failure prints the seed; RK_PATCH_SEED=N reruns one seed.
 */
#include "rk_test.h"
#include "json_mini.h"

#include <pthread.h>

/* ---- A small RFC 6902 applier over json_mini values ---------------------------------- */

static jm_value *clone(const jm_value *v) {
    char *text = jm_dump(v);
    jm_value *copy = text ? jm_parse(text, strlen(text), NULL, 0) : NULL;
    free(text);
    return copy;
}

/* The next segment of `path` (after a '/'), unescaped into `out`; returns the rest or NULL. */
static const char *next_segment(const char *path, char *out, size_t cap, int *bad) {
    size_t n = 0;
    if (*path != '/') {
        *bad = 1;
        return NULL;
    }
    path++;
    while (*path && *path != '/') {
        char c = *path++;
        if (c == '~') {
            if (*path == '0') c = '~';
            else if (*path == '1') c = '/';
            else {
                *bad = 1;
                return NULL;
            }
            path++;
        }
        if (n + 1 >= cap) {
            *bad = 1;
            return NULL;
        }
        out[n++] = c;
    }
    out[n] = '\0';
    return path;
}

static long array_index(const char *segment, size_t count, int allow_end) {
    char *end = NULL;
    long i;
    if (segment[0] == '-' && segment[1] == '\0') return allow_end ? (long)count : -1;
    if (segment[0] < '0' || segment[0] > '9' || (segment[0] == '0' && segment[1] != '\0')) return -1;
    i = strtol(segment, &end, 10);
    if (*end != '\0' || i < 0 || (size_t)i > count || (!allow_end && (size_t)i == count)) return -1;
    return i;
}

static int object_slot(const jm_value *obj, const char *key) {
    size_t i, n = strlen(key);
    for (i = 0; i < obj->count; i++) {
        if (obj->key_lens[i] == n && memcmp(obj->keys[i], key, n) == 0) return (int)i;
    }
    return -1;
}

static int insert_item(jm_value *v, size_t at, jm_value *item, const char *key) {
    jm_value **items = (jm_value **)realloc(v->items, (v->count + 1) * sizeof *items);
    if (items == NULL) return 0;
    v->items = items;
    memmove(items + at + 1, items + at, (v->count - at) * sizeof *items);
    items[at] = item;
    if (v->type == JM_OBJECT) {
        char **keys = (char **)realloc(v->keys, (v->count + 1) * sizeof *keys);
        size_t *lens = (size_t *)realloc(v->key_lens, (v->count + 1) * sizeof *lens);
        if (keys == NULL || lens == NULL) return 0;
        v->keys = keys;
        v->key_lens = lens;
        keys[v->count] = (char *)malloc(strlen(key) + 1);
        strcpy(keys[v->count], key);
        lens[v->count] = strlen(key);
    }
    v->count++;
    return 1;
}

static void remove_item(jm_value *v, size_t at) {
    jm_free(v->items[at]);
    memmove(v->items + at, v->items + at + 1, (v->count - at - 1) * sizeof *v->items);
    if (v->type == JM_OBJECT) {
        free(v->keys[at]);
        memmove(v->keys + at, v->keys + at + 1, (v->count - at - 1) * sizeof *v->keys);
        memmove(v->key_lens + at, v->key_lens + at + 1, (v->count - at - 1) * sizeof *v->key_lens);
    }
    v->count--;
}

/* Applies one operation to *doc; returns 0 (and a reason in why) if it does not apply. */
static int apply_op(jm_value **doc, const jm_value *op, const char **why) {
    const char *kind = jm_str(jm_get(op, "op"));
    const char *path = jm_str(jm_get(op, "path"));
    const jm_value *value = jm_get(op, "value");
    char segment[256];
    jm_value *parent = NULL, *node = *doc;
    int bad = 0, is_add, is_remove, is_replace;
    if (kind == NULL || path == NULL) return (*why = "an op without op/path", 0);
    is_add = strcmp(kind, "add") == 0;
    is_remove = strcmp(kind, "remove") == 0;
    is_replace = strcmp(kind, "replace") == 0;
    if (!is_add && !is_remove && !is_replace) return (*why = "an op other than add/remove/replace", 0);
    if ((is_add || is_replace) && value == NULL) return (*why = "add/replace without a value", 0);
    if (path[0] == '\0') {
        if (is_remove) return (*why = "remove of the root", 0);
        jm_free(*doc);
        *doc = clone(value);
        return 1;
    }
    /* Walk to the parent of the last segment. */
    while (1) {
        const char *rest = next_segment(path, segment, sizeof segment, &bad);
        if (bad) return (*why = "a malformed path", 0);
        if (*rest == '\0') break;
        if (node->type == JM_OBJECT) {
            int slot = object_slot(node, segment);
            if (slot < 0) return (*why = "a path through a missing key", 0);
            node = node->items[slot];
        } else if (node->type == JM_ARRAY) {
            long i = array_index(segment, node->count, 0);
            if (i < 0) return (*why = "a path through a missing index", 0);
            node = node->items[i];
        } else {
            return (*why = "a path through a scalar", 0);
        }
        path = rest;
    }
    parent = node;
    if (parent->type == JM_OBJECT) {
        int slot = object_slot(parent, segment);
        if (is_remove || is_replace) {
            if (slot < 0) return (*why = "remove/replace of a missing key", 0);
            if (is_remove) {
                remove_item(parent, (size_t)slot);
            } else {
                jm_free(parent->items[slot]);
                parent->items[slot] = clone(value);
            }
            return 1;
        }
        if (slot >= 0) {
            jm_free(parent->items[slot]);
            parent->items[slot] = clone(value);
            return 1;
        }
        return insert_item(parent, parent->count, clone(value), segment) || (*why = "oom", 0);
    }
    if (parent->type == JM_ARRAY) {
        long i = array_index(segment, parent->count, is_add);
        if (i < 0) return (*why = "an index out of range", 0);
        if (is_add) return insert_item(parent, (size_t)i, clone(value), NULL) || (*why = "oom", 0);
        if (is_remove) {
            remove_item(parent, (size_t)i);
        } else {
            jm_free(parent->items[i]);
            parent->items[i] = clone(value);
        }
        return 1;
    }
    return (*why = "an op inside a scalar", 0);
}

/* Applies a patch (JSON text) to *doc; returns 1 if every op applied. */
static int apply_patch(jm_value **doc, const char *patch_json, const char **why) {
    char err[160];
    jm_value *patch = jm_parse(patch_json, strlen(patch_json), err, sizeof err);
    size_t i;
    int ok = 1;
    if (patch == NULL || patch->type != JM_ARRAY) {
        *why = "the patch is not a JSON array";
        jm_free(patch);
        return 0;
    }
    for (i = 0; ok && i < patch->count; i++) ok = apply_op(doc, patch->items[i], why);
    jm_free(patch);
    return ok;
}

static int same_json(const jm_value *a, const char *b_text) {
    jm_value *b = jm_parse(b_text, strlen(b_text), NULL, 0);
    int same = b != NULL && jm_equal(a, b, 0);
    jm_free(b);
    return same;
}

/* ---- Helpers --------------------------------------------------------------------------- */

static char *get(rk_store *s, const char *pointer, uint64_t *version) {
    char *json = NULL;
    size_t len = 0;
    CHECK_OK(rk_store_get(s, pointer, &json, &len, version));
    CHECK(json == NULL || strlen(json) == len);
    return json;
}

static char *patch_since(rk_store *s, uint64_t since, uint64_t *version) {
    char *json = NULL;
    size_t len = 0;
    CHECK_OK(rk_store_patch(s, since, &json, &len, version));
    CHECK(json == NULL || strlen(json) == len);
    return json;
}

typedef struct {
    jm_value *doc;       /* the first state with every delivered patch applied */
    uint64_t version;    /* the version of the last delivered patch */
    int calls;
    int empty_patches;   /* patches that were [] (must be none) */
    int failed;          /* a patch that did not apply */
    const char *why;
} follower;

static void follow(void *userdata, const char *patch, size_t len, uint64_t version) {
    follower *f = (follower *)userdata;
    f->calls++;
    if (strlen(patch) != len) f->failed = 1, f->why = "len is not strlen(patch_json)";
    if (strcmp(patch, "[]") == 0) f->empty_patches++;
    if (version <= f->version) f->failed = 1, f->why = "a version that did not grow";
    if (!apply_patch(&f->doc, patch, &f->why)) f->failed = 1;
    f->version = version;
}

/* ---- xorshift ------------------------------------------------------------------------- */

static uint64_t rng;
static uint64_t next_random(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int below(int n) { return (int)(next_random() % (uint64_t)n); }

/* Titles with the characters JSON and JSON Pointers escape. */
static const char *const titles[] = {"Milk", "a/b", "~tilde", "~1 not an escape", "quote \\\"q\\\"",
                                     "caf\\u00e9", "tab\\t", "", "x/~0/y", "\\u2603 snow"};

static void random_todos_state(char *out, size_t cap) {
    int n = below(8), i;
    size_t used = (size_t)snprintf(out, cap, "{\"initial_state\":{\"todos\":[");
    for (i = 0; i < n; i++) {
        used += (size_t)snprintf(out + used, cap - used, "%s{\"id\":%d,\"title\":\"%s\",\"isComplete\":%s}",
                                 i ? "," : "", i * 3 + below(3) + 1, titles[below(10)],
                                 below(2) ? "true" : "false");
    }
    snprintf(out + used, cap - used, "],\"filter\":\"%s\",\"nextID\":%d},\"clock\":\"test\"}",
             below(2) ? "all" : "active", below(40));
}

static void random_todos_action(char *out, size_t cap) {
    switch (below(7)) {
    case 0: case 1: snprintf(out, cap, "{\"addTodo\":{\"title\":\"%s\"}}", titles[below(10)]); break;
    case 2: case 3: snprintf(out, cap, "{\"toggle\":{\"id\":%d}}", below(30)); break;
    case 4: snprintf(out, cap, "{\"delete\":{\"id\":%d}}", below(30)); break;
    case 5: snprintf(out, cap, "{\"setFilter\":\"%s\"}", below(2) ? "all" : "completed"); break;
    default: snprintf(out, cap, "\"clearCompleted\""); break;
    }
}

static void random_counter_state(char *out, size_t cap) {
    snprintf(out, cap, "{\"initial_state\":{\"count\":%d,\"fact\":%s},\"clock\":\"test\"}",
             below(5) - 2, below(2) ? "null" : "\"a ~/ fact\"");
}

static void random_counter_action(char *out, size_t cap) {
    switch (below(6)) {
    case 0: snprintf(out, cap, "\"increment\""); break;
    case 1: snprintf(out, cap, "\"decrement\""); break;
    case 2: snprintf(out, cap, "{\"setCount\":%d}", below(4)); break;
    case 3: snprintf(out, cap, "\"factButtonTapped\""); break;
    case 4: snprintf(out, cap, "{\"factResponse\":\"%s\"}", titles[below(10)]); break;
    default: snprintf(out, cap, "\"toggleTimer\""); break;
    }
}

#define MAX_STEPS 80

/* One random run: returns 0 when a property failed (the caller prints the seed). */
static int run_one(const char *feature, uint64_t seed, int steps) {
    char options[1024], action[256];
    char *snapshots[MAX_STEPS + 1];
    uint64_t versions[MAX_STEPS + 1];
    follower f = {NULL, 0, 0, 0, 0, NULL};
    rk_store *s = NULL;
    uint64_t token = 0, v0 = 0;
    char *first;
    int step, k, ok = 1, counter = strcmp(feature, "counter") == 0;
    rng = seed * 2654435761u + 1;
    if (counter) random_counter_state(options, sizeof options);
    else random_todos_state(options, sizeof options);
    if (rk_store_create(feature, options, &s) != RK_OK) {
        CHECK_MSG(0, "create %s %s: %s", feature, options, rk_last_error());
        return 0;
    }
    first = get(s, "", &v0);
    f.doc = first ? jm_parse(first, strlen(first), NULL, 0) : NULL;
    f.version = v0;
    snapshots[0] = first;
    versions[0] = v0;
    CHECK_OK(rk_store_subscribe_patches(s, follow, &f, &token));
    for (step = 1; step <= steps && ok; step++) {
        uint64_t v = 0;
        char *state;
        int calls_before = f.calls;
        char *before = get(s, "", NULL);
        if (counter) random_counter_action(action, sizeof action);
        else random_todos_action(action, sizeof action);
        CHECK_OK(rk_store_send(s, action));
        if (counter) {
            CHECK_OK(rk_store_advance_clock(s, below(3) * 1000));
            CHECK_OK(rk_store_wait_idle(s, RK_T_MS(5000)));
        }
        state = get(s, "", &v);
        snapshots[step] = state;
        versions[step] = v;
        ok &= !f.failed;
        CHECK_MSG(!f.failed, "%s seed %llu step %d (%s): a delivered patch is wrong: %s", feature,
                  (unsigned long long)seed, step, action, f.why ? f.why : "?");
        /* Every change was delivered (a send that changed nothing makes no call, so the
         * followed version may be older): the followed copy is the state. */
        {
            int good = f.version <= v && f.doc != NULL && state != NULL && same_json(f.doc, state);
            char *followed = good ? NULL : jm_dump(f.doc);
            ok &= good;
            CHECK_MSG(good, "%s seed %llu step %d (%s): patched copy (v%llu) %s != state (v%llu) %s",
                      feature, (unsigned long long)seed, step, action, (unsigned long long)f.version,
                      followed ? followed : "NULL", (unsigned long long)v, state ? state : "NULL");
            free(followed);
        }
        /* A send that changed nothing made no call (todos: no effects, one delivery a send). */
        if (!counter && before != NULL && state != NULL && strcmp(before, state) == 0) {
            CHECK_MSG(f.calls == calls_before, "%s seed %llu step %d (%s): a call without a change",
                      feature, (unsigned long long)seed, step, action);
        }
        rk_free(before);
        /* rk_store_patch from earlier versions agrees: the first, the previous, and a few. */
        for (k = 0; k < step && ok; k = k == 0 ? (step > 5 ? step - 5 + below(5) : 1) : k + 1 + below(3)) {
            uint64_t to = 0;
            char *patch = patch_since(s, versions[k], &to);
            jm_value *doc = snapshots[k] ? jm_parse(snapshots[k], strlen(snapshots[k]), NULL, 0) : NULL;
            const char *why = "?";
            int applied = patch != NULL && doc != NULL && apply_patch(&doc, patch, &why);
            ok &= applied && to == v && same_json(doc, state);
            CHECK_MSG(applied && to == v && same_json(doc, state),
                      "%s seed %llu step %d: rk_store_patch(%llu) = %s (%s) does not lead to %s",
                      feature, (unsigned long long)seed, step, (unsigned long long)versions[k],
                      patch ? patch : "NULL", applied ? "applied" : why, state ? state : "NULL");
            jm_free(doc);
            rk_free(patch);
        }
    }
    CHECK(f.empty_patches == 0);
    CHECK_OK(rk_store_unsubscribe(s, token));
    for (k = 0; k < step; k++) rk_free(snapshots[k]);
    jm_free(f.doc);
    rk_store_destroy(s);
    return ok;
}

static void test_random_sequences(void) {
    static const char *const features[] = {"todos", "todos_untracked", "counter"};
    const char *one = getenv("RK_PATCH_SEED");
    int seeds = rk_t_under_valgrind() ? 3 : 30;
    int steps = rk_t_under_valgrind() ? 15 : 50;
    size_t i;
    int seed;
    TEST("property: delivered patches and rk_store_patch lead to rk_store_get's state");
    for (i = 0; i < sizeof features / sizeof features[0]; i++) {
        int failed_seeds = 0;
        for (seed = 1; seed <= seeds; seed++) {
            uint64_t s = one ? strtoull(one, NULL, 10) : (uint64_t)seed;
            if (!run_one(features[i], s, steps)) {
                printf("   %s: failed with RK_PATCH_SEED=%llu\n", features[i], (unsigned long long)s);
                if (++failed_seeds > 2) break;
            }
            if (one) break;
        }
    }
}

/* ---- rk_store_get --------------------------------------------------------------------- */

#define TODOS_3 \
    "{\"initial_state\":{\"todos\":[{\"id\":1,\"title\":\"a/b\",\"isComplete\":false}," \
    "{\"id\":2,\"title\":\"~x\",\"isComplete\":true},{\"id\":3,\"title\":\"c\",\"isComplete\":false}]}}"

/* Issue 25: the store keeps its last pointer read (the pointer parsed once, its JSON at a
 * version). A repeated read copies it; every change, every other pointer and every refused
 * pointer is read afresh, and what is read is always the value at the version returned. */
static void test_get_repeated(void) {
    rk_store *s;
    char *json = NULL, *a, *b, longest[400];
    size_t len = 99, i;
    uint64_t v = 99, v2 = 99;
    TEST("rk_store_get: repeated reads, reads after a change, alternating and long pointers");
    s = CREATE("todos", TODOS_3);
    for (i = 0; i < 3; i++) {
        json = get(s, "/todos/2/isComplete", &v);
        CHECK_STR_EQ(json, "false");
        CHECK(v == 0);
        rk_free(json);
    }
    CHECK_OK(rk_store_send(s, "{\"toggle\":{\"id\":3}}"));
    json = get(s, "/todos/2/isComplete", &v);
    CHECK_STR_EQ(json, "true");
    CHECK(v == 1);
    rk_free(json);
    /* Two pointers in turn: each read is its own (one entry is kept). */
    for (i = 0; i < 3; i++) {
        a = get(s, "/todos/0/title", &v);
        b = get(s, "/todos/2/isComplete", &v2);
        CHECK_STR_EQ(a, "\"a/b\"");
        CHECK_STR_EQ(b, "true");
        CHECK(v == 1 && v2 == 1);
        rk_free(a);
        rk_free(b);
    }
    /* A refused pointer after a kept one: refused each time, and the kept one still reads. */
    for (i = 0; i < 2; i++) {
        json = NULL;
        CHECK_STATUS(rk_store_get(s, "/todos/3/title", &json, &len, &v), RK_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(rk_last_error(), "3 elements");
        CHECK(json == NULL);
    }
    CHECK_OK(rk_store_send(s, "{\"addTodo\":{\"title\":\"d\"}}"));
    json = get(s, "/todos/3/title", &v);
    CHECK_STR_EQ(json, "\"d\"");
    CHECK(v == 2);
    rk_free(json);
    /* The JSON returned is the caller's: writing into it changes no later read. */
    json = get(s, "/todos/0/title", NULL);
    json[1] = 'X';
    rk_free(json);
    json = get(s, "/todos/0/title", NULL);
    CHECK_STR_EQ(json, "\"a/b\"");
    rk_free(json);
    /* An index with leading zeros is no RFC 6901 index: the message says so. */
    CHECK_STATUS(rk_store_get(s, "/todos/00", &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "the array at \"/todos\" has no element \"00\": leading zeros are not allowed");
    CHECK_STATUS(rk_store_get(s, "/todos/x1", &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "the array at \"/todos\" has no element \"x1\": an array index is digits");
    CHECK_STATUS(rk_store_get(s, "/todos/700", &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "the array at \"/todos\" has ");
    /* A pointer longer than the kept ones (256 bytes): read each time, the same answer. */
    snprintf(longest, sizeof longest, "/todos/0/%0300d", 0);
    for (i = 0; i < 2; i++) {
        CHECK_STATUS(rk_store_get(s, longest, &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(rk_last_error(), "no value at");
    }
    /* The whole state and a pointer in turn. */
    a = get(s, "", NULL);
    b = rk_t_state(s);
    CHECK_STR_EQ(a, b);
    rk_free(a);
    rk_free(b);
    json = get(s, "/filter", NULL);
    CHECK_STR_EQ(json, "\"all\"");
    rk_free(json);
    rk_store_destroy(s);
}

static char *copy_text(const char *text) {
    size_t n = strlen(text) + 1;
    char *copy = (char *)malloc(n);
    if (copy != NULL) memcpy(copy, text, n);
    return copy;
}

/* What a fresh store at `state` answers for `pointer` (its first read of it: no kept pointer,
 * no compiled read): the status, and the JSON or the error message (malloc'ed). */
static char *fresh_read(const char *state, const char *pointer, int *status) {
    size_t n = strlen(state) + 32;
    char *options = (char *)malloc(n), *json = NULL, *out;
    rk_store *fresh;
    CHECK(options != NULL);
    if (options == NULL) return NULL;
    snprintf(options, n, "{\"initial_state\":%s}", state);
    fresh = CREATE("todos", options);
    free(options);
    *status = rk_store_get(fresh, pointer, &json, NULL, NULL);
    out = copy_text(*status == RK_OK ? json : rk_last_error());
    rk_free(json);
    rk_store_destroy(fresh);
    return out;
}

/* Issue 25: a kept pointer read again after a change is read by a reader compiled for the
 * state's type (in place, no navigation). Every answer, value or error (status and message),
 * is the one a fresh store at the same state gives, for hostile pointers too, through adds,
 * toggles, deletes and filter changes, including reads that fail after reads that did not. */
static void test_get_compiled(void) {
    static const char *pointers[] = {
        "/todos/0/title", "/todos/1", "/todos/2/isComplete", "/todos/0/id", "/filter", "/nextID", "/todos",
        "/todos/3/title", "/todos/3", "/todos/01", "/todos/-", "/todos/99999999999999999999",
        "/todos/999999999999999999/title", "/todos/0/titel", "/todos/0/title/x", "/todos/1/title/0",
        "/~0x", "/to~1dos", "/todos/0/\xff", "/filter/0", "/nextID/x", "/todos/2/id/",
        "/todos/0/isComplete"};
    static const char *changes[] = {
        "{\"toggle\":{\"id\":1}}",
        "{\"addTodo\":{\"title\":\"q\\\"\\\\\\n\\u0001\xc3\xa9~1/\\u007f\"}}",
        "{\"toggle\":{\"id\":4}}",
        "{\"setFilter\":\"completed\"}",
        "{\"delete\":{\"id\":4}}",
        "{\"addTodo\":{\"title\":\"\"}}",
        "{\"delete\":{\"id\":1}}",
        "\"clearCompleted\""};
    size_t p, c, r;
    TEST("rk_store_get: a kept pointer after each change reads what a fresh store reads");
    for (p = 0; p < sizeof pointers / sizeof pointers[0]; p++) {
        rk_store *s = CREATE("todos", TODOS_3);
        for (c = 0; c <= sizeof changes / sizeof changes[0]; c++) {
            char *state = rk_t_state(s);
            int expected_status = 0;
            char *expected = fresh_read(state, pointers[p], &expected_status);
            for (r = 0; r < 2; r++) { /* after the change, then the same version again */
                char *json = NULL;
                int status = rk_store_get(s, pointers[p], &json, NULL, NULL);
                CHECK_MSG(status == expected_status, "pointer %lu after %lu changes: status %d, expected %d",
                          (unsigned long)p, (unsigned long)c, status, expected_status);
                if (status == RK_OK && expected != NULL) {
                    CHECK_STR_EQ(json, expected);
                } else if (expected != NULL) {
                    CHECK_STR_EQ(rk_last_error(), expected);
                    CHECK(json == NULL);
                }
                rk_free(json);
            }
            free(expected);
            rk_free(state);
            if (c < sizeof changes / sizeof changes[0]) CHECK_OK(rk_store_send(s, changes[c]));
        }
        rk_store_destroy(s);
    }
}

static void test_get(void) {
    rk_store *s;
    char *json = NULL, *whole, *state;
    size_t len = 99;
    uint64_t v = 99;
    TEST("rk_store_get");
    s = CREATE("todos", TODOS_3);
    whole = get(s, "", &v);
    state = rk_t_state(s);
    CHECK_STR_EQ(whole, state); /* the same shared bytes */
    CHECK(v == 0);
    rk_free(whole);
    whole = get(s, NULL, NULL);
    CHECK_STR_EQ(whole, state);
    rk_free(whole);
    rk_free(state);
    json = get(s, "/todos/1/title", NULL);
    CHECK_STR_EQ(json, "\"~x\"");
    rk_free(json);
    json = get(s, "/todos/0", NULL);
    CHECK_JSON(json, "{\"id\":1,\"title\":\"a/b\",\"isComplete\":false}");
    rk_free(json);
    json = get(s, "/filter", NULL);
    CHECK_STR_EQ(json, "\"all\"");
    rk_free(json);
    CHECK_OK(rk_store_send(s, "{\"toggle\":{\"id\":3}}"));
    json = get(s, "/todos/2/isComplete", &v);
    CHECK_STR_EQ(json, "true");
    CHECK(v == 1);
    rk_free(json);

    /* Unknown pointers name the first segment that does not exist; nothing is written. */
    json = NULL;
    CHECK_STATUS(rk_store_get(s, "/todos/3/title", &json, &len, &v), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "no value at \"/todos/3\" (of the pointer \"/todos/3/title\"):");
    CHECK_CONTAINS(rk_last_error(), "3 elements");
    CHECK(json == NULL && len == 99 && v == 1);
    CHECK_STATUS(rk_store_get(s, "/todos/0/titel", &json, &len, &v), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "no value at \"/todos/0/titel\":");
    CHECK_STATUS(rk_store_get(s, "/nope/x", &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "no value at \"/nope\" (of the pointer \"/nope/x\"):");
    CHECK_STATUS(rk_store_get(s, "/todos/01", &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rk_store_get(s, "/todos/-", &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rk_store_get(s, "/filter/0", &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "not an object or an array");
    CHECK_STATUS(rk_store_get(s, "todos", &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "start with \"/\"");
    {
        /* A hostile pointer: 8 MB of segments with newlines and escape codes. 031112b quoted
         * it three times, partly unescaped (a 100 MB pointer gave a 314 MB message). */
        size_t n = 8u << 20, i;
        char *big = (char *)malloc(n + 1);
        const char *kinds[] = {"/todos/9", "/nope", "/filter/x", "todos", "/a~2"};
        size_t k;
        CHECK(big != NULL);
        for (k = 0; big != NULL && k < sizeof kinds / sizeof kinds[0]; k++) {
            const char *m;
            size_t mlen, bad = 0;
            memcpy(big, kinds[k], strlen(kinds[k]));
            for (i = strlen(kinds[k]); i < n; i++) big[i] = "/\n\x1b[31m\"x"[i % 8];
            big[n] = '\0';
            CHECK_STATUS(rk_store_get(s, big, &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
            m = rk_last_error();
            mlen = strlen(m);
            for (i = 0; i < mlen; i++) bad += (unsigned char)m[i] < 0x20;
            CHECK_MSG(mlen < 1024, "%s...: a message of %lu bytes", kinds[k], (unsigned long)mlen);
            CHECK_MSG(bad == 0, "%s...: %lu raw control characters in the message", kinds[k],
                      (unsigned long)bad);
            CHECK_CONTAINS(m, "bytes)");
        }
        free(big);
    }
    CHECK_STATUS(rk_store_get(s, "/todos~2", &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "~0");
    CHECK_STATUS(rk_store_get(s, "/todos~", &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rk_store_get(s, "/\xff\xfe", &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "UTF-8");
    /* An escaped key that does not exist is named unescaped in the pointer it reports. */
    CHECK_STATUS(rk_store_get(s, "/to~1dos", &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "\"to/dos\"");
    CHECK_CONTAINS(rk_last_error(), "/to~1dos");
    CHECK(json == NULL);
    CHECK_STATUS(rk_store_get(s, "", NULL, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rk_store_get(NULL, "", &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK(rk_t_version(s) == 1);
    rk_store_destroy(s);
    CHECK_STATUS(rk_store_get(s, "", &json, NULL, NULL), RK_ERR_INVALID_HANDLE);
    CHECK(json == NULL);

    /* An enum with associated values, an optional, a nested array. */
    s = CREATE("search", "{\"initial_state\":{\"query\":\"sw\",\"results\":[\"swift\",\"swim\"]}}");
    json = get(s, "/results/1", NULL);
    CHECK_STR_EQ(json, "\"swim\"");
    rk_free(json);
    rk_store_destroy(s);
    s = CREATE("counter", NULL);
    json = get(s, "/fact", NULL);
    CHECK_STR_EQ(json, "null");
    rk_free(json);
    CHECK_STATUS(rk_store_get(s, "/fact/x", &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "null");
    rk_store_destroy(s);
}

/* ---- rk_store_patch ------------------------------------------------------------------- */

static void test_patch(void) {
    rk_store *s;
    char *json = NULL;
    size_t len = 7;
    uint64_t v = 7, v1 = 0;
    TEST("rk_store_patch");
    s = CREATE("todos", TODOS_3);
    /* The first call starts the history: from the current version, []. */
    json = patch_since(s, 0, &v);
    CHECK_STR_EQ(json, "[]");
    CHECK(v == 0);
    rk_free(json);
    CHECK_OK(rk_store_send(s, "{\"toggle\":{\"id\":1}}"));
    json = patch_since(s, 0, &v1);
    CHECK_STR_EQ(json, "[{\"op\":\"replace\",\"path\":\"/todos/0/isComplete\",\"value\":true}]");
    CHECK(v1 == 1);
    rk_free(json);
    CHECK_OK(rk_store_send(s, "{\"delete\":{\"id\":2}}"));
    CHECK_OK(rk_store_send(s, "{\"addTodo\":{\"title\":\"d/~\"}}"));
    json = patch_since(s, 1, &v);
    {
        /* One diff from version 1 to 3 (the store was not asked at 2): any patch that leads
         * there is right; this one updates in place. */
        jm_value *doc = jm_parse_str("{\"todos\":[{\"id\":1,\"title\":\"a/b\",\"isComplete\":true},"
                                     "{\"id\":2,\"title\":\"~x\",\"isComplete\":true},"
                                     "{\"id\":3,\"title\":\"c\",\"isComplete\":false}],"
                                     "\"filter\":\"all\",\"nextID\":4}");
        char *state = rk_t_state(s);
        const char *why = "?";
        CHECK_MSG(apply_patch(&doc, json, &why) && same_json(doc, state), "%s: %s", json, why);
        CHECK_CONTAINS(json, "\"path\":\"/todos/2/title\",\"value\":\"d/~\"");
        jm_free(doc);
        rk_free(state);
    }
    CHECK(v == 3);
    rk_free(json);
    CHECK_OK(rk_store_send(s, "{\"delete\":{\"id\":1}}"));
    json = patch_since(s, 3, &v);
    CHECK_STR_EQ(json, "[{\"op\":\"remove\",\"path\":\"/todos/0\"}]");
    rk_free(json);
    CHECK_OK(rk_store_send(s, "{\"addTodo\":{\"title\":\"e\"}}"));
    json = patch_since(s, 4, &v);
    CHECK_STR_EQ(json, "[{\"op\":\"add\",\"path\":\"/todos/2\",\"value\":{\"id\":5,\"title\":\"e\","
                       "\"isComplete\":false}},{\"op\":\"replace\",\"path\":\"/nextID\",\"value\":6}]");
    CHECK(v == 5);
    rk_free(json);
    json = patch_since(s, 5, NULL);
    CHECK_STR_EQ(json, "[]");
    rk_free(json);
    /* A version newer than the store's is an error; nothing is written. */
    json = NULL;
    CHECK_STATUS(rk_store_patch(s, 6, &json, &len, &v), RK_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(rk_last_error(), "newer");
    CHECK(json == NULL && len == 7 && v == 5);
    CHECK_STATUS(rk_store_patch(s, 0, NULL, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rk_store_patch(NULL, 0, &json, NULL, NULL), RK_ERR_INVALID_ARGUMENT);
    rk_store_destroy(s);
    CHECK_STATUS(rk_store_patch(s, 0, &json, NULL, NULL), RK_ERR_INVALID_HANDLE);

    /* Too old to be known: the whole state, always correct. */
    s = CREATE("counter", NULL);
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK_OK(rk_store_send(s, "\"increment\""));
    json = patch_since(s, 1, &v);
    {
        char *state = rk_t_state(s);
        char expected[512];
        snprintf(expected, sizeof expected, "[{\"op\":\"replace\",\"path\":\"\",\"value\":%s}]", state);
        CHECK_STR_EQ(json, expected);
        rk_free(state);
    }
    CHECK(v == 2);
    rk_free(json);
    rk_store_destroy(s);
}

/* ---- rk_store_subscribe_patches ------------------------------------------------------- */

typedef struct {
    int calls;
    char last[512];
    uint64_t version;
    rk_store *store;
    uint64_t token;
    int unsubscribe_inside;
} recorder;

static void record_patch(void *userdata, const char *patch, size_t len, uint64_t version) {
    recorder *r = (recorder *)userdata;
    r->calls++;
    snprintf(r->last, sizeof r->last, "%.*s", (int)len, patch);
    r->version = version;
    if (r->unsubscribe_inside) CHECK_OK(rk_store_unsubscribe(r->store, r->token));
}

static void test_subscribe(void) {
    rk_store *s;
    recorder r;
    uint64_t token = 0, state_token = 0;
    memset(&r, 0, sizeof r);
    TEST("rk_store_subscribe_patches");
    s = CREATE("counter", "{\"clock\":\"test\"}");
    CHECK_OK(rk_store_send(s, "\"increment\"")); /* before: not delivered */
    CHECK_OK(rk_store_subscribe_patches(s, record_patch, &r, &token));
    CHECK(r.calls == 0);
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK(r.calls == 1);
    CHECK_STR_EQ(r.last, "[{\"op\":\"replace\",\"path\":\"/count\",\"value\":2}]");
    CHECK(r.version == 2);
    /* No change, no call. */
    CHECK_OK(rk_store_send(s, "{\"setCount\":2}"));
    CHECK(r.calls == 1);
    /* From the version of the previous call: the unchanged one is skipped over. */
    CHECK_OK(rk_store_send(s, "\"decrement\""));
    CHECK(r.calls == 2 && r.version == 4);
    /* Tokens are one sequence with state subscriptions. */
    CHECK_OK(rk_store_subscribe(s, (rk_state_callback)record_patch, &r, &state_token));
    CHECK(state_token != token);
    CHECK_OK(rk_store_unsubscribe(s, state_token));
    CHECK_OK(rk_store_unsubscribe(s, token));
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK(r.calls == 2);
    CHECK_STATUS(rk_store_unsubscribe(s, token), RK_ERR_INVALID_ARGUMENT);
    /* Unsubscribing from inside the callback: it is the last call. */
    r.store = s;
    r.unsubscribe_inside = 1;
    CHECK_OK(rk_store_subscribe_patches(s, record_patch, &r, &r.token));
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK_OK(rk_store_send(s, "\"increment\""));
    CHECK(r.calls == 3);
    /* Bad arguments change nothing. */
    CHECK_STATUS(rk_store_subscribe_patches(s, NULL, NULL, &token), RK_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rk_store_subscribe_patches(s, record_patch, &r, NULL), RK_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rk_store_subscribe_patches(NULL, record_patch, &r, &token), RK_ERR_INVALID_ARGUMENT);
    CHECK(rk_store_send(s, "\"increment\"") == RK_OK && r.calls == 3);
    rk_store_destroy(s);
    CHECK_STATUS(rk_store_subscribe_patches(s, record_patch, &r, &token), RK_ERR_INVALID_HANDLE);
}

/* Several threads send while a subscriber follows: the followed copy ends equal. */
typedef struct {
    rk_store *store;
    int sends;
} sender;

static void *send_toggles(void *arg) {
    sender *s = (sender *)arg;
    int i;
    char action[64];
    for (i = 0; i < s->sends; i++) {
        snprintf(action, sizeof action, "{\"toggle\":{\"id\":%d}}", i % 5 + 1);
        if (rk_store_send(s->store, action) != RK_OK) return (void *)1;
    }
    return NULL;
}

static void test_threads(void) {
    rk_store *s;
    follower f = {NULL, 0, 0, 0, 0, NULL};
    pthread_t threads[3];
    sender work = {NULL, 0};
    uint64_t token = 0, v = 0;
    char *first, *state;
    int i, failed = 0;
    TEST("patch subscribers and rk_store_patch with several sending threads");
    s = CREATE("todos", TODOS_3);
    CHECK_OK(rk_store_send(s, "{\"addTodo\":{\"title\":\"4\"}}"));
    CHECK_OK(rk_store_send(s, "{\"addTodo\":{\"title\":\"5\"}}"));
    first = get(s, "", &v);
    f.doc = jm_parse(first, strlen(first), NULL, 0);
    f.version = v;
    CHECK_OK(rk_store_subscribe_patches(s, follow, &f, &token));
    work.store = s;
    work.sends = rk_t_under_valgrind() ? 100 : 2000;
    for (i = 0; i < 3; i++) pthread_create(&threads[i], NULL, send_toggles, &work);
    for (i = 0; i < 1000; i++) { /* a reader catching up by patches meanwhile */
        uint64_t to = 0;
        char *p = patch_since(s, v, &to);
        rk_free(p);
        if (rk_t_under_valgrind() && i > 50) break;
    }
    for (i = 0; i < 3; i++) {
        void *result = NULL;
        pthread_join(threads[i], &result);
        failed |= result != NULL;
    }
    CHECK(!failed);
    state = get(s, "", &v);
    CHECK_MSG(!f.failed, "a delivered patch is wrong: %s", f.why ? f.why : "?");
    CHECK_MSG(f.version <= v && same_json(f.doc, state), "followed v%llu, state v%llu",
              (unsigned long long)f.version, (unsigned long long)v);
    CHECK_OK(rk_store_unsubscribe(s, token));
    rk_free(first);
    rk_free(state);
    jm_free(f.doc);
    rk_store_destroy(s);
}

int main(int argc, char **argv) {
    rk_t_select(argc, argv);
    rk_t_watchdog(120);
    test_get();
    test_get_repeated();
    test_get_compiled();
    test_patch();
    test_subscribe();
    test_threads();
    test_random_sequences();
    RK_TEST_EXIT();
}
