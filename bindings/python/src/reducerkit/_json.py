"""JSON encoding for the wire: orjson when it is installed (measured faster, see
``benchmarks/python/bench.py``), the standard library's ``json`` otherwise.

``REDUCERKIT_JSON=json`` (read once, when the backend is first used) forces the standard
library, e.g. to compare.
"""

from __future__ import annotations

import json as _stdjson
import os
import reprlib
from collections.abc import Callable
from typing import Any

__all__ = ["dumps", "loads", "pretty", "shown", "BACKEND", "EncodeError", "backend", "use"]


_encoder = _stdjson.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_encode = _encoder.encode  # made once: json.dumps with options builds an encoder per call


_repr = reprlib.Repr()
_repr.maxlevel = 4
_repr.maxstring = _repr.maxother = 60


def nonfinite_at(value: Any, limit: int = 100_000) -> str | None:
    """Where ``value`` holds a NaN or an infinity (``$.a[2]``; at most ``limit`` values
    looked at), or ``None``. orjson writes them as ``null``, so the library reports "found
    null" for a value the caller never wrote as null: called only after the library refused
    what was sent, to say what was really wrong."""
    todo: list[tuple[Any, str]] = [(value, "$")]
    while todo and limit > 0:
        limit -= 1
        item, path = todo.pop()
        kind = type(item)
        if kind is float or isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                return path
        elif isinstance(item, dict):
            todo.extend((v, f"{path}.{k}" if isinstance(k, str) and k.isidentifier()
                         else f"{path}[{_repr.repr(k)}]") for k, v in reversed(item.items()))
        elif isinstance(item, (list, tuple)):
            todo.extend((v, f"{path}[{i}]") for i, v in reversed(list(enumerate(item))))
    return None


def refuse_nonfinite(value: Any) -> None:
    """After the library refused ``value`` as encoded here: with orjson, a NaN or an
    infinity in it (written as ``null``) is the error to report (``JSONError``), not the
    ``null`` the library saw. Returns when there is none, or with the standard library's
    encoder (which refuses them itself)."""
    if BACKEND != "orjson":
        return
    path = nonfinite_at(value)
    if path is not None:
        from .errors import JSONError, Status  # the error path only
        raise JSONError(f"{path}: NaN and infinities cannot be written as JSON", Status.JSON)


def shown(value: Any) -> str:
    """``repr(value)`` for a message: at most 4 levels and 80 characters, whatever the value's
    size or depth (a value too deep to encode was too deep for ``repr`` too, and a 50 MB one
    made a 50 MB message)."""
    text = _repr.repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _std_dumps(value: Any) -> bytes:
    return _encode(value).encode("utf-8")


_scan_once = _stdjson.JSONDecoder().scan_once  # type: ignore[attr-defined]  # the C scanner (clears its memo per call)


def _std_loads(data: bytes | str) -> Any:
    """``json.loads``, minus its per-call overhead (encoding detection, the whitespace regex)
    for the compact UTF-8 JSON the library writes: 3.6 -> 1.3 us for a request event. Anything
    else (whitespace around, another encoding, an error) goes through ``json.loads``, so
    results and errors are the same."""
    try:
        text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
        value, end = _scan_once(text, 0)
        if end == len(text):
            return value
    except (StopIteration, ValueError):  # JSONDecodeError and UnicodeDecodeError included
        pass
    return _stdjson.loads(data)


# The backend is chosen on first use, not at import: importing orjson (it imports uuid,
# zoneinfo, datetime, platform) costs more than the rest of `import reducerkit`; a program pays
# for it when it first encodes or decodes (creating a store does). Until then `dumps` and
# `loads` are the two functions below, which choose and then call the chosen one; choosing
# rebinds them (module globals, read as `_json.dumps` at each call: no wrapper stays).
# (Not a module __getattr__: CPython does not specialize attribute reads of a module that
# has one, which costs every `_json.dumps` ~200 instructions.)


def _choosing_dumps(value: Any) -> bytes:
    backend()
    return dumps(value)


def _choosing_loads(data: bytes | str) -> Any:
    backend()
    return loads(data)


dumps: Callable[[Any], bytes] = _choosing_dumps
loads: Callable[[bytes | str], Any] = _choosing_loads
BACKEND = ""
"""``"json"`` or ``"orjson"`` once chosen (empty before: read :func:`backend`)."""
EncodeError: tuple[type[BaseException], ...] = (TypeError, ValueError, RecursionError)
"""What encoding raises for a value JSON cannot hold (orjson's JSONEncodeError is a
TypeError)."""


def backend() -> str:
    """The backend, chosen now if it was not yet: orjson when installed, unless
    ``REDUCERKIT_JSON=json``."""
    if not BACKEND:
        chosen = "json"
        if os.environ.get("REDUCERKIT_JSON", "").lower() not in ("json", "stdlib"):
            try:
                import orjson  # noqa: F401
                chosen = "orjson"
            except ImportError:  # pragma: no cover - depends on the environment
                pass
        use(chosen)
    return BACKEND


def pretty(value: Any) -> str:
    """Stable, human-readable JSON (sorted keys, 2-space indent) for diffs and messages."""
    return _stdjson.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def compact(value: Any) -> str:
    """One-line JSON text, as the wire format writes it."""
    return _stdjson.dumps(value, ensure_ascii=False, separators=(",", ":"))


def use(backend: str) -> None:
    """Switches the backend at run time: ``"json"`` or ``"orjson"`` (for benchmarks and
    tests; affects every store of the process)."""
    global dumps, loads, BACKEND, EncodeError
    if backend == "json":
        dumps, loads, BACKEND = _std_dumps, _std_loads, "json"
        EncodeError = (TypeError, ValueError, RecursionError)
    elif backend == "orjson":
        import orjson

        # Called directly: a wrapper would be one more Python call.
        dumps, loads, BACKEND = orjson.dumps, orjson.loads, "orjson"
        EncodeError = (TypeError, ValueError, RecursionError, orjson.JSONEncodeError)
    else:
        raise ValueError(f"unknown JSON backend {backend!r}; expected 'json' or 'orjson'")
