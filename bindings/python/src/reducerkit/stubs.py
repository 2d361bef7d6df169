"""Typed bindings generated from a feature's JSON Schemas (``python -m reducerkit stubs``).

Python (:func:`python_stubs`): a module with a ``TypedDict`` for the state (and each nested
object), the actions as a union of ``Literal`` names and ``TypedDict`` cases, and typed
aliases of :class:`reducerkit.Store` and :class:`reducerkit.testing.TestStore`, so that
``mypy --strict`` accepts ``store.send({"setCount": 5})`` and rejects ``{"setCont": 5}``
and ``{"setCount": "5"}``::

    python -m reducerkit stubs counter -o counter_types.py

    from counter_types import CounterStore
    with CounterStore("counter", clock="test") as store:
        store.send({"setCount": 5})
        count: int = store.state["count"]

C (:func:`c_header`): a header with one ``static inline`` function per action that builds
the action's JSON (escaping strings) and calls ``rk_store_send``, so a C compiler checks
action names and payload types::

    python -m reducerkit stubs --lang c counter -o counter_actions.h

    counter_send_set_count(store, 5);        /* {"setCount":5} */
    todos_send_add_todo(store, "Milk \\"2%\\"");  /* {"addTodo":{"title":"Milk \\"2%\\""}} */

Both carry the feature's ``schema_hash`` they were generated from (``SCHEMA_HASH``,
``COUNTER_SCHEMA_HASH``), and creating a typed store checks it against the library's before
any store is made: ``CounterStore(...)`` raises :class:`reducerkit.SchemaMismatchError`, and
the C header's ``counter_store_create(options_json, &store, message, size)`` returns
``RK_ERR_MISUSE``, each with "generated from schema X, library has Y: regenerate with python -m
reducerkit stubs ...".

Actions are typed in their first wire form (``"increment"``, not ``{"increment": {}}``).

Schema text is data, never code. Every name and string of the schema reaches the output as an
escaped literal (Python ``repr``; C: JSON escaped, then C escaped, ASCII only) or, in comments
and docstrings, in an escaped form that cannot end them. Identifiers are mangled
deterministically: ``setCount`` -> ``set_count`` (C) and ``SetCount`` (Python); other
characters become ``_`` (non-ASCII ones ``u<hex>``); a C name that is a keyword, reserved or
already used in the header gets ``_`` and then ``_2``, ``_3``... in schema order (a Python
name ``2``, ``3``...), so mangled names never collide. A C feature prefix ``rk`` or
``rk_...`` (reducerkit.h's namespace) is written ``feature_rk...``. Output depends on the
input only: the same description always gives the same bytes.
"""

from __future__ import annotations

import json
import keyword
import re
import shlex
from collections.abc import Callable
from typing import Any

__all__ = ["python_stubs", "c_header"]


def _ascii_words(name: str) -> str:
    """``name`` with each non-ASCII character spelled ``u<hex>`` between separators."""
    return "".join(ch if ch.isascii() else f"_u{ord(ch):x}_" for ch in name)


def _camel(name: str) -> str:
    parts = re.split(r"[^0-9A-Za-z]+", _ascii_words(name))
    text = "".join(p[:1].upper() + p[1:] for p in parts if p)
    return text if text and not text[0].isdigit() else "T" + text


def _snake(name: str) -> str:
    text = re.sub(r"[^0-9A-Za-z]+", "_", _ascii_words(name))
    text = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", text).lower().strip("_")
    if not text:
        return "a"
    return text if not text[0].isdigit() else "a_" + text


def _check_text(description: Any) -> None:
    """Raises ValueError if a string of ``description`` is not Unicode text (a lone
    surrogate): no UTF-8 literal can hold it."""
    stack: list[tuple[Any, str]] = [(description, "feature")]
    while stack:
        value, where = stack.pop()
        texts: list[str] = []
        if isinstance(value, dict):
            texts = [k for k in value if isinstance(k, str)]
            stack.extend(reversed([(v, f"{where}[{k!r}]") for k, v in value.items()]))
        elif isinstance(value, list):
            stack.extend(reversed([(v, f"{where}[{i}]") for i, v in enumerate(value)]))
        elif isinstance(value, str):
            texts = [value]
        for text in texts:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                shown = repr(text)
                shown = shown if len(shown) <= 80 else shown[:77] + "..."
                raise ValueError(f"stubs: {where[:200]}: {shown} is not Unicode text (it holds "
                                 "a lone surrogate); schema names and strings must be") from None


def _schema_hash(description: dict[str, Any]) -> str | None:
    """The description's ``schema_hash`` (``None`` if it has none: a library before 0.3)."""
    value = description.get("schema_hash")
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"stubs: the feature's schema_hash is a {type(value).__name__}, not a "
                         f"string")
    return value


def _feature_name(description: dict[str, Any]) -> str:
    name = description.get("name") if isinstance(description, dict) else None
    if not isinstance(name, str):
        raise ValueError(f"stubs: the feature description has no string 'name' "
                         f"(got {type(name).__name__}); expected an entry of rk_features()")
    _check_text(description)
    return name


def _object_properties(schema: Any) -> dict[str, Any]:
    """The ``properties`` of an object schema ({} if it has none or they are not an object)."""
    if not isinstance(schema, dict):
        return {}
    properties = schema.get("properties")
    return properties if isinstance(properties, dict) else {}


def _action_cases(schema: Any) -> list[tuple[str, Any, bool]]:
    """The cases of an action schema: (name, payload schema, is a unit case)."""
    if not isinstance(schema, dict):
        return []
    options = schema.get("oneOf") or schema.get("anyOf") or [schema]
    cases: list[tuple[str, Any, bool]] = []
    for option in options if isinstance(options, list) else []:
        if not isinstance(option, dict):
            continue
        inner = option.get("anyOf") or option.get("oneOf")
        if isinstance(inner, list) and inner:
            names = [o["const"] for o in inner if isinstance(o, dict)
                     and isinstance(o.get("const"), str)]
            if names:
                cases.append((names[0], None, True))
                continue
            cases.extend(_action_cases(option))
            continue
        if isinstance(option.get("const"), str):
            cases.append((option["const"], None, True))
        elif isinstance(option.get("enum"), list):
            cases.extend((str(v), None, True) for v in option["enum"])
        elif option.get("type") == "object" and len(_object_properties(option)) == 1:
            (name, payload), = _object_properties(option).items()
            cases.append((name, payload, False))
    return cases


# ---- Python ------------------------------------------------------------------------------

# Names a generated module must not define: what it imports and defines besides its types,
# keywords (soft ones listed here so that the output is the same on every Python) and the
# builtins its annotations use. Generated names are CamelCase, so most cannot be spelled; the
# set is checked anyway.
_PY_RESERVED = frozenset({
    "FEATURE", "SCHEMA_HASH", "Any", "Literal", "Never", "NotRequired", "TypeAlias", "TypedDict", "annotations",
    "_Store", "_TestStore", "_", "case", "match", "type",
    "bool", "dict", "float", "int", "list", "str", "tuple", "None", "True", "False",
    *keyword.kwlist})


def _py_doc(text: str) -> str:
    """``repr(text)`` written so that a ``\"\"\"`` docstring reads back as that repr: it cannot
    end the docstring nor start an escape of its own."""
    return repr(text).replace("\\", "\\\\").replace('"', '\\"')


def _py_literal_value(value: Any) -> bool:
    """Whether ``Literal[...]`` accepts ``value`` (JSON strings, integers, booleans, null)."""
    return value is None or isinstance(value, (str, int, bool))


class _PythonWriter:
    def __init__(self, prefix: str, reserved: set[str]) -> None:
        self.prefix = prefix
        self.definitions: list[str] = []
        self.names: list[str] = []  # the TypedDicts, in order of definition
        self.taken: set[str] = set(_PY_RESERVED) | reserved
        self.typing: set[str] = {"TypeAlias", "TypedDict"}

    def _unique(self, name: str) -> str:
        candidate, n = name, 2
        while candidate in self.taken:
            candidate, n = f"{name}{n}", n + 1
        self.taken.add(candidate)
        return candidate

    def use(self, name: str) -> str:
        self.typing.add(name)
        return name

    def typed_dict(self, name: str, schema: Any, *, fixed: bool = False) -> str:
        """Defines a TypedDict named ``name`` (``fixed``: reserved for it, used as is)."""
        if not fixed:
            name = self._unique(name)
        self.names.append(name)
        properties = _object_properties(schema)
        required_list = schema.get("required") if isinstance(schema, dict) else None
        required = {r for r in required_list if isinstance(r, str)} \
            if isinstance(required_list, list) else set()
        fields = []
        for key, sub in properties.items():
            kind = self.type_of(sub, name + _camel(key))
            if key not in required:
                kind = f"{self.use('NotRequired')}[{kind}]"
            fields.append(f"    {key!r}: {kind},")
        body = "\n".join(fields)
        self.definitions.append(f"{name} = TypedDict({name!r}, {{\n{body}\n}})\n"
                                if fields else f"{name} = TypedDict({name!r}, {{}})\n")
        return name

    def type_of(self, schema: Any, name: str) -> str:
        if not isinstance(schema, dict) or not schema:
            return self.use("Any")
        if "const" in schema:
            if not _py_literal_value(schema["const"]):
                return self.use("Any")
            return f"{self.use('Literal')}[{schema['const']!r}]"
        if "enum" in schema:
            values = schema["enum"]
            if not isinstance(values, list) or not values \
                    or not all(_py_literal_value(v) for v in values):
                return self.use("Any")
            return f"{self.use('Literal')}[" + ", ".join(repr(v) for v in values) + "]"
        for key in ("oneOf", "anyOf"):
            if isinstance(schema.get(key), list) and schema[key]:
                return " | ".join(dict.fromkeys(self.type_of(s, name) for s in schema[key]))
        kind = schema.get("type")
        if isinstance(kind, list):
            kinds = [k for k in kind if isinstance(k, str)]
            if not kinds:
                return self.use("Any")
            return " | ".join(dict.fromkeys(self.type_of({**schema, "type": k}, name)
                                            for k in kinds))
        if kind == "null":
            return "None"
        if kind == "boolean":
            return "bool"
        if kind == "integer":
            return "int"
        if kind == "number":
            return "float"
        if kind == "string":
            return "str"
        if kind == "array":
            if isinstance(schema.get("prefixItems"), list):
                return "tuple[" + ", ".join(self.type_of(s, f"{name}{i}")
                                            for i, s in enumerate(schema["prefixItems"])) + "]"
            return f"list[{self.type_of(schema.get('items'), name + 'Item')}]"
        if kind == "object":
            if schema.get("maxProperties") == 0:
                return f"dict[str, {self.use('Never')}] | None"
            if _object_properties(schema):
                return self.typed_dict(name, schema)
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict):
                return f"dict[str, {self.type_of(extra, name + 'Value')}]"
            return f"dict[str, {self.use('Any')}]"
        return self.use("Any")


def python_stubs(description: dict[str, Any]) -> str:
    """A Python module typing the feature ``description`` (an entry of ``rk_features()``).

    Raises ValueError if the description has no string name or holds a string that is not
    Unicode text."""
    feature = _feature_name(description)
    prefix = _camel(feature)
    state_name, action, store, test_store = (f"{prefix}{s}" for s in
                                             ("State", "Action", "Store", "TestStore"))
    w = _PythonWriter(prefix, {state_name, action, store, test_store})
    state = w.typed_dict(state_name, description.get("state_schema") or {}, fixed=True)
    unit: list[str] = []
    cases: list[str] = []
    for name, payload, is_unit in _action_cases(description.get("action_schema") or {}):
        if is_unit:
            unit.append(repr(name))
            continue
        case = w._unique(f"{prefix}{_camel(name)}")
        w.names.append(case)
        kind = w.type_of(payload, case + "Payload")
        w.definitions.append(f"{case} = TypedDict({case!r}, {{{name!r}: {kind}}})\n")
        cases.append(case)
    members = ([f"{w.use('Literal')}[{', '.join(unit)}]"] if unit else []) + cases
    if not members:
        w.use("Never")
    doc = _py_doc(feature)
    schema_hash = _schema_hash(description)
    lines = [
        f'"""Types of the ReducerKit feature {doc}: generated by `python -m reducerkit stubs`',
        'from the library\'s JSON Schemas. Do not edit; generate again."""',
        "",
        "from __future__ import annotations",
        "",
        f"from typing import {', '.join(sorted(w.typing))}",
        "",
        "from reducerkit import Store as _Store",
        "from reducerkit.testing import TestStore as _TestStore",
        "",
        f"FEATURE = {feature!r}",
        "",
        f"SCHEMA_HASH: str | None = {schema_hash!r}",
        f'"""The schema hash of {doc} these types were generated from: creating a store checks',
        "it against the library's (reducerkit.SchemaMismatchError).\"\"\"",
        "",
        *w.definitions,
        f"{action}: TypeAlias = " + (" | ".join(members) if members else "Never"),
        f'"""An action of {doc}: what `{store}.send` accepts."""',
        "",
        "",
        f"class {store}(_Store[{state}, {action}]):",
        f'    """A `reducerkit.Store` of {doc}: `{store}(FEATURE, clock="test")`. Creating it',
        '    fails (reducerkit.SchemaMismatchError) if the library\'s feature has another',
        '    schema than SCHEMA_HASH."""',
        "",
        "    _schema_hash = SCHEMA_HASH",
        "",
        "",
        f"class {test_store}(_TestStore[{state}, {action}]):",
        f'    """A `reducerkit.testing.TestStore` of {doc}, checked like `{store}`."""',
        "",
        "    _schema_hash = SCHEMA_HASH",
        "",
        "",
        "__all__ = [\"FEATURE\", \"SCHEMA_HASH\", " + ", ".join(
            repr(n) for n in [*sorted(w.names), action, store, test_store]) + "]",
        "",
    ]
    return "\n".join(lines)


# ---- C -----------------------------------------------------------------------------------

# Identifiers a generated name must not be: C99..C23 keywords and GNU C's (asm, typeof: the
# gnu dialects' keywords), macros predefined in gnu dialects (linux, unix, i386...) or by the
# headers the generated header includes (bool, true, false, stdin...), and names with an
# underscore that <stdio.h>, <stdlib.h>, <string.h> and <stdint.h> declare (C23, glibc's
# default) which a generated name could spell. Besides: identifiers with a double underscore
# or a leading underscore, names ending in _t (POSIX's) and the <stdint.h> limits.
_C_RESERVED = frozenset("""
    auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while alignas alignof bool constexpr false nullptr
    static_assert thread_local true typeof typeof_unqual asm
    linux unix i386 i486 i586 i686 sun sparc mips vax
    stdin stdout stderr errno offsetof alloca unreachable NULL EOF
    aligned_alloc arc4random_buf arc4random_uniform at_quick_exit clearerr_unlocked drand48_data
    drand48_r ecvt_r erand48_r explicit_bzero fcvt_r fd_mask fd_set feof_unlocked
    ferror_unlocked fflush_unlocked fgetc_unlocked fileno_unlocked fputc_unlocked fread_unlocked
    fwrite_unlocked getc_unlocked getchar_unlocked initstate_r jrand48_r lcong48_r lrand48_r
    mrand48_r nrand48_r on_exit open_memstream posix_memalign putc_unlocked putchar_unlocked
    qecvt_r qfcvt_r quick_exit rand_r random_data random_r seed48_r setstate_r srand48_r
    srandom_r strcasecmp_l strcoll_l strerror_l strerror_r strncasecmp_l strtok_r strxfrm_l
    tmpnam_r u_char u_int u_long u_short va_list memset_explicit
    MB_CUR_MAX L_tmpnam L_ctermid P_tmpdir
""".split())
_C_RESERVED_PATTERN = re.compile(
    r"^_|__|_t$|^U?INT_(LEAST|FAST)[0-9]+_(MAX|MIN|WIDTH)$|^SIG_ATOMIC_(MAX|MIN|WIDTH)$")

# What a sender's body names besides its parameters: its locals, `store`, the helpers and the
# types and functions of reducerkit.h it calls. A parameter is never one of these.
_C_LOCALS = frozenset({"store", "rk_b", "rk_i", "rk_json", "rk_status", "rk_store",
                       "rk_store_send", "rk_stubs_buf", "rk_stubs_put", "rk_stubs_raw",
                       "rk_stubs_string", "rk_stubs_int", "rk_stubs_double", "rk_stubs_bool",
                       "rk_stubs_send", "rk_stubs_message", "rk_stubs_schema_hash",
                       "rk_stubs_create", "rk_features", "rk_free", "rk_last_error",
                       "rk_store_create", "int64_t", "size_t"})

# The longest string literal C99 requires compilers to support (gcc -pedantic errs beyond).
_C_MAX_LITERAL = 4095

_HELPERS = r"""
#ifndef RK_STUBS_HELPERS
#define RK_STUBS_HELPERS
/* JSON building for the generated senders (shared by every generated header). */
typedef struct rk_stubs_buf { char *data; size_t len, cap; int failed; } rk_stubs_buf;

static inline void rk_stubs_put(rk_stubs_buf *b, const char *s, size_t n) {
    if (b->failed) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        char *grown;
        while (b->len + n + 1 > cap) cap *= 2;
        grown = (char *)realloc(b->data, cap);
        if (grown == NULL) { b->failed = 1; return; }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static inline void rk_stubs_raw(rk_stubs_buf *b, const char *s) { rk_stubs_put(b, s, strlen(s)); }

/* A JSON string: quotes, backslashes and control characters escaped; NULL is null. */
static inline void rk_stubs_string(rk_stubs_buf *b, const char *s) {
    if (s == NULL) { rk_stubs_raw(b, "null"); return; }
    rk_stubs_put(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c == '"' || c == '\\') { esc[0] = '\\'; esc[1] = (char)c; rk_stubs_put(b, esc, 2); }
        else if (c == '\n') rk_stubs_put(b, "\\n", 2);
        else if (c == '\t') rk_stubs_put(b, "\\t", 2);
        else if (c == '\r') rk_stubs_put(b, "\\r", 2);
        else if (c < 0x20) { snprintf(esc, sizeof esc, "\\u%04x", (unsigned)c); rk_stubs_put(b, esc, 6); }
        else rk_stubs_put(b, (const char *)s, 1);
    }
    rk_stubs_put(b, "\"", 1);
}

static inline void rk_stubs_int(rk_stubs_buf *b, int64_t v) {
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)v);
    rk_stubs_raw(b, text);
}

static inline void rk_stubs_double(rk_stubs_buf *b, double v) {
    char text[40];
    snprintf(text, sizeof text, "%.17g", v);
    rk_stubs_raw(b, text);
}

static inline void rk_stubs_bool(rk_stubs_buf *b, bool v) { rk_stubs_raw(b, v ? "true" : "false"); }

/* Copies `text` into message (message_size bytes, cut to fit; NULL or 0: nothing). */
static inline void rk_stubs_message(char *message, size_t message_size, const char *text) {
    size_t n;
    if (message == NULL || message_size == 0) return;
    n = strlen(text);
    if (n >= message_size) n = message_size - 1;
    memcpy(message, text, n);
    message[n] = '\0';
}

/* In rk_features() text `json`, the "schema_hash" of the feature whose "name" is the JSON
 * string `name` (quotes included), into out (out_size bytes; "" if the feature has none).
 * Returns 1 if the list has the feature, else 0. Reads only the list's own objects: a
 * "name" inside a schema or an endpoint is never taken for the feature's. */
static inline int rk_stubs_schema_hash(const char *json, const char *name, char *out,
                                       size_t out_size) {
    int depth = 0, key = 0, field = 0, named = 0;
    size_t name_len = strlen(name);
    char hash[64] = "";
    while (*json) {
        char c = *json;
        if (c == '"') {
            const char *start = json++;
            size_t len;
            while (*json && *json != '"') json += (*json == '\\' && json[1]) ? 2 : 1;
            if (!*json) break;
            len = (size_t)(++json - start);
            if (depth != 2) continue;
            if (key) {
                field = (len == 6 && memcmp(start, "\"name\"", 6) == 0) ? 1
                      : (len == 13 && memcmp(start, "\"schema_hash\"", 13) == 0) ? 2 : 0;
                key = 0;
            } else if (field == 1) {
                named = len == name_len && memcmp(start, name, len) == 0;
            } else if (field == 2 && len - 2 < sizeof hash) {
                memcpy(hash, start + 1, len - 2);
                hash[len - 2] = '\0';
            }
            continue;
        }
        if (c == '{' || c == '[') {
            if (++depth == 2) { key = 1; field = 0; named = 0; hash[0] = '\0'; }
        } else if (c == '}' || c == ']') {
            if (depth == 2 && named) {
                rk_stubs_message(out, out_size, hash);
                return 1;
            }
            depth--;
        } else if (c == ',' && depth == 2) {
            key = 1;
            field = 0;
        }
        json++;
    }
    rk_stubs_message(out, out_size, "");
    return 0;
}

/* rk_store_create(feature, options_json, out) once the library's feature is known to have the
 * schema hash `hash` the header was generated from (NULL: not checked). On a mismatch nothing
 * is created and the result is RK_ERR_MISUSE, with a message saying both hashes and `command`
 * (which generates the header again); any other error is rk_store_create's, with its
 * rk_last_error() copied. */
static inline rk_status rk_stubs_create(const char *feature, const char *name_json,
                                        const char *hash, const char *command,
                                        const char *options_json, rk_store **out,
                                        char *message, size_t message_size) {
    char *list = NULL;
    char found[64];
    rk_status status;
    rk_stubs_message(message, message_size, "");
    if (out != NULL) *out = NULL;
    if (hash != NULL) {
        status = rk_features(&list, NULL);
        if (status != RK_OK) {
            rk_stubs_message(message, message_size, rk_last_error());
            return status;
        }
        if (rk_stubs_schema_hash(list, name_json, found, sizeof found) && strcmp(found, hash) != 0) {
            rk_free(list);
            if (message != NULL && message_size > 0) {
                snprintf(message, message_size,
                         "stubs of feature %s: generated from schema %s, library has %s: "
                         "regenerate with %s",
                         name_json, hash, found[0] ? found : "no schema hash", command);
            }
            return RK_ERR_MISUSE;
        }
        rk_free(list);
    }
    status = rk_store_create(feature, options_json, out);
    if (status != RK_OK) rk_stubs_message(message, message_size, rk_last_error());
    return status;
}

/* Sends the built action; RK_ERR_INTERNAL if building it ran out of memory. */
static inline rk_status rk_stubs_send(rk_store *store, rk_stubs_buf *b) {
    rk_status status = b->failed ? RK_ERR_INTERNAL : rk_store_send_n(store, b->data, b->len);
    free(b->data);
    return status;
}
#endif
"""


def _c_allowed(name: str) -> bool:
    return name not in _C_RESERVED and not _C_RESERVED_PATTERN.search(name)


class _CNames:
    """Identifiers handed out so far: each new one is the wanted name if free, else the name
    with ``_``, else with ``_2``, ``_3``... (never reserved, never twice)."""

    def __init__(self, taken: set[str] | frozenset[str] = frozenset()) -> None:
        self.taken: set[str] = set(taken)

    def unique(self, wanted: str) -> str:
        base = re.sub(r"_{2,}", "_", wanted)  # joined parts never make a double underscore
        if not _c_allowed(base):
            base += "_"
        candidate, n = base, 2
        while candidate in self.taken or not _c_allowed(candidate):
            candidate, n = f"{base}{'' if base.endswith('_') else '_'}{n}", n + 1
        self.taken.add(candidate)
        return candidate


def _c_string(text: str) -> str:
    """A C string literal of ``text``'s UTF-8 bytes, in printable ASCII: quotes, backslashes
    and ``?`` (no ``??=`` trigraphs in C99) escaped, every other byte as a three-digit octal
    escape (which, unlike ``\\x``, cannot run on into the next character)."""
    out = ['"']
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch in '"\\?':
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    out.append('"')
    return "".join(out)


def _c_json(text: str) -> str:
    """``text`` as a JSON string (quotes and all)."""
    return json.dumps(text, ensure_ascii=False)


def _comment(text: str) -> str:
    """``text`` for a C comment: a JSON string in ASCII with every ``/`` escaped (``\\/``, and
    ``\\u002a`` for a ``*`` after it: JSON escapes too), so that neither ``*/`` nor ``/*`` can
    appear, and no ``??`` trigraph."""
    shown = json.dumps(text, ensure_ascii=True).replace("/", "\\/").replace("/*", "/\\u002a")
    return re.sub(r"\?(?=\?)", r"\\u003f", shown)


class _CParam:
    def __init__(self, c_type: str, base: str, write: Callable[[str], str], doc: str,
                 key: str | None) -> None:
        self.c_type = c_type
        self.base = base    # the wanted parameter name
        self.name = base    # the name given (see _CWriter.sender)
        self.write = write  # the C statements writing the value, given the parameter's name
        self.doc = doc
        self.key = key      # the payload key it is the value of


def _writes(helper: str) -> Callable[[str], str]:
    """The statement writing a parameter (named by the argument) with the helper ``helper``."""
    return lambda v: f"{helper}(&rk_b, {v});"


class _CEnum:
    def __init__(self, type_name: str, values: list[str], constants: list[str],
                 function: str) -> None:
        self.type_name = type_name
        self.values = values
        self.constants = constants
        self.function = function


class _CWriter:
    def __init__(self, prefix: str, names: _CNames) -> None:
        self.prefix = prefix
        self.names = names
        self.enums: list[_CEnum] = []

    def enum(self, hint: str, values: list[str]) -> _CEnum:
        type_name = self.names.unique(f"{self.prefix}_{_snake(hint)}")
        upper = type_name.upper()
        constants = [self.names.unique(f"{upper}_{_snake(v).upper()}") for v in values]
        e = _CEnum(type_name, values, constants, self.names.unique(f"{type_name}_json"))
        self.enums.append(e)
        return e

    def param(self, schema: Any, base: str, hint: str, key: str | None) -> _CParam:
        """A C parameter for a value of ``schema`` and the code writing it as JSON."""
        s = schema if isinstance(schema, dict) else {}
        kind = s.get("type")
        nullable = isinstance(kind, list) and "null" in kind
        if isinstance(kind, list):
            rest = [k for k in kind if k != "null"]
            kind = rest[0] if len(rest) == 1 else None
        values = s.get("enum")
        if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
            e = self.enum(hint, values)
            items = ", ".join(_c_string(_c_json(v)) for v in values)
            count = len(values)

            def write(v: str) -> str:
                return ("{\n"
                        f"        static const char *const rk_json[] = {{{items}}};\n"
                        f"        int rk_i = (int){v};\n"
                        f"        rk_stubs_raw(&rk_b, (rk_i >= 0 && rk_i < {count}) ? "
                        "rk_json[rk_i] : \"null\");\n"
                        "    }")
            return _CParam(e.type_name, base, write, f"a {e.type_name} (see its values)", key)
        if kind == "integer":
            return _CParam("int64_t", base, _writes("rk_stubs_int"), "an integer", key)
        if kind == "number":
            return _CParam("double", base, _writes("rk_stubs_double"), "a number", key)
        if kind == "boolean":
            return _CParam("bool", base, _writes("rk_stubs_bool"), "true or false", key)
        if kind == "string":
            return _CParam("const char *", base, _writes("rk_stubs_string"),
                           "a UTF-8 string" + (" or NULL for null" if nullable else ""), key)
        return _CParam("const char *", base + "_json", _writes("rk_stubs_raw"),
                       "JSON text of the value", key)

    def plan(self, name: str, payload: Any, is_unit: bool) -> tuple[str, list[_CParam]]:
        """Names the case's sender and its enums (in schema order); its parameters are named
        by :meth:`sender`, once every file-scope name is known."""
        fn = self.names.unique(f"{self.prefix}_send_{_snake(name)}")
        if is_unit:
            return fn, []
        p = payload if isinstance(payload, dict) else {}
        properties = _object_properties(p)
        if p.get("type") == "object" and properties:
            return fn, [self.param(sub, _snake(key), f"{name}_{key}", key)
                        for key, sub in properties.items()]
        if p.get("type") == "array" and isinstance(p.get("prefixItems"), list):
            return fn, [self.param(sub, f"value{i}", f"{name}_{i}", None)
                        for i, sub in enumerate(p["prefixItems"])]
        return fn, [self.param(p, "value", name, None)]

    def sender(self, fn: str, name: str, payload: Any, is_unit: bool,
               params: list[_CParam]) -> str:
        if is_unit:
            return (f"/** Sends {_comment(name)}. */\n"
                    f"static inline rk_status {fn}(rk_store *store) {{\n"
                    f"    return rk_store_send(store, {_c_string(_c_json(name))});\n}}\n")
        local = _CNames(self.names.taken | _C_LOCALS)
        for q in params:
            q.name = local.unique(q.base)
        p = payload if isinstance(payload, dict) else {}
        body: list[str] = []
        pending: list[str] = [f"{{{_c_json(name)}:"]  # JSON text not written yet

        def flush() -> None:
            chunk = ""
            for piece in pending:
                if chunk and len((chunk + piece).encode("utf-8")) > _C_MAX_LITERAL:
                    body.append(f"    rk_stubs_raw(&rk_b, {_c_string(chunk)});")
                    chunk = ""
                chunk += piece
            if chunk:
                body.append(f"    rk_stubs_raw(&rk_b, {_c_string(chunk)});")
            pending.clear()

        is_object = p.get("type") == "object" and bool(_object_properties(p))
        is_tuple = not is_object and p.get("type") == "array" \
            and isinstance(p.get("prefixItems"), list)
        if is_object or is_tuple:
            pending.append("{" if is_object else "[")
        for i, q in enumerate(params):
            if i:
                pending.append(",")
            if q.key is not None:
                pending.append(f"{_c_json(q.key)}:")
            flush()
            body.append("    " + q.write(q.name))
        if is_object or is_tuple:
            pending.append("}" if is_object else "]")
        pending.append("}")
        flush()
        signature = ", ".join(["rk_store *store"] + [
            f"{q.c_type}{'' if q.c_type.endswith('*') else ' '}{q.name}" for q in params])
        docs = "\n".join(
            f" *   {q.name}: " + (f"the key {_comment(q.key)}, " if q.key is not None
                                 and q.key != q.name else "") + q.doc
            for q in params)
        return (f"/** Sends {_comment(name)} with its payload:\n{docs}\n */\n"
                f"static inline rk_status {fn}({signature}) {{\n"
                f"    rk_stubs_buf rk_b = {{NULL, 0, 0, 0}};\n" + "\n".join(body) +
                "\n    return rk_stubs_send(store, &rk_b);\n}\n")


def _c_enum_text(e: _CEnum) -> str:
    members = ",\n".join(f"    {c}" for c in e.constants)
    strings = ", ".join(_c_string(v) for v in e.values)
    docs = "\n".join(f" *   {c}: {_comment(v)}" for c, v in zip(e.constants, e.values))
    return (f"/** The values of a string enum:\n{docs}\n */\n"
            f"typedef enum {e.type_name} {{\n{members}\n}} {e.type_name};\n\n"
            f"/** The value's string (UTF-8; a value holding NUL ends there), NULL if out of "
            f"range. */\n"
            f"static inline const char *{e.function}(int v) {{\n"
            f"    static const char *const names[] = {{{strings}}};\n"
            f"    return (v >= 0 && v < {len(e.values)}) ? names[v] : NULL;\n}}\n")


def _c_check_lengths(feature: str, cases: list[tuple[str, Any, bool]],
                     enums: list[_CEnum], params: list[list[_CParam]]) -> None:
    """Raises ValueError for a name too long for one C string literal."""
    texts = [feature] + [name for name, _, _ in cases] + [v for e in enums for v in e.values]
    texts += [q.key for qs in params for q in qs if q.key is not None]
    for text in texts:
        size = len(_c_json(text).encode("utf-8"))
        if size > _C_MAX_LITERAL - 8:
            raise ValueError(f"stubs: the name {text[:40]!r}... is {size} bytes as JSON; the C "
                             f"header's string literals hold at most {_C_MAX_LITERAL - 8} "
                             f"(C99 requires compilers to support {_C_MAX_LITERAL})")


def c_header(description: dict[str, Any]) -> str:
    """A C header with one ``static inline`` sender per action of the feature
    ``description`` (an entry of ``rk_features()``).

    Raises ValueError if the description has no string name, holds a string that is not
    Unicode text, or a name longer than a C string literal can be (4,087 bytes as JSON)."""
    feature = _feature_name(description)
    prefix = _snake(feature)
    if prefix == "rk" or prefix.startswith("rk_"):
        prefix = "feature_" + prefix  # rk_ and RK_ are reducerkit.h's
    names = _CNames()
    guard = names.unique(f"RK_STUBS_{prefix.upper()}_H")
    feature_macro = names.unique(f"{prefix.upper()}_FEATURE")
    hash_macro = names.unique(f"{prefix.upper()}_SCHEMA_HASH")
    create = names.unique(f"{prefix}_store_create")
    schema_hash = _schema_hash(description)
    command = f"python -m reducerkit stubs --lang c {shlex.quote(feature)}"
    w = _CWriter(prefix, names)
    cases = _action_cases(description.get("action_schema") or {})
    plans = [w.plan(name, payload, is_unit) for name, payload, is_unit in cases]
    _c_check_lengths(feature, cases, w.enums, [qs for _, qs in plans])
    senders = [w.sender(fn, name, payload, is_unit, params)
               for (name, payload, is_unit), (fn, params) in zip(cases, plans)]
    return "\n".join([
        f"/* The actions of the ReducerKit feature {_comment(feature)} as C functions:",
        " * generated by `python -m reducerkit stubs --lang c` from the library's JSON Schemas. Do",
        " * not edit; generate again. Each function builds the action's JSON (strings escaped) and",
        " * returns rk_store_send's status. Needs C99. */",
        f"#ifndef {guard}",
        f"#define {guard}",
        "",
        "#include <stdbool.h>",
        "#include <stdint.h>",
        "#include <stdio.h>",
        "#include <stdlib.h>",
        "#include <string.h>",
        "",
        '#include "reducerkit.h"',
        _HELPERS,
        "/** The feature's name, for rk_store_create. */",
        f"#define {feature_macro} {_c_string(feature)}",
        "",
        "/** The feature's schema hash these functions were generated from (NULL: the library",
        " *  had none): the create function below checks it. */",
        f"#define {hash_macro} " + (_c_string(schema_hash) if schema_hash is not None
                                   else "((const char *)0)"),
        "",
        f"/** Creates a store of the feature: rk_store_create({feature_macro}, options_json, out),",
        f" *  after checking that the library's feature has the schema {hash_macro}. If it has",
        " *  another, nothing is created, *out is NULL and the result is RK_ERR_MISUSE, with",
        ' *  "... generated from schema X, library has Y: regenerate with python -m reducerkit stubs',
        ' *  ..." in message. Any other error is rk_store_create\'s, its rk_last_error() copied into',
        " *  message. message (message_size bytes, cut to fit) may be NULL. Destroy the store",
        " *  with rk_store_destroy(). */",
        f"static inline rk_status {create}(",
        "        const char *options_json, rk_store **out, char *message, size_t message_size) {",
        f"    return rk_stubs_create({feature_macro}, {_c_string(_c_json(feature))}, {hash_macro},",
        f"        {_c_string(command)},",
        "        options_json, out, message, message_size);",
        "}",
        "",
        *(_c_enum_text(e) for e in w.enums),
        *senders,
        f"#endif /* {guard} */",
        "",
    ])
