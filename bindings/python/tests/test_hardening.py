"""Input that 0.1.0 mishandled at the Python boundary: NUL bytes, out-of-range numbers that
ctypes wrapped around, Ctrl-C during long waits, close() from a subscriber, fork()."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import announce_inside, cap

from reducerkit import (
    ActionError,
    InvalidArgumentError,
    JSONError,
    Library,
    MisuseError,
    ReducerKitError,
    Store,
)

SRC = str(Path(__file__).resolve().parents[1] / "src")


def test_send_bytes_does_not_stop_at_a_nul_byte(lib: Library) -> None:
    with Store("todos", initial_state={"todos": [{"id": 1, "title": "a", "isComplete": True}]},
               library=lib) as store:
        before = (store.version, store.state)
        # 0.1.0 passed the bytes as a C string: the action stopped at the NUL and was applied.
        with pytest.raises((ActionError, ReducerKitError)) as raised:
            store.send(b'"clearCompleted"\x00 junk')
        assert isinstance(raised.value, ReducerKitError)
        assert (store.version, store.state) == before
        store.send(b'"clearCompleted"')
        assert store.state["todos"] == []


def test_a_nul_in_a_str_action_is_an_action_error(lib: Library) -> None:
    with Store("counter", library=lib) as store:
        with pytest.raises(ActionError):
            store.send("increment\x00")
        assert store.version == 0


@pytest.mark.parametrize("backend", ["json", "orjson"])
def test_a_nul_in_a_dict_action_reaches_the_library_whole(lib: Library, backend: str) -> None:
    # Encoded actions go to the two-argument rk_store_send (a C string): JSON escapes the NUL
    # character, so no NUL byte ends the action early.
    if backend == "orjson":
        pytest.importorskip("orjson")
    from reducerkit import _json

    before = _json.backend()
    _json.use(backend)
    try:
        with Store("todos", library=lib) as store:
            store.send({"addTodo": {"title": "a\x00b"}})
            assert [t["title"] for t in store.state["todos"]] == ["a\x00b"]
    finally:
        _json.use(before)


@pytest.mark.parametrize("backend", ["json", "orjson"])
def test_nan_and_infinities_are_named_not_reported_as_null(lib: Library, backend: str) -> None:
    """orjson writes NaN as null: the library's "found null" named a null the caller never
    wrote. Either backend now says NaN, with where it is; the store is unchanged."""
    if backend == "orjson":
        pytest.importorskip("orjson")
    from reducerkit import _json

    before = _json.backend()
    _json.use(backend)
    try:
        with Store("counter", library=lib, clock="test", provide=["numberFact"]) as store:
            for value in (float("nan"), float("inf"), -float("inf")):
                with pytest.raises(JSONError, match=r"NaN|nan|inf|Infinity|JSON") as raised:
                    store.send({"setCount": value})
                assert "null" not in str(raised.value), raised.value
                with pytest.raises(JSONError) as raised:
                    store.send(["unused", {"setCount": value}])
                assert "null" not in str(raised.value), raised.value
            if backend == "orjson":
                with pytest.raises(JSONError, match=r"^\$\.setCount: NaN"):
                    store.send({"setCount": float("nan")})
            store.send("factButtonTapped")
            request = store.pending_requests()[0]
            with pytest.raises(JSONError) as raised:
                request.resolve({"fact": [1.0, float("nan")]})
            assert "null" not in str(raised.value), raised.value
            request.resolve("still pending, so answerable")
            assert store.state == {"count": 0, "fact": "still pending, so answerable", "isTimerOn": False}
    finally:
        _json.use(before)


def test_a_feature_name_with_a_nul_is_a_value_error(lib: Library) -> None:
    with pytest.raises(ValueError) as raised:
        Store("counter\x00junk", library=lib)
    assert isinstance(raised.value, ReducerKitError)
    assert "NUL" in str(raised.value)


@pytest.mark.parametrize("kwargs", [
    {"milliseconds": 2**64 + 5000},  # 0.1.0: advanced 5 s (wrapped around)
    {"milliseconds": 2**63},
    {"milliseconds": -1},
    {"milliseconds": 1.5},
    {"seconds": math.inf},
    {"seconds": math.nan},
    {"seconds": -0.5},
    {"seconds": 2.0**63},
    {"seconds": True},
])
def test_advance_checks_its_range(lib: Library, kwargs: dict[str, Any]) -> None:
    with Store("counter", clock="test", library=lib) as store:
        store.send("toggleTimer")
        with pytest.raises(InvalidArgumentError) as raised:
            store.advance(**kwargs)
        assert isinstance(raised.value, ValueError)
        assert "from 0 to" in str(raised.value) or "whole number" in str(raised.value) \
            or "must be a number" in str(raised.value)
        assert store.state["count"] == 0  # the clock did not move
        store.send("toggleTimer")  # timer off: then the top of the range is accepted
        store.advance(milliseconds=2**63 - 1)


@pytest.mark.parametrize("timeout", [2**63 / 1000, -1, math.nan, -math.inf, "1"])
def test_wait_idle_checks_its_range(lib: Library, timeout: Any) -> None:
    with Store("counter", library=lib) as store:
        with pytest.raises(InvalidArgumentError) as raised:
            store.wait_idle(timeout=timeout)  # 0.1.0: 2**63/1000 wrapped to "wait forever"
        assert "timeout" in str(raised.value)


def test_an_infinite_timeout_means_no_limit(lib: Library) -> None:
    with Store("counter", library=lib) as store:
        store.send("factButtonTapped")
        store.wait_idle(timeout=math.inf)
        store.wait_idle(timeout=None)
        assert store.state["fact"] is not None


CTRL_C_CHILD = textwrap.dedent("""
    import math, sys, time
    import reducerkit
    store = reducerkit.Store(sys.argv[1], clock=sys.argv[2])
    store.send("toggleTimer")  # a timer: never idle on the live clock, endless on the test one
    start = time.monotonic()
    try:
        if sys.argv[3] == "wait":
            store.wait_idle(timeout=None)
        else:
            store.advance(milliseconds=2**62)
        print("returned", flush=True)
    except KeyboardInterrupt:
        print("interrupted %.3f" % (time.monotonic() - start), flush=True)
    store.send({"setCount": 41})
    store.send("increment")
    assert store.state["count"] >= 42, store.state
    print("usable", flush=True)
""")


def _sigint_default() -> None:
    """In the child, before exec: Ctrl-C's default action, even when this test runs as a
    background job (whose shell ignores SIGINT, which the child would inherit)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("clock,call", [("live", "wait"), ("test", "advance")])
def test_ctrl_c_interrupts_long_waits(lib: Library, clock: str, call: str) -> None:
    env = dict(os.environ, PYTHONPATH=SRC, REDUCERKIT_LIB=lib.path)
    code = announce_inside("wait_idle" if call == "wait" else "advance") + CTRL_C_CHILD
    child = subprocess.Popen([sys.executable, "-c", code, "counter", clock, call],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                             preexec_fn=_sigint_default)
    watchdog = threading.Timer(cap(60), child.kill)  # a child that hangs fails the test
    watchdog.start()
    try:
        assert child.stdout is not None
        ready = child.stdout.readline().strip()  # once the main thread is in the call
        assert ready == "ready", (ready, child.stderr.read() if child.stderr else "")
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        line = child.stdout.readline().split()
        latency = time.monotonic() - sent
        assert line and line[0] == "interrupted", (line, child.stderr.read() if child.stderr else "")
        # Within a tenth of a second on a quiet machine; the cap only catches a wait that
        # ignores Ctrl-C (it would never return, or return only at its end).
        assert latency < cap(5), f"KeyboardInterrupt took {latency:.3f} s"
        assert child.stdout.readline().strip() == "usable"
        assert child.wait(timeout=cap(30)) == 0
    finally:
        watchdog.cancel()
        watchdog.join()  # no thread left behind for the next test to count
        if child.poll() is None:
            child.kill()
            child.wait()


ABANDONED_ADVANCE_CHILD = textwrap.dedent("""
    import threading
    import reducerkit
    lib = reducerkit.load_library()
    real_advance = lib.rk_store_advance_clock
    returned = []                        # handles whose rk_store_advance_clock returned

    def traced_advance(handle, ms):
        status = real_advance(handle, ms)
        returned.append(handle.value)
        return status

    lib.rk_store_advance_clock = traced_advance
    entered, release = threading.Event(), threading.Event()

    def search(query):                   # blocks the effect, so the advance waits for it
        entered.set()
        release.wait()
        return []

    blocked = reducerkit.Store("search", clock="test", providers={"search": search})
    blocked.send({"queryChanged": "sw"})
    threading.Thread(target=lambda: (entered.wait(), print("ready", flush=True)),
                     daemon=True).start()
    try:
        blocked.advance(milliseconds=300)  # the debounce elapses; the provider blocks
        print("returned", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    other = reducerkit.Store("counter", clock="test")
    other.send("toggleTimer")
    other.advance(seconds=2)
    first_still_blocked = blocked.handle not in returned
    release.set()
    print("other advanced", other.state["count"], "first still blocked:", first_still_blocked,
          flush=True)
    other.send("toggleTimer")
""")


def test_ctrl_c_in_advance_does_not_hold_up_other_stores(lib: Library) -> None:
    """0.2.0: every advance() of the main thread ran on one shared worker thread, so after a
    Ctrl-C the next advance() of any store queued behind the abandoned call (up to its 10 s
    bound). Each call now has its own thread: another store's advance() completes while the
    abandoned call is still blocked in the library."""
    env = dict(os.environ, PYTHONPATH=SRC, REDUCERKIT_LIB=lib.path)
    child = subprocess.Popen([sys.executable, "-c", ABANDONED_ADVANCE_CHILD],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                             preexec_fn=_sigint_default)
    try:
        out, err = child.stdout, child.stderr
        assert out is not None and err is not None
        assert out.readline().strip() == "ready", err.read()
        child.send_signal(signal.SIGINT)
        assert out.readline().strip() == "interrupted", err.read()
        line = out.readline().strip()
        assert line == "other advanced 2 first still blocked: True", (line, err.read())
        assert child.wait(timeout=60) == 0, err.read()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_close_from_a_subscriber_is_final(lib: Library) -> None:
    store = Store("counter", library=lib)
    calls: list[int] = []

    def on_state(state: dict[str, Any]) -> None:
        calls.append(state["count"])
        if state["count"] == 1:
            store.send("increment")  # its state would be delivered after this callback...
            store.close()  # ...but the store is closed first: nothing is delivered after this
            calls.append(-1)

    store.subscribe(on_state)
    store.send("increment")
    assert calls == [1, -1]
    assert store.closed
    time.sleep(0.05)
    assert calls == [1, -1]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_a_store_used_after_fork_is_misuse(lib: Library) -> None:
    with Store("counter", clock="test", library=lib) as store:
        store.send("increment")
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report through the pipe, never return into pytest
            code = 0
            try:
                try:
                    store.send("increment")
                    code = 1
                except MisuseError as e:
                    code = 0 if "fork" in str(e) else 2
                with Store("counter", clock="test", library=lib) as fresh:
                    fresh.send("increment")
                    if fresh.state["count"] != 1:
                        code = 3
            except BaseException:
                code = 4
            os.write(write, bytes([code]))
            os._exit(0)
        os.close(write)
        result = os.read(read, 1)
        os.close(read)
        os.waitpid(pid, 0)
        assert result == b"\x00", f"child reported {result!r}"
        store.send("increment")  # the parent's store is unaffected
        assert store.state["count"] == 2


def test_adding_a_todo_after_a_large_initial_state(lib: Library) -> None:
    # 0.1.0 probed for a free id with a linear scan per probe: 100,000 todos with nextID 1
    # made one addTodo take seconds while holding the store.
    todos = [{"id": i, "title": f"t{i}", "isComplete": False} for i in range(1, 100_001)]
    with Store("todos", initial_state={"todos": todos, "nextID": 1}, library=lib) as store:
        store.send({"addTodo": {"title": "new"}})
        store.send({"addTodo": {"title": "newer"}})
        state = store.state
        ids = [todo["id"] for todo in state["todos"]]
        assert len(ids) == len(set(ids)) == 100_002
        assert ids[-2:] == [100_001, 100_002]
        assert state["nextID"] == 100_003


SENDS_WHILE_EFFECTS_DELIVER_CHILD = textwrap.dedent("""
    import sys, threading, time
    import reducerkit
    store = reducerkit.Store("counter", clock="live")
    seen = []
    def slow(state):  # runs on the timer effect's thread for each tick; needs the GIL
        time.sleep(0.01)
        seen.append(state["count"])
    if sys.argv[1] == "subscribe":
        store.subscribe(slow)
    elif sys.argv[1] == "patches":
        store.subscribe_patches(lambda patch: slow({"count": 0}))
    store.send("toggleTimer")  # a tick every second, reduced and delivered on an effect thread
    end = time.monotonic() + 2.6
    sends = 0
    while time.monotonic() < end:
        store.send("increment")
        sends += 1
    store.send("toggleTimer")
    print("done", sends, len(seen) > 0, flush=True)
""")


@pytest.mark.parametrize("mode", ["subscribe", "patches", "none"])
def test_sends_while_an_effect_thread_delivers_to_python(lib: Library, mode: str) -> None:
    """Sends from Python (keeping the GIL until the store has a Python callback) while an
    effect thread reduces ticks and delivers them to a Python subscriber: nothing waits for
    the GIL another thread holds (the child would hang)."""
    env = dict(os.environ, PYTHONPATH=SRC, REDUCERKIT_LIB=lib.path)
    out = subprocess.run([sys.executable, "-c", SENDS_WHILE_EFFECTS_DELIVER_CHILD, mode],
                         capture_output=True, text=True, env=env, timeout=cap(60))
    assert out.returncode == 0, out.stderr
    words = out.stdout.split()
    assert words[0] == "done" and int(words[1]) > 0, out.stdout
    if mode != "none":
        assert words[2] == "True", out.stdout  # the subscriber ran on the effect thread
