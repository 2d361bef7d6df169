/*
 * json_mini.h — a minimal, strict JSON parser for reducerkit-check and the C tests: parse to a tree, compare two
 * trees as JSON values, print a tree back, free it.
 *
 *   jm_value *v = jm_parse(text, len, err, sizeof err);   NULL on error (err says where)
 *   jm_equal(a, b, flags)        1 if equal as JSON values: key order ignored, true is not 1,
 *                                integers (no fraction or exponent) compared exactly from their
 *                                text at any size, other numbers as doubles (1 == 1.0); flag
 *                                JM_NULL_IS_MISSING: a key whose value is null equals an absent
 *                                key (optionals may be written either way). The scenario
 *                                format's own rule is the library's rk_json_match().
 *   jm_get(obj, "key"), jm_get_n(obj, key, len), jm_at(arr, i), jm_dump(v) (malloc'd compact
 *   JSON), jm_free(v); jm_int64(v, &i) and jm_uint64(v, &u): an integer exactly, from its text
 *
 * Strict RFC 8259: no trailing commas, no comments, no leading zeros, no control characters
 * or invalid UTF-8 in strings, no lone surrogates in \u escapes, no key twice in an object
 * (keys compared byte for byte, U+0000 included), nothing after the value. Nesting is limited
 * to JM_MAX_DEPTH. Header-only (static inline) and C99.
 */
#ifndef JSON_MINI_H
#define JSON_MINI_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JM_MAX_DEPTH 1000
#define JM_NULL_IS_MISSING 1

typedef enum jm_type { JM_NULL, JM_BOOL, JM_NUMBER, JM_STRING, JM_ARRAY, JM_OBJECT } jm_type;

typedef struct jm_value {
    jm_type type;
    int boolean;              /* JM_BOOL */
    double number;            /* JM_NUMBER */
    char *text;               /* JM_NUMBER: the lexeme; JM_STRING: the decoded UTF-8 */
    size_t text_len;          /* length of text (a string may contain \u0000) */
    size_t count;             /* JM_ARRAY / JM_OBJECT: number of items */
    struct jm_value **items;  /* JM_ARRAY / JM_OBJECT: the values */
    char **keys;              /* JM_OBJECT: decoded keys (NUL-terminated) */
    size_t *key_lens;         /* JM_OBJECT: key lengths */
} jm_value;

typedef struct jm_parser {
    const unsigned char *s;
    size_t len, pos;
    int depth;
    char *err;
    size_t errlen;
    int failed;
} jm_parser;

static inline void jm_free(jm_value *v) {
    size_t i;
    if (v == NULL) return;
    for (i = 0; i < v->count; i++) {
        jm_free(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->key_lens);
    free(v->text);
    free(v);
}

static inline void jm_fail(jm_parser *p, const char *what) {
    if (p->failed) return;
    p->failed = 1;
    if (p->err != NULL && p->errlen > 0) {
        snprintf(p->err, p->errlen, "%s at offset %lu", what, (unsigned long)p->pos);
    }
}

static inline void jm_ws(jm_parser *p) {
    while (p->pos < p->len) {
        unsigned char c = p->s[p->pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') p->pos++;
        else break;
    }
}

static inline jm_value *jm_new(jm_type t) {
    jm_value *v = (jm_value *)calloc(1, sizeof *v);
    if (v != NULL) v->type = t;
    return v;
}

/* A growable byte buffer. */
typedef struct jm_buf {
    char *data;
    size_t len, cap;
    int oom;
} jm_buf;

static inline void jm_buf_put(jm_buf *b, const char *bytes, size_t n) {
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        char *grown;
        while (b->len + n + 1 > cap) cap *= 2;
        grown = (char *)realloc(b->data, cap);
        if (grown == NULL) {
            b->oom = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static inline void jm_buf_putc(jm_buf *b, char c) { jm_buf_put(b, &c, 1); }

static inline void jm_put_utf8(jm_buf *b, unsigned long cp) {
    char out[4];
    if (cp < 0x80) {
        out[0] = (char)cp;
        jm_buf_put(b, out, 1);
    } else if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        jm_buf_put(b, out, 2);
    } else if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        jm_buf_put(b, out, 3);
    } else {
        out[0] = (char)(0xF0 | (cp >> 18));
        out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[3] = (char)(0x80 | (cp & 0x3F));
        jm_buf_put(b, out, 4);
    }
}

static inline int jm_hex4(jm_parser *p, unsigned long *out) {
    unsigned long v = 0;
    int i;
    if (p->pos + 4 > p->len) return 0;
    for (i = 0; i < 4; i++) {
        unsigned char c = p->s[p->pos + (size_t)i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned long)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned long)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned long)(c - 'A' + 10);
        else return 0;
    }
    p->pos += 4;
    *out = v;
    return 1;
}

/* The length of the valid UTF-8 sequence at s[0..n), or 0 if invalid. */
static inline size_t jm_utf8_len(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        if (n >= 2 && (s[1] & 0xC0) == 0x80) return 2;
        return 0;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        if (n < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && s[1] < 0xA0) return 0;  /* overlong */
        if (c == 0xED && s[1] >= 0xA0) return 0; /* surrogate */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (n < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && s[1] < 0x90) return 0; /* overlong */
        if (c == 0xF4 && s[1] >= 0x90) return 0; /* > U+10FFFF */
        return 4;
    }
    return 0;
}

/* Parses a string at p->pos (at the opening quote) into a malloc'd buffer. */
static inline char *jm_parse_string(jm_parser *p, size_t *out_len) {
    jm_buf b = {NULL, 0, 0, 0};
    p->pos++; /* opening quote */
    for (;;) {
        unsigned char c;
        if (p->pos >= p->len) {
            jm_fail(p, "unterminated string");
            break;
        }
        c = p->s[p->pos];
        if (c == '"') {
            p->pos++;
            if (b.data == NULL) jm_buf_put(&b, "", 0);
            if (b.oom) {
                jm_fail(p, "out of memory");
                break;
            }
            *out_len = b.len;
            return b.data;
        }
        if (c < 0x20) {
            jm_fail(p, "control character in string");
            break;
        }
        if (c == '\\') {
            unsigned char e;
            p->pos++;
            if (p->pos >= p->len) {
                jm_fail(p, "unterminated escape");
                break;
            }
            e = p->s[p->pos++];
            switch (e) {
            case '"': jm_buf_putc(&b, '"'); break;
            case '\\': jm_buf_putc(&b, '\\'); break;
            case '/': jm_buf_putc(&b, '/'); break;
            case 'b': jm_buf_putc(&b, '\b'); break;
            case 'f': jm_buf_putc(&b, '\f'); break;
            case 'n': jm_buf_putc(&b, '\n'); break;
            case 'r': jm_buf_putc(&b, '\r'); break;
            case 't': jm_buf_putc(&b, '\t'); break;
            case 'u': {
                unsigned long cp, lo;
                if (!jm_hex4(p, &cp)) {
                    jm_fail(p, "bad \\u escape");
                    goto fail;
                }
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (p->pos + 2 <= p->len && p->s[p->pos] == '\\' && p->s[p->pos + 1] == 'u') {
                        p->pos += 2;
                        if (!jm_hex4(p, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
                            jm_fail(p, "bad low surrogate");
                            goto fail;
                        }
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    } else {
                        jm_fail(p, "lone high surrogate");
                        goto fail;
                    }
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    jm_fail(p, "lone low surrogate");
                    goto fail;
                }
                jm_put_utf8(&b, cp);
                break;
            }
            default:
                p->pos--;
                jm_fail(p, "bad escape");
                goto fail;
            }
            continue;
        }
        {
            size_t n = jm_utf8_len(p->s + p->pos, p->len - p->pos);
            if (n == 0) {
                jm_fail(p, "invalid UTF-8 in string");
                break;
            }
            jm_buf_put(&b, (const char *)p->s + p->pos, n);
            p->pos += n;
        }
    }
fail:
    free(b.data);
    return NULL;
}

static inline jm_value *jm_parse_value(jm_parser *p);

static inline int jm_push(jm_value *v, jm_value *item, char *key, size_t key_len, size_t *cap) {
    if (v->count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 4;
        jm_value **items = (jm_value **)realloc(v->items, ncap * sizeof *items);
        if (items == NULL) return 0;
        v->items = items;
        if (v->type == JM_OBJECT) {
            char **keys = (char **)realloc(v->keys, ncap * sizeof *keys);
            size_t *lens;
            if (keys == NULL) return 0;
            v->keys = keys;
            lens = (size_t *)realloc(v->key_lens, ncap * sizeof *lens);
            if (lens == NULL) return 0;
            v->key_lens = lens;
        }
        *cap = ncap;
    }
    v->items[v->count] = item;
    if (v->type == JM_OBJECT) {
        v->keys[v->count] = key;
        v->key_lens[v->count] = key_len;
    }
    v->count++;
    return 1;
}

static inline int jm_keys_compare(const jm_value *obj, size_t a, size_t b) {
    size_t la = obj->key_lens[a], lb = obj->key_lens[b];
    int c = memcmp(obj->keys[a], obj->keys[b], la < lb ? la : lb);
    if (c != 0) return c;
    return la < lb ? -1 : la > lb ? 1 : 0;
}

/* Whether an object has a key twice (byte for byte): pairwise for small objects, else by
 * sorting an index of the keys (a bottom-up merge sort: O(n log n) for any object). Returns
 * 0 when unique, 1 when a key repeats, -1 on out-of-memory. */
static inline int jm_has_duplicate_key(const jm_value *obj) {
    size_t n = obj->count, i, j, width, *order, *spare, *tmp;
    if (n < 2) return 0;
    if (n <= 16) {
        for (i = 0; i < n; i++)
            for (j = i + 1; j < n; j++)
                if (jm_keys_compare(obj, i, j) == 0) return 1;
        return 0;
    }
    order = (size_t *)malloc(n * sizeof *order);
    spare = (size_t *)malloc(n * sizeof *spare);
    if (order == NULL || spare == NULL) {
        free(order);
        free(spare);
        return -1;
    }
    for (i = 0; i < n; i++) order[i] = i;
    for (width = 1; width < n; width *= 2) {
        for (i = 0; i < n; i += 2 * width) {
            size_t mid = i + width < n ? i + width : n, end = i + 2 * width < n ? i + 2 * width : n;
            size_t l = i, r = mid, k = i;
            while (l < mid && r < end) spare[k++] = jm_keys_compare(obj, order[l], order[r]) <= 0 ? order[l++] : order[r++];
            while (l < mid) spare[k++] = order[l++];
            while (r < end) spare[k++] = order[r++];
        }
        tmp = order;
        order = spare;
        spare = tmp;
    }
    for (i = 1; i < n && jm_keys_compare(obj, order[i - 1], order[i]) != 0; i++) {
    }
    free(order);
    free(spare);
    return i < n;
}

static inline jm_value *jm_parse_container(jm_parser *p, int is_object) {
    jm_value *v = jm_new(is_object ? JM_OBJECT : JM_ARRAY);
    size_t cap = 0;
    char close = is_object ? '}' : ']';
    if (v == NULL) {
        jm_fail(p, "out of memory");
        return NULL;
    }
    if (++p->depth > JM_MAX_DEPTH) {
        jm_fail(p, "nesting too deep");
        jm_free(v);
        return NULL;
    }
    p->pos++; /* [ or { */
    jm_ws(p);
    if (p->pos < p->len && p->s[p->pos] == (unsigned char)close) {
        p->pos++;
        p->depth--;
        return v;
    }
    for (;;) {
        char *key = NULL;
        size_t key_len = 0;
        jm_value *item;
        jm_ws(p);
        if (is_object) {
            if (p->pos >= p->len || p->s[p->pos] != '"') {
                jm_fail(p, "expected a string key");
                break;
            }
            key = jm_parse_string(p, &key_len);
            if (key == NULL) break;
            jm_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') {
                free(key);
                jm_fail(p, "expected ':'");
                break;
            }
            p->pos++;
        }
        item = jm_parse_value(p);
        if (item == NULL) {
            free(key);
            break;
        }
        if (!jm_push(v, item, key, key_len, &cap)) {
            free(key);
            jm_free(item);
            jm_fail(p, "out of memory");
            break;
        }
        jm_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == (unsigned char)close) {
            int duplicate = is_object ? jm_has_duplicate_key(v) : 0;
            if (duplicate != 0) {
                jm_fail(p, duplicate > 0 ? "an object has the same key twice" : "out of memory");
                break;
            }
            p->pos++;
            p->depth--;
            return v;
        }
        jm_fail(p, is_object ? "expected ',' or '}'" : "expected ',' or ']'");
        break;
    }
    jm_free(v);
    return NULL;
}

static inline jm_value *jm_parse_number(jm_parser *p) {
    size_t start = p->pos;
    jm_value *v;
    const unsigned char *s = p->s;
    if (p->pos < p->len && s[p->pos] == '-') p->pos++;
    if (p->pos < p->len && s[p->pos] == '0') {
        p->pos++;
    } else if (p->pos < p->len && s[p->pos] >= '1' && s[p->pos] <= '9') {
        while (p->pos < p->len && s[p->pos] >= '0' && s[p->pos] <= '9') p->pos++;
    } else {
        jm_fail(p, "bad number");
        return NULL;
    }
    if (p->pos < p->len && s[p->pos] == '.') {
        p->pos++;
        if (p->pos >= p->len || s[p->pos] < '0' || s[p->pos] > '9') {
            jm_fail(p, "bad fraction");
            return NULL;
        }
        while (p->pos < p->len && s[p->pos] >= '0' && s[p->pos] <= '9') p->pos++;
    }
    if (p->pos < p->len && (s[p->pos] == 'e' || s[p->pos] == 'E')) {
        p->pos++;
        if (p->pos < p->len && (s[p->pos] == '+' || s[p->pos] == '-')) p->pos++;
        if (p->pos >= p->len || s[p->pos] < '0' || s[p->pos] > '9') {
            jm_fail(p, "bad exponent");
            return NULL;
        }
        while (p->pos < p->len && s[p->pos] >= '0' && s[p->pos] <= '9') p->pos++;
    }
    v = jm_new(JM_NUMBER);
    if (v == NULL) return NULL;
    v->text_len = p->pos - start;
    v->text = (char *)malloc(v->text_len + 1);
    if (v->text == NULL) {
        free(v);
        return NULL;
    }
    memcpy(v->text, s + start, v->text_len);
    v->text[v->text_len] = '\0';
    v->number = strtod(v->text, NULL);
    return v;
}

static inline int jm_literal(jm_parser *p, const char *word) {
    size_t n = strlen(word);
    if (p->pos + n <= p->len && memcmp(p->s + p->pos, word, n) == 0) {
        p->pos += n;
        return 1;
    }
    return 0;
}

static inline jm_value *jm_parse_value(jm_parser *p) {
    jm_value *v;
    jm_ws(p);
    if (p->pos >= p->len) {
        jm_fail(p, "unexpected end of input");
        return NULL;
    }
    switch (p->s[p->pos]) {
    case '{': return jm_parse_container(p, 1);
    case '[': return jm_parse_container(p, 0);
    case '"':
        v = jm_new(JM_STRING);
        if (v == NULL) return NULL;
        v->text = jm_parse_string(p, &v->text_len);
        if (v->text == NULL) {
            free(v);
            return NULL;
        }
        return v;
    case 't':
    case 'f':
        if (jm_literal(p, "true") || jm_literal(p, "false")) {
            v = jm_new(JM_BOOL);
            if (v != NULL) v->boolean = p->s[p->pos - 1] == 'e' && p->s[p->pos - 2] == 'u';
            return v;
        }
        break;
    case 'n':
        if (jm_literal(p, "null")) return jm_new(JM_NULL);
        break;
    default:
        if (p->s[p->pos] == '-' || (p->s[p->pos] >= '0' && p->s[p->pos] <= '9'))
            return jm_parse_number(p);
        break;
    }
    jm_fail(p, "unexpected character");
    return NULL;
}

/* Parses len bytes of JSON text. NULL on error; err (may be NULL) receives what and where. */
static inline jm_value *jm_parse(const char *text, size_t len, char *err, size_t errlen) {
    jm_parser p;
    jm_value *v;
    p.s = (const unsigned char *)text;
    p.len = len;
    p.pos = 0;
    p.depth = 0;
    p.err = err;
    p.errlen = errlen;
    p.failed = 0;
    if (err != NULL && errlen > 0) err[0] = '\0';
    if (text == NULL) return NULL;
    v = jm_parse_value(&p);
    if (v == NULL) {
        jm_fail(&p, "invalid JSON");
        return NULL;
    }
    jm_ws(&p);
    if (p.pos != p.len) {
        jm_fail(&p, "trailing characters after the value");
        jm_free(v);
        return NULL;
    }
    return v;
}

/* Parses a NUL-terminated string. */
static inline jm_value *jm_parse_str(const char *text) {
    return text == NULL ? NULL : jm_parse(text, strlen(text), NULL, 0);
}

/* The value of the member whose key is the `n` bytes at `key` (keys may hold U+0000), or
 * NULL if obj is not an object or has no such member. */
static inline const jm_value *jm_get_n(const jm_value *obj, const char *key, size_t n) {
    size_t i;
    if (obj == NULL || obj->type != JM_OBJECT || key == NULL) return NULL;
    for (i = 0; i < obj->count; i++) {
        if (obj->key_lens[i] == n && memcmp(obj->keys[i], key, n) == 0) return obj->items[i];
    }
    return NULL;
}

/* The member named by the NUL-terminated `key` (a key "a\u0000b" is not "a"). */
static inline const jm_value *jm_get(const jm_value *obj, const char *key) {
    return key == NULL ? NULL : jm_get_n(obj, key, strlen(key));
}

static inline const jm_value *jm_at(const jm_value *arr, size_t i) {
    if (arr == NULL || arr->type != JM_ARRAY || i >= arr->count) return NULL;
    return arr->items[i];
}

/* A string value's text, or NULL if v is not a string. */
static inline const char *jm_str(const jm_value *v) {
    return v != NULL && v->type == JM_STRING ? v->text : NULL;
}

static inline int jm_is_integer_text(const char *t) { return strpbrk(t, ".eE") == NULL; }

/* An integer's text without its sign, and whether it is negative ("-0" is 0). */
static inline const char *jm_integer_digits(const jm_value *v, int *negative) {
    const char *digits = v->text[0] == '-' ? v->text + 1 : v->text;
    *negative = v->text[0] == '-' && strcmp(digits, "0") != 0;
    return digits;
}

static inline int jm_numbers_equal(const jm_value *a, const jm_value *b) {
    if (jm_is_integer_text(a->text) && jm_is_integer_text(b->text)) {
        /* Exact at any size: JSON integers have no leading zeros, so equal values have equal
         * digits. */
        int na, nb;
        const char *da = jm_integer_digits(a, &na), *db = jm_integer_digits(b, &nb);
        return na == nb && strcmp(da, db) == 0;
    }
    return a->number == b->number;
}

/* The value of an integer (a number without fraction or exponent) from its text, exactly, if
 * it is within [0, max]: 1 and *out set, else 0. */
static inline int jm_whole(const jm_value *v, uint64_t max, uint64_t *out) {
    const char *digits;
    int negative;
    uint64_t n = 0;
    if (v == NULL || v->type != JM_NUMBER || !jm_is_integer_text(v->text)) return 0;
    digits = jm_integer_digits(v, &negative);
    if (negative) return 0;
    for (; *digits != '\0'; digits++) {
        unsigned d = (unsigned)(*digits - '0');
        if (d > 9 || n > (max - d) / 10) return 0;
        n = n * 10 + d;
    }
    *out = n;
    return 1;
}

/* An integer from 0 to INT64_MAX (e.g. advance_ms), exactly. */
static inline int jm_int64(const jm_value *v, int64_t *out) {
    uint64_t n;
    if (!jm_whole(v, (uint64_t)INT64_MAX, &n)) return 0;
    *out = (int64_t)n;
    return 1;
}

/* An integer from 0 to UINT64_MAX (e.g. a request id), exactly. */
static inline int jm_uint64(const jm_value *v, uint64_t *out) { return jm_whole(v, UINT64_MAX, out); }

static inline int jm_equal(const jm_value *a, const jm_value *b, int flags);

/* Whether every key of a is in b with an equal value (or, with JM_NULL_IS_MISSING, is null
 * in a and absent from b). Keys are matched by bytes; duplicates compare the first. */
static inline int jm_object_covers(const jm_value *a, const jm_value *b, int flags) {
    size_t i, j;
    for (i = 0; i < a->count; i++) {
        const jm_value *other = NULL;
        for (j = 0; j < b->count; j++) {
            if (b->key_lens[j] == a->key_lens[i] &&
                memcmp(b->keys[j], a->keys[i], a->key_lens[i]) == 0) {
                other = b->items[j];
                break;
            }
        }
        if (other == NULL) {
            if ((flags & JM_NULL_IS_MISSING) && a->items[i]->type == JM_NULL) continue;
            return 0;
        }
        if (!jm_equal(a->items[i], other, flags)) return 0;
    }
    return 1;
}

static inline int jm_equal(const jm_value *a, const jm_value *b, int flags) {
    size_t i;
    if (a == NULL || b == NULL) return a == b;
    if (a->type != b->type) return 0;
    switch (a->type) {
    case JM_NULL: return 1;
    case JM_BOOL: return a->boolean == b->boolean;
    case JM_NUMBER: return jm_numbers_equal(a, b);
    case JM_STRING:
        return a->text_len == b->text_len && memcmp(a->text, b->text, a->text_len) == 0;
    case JM_ARRAY:
        if (a->count != b->count) return 0;
        for (i = 0; i < a->count; i++) {
            if (!jm_equal(a->items[i], b->items[i], flags)) return 0;
        }
        return 1;
    case JM_OBJECT:
        if (!(flags & JM_NULL_IS_MISSING) && a->count != b->count) return 0;
        return jm_object_covers(a, b, flags) && jm_object_covers(b, a, flags);
    }
    return 0;
}

static inline void jm_dump_string(jm_buf *b, const char *s, size_t n) {
    size_t i;
    jm_buf_putc(b, '"');
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            jm_buf_putc(b, '\\');
            jm_buf_putc(b, (char)c);
        } else if (c < 0x20) {
            char esc[8];
            snprintf(esc, sizeof esc, "\\u%04x", (unsigned)c);
            jm_buf_put(b, esc, 6);
        } else {
            jm_buf_putc(b, (char)c);
        }
    }
    jm_buf_putc(b, '"');
}

static inline void jm_dump_to(jm_buf *b, const jm_value *v) {
    size_t i;
    switch (v->type) {
    case JM_NULL: jm_buf_put(b, "null", 4); break;
    case JM_BOOL: v->boolean ? jm_buf_put(b, "true", 4) : jm_buf_put(b, "false", 5); break;
    case JM_NUMBER: jm_buf_put(b, v->text, v->text_len); break;
    case JM_STRING: jm_dump_string(b, v->text, v->text_len); break;
    case JM_ARRAY:
        jm_buf_putc(b, '[');
        for (i = 0; i < v->count; i++) {
            if (i) jm_buf_putc(b, ',');
            jm_dump_to(b, v->items[i]);
        }
        jm_buf_putc(b, ']');
        break;
    case JM_OBJECT:
        jm_buf_putc(b, '{');
        for (i = 0; i < v->count; i++) {
            if (i) jm_buf_putc(b, ',');
            jm_dump_string(b, v->keys[i], v->key_lens[i]);
            jm_buf_putc(b, ':');
            jm_dump_to(b, v->items[i]);
        }
        jm_buf_putc(b, '}');
        break;
    }
}

/* Compact JSON text of v (malloc'd; free() it), or NULL on out-of-memory / NULL v. */
static inline char *jm_dump(const jm_value *v) {
    jm_buf b = {NULL, 0, 0, 0};
    if (v == NULL) return NULL;
    jm_dump_to(&b, v);
    if (b.oom) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

/* ---- With rk_test.h (include it first): CHECK_JSON(actual_text, expected_text) ----------- */
#ifdef RK_TEST_H
/* Whether actual (JSON text) equals expected (JSON text) as JSON values, with
 * JM_NULL_IS_MISSING (an optional may be null or absent). Prints both if not. */
static inline void jm_t_check_json(const char *actual, const char *expected, const char *file,
                                   int line, const char *expr) {
    char err[160];
    jm_value *a = actual ? jm_parse(actual, strlen(actual), err, sizeof err) : NULL;
    jm_value *e = jm_parse(expected, strlen(expected), NULL, 0);
    if (e == NULL) {
        rk_t_report(0, file, line, expr, "the expected text is not JSON: %s", expected);
    } else if (a == NULL) {
        rk_t_report(0, file, line, expr, "the actual text is not JSON (%s): %.400s",
                    actual ? err : "NULL", actual ? actual : "(null)");
    } else {
        rk_t_report(jm_equal(a, e, JM_NULL_IS_MISSING), file, line, expr,
                    "actual   %.600s\n    expected %.600s", actual, expected);
    }
    jm_free(a);
    jm_free(e);
}

#define CHECK_JSON(actual, expected) \
    jm_t_check_json((actual), (expected), __FILE__, __LINE__, "JSON " #actual " == " #expected)

/* Whether the store's state equals `expected` (JSON text) as a JSON value. */
#define CHECK_STATE_JSON(store, expected) \
    do { \
        char *jm_t_s_ = rk_t_state(store); \
        CHECK_JSON(jm_t_s_, (expected)); \
        rk_free(jm_t_s_); \
    } while (0)
#endif /* RK_TEST_H */

#endif /* JSON_MINI_H */
