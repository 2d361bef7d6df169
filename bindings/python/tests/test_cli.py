"""python -m reducerkit, run as a user would (a subprocess)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import cap

Run = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture
def cli(run_python: Run) -> Run:
    return lambda *args, **kw: run_python("-m", "reducerkit", *args, **kw)


def test_features(cli: Run) -> None:
    done = cli("features")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for name in ("counter", "todos", "search"):
        assert f"\n{name}" in "\n" + out
    assert "increment" in out and "setCount" in out and "addTodo" in out
    assert "queryChanged" in out
    # A case without payload is listed once, in the form a user types.
    assert "actions: increment, decrement, setCount(integer)," in out
    assert "increment(" not in out


def test_features_json(cli: Run) -> None:
    done = cli("features", "--json")
    assert done.returncode == 0
    assert {f["name"] for f in json.loads(done.stdout)} >= {"counter", "todos", "search"}


def test_version(cli: Run) -> None:
    done = cli("version")
    assert done.returncode == 0 and "ABI 1" in done.stdout


def test_run_prints_each_state(cli: Run, tmp_path: Path) -> None:
    log = tmp_path / "actions.jsonl"
    log.write_text('"increment"\n\n{"setCount": 5}\n"decrement"\n')
    done = cli("run", "counter", str(log))
    assert done.returncode == 0, done.stderr
    counts = [json.loads(line)["count"] for line in done.stdout.splitlines()]
    assert counts == [1, 5, 4]
    assert done.stderr == ""


def test_run_diff(cli: Run, tmp_path: Path) -> None:
    log = tmp_path / "todos.jsonl"
    log.write_text('{"addTodo": {"title": "Milk"}}\n{"setFilter": "all"}\n')
    done = cli("run", "todos", str(log), "--diff")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert '# 1: {"addTodo":{"title":"Milk"}}' in out
    assert '+      "title": "Milk"' in out
    assert "# 2" in out and "(no change)" in out


def test_run_with_test_clock_and_stdin(cli: Run) -> None:
    done = cli("run", "counter", "-", "--clock", "test", input='"toggleTimer"\n')
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["isTimerOn"] is True


def test_run_waits_for_live_effects(cli: Run, tmp_path: Path) -> None:
    log = tmp_path / "fact.jsonl"
    log.write_text('{"setCount": 2}\n"factButtonTapped"\n')
    done = cli("run", "counter", str(log), "--wait", str(cap(10)))
    assert done.returncode == 0, done.stderr
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["fact"] == "2 is the only even prime."


def test_unknown_action_names_the_line(cli: Run, tmp_path: Path) -> None:
    log = tmp_path / "ACTIONS.jsonl"
    log.write_text('"increment"\n"increment"\n"incremnt"\n"increment"\n')
    done = cli("run", "counter", str(log))
    assert done.returncode == 1
    assert done.stderr.startswith(f"{log}:3: unknown action")
    assert "expected one of" in done.stderr
    assert len(done.stdout.splitlines()) == 2  # the states before the error


def test_bad_json_names_the_line(cli: Run, tmp_path: Path) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text('"increment"\n{"setCount": \n')
    done = cli("run", "counter", str(log))
    assert done.returncode == 1
    assert done.stderr.startswith(f"{log}:2: invalid JSON")


def test_a_line_is_sent_as_written(cli: Run, tmp_path: Path) -> None:
    """A key given twice is the library's RK_ERR_JSON, as from any host (Python's reading of
    the line kept the last one and sent {"setCount": 2})."""
    log = tmp_path / "dup.jsonl"
    log.write_text('"increment"\n{"setCount": 1, "setCount": 2}\n"increment"\n')
    done = cli("run", "counter", str(log))
    assert done.returncode == 1
    assert done.stderr.startswith(f'{log}:2: duplicate key "setCount" at $.setCount'), done.stderr
    assert len(done.stdout.splitlines()) == 1


def test_unknown_feature_and_missing_file(cli: Run, tmp_path: Path) -> None:
    log = tmp_path / "a.jsonl"
    log.write_text('"increment"\n')
    done = cli("run", "countr", str(log))
    assert done.returncode == 1 and "unknown feature" in done.stderr
    done = cli("run", "counter", str(tmp_path / "missing.jsonl"))
    assert done.returncode == 1 and "missing.jsonl: cannot read" in done.stderr


def test_missing_library(cli: Run, child_env: dict[str, str], tmp_path: Path) -> None:
    """A missing $REDUCERKIT_LIB is an error even when the package carries a library."""
    env = dict(child_env, REDUCERKIT_LIB=str(tmp_path / "nope.so"))
    done = cli("features", env=env)
    assert done.returncode == 1
    assert f"$REDUCERKIT_LIB={tmp_path / 'nope.so'} does not exist" in done.stderr
    done = cli("--lib", str(tmp_path / "other.so"), "features")
    assert done.returncode == 1 and "other.so, does not exist" in done.stderr


def test_progress_bar(cli: Run, tmp_path: Path) -> None:
    log = tmp_path / "long.jsonl"
    log.write_text('"increment"\n' * 1500)
    done = cli("run", "counter", str(log), "--progress")
    assert done.returncode == 0, done.stderr
    assert "100.0% 1500/1500 lines" in done.stderr
    assert len(done.stdout.splitlines()) == 1500
    quiet = cli("run", "counter", str(log))  # stderr is not a terminal here
    assert quiet.stderr == ""


def test_usage_error(cli: Run) -> None:
    done = cli("run")
    assert done.returncode == 2 and "usage" in done.stderr


# Each command with the arguments it needs besides --lib.
_COMMAND_ARGS = {
    "features": [], "version": [], "run": ["counter", "-"], "check": ["."],
    "record": ["counter"], "fuzz": ["counter", "--invariant", "m:f"], "stubs": ["counter"],
    "snapshots": ["check", "."],
    "inspect": ["x.scenario.json"],
}
#: Commands that load no library: ``schema diff`` reads the two files (or libraries) it names.
_NO_LIBRARY = {"schema"}


def test_lib_is_taken_after_every_command(tmp_path: Path) -> None:
    """0.2.0: `--lib` after `features`, `run` or `version` was a usage error (it was only taken
    before the command, and after check/record/fuzz/stubs)."""
    from reducerkit import cli as cli_module

    parser = cli_module._parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert commands is not None and set(commands) == set(_COMMAND_ARGS) | _NO_LIBRARY
    missing = str(tmp_path / "elsewhere.so")
    for command, args in _COMMAND_ARGS.items():
        parsed = parser.parse_args([command, *args, "--lib", missing])
        assert parsed.lib == missing, command
        parsed = parser.parse_args(["--lib", missing, command, *args])
        assert parsed.lib == missing, command


@pytest.mark.parametrize("command", ["features", "version", "run"])
def test_lib_after_the_command_is_used(cli: Run, command: str, tmp_path: Path) -> None:
    done = cli(command, *_COMMAND_ARGS[command], "--lib", str(tmp_path / "other.so"), input="")
    assert done.returncode == 1 and "other.so, does not exist" in done.stderr, done.stderr
