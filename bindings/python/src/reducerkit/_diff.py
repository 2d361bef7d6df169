"""Readable differences between JSON values, for TestStore failures and ``run --diff``."""

from __future__ import annotations

import difflib
from typing import Any

from ._json import compact, pretty
from ._patch import MISSING, make_patch, parse_pointer, resolve

__all__ = ["json_diff", "changed_paths", "describe_changes", "json_equal"]


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values, where ``true`` is not ``1`` (unlike Python's ``==``)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict):
        return (isinstance(b, dict) and a.keys() == b.keys()
                and all(json_equal(v, b[k]) for k, v in a.items()))
    if isinstance(a, list):
        return (isinstance(b, list) and len(a) == len(b)
                and all(json_equal(x, y) for x, y in zip(a, b, strict=True)))
    if isinstance(b, (dict, list)):
        return False
    return bool(a == b)


def json_diff(before: Any, after: Any, *, before_label: str = "expected",
              after_label: str = "actual", context: int = 3) -> str:
    """A unified diff of the two values as sorted, indented JSON."""
    a = pretty(before).splitlines()
    b = pretty(after).splitlines()
    return "\n".join(difflib.unified_diff(a, b, before_label, after_label, lineterm="",
                                          n=context))


def _path_key(path: str, key: str) -> str:
    if key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{compact(key)}]"


def _json_path(pointer: str) -> str:
    """A JSON Pointer (``/todos/0/title``) in the ``$.todos[0].title`` form of messages."""
    path = "$"
    for segment in parse_pointer(pointer):
        path = f"{path}[{segment}]" if segment.isdigit() else _path_key(path, segment)
    return path


def changed_paths(before: Any, after: Any, path: str = "$",
                  limit: int = 20) -> list[tuple[str, Any, Any]]:
    """The JSON paths where the two values differ, as ``(path, before, after)``, deepest
    first-differing points only (at most ``limit``), read off the JSON Patch from ``before``
    to ``after`` (:func:`reducerkit._patch.make_patch`, the machinery that keeps
    ``Store.state``). A missing key or element is reported with the marker ``...missing...``."""
    out: list[tuple[str, Any, Any]] = []
    for op in make_patch(before, after)[:limit]:
        segments = parse_pointer(op["path"])
        old = resolve(before, segments)
        new = op["value"] if op["op"] != "remove" else _MISSING
        shown = _json_path(op["path"])
        if path != "$":
            shown = path + shown[1:]
        out.append((shown, _MISSING if old is MISSING else old, new))
    return out


class _Missing:
    def __repr__(self) -> str:
        return "...missing..."


_MISSING = _Missing()


def _show(value: Any) -> str:
    if value is _MISSING:
        return "(missing)"
    text = compact(value)
    return text if len(text) <= 80 else text[:77] + "..."


def describe_changes(before: Any, after: Any, *, before_label: str = "expected",
                     after_label: str = "actual") -> str:
    """Path-by-path summary plus a unified diff, for failure messages."""
    lines = [f"  {p}: {before_label} {_show(a)}, {after_label} {_show(b)}"
             for p, a, b in changed_paths(before, after)]
    diff = json_diff(before, after, before_label=before_label, after_label=after_label)
    return "\n".join(lines + ([diff] if diff else []))
