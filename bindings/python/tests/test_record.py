"""Recording a session as a scenario: Store(record=True).scenario() and python -m reducerkit
record; the scenarios replay in run_scenario and reducerkit-check."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from ctypes import byref, c_void_p
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, SCENARIOS, cap

import reducerkit
from reducerkit import Library, MisuseError, Store
from reducerkit.cli import main
from reducerkit.testing import ScenarioFailure, run_scenario

CHECK = REPO / "build" / "reducerkit-check"


def _replays(lib: Library, scenario: dict[str, Any], tmp_path: Path) -> None:
    """The scenario passes run_scenario, and reducerkit-check when it is built."""
    run_scenario(scenario, lib)
    if CHECK.exists():
        path = tmp_path / "recorded.scenario.json"
        path.write_text(json.dumps(scenario))
        done = subprocess.run([str(CHECK), "--lib", lib.path, "--timeout-ms",
                               str(round(cap(10) * 1000)), str(path)], capture_output=True,
                              text=True, timeout=cap(60))
        assert done.returncode == 0, done.stdout + done.stderr


def test_a_recorded_session_replays(lib: Library, tmp_path: Path) -> None:
    with Store("counter", clock="test", provide=["numberFact"], record=True,
               library=lib) as store:
        store.send("increment")
        with pytest.raises(reducerkit.ActionError):
            store.send("incremnt")
        store.send("factButtonTapped")
        request = store.wait_request(cap(10))
        with pytest.raises(reducerkit.ResponseError):
            request.resolve(5)
        request.resolve("a fact")
        store.wait_idle(cap(10))
        store.send("toggleTimer")
        store.advance(seconds=2.5)
        store.send("toggleTimer")
        scenario = store.scenario("recorded")
    steps = scenario["steps"]
    assert scenario["options"] == {"clock": "test", "provide": ["numberFact"]}
    assert steps[0] == {"send": "increment", "state": {"count": 1, "fact": None,
                                                       "isTimerOn": False}}
    assert steps[1]["error"]["status"] == "RK_ERR_ACTION"
    assert steps[2] == {"send": "factButtonTapped"}
    assert steps[3] == {"request": {"id": 1, "name": "numberFact", "payload": 1}}
    assert steps[4]["error"]["status"] == "RK_ERR_RESPONSE"
    assert steps[5] == {"resolve": 1, "response": "a fact"}
    assert steps[6]["receive"] == {"factResponse": "a fact"}
    assert {"advance_ms": 2500} in steps
    assert [s.get("receive") for s in steps].count("timerTick") == 2
    assert steps[-1] == {"finish": True}
    assert scenario["final_state"] == {"count": 3, "fact": "a fact", "isTimerOn": False}
    _replays(lib, scenario, tmp_path)


def test_providers_answers_and_cancellations_are_recorded(lib: Library, tmp_path: Path) -> None:
    with Store("search", clock="test", providers={"search": lambda q: [q + "!"]}, record=True,
               library=lib) as store:
        store.send({"queryChanged": "sw"})
        store.advance(seconds=0.3)
        store.send({"queryChanged": "swi"})
        store.send({"queryChanged": ""})
        store.advance(seconds=1)
        scenario = store.scenario()
    assert {"resolve": 1, "response": ["sw!"]} in scenario["steps"]
    _replays(lib, scenario, tmp_path)
    with Store("search", clock="test", provide=["search"], record=True, library=lib) as store:
        store.send({"queryChanged": "sw"})
        store.advance(seconds=0.3)
        store.send({"queryChanged": "swi"})
        store.advance(seconds=0.3)
        store.pending_requests()[0].resolve(["swim"])
        store.wait_idle(cap(10))
        scenario = store.scenario()
    assert {"cancelled": 1} in scenario["steps"]
    _replays(lib, scenario, tmp_path)


def test_a_running_timer_leaves_out_finish(lib: Library, tmp_path: Path) -> None:
    with Store("counter", clock="test", record=True, library=lib) as store:
        store.send("toggleTimer")
        store.advance(seconds=1)
        scenario = store.scenario()
    assert {"finish": True} not in scenario["steps"]
    _replays(lib, scenario, tmp_path)


def test_a_wrong_replay_fails(lib: Library) -> None:
    with Store("counter", clock="test", record=True, library=lib) as store:
        store.send("increment")
        scenario = store.scenario()
    scenario["steps"][0]["state"]["count"] = 5
    with pytest.raises(ScenarioFailure, match=r"\$\.count: expected 5, actual 1"):
        run_scenario(scenario, lib)


def test_take_actions_still_works_beside_recording(lib: Library) -> None:
    with Store("counter", clock="test", record=True, record_actions=True, library=lib) as store:
        store.send("increment")
        assert [r["action"] for r in store.take_actions()] == ["increment"]
        store.send("increment")
        assert store.scenario()["final_state"]["count"] == 2
        assert [r["action"] for r in store.take_actions()] == ["increment"]
    with Store("counter", clock="test", record=True, library=lib) as store:
        with pytest.raises(MisuseError, match="record_actions=True"):
            store.take_actions()


def test_scenario_needs_record(lib: Library) -> None:
    with Store("counter", library=lib) as store:
        with pytest.raises(MisuseError, match="record=True"):
            store.scenario()


def test_a_store_c_created_with_record_is_read_through_from_handle(lib: Library,
                                                                    tmp_path: Path) -> None:
    # The library records (the create option "record": true), so a store a C program owns
    # gives the same document to Python.
    for options, recorded in ((b'{"clock": "test", "record": true}', True),
                              (b'{"clock": "test"}', False)):
        handle = c_void_p()
        assert lib.rk_store_create(b"counter", options, byref(handle)) == 0
        try:
            store = Store.from_handle(handle, library=lib)
            store.send("increment")
            if not recorded:
                with pytest.raises(MisuseError, match='"record": true'):
                    store.scenario()
                continue
            scenario = store.scenario("from C")
            assert scenario["name"] == "from C"
            assert scenario["options"] == {"clock": "test"}
            assert scenario["steps"] == [
                {"send": "increment", "state": {"count": 1, "fact": None, "isTimerOn": False}},
                {"finish": True}]
            _replays(lib, scenario, tmp_path)
            store.close()
        finally:
            lib.rk_store_destroy(handle)


def test_a_name_the_runners_would_refuse_is_refused_when_given(lib: Library) -> None:
    """A name with a line break (it could forge a runner's result line), a format character
    or over 512 bytes: the format's own parser refuses it when the scenario is taken, not the
    runner later; the store keeps recording."""
    with Store("counter", clock="test", record=True, library=lib) as store:
        store.send("increment")
        for bad, why in (("a\nok b", "control or format"), ("\u202e", "control or format"),
                         ("", "non-empty"), ("x" * 513, "at most 512 bytes")):
            with pytest.raises(ValueError, match=why):
                store.scenario(bad)
        store.send("increment")
        assert store.scenario("two sends")["name"] == "two sends"
        assert store.scenario("x" * 512)["name"] == "x" * 512


# ---- python -m reducerkit record --------------------------------------------------------------

def _record(lib: Library, stdin: str, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        status = main(["--lib", lib.path, "record", *args], out=out, err=err)
    finally:
        sys.stdin = old
    return status, out.getvalue(), err.getvalue()


def test_record_reproduces_the_committed_recorded_scenario(lib: Library) -> None:
    session = (SCENARIOS / "counter_recorded.session.jsonl").read_text()
    committed = json.loads((SCENARIOS / "counter_recorded.scenario.json").read_text())
    status, out, err = _record(lib, session, "counter", "--provide", "numberFact",
                               "--name", committed["name"], "--wait", str(cap(10)))
    assert status == 0, err
    assert json.loads(out) == committed
    assert "<stdin>:3: recorded as an error step" in err
    run_scenario(committed, lib)


def test_record_errors_name_the_line(lib: Library) -> None:
    status, _, err = _record(lib, '"increment"\n{not json\n', "counter")
    assert status == 1 and "<stdin>:2: invalid JSON" in err
    status, _, err = _record(lib, '{"fail": 1}\n', "counter")
    assert status == 1 and 'needs a "message"' in err
    status, _, err = _record(lib, "", "countr")
    assert status == 1 and "unknown feature" in err
    status, out, err = _record(lib, '"increment"\n', "counter", "--name", "a\x1b[2Jb")
    assert status == 1 and out == "" and err.startswith("--name: ") and "control or format" in err, err


def test_record_sends_each_line_as_written(lib: Library) -> None:
    """A key given twice is the library's RK_ERR_JSON, recorded as an error step, as `run`
    reports it (Python's reading of the line kept the last key and recorded a setCount 2)."""
    status, out, err = _record(lib, '"increment"\n{"setCount": 1, "setCount": 2}\n', "counter")
    assert status == 0, err
    assert '<stdin>:2: recorded as an error step: duplicate key "setCount"' in err, err
    scenario = json.loads(out)
    states = [step["state"]["count"] for step in scenario["steps"] if "state" in step]
    assert states == [1], scenario
    run_scenario(scenario, lib)


def test_record_hands_a_response_to_the_library_as_written(lib: Library) -> None:
    """The response of a `resolve` line is the line's own text: a key given twice inside it is
    the library's "duplicate key" (Python's reading kept the last one); the same member given
    twice at the top is refused."""
    session = '"factButtonTapped"\n{"resolve": 1, "response": {"x": 1, "x": 2}}\n'
    status, _, err = _record(lib, session, "counter", "--provide", "numberFact")
    assert status == 0, err
    assert '<stdin>:2: recorded as an error step: ' in err and 'duplicate key "x"' in err, err
    session = '"factButtonTapped"\n{"resolve": 1, "response": "a", "response": "b"}\n'
    status, _, err = _record(lib, session, "counter", "--provide", "numberFact")
    assert status == 1 and "<stdin>:2: " in err and "a member given twice" in err, err
    session = '"factButtonTapped"\n { "response" : "a, {fact}\\"" , "resolve":1 } \n'
    status, out, err = _record(lib, session, "counter", "--provide", "numberFact")
    assert status == 0, err
    assert {"resolve": 1, "response": 'a, {fact}"'} in json.loads(out)["steps"]


def test_member_as_written_finds_where_each_member_ends() -> None:
    from reducerkit.cli._common import member_as_written
    assert member_as_written('{"a": [1, {"b": "}"}], "r": {"k": 1, "k": 2}}', "r") == b'{"k": 1, "k": 2}'
    assert member_as_written('  {"r":"\\u00e9 , }"}  ', "r") == b'"\\u00e9 , }"'
    assert member_as_written('{"r": 1e400}', "r") == b"1e400"
    for bad in ('{"r": 1, "r": 2}', '[1]', '{"r" 1}', '{"r": 1,}', '{"r": 1', '{}', '', '{"a": 1}x',
                '{' * 100_000):
        assert member_as_written(bad, "r") is None, bad

