"""``python -m reducerkit features``: the features, their actions, state and host endpoints
(``--json``: ``rk_features()`` as it is)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from .. import _json
from .._lifecycle import features
from .._native import Library
from ._common import OK, add_lib_option, register as _register

__all__ = ["register", "execute", "summarize_schema"]


def register(sub: Any) -> None:
    command = _register(sub, "features", execute,
                        help="list the features, their actions and state")
    command.add_argument("--json", action="store_true", help="print rk_features() as JSON")
    add_lib_option(command)


def execute(args: argparse.Namespace, lib: Library, out: TextIO, err: TextIO) -> int:
    items = features(lib)
    if args.json:
        out.write(_json.pretty(items) + "\n")
        return OK
    for item in items:
        name = item.get("name", "?")
        description = item.get("description") or ""
        out.write(f"{name}" + (f" - {description}" if description else "") + "\n")
        cases = summarize_schema(item.get("action_schema"))
        if cases:
            out.write(f"  actions: {', '.join(cases)}\n")
        if "state_schema" in item:
            out.write(f"  state:   {_state_summary(item['state_schema'])}\n")
        if "initial_state" in item:
            out.write(f"  initial: {_json.compact(item['initial_state'])}\n")
        endpoints = [_endpoint_summary(e) for e in item.get("requests") or []
                     if isinstance(e, dict)]
        if endpoints:
            out.write(f"  endpoints: {', '.join(endpoints)}\n")
    return OK


def _endpoint_summary(endpoint: dict[str, Any]) -> str:
    """``numberFact(integer) -> string``: an endpoint with its payload and response types."""
    return (f"{endpoint.get('name', '?')}({_type_name(endpoint.get('payload_schema'))}) -> "
            f"{_type_name(endpoint.get('response_schema'))}")


# ---- schema summaries --------------------------------------------------------------------

def _type_name(schema: Any) -> str:
    """A short type for a JSON Schema: ``integer``, ``string?``, ``[string]``,
    ``(title: string)``, ``all|active|completed``."""
    if not isinstance(schema, dict):
        return "any"
    if "const" in schema:
        return _json.compact(schema["const"])
    if "enum" in schema:
        return "|".join(str(v) for v in schema["enum"])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            options = schema[key]
            non_null = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
            if len(non_null) == 1 and len(options) == 2:
                return _type_name(non_null[0]) + "?"
            return "|".join(_type_name(o) for o in options)
    kind = schema.get("type")
    if isinstance(kind, list):
        names = [k for k in kind if k != "null"]
        base = "|".join(_type_name({**schema, "type": k}) for k in names)
        return base + "?" if "null" in kind else base
    if kind == "array":
        items = schema.get("items")
        if isinstance(items, list):  # a tuple (prefixItems style)
            return "(" + ", ".join(_type_name(i) for i in items) + ")"
        if "prefixItems" in schema:
            return "(" + ", ".join(_type_name(i) for i in schema["prefixItems"]) + ")"
        return f"[{_type_name(items)}]"
    if kind == "object" and isinstance(schema.get("properties"), dict):
        props = schema["properties"]
        return "(" + ", ".join(f"{k}: {_type_name(v)}" for k, v in props.items()) + ")"
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    return str(kind) if kind else "any"


def summarize_schema(action_schema: Any) -> list[str]:
    """The cases of an action schema: ``["increment", "setCount(integer)", ...]``."""
    if not isinstance(action_schema, dict):
        return []
    cases: list[str] = []
    options = action_schema.get("oneOf") or action_schema.get("anyOf")
    if options is None:
        options = [action_schema]
    for option in options:
        if not isinstance(option, dict):
            continue
        if "const" in option and isinstance(option["const"], str):
            cases.append(option["const"])
        elif "enum" in option:
            cases.extend(str(v) for v in option["enum"])
        elif option.get("type") == "object" and isinstance(option.get("properties"), dict):
            props = option["properties"]
            if len(props) == 1:
                (name, payload), = props.items()
                inner = _type_name(payload)
                if inner.startswith("(") and inner.endswith(")"):
                    cases.append(f"{name}{inner}")
                else:
                    cases.append(f"{name}({inner})")
            else:
                cases.append(_type_name(option))
        elif "oneOf" in option or "anyOf" in option:
            nested = option.get("oneOf") or option.get("anyOf") or []
            names = [o["const"] for o in nested
                     if isinstance(o, dict) and isinstance(o.get("const"), str)]
            # A case without payload: "increment", and its alternate spellings
            # {"increment": {}} / {"increment": null}, which name the same case.
            cases.extend(names if names else summarize_schema(option))
        else:
            cases.append(_type_name(option))
    return cases


def _state_summary(state_schema: Any) -> str:
    if isinstance(state_schema, dict) and isinstance(state_schema.get("properties"), dict):
        return ", ".join(f"{k}: {_type_name(v)}" for k, v in state_schema["properties"].items())
    return _type_name(state_schema)
