"""Subscribers: Swift threads calling into Python, the GIL, and exceptions in callbacks."""

from __future__ import annotations

import gc
import threading
import time
from typing import Any

import pytest
from conftest import cap, until

import reducerkit
from reducerkit import Library, MisuseError, Store, StoreClosedError


def test_subscriber_sees_each_state(counter: Store) -> None:
    seen: list[tuple[int, int]] = []
    token = counter.subscribe(lambda s, v: seen.append((s["count"], v)), with_version=True)
    counter.send("increment")
    counter.send({"setCount": 10})
    assert seen == [(1, 1), (10, 2)]  # not called at registration
    counter.unsubscribe(token)
    counter.send("increment")
    assert seen == [(1, 1), (10, 2)]
    assert not counter._core.subs


def test_unknown_token(counter: Store) -> None:
    with pytest.raises(reducerkit.InvalidArgumentError):
        counter.unsubscribe(12345)


def test_callbacks_from_swift_threads(counter: Store) -> None:
    """A live timer's ticks are reduced on Swift's threads, which call the subscriber."""
    threads: set[int] = set()
    ticked = threading.Event()

    def on_state(state: dict[str, Any]) -> None:
        threads.add(threading.get_ident())
        if state["count"] >= 1:
            ticked.set()

    counter.subscribe(on_state)
    counter.send("toggleTimer")
    assert ticked.wait(cap(10))
    counter.send("toggleTimer")
    assert threads - {threading.get_ident()}, "no callback came from another thread"
    assert counter.state["count"] >= 1  # a second tick may come before the timer stops


def test_effect_action_sent_during_send(counter: Store) -> None:
    """An effect's action that arrives while the host still holds the store is reduced by
    the host's thread; either way the subscriber sees it."""
    facts: list[str] = []
    counter.subscribe(lambda s: facts.append(s["fact"]) if s["fact"] else None)
    counter.send({"setCount": 7})
    counter.send("factButtonTapped")
    counter.wait_idle(cap(10))
    assert facts == ["7 is the number of days in a week."]


def test_python_calls_while_swift_calls_back(counter: Store) -> None:
    """The main thread sends and reads (GIL released in each call) while a live timer's
    ticks arrive on Swift's threads and take the GIL in the subscriber: no deadlock."""
    ticks: list[int] = []
    counter.subscribe(lambda s: ticks.append(s["count"]))
    counter.send({"setCount": 0})
    counter.send("toggleTimer")
    start = time.monotonic()
    sent = 0
    # For 1.5 s, and until a tick was reduced meanwhile (the cap only catches a timer that
    # never ticks): the version counts setCount, toggleTimer, the sends and the ticks.
    while (time.monotonic() - start < 1.5 or counter.version - sent - 2 < 1) \
            and time.monotonic() - start < cap(30):
        counter.send("increment")
        counter.state  # noqa: B018 - a read between sends
        sent += 1
    counter.send("toggleTimer")
    counter.wait_idle(cap(10))
    timer_ticks = counter.version - sent - 3  # setCount + 2 x toggleTimer
    assert timer_ticks >= 1
    assert counter.state["count"] == sent + timer_ticks
    # One call per send at most (states waiting while another thread delivers coalesce),
    # in order, ending with the final state.
    assert 1 <= len(ticks) <= counter.version
    assert ticks == sorted(ticks)
    assert ticks[-1] == counter.state["count"]


def test_many_python_threads_send(lib: Library) -> None:
    with Store("counter") as store:
        calls: list[int] = []
        store.subscribe(lambda s: calls.append(s["count"]))
        n, per = 8, 500

        def work() -> None:
            for _ in range(per):
                store.send("increment")

        threads = [threading.Thread(target=work) for _ in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert store.state["count"] == n * per
        assert store.version == n * per
        # Callbacks are coalesced: at most one per send, never two at once, ending with the
        # final state, and never going back.
        assert 1 <= len(calls) <= n * per
        assert calls == sorted(calls)
        assert calls[-1] == n * per


def test_send_from_a_subscriber_is_queued(counter: Store) -> None:
    def on_state(state: dict[str, Any]) -> None:
        if state["count"] == 1:
            counter.send({"setCount": 100})

    counter.subscribe(on_state)
    counter.send("increment")
    assert counter.state["count"] == 100  # reduced before the outer send returned


def test_subscriber_reads_state(counter: Store) -> None:
    read: list[int] = []
    counter.subscribe(lambda s: read.append(counter.state["count"]))
    counter.send("increment")
    assert read == [1]


def test_exception_in_subscriber_is_reraised_by_the_same_call(counter: Store) -> None:
    def boom(state: dict[str, Any]) -> None:
        raise ValueError(f"boom at {state['count']}")

    counter.subscribe(boom)
    with pytest.raises(ValueError, match="boom at 1") as info:
        counter.send("increment")
    assert any("raised in reducerkit subscriber" in n for n in info.value.__notes__)
    assert counter.state["count"] == 1  # the action itself was reduced


def test_exception_on_a_swift_thread_is_reraised_by_the_next_call(counter: Store) -> None:
    raised = threading.Event()
    where: list[str] = []

    def boom(state: dict[str, Any]) -> None:
        if state["count"] == 1 and not where:  # the first tick, on a Swift thread
            where.append(threading.current_thread().name)
            raised.set()
            raise KeyError("from a tick")

    counter.subscribe(boom)
    counter.send("toggleTimer")
    assert raised.wait(cap(10))
    assert until(lambda: counter._errors)  # kept for the next call once the callback raised
    with pytest.raises(KeyError, match="from a tick") as info:
        counter.version  # noqa: B018 - any call on the store
    assert where and where[0] != threading.current_thread().name
    assert any(where[0] in note for note in info.value.__notes__)
    counter.send("toggleTimer")  # raised once, not again


def test_several_exceptions_are_grouped(test_counter: Store) -> None:
    test_counter.send("toggleTimer")
    token = test_counter.subscribe(lambda s: 1 / 0)
    with pytest.raises(ExceptionGroup) as info:  # noqa: F821 - builtin in 3.11
        test_counter.advance(seconds=3)
    assert len(info.value.exceptions) == 3  # one per tick
    test_counter.unsubscribe(token)
    test_counter.send("toggleTimer")
    assert all(isinstance(e, ZeroDivisionError) for e in info.value.exceptions)


def test_wait_idle_and_advance_from_a_subscriber_work(lib: Library) -> None:
    # Callbacks run outside the store's lock: waiting and advancing the clock there are
    # ordinary calls (0.1.0 refused them with MisuseError).
    with Store("counter", clock="test") as store:
        seen: list[int] = []

        def on_state(state: dict[str, Any]) -> None:
            seen.append(state["count"])
            if state["isTimerOn"] and state["count"] == 0:
                store.wait_idle(cap(10))
                store.advance(seconds=2)

        store.subscribe(on_state)
        store.send("toggleTimer")
        assert store.state["count"] == 2
        assert seen[-1] == 2


def test_base_exceptions_are_kept_too(counter: Store) -> None:
    def stop(state: dict[str, Any]) -> None:
        raise KeyboardInterrupt

    counter.subscribe(stop)
    with pytest.raises(KeyboardInterrupt):
        counter.send("increment")


def test_exception_pending_at_close_is_raised(lib: Library) -> None:
    store = Store("counter")
    store.subscribe(lambda s: 1 / 0)
    store._core.lib.rk_store_send(store._handle, b'"increment"')  # bypass the check
    with pytest.raises(ZeroDivisionError):
        store.close()
    assert store.closed
    store.close()


def test_exception_pending_when_a_with_block_fails(lib: Library) -> None:
    with pytest.raises(RuntimeError) as info:
        with Store("counter") as store:
            store.subscribe(lambda s: 1 / 0)
            store._core.lib.rk_store_send(store._handle, b'"increment"')
            raise RuntimeError("the block's own error")
    assert any("ZeroDivisionError" in n for n in info.value.__notes__)


def test_unsubscribe_inside_the_callback(counter: Store) -> None:
    seen: list[int] = []
    tokens: list[int] = []

    def once(state: dict[str, Any]) -> None:
        seen.append(state["count"])
        counter.unsubscribe(tokens[0])

    tokens.append(counter.subscribe(once))
    counter.send("increment")
    counter.send("increment")
    assert seen == [1]


def test_close_inside_the_callback(lib: Library) -> None:
    store = Store("counter")
    store.subscribe(lambda s: store.close())
    store.send("increment")
    assert store.closed
    with pytest.raises(StoreClosedError):
        store.send("increment")


def test_subscriber_keeps_working_after_gc(counter: Store) -> None:
    seen: list[int] = []
    counter.subscribe(lambda s: seen.append(s["count"]))  # the lambda has no other owner
    gc.collect()
    counter.send("increment")
    assert seen == [1]


def test_finalizer_of_a_store_with_live_effects_and_subscribers(lib: Library) -> None:
    store = Store("counter")
    ticks: list[int] = []
    store.subscribe(lambda s: ticks.append(s["count"]))
    store.send("toggleTimer")
    core = store._core
    del store
    gc.collect()
    assert core.closed
    n = len(ticks)
    time.sleep(1.2)
    assert len(ticks) == n
