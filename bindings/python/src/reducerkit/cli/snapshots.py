"""``python -m reducerkit snapshots check DIR``: restores every snapshot file of ``DIR`` with
the library (:func:`reducerkit.testing.check_snapshots`; the snapshot files are the
``*.json`` files directly in ``DIR``, except ``*.scenario.json``). Prints a line per file,
then ``N restored, N failed``. Exit status 0 when every file restored, 1 when one did not, 2
for bad usage, a directory without snapshot files, or a library that cannot be loaded."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from .._native import Library
from ._common import FAILED, OK, USAGE, add_lib_option, register as _register

__all__ = ["register", "execute"]


def register(sub: Any) -> None:
    command = sub.add_parser(
        "snapshots", help="saved state: check that snapshot files still restore",
        description="Commands on snapshot files (documents Store.snapshot() and "
                    "rk_store_snapshot() write).")
    command.set_defaults(handler=execute, trouble=USAGE)
    actions = command.add_subparsers(dest="snapshots_command", required=True)
    check = _register(
        actions, "check", execute, checks=True,
        help="restore every snapshot file (*.json) of a directory with the library",
        description="Restores every snapshot file of DIR (its *.json files, except "
                    "*.scenario.json) with the library, migrating older state versions: one "
                    "line per file, then 'N restored, N failed'. Exit status 0 when all "
                    "restored, 1 when one did not, 2 for bad usage.")
    check.add_argument("directory", metavar="DIR")
    add_lib_option(check)


def execute(args: argparse.Namespace, lib: Library, out: TextIO, err: TextIO) -> int:
    from ..testing.snapshots import _check_file, snapshot_files
    try:
        files = snapshot_files(args.directory)
    except FileNotFoundError as e:
        err.write(f"reducerkit snapshots check: {e}\n")
        return USAGE
    if not files:
        err.write(f"reducerkit snapshots check: {args.directory} holds no snapshot file "
                  f"(*.json)\n")
        return USAGE
    failed = 0
    for path in files:
        problem = _check_file(path, lib)
        if problem is None:
            out.write(f"ok    {path}\n")
        else:
            failed += 1
            out.write(f"FAIL  {problem}\n")
    out.write(f"{len(files) - failed} restored, {failed} failed\n")
    return FAILED if failed else OK
