"""``python -m reducerkit stubs FEATURE``: typed bindings of a feature, written from its JSON
Schemas: a Python module for ``mypy --strict`` (:func:`reducerkit.stubs.python_stubs`), or
with ``--lang c`` a C header (:func:`reducerkit.stubs.c_header`)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from .._lifecycle import features
from .._native import Library
from ..errors import ReducerKitError
from ._common import FAILED, OK, add_lib_option, register as _register

__all__ = ["register", "execute"]


def register(sub: Any) -> None:
    s = _register(
        sub, "stubs", execute,
        help="typed bindings of a feature: a Python module, or a C header",
        description="Writes, from the feature's JSON Schemas, a Python module (TypedDicts for "
                    "the state, the actions as a union of Literal names and TypedDicts, typed "
                    "Store and TestStore aliases, for mypy --strict), or with --lang c a C "
                    "header with one static inline sender per action.")
    s.add_argument("feature", help="a feature name, e.g. counter")
    s.add_argument("--lang", choices=("python", "c"), default="python",
                   help="python (default) or c")
    s.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    add_lib_option(s)


def execute(args: argparse.Namespace, lib: Library, out: TextIO, err: TextIO) -> int:
    from ..stubs import c_header, python_stubs
    from ..testing.strategies import feature_description
    try:
        description = feature_description(args.feature, lib)
    except ImportError:  # no Hypothesis: read the description directly
        found = [f for f in features(lib) if f.get("name") == args.feature]
        if not found:
            names = ", ".join(repr(f.get("name")) for f in features(lib))
            err.write(f"reducerkit stubs: unknown feature {args.feature!r}; the library has: "
                      f"{names}\n")
            return FAILED
        description = found[0]
    except ReducerKitError as e:
        err.write(f"reducerkit stubs: {e.message}\n")
        return FAILED
    try:
        text = c_header(description) if args.lang == "c" else python_stubs(description)
    except ValueError as e:  # text no literal can hold (rk_features() never prints it)
        err.write(f"reducerkit {e}\n")
        return FAILED
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        out.write(text)
    return OK
