"""The Pythonic Store: actions, state, versions, errors, lifetime."""

from __future__ import annotations

import ctypes
import gc
import weakref
from typing import Any

import pytest
from conftest import cap

import reducerkit
from reducerkit import (
    ActionError,
    InvalidArgumentError,
    JSONError,
    Library,
    MisuseError,
    StateError,
    Status,
    Store,
    StoreClosedError,
    UnknownFeatureError,
)
from reducerkit import store as store_module


def test_features(lib: Library) -> None:
    items = reducerkit.features()
    names = [f["name"] for f in items]
    assert {"counter", "todos", "search"} <= set(names)
    counter = next(f for f in items if f["name"] == "counter")
    assert set(counter) >= {"name", "description", "initial_state", "action_schema",
                            "state_schema"}
    assert counter["initial_state"]["count"] == 0
    items[0]["name"] = "mutated"  # callers get a copy
    assert reducerkit.features()[0]["name"] != "mutated"


def test_send_and_state(counter: Store) -> None:
    assert counter.state == {"count": 0, "fact": None, "isTimerOn": False} or \
        counter.state["count"] == 0
    counter.send("increment")
    counter.send("increment")
    counter.send("decrement")
    counter.send({"setCount": 5})
    assert counter.state["count"] == 5
    assert counter.version == 4
    counter.send(b'{"setCount": 6}')  # JSON text as bytes
    assert counter.state["count"] == 6


def test_alternative_action_forms(counter: Store) -> None:
    counter.send({"increment": {}})
    counter.send({"increment": None})
    assert counter.state["count"] == 2


def test_state_is_cached_until_the_version_changes(counter: Store) -> None:
    first = counter.state
    assert counter.state is first
    counter.send("increment")
    second = counter.state
    assert second is not first and second["count"] == 1
    assert counter.state is second


def test_state_json(counter: Store) -> None:
    counter.send({"setCount": 3})
    assert reducerkit._json.loads(counter.state_json())["count"] == 3


def test_initial_state_is_merged(lib: Library) -> None:
    with Store("counter", initial_state={"count": 41}) as store:
        store.send("increment")
        assert store.state["count"] == 42
        assert store.state["isTimerOn"] is False


def test_todos(lib: Library) -> None:
    with Store("todos") as store:
        store.send({"addTodo": {"title": "Milk"}})
        store.send({"addTodo": {"title": "Eggs"}})
        store.send({"toggle": {"id": 1}})
        store.send({"setFilter": "active"})
        state = store.state
        assert [t["title"] for t in state["todos"]] == ["Milk", "Eggs"]
        assert state["todos"][0]["isComplete"] is True
        assert state["filter"] == "active" and state["nextID"] == 3
        store.send("clearCompleted")
        assert [t["id"] for t in store.state["todos"]] == [2]


def test_unicode_round_trip(lib: Library) -> None:
    with Store("todos") as store:
        store.send({"addTodo": {"title": "café ☕ \"quoted\" \\ \n 𝄞"}})
        assert store.state["todos"][0]["title"] == "café ☕ \"quoted\" \\ \n 𝄞"


# ---- errors -----------------------------------------------------------------------------

def test_unknown_action(counter: Store) -> None:
    with pytest.raises(ActionError) as info:
        counter.send("incremnt")
    e = info.value
    assert "expected one of" in e.message and "increment" in e.message
    assert e.status is Status.ACTION and "RK_ERR_ACTION" in e.status_string
    assert isinstance(e, ValueError)
    assert counter.version == 0  # a failed call changes nothing


def test_bad_payload_names_the_path(counter: Store) -> None:
    with pytest.raises(ActionError) as info:
        counter.send({"setCount": "five"})
    assert "$" in info.value.message


def test_bad_json(counter: Store) -> None:
    with pytest.raises(JSONError) as info:
        counter.send(b'{"setCount": ')
    assert info.value.status is Status.JSON
    assert counter.state["count"] == 0


def test_unencodable_action(counter: Store) -> None:
    with pytest.raises(JSONError, match="cannot be encoded"):
        counter.send({"setCount": object()})


def test_an_unencodable_action_is_shown_bounded_whatever_its_depth_or_size(counter: Store) -> None:
    """The message quoted the whole action: a list nested 5,000 deep raised RecursionError
    (from repr) instead of JSONError, and a 10 MB one made a 10 MB message."""
    deep: list[Any] = []
    for _ in range(5000):
        deep = [deep]
    big = {"factResponse": "x" * (10 << 20), "set": {1}}
    for action in (deep, big, {"setCount": [{1}] * 100000}):
        with pytest.raises(JSONError, match="cannot be encoded as JSON") as info:
            counter.send(action)
        assert len(info.value.message) < 400
    assert counter.version == 0


def test_unknown_feature(lib: Library) -> None:
    with pytest.raises(UnknownFeatureError) as info:
        Store("countr")
    assert "countr" in info.value.message and "counter" in info.value.message
    assert info.value.status is Status.UNKNOWN_FEATURE


def test_bad_initial_state(lib: Library) -> None:
    with pytest.raises(StateError) as info:
        Store("counter", initial_state={"count": "zero"})
    assert "count" in info.value.message


def test_bad_clock(lib: Library) -> None:
    with pytest.raises(InvalidArgumentError, match="clock"):
        Store("counter", clock="sundial")  # type: ignore[arg-type]


def test_advance_on_live_clock_is_misuse(counter: Store) -> None:
    with pytest.raises(MisuseError, match="live clock"):
        counter.advance(seconds=1)


def test_advance_arguments(test_counter: Store) -> None:
    with pytest.raises(TypeError):
        test_counter.advance()
    with pytest.raises(TypeError):
        test_counter.advance(1, milliseconds=1000)
    with pytest.raises(InvalidArgumentError):
        test_counter.advance(seconds=-1)


def test_take_actions_needs_recording(counter: Store) -> None:
    with pytest.raises(MisuseError, match="record_actions"):
        counter.take_actions()


def test_take_actions(lib: Library) -> None:
    with Store("counter", clock="test", record_actions=True) as store:
        store.send("increment")
        store.send({"setCount": 9})
        log = store.take_actions()
        assert [r["action"] for r in log] == ["increment", {"setCount": 9}]
        assert [r["origin"] for r in log] == ["host", "host"]
        assert [r["version"] for r in log] == [1, 2]
        assert log[1]["state"]["count"] == 9
        assert store.take_actions() == []


def test_wait_idle_timeout(counter: Store) -> None:
    counter.send("toggleTimer")  # a live timer never settles
    with pytest.raises(reducerkit.TimeoutError) as info:
        counter.wait_idle(timeout=0.05)
    assert info.value.status is Status.TIMEOUT
    assert isinstance(info.value, TimeoutError)
    assert counter.effect_count == 1
    counter.send("toggleTimer")
    counter.wait_idle(timeout=cap(10))
    assert counter.effect_count == 0


def test_wait_idle_for_an_effect(counter: Store) -> None:
    counter.send({"setCount": 42})
    counter.send("factButtonTapped")
    counter.wait_idle(timeout=cap(10))
    assert counter.state["fact"] == "42 is the answer to the ultimate question."


def test_test_clock_timer(test_counter: Store) -> None:
    test_counter.send("toggleTimer")
    test_counter.wait_idle(cap(10))  # a sleeper on the test clock does not keep it busy
    assert test_counter.state["count"] == 0
    test_counter.advance(seconds=3)
    assert test_counter.state["count"] == 3
    test_counter.advance(milliseconds=999)
    assert test_counter.state["count"] == 3
    test_counter.advance(milliseconds=1)
    assert test_counter.state["count"] == 4
    test_counter.send("toggleTimer")
    test_counter.advance(seconds=5)
    assert test_counter.state["count"] == 4


def test_search_debounce(lib: Library) -> None:
    with Store("search", clock="test") as store:
        store.send({"queryChanged": "s"})
        store.advance(seconds=0.2)
        store.send({"queryChanged": "sw"})
        store.advance(seconds=0.2)
        assert store.state == {"query": "sw", "results": []}
        store.advance(seconds=0.1)
        assert store.state == {"query": "sw", "results": ["swift", "swim"]}


# ---- lifetime ---------------------------------------------------------------------------

def test_close_is_idempotent_and_use_after_close_raises(lib: Library) -> None:
    store = Store("counter")
    store.close()
    store.close()
    assert store.closed
    for use in (lambda: store.send("increment"), lambda: store.state,
                lambda: store.version, lambda: store.wait_idle(),
                lambda: store.subscribe(print), lambda: store.advance(seconds=1),
                lambda: store.effect_count, lambda: store.handle):
        with pytest.raises(StoreClosedError) as info:
            use()
        assert info.value.status is Status.INVALID_HANDLE
    assert "closed" in repr(store)


def test_context_manager(lib: Library) -> None:
    with Store("counter") as store:
        store.send("increment")
    assert store.closed
    with pytest.raises(StoreClosedError):
        store.send("increment")


def test_close_cancels_effects(lib: Library) -> None:
    store = Store("counter")
    seen: list[int] = []
    store.subscribe(lambda s: seen.append(s["count"]))
    store.send("toggleTimer")
    store.close()
    n = len(seen)
    import time
    time.sleep(1.3)
    assert len(seen) == n


def test_finalizer_destroys_a_forgotten_store(lib: Library) -> None:
    store = Store("counter")
    store.send("toggleTimer")  # an effect in flight
    store.subscribe(lambda s: None)
    handle = ctypes.c_void_p(store.handle)
    ref = weakref.ref(store)
    core = store._core
    del store
    gc.collect()
    assert ref() is None
    assert core.closed and core not in store_module._live_cores
    assert lib.rk_store_send(handle, b'"increment"') == Status.INVALID_HANDLE


def test_a_plain_store_keeps_little_in_python(lib: Library) -> None:
    """Issue 25 (store memory <= 3,000 B, RSS, with the C store's ~1,900 B): a store without
    providers makes no host-request book, lock, finalizer object or version buffer until it
    uses them; its Python objects stay under 1,200 B (4,056 B before)."""
    import sys
    import tracemalloc

    Store("counter", library=lib).close()
    stores: list[Store] = []
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(200):
            store = Store("counter", library=lib)
            store.send("increment")
            store.send("increment")
            stores.append(store)
        per_store = (tracemalloc.get_traced_memory()[0] - before - sys.getsizeof(stores)) / 200
    finally:
        tracemalloc.stop()
    try:
        assert per_store <= 1_200, per_store
        assert stores[0]._core.requests is None  # made on first use
        assert stores[0].pending_requests() == []
        assert stores[0]._core.requests is not None
    finally:
        for store in stores:
            store.close()


def test_from_handle_borrows(lib: Library) -> None:
    raw = ctypes.c_void_p()
    assert lib.rk_store_create(b"counter", None, ctypes.byref(raw)) == 0
    try:
        borrowed = Store.from_handle(raw.value)  # type: ignore[arg-type]
        seen: list[int] = []
        borrowed.subscribe(lambda s: seen.append(s["count"]))
        borrowed.send("increment")
        assert borrowed.state["count"] == 1 and seen == [1]
        assert borrowed.handle == raw.value
        assert "borrowed" in repr(borrowed)
        borrowed.close()
        with pytest.raises(StoreClosedError):
            borrowed.send("increment")
        # The store is alive and no longer calls the Python subscriber.
        assert lib.rk_store_send(raw, b'"increment"') == 0
        assert seen == [1]
        again = Store.from_handle(raw)
        assert again.state["count"] == 2
        del again
        gc.collect()  # the finalizer of a borrowed store does not destroy it
        assert lib.rk_store_send(raw, b'"increment"') == 0
    finally:
        lib.rk_store_destroy(raw)


def test_from_handle_null(lib: Library) -> None:
    with pytest.raises(InvalidArgumentError):
        Store.from_handle(0)


def test_borrowed_store_destroyed_by_c(lib: Library) -> None:
    raw = ctypes.c_void_p()
    assert lib.rk_store_create(b"counter", None, ctypes.byref(raw)) == 0
    borrowed = Store.from_handle(raw)
    borrowed.subscribe(lambda s: None)
    lib.rk_store_destroy(raw)
    with pytest.raises(StoreClosedError):
        borrowed.send("increment")
    borrowed.close()  # unsubscribing from a destroyed store is harmless


def test_repr(counter: Store) -> None:
    assert repr(counter) == "<reducerkit.Store 'counter' version 0>"
