"""``python -m reducerkit version``: the binding's and the library's versions, where the
library is, and the JSON backend."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from .. import _json
from .._native import Library
from ._common import OK, add_lib_option, register as _register

__all__ = ["register", "execute"]


def register(sub: Any) -> None:
    add_lib_option(_register(sub, "version", execute,
                             help="print the binding's and the library's versions"))


def execute(args: argparse.Namespace, lib: Library, out: TextIO, err: TextIO) -> int:
    from .. import __version__
    out.write(f"reducerkit (Python) {__version__}; library {lib.version} "
              f"(ABI {lib.abi_version}) at {lib.path}; JSON: {_json.backend()}\n")
    return OK
