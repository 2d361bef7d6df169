"""``python -m reducerkit inspect FILE.scenario.json [-o FILE.html]``: replays a scenario (or a
recording) and writes the time-travel inspector's report, one self-contained HTML file (by
default beside the input: ``NAME.scenario.json`` -> ``NAME.html``). A scenario whose replay
differs from the file is still reported (the page marks the first divergent step): exit status
0. A file that cannot be read or is not a scenario, or an output that cannot be written: 1."""

from __future__ import annotations

import argparse
import os
from typing import Any, TextIO

from .._native import Library
from ._common import FAILED, OK, add_lib_option, register as _register

__all__ = ["register", "execute", "default_output"]


def register(sub: Any) -> None:
    command = _register(
        sub, "inspect", execute,
        help="write a time-travel inspector page (HTML) of a scenario or recording",
        description="Replays a scenario file (as check does) and writes one self-contained "
                    "HTML file: the steps on a timeline, each step's payload, patch and state, "
                    "time travel, the first divergent step of a failing scenario, and export "
                    "of a range of steps as a new scenario.")
    command.add_argument("file", metavar="FILE.scenario.json")
    command.add_argument("-o", "--output", metavar="FILE.html",
                         help="where to write the report (default: the input's name with "
                              ".html)")
    add_lib_option(command)
    command.add_argument("--timeout-ms", type=int, default=1000, metavar="N",
                         help="how long a step waits for effects (default 1000)")


def default_output(path: str) -> str:
    """``dir/name.scenario.json`` -> ``dir/name.html`` (another name: plus ``.html``)."""
    for suffix in (".scenario.json", ".json"):
        if path.endswith(suffix):
            return path[: -len(suffix)] + ".html"
    return path + ".html"


def execute(args: argparse.Namespace, lib: Library, out: TextIO, err: TextIO) -> int:
    from ..inspect import render_html
    from ..inspect.report import build_report
    from ..testing.scenarios import ScenarioError
    if args.timeout_ms <= 0:
        err.write(f"reducerkit inspect: --timeout-ms takes a whole number of milliseconds >= "
                  f"1, not {args.timeout_ms}\n")
        return FAILED
    if os.path.isdir(args.file):
        err.write(f"reducerkit inspect: {args.file} is a directory; give one *.scenario.json "
                  f"file\n")
        return FAILED
    try:
        data = build_report(args.file, lib, timeout=args.timeout_ms / 1000)
    except ScenarioError as e:
        err.write(f"reducerkit inspect: {e}\n")
        return FAILED
    target = args.output or default_output(args.file)
    try:
        with open(target, "w", encoding="utf-8") as f:
            f.write(render_html(data))
    except OSError as e:
        err.write(f"reducerkit inspect: cannot write {target}: {e.strerror or e}\n")
        return FAILED
    steps = len(data["steps"])
    divergence = data["divergence"]
    if data["error"]:
        verdict = f"; the replay could not start: {data['error']}"
    elif divergence:
        verdict = f"; the replay diverges at step {divergence['index']}"
    else:
        verdict = ""
    out.write(f"wrote {target}: {data['name']}, {steps} step(s){verdict}\n")
    return OK
