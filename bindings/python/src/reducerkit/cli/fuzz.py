"""``python -m reducerkit fuzz FEATURE --invariant MODULE:FUNCTION``: random action sequences
against an invariant (:func:`reducerkit.testing.check`; needs Hypothesis). On a failure it
writes the shrunk sequence as a scenario and exits 1."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any, TextIO

from .. import _json
from .._native import Library
from ..errors import ReducerKitError
from ._common import (
    FAILED,
    OK,
    USAGE,
    Progress,
    add_lib_option,
    add_progress_options,
    register as _register,
)

__all__ = ["register", "execute"]


def register(sub: Any) -> None:
    f = _register(
        sub, "fuzz", execute, checks=True,
        help="random action sequences against an invariant (needs Hypothesis)",
        description="Runs random sequences of valid actions, clock advances and answers to "
                    "host requests, calling the invariant after each step and replaying each "
                    "sequence through reducerkit-check; on a failure writes the shrunk sequence "
                    "as a scenario and exits 1 (see reducerkit.testing.check).")
    f.add_argument("feature", help="a feature name, e.g. counter")
    add_lib_option(f)
    f.add_argument("--invariant", required=True, metavar="MODULE:FUNCTION",
                   help="a function of the state that asserts (or returns False) when it "
                        "does not hold, e.g. checks:count_is_small")
    f.add_argument("--examples", type=int, default=100, metavar="N",
                   help="how many sequences (default 100)")
    f.add_argument("--steps", type=int, default=20, metavar="N",
                   help="at most this many steps per sequence (default 20)")
    f.add_argument("--seed", type=int, metavar="S", help="repeat the same sequences")
    f.add_argument("--initial-state", metavar="JSON",
                   help="an object merged over the feature's default state")
    f.add_argument("--out", metavar="FILE",
                   help="the reproducer (default: FEATURE-failure.scenario.json)")
    f.add_argument("--no-differential", action="store_true",
                   help="do not replay the sequences through reducerkit-check")
    add_progress_options(f)


def _load_invariant(spec: str) -> Any:
    module_name, sep, function = spec.partition(":")
    if not sep or not module_name or not function:
        raise ValueError(f"--invariant {spec!r}: expected MODULE:FUNCTION, e.g. "
                         f"checks:count_is_small")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(f"--invariant {spec!r}: cannot import {module_name!r}: {e}") from None
    fn = getattr(module, function, None)
    if not callable(fn):
        raise ValueError(f"--invariant {spec!r}: {module_name} has no function {function!r}")
    return fn


def execute(args: argparse.Namespace, lib: Library, out: TextIO, err: TextIO) -> int:
    try:
        invariant = _load_invariant(args.invariant)
    except ValueError as e:
        err.write(f"reducerkit fuzz: {e}\n")
        return USAGE
    if args.examples < 1 or args.steps < 0:
        err.write("reducerkit fuzz: --examples takes a number >= 1, --steps one >= 0\n")
        return USAGE
    initial = None
    if args.initial_state is not None:
        try:
            initial = _json.loads(args.initial_state)
        except ValueError as e:
            err.write(f"--initial-state: invalid JSON: {e}\n")
            return USAGE
    try:
        from ..testing.fuzz import CHECKER_NOT_FOUND, InvariantFailure, check, find_checker
    except ImportError as e:
        err.write(f"reducerkit fuzz: {e}\n")
        return USAGE
    if not args.no_differential and find_checker(lib) is None:
        err.write(f"reducerkit fuzz: {CHECKER_NOT_FOUND}; or pass --no-differential\n")
        return USAGE
    show = args.progress or (args.progress is None and err.isatty())
    bar = Progress(args.examples, err, f"fuzz {args.feature}", unit="sequences") if show else None
    runs = [0]

    def progress(n: int) -> None:
        runs[0] = n
        if bar is not None:
            bar.update(n)

    try:
        check(args.feature, invariant, max_examples=args.examples, steps=args.steps,
              seed=args.seed, library=lib, initial_state=initial, reproducer=args.out,
              differential=not args.no_differential, progress=progress)
    except InvariantFailure as e:
        if bar is not None:
            bar.close(runs[0])
        err.write(f"reducerkit fuzz: {e}\n")
        return FAILED
    except ReducerKitError as e:
        if bar is not None:
            bar.close(runs[0])
        err.write(f"reducerkit fuzz: {e.message}\n")
        return USAGE
    if bar is not None:
        bar.close(runs[0])
    out.write(f"{args.feature}: the invariant held in {runs[0]} random sequences of up to "
              f"{args.steps} steps" + ("" if args.no_differential else
                                       ", and reducerkit-check agreed on every state") + "\n")
    return OK
