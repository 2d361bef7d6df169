"""``python -m reducerkit schema diff OLD NEW``: the changes between two releases' features,
the breaking ones marked (see :mod:`reducerkit._schemadiff` for what breaks). OLD and NEW are
each ``rk_features()`` JSON (``python -m reducerkit features --json > v1.json``; a list of
features, or one feature's object) or a library file (``libscoreboard.so``: its
``rk_features()`` is read). Exit status 0 when nothing breaks, 1 when a change breaks, 2 for
bad usage or an input that cannot be read. No library is loaded but the ones named."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from .._native import Library
from ..errors import ReducerKitError
from ._common import FAILED, OK, USAGE, register as _register

__all__ = ["register", "execute", "read_features"]

_LIBRARY_SUFFIXES = (".so", ".dylib", ".dll")
_LIBRARY_MAGIC = (b"\x7fELF", b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"MZ")


def register(sub: Any) -> None:
    command = sub.add_parser(
        "schema", help="feature schemas: what changed between two releases",
        description="Commands on feature schemas (rk_features()).")
    command.set_defaults(handler=execute, trouble=USAGE, needs_library=False)
    actions = command.add_subparsers(dest="schema_command", required=True)
    diff = _register(
        actions, "diff", execute, checks=True,
        help="list the changes between two releases' features, marking the breaking ones",
        description="Lists the changes from OLD to NEW (each rk_features() JSON, as "
                    "`python -m reducerkit features --json` prints it, or a library file) and "
                    "marks the breaking ones: a removed or renamed action, field or endpoint, "
                    "a narrowed type, a state change without a state_version bump. Exit "
                    "status 0 when nothing breaks, 1 when a change breaks, 2 for bad usage.")
    diff.set_defaults(needs_library=False)
    diff.add_argument("old", metavar="OLD")
    diff.add_argument("new", metavar="NEW")


def read_features(path: str) -> list[dict[str, Any]]:
    """The features in ``path``: ``rk_features()`` JSON (a list, or one feature's object) or
    a library file. Raises ValueError saying what is wrong."""
    from .. import _json
    from .._files import read_file
    from .._lifecycle import features
    file = Path(path)
    try:
        data = read_file(file)
    except OSError as e:
        raise ValueError(f"{path}: cannot be read: {e.strerror or e}") from None
    if file.suffix in _LIBRARY_SUFFIXES or ".so." in file.name or data.startswith(_LIBRARY_MAGIC):
        try:
            return features(str(file.resolve()))
        except ReducerKitError as e:
            raise ValueError(f"{path}: {e.message}") from None
    try:
        value = _json.loads(data)
    except ValueError as e:
        raise ValueError(f"{path}: is neither a library nor JSON ({e})") from None
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not all(
            isinstance(f, dict) and isinstance(f.get("name"), str) for f in value):
        raise ValueError(f"{path}: expected rk_features() JSON: a list of features, each an "
                         f"object with a \"name\" string")
    return value


def execute(args: argparse.Namespace, lib: Library | None, out: TextIO, err: TextIO) -> int:
    from .._schemadiff import diff_features, format_changes
    try:
        old, new = read_features(args.old), read_features(args.new)
    except ValueError as e:
        err.write(f"reducerkit schema diff: {e}\n")
        return USAGE
    changes = diff_features(old, new)
    out.write(format_changes(changes))
    return FAILED if any(c.breaking for c in changes) else OK
