"""The compiled call path for Store.send (_speedups.c), when it is built, against ctypes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import TESTS, cap

import reducerkit
import reducerkit.store as store_module
from reducerkit import ActionError, Library, Store

speedups = store_module._speedups
needs_speedups = pytest.mark.skipif(speedups is None, reason="reducerkit._speedups is not built")


def test_built_where_required() -> None:
    """`make test-python` installs the package with a compiler at hand: the module must be
    there (a silent fallback to ctypes would leave this path untested)."""
    if os.environ.get("REDUCERKIT_REQUIRE_SPEEDUPS") != "1":
        pytest.skip("REDUCERKIT_REQUIRE_SPEEDUPS is not 1")
    assert speedups is not None, f"reducerkit._speedups did not load ({reducerkit.__file__})"


@needs_speedups
def test_the_fast_path_is_taken_and_switches_with_callbacks(lib: Library) -> None:
    store = Store("counter", library=lib)
    try:
        assert store._fast_send is speedups.send_keep_gil
        store.send("increment")
        store.subscribe(lambda state: None)
        assert store._fast_send is speedups.send_release_gil  # a Python callback may run now
        store.send("increment")
        assert store.state["count"] == 2
    finally:
        store.close()


@needs_speedups
def test_same_results_as_ctypes(lib: Library) -> None:
    """The same actions, good and bad, through both paths: the same states and errors."""
    actions: list[object] = ["increment", {"setCount": 41}, "increment", "decrement", {"setCount": 7},
                             "incremnt", {"setCount": "x"}, {"nope": 1}, "increment"]
    results = []
    for fast in (True, False):
        store = Store("counter", library=lib)
        if not fast:
            store._fast_send = None
        seen = []
        try:
            for action in actions:
                try:
                    store.send(action)  # type: ignore[arg-type]
                    seen.append(store.state["count"])
                except ActionError as e:
                    seen.append(str(e))
        finally:
            store.close()
        results.append(seen)
    assert results[0] == results[1]
    assert any("did you mean" in str(r) for r in results[0])


@needs_speedups
def test_bad_arguments_raise(lib: Library) -> None:
    store = Store("counter", library=lib)
    try:
        address, handle = store._send_address, store._handle_value
        with pytest.raises(TypeError):
            speedups.send_keep_gil(address, handle, "increment")  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            speedups.send_keep_gil(address, handle)  # type: ignore[call-arg]
        with pytest.raises(ValueError):
            speedups.send_keep_gil(0, handle, b'"increment"')
        assert speedups.send_keep_gil(address, handle, b'"increment"') == 0
        assert speedups.send_release_gil(address, handle, b'"increment"') == 0
        assert store.state["count"] == 2
    finally:
        store.close()


@needs_speedups
def test_closed_store_is_refused(lib: Library) -> None:
    """After close the fast path is not used, and a kept handle value is refused by the
    library (a destroyed handle is detected), not dereferenced."""
    store = Store("counter", library=lib)
    address, handle = store._send_address, store._handle_value
    store.close()
    with pytest.raises(reducerkit.StoreClosedError):
        store.send("increment")
    assert speedups.send_keep_gil(address, handle, b'"increment"') != 0


@needs_speedups
def test_sends_while_an_effect_thread_delivers_to_python_installed(lib: Library) -> None:
    """test_hardening's GIL check again, with the installed package (this compiled path)."""
    from test_hardening import SENDS_WHILE_EFFECTS_DELIVER_CHILD

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["REDUCERKIT_LIB"] = lib.path
    which = subprocess.run([sys.executable, "-c", "import reducerkit.store as s; print(s._speedups is not None)"],
                           capture_output=True, text=True, env=env, timeout=cap(60), cwd=TESTS.parent.parent)
    assert which.stdout.strip() == "True", which.stdout + which.stderr  # the installed package
    for mode in ("subscribe", "patches", "none"):
        out = subprocess.run([sys.executable, "-c", SENDS_WHILE_EFFECTS_DELIVER_CHILD, mode],
                             capture_output=True, text=True, env=env, timeout=cap(60), cwd=TESTS.parent.parent)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split()[0] == "done", out.stdout
