"""Shared fixtures: the library under test, stores, and a runner for subprocesses.

The library is found as the binding finds it ($REDUCERKIT_LIB, then package data), and,
for a checkout without $REDUCERKIT_LIB, at ``build/libreducerkit.so`` (``make lib``) or
``.build/release/libreducerkit.so`` of the repository. Set
``REDUCERKIT_SKIP_MISSING=1`` to skip (not fail) the tests that need it when it is absent.

No test depends on the machine's speed: tests wait on conditions, and every cap on a wait
goes through :func:`cap`, which scales it by ``REDUCERKIT_TEST_TIMEOUT_SCALE`` (as the C tests
do, Tests/c/rk_test.h).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

try:
    import reducerkit
except ImportError:  # not installed: test the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import reducerkit
from reducerkit import Library, LibraryNotFoundError, Store
from reducerkit.testing import TestStore, run_scenario

pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parents[2]  # bindings/python/tests -> repository root
SCENARIOS = Path(os.environ.get("REDUCERKIT_SCENARIOS", REPO / "Tests" / "scenarios"))
HEADER = REPO / "include" / "reducerkit.h"


def timeout_scale() -> float:
    """How much longer than on a quiet machine the caps of waits may be: the number in
    ``REDUCERKIT_TEST_TIMEOUT_SCALE`` (default 1; from 1 to 1000, e.g. 5 on a machine running
    other builds), times 20 under valgrind (``RK_UNDER_VALGRIND``), as ``rk_t_timeout_scale()``
    of Tests/c/rk_test.h."""
    try:
        scale = float(os.environ.get("REDUCERKIT_TEST_TIMEOUT_SCALE", "1"))
    except ValueError:
        scale = 1.0
    if not 1.0 <= scale <= 1000.0:  # also NaN
        scale = 1.0
    if os.environ.get("RK_UNDER_VALGRIND", "") not in ("", "0"):
        scale *= 20
    return scale


def cap(seconds: float) -> float:
    """The cap of a wait that should end (``seconds`` on a quiet machine, scaled by
    :func:`timeout_scale`). A cap only turns a real hang into a failure: it is generous and
    never measures speed; the tests wait on the condition itself."""
    return seconds * timeout_scale()


def until(predicate: Callable[[], object], seconds: float = 10) -> bool:
    """Polls ``predicate`` until it is true or ``cap(seconds)`` passed; whether it became
    true (for work on threads the test cannot join)."""
    deadline = time.monotonic() + cap(seconds)
    while not predicate():
        if time.monotonic() >= deadline:
            return bool(predicate())
        time.sleep(0.005)
    return True


def announce_inside(function: str) -> str:
    """Code for a child Python (``python -c``): a thread that prints ``ready`` once the main
    thread is inside a call of ``function`` (a Ctrl-C sent after it reaches that call, not the
    code before it, however slowly the child runs)."""
    return textwrap.dedent(f"""
        import sys as _sys, threading as _threading, time as _time
        def _announce():
            while True:
                frame = _sys._current_frames().get(_threading.main_thread().ident)
                while frame is not None and frame.f_code.co_name != {function!r}:
                    frame = frame.f_back
                if frame is not None:
                    print("ready", flush=True)
                    return
                _time.sleep(0.005)
        _threading.Thread(target=_announce, daemon=True).start()
    """)


@pytest.fixture(autouse=True)
def _scaled_testing_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    """``TestStore`` and ``run_scenario`` wait up to 1 s for effects by default (and return as
    soon as effects are idle): here that cap is ``cap(10)`` like every other. A test that
    gives ``timeout=`` keeps its own."""
    for function in (TestStore.__init__, run_scenario):
        defaults = function.__kwdefaults__
        assert defaults is not None and "timeout" in defaults, \
            f"{function.__qualname__} has no keyword-only timeout= any more: update conftest"
        monkeypatch.setitem(defaults, "timeout", cap(10))


def _library_candidate() -> str | None:
    if os.environ.get("REDUCERKIT_LIB"):
        return None  # the binding's own search takes it
    name = reducerkit._native.library_file_name()
    # make lib, then swift build -c release
    for built in (REPO / "build" / name, REPO / ".build" / "release" / name):
        if built.exists():
            return str(built)
    return None


@pytest.fixture(scope="session")
def lib() -> Library:
    """The loaded library (also made the default for Store())."""
    try:
        return reducerkit.load_library(_library_candidate())
    except LibraryNotFoundError as e:
        if os.environ.get("REDUCERKIT_SKIP_MISSING"):
            pytest.skip(f"libreducerkit not found: {e}")
        pytest.fail(f"libreducerkit is needed by this test: {e}", pytrace=False)


@pytest.fixture
def counter(lib: Library) -> Iterator[Store]:
    """A counter store on the live clock, closed after the test."""
    with Store("counter", library=lib) as store:
        yield store


@pytest.fixture
def test_counter(lib: Library) -> Iterator[Store]:
    """A counter store on the test clock."""
    with Store("counter", clock="test", library=lib) as store:
        yield store


@pytest.fixture
def child_env(lib: Library) -> dict[str, str]:
    """The environment for a child Python: the same library and this package."""
    env = dict(os.environ)
    env["REDUCERKIT_LIB"] = lib.path
    src = str(Path(reducerkit.__file__).resolve().parents[1])  # the package under test
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("PYTHONWARNINGS", None)
    return env


@pytest.fixture
def run_python(child_env: dict[str, str]) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Runs ``python -c CODE`` (or ``python -m ...`` with args) in a child process, for
    at most ``cap(timeout)`` seconds."""

    def run(*args: str, code: str | None = None, timeout: float = 60,
            env: dict[str, str] | None = None, **kw: Any) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable]
        argv += ["-c", code] if code is not None else []
        argv += list(args)
        return subprocess.run(argv, capture_output=True, text=True,
                              timeout=cap(timeout),
                              env=env or child_env, **kw)

    return run
