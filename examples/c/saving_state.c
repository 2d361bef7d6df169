/* Saving a store's state to a file and restoring it in a later run (docs/saving-state.md).
 *
 *   cc -Iinclude examples/c/saving_state.c -Lbuild -lreducerkit -Wl,-rpath,build
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reducerkit.h"

/* Writes the store's snapshot to `path`. */
static rk_status save(rk_store *store, const char *path) {
    char *json = NULL;
    size_t len = 0;
    FILE *file;
    rk_status status = rk_store_snapshot(store, &json, &len);
    if (status != RK_OK) return status;
    file = fopen(path, "wb");
    if (file == NULL || fwrite(json, 1, len, file) != len) status = RK_ERR_INTERNAL;
    if (file != NULL && fclose(file) != 0) status = RK_ERR_INTERNAL;
    rk_free(json);
    return status;
}

/* Creates a store of `feature` from the snapshot saved in `path`. */
static rk_status restore(const char *feature, const char *path, rk_store **out) {
    static const char head[] = "{\"snapshot\": ";
    char *options;
    long size;
    rk_status status = RK_ERR_INTERNAL;
    FILE *file = fopen(path, "rb");
    if (file == NULL) return RK_ERR_INVALID_ARGUMENT;
    if (fseek(file, 0, SEEK_END) == 0 && (size = ftell(file)) >= 0 && fseek(file, 0, SEEK_SET) == 0
        && (options = malloc(sizeof head + (size_t)size + 1)) != NULL) {
        memcpy(options, head, sizeof head - 1);
        if (fread(options + sizeof head - 1, 1, (size_t)size, file) == (size_t)size) {
            strcpy(options + sizeof head - 1 + size, "}");
            status = rk_store_create(feature, options, out);  /* migrates an older snapshot */
        }
        free(options);
    }
    fclose(file);
    return status;
}

int main(int argc, char **argv) {
    /* The file: the first argument, else one in $TMPDIR (or /tmp). */
    const char *dir = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    char path[4096];
    rk_store *store = NULL, *again = NULL;
    uint64_t version = 0;
    char *state = NULL;
    rk_status status;

    snprintf(path, sizeof path, "%s", argc > 1 ? argv[1] : dir);
    if (argc <= 1) strncat(path, "/reducerkit-todos-snapshot.json", sizeof path - strlen(path) - 1);
    if (rk_store_create("todos", NULL, &store) != RK_OK
        || rk_store_send(store, "{\"addTodo\": {\"title\": \"Buy milk\"}}") != RK_OK
        || save(store, path) != RK_OK) {
        fprintf(stderr, "save: %s\n", rk_last_error());
        return 1;
    }
    rk_store_destroy(store);

    /* Later, perhaps with a newer library: */
    status = restore("todos", path, &again);
    remove(path);
    if (status != RK_OK) {
        fprintf(stderr, "restore: %s: %s\n", rk_status_string(status), rk_last_error());
        return 1;
    }
    rk_store_version(again, &version);
    rk_store_state(again, &state, NULL);
    printf("version %llu: %s\n", (unsigned long long)version, state);
    /* version 1: {"todos":[{"id":1,"title":"Buy milk","isComplete":false}],"filter":"all","nextID":2} */
    status = strstr(state, "\"Buy milk\"") != NULL && version == 1 ? RK_OK : RK_ERR_STATE;
    rk_free(state);
    rk_store_destroy(again);
    return status == RK_OK ? 0 : 1;
}
