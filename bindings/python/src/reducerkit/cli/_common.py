"""What the commands share: the exit statuses, the ``--lib`` and ``--progress`` options, and
the progress bar."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any, TextIO

from .._native import Library
from ..store import Store

__all__ = ["OK", "FAILED", "USAGE", "Handler", "PROGRESS_THRESHOLD", "Progress", "register",
           "add_lib_option", "add_progress_options", "send_as_written", "member_as_written"]

#: Exit status: the command did what was asked (``check``: every scenario passed; ``fuzz``:
#: the invariant held).
OK = 0
#: Exit status: the command failed; from ``check`` and ``fuzz``, only that a scenario or the
#: invariant failed (see the package's documentation).
FAILED = 1
#: Exit status: bad usage; from ``check`` and ``fuzz``, also anything else that kept them
#: from checking.
USAGE = 2

#: A command: ``handler(args, lib, out, err)`` returns the exit status.
Handler = Callable[[argparse.Namespace, Library, TextIO, TextIO], int]

#: ``run`` and ``record`` draw a progress bar for inputs longer than this many lines when
#: stderr is a terminal.
PROGRESS_THRESHOLD = 1000


def send_as_written(store: Store[Any, Any], line: str) -> None:
    """Sends one input line's JSON text as written (``run`` and ``record``): the library judges
    it (a key given twice, a number beyond 64 bits), not Python's reading of it, in which the
    last of two keys won."""
    store.send(line.encode("utf-8"))


_DECODER = json.JSONDecoder()
_SPACE = " \t\n\r"


def member_as_written(line: str, key: str) -> bytes | None:
    """The JSON text of member ``key`` of the object ``line``, as written (``record``'s
    ``{"resolve": ID, "response": R}`` hands R to the library as written, so it judges a key
    given twice inside R, as it does in a sent action); ``None`` when the line is not an
    object with that member once. Python reads the members only to find where each ends."""
    i = len(line) - len(line.lstrip(_SPACE))
    if not line.startswith("{", i):
        return None
    found: bytes | None = None
    seen: set[str] = set()
    i += 1
    try:
        while True:
            while i < len(line) and line[i] in _SPACE:
                i += 1
            if line.startswith("}", i) and not seen:
                return None
            name, i = _DECODER.raw_decode(line, i)
            if not isinstance(name, str) or name in seen:
                return None
            seen.add(name)
            while i < len(line) and line[i] in _SPACE:
                i += 1
            if not line.startswith(":", i):
                return None
            i += 1
            while i < len(line) and line[i] in _SPACE:
                i += 1
            start = i
            _, i = _DECODER.raw_decode(line, i)
            if name == key:
                found = line[start:i].encode("utf-8")
            while i < len(line) and line[i] in _SPACE:
                i += 1
            if line.startswith("}", i):
                return found
            if not line.startswith(",", i):
                return None
            i += 1
    except (ValueError, RecursionError):
        return None


def add_lib_option(command: argparse.ArgumentParser) -> None:
    """``--lib PATH`` after the command too (``python -m reducerkit features --lib PATH``)."""
    command.add_argument("--lib", metavar="PATH", default=argparse.SUPPRESS,
                         help="the library (as before the command)")


def add_progress_options(command: argparse.ArgumentParser) -> None:
    """``--progress`` / ``--no-progress`` (default: a bar when stderr is a terminal)."""
    group = command.add_mutually_exclusive_group()
    group.add_argument("--progress", dest="progress", action="store_true", default=None,
                       help="always draw a progress bar on stderr")
    group.add_argument("--no-progress", dest="progress", action="store_false",
                       help="never draw a progress bar")


class Progress:
    """A one-line progress bar on a stream, redrawn at most 10 times a second."""

    def __init__(self, total: int, stream: TextIO, label: str, unit: str = "lines") -> None:
        self.total = total
        self.stream = stream
        self.label = label
        self.unit = unit
        self.start = time.monotonic()
        self.last = 0.0

    def update(self, done: int, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < 0.1:
            return
        self.last = now
        width = 30
        fraction = min(done / self.total, 1.0) if self.total else 1.0
        filled = int(width * fraction)
        rate = done / (now - self.start) if now > self.start else 0.0
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] "
                          f"{fraction * 100:5.1f}% {done}/{self.total} {self.unit} "
                          f"{rate:,.0f}/s")
        self.stream.flush()

    def close(self, done: int) -> None:
        self.update(done, force=True)
        self.stream.write("\n")
        self.stream.flush()


def register(sub: Any, name: str, handler: Handler, *, checks: bool = False,
             **parser_options: Any) -> argparse.ArgumentParser:
    """Adds command ``name`` to the subparsers ``sub``, run by ``handler``. ``checks``: the
    command gives a verdict (``check``, ``fuzz``), so anything that keeps it from reaching one
    exits :data:`USAGE`, and :data:`FAILED` means only a failed check."""
    command: argparse.ArgumentParser = sub.add_parser(name, **parser_options)
    command.set_defaults(handler=handler, trouble=USAGE if checks else FAILED)
    return command
