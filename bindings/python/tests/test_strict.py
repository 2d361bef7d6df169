"""Strict wire format through the Python binding: unknown and duplicate keys are errors that
say where and what was expected; messages quote input bounded and escaped."""

from __future__ import annotations

import pytest

from reducerkit import ActionError, JSONError, Library, StateError, Store, UnknownFeatureError


def test_unknown_payload_key(lib: Library) -> None:
    with Store("todos", library=lib) as store:
        with pytest.raises(ActionError) as info:
            store.send({"addTodo": {"title": "a", "titel": "b"}})
        assert str(info.value).startswith(
            'unknown key "titel" at $.addTodo.titel (did you mean "title"?); '
            'expected keys at $.addTodo: "title"')
        with pytest.raises(ActionError, match=r'unknown key "x" at \$\.x beside action "clearCompleted"'):
            store.send({"clearCompleted": {}, "x": 1})
        with pytest.raises(JSONError, match=r'duplicate key "title" at \$\.addTodo\.title'):
            store.send(b'{"addTodo": {"title": "a", "title": "b"}}')
        assert store.version == 0 and store.state["todos"] == []


def test_unknown_initial_state_keys(lib: Library) -> None:
    with pytest.raises(StateError, match=r'unknown key "cnt" at \$\.cnt \(did you mean "count"\?\)'):
        Store("counter", initial_state={"cnt": 3}, library=lib)
    with pytest.raises(StateError, match=r'unknown key "done" at \$\.todos\[0\]\.done'):
        Store("todos", initial_state={"todos": [{"id": 1, "title": "a", "isComplete": False, "done": 1}]},
              library=lib)


def test_expected_actions_are_listed_in_wire_form(lib: Library) -> None:
    with Store("counter", library=lib) as store:
        with pytest.raises(ActionError) as info:
            store.send("incremnt")
    assert str(info.value).startswith(
        'unknown action "incremnt" at $ (did you mean "increment"?); expected one of: '
        '"increment", "decrement", {"setCount": <int>}, "factButtonTapped", {"factResponse": <string>}')


def test_quoted_input_is_bounded(lib: Library) -> None:
    name = "a\nb\x01" + "c" * 1_000_000
    with pytest.raises(UnknownFeatureError) as info:
        Store(name, library=lib)
    message = str(info.value)
    assert len(message) < 500 and "\n" not in message and "\x01" not in message
    assert message.startswith('unknown feature "a\\nb\\u0001ccc')
    assert "…(1000004 bytes)" in message
