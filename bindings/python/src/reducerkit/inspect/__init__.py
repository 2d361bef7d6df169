"""The time-travel inspector: a self-contained HTML page of what a store did.

```python
from reducerkit.inspect import write_report
write_report("Tests/scenarios/todos.scenario.json", "todos.html")   # python -m reducerkit inspect
url = store.inspect(port=0)        # a live store: reducerkit.inspect.serve(store, port=0)
```

A report replays a scenario (or a recording) through the scenario runner that ``check`` uses
and embeds the initial state and one RFC 6902 patch per step; the page (``page.html``,
``page.js`` and ``page.css`` of this package, inlined) rebuilds each state. The page's
JavaScript API, ``window.reducerkit`` (``steps``, ``goTo``, ``current``, ``state``, ``patch``,
``exportRange``), is stable: tests drive the page through it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .page import render_html
from .report import KINDS, REPORT_FORMAT, build_report

if TYPE_CHECKING:
    from ..store import Store

__all__ = ["build_report", "render_html", "write_report", "serve", "KINDS", "REPORT_FORMAT"]


def write_report(scenario: Mapping[str, Any] | str | os.PathLike[str],
                 out: str | os.PathLike[str], *, library: Any = None,
                 timeout: float = 1.0) -> dict[str, Any]:
    """Replays ``scenario`` (a ``*.scenario.json`` path or a dict) and writes its report, one
    self-contained HTML file, to ``out``. Returns the report's data (its ``divergence`` says
    whether and where the replay differs from the file).

    Raises:
        reducerkit.testing.ScenarioError: the file cannot be read or is not a scenario.
        OSError: ``out`` cannot be written.
    """
    from .._lifecycle import resolve_library
    data = build_report(scenario, resolve_library(library), timeout=timeout)
    html = render_html(data)
    with open(out, "w", encoding="utf-8") as f:
        f.write(html)
    return data


def serve(store: Store[Any, Any], port: int = 0) -> str:
    """Serves the inspector page of a live ``store`` on 127.0.0.1 (loopback only) and returns
    its URL; each new step is streamed to the open pages (Server-Sent Events) while the program
    runs. It stops with the store, and costs the store nothing while no page is connected.
    The same as ``store.inspect(port)``; see :mod:`reducerkit.inspect.live`."""
    from .live import serve as _serve
    return _serve(store, port)
