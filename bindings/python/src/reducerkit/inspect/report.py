"""The report's data: a scenario replayed by the scenario runner (the one ``check`` uses),
recorded step by step as the initial state and one RFC 6902 patch per step.

The data (``REPORT_FORMAT`` 1) is a JSON object::

    {"format": 1, "name": ..., "feature": ..., "source": "path or null",
     "options": {...}, "exhaustive": true, "initial": {state}, "version": 0,
     "steps": [{"kind": "send", "version": 1, "patch": [...],
                "step": {the file's step, without its "state"}}, ...],
     "divergence": null | {"index": 3, "message": "...", "expected": ..., "actual": ...},
     "not_run": 0, "error": null | "why the replay could not start"}

A step also has, when they apply: ``"busy": true`` (effects were running or sleeping after
it), ``"request_id"`` (a request: the id the store gave), ``"diverged": true`` (the first step
where the replay differs from the file), ``"synthetic": true`` (the end of a scenario whose
final checks failed). Everything else a step shows (its index, action, name, payload, test-clock
time) the page derives from these.

The page (``page.js``) rebuilds each step's state from ``initial`` and the patches.
"""

from __future__ import annotations

import ctypes
import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._native import Library
from .._patch import make_patch
from ..errors import ReducerKitError
from ..testing.scenarios import (ScenarioError, ScenarioFailure, StepObserver, _normal_form,
                                 _run)
from ..testing.store import TestStore

if TYPE_CHECKING:
    from ..store import Store

__all__ = ["REPORT_FORMAT", "KINDS", "Recorder", "build_report", "patch_since"]

REPORT_FORMAT = 1
"""The version of the report's data layout."""

KINDS = ("send", "receive", "request", "resolve", "fail", "cancelled", "advance", "error",
         "finish")
"""A step's ``kind`` in the report (``window.reducerkit.steps()``): the file's step kind,
``advance`` for ``advance_ms``, ``error`` for a step that expects an error."""


def patch_since(store: Store[Any, Any], since: int) -> tuple[list[dict[str, Any]], int]:
    """``rk_store_patch``: the patch from version ``since`` to now, and the version now."""
    lib = store._lib
    ptr = ctypes.c_void_p()
    length = ctypes.c_size_t()
    version = ctypes.c_uint64()
    store._call(lib.rk_store_patch, store._live_handle(), since, ptr, length, version,
                context="rk_store_patch")
    ops: list[dict[str, Any]] = lib.decode(lib.take_string(ptr, length), "rk_store_patch")
    return ops, version.value


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
        self._version = 0

    def start(self, test_store: TestStore[Any, Any]) -> None:
        self._state = _plain(test_store._state)
        self.initial = self._state
        self.version = self._version = test_store._version
        try:  # starts the store's patch history (rk_store_patch)
            patch_since(test_store.store, self._version)
        except ReducerKitError:  # pragma: no cover - the store is open during the replay
            pass

    def _patch(self, test_store: TestStore[Any, Any], state: Any, version: int) -> Any:
        """The patch from the previous step's state to ``state`` (at ``version``): the
        library's (``rk_store_patch``, computed once per version) when the store is at that
        version, else computed here."""
        if version == self._version:
            return []
        store = test_store.store
        try:
            if store.version == version:
                ops, now = patch_since(store, self._version)
                if now == version:
                    return ops
        except ReducerKitError:  # pragma: no cover - the store is open during the replay
            pass
        return make_patch(self._state, state)

    def _add(self, kind: str, state: Any, version: int, step: Mapping[str, Any],
             test_store: TestStore[Any, Any], **extra: Any) -> dict[str, Any]:
        entry: dict[str, Any] = {"kind": kind, "version": version,
                                 "patch": self._patch(test_store, state, version),
                                 "step": {k: v for k, v in step.items() if k != "state"}}
        try:
            if test_store.store.effect_count:
                entry["busy"] = True  # effects running or sleeping after the step
        except ReducerKitError:  # pragma: no cover - the store is open during the replay
            pass
        entry.update(extra)
        self._state = state
        self._version = version
        self.steps.append(entry)
        return entry

    def step(self, index: int, step: Mapping[str, Any], test_store: TestStore[Any, Any],
             failure: ScenarioFailure | None) -> None:
        kind = next(iter(step))
        kind = "error" if "error" in step else "advance" if kind == "advance_ms" else kind
        if failure is None:
            state, version = test_store._state, test_store._version
        else:
            state, version = self._actual(test_store)
        entry = self._add(kind, state, version, step, test_store)
        if kind == "request" and failure is None and test_store._asserted:
            entry["request_id"] = max(test_store._asserted)  # the id the store gave
        if failure is not None:
            self._diverge(len(self.steps) - 1, step.get("state", step), state, failure)

    def end(self, test_store: TestStore[Any, Any], failure: ScenarioFailure | None) -> None:
        if failure is None:
            return
        state, version = self._actual(test_store)
        self._add("finish", state, version, {"finish": True}, test_store, synthetic=True)
        self._diverge(len(self.steps) - 1, None, state, failure)

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

    def _diverge(self, index: int, expected: Any, actual: Any,
                 failure: ScenarioFailure) -> None:
        self.steps[index]["diverged"] = True
        self.divergence = {"index": index, "message": failure.detail,
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
