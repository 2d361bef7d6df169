"""reducerkit.testing.TestStore: exhaustive assertions with readable failures."""

from __future__ import annotations

import re

import pytest
from conftest import cap

from reducerkit import ActionError, Library
from reducerkit.testing import TestStore

FACT_1 = "1 is the multiplicative identity."


def test_the_issue_example(lib: Library) -> None:
    ts = TestStore("search", clock="test")
    ts.send({"queryChanged": "sw"}, query="sw")
    ts.advance(seconds=0.3)
    ts.receive({"searchResponse": ["swift", "swim"]}, results=["swift", "swim"])
    ts.finish()
    ts.close()


def test_three_ways_to_give_changes(lib: Library) -> None:
    with TestStore("counter") as ts:
        ts.send("increment", count=1)
        ts.send("increment", {"count": 2})
        ts.send("increment", lambda s: s.update(count=s["count"] + 1))
        ts.send({"setCount": 10}, lambda s: {**s, "count": 10})  # or return the new state
        ts.send("decrement", {"count": 8}, count=9)  # keywords apply after the dict
        assert ts.state["count"] == 9


def test_no_change_needs_no_assertion(lib: Library) -> None:
    with TestStore("counter", initial_state={"count": 5}) as ts:
        ts.send({"setCount": 5})


def test_wrong_expectation_shows_a_diff(lib: Library) -> None:
    with TestStore("counter") as ts:
        with pytest.raises(AssertionError) as info:
            ts.send("increment", count=2)
    message = str(info.value)
    assert 'sending "increment"' in message
    assert "$.count: expected 2, actual 1" in message
    assert '-  "count": 2,' in message and '+  "count": 1,' in message
    assert "--- expected" in message and "+++ actual" in message


def test_unasserted_change_fails(lib: Library) -> None:
    with TestStore("counter") as ts:
        with pytest.raises(AssertionError, match=r"\$\.count: expected 0, actual 1"):
            ts.send("increment")


def test_effect_action_must_be_received(lib: Library) -> None:
    ts = TestStore("counter", initial_state={"count": 1})
    ts.send("factButtonTapped")
    ts.receive({"factResponse": FACT_1}, fact=FACT_1)
    ts.finish()
    ts.close()


def test_finish_fails_for_unreceived_actions(lib: Library) -> None:
    ts = TestStore("counter", initial_state={"count": 1})
    ts.send("factButtonTapped")
    with pytest.raises(AssertionError) as info:
        ts.finish()
    assert "1 received action(s) were not asserted" in str(info.value)
    assert FACT_1 in str(info.value)
    ts.close()


def test_send_fails_while_received_actions_are_pending(lib: Library) -> None:
    ts = TestStore("counter", initial_state={"count": 1})
    ts.send("factButtonTapped")
    ts.store.wait_idle(cap(10))
    with pytest.raises(AssertionError, match="must receive 1 action"):
        ts.send("increment", count=2)
    ts.close()


def test_unexpected_received_action(lib: Library) -> None:
    ts = TestStore("counter", initial_state={"count": 1})
    ts.send("factButtonTapped")
    with pytest.raises(AssertionError) as info:
        ts.receive({"factResponse": "something else"})
    message = str(info.value)
    assert "received an unexpected action" in message
    assert "something else" in message and FACT_1 in message
    ts.receive({"factResponse": FACT_1}, fact=FACT_1)  # still there to receive
    ts.close()


def test_receive_with_nothing_sent(lib: Library) -> None:
    ts = TestStore("counter", timeout=0.1)
    ts.send("toggleTimer", isTimerOn=True)
    with pytest.raises(AssertionError) as info:
        ts.receive("timerTick", count=1)
    assert "no action was received" in str(info.value)
    assert "advance the test clock" in str(info.value)
    ts.close()


def test_timer_with_the_test_clock(lib: Library) -> None:
    with TestStore("counter") as ts:
        ts.send("toggleTimer", isTimerOn=True)
        ts.advance(seconds=1)
        ts.receive("timerTick", count=1)
        ts.advance(seconds=2)
        ts.receive("timerTick", count=2)
        ts.receive({"timerTick": {}}, count=3)  # any accepted form of the action
        ts.send("toggleTimer", isTimerOn=False)
        ts.advance(seconds=10)


def test_finish_fails_while_a_timer_runs(lib: Library) -> None:
    ts = TestStore("counter")
    ts.send("toggleTimer", isTimerOn=True)
    with pytest.raises(AssertionError, match=r"1 effect\(s\) still running"):
        ts.finish()
    ts.close()


def test_context_manager_finishes(lib: Library) -> None:
    with pytest.raises(AssertionError, match="still running"):
        with TestStore("counter") as ts:
            ts.send("toggleTimer", isTimerOn=True)
    assert ts.store.closed


def test_invalid_action_raises_the_library_error(lib: Library) -> None:
    with TestStore("counter") as ts:
        with pytest.raises(ActionError, match="expected one of"):
            ts.send("nope")


def test_todos(lib: Library) -> None:
    with TestStore("todos") as ts:
        def add(title: str, id: int):  # noqa: A002, ANN202
            def change(s: dict) -> None:
                s["todos"].append({"id": id, "title": title, "isComplete": False})
                s["nextID"] = id + 1
            return change
        ts.send({"addTodo": {"title": "Milk"}}, add("Milk", 1))
        ts.send({"addTodo": {"title": "Eggs"}}, add("Eggs", 2))
        ts.send({"toggle": {"id": 1}}, lambda s: s["todos"][0].update(isComplete=True))
        ts.send({"setFilter": "completed"}, filter="completed")
        ts.send("clearCompleted", todos=[{"id": 2, "title": "Eggs", "isComplete": False}])
        with pytest.raises(AssertionError) as info:
            ts.send({"delete": {"id": 2}}, todos=[{"id": 2, "title": "Eggs",
                                                    "isComplete": False}])
        # The summary is read off the JSON Patch from expected to actual: the element removed.
        assert "$.todos[0]: expected" in str(info.value)


def test_search_debounce_only_searches_once(lib: Library) -> None:
    with TestStore("search") as ts:
        ts.send({"queryChanged": "s"}, query="s")
        ts.advance(seconds=0.2)
        ts.send({"queryChanged": "sw"}, query="sw")
        ts.advance(seconds=0.299)
        ts.advance(seconds=0.001)
        ts.receive({"searchResponse": ["swift", "swim"]}, results=["swift", "swim"])
        ts.send({"queryChanged": ""}, query="", results=[])
        ts.advance(seconds=1)


def test_non_exhaustive(lib: Library) -> None:
    with TestStore("counter", initial_state={"count": 1}, exhaustive=False) as ts:
        ts.send("factButtonTapped")            # fact changes: not asserted, fine
        ts.send("increment", count=2)          # a received action is skipped, not an error
        ts.send("toggleTimer")
        ts.advance(seconds=3)
        ts.receive("timerTick")                # matched by action; state not asserted
        ts.receive("timerTick", count=4)       # the third tick stays unreceived: fine
        with pytest.raises(AssertionError, match="does not match"):
            ts.send("increment", count=99)
    # finish() lets the running timer through; the store is closed.


def test_non_exhaustive_relative_change(lib: Library) -> None:
    with TestStore("counter", exhaustive=False) as ts:
        ts.send("increment", lambda s: s.update(count=s["count"] + 1))


def test_skip_received_actions(lib: Library) -> None:
    with TestStore("counter") as ts:
        ts.send("toggleTimer", isTimerOn=True)
        ts.advance(seconds=3)
        assert ts.received_actions == ["timerTick"] * 3
        ts.skip_received_actions()
        assert ts.state["count"] == 3
        ts.send("toggleTimer", isTimerOn=False)


def test_failure_points_at_the_test_line(lib: Library, pytester: pytest.Pytester,
                                         child_env: dict[str, str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", child_env["PYTHONPATH"])
    pytester.makepyfile(test_x=f"""
        import reducerkit
        from reducerkit.testing import TestStore
        reducerkit.load_library({lib.path!r})
        def test_it():
            ts = TestStore("counter")
            ts.send("increment", count=5)
    """)
    result = pytester.runpytest_subprocess("-q")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert re.search(r'ts\.send\("increment", count=5\)', out)
    assert "$.count: expected 5, actual 1" in out
