"""Scenario files: one test of a feature written as data (``*.scenario.json``), run alike by
the Swift runner (``ReducerKitTesting``), the C program ``reducerkit-check`` and this module.

The format is documented in ``Tests/scenarios/README.md`` of the repository, and its JSON
Schema is ``Tests/scenarios/scenario.schema.json``::

    {"name": "counter fact", "feature": "counter",
     "options": {"clock": "test", "initial_state": {"count": 1}, "provide": ["numberFact"]},
     "steps": [
       {"send": "factButtonTapped"},
       {"request": {"id": 1, "name": "numberFact", "payload": 1}},
       {"resolve": 1, "response": "1 is one."},
       {"receive": {"factResponse": "1 is one."},
        "state": {"count": 1, "fact": "1 is one.", "isTimerOn": false}},
       {"send": "incremnt", "error": {"status": "RK_ERR_ACTION", "message": "did you mean"}},
       {"finish": true}],
     "final_state": {"count": 1, "fact": "1 is one.", "isTimerOn": false}}

::

    from reducerkit.testing import run_scenario
    run_scenario("Tests/scenarios/counter_fact.scenario.json")   # AssertionError on failure
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

from .._diff import json_equal
from .._json import compact, loads
from .._native import Library
from ..errors import ReducerKitError, Status
from . import TestStore

__all__ = ["ScenarioError", "ScenarioFailure", "load_scenario", "validate_scenario",
           "run_scenario", "scenario_files", "check_files", "SUFFIX", "STEP_KINDS",
           "STATUS_NAMES"]

SUFFIX = ".scenario.json"
"""The file name ending of a scenario: the pytest plugin and ``check`` collect these."""

STEP_KINDS = ("send", "receive", "advance_ms", "request", "resolve", "fail", "cancelled",
              "finish")
"""Each step has exactly one of these keys."""

TOP_KEYS = ("name", "feature", "options", "exhaustive", "steps", "final_state")
OPTION_KEYS = ("clock", "initial_state", "provide")
# The keys a step may have beside its kind, and the kinds they belong to.
_STEP_EXTRAS = {"state": ("send", "receive"), "response": ("resolve",), "message": ("fail",),
                "error": ("send", "resolve", "fail")}

STATUS_NAMES = tuple(f"RK_ERR_{s.name}" for s in Status if s is not Status.OK)
"""The statuses an ``"error"`` may name: ``"RK_ERR_ACTION"``, ..."""


class ScenarioError(ValueError):
    """A scenario that is not well-formed (what is wrong, and where: ``$.steps[2]``)."""


class ScenarioFailure(AssertionError):
    """A scenario whose store did not behave as written.

    Attributes:
        name: the scenario's name.
        step: the 1-based index of the failing step (0: the scenario as a whole).
        step_value: the failing step.
        detail: what failed (several lines).
    """

    def __init__(self, name: str, step: int, step_value: Any, detail: str) -> None:
        self.name = name
        self.step = step
        self.step_value = step_value
        self.detail = detail
        super().__init__(f"scenario {name!r}, {self.location()}:\n{detail}" if step else
                         f"scenario {name!r}: {detail}")

    def location(self) -> str:
        """``step 2 {"send":"increment"}`` (the step cut at 120 characters)."""
        text = compact(self.step_value)
        return f"step {self.step} {text if len(text) <= 120 else text[:117] + '...'}"


# ---- reading and checking the format -----------------------------------------------------

def load_scenario(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Reads and validates a scenario file; raises :class:`ScenarioError` naming the file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ScenarioError(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        scenario = loads(data)
    except ValueError as e:
        raise ScenarioError(f"{path}: not JSON: {e}") from None
    try:
        validate_scenario(scenario)
    except ScenarioError as e:
        raise ScenarioError(f"{path}: {e}") from None
    return scenario  # type: ignore[no-any-return]


def _is_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _step_problem(step: Any) -> str | None:
    if not isinstance(step, Mapping):
        return "a step is an object"
    kinds = [k for k in STEP_KINDS if k in step]
    if len(kinds) != 1:
        return f"a step has exactly one of {', '.join(STEP_KINDS)}"
    kind = kinds[0]
    for key in step:
        if key == kind:
            continue
        owners = _STEP_EXTRAS.get(key)
        if owners is None or kind not in owners:
            return (f"unknown key {key!r} in a {kind} step: \"state\" belongs to send and "
                    f"receive, \"response\" to resolve, \"message\" to fail, \"error\" to send, "
                    f"resolve and fail")
    if kind == "send" and "state" in step and "error" in step:
        return 'a send step has "state" or "error", not both'
    value = step[kind]
    if kind == "advance_ms" and (isinstance(value, bool) or not isinstance(value, int)
                                 or value < 0):
        return "advance_ms is a whole number of milliseconds >= 0"
    if kind == "request":
        if (not isinstance(value, Mapping) or not isinstance(value.get("name"), str)
                or "payload" not in value):
            return ('a request step is {"request": {"id": N (optional), "name": "...", '
                    '"payload": ...}}')
        if set(value) - {"id", "name", "payload"}:
            return 'a request has only "id", "name" and "payload"'
        if "id" in value and not _is_id(value["id"]):
            return "a request id is a whole number >= 1"
    if kind in ("resolve", "fail", "cancelled") and not _is_id(value):
        return "a request id is a whole number >= 1"
    if kind == "resolve" and "response" not in step:
        return 'a resolve step needs a "response"'
    if kind == "fail" and not isinstance(step.get("message"), str):
        return 'a fail step needs a "message" string'
    if kind == "finish" and value is not True:
        return 'a finish step is {"finish": true}'
    if "error" in step:
        error = step["error"]
        if not isinstance(error, Mapping) or not isinstance(error.get("status"), str):
            return '"error" is {"status": "RK_ERR_...", "message": "a fragment" (optional)}'
        if error["status"] not in STATUS_NAMES:
            return f'"error"."status" is one of {", ".join(STATUS_NAMES)}'
        if set(error) - {"status", "message"}:
            return '"error" has only "status" and "message"'
        if "message" in error and not isinstance(error["message"], str):
            return '"error"."message" is a string'
    return None


def validate_scenario(scenario: Any) -> None:
    """Checks a scenario's shape (the rules of ``scenario.schema.json``); raises
    :class:`ScenarioError` saying what is wrong and where."""
    if not isinstance(scenario, Mapping):
        raise ScenarioError("not a scenario: expected a JSON object at $")
    for key in scenario:
        if key not in TOP_KEYS:
            hint = ' (it belongs in "options")' if key in OPTION_KEYS else ""
            raise ScenarioError(f"unknown key {key!r} at ${hint}; expected "
                                f"{', '.join(TOP_KEYS)}")
    for key in ("name", "feature"):
        if not isinstance(scenario.get(key), str):
            raise ScenarioError('"name" and "feature" are required strings at $')
    if "exhaustive" in scenario and not isinstance(scenario["exhaustive"], bool):
        raise ScenarioError('"exhaustive" is true or false')
    options = scenario.get("options", {})
    if not isinstance(options, Mapping):
        raise ScenarioError('"options" is an object')
    for key in options:
        if key not in OPTION_KEYS:
            raise ScenarioError(f"unknown option {key!r} at $.options; expected "
                                f"{', '.join(OPTION_KEYS)}")
    if options.get("clock", "test") not in ("test", "live"):
        raise ScenarioError('$.options.clock is "test" or "live"')
    initial = options.get("initial_state")
    if initial is not None and not isinstance(initial, Mapping):
        raise ScenarioError("$.options.initial_state is null or an object")
    provide = options.get("provide", [])
    if not isinstance(provide, list) or not all(isinstance(p, str) for p in provide):
        raise ScenarioError("$.options.provide is an array of endpoint names")
    steps = scenario.get("steps")
    if not isinstance(steps, list):
        raise ScenarioError('"steps" is a required array at $')
    for index, step in enumerate(steps):
        problem = _step_problem(step)
        if problem is not None:
            raise ScenarioError(f"malformed step $.steps[{index}] {compact(step)[:120]}: "
                                f"{problem}")


def scenario_files(*paths: str | os.PathLike[str]) -> list[Path]:
    """The scenario files named: a file as it is, a directory as the ``*.scenario.json``
    files under it (recursively), sorted by path."""
    found: list[Path] = []
    for path in paths:
        p = Path(path)
        if p.is_dir():
            found += sorted(f for f in p.rglob(f"*{SUFFIX}")
                            if not any(part.startswith(".") for part in f.relative_to(p).parts))
        else:
            found.append(p)
    return found


# ---- running -----------------------------------------------------------------------------

def _null_is_missing_equal(a: Any, b: Any) -> bool:
    """JSON equality where an object member whose value is null equals an absent one (an
    optional may be written either way)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a.keys() | b.keys():
            x, y = a.get(key), b.get(key)
            if not _null_is_missing_equal(x, y):
                return False
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_null_is_missing_equal(x, y)
                                        for x, y in zip(a, b, strict=True))
    return json_equal(a, b)


def _status_name(error: ReducerKitError) -> str:
    return f"RK_ERR_{error.status.name}" if isinstance(error.status, Status) else "RK_ERR_?"


class _Run:
    """One scenario against one :class:`TestStore`."""

    def __init__(self, scenario: Mapping[str, Any], library: Any, timeout: float) -> None:
        options = scenario.get("options", {})
        self.name: str = scenario["name"]
        self.exhaustive = scenario.get("exhaustive", True)
        self.ts = TestStore(scenario["feature"], clock=options.get("clock", "test"),
                            initial_state=options.get("initial_state"),
                            provide=options.get("provide"), exhaustive=self.exhaustive,
                            timeout=timeout, library=library)
        self.ts._equal = _null_is_missing_equal

    def expect_error(self, step: Mapping[str, Any], call: str, fn: Any, *args: Any) -> None:
        """Runs ``fn(*args)``: it must fail as ``step["error"]`` says, or succeed if the step
        has no ``"error"``."""
        __tracebackhide__ = True
        expected = step.get("error")
        try:
            fn(*args)
        except ReducerKitError as e:
            if expected is None:
                raise AssertionError(f"{call} failed: {_status_name(e)}: {e.message}") from None
            if _status_name(e) != expected["status"]:
                raise AssertionError(f"expected {call} to fail with {expected['status']}, but it "
                                     f"failed with {_status_name(e)}: {e.message}") from None
            fragment = expected.get("message")
            if fragment is not None and fragment not in e.message:
                raise AssertionError(f"expected the error of {call} to contain "
                                     f"{compact(fragment)}, but it is: {e.message}") from None
            return
        if expected is not None:
            raise AssertionError(f"expected {call} to fail with {expected['status']}, but it "
                                 f"succeeded")

    def step(self, step: Mapping[str, Any]) -> None:
        __tracebackhide__ = True
        ts = self.ts
        kind = next(k for k in STEP_KINDS if k in step)
        value = step[kind]
        if "state" in step:
            expected_state = step["state"]
            changes: Any = lambda _previous: copy.deepcopy(expected_state)  # noqa: E731
        elif self.exhaustive:
            changes = None  # no change
        else:
            changes = None  # not checked (TestStore(exhaustive=False) checks what is given)
        if kind == "send":
            if "error" in step:
                ts._collect()
                if ts._received and self.exhaustive:
                    ts._fail(f"must receive {len(ts._received)} action(s) before sending "
                             f"{compact(value)}")
                before = ts.store.state
                self.expect_error(step, "the send", ts.store.send, value)
                if ts._collect():
                    raise AssertionError("the failed send recorded an action")
                if not json_equal(before, ts.store.state):
                    raise AssertionError("the failed send changed the state")
            else:
                ts.send(value, changes)
        elif kind == "receive":
            ts.receive(value, changes)
        elif kind == "advance_ms":
            ts.advance(milliseconds=value)
        elif kind == "request":
            request = ts.receive_request(value["name"], value["payload"])
            if "id" in value and value["id"] != request.id:
                raise AssertionError(f"expected the request {compact(value)}, but its id is "
                                     f"{request.id}")
        elif kind == "resolve":
            self.expect_error(step, f"rk_store_resolve({value})", ts.store.resolve, value,
                              step["response"])
        elif kind == "fail":
            self.expect_error(step, f"rk_store_fail({value})", ts.store.fail, value,
                              step["message"])
        elif kind == "cancelled":
            ts.receive_cancellation(value)
        else:
            ts.finish()

    def end(self, finished: bool, final_state: Any) -> None:
        """After the last step: (exhaustive, without a finish step) nothing received or
        requested may be left unasserted; the final state, if given, must match."""
        __tracebackhide__ = True
        ts = self.ts
        if not finished and self.exhaustive:
            ts._collect()
            ts._collect_events()
            if ts._received:
                ts._fail(f"{len(ts._received)} received action(s) were not asserted:\n"
                         f"{ts._pending_text()}")
            if ts._events:
                ts._fail(f"{len(ts._events)} host event(s) were not asserted:\n"
                         f"{ts._events_text()}")
        if final_state is not None:
            actual = ts.store.state
            if not _null_is_missing_equal(final_state, actual):
                from .._diff import describe_changes
                raise AssertionError("the final state is not the expected one "
                                     f"(-expected +actual):\n"
                                     f"{describe_changes(final_state, actual)}")


def run_scenario(scenario: Mapping[str, Any] | str | os.PathLike[str],
                 library: Library | str | os.PathLike[str] | None = None, *,
                 timeout: float = 1.0) -> None:
    """Runs a scenario (a ``*.scenario.json`` path, or the scenario as a dict) against the
    library (a :class:`reducerkit.Library`, a path, or ``None``: the default library).
    ``timeout`` is how many seconds a step waits for running effects.

    Raises :class:`ScenarioFailure` (an ``AssertionError``) naming the scenario and the step
    when the store does not behave as written, and :class:`ScenarioError` (a ``ValueError``)
    when the scenario is malformed.
    """
    __tracebackhide__ = True
    if not isinstance(scenario, Mapping):
        scenario = load_scenario(scenario)
    else:
        validate_scenario(scenario)
    name = scenario["name"]
    try:
        run = _Run(scenario, library, timeout)
    except ReducerKitError as e:
        raise ScenarioFailure(name, 0, None, f"the store could not be created: "
                                             f"{_status_name(e)}: {e.message}") from None
    steps = scenario["steps"]
    try:
        finished = False
        for index, step in enumerate(steps, start=1):
            try:
                run.step(step)
            except AssertionError as e:
                raise ScenarioFailure(name, index, step, _strip_prefix(str(e))) from None
            finished = "finish" in step
        try:
            run.end(finished, scenario.get("final_state"))
        except AssertionError as e:
            raise ScenarioFailure(name, 0, None, _strip_prefix(str(e))) from None
    finally:
        run.ts.close()


def _strip_prefix(message: str) -> str:
    prefix = "[TestStore "
    if message.startswith(prefix) and "] " in message:
        return message.split("] ", 1)[1]
    return message


# ---- the check command -------------------------------------------------------------------

def check_files(paths: Iterable[str | os.PathLike[str]], *, out: TextIO,
                library: Library | str | os.PathLike[str] | None = None,
                timeout: float = 1.0) -> int:
    """Runs scenario files as ``reducerkit-check`` does: one line per scenario
    (``ok     PATH: NAME`` or ``FAILED PATH: NAME`` and what failed), then
    ``N passed, N failed``. Returns the exit status (0: all passed, 1: one failed)."""
    passed = failed = 0
    for path in paths:
        shown = os.fspath(path)
        name = "(no name)"
        detail: str | None = None
        try:
            scenario = loads(Path(path).read_bytes())
            if isinstance(scenario, Mapping) and isinstance(scenario.get("name"), str):
                name = scenario["name"]
            validate_scenario(scenario)
            run_scenario(scenario, library, timeout=timeout)
        except OSError as e:
            detail = f"    cannot read the file: {e.strerror or e}"
        except ScenarioFailure as e:
            lines = e.detail.splitlines() or [""]
            head = f"    {e.location()}: {lines[0]}" if e.step else f"    {lines[0]}"
            detail = "\n".join([head] + [f"      {line.lstrip()}" if line.startswith("  $")
                                         else f"      {line}" for line in lines[1:]])
        except ScenarioError as e:
            detail = f"    {e}"
        except ValueError as e:  # not JSON
            detail = f"    not JSON: {e}"
        if detail is None:
            passed += 1
            out.write(f"ok     {shown}: {name}\n")
        else:
            failed += 1
            out.write(f"FAILED {shown}: {name}\n{detail}\n")
        out.flush()
    out.write(f"{passed} passed, {failed} failed\n")
    return 1 if failed else 0

