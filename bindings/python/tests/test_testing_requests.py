"""TestStore and the scenario runner with host endpoints: requests and cancellations are
asserted exhaustively, and every way of getting them wrong fails."""

from __future__ import annotations

import pytest

from reducerkit import Library, Request
from reducerkit.testing import TestStore, run_scenario

FACT_0 = "0 is a fact"


def _fact_requested(**kw: object) -> TestStore:
    ts = TestStore("counter", provide=["numberFact"], **kw)  # type: ignore[arg-type]
    ts.send("factButtonTapped")
    return ts


# ---- the happy paths -----------------------------------------------------------------------

def test_the_issue_example(lib: Library) -> None:
    with TestStore("counter", provide=["numberFact"]) as ts:
        ts.send("factButtonTapped")
        req = ts.receive_request("numberFact", 0)
        assert isinstance(req, Request) and req.id == 1
        req.resolve(FACT_0)
        ts.receive({"factResponse": FACT_0}, fact=FACT_0)
    # leaving the block ran finish(): nothing left unasserted


def test_a_failed_request(lib: Library) -> None:
    with TestStore("counter", initial_state={"count": 7}, provide=["numberFact"]) as ts:
        ts.send("factButtonTapped")
        ts.receive_request("numberFact", 7).fail("offline")
        ts.receive({"factResponse": "Could not load a fact about 7: offline"},
                   fact="Could not load a fact about 7: offline")


def test_a_cancellation_is_received(lib: Library) -> None:
    with TestStore("search", provide=["search"]) as ts:
        ts.send({"queryChanged": "sw"}, query="sw")
        ts.advance(milliseconds=300)
        first = ts.receive_request("search", "sw")
        ts.send({"queryChanged": "swi"}, query="swi")
        ts.receive_cancellation(first)
        assert first.cancelled
        ts.advance(milliseconds=300)
        second = ts.receive_request("search", "swi")
        second.resolve(["swift"])
        ts.receive({"searchResponse": ["swift"]}, results=["swift"])
        ts.send({"queryChanged": "p"}, query="p")
        ts.advance(milliseconds=300)
        third = ts.receive_request("search", "p")
        ts.send({"queryChanged": ""}, query="", results=[])
        ts.receive_cancellation(third.id)  # by id too


def test_receive_request_waits_for_a_running_effect(lib: Library) -> None:
    """On the live clock, search calls its endpoint 300 ms after the query changed."""
    with TestStore("search", clock="live", provide=["search"]) as ts:
        ts.send({"queryChanged": "sw"}, query="sw")
        ts.receive_request("search", "sw").resolve([])
        ts.receive({"searchResponse": []})


def test_host_events_lists_what_is_not_asserted(lib: Library) -> None:
    ts = _fact_requested()
    try:
        ((kind, request),) = ts.host_events
        assert kind == "request" and (request.name, request.payload) == ("numberFact", 0)
        ts.receive_request("numberFact", 0).resolve(FACT_0)
        ts.receive({"factResponse": FACT_0}, fact=FACT_0)
        assert ts.host_events == []
        ts.finish()
    finally:
        ts.close()


def test_not_exhaustive_skips_unasserted_events(lib: Library) -> None:
    with TestStore("search", provide=["search"], exhaustive=False) as ts:
        ts.send({"queryChanged": "sw"})
        ts.advance(milliseconds=300)
        ts.send({"queryChanged": "swi"})  # request 1 and its cancellation: not asserted
        ts.advance(milliseconds=300)
        ts.receive_request("search", "swi").resolve(["swift"])
        ts.receive({"searchResponse": ["swift"]}, results=["swift"])


# ---- every failure mode fails --------------------------------------------------------------

def test_wrong_payload_fails_with_a_diff(lib: Library) -> None:
    ts = _fact_requested()
    try:
        with pytest.raises(AssertionError) as info:
            ts.receive_request("numberFact", 1)
        message = str(info.value)
        assert "the next request is not the expected one" in message
        assert "$.payload: expected 1, actual 0" in message
        assert '-  "payload": 1' in message and '+  "payload": 0' in message
        assert "numberFact(0) [request 1]" in message  # the events not asserted yet
    finally:
        ts.close()


def test_wrong_name_fails(lib: Library) -> None:
    ts = _fact_requested()
    try:
        with pytest.raises(AssertionError, match=r'\$\.name: expected "search", actual "numberFact"'):
            ts.receive_request("search", 0)
    finally:
        ts.close()


def test_no_request_fails(lib: Library) -> None:
    with TestStore("counter", provide=["numberFact"], timeout=0.2) as ts:
        with pytest.raises(AssertionError, match="no request event within 0.2 s"):
            ts.receive_request("numberFact", 0)


def test_a_cancellation_where_a_request_is_expected_fails(lib: Library) -> None:
    ts = TestStore("search", provide=["search"])
    try:
        ts.send({"queryChanged": "sw"}, query="sw")
        ts.advance(milliseconds=300)
        ts.receive_request("search", "sw")
        ts.send({"queryChanged": "swi"}, query="swi")
        with pytest.raises(AssertionError, match="the next host event is the cancellation "
                                                 "of request 1"):
            ts.receive_request("search", "swi")
    finally:
        ts.close()


def test_a_request_where_a_cancellation_is_expected_fails(lib: Library) -> None:
    ts = _fact_requested()
    try:
        with pytest.raises(AssertionError, match=r"expected the cancellation of request 1, but "
                                                 r"the next host event is the request "
                                                 r"numberFact\(0\)"):
            ts.receive_cancellation(1)
    finally:
        ts.close()


def test_the_cancellation_of_another_request_fails(lib: Library) -> None:
    ts = TestStore("search", provide=["search"])
    try:
        ts.send({"queryChanged": "sw"}, query="sw")
        ts.advance(milliseconds=300)
        ts.receive_request("search", "sw")
        ts.send({"queryChanged": "swi"}, query="swi")
        with pytest.raises(AssertionError, match="expected the cancellation of request 2"):
            ts.receive_cancellation(2)
    finally:
        ts.close()


def test_no_cancellation_fails(lib: Library) -> None:
    ts = _fact_requested(timeout=0.2)
    try:
        ts.receive_request("numberFact", 0)
        with pytest.raises(AssertionError, match="expected the cancellation of request 1, "
                                                 "but the host got no event"):
            ts.receive_cancellation(1)
    finally:
        ts.close()


def test_finish_fails_on_an_unasserted_request(lib: Library) -> None:
    ts = _fact_requested()
    try:
        with pytest.raises(AssertionError) as info:
            ts.finish()
        assert "1 host request event(s) were not asserted" in str(info.value)
        assert "the request numberFact(0) [request 1]" in str(info.value)
    finally:
        ts.close()


def test_finish_fails_on_an_unanswered_request(lib: Library) -> None:
    ts = _fact_requested()
    try:
        ts.receive_request("numberFact", 0)
        with pytest.raises(AssertionError, match=r"1 request\(s\) were not answered"):
            ts.finish()
    finally:
        ts.close()


def test_finish_fails_on_an_unasserted_cancellation(lib: Library) -> None:
    ts = TestStore("search", provide=["search"])
    try:
        ts.send({"queryChanged": "sw"}, query="sw")
        ts.advance(milliseconds=300)
        ts.receive_request("search", "sw")
        ts.send({"queryChanged": ""}, query="")
        with pytest.raises(AssertionError, match="the cancellation of request 1 "):
            ts.finish()
    finally:
        ts.close()


def test_finish_fails_on_an_answer_whose_action_was_not_received(lib: Library) -> None:
    ts = _fact_requested()
    try:
        ts.receive_request("numberFact", 0).resolve(FACT_0)
        with pytest.raises(AssertionError, match=r"1 received action\(s\) were not asserted"):
            ts.finish()
    finally:
        ts.close()


def test_the_context_manager_fails_on_an_unanswered_request(lib: Library) -> None:
    with pytest.raises(AssertionError, match="not answered"):
        with TestStore("counter", provide=["numberFact"]) as ts:
            ts.send("factButtonTapped")
            ts.receive_request("numberFact", 0)


# ---- the scenario runner's request steps ------------------------------------------------------

def _scenario(steps: list[dict[str, object]], **top: object) -> dict[str, object]:
    return {"name": "requests", "feature": "counter", "options": {"provide": ["numberFact"]},
            "steps": steps, **top}


STATE_0 = {"count": 0, "fact": None, "isTimerOn": False}


def test_scenario_happy_path(lib: Library) -> None:
    run_scenario(_scenario([
        {"send": "factButtonTapped"},
        {"request": {"id": 1, "name": "numberFact", "payload": 0}},
        {"resolve": 1, "response": "zero"},
        {"receive": {"factResponse": "zero"}, "state": {**STATE_0, "fact": "zero"}},
        {"finish": True}]), library=lib)


def test_scenario_request_without_id(lib: Library) -> None:
    run_scenario(_scenario([
        {"send": "factButtonTapped"},
        {"request": {"name": "numberFact", "payload": 0}},
        {"fail": 1, "message": "x"},
        {"receive": {"factResponse": "Could not load a fact about 0: x"},
         "state": {**STATE_0, "fact": "Could not load a fact about 0: x"}},
        {"finish": True}]), library=lib)


def test_scenario_wrong_request_id_fails(lib: Library) -> None:
    with pytest.raises(AssertionError, match=r"step 2 .*\n.*but its id is 1"):
        run_scenario(_scenario([
            {"send": "factButtonTapped"},
            {"request": {"id": 2, "name": "numberFact", "payload": 0}}]), library=lib)


def test_scenario_wrong_payload_fails(lib: Library) -> None:
    with pytest.raises(AssertionError, match=r"\$\.payload: expected 5, actual 0"):
        run_scenario(_scenario([
            {"send": "factButtonTapped"},
            {"request": {"name": "numberFact", "payload": 5}}]), library=lib)


def test_scenario_resolving_an_unknown_request_fails(lib: Library) -> None:
    with pytest.raises(AssertionError, match=r"rk_store_resolve\(7\) failed: RK_ERR_INVALID_ARGUMENT"):
        run_scenario(_scenario([{"resolve": 7, "response": "x"}]), library=lib)


def test_scenario_wrong_response_fails(lib: Library) -> None:
    with pytest.raises(AssertionError, match="RK_ERR_RESPONSE: .*expected String"):
        run_scenario(_scenario([
            {"send": "factButtonTapped"},
            {"request": {"name": "numberFact", "payload": 0}},
            {"resolve": 1, "response": 0}]), library=lib)


def test_scenario_finish_fails_on_an_unasserted_request(lib: Library) -> None:
    with pytest.raises(AssertionError, match="host request event"):
        run_scenario(_scenario([{"send": "factButtonTapped"}, {"finish": True}]), library=lib)


def test_scenario_finish_fails_on_an_unanswered_request(lib: Library) -> None:
    with pytest.raises(AssertionError, match="not answered"):
        run_scenario(_scenario([
            {"send": "factButtonTapped"},
            {"request": {"name": "numberFact", "payload": 0}},
            {"finish": True}]), library=lib)


def test_scenario_cancelled_step_fails_on_a_request(lib: Library) -> None:
    with pytest.raises(AssertionError, match="expected the cancellation of request 1"):
        run_scenario(_scenario([{"send": "factButtonTapped"}, {"cancelled": 1}]), library=lib)


@pytest.mark.parametrize("step, message", [
    ({"send": "increment", "response": "x"}, 'unknown key "response" in a send step'),
    ({"resolve": 1, "message": "x"}, 'unknown key "message" in a resolve step'),
    ({"request": {"id": 1, "name": "numberFact", "payload": 0}, "state": {}},
     'unknown key "state" in a request step'),
    ({"resolve": 1}, 'needs a "response"'),
    ({"fail": 1}, 'needs a "message"'),
    ({"resolve": "1", "response": "x"}, "expected a request id, a whole number"),
    ({"request": "numberFact"}, r'request: expected \{"name"'),
    ({"request": {}, "cancelled": 1}, "exactly one of"),
])
def test_scenario_malformed_request_steps(lib: Library, step: dict[str, object],
                                          message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run_scenario(_scenario([step]), library=lib)


def test_scenario_unknown_top_level_key(lib: Library) -> None:
    with pytest.raises(ValueError, match=r'unknown key "providers" at \$'):
        run_scenario(_scenario([], providers=["numberFact"]), library=lib)
