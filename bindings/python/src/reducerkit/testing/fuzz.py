"""Random action sequences against an invariant, shrunk to a scenario (needs Hypothesis:
``pip install reducerkit[test]``).

```python
from reducerkit.testing import check

def count_is_small(state):
    assert abs(state["count"]) < 1000, state["count"]

check("counter", count_is_small, max_examples=200, steps=20)
```

Each example is a sequence of up to ``steps`` steps on a store with the test clock that
answers every host endpoint of the feature: a random valid action (from the action schema),
a random clock advance, or a random answer (a valid response, or a failure) to a pending host
request. ``invariant(state)`` runs after each step; it fails by raising (an ``assert``) or
returning ``False``. Each sequence is recorded (``Store(record=True)``) and replayed by the C
runner ``reducerkit-check``, which checks every state the Python host saw against the ones a
C host gets (a differential check of the two hosts). On a failure, Hypothesis shrinks the
sequence; the shrunk one is written as a ``*.scenario.json`` file (replay it with
``reducerkit-check FILE`` or ``python -m reducerkit check FILE``) and the ``AssertionError``
says where.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

try:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("reducerkit.testing.check needs Hypothesis: pip install "
                      "'reducerkit[test]' (or pip install hypothesis)") from e

from .._lifecycle import resolve_library
from .._native import PACKAGE_DIR, Library
from ..errors import ReducerKitError
from ..store import Store
from .strategies import feature_description, from_schema

__all__ = ["check", "find_checker", "InvariantFailure"]

_ADVANCES = [0, 1, 10, 100, 250, 300, 500, 1000, 5000]

#: What to do when :func:`find_checker` finds no runner (the caller adds how to skip it).
CHECKER_NOT_FOUND = (
    "reducerkit-check not found (looked at $REDUCERKIT_CHECK, beside the library, in ../bin, in "
    "this package and on PATH; a package built without a C compiler has none): reinstall the "
    "package where `cc` works, or build the runner in a ReducerKit checkout with `make` and "
    "set $REDUCERKIT_CHECK to build/reducerkit-check")


class InvariantFailure(AssertionError):
    """The invariant failed, or the two hosts disagreed, on a (shrunk) sequence.

    Attributes:
        reproducer: the ``*.scenario.json`` file of the shrunk sequence.
    """

    def __init__(self, message: str, reproducer: Path) -> None:
        super().__init__(message)
        self.reproducer = reproducer


def find_checker(library: Library) -> str | None:
    """The ``reducerkit-check`` program: ``$REDUCERKIT_CHECK``, else beside the library
    (``build/`` after ``make``), else ``../bin`` of the library (``make install``), else the
    copy inside this package (the wheel and ``pip install`` build it there), else on
    ``PATH``. ``None`` when there is none."""
    explicit = os.environ.get("REDUCERKIT_CHECK")
    if explicit:
        return explicit
    lib_dir = Path(library.path).resolve().parent
    for candidate in (lib_dir / "reducerkit-check", lib_dir.parent / "bin" / "reducerkit-check",
                      PACKAGE_DIR / "reducerkit-check"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("reducerkit-check")


class _Sequence:
    """One example: a recorded store driven step by step."""

    def __init__(self, feature: str, lib: Library, endpoints: list[str],
                 initial_state: dict[str, Any] | None) -> None:
        self.store = Store(feature, initial_state=initial_state, clock="test", record=True,
                           provide=endpoints or None, library=lib)
        self.done: list[str] = []

    def step(self, kind: str, value: Any) -> None:
        store = self.store
        if kind == "send":
            store.send(value)
            self.done.append(f"send {json.dumps(value)}")
        elif kind == "advance":
            store.advance(milliseconds=value)
            self.done.append(f"advance {value} ms")
        elif kind == "resolve":
            request_id, response = value
            store.resolve(request_id, response)
            self.done.append(f"resolve request {request_id} with {json.dumps(response)}")
        else:
            request_id, message = value
            store.fail(request_id, message)
            self.done.append(f"fail request {request_id}: {message}")


def check(feature: str, invariant: Callable[[dict[str, Any]], object], *,
          max_examples: int = 100, steps: int = 20, seed: int | None = None,
          library: Library | str | os.PathLike[str] | None = None,
          initial_state: dict[str, Any] | None = None,
          reproducer: str | os.PathLike[str] | None = None,
          differential: bool = True,
          progress: Callable[[int], None] | None = None) -> None:
    """Runs ``max_examples`` random sequences of up to ``steps`` steps of ``feature``,
    calling ``invariant(state)`` after each step (see the module documentation).

    Args:
        seed: makes the run repeatable (the same sequences each time).
        initial_state: merged over the feature's default state.
        reproducer: where to write the shrunk failing sequence (default:
            ``FEATURE-failure.scenario.json`` in the current directory).
        differential: replay every sequence through ``reducerkit-check`` (found by
            :func:`find_checker`) and compare every state.
        progress: called with the number of sequences run so far (the runs Hypothesis
            makes to shrink a failing sequence are not counted).

    Raises:
        InvariantFailure: with the step that failed, what failed, and the reproducer's path.
        ReducerKitError: ``reducerkit-check`` cannot be found (a package built without a C
            compiler has no copy of it; pass ``differential=False``).
    """
    lib = resolve_library(library)
    description = feature_description(feature, lib)
    endpoints = [e["name"] for e in description.get("requests") or []]
    response_strategies = {e["name"]: from_schema(e.get("response_schema"))
                           for e in description.get("requests") or []}
    action_strategy = from_schema(description["action_schema"])
    checker = find_checker(lib) if differential else None
    if differential and checker is None:
        raise ReducerKitError(f"reducerkit.testing.check: {CHECKER_NOT_FOUND}; or pass "
                              f"differential=False")
    target = Path(reproducer) if reproducer is not None else Path(f"{feature}-failure.scenario.json")
    failure: dict[str, Any] = {}
    runs = [0]

    def run(data: st.DataObject) -> None:
        sequence = _Sequence(feature, lib, endpoints, initial_state)
        with sequence.store as store:
            problem: str | None = None
            count = data.draw(st.integers(0, steps), label="steps")
            for _ in range(count):
                pending = store.pending_requests()
                kinds = ["send", "send", "advance"] + (["resolve", "fail"] if pending else [])
                kind = data.draw(st.sampled_from(kinds))
                if kind == "send":
                    value: Any = data.draw(action_strategy, label="action")
                elif kind == "advance":
                    value = data.draw(st.sampled_from(_ADVANCES), label="milliseconds")
                else:
                    request = data.draw(st.sampled_from(pending), label="request")
                    if kind == "resolve":
                        value = (request.id, data.draw(response_strategies[request.name],
                                                       label="response"))
                    else:
                        value = (request.id, data.draw(st.text(max_size=8), label="message"))
                try:
                    sequence.step(kind, value)
                except ReducerKitError as e:
                    problem = (f"the library refused a valid {kind}: {e} (a disagreement "
                               f"between the published schema and the library)")
                    break
                try:
                    held = invariant(store.state)
                except AssertionError as e:
                    problem = f"the invariant failed: {e or type(e).__name__}"
                    break
                if held is False:
                    problem = "the invariant returned False"
                    break
            scenario = store.scenario(f"{feature}: a sequence found by reducerkit.testing.check")
        # A sequence drawn to the end: counted unless Hypothesis is shrinking a failure (it
        # also drops, and draws again, a sequence whose draw went wrong midway: not counted).
        if not failure:
            runs[0] += 1
            if progress is not None:
                progress(runs[0])
        if problem is None and checker is not None:
            problem = _replay(checker, lib, scenario)
        if problem is not None:
            failure.update(problem=problem, steps=list(sequence.done), scenario=scenario)
            target.write_text(json.dumps(scenario, indent=2, ensure_ascii=False) + "\n")
            raise AssertionError(problem)

    configured = settings(max_examples=max_examples, deadline=None, database=None,
                          suppress_health_check=list(HealthCheck), print_blob=False)
    test = configured(given(st.data())(run))
    if seed is not None:
        test = hypothesis_seed(seed)(test)
    try:
        test()
    except AssertionError:
        if not failure:
            raise
        done = failure["steps"]
        listing = "\n".join(f"  {i + 1}. {s}" for i, s in enumerate(done)) or "  (no step)"
        raise InvariantFailure(
            f"{feature}: {failure['problem']}\nafter {len(done)} step(s) (shrunk):\n{listing}\n"
            f"the sequence is in {target} (replay it: "
            f"{_replay_commands(checker or find_checker(lib), lib, target)})",
            target) from None


def _replay_commands(checker: str | None, lib: Library, target: Path) -> str:
    """The commands that replay ``target`` against ``lib``, for a message (``--lib`` always:
    the library may be a user's own, which no runner loads by default)."""
    lib_path, file = shlex.quote(lib.path), shlex.quote(str(target))
    python = f"python -m reducerkit --lib {lib_path} check {file}"
    if checker is None:
        return python
    return f"{shlex.quote(checker)} --lib {lib_path} {file}, or {python}"


def _replay(checker: str, lib: Library, scenario: dict[str, Any]) -> str | None:
    """Replays the recorded scenario through the C runner; a description of the
    disagreement, or None."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sequence.scenario.json"
        path.write_text(json.dumps(scenario))
        done = subprocess.run([checker, "--lib", lib.path, str(path)], capture_output=True,
                              text=True, timeout=300)
    if done.returncode == 0:
        return None
    detail = "\n".join(done.stdout.splitlines()[1:-1]) or done.stderr.strip()
    return f"the C host (reducerkit-check) disagrees with the Python host:\n{detail}"
