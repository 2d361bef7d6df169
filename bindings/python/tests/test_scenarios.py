"""The cross-language scenarios of Tests/scenarios/ (also run by the Swift runner and
reducerkit-check), the format's JSON Schema, ``python -m reducerkit check`` and the pytest
plugin."""

from __future__ import annotations

import importlib.metadata
import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, SCENARIOS, cap

from reducerkit import Library
from reducerkit.cli import main
from reducerkit.testing import (
    ScenarioError,
    ScenarioFailure,
    load_scenario,
    run_scenario,
    scenario_files,
    validate_scenario,
)

FILES = scenario_files(SCENARIOS) if SCENARIOS.is_dir() else []
WRONG = sorted((SCENARIOS / "wrong").glob("*.wrong.json")) if SCENARIOS.is_dir() else []
SCHEMA = SCENARIOS / "scenario.schema.json"
CHECK = REPO / "build" / "reducerkit-check"
# How long the runners' steps wait for running effects (they return once effects are idle).
TIMEOUT_MS = ["--timeout-ms", str(round(cap(10) * 1000))]


def test_there_are_scenarios() -> None:
    if not SCENARIOS.is_dir():
        pytest.skip(f"{SCENARIOS} not found (not a checkout)")
    assert len(FILES) >= 3
    assert all(f.name.endswith(".scenario.json") for f in FILES)
    features = {load_scenario(f)["feature"] for f in FILES}
    assert features >= {"counter", "todos", "search"}
    assert len(WRONG) >= 10


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_scenario(lib: Library, path: Path) -> None:
    run_scenario(path, lib)


@pytest.mark.parametrize("path", WRONG, ids=[f.stem for f in WRONG])
def test_a_wrong_scenario_fails(lib: Library, path: Path) -> None:
    with pytest.raises((ScenarioFailure, ScenarioError)):
        run_scenario(path, lib)


# ---- the JSON Schema of the format agrees with the runners ----------------------------------

def _validator() -> Any:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_the_schema_accepts_every_scenario(path: Path) -> None:
    errors = list(_validator().iter_errors(json.loads(path.read_text())))
    assert not errors, [e.message for e in errors]


MALFORMED = [
    {"name": "x", "feature": "counter", "steps": [{"send": "increment", "receive": "increment"}]},
    {"name": "x", "feature": "counter", "clock": "test", "steps": []},
    {"name": "x", "feature": "counter", "options": {"clok": "test"}, "steps": []},
    {"name": "x", "feature": "counter", "options": {"clock": "fast"}, "steps": []},
    {"name": "x", "feature": "counter", "options": {"initial_state": 5}, "steps": []},
    {"name": "x", "feature": "counter", "options": {"provide": "numberFact"}, "steps": []},
    {"name": "x", "feature": "counter", "exhaustive": "no", "steps": []},
    {"name": "x", "feature": "counter"},
    {"feature": "counter", "steps": []},
    {"name": "x", "feature": "counter", "steps": [{"advance_ms": -1}]},
    {"name": "x", "feature": "counter", "steps": [{"advance_ms": 1.5}]},
    {"name": "x", "feature": "counter", "steps": [{"resolve": 1}]},
    {"name": "x", "feature": "counter", "steps": [{"resolve": 0, "response": 1}]},
    {"name": "x", "feature": "counter", "steps": [{"fail": 1}]},
    {"name": "x", "feature": "counter", "steps": [{"request": {"name": "numberFact"}}]},
    {"name": "x", "feature": "counter", "steps": [{"request": {"name": "n", "payload": 1, "x": 1}}]},
    {"name": "x", "feature": "counter", "steps": [{"finish": False}]},
    {"name": "x", "feature": "counter", "steps": [{"receive": "x", "error": {"status": "RK_ERR_ACTION"}}]},
    {"name": "x", "feature": "counter", "steps": [{"send": "x", "error": {"status": "ACTION"}}]},
    {"name": "x", "feature": "counter", "steps": [{"send": "x", "error": {"message": "m"}}]},
    {"name": "x", "feature": "counter", "steps": [{"send": "x", "state": {}, "error": {"status": "RK_ERR_ACTION"}}]},
    {"name": "x", "feature": "counter", "steps": [{"advance_ms": 1, "state": {}}]},
    {"name": "x", "feature": "counter", "steps": [{"cancelled": "1"}]},
]


@pytest.mark.parametrize("scenario", MALFORMED, ids=range(len(MALFORMED)))
def test_the_schema_and_the_runners_reject_the_same_malformed_scenarios(
        scenario: dict[str, Any], tmp_path: Path) -> None:
    assert list(_validator().iter_errors(scenario)), "the schema accepts it"
    with pytest.raises(ScenarioError):
        validate_scenario(scenario)
    if CHECK.exists():  # reducerkit-check says the same
        path = tmp_path / "bad.scenario.json"
        path.write_text(json.dumps(scenario))
        done = subprocess.run([str(CHECK), *TIMEOUT_MS, str(path)], capture_output=True,
                              text=True, timeout=cap(60))
        assert done.returncode == 1, done.stdout + done.stderr
        assert "0 passed, 1 failed" in done.stdout


def test_wrong_scenarios_are_valid_except_the_malformed_ones() -> None:
    validator = _validator()
    for path in WRONG:
        errors = list(validator.iter_errors(json.loads(path.read_text())))
        assert bool(errors) == (path.stem.split(".")[0] in ("malformed_step", "old_format")), path


# ---- failures say where and what ------------------------------------------------------------

def test_a_failing_scenario_names_the_step(lib: Library) -> None:
    scenario = {"name": "wrong", "feature": "counter",
                "steps": [{"send": "increment", "state": {"count": 1, "fact": None,
                                                          "isTimerOn": False}},
                          {"send": "increment", "state": {"count": 3, "fact": None,
                                                          "isTimerOn": False}}]}
    with pytest.raises(ScenarioFailure) as info:
        run_scenario(scenario, lib)
    assert info.value.step == 2
    message = str(info.value)
    assert "scenario 'wrong', step 2" in message
    assert "$.count: expected 3, actual 2" in message


def test_a_step_without_state_expects_no_change(lib: Library) -> None:
    scenario = {"name": "no state", "feature": "counter", "steps": [{"send": "increment"}]}
    with pytest.raises(AssertionError, match=r"\$\.count: expected 0, actual 1"):
        run_scenario(scenario, lib)


def test_a_null_member_equals_an_absent_one(lib: Library) -> None:
    run_scenario({"name": "optional", "feature": "counter",
                  "steps": [{"send": "increment", "state": {"count": 1, "isTimerOn": False}}],
                  "final_state": {"count": 1, "isTimerOn": False}}, lib)


def test_malformed_step(lib: Library) -> None:
    with pytest.raises(ScenarioError, match=r"\$\.steps\[0\].*exactly one of"):
        run_scenario({"name": "bad", "feature": "counter",
                      "steps": [{"send": "increment", "receive": "increment"}]}, lib)


# ---- python -m reducerkit check: the same output and exit status as reducerkit-check ------

def _check(lib: Library, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(["--lib", lib.path, "check", *TIMEOUT_MS, *args], out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def test_check_passes_the_scenarios(lib: Library) -> None:
    status, out, _ = _check(lib, str(SCENARIOS))
    assert status == 0, out
    assert out.splitlines()[-1] == f"{len(FILES)} passed, 0 failed"
    assert out.startswith("ok     ")


@pytest.mark.skipif(not CHECK.exists(), reason="build/reducerkit-check not built (make)")
def test_check_prints_what_reducerkit_check_prints(lib: Library) -> None:
    paths = [os.path.relpath(f, REPO) for f in FILES]
    c = subprocess.run([str(CHECK), "--lib", lib.path, *TIMEOUT_MS, *paths], capture_output=True,
                       text=True, cwd=REPO, timeout=cap(120))
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        status, out, _ = _check(lib, *paths)
    finally:
        os.chdir(cwd)
    assert (status, out) == (c.returncode, c.stdout)
    # On failures: the same lines per scenario, the same summary and status.
    wrong = [os.path.relpath(f, REPO) for f in WRONG]
    c = subprocess.run([str(CHECK), "--lib", lib.path, *TIMEOUT_MS, *wrong], capture_output=True,
                       text=True, cwd=REPO, timeout=cap(120))
    os.chdir(REPO)
    try:
        status, out, _ = _check(lib, *wrong)
    finally:
        os.chdir(cwd)
    assert status == c.returncode == 1
    heads = [line for line in out.splitlines() if not line.startswith(" ")]
    c_heads = [line for line in c.stdout.splitlines() if not line.startswith(" ")]
    assert heads == c_heads
    assert heads[-1] == f"0 passed, {len(WRONG)} failed"


def test_check_usage_errors(lib: Library, tmp_path: Path) -> None:
    status, _, err = _check(lib, str(tmp_path / "missing.scenario.json"))
    assert status == 2 and "no such file" in err
    status, _, err = _check(lib, str(tmp_path))
    assert status == 2 and "holds no *.scenario.json" in err


def test_run_given_a_scenario_says_use_check(lib: Library) -> None:
    out, err = io.StringIO(), io.StringIO()
    status = main(["--lib", lib.path, "run", "counter", str(FILES[0])], out=out, err=err)
    assert status == 1
    assert "this is a scenario: use `check`" in err.getvalue()
    assert "invalid JSON" not in err.getvalue()


# ---- the pytest plugin ---------------------------------------------------------------------

def _plugin_args() -> list[str]:
    """-p for the plugin when the package is not installed (its entry point then is not)."""
    installed = any(ep.value == "pytest_reducerkit"
                    for ep in importlib.metadata.entry_points(group="pytest11"))
    return [] if installed else ["-p", "reducerkit.testing.plugin"]


def test_the_pytest_plugin_collects_scenario_files(pytester: pytest.Pytester,
                                                   lib: Library) -> None:
    good = json.loads(FILES[0].read_text())
    pytester.makefile(".scenario.json", good_one=json.dumps(good))
    wrong = json.loads((SCENARIOS / "wrong" / "wrong_state.wrong.json").read_text())
    sub = pytester.mkdir("sub")
    (sub / "bad_one.scenario.json").write_text(json.dumps(wrong))
    (sub / "ignored.json").write_text("{}")
    result = pytester.runpytest("--reducerkit-lib", lib.path, "--reducerkit-timeout",
                                str(cap(10)), *_plugin_args(), "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*good_one.scenario.json::good_one PASSED*",
                                 "*bad_one.scenario.json::bad_one FAILED*",
                                 "*step 1*", "*$.count: expected 2, actual 1*"])
