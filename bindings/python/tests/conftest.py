"""Shared fixtures: the library under test, stores, and a runner for subprocesses.

The library is found as the binding finds it ($REDUCERKIT_LIB, then package data), and,
for a checkout without $REDUCERKIT_LIB, at ``build/libreducerkit.so`` (``make lib``) or
``.build/release/libreducerkit.so`` of the repository. Set
``REDUCERKIT_SKIP_MISSING=1`` to skip (not fail) the tests that need it when it is absent.
"""

from __future__ import annotations

import os
import subprocess
import sys
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

pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parents[2]  # bindings/python/tests -> repository root
SCENARIOS = Path(os.environ.get("REDUCERKIT_SCENARIOS", REPO / "Tests" / "scenarios"))
HEADER = REPO / "include" / "reducerkit.h"


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
    """Runs ``python -c CODE`` (or ``python -m ...`` with args) in a child process."""

    def run(*args: str, code: str | None = None, timeout: float = 60,
            env: dict[str, str] | None = None, **kw: Any) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable]
        argv += ["-c", code] if code is not None else []
        argv += list(args)
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              env=env or child_env, **kw)

    return run
