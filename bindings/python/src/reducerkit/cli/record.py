"""``python -m reducerkit record FEATURE``: records a session read from stdin (JSON lines: an
action, ``{"advance_ms": N}``, ``{"resolve": ID, "response": R}``, ``{"fail": ID, "message":
M}``) and writes it as a scenario (``*.scenario.json``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from .. import _json
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
    member_as_written,
    register as _register,
    send_as_written,
)

__all__ = ["register", "execute"]


def register(sub: Any) -> None:
    r = _register(
        sub, "record", execute,
        help="record a session read from stdin as a scenario",
        description="Reads JSON lines on stdin: an action per line, or {\"advance_ms\": N} "
                    "(the test clock), {\"resolve\": ID, \"response\": R} or {\"fail\": ID, "
                    "\"message\": M} (answers to requests of --provide endpoints; ids count "
                    "from 1). Writes the session as a scenario (*.scenario.json) that replays "
                    "in reducerkit-check, the Swift runner and run_scenario. An action or "
                    "answer the library refuses is recorded as an error step, with a warning.")
    r.add_argument("feature", help="a feature name, e.g. counter")
    add_lib_option(r)
    r.add_argument("--initial-state", metavar="JSON",
                   help="an object merged over the feature's default state")
    r.add_argument("--clock", choices=("live", "test"), default="test",
                   help="the store's clock (default: test, so the scenario replays exactly)")
    r.add_argument("--provide", action="append", default=[], metavar="ENDPOINT",
                   help="a host endpoint whose requests the input answers (repeatable)")
    r.add_argument("--name", help="the scenario's name (default: 'a recorded session of "
                                  "FEATURE')")
    r.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    r.add_argument("--wait", type=float, default=1.0, metavar="SECONDS",
                   help="after the input, wait this long for running effects (default 1)")
    add_progress_options(r)


def _record_line(store: Store, value: Any, text: str) -> None:
    """Applies one input line (``text``, read as ``value``) to the recorded store."""
    if isinstance(value, dict) and len(value) == 1 and "advance_ms" in value:
        store.advance(milliseconds=value["advance_ms"])
    elif isinstance(value, dict) and "resolve" in value and set(value) <= {"resolve", "response"}:
        if "response" not in value:
            raise ValueError('{"resolve": ID} needs a "response"')
        written = member_as_written(text, "response")
        if written is None:
            raise ValueError('{"resolve": ID, "response": R}: a member given twice')
        store.resolve(value["resolve"], written)
    elif isinstance(value, dict) and "fail" in value and set(value) <= {"fail", "message"}:
        if not isinstance(value.get("message"), str):
            raise ValueError('{"fail": ID} needs a "message" string')
        store.fail(value["fail"], value["message"])
    else:
        send_as_written(store, text)


def execute(args: argparse.Namespace, lib: Library, out: TextIO, err: TextIO) -> int:
    initial = None
    if args.initial_state is not None:
        try:
            initial = _json.loads(args.initial_state)
        except ValueError as e:
            err.write(f"--initial-state: invalid JSON: {e}\n")
            return FAILED
    try:
        lines = sys.stdin.read().splitlines()
    except UnicodeDecodeError as e:
        err.write(f"<stdin>: not UTF-8 text: {e}\n")
        return FAILED
    try:
        store = Store(args.feature, initial_state=initial, clock=args.clock,
                      provide=args.provide or None, library=lib, record=True)
    except ReducerKitError as e:
        err.write(f"reducerkit: {e.message}\n")
        return FAILED
    if args.name is not None:
        try:  # checked before the session, not after it
            store.scenario(args.name)
        except ValueError as e:
            store.close()
            err.write(f"--name: {e}\n")
            return FAILED
    show = args.progress or (args.progress is None and len(lines) > PROGRESS_THRESHOLD
                             and err.isatty())
    progress = Progress(len(lines), err, "<stdin>") if show else None
    newline = "\n" if progress is not None else ""
    with store:
        for number, line in enumerate(lines, start=1):
            if progress is not None:
                progress.update(number)
            text = line.strip()
            if not text:
                continue
            try:
                value = _json.loads(text)
            except ValueError as e:
                err.write(f"{newline}<stdin>:{number}: invalid JSON: {e}\n")
                return FAILED
            try:
                _record_line(store, value, text)
            except ReducerKitError as e:
                err.write(f"{newline}<stdin>:{number}: recorded as an error step: {e.message}\n")
            except (ValueError, TypeError) as e:
                err.write(f"{newline}<stdin>:{number}: {e}\n")
                return FAILED
        if progress is not None:
            progress.close(len(lines))
        if args.wait > 0:
            try:
                store.wait_idle(args.wait)
            except ReducerKitError:
                pass  # still running (a timer, an unanswered request): no finish step
        scenario = store.scenario(args.name)
    text = json.dumps(scenario, indent=2, ensure_ascii=False)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        out.write(text + "\n")
    return OK
