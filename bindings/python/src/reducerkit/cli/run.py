"""``python -m reducerkit run FEATURE ACTIONS.jsonl``: applies an action log, one JSON action
per line (blank lines are skipped), and prints the state after each (``--diff``: what each
changed). An error names the file and line (``actions.jsonl:3: unknown action ...``) and exits
with status 1. A progress bar is drawn on stderr for logs longer than 1,000 lines when stderr
is a terminal (or with ``--progress``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from .. import _json
from .._diff import json_diff
from .._files import read_file
from .._native import Library
from ..errors import ReducerKitError
from ..store import Store
from ._common import (
    FAILED,
    OK,
    PROGRESS_THRESHOLD,
    Progress,
    add_lib_option,
    add_progress_options,
    register as _register,
    send_as_written,
)

__all__ = ["register", "execute"]


def register(sub: Any) -> None:
    command = _register(sub, "run", execute,
                        help="apply an action log (one JSON action per line)")
    command.add_argument("feature", help="a feature name, e.g. counter")
    command.add_argument("actions", metavar="ACTIONS.jsonl", help="the action log ('-': stdin)")
    command.add_argument("--clock", choices=("live", "test"), default="live",
                         help="the store's clock (default: live)")
    command.add_argument("--diff", action="store_true",
                         help="print what each action changed instead of each state")
    command.add_argument("--initial-state", metavar="JSON",
                         help="an object merged over the feature's default state")
    command.add_argument("--wait", type=float, default=1.0, metavar="SECONDS",
                         help="after the log, wait this long for effects and print the final "
                              "state if they changed it (default: 1; 0: do not wait)")
    add_progress_options(command)
    add_lib_option(command)


def _read_lines(path: str) -> list[str]:
    if path == "-":
        return sys.stdin.read().splitlines()
    return read_file(path).decode("utf-8").splitlines()


def _looks_like_scenario(path: str, lines: list[str]) -> bool:
    """A ``*.scenario.json`` file, or a JSON object with ``"steps"`` (a scenario spread over
    several lines, which is no action log)."""
    if path.endswith(".scenario.json"):
        return True
    try:
        value = _json.loads("\n".join(lines))
    except ValueError:
        return False
    return isinstance(value, dict) and "steps" in value and "feature" in value


def execute(args: argparse.Namespace, lib: Library, out: TextIO, err: TextIO) -> int:
    label = "<stdin>" if args.actions == "-" else args.actions
    try:
        lines = _read_lines(args.actions)
    except OSError as e:
        err.write(f"{label}: cannot read: {e.strerror or e}\n")
        return FAILED
    except UnicodeDecodeError as e:
        err.write(f"{label}: not UTF-8 text: {e}\n")
        return FAILED
    if _looks_like_scenario(args.actions, lines):
        err.write(f"{label}: this is a scenario: use `check` (python -m reducerkit check "
                  f"{label}); `run` reads an action log, one JSON action per line\n")
        return FAILED
    initial = None
    if args.initial_state is not None:
        try:
            initial = _json.loads(args.initial_state)
        except ValueError as e:
            err.write(f"--initial-state: invalid JSON: {e}\n")
            return FAILED
    try:
        store = Store(args.feature, initial_state=initial, clock=args.clock, library=lib)
    except ReducerKitError as e:
        err.write(f"reducerkit: {e.message}\n")
        return FAILED
    show_progress = args.progress or (
        args.progress is None and len(lines) > PROGRESS_THRESHOLD and err.isatty())
    progress = Progress(len(lines), err, label) if show_progress else None
    write = out.write
    newline = "\n" if progress is not None else ""  # end the progress line before errors
    status = OK
    done = 0
    with store:
        previous = store.state
        if args.diff:
            write(f"# initial state\n{_json.pretty(previous)}\n")
        for number, line in enumerate(lines, start=1):
            text = line.strip()
            done = number
            if progress is not None:
                progress.update(number)
            if not text:
                continue
            try:
                action = _json.loads(text)
            except ValueError as e:
                err.write(f"{newline}{label}:{number}: invalid JSON: {e}\n")
                status = FAILED
                break
            try:
                send_as_written(store, text)
            except ReducerKitError as e:
                err.write(f"{newline}{label}:{number}: {e.message}\n")
                status = FAILED
                break
            state = store.state
            if args.diff:
                diff = json_diff(previous, state, before_label="before", after_label="after",
                                 context=1)
                write(f"# {number}: {_json.compact(action)}\n"
                      + (diff + "\n" if diff else "(no change)\n"))
            else:
                write(_json.compact(state) + "\n")
            previous = state
        if progress is not None:
            progress.close(done)
        if status == OK and args.wait > 0:
            version = store.version
            try:
                store.wait_idle(args.wait)
            except ReducerKitError as e:
                err.write(f"reducerkit: effects still running after --wait {args.wait}: "
                          f"{e.message}\n")
            if store.version != version:
                state = store.state
                if args.diff:
                    diff = json_diff(previous, state, before_label="before",
                                     after_label="after", context=1)
                    write(f"# after effects\n{diff}\n")
                else:
                    write(_json.compact(state) + "\n")
    return status
