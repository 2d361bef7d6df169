"""The command line: ``python -m reducerkit``.

```sh
python -m reducerkit features                            # also each feature's host endpoints
python -m reducerkit run counter actions.jsonl            # one state (JSON) per line
python -m reducerkit run todos actions.jsonl --diff       # what each action changed
python -m reducerkit run search actions.jsonl --clock test
python -m reducerkit check Tests/scenarios                # scenarios, as reducerkit-check
python -m reducerkit check Tests/scenarios --html out     # + a report of each failing one
python -m reducerkit record counter --clock test < session.jsonl > s.scenario.json
python -m reducerkit fuzz counter --invariant mymodule:count_is_small --examples 200
python -m reducerkit stubs counter > counter_types.py      # --lang c: a C header
python -m reducerkit snapshots check snapshots/           # saved states still restore
python -m reducerkit schema diff old.json new.json        # breaking schema changes
python -m reducerkit inspect s.scenario.json -o s.html     # a time-travel inspector page
```

Each command is a module of this package (``features``, ``run``, ``version``, ``check``,
``record``, ``fuzz``, ``stubs``, ``snapshots``, ``schema``, ``inspect``) whose
``register(subparsers)`` adds its subparser and sets its handler, ``execute(args, lib, out,
err)``; :func:`main` loads the library (``--lib``, before or after the command; not for
``schema diff``, which reads only the files it is given) and calls the handler.

Exit status, one convention for every command:

- **0**: the command did what was asked (``check``: every scenario passed; ``fuzz``: the
  invariant held; ``snapshots check``: every snapshot restored; ``schema diff``: no breaking
  change).
- **1**: the command failed: an input it was given was refused (an unknown feature, an action
  log's line, a session's line, a library that cannot be loaded, ...). From the commands
  that give a verdict, ``check``, ``fuzz``, ``snapshots check`` and ``schema diff``, 1 means
  only that: a scenario or the invariant failed, a snapshot did not restore, a change breaks.
- **2**: bad usage (arguments that do not parse). From the verdict commands, also anything
  else that kept them from reaching a verdict (a path that does not exist, a library that
  cannot be loaded, an invariant that cannot be imported, no ``reducerkit-check`` to replay
  through), so that their 1 always means a real failure, as for the C program
  ``reducerkit-check`` (and ``diff`` or ``grep``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from .._lifecycle import load_library
from .._native import Library
from ..errors import ReducerKitError
from . import check, features, fuzz, inspect, record, run, schema, snapshots, stubs, version
from ._common import OK, USAGE
from .features import summarize_schema

__all__ = ["main", "summarize_schema"]

#: The commands, in the order ``--help`` lists them.
COMMANDS = (features, run, version, check, record, fuzz, stubs, snapshots, schema, inspect)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m reducerkit",
        description="Drive ReducerKit stores (reducers written in Swift) from the command line.")
    parser.add_argument("--lib", metavar="PATH",
                        help="the libreducerkit file (default: $REDUCERKIT_LIB, then the "
                             "copy inside the package)")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None,
         err: TextIO | None = None) -> int:
    """Runs the command line; returns the exit status (see the module documentation)."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # argparse: --help (0) or bad usage (2)
        return int(e.code) if isinstance(e.code, int) else USAGE
    lib: Library | None = None
    if getattr(args, "needs_library", True):  # schema diff reads only the files it is given
        try:
            lib = load_library(args.lib) if args.lib else load_library()
        except ReducerKitError as e:
            err.write(f"reducerkit: {e.message}\n")
            return int(args.trouble)
    try:
        return int(args.handler(args, lib, out, err))
    except ReducerKitError as e:  # e.g. a library off the ABI (LibraryABIError)
        err.write(f"reducerkit: {e.message}\n")
        return int(args.trouble)
    except BrokenPipeError:  # e.g. piped into head
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the exit flush
        except OSError:  # pragma: no cover
            pass
        return OK
