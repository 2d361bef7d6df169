"""Exhaustive testing of Swift features from Python, like TCA's ``TestStore``.

```python
from reducerkit.testing import TestStore

def test_search_debounces():
    ts = TestStore("search", clock="test")
    ts.send({"queryChanged": "sw"}, query="sw")
    ts.advance(seconds=0.3)
    ts.receive({"searchResponse": ["swift", "swim"]}, results=["swift", "swim"])
    ts.finish()
```

Every state change must be asserted, every action an effect sends must be received, and
:meth:`TestStore.finish` fails while effects are still running. Failures are
``AssertionError`` with a path-by-path summary and a unified diff of the state's JSON.

Expected changes are given as keyword arguments (top-level keys), a dict (top-level keys
replaced), or a function that mutates a copy of the previous state (or returns the new
state):

```python
ts.send("increment", count=1)
ts.send("increment", {"count": 2})
ts.send("increment", lambda s: s.update(count=s["count"] + 1))
```

Host endpoints (effects the host fulfils) are asserted exhaustively too: a store created with
``provide=[...]`` makes each call a request that must be received with
:meth:`TestStore.receive_request` and answered, and each cancellation must be received with
:meth:`TestStore.receive_cancellation`:

```python
ts = TestStore("counter", provide=["numberFact"])
ts.send("factButtonTapped")
req = ts.receive_request("numberFact", 0)
req.resolve("0 is a fact")
ts.receive({"factResponse": "0 is a fact"}, fact="0 is a fact")
ts.finish()
```

The scenario files shared by the Swift, C and Python runners (``*.scenario.json``, format:
``Tests/scenarios/README.md``) run with :func:`run_scenario`; installed, the package's pytest
plugin collects them as tests. :func:`check` runs random action sequences of a feature
against an invariant (``reducerkit.testing.strategies``: Hypothesis strategies).
:func:`check_snapshots` restores every saved snapshot of a directory with the current library
(a CI gate for state that outlives the process).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .scenarios import (
    ScenarioError,
    ScenarioFailure,
    load_scenario,
    run_scenario,
    scenario_files,
    validate_scenario,
)
from .snapshots import SnapshotFailure, check_snapshots, snapshot_files
from .store import Changes, TestStore

__all__ = ["TestStore", "Changes", "run_scenario", "load_scenario", "scenario_files",
           "validate_scenario", "ScenarioError", "ScenarioFailure", "check",
           "InvariantFailure", "strategies", "check_snapshots", "snapshot_files",
           "SnapshotFailure"]

if TYPE_CHECKING:  # for type checkers and pdoc (which runs this block); at run time, they
    # are imported on first use (__getattr__ below): they need the optional Hypothesis.
    from . import strategies
    from .fuzz import InvariantFailure, check


def __getattr__(name: str) -> Any:
    # check() and the strategies need the optional Hypothesis; importing reducerkit.testing
    # must not.
    value: Any
    if name in ("check", "InvariantFailure"):
        from . import fuzz
        value = getattr(fuzz, name)
    elif name == "strategies":
        import importlib

        value = importlib.import_module(f"{__name__}.strategies")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # once: the module has it from now on (pdoc reads it there)
    return value
