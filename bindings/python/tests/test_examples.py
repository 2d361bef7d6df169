"""The Python example programs of examples/python run, from any working directory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, cap

EXAMPLES = REPO / "examples" / "python"


def _run(script: Path, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(script)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=cap(60))


@pytest.fixture
def host_effects() -> Path:
    script = EXAMPLES / "host_effects.py"
    if not script.exists():
        pytest.skip(f"{script} not found (not a checkout)")
    return script


def _check_host_effects(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # The in-flight search was cancelled: the provider's task saw CancelledError and the
    # server saw its client hang up; the newer query was answered.
    assert "provider: the request for 'sw' was cancelled (CancelledError)" in out
    assert "server: the client hung up; search 'sw' abandoned" in out
    assert "state: {'query': 'swi', 'results': ['swift', 'swim', 'swing', 'switch']}" in out
    assert out.index("cancelled (CancelledError)") < out.index("request for 'swi'")
    assert "got Request(id=1, name='numberFact', payload=3)" in out
    assert "'fact': '3 is the number of spatial dimensions we see.'" in out
    assert "server: answered 'sw'" not in out


def test_host_effects_runs_from_another_directory(host_effects: Path, tmp_path: Path,
                                                  child_env: dict[str, str]) -> None:
    env = dict(child_env)
    env.pop("PYTHONPATH", None)  # the example finds the checkout's package by itself
    _check_host_effects(_run(host_effects, tmp_path, env))


def test_host_effects_finds_the_built_library(host_effects: Path, tmp_path: Path,
                                              child_env: dict[str, str]) -> None:
    if not (REPO / "build" / "libreducerkit.so").exists():
        pytest.skip("no build/libreducerkit.so (make lib)")
    env = {k: v for k, v in child_env.items() if k not in ("REDUCERKIT_LIB", "PYTHONPATH")}
    _check_host_effects(_run(host_effects, tmp_path, env))
