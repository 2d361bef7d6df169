"""The report's data: a scenario replayed by the scenario runner (the one ``check`` uses),
recorded step by step as the initial state and one RFC 6902 patch per step.

The data (``REPORT_FORMAT`` 1) is a JSON object::

    {"format": 1, "name": ..., "feature": ..., "source": "path or null",
     "options": {...}, "exhaustive": true, "initial": {state}, "version": 0,
     "steps": [{"index": 0, "kind": "send", "name": "increment", "action": "increment",
                "version": 1, "clock_ms": 0, "patch": [...], "step": {the file's step},
                "settled": true, "diverged": false}, ...],
     "divergence": null | {"index": 3, "message": "...", "expected": ..., "actual": ...},
     "not_run": 0, "error": null | "why the replay could not start"}

The page (``page.js``) rebuilds each step's state from ``initial`` and the patches.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from .._native import Library
from .._patch import make_patch
from ..errors import ReducerKitError
from ..testing.scenarios import (ScenarioError, ScenarioFailure, StepObserver, _normal_form,
                                 _run)
from ..testing.store import TestStore

__all__ = ["REPORT_FORMAT", "KINDS", "Recorder", "build_report", "step_name"]

REPORT_FORMAT = 1
"""The version of the report's data layout."""

KINDS = ("send", "receive", "request", "resolve", "fail", "cancelled", "advance", "error",
         "finish")
"""A step's ``kind`` in the report (``window.reducerkit.steps()``): the file's step kind,
``advance`` for ``advance_ms``, ``error`` for a step that expects an error."""


def step_name(action: Any) -> str | None:
    """The name of an action: ``"increment"`` for ``"increment"`` and for
    ``{"increment": ...}`` (an object of one key)."""
    if isinstance(action, str):
        return action
    if isinstance(action, dict) and len(action) == 1:
        return str(next(iter(action)))
    return None


def _plain(value: Any) -> Any:
    """A JSON value as plain dicts and lists (snapshots are read-only subclasses)."""
    return json.loads(json.dumps(value))


class Recorder(StepObserver):
    """Builds the report's steps while the runner replays the scenario."""

    def __init__(self) -> None:
        self.initial: Any = None
        self.version = 0
        self.steps: list[dict[str, Any]] = []
        self.divergence: dict[str, Any] | None = None
        self._state: Any = None
        self._clock = 0
        self._names: dict[int, str] = {}  # request id -> endpoint name

    def start(self, test_store: TestStore[Any, Any]) -> None:
        self._state = _plain(test_store._state)
        self.initial = self._state
        self.version = test_store._version

    def _add(self, kind: str, state: Any, version: int, step: Mapping[str, Any],
             test_store: TestStore[Any, Any], **extra: Any) -> dict[str, Any]:
        try:
            settled = test_store.store.effect_count == 0
        except ReducerKitError:  # pragma: no cover - the store is open during the replay
            settled = False
        entry: dict[str, Any] = {"index": len(self.steps), "kind": kind, "version": version,
                                 "clock_ms": self._clock,
                                 "patch": make_patch(self._state, state),
                                 "step": dict(step), "settled": settled, "diverged": False}
        entry.update(extra)
        self._state = state
        self.steps.append(entry)
        return entry

    def step(self, index: int, step: Mapping[str, Any], test_store: TestStore[Any, Any],
             failure: ScenarioFailure | None) -> None:
        original = next(iter(step))
        value = step[original]
        extra: dict[str, Any] = {}
        if original in ("send", "receive"):
            extra["action"] = value
            name = step_name(value)
        elif original == "request":
            name = value.get("name")
            if isinstance(value.get("id"), int):
                self._names[value["id"]] = value["name"]
            extra["payload"] = value.get("payload")
        elif original in ("resolve", "fail", "cancelled"):
            name = self._names.get(value) if isinstance(value, int) else None
            if original == "resolve":
                extra["payload"] = step.get("response")
            elif original == "fail":
                extra["payload"] = step.get("message")
        else:
            name = None
        if name is not None:
            extra["name"] = name
        if original == "advance_ms" and isinstance(value, int):
            self._clock += value
        kind = ("error" if "error" in step else
                "advance" if original == "advance_ms" else original)
        if kind == "error":
            extra["of"] = original
        if failure is None:
            state, version = _plain(test_store._state), test_store._version
        else:
            state, version = self._actual(test_store)
        entry = self._add(kind, state, version, step, test_store, **extra)
        if original == "request" and failure is None:
            # The id the store gave (a file may leave it out).
            events = test_store._asserted
            if events:
                last = max(events)
                self._names.setdefault(last, value.get("name"))
                entry["request_id"] = last
        if failure is not None:
            self._diverge(entry, step.get("state", step), state, failure)

    def end(self, test_store: TestStore[Any, Any], failure: ScenarioFailure | None) -> None:
        if failure is None:
            return
        state, version = self._actual(test_store)
        entry = self._add("finish", state, version, {"finish": True}, test_store,
                          synthetic=True)
        self._diverge(entry, None, state, failure)

    def _actual(self, test_store: TestStore[Any, Any]) -> tuple[Any, int]:
        """The store's state and version now (after a failed step)."""
        try:
            return (json.loads(test_store.store.state_json()), test_store.store.version)
        except ReducerKitError:  # pragma: no cover - the store is open during the replay
            return self._state, test_store._version

    def report(self, normal: Mapping[str, Any], source: str | None,
               error: str | None = None) -> dict[str, Any]:
        """The report's data of the replay of ``normal`` (a scenario in its normal form)
        this recorder watched; ``error``: why the replay could not start."""
        if error is None and self.initial is None:
            error = "the replay did not start"
        return {"format": REPORT_FORMAT, "name": normal["name"], "feature": normal["feature"],
                "source": source, "options": normal["options"],
                "exhaustive": normal["exhaustive"],
                "initial": self.initial if self.initial is not None else {},
                "version": self.version, "steps": self.steps, "divergence": self.divergence,
                "not_run": len(normal["steps"]) - sum(1 for s in self.steps
                                                      if not s.get("synthetic")),
                "error": error}

    def _diverge(self, entry: dict[str, Any], expected: Any, actual: Any,
                 failure: ScenarioFailure) -> None:
        entry["diverged"] = True
        entry["message"] = failure.detail
        self.divergence = {"index": entry["index"], "message": failure.detail,
                           "expected": expected, "actual": actual}


def build_report(scenario: Mapping[str, Any] | str | os.PathLike[str], library: Library, *,
                 timeout: float = 1.0, source: str | None = None) -> dict[str, Any]:
    """Replays ``scenario`` (a path, or the scenario as a dict) through the scenario runner
    and returns the report's data (see the module documentation). A scenario that fails is
    reported (``divergence``), not raised.

    Raises:
        ScenarioError: the file cannot be read or is not a scenario (the library's message:
            what is wrong and where).
    """
    normal = _normal_form(scenario, library)
    if source is None and not isinstance(scenario, Mapping):
        source = os.fspath(scenario)
    recorder = Recorder()
    error: str | None = None
    try:
        _run(normal, library, timeout, recorder)
    except ScenarioFailure as e:
        if recorder.initial is None:  # the store could not be created
            error = e.detail
    except ReducerKitError as e:  # a step failed in the library: the recorder marked it
        if recorder.divergence is None:  # pragma: no cover - outside any step
            error = e.message
    except RecursionError:
        raise ScenarioError("the scenario is too deeply nested for Python (its recursion "
                            "limit); the file is within the format's nesting limit") from None
    return recorder.report(normal, source, error)
