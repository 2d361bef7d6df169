"""The cross-language scenarios of Tests/scenarios/, also run by the Swift and C tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SCENARIOS

from reducerkit import Library
from reducerkit.testing import load_scenario, run_scenario, scenario_files

FILES = scenario_files(SCENARIOS) if SCENARIOS.is_dir() else []


def test_there_are_scenarios() -> None:
    if not SCENARIOS.is_dir():
        pytest.skip(f"{SCENARIOS} not found (not a checkout)")
    assert len(FILES) >= 3
    features = {load_scenario(f)["feature"] for f in FILES}
    assert features >= {"counter", "todos", "search"}


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_scenario(lib: Library, path: Path) -> None:
    run_scenario(path, library=lib)


def test_a_failing_scenario_names_the_step(lib: Library) -> None:
    scenario = {"name": "wrong", "feature": "counter", "clock": "test", "initial_state": None,
                "steps": [{"send": "increment", "state": {"count": 1, "fact": None,
                                                          "isTimerOn": False}},
                          {"send": "increment", "state": {"count": 3, "fact": None,
                                                          "isTimerOn": False}}]}
    with pytest.raises(AssertionError) as info:
        run_scenario(scenario, library=lib)
    message = str(info.value)
    assert "scenario 'wrong', step 2" in message
    assert "$.count: expected 3, actual 2" in message


def test_a_step_without_state_expects_no_change(lib: Library) -> None:
    scenario = {"name": "no state", "feature": "counter",
                "steps": [{"send": "increment"}]}
    with pytest.raises(AssertionError, match=r"\$\.count: expected 0, actual 1"):
        run_scenario(scenario, library=lib)


def test_malformed_step(lib: Library) -> None:
    with pytest.raises(ValueError, match="exactly one of"):
        run_scenario({"name": "bad", "feature": "counter",
                      "steps": [{"send": "increment", "receive": "increment"}]}, library=lib)
