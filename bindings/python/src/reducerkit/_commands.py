"""The command line's commands beyond ``features``/``run``/``check``/``version`` (see
:mod:`reducerkit.cli`): each adds a subparser and registers its handler in
``cli._EXTRA_COMMANDS``."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_commands"]


def add_commands(sub: Any) -> None:
    """Adds the commands to the ``python -m reducerkit`` subparsers ``sub``."""
    from . import cli
    for name, (add, run) in _COMMANDS.items():
        add(sub)
        cli._EXTRA_COMMANDS[name] = run


# ---- record ------------------------------------------------------------------------------

def _add_record(sub: Any) -> None:
    r = sub.add_parser(
        "record", help="record a session read from stdin as a scenario",
        description="Reads JSON lines on stdin: an action per line, or {\"advance_ms\": N} "
                    "(the test clock), {\"resolve\": ID, \"response\": R} or {\"fail\": ID, "
                    "\"message\": M} (answers to requests of --provide endpoints; ids count "
                    "from 1). Writes the session as a scenario (*.scenario.json) that replays "
                    "in reducerkit-check, the Swift runner and run_scenario. An action or "
                    "answer the library refuses is recorded as an error step, with a warning.")
    r.add_argument("feature", help="a feature name, e.g. counter")
    r.add_argument("--lib", metavar="PATH", default=argparse.SUPPRESS,
                   help="the library (as before the command)")
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
    g = r.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="always draw a progress bar on stderr")
    g.add_argument("--no-progress", dest="progress", action="store_false",
                   help="never draw a progress bar")


def _record_line(store: Any, value: Any) -> None:
    """Applies one input line to the recorded store."""
    if isinstance(value, dict) and len(value) == 1 and "advance_ms" in value:
        store.advance(milliseconds=value["advance_ms"])
    elif isinstance(value, dict) and "resolve" in value and set(value) <= {"resolve", "response"}:
        if "response" not in value:
            raise ValueError('{"resolve": ID} needs a "response"')
        store.resolve(value["resolve"], value["response"])
    elif isinstance(value, dict) and "fail" in value and set(value) <= {"fail", "message"}:
        if not isinstance(value.get("message"), str):
            raise ValueError('{"fail": ID} needs a "message" string')
        store.fail(value["fail"], value["message"])
    else:
        store.send(value)


def _run_record(args: argparse.Namespace, lib: Any, out: Any, err: Any) -> int:
    import sys

    from . import _json
    from .cli import PROGRESS_THRESHOLD, _Progress
    from .errors import ReducerKitError
    from .store import Store
    initial = None
    if args.initial_state is not None:
        try:
            initial = _json.loads(args.initial_state)
        except ValueError as e:
            err.write(f"--initial-state: invalid JSON: {e}\n")
            return 1
    try:
        lines = sys.stdin.read().splitlines()
    except UnicodeDecodeError as e:
        err.write(f"<stdin>: not UTF-8 text: {e}\n")
        return 1
    try:
        store = Store(args.feature, initial_state=initial, clock=args.clock,
                      provide=args.provide or None, library=lib, record=True)
    except ReducerKitError as e:
        err.write(f"reducerkit: {e.message}\n")
        return 1
    show = args.progress or (args.progress is None and len(lines) > PROGRESS_THRESHOLD
                             and err.isatty())
    progress = _Progress(len(lines), err, "<stdin>") if show else None
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
                return 1
            try:
                _record_line(store, value)
            except ReducerKitError as e:
                err.write(f"{newline}<stdin>:{number}: recorded as an error step: {e.message}\n")
            except (ValueError, TypeError) as e:
                err.write(f"{newline}<stdin>:{number}: {e}\n")
                return 1
        if progress is not None:
            progress.close(len(lines))
        if args.wait > 0:
            try:
                store.wait_idle(args.wait)
            except ReducerKitError:
                pass  # still running (a timer, an unanswered request): no finish step
        scenario = store.scenario(args.name)
    import json
    text = json.dumps(scenario, indent=2, ensure_ascii=False)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        out.write(text + "\n")
    return 0


# ---- fuzz --------------------------------------------------------------------------------

def _add_fuzz(sub: Any) -> None:
    f = sub.add_parser(
        "fuzz", help="random action sequences against an invariant (needs Hypothesis)",
        description="Runs random sequences of valid actions, clock advances and answers to "
                    "host requests, calling the invariant after each step and replaying each "
                    "sequence through reducerkit-check; on a failure writes the shrunk sequence "
                    "as a scenario and exits 1 (see reducerkit.testing.check).")
    f.add_argument("feature", help="a feature name, e.g. counter")
    f.add_argument("--lib", metavar="PATH", default=argparse.SUPPRESS,
                   help="the library (as before the command)")
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
    g = f.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="always draw a progress bar on stderr")
    g.add_argument("--no-progress", dest="progress", action="store_false",
                   help="never draw a progress bar")


def _load_invariant(spec: str) -> Any:
    import importlib
    import os
    import sys
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


def _run_fuzz(args: argparse.Namespace, lib: Any, out: Any, err: Any) -> int:
    from . import _json
    from .cli import _Progress
    from .errors import ReducerKitError
    try:
        invariant = _load_invariant(args.invariant)
    except ValueError as e:
        err.write(f"reducerkit fuzz: {e}\n")
        return 2
    if args.examples < 1 or args.steps < 0:
        err.write("reducerkit fuzz: --examples takes a number >= 1, --steps one >= 0\n")
        return 2
    initial = None
    if args.initial_state is not None:
        try:
            initial = _json.loads(args.initial_state)
        except ValueError as e:
            err.write(f"--initial-state: invalid JSON: {e}\n")
            return 2
    try:
        from .testing.fuzz import CHECKER_NOT_FOUND, InvariantFailure, check, find_checker
    except ImportError as e:
        err.write(f"reducerkit fuzz: {e}\n")
        return 2
    if not args.no_differential and find_checker(lib) is None:
        err.write(f"reducerkit fuzz: {CHECKER_NOT_FOUND}; or pass --no-differential\n")
        return 2
    show = args.progress or (args.progress is None and err.isatty())
    bar = _Progress(args.examples, err, f"fuzz {args.feature}", unit="sequences") if show else None
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
        return 1
    except ReducerKitError as e:
        if bar is not None:
            bar.close(runs[0])
        err.write(f"reducerkit fuzz: {e.message}\n")
        return 2
    if bar is not None:
        bar.close(runs[0])
    out.write(f"{args.feature}: the invariant held in {runs[0]} random sequences of up to "
              f"{args.steps} steps" + ("" if args.no_differential else
                                       ", and reducerkit-check agreed on every state") + "\n")
    return 0


# ---- stubs -------------------------------------------------------------------------------

def _add_stubs(sub: Any) -> None:
    s = sub.add_parser(
        "stubs", help="typed bindings of a feature: a Python module, or a C header",
        description="Writes, from the feature's JSON Schemas, a Python module (TypedDicts for "
                    "the state, the actions as a union of Literal names and TypedDicts, typed "
                    "Store and TestStore aliases, for mypy --strict), or with --lang c a C "
                    "header with one static inline sender per action.")
    s.add_argument("feature", help="a feature name, e.g. counter")
    s.add_argument("--lang", choices=("python", "c"), default="python",
                   help="python (default) or c")
    s.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    s.add_argument("--lib", metavar="PATH", default=argparse.SUPPRESS,
                   help="the library (as before the command)")


def _run_stubs(args: argparse.Namespace, lib: Any, out: Any, err: Any) -> int:
    from .errors import ReducerKitError
    from .stubs import c_header, python_stubs
    from .testing.strategies import feature_description
    try:
        description = feature_description(args.feature, lib)
    except ImportError:  # no Hypothesis: read the description directly
        from .store import features
        found = [f for f in features(lib) if f.get("name") == args.feature]
        if not found:
            names = ", ".join(repr(f.get("name")) for f in features(lib))
            err.write(f"reducerkit stubs: unknown feature {args.feature!r}; the library has: "
                      f"{names}\n")
            return 1
        description = found[0]
    except ReducerKitError as e:
        err.write(f"reducerkit stubs: {e.message}\n")
        return 1
    try:
        text = c_header(description) if args.lang == "c" else python_stubs(description)
    except ValueError as e:  # text no literal can hold (rk_features() never prints it)
        err.write(f"reducerkit {e}\n")
        return 1
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        out.write(text)
    return 0


_COMMANDS: dict[str, tuple[Any, Any]] = {
    "record": (_add_record, _run_record),
    "fuzz": (_add_fuzz, _run_fuzz),
    "stubs": (_add_stubs, _run_stubs),
}
