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

import ctypes
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

from .. import _json
from .._files import read_file
from .._json import compact
from .._lifecycle import resolve_library
from .._native import Library
from ..errors import ReducerKitError, Status
from .store import TestStore, _Exact

__all__ = ["ScenarioError", "ScenarioFailure", "load_scenario", "validate_scenario",
           "run_scenario", "scenario_files", "check_files", "json_match", "SUFFIX",
           "STEP_KINDS", "STATUS_NAMES"]

SUFFIX = ".scenario.json"
"""The file name ending of a scenario: the pytest plugin and ``check`` collect these."""

STEP_KINDS = ("send", "receive", "advance_ms", "request", "resolve", "fail", "cancelled",
              "finish")
"""Each step has exactly one of these keys."""

STATUS_NAMES = tuple(f"RK_ERR_{s.name}" for s in Status if s is not Status.OK)
"""The statuses an ``"error"`` may name: ``"RK_ERR_ACTION"``, ..."""


class ScenarioError(ValueError):
    """A scenario that is not well-formed, or cannot be read: the library's message (what is
    wrong, and where: ``malformed step at $.steps[2]: ...``), after the file's path."""


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


# ---- the format: the library's one definition (rk_scenario_parse, rk_json_match) ---------

def _wire(value: Any) -> bytes:
    """``value`` as JSON text, exactly (the standard library's encoder: integers of any size;
    a scenario's floats are doubles, written so that they read back the same)."""
    return compact(value).encode("utf-8")


def _parse(lib: Library, data: bytes, label: str) -> dict[str, Any]:
    """``rk_scenario_parse``: the scenario in its normal form, or :class:`ScenarioError`
    with the library's message."""
    out = ctypes.c_void_p()
    length = ctypes.c_size_t()
    try:
        lib.call(lib.rk_scenario_parse, data, len(data), out, length)
    except ReducerKitError:
        raise ScenarioError(f"{label}{lib.last_error()}") from None
    # The standard library's parser: integers stay exact at any size (orjson's would not).
    normal = json.loads(lib.take_string(out, length))
    if not isinstance(normal, dict):  # pragma: no cover - the library's normal form
        raise ScenarioError(f"{label}rk_scenario_parse gave no object")
    return normal


def _normal_form(scenario: Mapping[str, Any] | str | os.PathLike[str], lib: Library,
                 ) -> dict[str, Any]:
    if isinstance(scenario, Mapping):
        try:
            data = _wire(scenario)
        except (TypeError, ValueError, RecursionError) as e:
            raise ScenarioError(f"the scenario cannot be written as JSON: {e}") from None
        return _parse(lib, data, "")
    try:
        data = read_file(scenario)
    except OSError as e:
        raise ScenarioError(f"{os.fspath(scenario)}: cannot read: {e.strerror or e}") from None
    return _parse(lib, data, f"{os.fspath(scenario)}: ")


def load_scenario(path: str | os.PathLike[str],
                  library: Library | str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Reads and checks a scenario file with the library (``rk_scenario_parse``) and returns
    it in its normal form (defaults filled in: ``"options"`` with ``"clock"``,
    ``"initial_state"`` and ``"provide"``; ``"exhaustive"``; each step's kind first).

    Raises:
        ScenarioError: the file cannot be read, is not JSON or is not a scenario; the message
            names the file, the JSON path of what is wrong and what was expected.
    """
    return _normal_form(path, resolve_library(library))


def validate_scenario(scenario: Any,
                      library: Library | str | os.PathLike[str] | None = None) -> None:
    """Checks a scenario given as a dict against the format (``rk_scenario_parse``, the rules
    of ``scenario.schema.json``); raises :class:`ScenarioError` saying what is wrong and
    where."""
    lib = resolve_library(library)
    if isinstance(scenario, Mapping):
        _normal_form(scenario, lib)
        return
    try:  # not an object: the library's message says so
        data = _wire(scenario)
    except (TypeError, ValueError, RecursionError) as e:
        raise ScenarioError(f"the scenario cannot be written as JSON: {e}") from None
    _parse(lib, data, "")


def json_match(expected: Any, actual: Any,
               library: Library | str | os.PathLike[str] | None = None) -> str | None:
    """Compares two JSON values as the scenario format does (``rk_json_match``: key order
    ignored, a null member equals an absent one, numbers by exact value, ``true`` is not
    ``1``). Returns ``None`` when they are equal, else the differences, one per line
    (``$.count: expected 3, actual 2``). ``bytes`` are taken as JSON text."""
    lib = resolve_library(library)
    e = expected if isinstance(expected, bytes) else _wire(expected)
    a = actual if isinstance(actual, bytes) else _wire(actual)
    equal = ctypes.c_int()
    diff = ctypes.c_void_p()
    length = ctypes.c_size_t()
    lib.call(lib.rk_json_match, e, len(e), a, len(a), equal, diff, length,
             context="rk_json_match")
    text = lib.take_string(diff, length).decode("utf-8", "replace")
    return None if equal.value else text


def scenario_files(*paths: str | os.PathLike[str]) -> list[Path]:
    """The scenario files named: a file as it is, a directory as the ``*.scenario.json``
    files under it (recursively, skipping hidden entries; links to directories are not
    followed, links to files are), sorted by path."""
    found: list[Path] = []
    for path in paths:
        p = Path(path)
        if p.is_dir():
            found += sorted(_walk(p), key=os.fspath)  # by path text, as reducerkit-check
        else:
            found.append(p)
    return found


def _walk(directory: Path) -> Iterable[Path]:
    pending = [directory]
    while pending:
        current = pending.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
            elif entry.name.endswith(SUFFIX) and not entry.is_dir():
                yield Path(entry.path)


# ---- running -----------------------------------------------------------------------------

def _status_name(error: ReducerKitError) -> str:
    return f"RK_ERR_{error.status.name}" if isinstance(error.status, Status) else "RK_ERR_?"


class _Run:
    """One scenario (in its normal form) against one :class:`TestStore`."""

    def __init__(self, scenario: Mapping[str, Any], library: Library, timeout: float) -> None:
        options = scenario["options"]
        self.lib = library
        self.name: str = scenario["name"]
        self.exhaustive: bool = scenario["exhaustive"]
        self.ts = TestStore(scenario["feature"], clock=options["clock"],
                            initial_state=options["initial_state"],
                            provide=options["provide"], exhaustive=self.exhaustive,
                            timeout=timeout, library=library)
        # States, actions and request payloads compare by the format's rule.
        self.ts._differ = lambda expected, actual: (
            None if _identical(expected, actual)
            else _indented(json_match(expected, actual, library)))
        self.ts._diff_label = ""
        self.ts._copy_results = False

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
        kind = next(iter(step))  # the normal form: the kind comes first
        value = step[kind]
        if "state" in step:
            changes: Any = _Exact(step["state"])  # the expected state itself, not copied
        else:
            changes = None  # exhaustive: no change; not exhaustive: not checked
        if kind == "send":
            action = _wire(value)  # exactly the file's JSON (any size of integer, any depth)
            if "error" in step:
                ts._collect()
                if ts._received and self.exhaustive:
                    ts._fail(f"must receive {len(ts._received)} action(s) before sending "
                             f"{compact(value)}")
                before = ts.store.state_json()
                self.expect_error(step, "the send", ts.store.send, action)
                if ts._collect():
                    raise AssertionError("the failed send recorded an action")
                if json_match(before, ts.store.state_json(), self.lib) is not None:
                    raise AssertionError("the failed send changed the state")
            else:
                ts.send(action, changes)
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
                              _wire(step["response"]))
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
            difference = json_match(_wire(final_state), ts.store.state_json(), self.lib)
            if difference is not None:
                raise AssertionError("the final state is not the expected one:\n"
                                     f"{_indented(difference)}")


def _identical(a: Any, b: Any) -> bool:
    """Whether two decoded JSON values are the same value written the same way (the same
    compact JSON text: ``true`` is not ``1``, ``1`` is not ``1.0``, keys in the same order):
    then they also match by the format's rule, and the library need not be asked. A fast
    path only: anything else (also a value the fast encoder refuses) is compared by
    ``rk_json_match``."""
    if a is b:
        return True
    try:
        return _json.dumps(a) == _json.dumps(b)
    except (TypeError, ValueError, OverflowError, RecursionError):  # orjson: TypeError
        return False


def _indented(text: str | None) -> str | None:
    return None if text is None else "\n".join(f"  {line}" for line in text.splitlines())


def run_scenario(scenario: Mapping[str, Any] | str | os.PathLike[str],
                 library: Library | str | os.PathLike[str] | None = None, *,
                 timeout: float = 1.0) -> None:
    """Runs a scenario (a ``*.scenario.json`` path, or the scenario as a dict) against the
    library (a :class:`reducerkit.Library`, a path, or ``None``: the default library).
    ``timeout`` is how many seconds a step waits for running effects.

    The library checks the scenario first (``rk_scenario_parse``: the format's one
    definition, shared with the C and Swift runners) and compares states, actions and
    request payloads by the format's rule (``rk_json_match``).

    Raises :class:`ScenarioFailure` (an ``AssertionError``) naming the scenario and the step
    when the store does not behave as written, and :class:`ScenarioError` (a ``ValueError``)
    when the scenario is malformed or cannot be read.
    """
    __tracebackhide__ = True
    lib = resolve_library(library)
    _run(_normal_form(scenario, lib), lib, timeout)


class StepObserver:
    """Watches a replay (the inspector, :mod:`reducerkit.inspect`, records one through it):
    the runner calls :meth:`start` once the store exists, :meth:`step` after each step, and
    :meth:`end` after the end's checks. ``test_store._state`` and ``test_store._version`` are
    the state and version the steps asserted so far. ``failure`` is the failure about to be
    raised, if any."""

    def start(self, test_store: TestStore[Any, Any]) -> None:
        """The store was created; no step ran yet."""

    def step(self, index: int, step: Mapping[str, Any], test_store: TestStore[Any, Any],
             failure: ScenarioFailure | None) -> None:
        """Step ``index`` (1-based) ran, or failed with ``failure``."""

    def end(self, test_store: TestStore[Any, Any], failure: ScenarioFailure | None) -> None:
        """The end's checks passed, or failed with ``failure``."""


def _run(normal: Mapping[str, Any], lib: Library, timeout: float,
         observer: StepObserver | None = None) -> None:
    """Runs a scenario in its normal form (``observer``: see :class:`StepObserver`)."""
    __tracebackhide__ = True
    name = normal["name"]
    try:
        run = _Run(normal, lib, timeout)
    except ReducerKitError as e:
        raise ScenarioFailure(name, 0, None, f"the store could not be created: "
                                             f"{_status_name(e)}: {e.message}") from None
    try:
        if observer is not None:
            observer.start(run.ts)
        finished = False
        for index, step in enumerate(normal["steps"], start=1):
            try:
                run.step(step)
            except AssertionError as e:
                failure = ScenarioFailure(name, index, step, _strip_prefix(str(e)))
                if observer is not None:
                    observer.step(index, step, run.ts, failure)
                raise failure from None
            except ReducerKitError as e:  # raised as it is; the observer sees the step fail
                if observer is not None:
                    observer.step(index, step, run.ts, ScenarioFailure(
                        name, index, step, f"{_status_name(e)}: {e.message}"))
                raise
            if observer is not None:
                observer.step(index, step, run.ts, None)
            finished = "finish" in step
        try:
            run.end(finished, normal.get("final_state"))
        except AssertionError as e:
            failure = ScenarioFailure(name, 0, None, _strip_prefix(str(e)))
            if observer is not None:
                observer.end(run.ts, failure)
            raise failure from None
        if observer is not None:
            observer.end(run.ts, None)
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
                timeout: float = 1.0, html: str | os.PathLike[str] | None = None) -> int:
    """Runs scenario files as ``reducerkit-check`` does: one line per scenario
    (``ok     PATH: NAME`` or ``FAILED PATH: NAME`` and what failed), then
    ``N passed, N failed``. A file that fails, however malformed (not JSON, nested too deep,
    unreadable), is reported on its own lines and the run goes on. Returns the exit status
    (0: all passed, 1: one failed).

    ``html``: a directory (created if needed) where each scenario that fails gets the
    inspector's report of its replay (:mod:`reducerkit.inspect`), ``NAME.html``; the lines
    of the failure say where (``report: DIR/NAME.html``). A file that is not a scenario gets
    none."""
    lib = resolve_library(library)
    passed = failed = 0
    written: set[str] = set()
    for path in paths:
        shown = os.fspath(path)
        name = "(no name)"
        detail: str | None = None
        recorder: Any = None
        normal: dict[str, Any] | None = None
        error: str | None = None
        try:
            try:
                data = read_file(path)
            except OSError as e:
                raise ScenarioError(f"cannot read the file: {e.strerror or e}") from None
            normal = _parse(lib, data, "")
            name = normal["name"]
            if html is not None:
                from ..inspect.report import Recorder
                recorder = Recorder()
            _run(normal, lib, timeout, recorder)
        except ScenarioFailure as e:
            if recorder is not None and recorder.initial is None:
                error = e.detail
            lines = e.detail.splitlines() or [""]
            head = f"    {e.location()}: {lines[0]}" if e.step else f"    {lines[0]}"
            detail = "\n".join([head] + [f"      {line.lstrip()}" if line.startswith("  $")
                                         else f"      {line}" for line in lines[1:]])
        except ScenarioError as e:
            detail = f"    {e}"
        except RecursionError:
            detail = ("    too deeply nested for Python (its recursion limit); the file is "
                      "within the format's nesting limit")
        except Exception as e:  # noqa: BLE001 - reported for this file; the run goes on
            text = f"{type(e).__name__}: {e}"
            detail = f"    {text if len(text) <= 400 else text[:397] + '...'}"
        if detail is None:
            passed += 1
            out.write(f"ok     {shown}: {name}\n")
        else:
            failed += 1
            if recorder is not None and normal is not None:
                detail += "\n" + _write_report(recorder.report(normal, shown, error), html,
                                               shown, written)
            out.write(f"FAILED {shown}: {name}\n{detail}\n")
        out.flush()
    out.write(f"{passed} passed, {failed} failed\n")
    return 1 if failed else 0


def _write_report(data: dict[str, Any], directory: Any, shown: str, written: set[str]) -> str:
    """Writes a failing scenario's report into ``directory`` (a name not used yet in this
    run: ``NAME.html``, ``NAME-2.html``, ...); the line that says where, or why not."""
    from ..inspect import render_html
    base = os.path.basename(shown)
    for suffix in (SUFFIX, ".json"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    target = Path(directory) / f"{base}.html"
    n = 1
    while os.fspath(target) in written:
        n += 1
        target = Path(directory) / f"{base}-{n}.html"
    written.add(os.fspath(target))
    try:
        target.write_text(render_html(data), encoding="utf-8")
    except OSError as e:
        return f"    no report: cannot write {target}: {e.strerror or e}"
    return f"    report: {target}"
