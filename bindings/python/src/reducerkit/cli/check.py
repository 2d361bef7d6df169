"""``python -m reducerkit check FILE_OR_DIRECTORY...``: runs scenario files as
``reducerkit-check`` does (a directory: the ``*.scenario.json`` files under it), printing a
line per scenario, then ``N passed, N failed``. Exit status 0 when all passed, 1 when one
failed, 2 for bad usage or a library that cannot be loaded. ``--html DIR`` also writes the
inspector's report of each failing scenario into ``DIR`` (the failure's lines say where)."""

from __future__ import annotations

import argparse
import os
from typing import Any, TextIO

from .._native import Library
from ._common import USAGE, add_lib_option, register as _register

__all__ = ["register", "execute"]


def register(sub: Any) -> None:
    command = _register(
        sub, "check", execute, checks=True,
        help="run scenario files (*.scenario.json) like reducerkit-check",
        description="Runs scenario files (a directory: the *.scenario.json files under it): one "
                    "line per scenario, then 'N passed, N failed'. Exit status 0 when all "
                    "passed, 1 when one failed, 2 for bad usage.")
    command.add_argument("files", nargs="+", metavar="FILE_OR_DIRECTORY")
    add_lib_option(command)
    command.add_argument("--timeout-ms", type=int, default=1000, metavar="N",
                         help="how long a step waits for effects (default 1000)")
    command.add_argument("--html", metavar="DIR",
                         help="write the inspector's report (HTML) of each failing scenario "
                              "into DIR (created if needed)")


def execute(args: argparse.Namespace, lib: Library, out: TextIO, err: TextIO) -> int:
    from ..testing.scenarios import check_files, scenario_files
    if args.timeout_ms <= 0:
        err.write(f"reducerkit check: --timeout-ms takes a whole number of milliseconds >= 1, "
                  f"not {args.timeout_ms}\n")
        return USAGE
    for path in args.files:
        if not os.path.exists(path):
            err.write(f"reducerkit check: {path}: no such file or directory\n")
            return USAGE
        if os.path.isdir(path) and not scenario_files(path):
            err.write(f"reducerkit check: {path} holds no *.scenario.json file\n")
            return USAGE
    if args.html is not None:
        try:
            os.makedirs(args.html, exist_ok=True)
        except OSError as e:
            err.write(f"reducerkit check: --html {args.html}: cannot create the directory: "
                      f"{e.strerror or e}\n")
            return USAGE
    return check_files(scenario_files(*args.files), out=out, library=lib,
                       timeout=args.timeout_ms / 1000, html=args.html)
