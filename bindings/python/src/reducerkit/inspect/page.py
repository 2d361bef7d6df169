"""The report's HTML: ``page.html`` with ``page.css``, ``page.js`` and the data inlined."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["render_html", "embed_json"]

_MARKERS = re.compile(r"@@(CSS|JS|DATA)@@")
_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
           "\u2029": "\\u2029"}


@cache
def _asset(name: str) -> str:
    text: str = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return text


def embed_json(value: Any) -> str:
    """``value`` as JSON text that is safe inside a ``<script type="application/json">``
    element: ``<``, ``>`` and ``&`` (so no ``</script>`` or ``<!--``) and U+2028/U+2029 are
    written as ``\\uXXXX`` escapes, which every JSON parser reads back as the same text."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return re.sub("[<>&\u2028\u2029]", lambda m: _UNSAFE[m.group(0)], text)


def render_html(data: Any) -> str:
    """The self-contained page of a report's data (:func:`reducerkit.inspect.build_report`):
    no network, no build step; opens from ``file://``."""
    parts = {"CSS": _asset("page.css"), "JS": _asset("page.js"), "DATA": embed_json(data)}
    return _MARKERS.sub(lambda m: parts[m.group(1)], _asset("page.html"))
