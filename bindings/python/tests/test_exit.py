"""Interpreter exit with stores still alive must be clean (a prototype crashed here).

Without the binding's exit hook, the first script below dies with SIGILL in most runs: a
Swift thread delivers a tick into an interpreter that is being torn down.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import pytest
from conftest import cap

BAD_SIGNS = ("Fatal Python error", "Segmentation fault", "Exception ignored", "Traceback")


def _clean(done: object) -> None:
    assert done.returncode == 0, (done.returncode, done.stderr)  # type: ignore[attr-defined]
    for sign in BAD_SIGNS:
        assert sign not in done.stderr, done.stderr  # type: ignore[attr-defined]


EFFECTS_IN_FLIGHT = textwrap.dedent("""
    import threading, time, reducerkit
    stores = []
    for i in range(4):
        s = reducerkit.Store("counter")
        s.subscribe(lambda state: sum(range(100_000)))  # Python work on Swift threads
        s.send("toggleTimer")                          # a live timer: effects in flight
        s.send("factButtonTapped")
        stores.append(s)
    fast = reducerkit.Store("counter", clock="test")
    fast.subscribe(lambda state: None)
    fast.send("toggleTimer")                           # a sleeper on the test clock
    search = reducerkit.Store("search")
    search.subscribe(lambda state: None)
    search.send({"queryChanged": "sw"})                # a debounce in flight
    time.sleep(1.05)                                   # ticks are being delivered
    print("exiting", flush=True)
    {exit}
""")


@pytest.mark.parametrize("how", ["pass", "raise SystemExit(0)", "import sys; sys.exit(0)"])
def test_exit_with_effects_and_subscribers(run_python: Callable[..., object], how: str) -> None:
    done = run_python(code=EFFECTS_IN_FLIGHT.replace("{exit}", how))
    _clean(done)
    assert done.stdout.strip() == "exiting"  # type: ignore[attr-defined]


def test_exit_while_a_tick_is_in_a_slow_subscriber(run_python: Callable[..., object]) -> None:
    code = textwrap.dedent("""
        import threading, time, reducerkit
        s = reducerkit.Store("counter")
        entered = threading.Event()
        def slow(state):
            if threading.current_thread() is not threading.main_thread():  # a tick
                entered.set()
            time.sleep(0.3)          # still running on a Swift thread when we exit
        s.subscribe(slow)
        s.send("toggleTimer")
        assert entered.wait(CAP), "no tick reached the subscriber"
    """).replace("CAP", repr(cap(10)))
    _clean(run_python(code=code))


def test_exit_with_a_daemon_thread_sending(run_python: Callable[..., object]) -> None:
    code = textwrap.dedent("""
        import threading, time, reducerkit
        s = reducerkit.Store("counter")
        s.subscribe(lambda state: None)
        def spam():
            try:
                while True:
                    s.send("increment")
            except reducerkit.StoreClosedError:
                pass
        threading.Thread(target=spam, daemon=True).start()
        time.sleep(0.2)
    """)
    _clean(run_python(code=code))


def test_unraised_subscriber_exception_is_reported_at_exit(
        run_python: Callable[..., object]) -> None:
    code = textwrap.dedent("""
        import reducerkit
        s = reducerkit.Store("counter")
        s.subscribe(lambda state: 1 / 0)
        s._core.lib.rk_store_send(s._handle, b'"increment"')  # nobody calls the store again
    """)
    done = run_python(code=code)
    assert done.returncode == 0, done.stderr  # type: ignore[attr-defined]
    assert "never re-raised" in done.stderr and "ZeroDivisionError" in done.stderr  # type: ignore[attr-defined]
    assert "Fatal Python error" not in done.stderr  # type: ignore[attr-defined]


def test_borrowed_store_is_unsubscribed_not_destroyed_at_exit(
        run_python: Callable[..., object]) -> None:
    code = textwrap.dedent("""
        import atexit, ctypes, reducerkit
        lib = reducerkit.load_library()
        raw = ctypes.c_void_p()
        assert lib.rk_store_create(b"counter", None, ctypes.byref(raw)) == 0
        def after():  # registered first, so it runs after the binding's exit hook
            assert lib.rk_store_send(raw, b'"increment"') == 0, "destroyed by Python"
            print("alive", flush=True)
            lib.rk_store_destroy(raw)
        atexit.register(after)
        borrowed = reducerkit.Store.from_handle(raw)
        borrowed.subscribe(lambda state: print("callback", state["count"], flush=True))
        borrowed.send("increment")
    """)
    # The binding's hook is registered at import, before `after`; atexit runs hooks
    # last-in first-out, so `after` runs before it here. Either order must be clean.
    done = run_python(code=code)
    _clean(done)
    assert "callback 1" in done.stdout  # type: ignore[attr-defined]
    assert "alive" in done.stdout  # type: ignore[attr-defined]
