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

Actions are typed in their first wire form (``"increment"``, not ``{"increment": {}}``).
"""

from __future__ import annotations

import keyword
import re
from typing import Any

__all__ = ["python_stubs", "c_header"]


def _camel(name: str) -> str:
    parts = re.split(r"[^0-9A-Za-z]+", name)
    text = "".join(p[:1].upper() + p[1:] for p in parts if p)
    return text if text and not text[0].isdigit() else "T" + text


def _snake(name: str) -> str:
    text = re.sub(r"[^0-9A-Za-z]+", "_", name)
    text = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", text).lower().strip("_")
    return text if text and not text[0].isdigit() else "a_" + text


def _action_cases(schema: Any) -> list[tuple[str, Any, bool]]:
    """The cases of an action schema: (name, payload schema, is a unit case)."""
    options = schema.get("oneOf") or schema.get("anyOf") or [schema]
    cases: list[tuple[str, Any, bool]] = []
    for option in options:
        if not isinstance(option, dict):
            continue
        inner = option.get("anyOf") or option.get("oneOf")
        if inner:
            names = [o["const"] for o in inner if isinstance(o, dict)
                     and isinstance(o.get("const"), str)]
            if names:
                cases.append((names[0], None, True))
                continue
            cases.extend(_action_cases(option))
            continue
        if isinstance(option.get("const"), str):
            cases.append((option["const"], None, True))
        elif "enum" in option:
            cases.extend((str(v), None, True) for v in option["enum"])
        elif option.get("type") == "object" and len(option.get("properties") or {}) == 1:
            (name, payload), = option["properties"].items()
            cases.append((name, payload, False))
    return cases


# ---- Python ------------------------------------------------------------------------------

class _PythonWriter:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.definitions: list[str] = []
        self.names: set[str] = set()

    def _unique(self, name: str) -> str:
        candidate, n = name, 2
        while candidate in self.names:
            candidate, n = f"{name}{n}", n + 1
        self.names.add(candidate)
        return candidate

    def typed_dict(self, name: str, schema: dict[str, Any]) -> str:
        name = self._unique(name)
        properties = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        fields = []
        for key, sub in properties.items():
            kind = self.type_of(sub, name + _camel(key))
            if key not in required:
                kind = f"NotRequired[{kind}]"
            fields.append(f"    {key!r}: {kind},")
        body = "\n".join(fields)
        self.definitions.append(f"{name} = TypedDict({name!r}, {{\n{body}\n}})\n"
                                if fields else f"{name} = TypedDict({name!r}, {{}})\n")
        return name

    def type_of(self, schema: Any, name: str) -> str:
        if not isinstance(schema, dict) or not schema:
            return "Any"
        if "const" in schema:
            return f"Literal[{schema['const']!r}]"
        if "enum" in schema:
            return "Literal[" + ", ".join(repr(v) for v in schema["enum"]) + "]"
        for key in ("oneOf", "anyOf"):
            if key in schema:
                return " | ".join(dict.fromkeys(self.type_of(s, name) for s in schema[key]))
        kind = schema.get("type")
        if isinstance(kind, list):
            return " | ".join(self.type_of({**schema, "type": k}, name) for k in kind)
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
            if "prefixItems" in schema:
                return "tuple[" + ", ".join(self.type_of(s, f"{name}{i}")
                                            for i, s in enumerate(schema["prefixItems"])) + "]"
            return f"list[{self.type_of(schema.get('items'), name + 'Item')}]"
        if kind == "object":
            if schema.get("maxProperties") == 0:
                return "dict[str, Never] | None"
            if schema.get("properties"):
                return self.typed_dict(name, schema)
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict):
                return f"dict[str, {self.type_of(extra, name + 'Value')}]"
            return "dict[str, Any]"
        return "Any"


def python_stubs(description: dict[str, Any]) -> str:
    """A Python module typing the feature ``description`` (an entry of ``rk_features()``)."""
    feature = description["name"]
    prefix = _camel(feature)
    w = _PythonWriter(prefix)
    state = w.typed_dict(f"{prefix}State", description.get("state_schema") or {})
    unit: list[str] = []
    cases: list[str] = []
    for name, payload, is_unit in _action_cases(description.get("action_schema") or {}):
        if is_unit:
            unit.append(repr(name))
            continue
        case = w._unique(f"{prefix}{_camel(name)}")
        kind = w.type_of(payload, case + "Payload")
        w.definitions.append(f"{case} = TypedDict({case!r}, {{{name!r}: {kind}}})\n")
        cases.append(case)
    members = ([f"Literal[{', '.join(unit)}]"] if unit else []) + cases
    action = f"{prefix}Action"
    lines = [
        f'"""Types of the ReducerKit feature {feature!r}: generated by `python -m reducerkit stubs',
        f'{feature}` from the library\'s JSON Schemas. Do not edit; generate again."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any, Literal, Never, NotRequired, TypeAlias, TypedDict",
        "",
        "from reducerkit import Store",
        "from reducerkit.testing import TestStore",
        "",
        f"FEATURE = {feature!r}",
        "",
        *w.definitions,
        f"{action}: TypeAlias = " + (" | ".join(members) if members else "Never"),
        f'"""An action of {feature!r}: what `{prefix}Store.send` accepts."""',
        "",
        f"{prefix}Store: TypeAlias = Store[{state}, {action}]",
        f'"""A `reducerkit.Store` of {feature!r}: `{prefix}Store({feature!r}, clock="test")`."""',
        "",
        f"{prefix}TestStore: TypeAlias = TestStore[{state}, {action}]",
        f'"""A `reducerkit.testing.TestStore` of {feature!r}."""',
        "",
        "__all__ = [\"FEATURE\", " + ", ".join(
            repr(n) for n in [*sorted(w.names), action, f"{prefix}Store", f"{prefix}TestStore"])
        + "]",
        "",
    ]
    text = "\n".join(lines)
    used = "".join(w.definitions) + " ".join(members)
    names = [n for n in ("Any", "Literal", "Never", "NotRequired") if n in used or
             (n == "Never" and not members)] + ["TypeAlias", "TypedDict"]
    return text.replace("from typing import Any, Literal, Never, NotRequired, TypeAlias, TypedDict",
                        f"from typing import {', '.join(names)}")


# ---- C -----------------------------------------------------------------------------------

_C_KEYWORDS = {"auto", "break", "case", "char", "const", "continue", "default", "do", "double",
               "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
               "register", "restrict", "return", "short", "signed", "sizeof", "static",
               "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
               "bool", "true", "false", "store"}

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

/* Sends the built action; RK_ERR_INTERNAL if building it ran out of memory. */
static inline rk_status rk_stubs_send(rk_store *store, rk_stubs_buf *b) {
    rk_status status = b->failed ? RK_ERR_INTERNAL : rk_store_send_n(store, b->data, b->len);
    free(b->data);
    return status;
}
#endif
"""


def _c_name(name: str) -> str:
    text = _snake(name)
    return text + "_" if text in _C_KEYWORDS else text


class _CParam:
    def __init__(self, c_type: str, name: str, write: str, doc: str) -> None:
        self.c_type = c_type
        self.name = name
        self.write = write  # C statements writing the value
        self.doc = doc


class _CWriter:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.enums: list[str] = []
        self.enum_names: set[str] = set()

    def enum(self, name: str, values: list[str]) -> str:
        type_name = f"{self.prefix}_{_snake(name)}"
        if type_name not in self.enum_names:
            self.enum_names.add(type_name)
            upper = type_name.upper()
            members = ",\n".join(f"    {upper}_{_snake(v).upper()}" for v in values)
            strings = ", ".join(_c_string(v) for v in values)
            self.enums.append(
                f"typedef enum {type_name} {{\n{members}\n}} {type_name};\n\n"
                f"static inline const char *{type_name}_json(int v) {{\n"
                f"    static const char *const names[] = {{{strings}}};\n"
                f"    return (v >= 0 && v < {len(values)}) ? names[v] : NULL;\n}}\n")
        return type_name

    def param(self, schema: Any, name: str, hint: str) -> _CParam:
        """A C parameter for a value of ``schema`` and the code writing it as JSON."""
        var = _c_name(name)
        s = schema if isinstance(schema, dict) else {}
        kind = s.get("type")
        nullable = isinstance(kind, list) and "null" in kind
        if isinstance(kind, list):
            rest = [k for k in kind if k != "null"]
            kind = rest[0] if len(rest) == 1 else None
        if "enum" in s and all(isinstance(v, str) for v in s["enum"]):
            t = self.enum(hint, s["enum"])
            return _CParam(t, var, f"rk_stubs_string(&b, {t}_json((int){var}));",
                           "one of " + ", ".join(s["enum"]))
        if kind == "integer":
            return _CParam("int64_t", var, f"rk_stubs_int(&b, {var});", "an integer")
        if kind == "number":
            return _CParam("double", var, f"rk_stubs_double(&b, {var});", "a number")
        if kind == "boolean":
            return _CParam("bool", var, f"rk_stubs_bool(&b, {var});", "true or false")
        if kind == "string":
            return _CParam("const char *", var, f"rk_stubs_string(&b, {var});",
                           "a UTF-8 string" + (" or NULL for null" if nullable else ""))
        return _CParam("const char *", var + "_json", f"rk_stubs_raw(&b, {var}_json);",
                       "JSON text of the value")

    def sender(self, feature: str, name: str, payload: Any, is_unit: bool) -> str:
        fn = f"{self.prefix}_send_{_snake(name)}"
        json_name = _c_string(name)
        if is_unit:
            text = _c_string(f'"{name}"')
            return (f"/** Sends {_comment(name)}. */\n"
                    f"static inline rk_status {fn}(rk_store *store) {{\n"
                    f"    return rk_store_send(store, {text});\n}}\n")
        params: list[_CParam]
        body: list[str] = [f'    rk_stubs_raw(&b, "{{");', f"    rk_stubs_string(&b, {json_name});",
                           '    rk_stubs_raw(&b, ":");']
        p = payload if isinstance(payload, dict) else {}
        if p.get("type") == "object" and p.get("properties"):
            params = []
            body.append('    rk_stubs_raw(&b, "{");')
            for i, (key, sub) in enumerate(p["properties"].items()):
                param = self.param(sub, key, f"{name}_{key}")
                params.append(param)
                if i:
                    body.append('    rk_stubs_raw(&b, ",");')
                body.append(f"    rk_stubs_string(&b, {_c_string(key)}); rk_stubs_raw(&b, \":\");")
                body.append(f"    {param.write}")
            body.append('    rk_stubs_raw(&b, "}");')
        elif p.get("type") == "array" and "prefixItems" in p:
            params = []
            body.append('    rk_stubs_raw(&b, "[");')
            for i, sub in enumerate(p["prefixItems"]):
                param = self.param(sub, f"value{i}", f"{name}_{i}")
                params.append(param)
                if i:
                    body.append('    rk_stubs_raw(&b, ",");')
                body.append(f"    {param.write}")
            body.append('    rk_stubs_raw(&b, "]");')
        else:
            param = self.param(p, "value", name)
            params = [param]
            body.append(f"    {param.write}")
        body.append('    rk_stubs_raw(&b, "}");')
        signature = ", ".join(["rk_store *store"] + [
            f"{q.c_type}{'' if q.c_type.endswith('*') else ' '}{q.name}" for q in params])
        docs = "\n".join(f" *   {q.name}: {q.doc}" for q in params)
        return (f"/** Sends {_comment(name)} with its payload:\n{docs}\n */\n"
                f"static inline rk_status {fn}({signature}) {{\n"
                f"    rk_stubs_buf b = {{NULL, 0, 0, 0}};\n" + "\n".join(body) +
                "\n    return rk_stubs_send(store, &b);\n}\n")


def _c_string(text: str) -> str:
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\{code:03o}")
        elif code > 0x7F:
            out.extend(f"\\{byte:03o}" for byte in ch.encode("utf-8"))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _comment(text: str) -> str:
    return text.replace("*/", "* /")


def c_header(description: dict[str, Any]) -> str:
    """A C header with one ``static inline`` sender per action of the feature
    ``description`` (an entry of ``rk_features()``)."""
    feature = description["name"]
    prefix = _snake(feature)
    guard = f"RK_STUBS_{prefix.upper()}_H"
    w = _CWriter(prefix)
    senders = [w.sender(feature, name, payload, is_unit)
               for name, payload, is_unit in _action_cases(description.get("action_schema") or {})]
    return "\n".join([
        f"/* The actions of the ReducerKit feature \"{_comment(feature)}\" as C functions: generated by",
        f" * `python -m reducerkit stubs --lang c {_comment(feature)}` from the library's JSON Schemas. Do",
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
        f"/** The feature's name, for rk_store_create. */",
        f"#define {prefix.upper()}_FEATURE {_c_string(feature)}",
        "",
        *w.enums,
        *senders,
        f"#endif /* {guard} */",
        "",
    ])
