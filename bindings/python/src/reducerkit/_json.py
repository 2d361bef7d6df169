"""JSON encoding for the wire: orjson when it is installed (measured faster, see
``benchmarks/python/bench.py``), the standard library's ``json`` otherwise.

``REDUCERKIT_JSON=json`` (read once at import) forces the standard library, e.g. to compare.
"""

from __future__ import annotations

import json as _stdjson
import os
from collections.abc import Callable
from typing import Any

__all__ = ["dumps", "loads", "pretty", "BACKEND", "EncodeError"]


_encoder = _stdjson.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_encode = _encoder.encode  # made once: json.dumps with options builds an encoder per call


def _std_dumps(value: Any) -> bytes:
    return _encode(value).encode("utf-8")


def _std_loads(data: bytes | str) -> Any:
    return _stdjson.loads(data)


dumps: Callable[[Any], bytes] = _std_dumps
loads: Callable[[bytes | str], Any] = _std_loads
BACKEND = "json"
EncodeError: tuple[type[BaseException], ...] = (TypeError, ValueError, RecursionError)

if os.environ.get("REDUCERKIT_JSON", "").lower() not in ("json", "stdlib"):
    try:
        import orjson as _orjson
    except ImportError:  # pragma: no cover - depends on the environment
        pass
    else:
        def _or_dumps(value: Any) -> bytes:
            return _orjson.dumps(value)

        dumps = _or_dumps
        loads = _orjson.loads
        BACKEND = "orjson"
        EncodeError = (TypeError, ValueError, RecursionError, _orjson.JSONEncodeError)


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

        dumps, loads, BACKEND = orjson.dumps, orjson.loads, "orjson"
        EncodeError = (TypeError, ValueError, RecursionError, orjson.JSONEncodeError)
    else:
        raise ValueError(f"unknown JSON backend {backend!r}; expected 'json' or 'orjson'")
