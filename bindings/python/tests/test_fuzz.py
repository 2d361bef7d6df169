"""reducerkit.testing.strategies (Hypothesis strategies from the schemas), check() and
python -m reducerkit fuzz."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, cap

pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402

from reducerkit import Library, ReducerKitError, Store  # noqa: E402
from reducerkit.cli import main  # noqa: E402
from reducerkit.testing import InvariantFailure, check, run_scenario  # noqa: E402
from reducerkit.testing import strategies  # noqa: E402
from reducerkit.testing.fuzz import _replay  # noqa: E402

CHECK = REPO / "build" / "reducerkit-check"
DIFFERENTIAL = CHECK.exists()


@pytest.mark.parametrize("feature", ["counter", "todos", "search"])
def test_every_generated_action_is_accepted(lib: Library, feature: str) -> None:
    store = Store(feature, clock="test", library=lib)

    @settings(max_examples=150, deadline=None, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(strategies.actions(feature, lib))
    def accepted(action: Any) -> None:
        store.send(action)  # raises ActionError if the schema and the library disagree

    with store:
        accepted()


def test_generated_states_and_responses_are_accepted(lib: Library) -> None:
    @settings(max_examples=50, deadline=None, database=None)
    @given(strategies.states("todos", lib), strategies.responses("search", "search", lib))
    def accepted(state: Any, response: Any) -> None:
        with Store("todos", initial_state=state, clock="test", library=lib):
            pass
        with Store("search", clock="test", provide=["search"], library=lib) as store:
            store.send({"queryChanged": "q"})
            store.advance(milliseconds=300)
            store.wait_request(cap(10)).resolve(response)

    accepted()


def test_unknown_feature_and_endpoint(lib: Library) -> None:
    with pytest.raises(Exception, match="unknown feature 'countr'"):
        strategies.actions("countr", lib)
    with pytest.raises(Exception, match="no host endpoint 'nope'"):
        strategies.responses("counter", "nope", lib)


def test_check_passes_a_true_invariant(lib: Library, tmp_path: Path) -> None:
    def todo_ids_are_unique(state: dict[str, Any]) -> None:
        ids = [t["id"] for t in state["todos"]]
        assert len(ids) == len(set(ids))

    check("todos", todo_ids_are_unique, max_examples=25, steps=8, seed=1, library=lib,
          reproducer=tmp_path / "never.scenario.json", differential=DIFFERENTIAL)
    assert not (tmp_path / "never.scenario.json").exists()
    # Host requests answered at random (search answers every request of its endpoint).
    check("search", lambda s: isinstance(s["results"], list), max_examples=25, steps=8,
          seed=2, library=lib, differential=DIFFERENTIAL,
          reproducer=tmp_path / "never.scenario.json")


def test_check_shrinks_a_failure_to_a_scenario(lib: Library, tmp_path: Path) -> None:
    def count_is_small(state: dict[str, Any]) -> None:
        assert abs(state["count"]) < 5, f"count is {state['count']}"

    target = tmp_path / "counter-failure.scenario.json"
    with pytest.raises(InvariantFailure) as info:
        check("counter", count_is_small, max_examples=200, steps=10, seed=3, library=lib,
              reproducer=target, differential=DIFFERENTIAL)
    message = str(info.value)
    assert "the invariant failed: count is" in message
    assert str(target) in message and info.value.reproducer == target
    scenario = json.loads(target.read_text())
    # Shrunk: one step, the smallest count that breaks the invariant.
    sends = [s for s in scenario["steps"] if "send" in s]
    assert len(sends) == 1 and sends[0]["send"] in ({"setCount": 5}, {"setCount": -5})
    run_scenario(scenario, lib)  # the reproducer replays (it records what happened)


@pytest.mark.skipif(not DIFFERENTIAL, reason="build/reducerkit-check not built (make)")
def test_the_differential_replay_reports_a_disagreement(lib: Library) -> None:
    with Store("counter", clock="test", record=True, library=lib) as store:
        store.send("increment")
        scenario = store.scenario()
    assert _replay(str(CHECK), lib, scenario) is None
    scenario["steps"][0]["state"]["count"] = 2  # what a buggy host would have seen
    problem = _replay(str(CHECK), lib, scenario)
    assert problem is not None and "$.count: expected 2, actual 1" in problem


def test_fuzz_command(lib: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "invariants.py").write_text(
        "def small(state):\n    assert state['count'] < 3, state['count']\n"
        "def anything(state):\n    return True\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    diff = [] if DIFFERENTIAL else ["--no-differential"]
    out, err = io.StringIO(), io.StringIO()
    status = main(["--lib", lib.path, "fuzz", "counter", "--invariant", "invariants:anything",
                   "--examples", "10", "--seed", "1", *diff], out=out, err=err)
    assert status == 0, err.getvalue()
    assert "the invariant held in 10 random sequences" in out.getvalue()
    out, err = io.StringIO(), io.StringIO()
    status = main(["--lib", lib.path, "fuzz", "counter", "--invariant", "invariants:small",
                   "--examples", "100", "--seed", "1", "--out", "found.scenario.json", *diff],
                  out=out, err=err)
    assert status == 1, out.getvalue() + err.getvalue()
    assert "found.scenario.json" in err.getvalue()
    run_scenario(tmp_path / "found.scenario.json", lib)
    for bad in (["--invariant", "nomodule"], ["--invariant", "missing_module_x:f"],
                ["--invariant", "invariants:nope"]):
        err = io.StringIO()
        assert main(["--lib", lib.path, "fuzz", "counter", *bad], out=io.StringIO(),
                    err=err) == 2, err.getvalue()
    del sys.modules["invariants"]


def test_progress_counts_sequences_not_shrink_runs(lib: Library, tmp_path: Path) -> None:
    """0.2.0 counted every run Hypothesis made, shrinking included: the CLI's bar showed
    72/50 (and 22/20 for a passing run: sequences Hypothesis dropped midway and drew again).
    Now it stops at the sequence that failed first, and a passing run ends at max_examples
    exactly."""
    seen: list[int] = []
    first_failure: list[int] = []

    def small(state: dict[str, Any]) -> None:
        if abs(state["count"]) >= 5:
            if not first_failure:
                first_failure.append(len(seen) + 1)  # this sequence is counted when it ends
            raise AssertionError(f"count is {state['count']}")

    with pytest.raises(InvariantFailure):
        check("counter", small, max_examples=50, steps=10, seed=3, library=lib,
              reproducer=tmp_path / "f.scenario.json", differential=False, progress=seen.append)
    assert first_failure and seen == list(range(1, first_failure[0] + 1)), (seen, first_failure)
    seen.clear()
    check("counter", lambda s: True, max_examples=20, steps=20, seed=1, library=lib,
          differential=False, progress=seen.append)
    assert seen == list(range(1, 21))


def _copy_of_library(lib: Library, tmp_path: Path) -> Library:
    """The library under another path, as a user's own library would be."""
    import shutil

    from reducerkit import load_library
    from reducerkit._native import load

    mine = tmp_path / "mine" / "libmine.so"
    mine.parent.mkdir()
    shutil.copy(lib.path, mine)
    load_library(lib.path)  # the copy must not become the default
    return load(mine)


def test_the_failure_hint_replays_against_the_library_used(
        lib: Library, tmp_path: Path, child_env: dict[str, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """0.2.0's hint said `reducerkit-check FILE` and `python -m reducerkit check FILE`: both
    load the default library, so neither replayed a sequence of a user's own library."""
    import re
    import shlex
    import subprocess

    if DIFFERENTIAL:
        monkeypatch.setenv("REDUCERKIT_CHECK", str(CHECK))
    mine = _copy_of_library(lib, tmp_path)
    target = tmp_path / "found.scenario.json"
    with pytest.raises(InvariantFailure) as info:
        check("counter", lambda s: abs(s["count"]) < 5, max_examples=100, steps=10, seed=3,
              library=mine, reproducer=target, differential=DIFFERENTIAL)
    hint = re.search(r"\(replay it: (.*)\)$", str(info.value))
    assert hint is not None, str(info.value)
    commands = hint.group(1).split(", or ")
    assert len(commands) == (2 if DIFFERENTIAL else 1), commands
    for command in commands:
        argv = shlex.split(command)
        assert argv[argv.index("--lib") + 1] == mine.path, command
        if argv[:3] == ["python", "-m", "reducerkit"]:
            argv[0] = sys.executable
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                              env=dict(child_env, REDUCERKIT_LIB=lib.path))
        assert done.returncode == 0 and "1 passed, 0 failed" in done.stdout, (command, done)


def test_the_runner_inside_the_package_is_found(lib: Library, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A wheel carries reducerkit-check beside its library: fuzzing a library elsewhere (a
    user's own) finds that copy, with nothing on PATH and no $REDUCERKIT_CHECK."""
    from reducerkit.testing import fuzz

    package = tmp_path / "package"
    package.mkdir()
    runner = package / "reducerkit-check"
    runner.write_text("#!/bin/sh\n")
    runner.chmod(0o755)
    monkeypatch.setattr(fuzz, "PACKAGE_DIR", package)
    monkeypatch.delenv("REDUCERKIT_CHECK", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    mine = _copy_of_library(lib, tmp_path)
    assert fuzz.find_checker(mine) == str(runner)
    runner.unlink()
    assert fuzz.find_checker(mine) is None
    with pytest.raises(ReducerKitError, match="pass differential=False"):
        check("counter", lambda s: True, max_examples=1, library=mine)
    err = io.StringIO()
    assert main(["fuzz", "counter", "--lib", mine.path, "--invariant", "json:loads"],
                out=io.StringIO(), err=err) == 2
    assert "pass --no-differential" in err.getvalue(), err.getvalue()
    assert "differential=False" not in err.getvalue()
