"""The command line: ``python -m reducerkit``.

```sh
python -m reducerkit features                            # also each feature's host endpoints
python -m reducerkit run counter actions.jsonl            # one state (JSON) per line
python -m reducerkit run todos actions.jsonl --diff       # what each action changed
python -m reducerkit run search actions.jsonl --clock test
python -m reducerkit check Tests/scenarios                # scenarios, as reducerkit-check
python -m reducerkit record counter --clock test < session.jsonl > s.scenario.json
python -m reducerkit fuzz counter --invariant mymodule:count_is_small --examples 200
python -m reducerkit stubs counter > counter_types.py      # --lang c: a C header
```

``run`` applies one JSON action per line (blank lines are skipped). An error names the file
and line (``actions.jsonl:3: unknown action ...``) and exits with status 1. A progress bar
is drawn on stderr for logs longer than 1,000 lines when stderr is a terminal (or with
``--progress``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from . import _json
from ._diff import json_diff
from ._native import Library
from .errors import ReducerKitError
from .store import Store, features, load_library

__all__ = ["main", "summarize_schema"]

# record, fuzz and stubs (reducerkit/_commands.py): name -> handler(args, lib, out, err).
_EXTRA_COMMANDS: dict[str, Any] = {}

PROGRESS_THRESHOLD = 1000


# ---- schema summaries --------------------------------------------------------------------

def _type_name(schema: Any) -> str:
    """A short type for a JSON Schema: ``integer``, ``string?``, ``[string]``,
    ``(title: string)``, ``all|active|completed``."""
    if not isinstance(schema, dict):
        return "any"
    if "const" in schema:
        return _json.compact(schema["const"])
    if "enum" in schema:
        return "|".join(str(v) for v in schema["enum"])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            options = schema[key]
            non_null = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
            if len(non_null) == 1 and len(options) == 2:
                return _type_name(non_null[0]) + "?"
            return "|".join(_type_name(o) for o in options)
    kind = schema.get("type")
    if isinstance(kind, list):
        names = [k for k in kind if k != "null"]
        base = "|".join(_type_name({**schema, "type": k}) for k in names)
        return base + "?" if "null" in kind else base
    if kind == "array":
        items = schema.get("items")
        if isinstance(items, list):  # a tuple (prefixItems style)
            return "(" + ", ".join(_type_name(i) for i in items) + ")"
        if "prefixItems" in schema:
            return "(" + ", ".join(_type_name(i) for i in schema["prefixItems"]) + ")"
        return f"[{_type_name(items)}]"
    if kind == "object" and isinstance(schema.get("properties"), dict):
        props = schema["properties"]
        return "(" + ", ".join(f"{k}: {_type_name(v)}" for k, v in props.items()) + ")"
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    return str(kind) if kind else "any"


def summarize_schema(action_schema: Any) -> list[str]:
    """The cases of an action schema: ``["increment", "setCount(integer)", ...]``."""
    if not isinstance(action_schema, dict):
        return []
    cases: list[str] = []
    options = action_schema.get("oneOf") or action_schema.get("anyOf")
    if options is None:
        options = [action_schema]
    for option in options:
        if not isinstance(option, dict):
            continue
        if "const" in option and isinstance(option["const"], str):
            cases.append(option["const"])
        elif "enum" in option:
            cases.extend(str(v) for v in option["enum"])
        elif option.get("type") == "object" and isinstance(option.get("properties"), dict):
            props = option["properties"]
            if len(props) == 1:
                (name, payload), = props.items()
                inner = _type_name(payload)
                if inner.startswith("(") and inner.endswith(")"):
                    cases.append(f"{name}{inner}")
                else:
                    cases.append(f"{name}({inner})")
            else:
                cases.append(_type_name(option))
        elif "oneOf" in option or "anyOf" in option:
            nested = option.get("oneOf") or option.get("anyOf") or []
            names = [o["const"] for o in nested
                     if isinstance(o, dict) and isinstance(o.get("const"), str)]
            # A case without payload: "increment", and its alternate spellings
            # {"increment": {}} / {"increment": null}, which name the same case.
            cases.extend(names if names else summarize_schema(option))
        else:
            cases.append(_type_name(option))
    return cases


def _state_summary(state_schema: Any) -> str:
    if isinstance(state_schema, dict) and isinstance(state_schema.get("properties"), dict):
        return ", ".join(f"{k}: {_type_name(v)}" for k, v in state_schema["properties"].items())
    return _type_name(state_schema)


# ---- commands ----------------------------------------------------------------------------

def _cmd_features(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    items = features(lib)
    if args.json:
        out.write(_json.pretty(items) + "\n")
        return 0
    for item in items:
        name = item.get("name", "?")
        description = item.get("description") or ""
        out.write(f"{name}" + (f" - {description}" if description else "") + "\n")
        cases = summarize_schema(item.get("action_schema"))
        if cases:
            out.write(f"  actions: {', '.join(cases)}\n")
        if "state_schema" in item:
            out.write(f"  state:   {_state_summary(item['state_schema'])}\n")
        if "initial_state" in item:
            out.write(f"  initial: {_json.compact(item['initial_state'])}\n")
        endpoints = [_endpoint_summary(e) for e in item.get("requests") or []
                     if isinstance(e, dict)]
        if endpoints:
            out.write(f"  endpoints: {', '.join(endpoints)}\n")
    return 0


def _endpoint_summary(endpoint: dict[str, Any]) -> str:
    """``numberFact(integer) -> string``: an endpoint with its payload and response types."""
    return (f"{endpoint.get('name', '?')}({_type_name(endpoint.get('payload_schema'))}) -> "
            f"{_type_name(endpoint.get('response_schema'))}")


class _Progress:
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


def _read_lines(path: str) -> list[str]:
    if path == "-":
        return sys.stdin.read().splitlines()
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def _looks_like_scenario(path: str, lines: list[str]) -> bool:
    """A ``*.scenario.json`` file, or a JSON object with ``"steps"`` (a scenario spread over
    several lines, which is no action log)."""
    if path.endswith(".scenario.json"):
        return True
    try:
        value = _json.loads("\n".join(lines))
    except ValueError:
        return False
    return isinstance(value, dict) and "steps" in value and "feature" in value


def _cmd_run(args: argparse.Namespace, lib: Library, out: TextIO, err: TextIO) -> int:
    label = "<stdin>" if args.actions == "-" else args.actions
    try:
        lines = _read_lines(args.actions)
    except OSError as e:
        err.write(f"{label}: cannot read: {e.strerror or e}\n")
        return 1
    except UnicodeDecodeError as e:
        err.write(f"{label}: not UTF-8 text: {e}\n")
        return 1
    if _looks_like_scenario(args.actions, lines):
        err.write(f"{label}: this is a scenario: use `check` (python -m reducerkit check "
                  f"{label}); `run` reads an action log, one JSON action per line\n")
        return 1
    initial = None
    if args.initial_state is not None:
        try:
            initial = _json.loads(args.initial_state)
        except ValueError as e:
            err.write(f"--initial-state: invalid JSON: {e}\n")
            return 1
    try:
        store = Store(args.feature, initial_state=initial, clock=args.clock, library=lib)
    except ReducerKitError as e:
        err.write(f"reducerkit: {e.message}\n")
        return 1
    show_progress = args.progress or (
        args.progress is None and len(lines) > PROGRESS_THRESHOLD and err.isatty())
    progress = _Progress(len(lines), err, label) if show_progress else None
    write = out.write
    newline = "\n" if progress is not None else ""  # end the progress line before errors
    status = 0
    done = 0
    with store:
        previous = store.state
        if args.diff:
            write(f"# initial state\n{_json.pretty(previous)}\n")
        for number, line in enumerate(lines, start=1):
            text = line.strip()
            done = number
            if progress is not None:
                progress.update(number)
            if not text:
                continue
            try:
                action = _json.loads(text)
            except ValueError as e:
                err.write(f"{newline}{label}:{number}: invalid JSON: {e}\n")
                status = 1
                break
            try:
                store.send(action)
            except ReducerKitError as e:
                err.write(f"{newline}{label}:{number}: {e.message}\n")
                status = 1
                break
            state = store.state
            if args.diff:
                diff = json_diff(previous, state, before_label="before", after_label="after",
                                 context=1)
                write(f"# {number}: {_json.compact(action)}\n"
                      + (diff + "\n" if diff else "(no change)\n"))
            else:
                write(_json.compact(state) + "\n")
            previous = state
        if progress is not None:
            progress.close(done)
        if status == 0 and args.wait > 0:
            version = store.version
            try:
                store.wait_idle(args.wait)
            except ReducerKitError as e:
                err.write(f"reducerkit: effects still running after --wait {args.wait}: "
                          f"{e.message}\n")
            if store.version != version:
                state = store.state
                if args.diff:
                    diff = json_diff(previous, state, before_label="before",
                                     after_label="after", context=1)
                    write(f"# after effects\n{diff}\n")
                else:
                    write(_json.compact(state) + "\n")
    return status


def _cmd_check(args: argparse.Namespace, lib: Library, out: TextIO, err: TextIO) -> int:
    from .testing.scenarios import check_files, scenario_files
    if args.timeout_ms <= 0:
        err.write(f"reducerkit check: --timeout-ms takes a whole number of milliseconds >= 1, "
                  f"not {args.timeout_ms}\n")
        return 2
    for path in args.files:
        if not os.path.exists(path):
            err.write(f"reducerkit check: {path}: no such file or directory\n")
            return 2
        if os.path.isdir(path) and not scenario_files(path):
            err.write(f"reducerkit check: {path} holds no *.scenario.json file\n")
            return 2
    return check_files(scenario_files(*args.files), out=out, library=lib,
                       timeout=args.timeout_ms / 1000)


def _add_lib_option(command: argparse.ArgumentParser) -> None:
    """``--lib PATH`` after the command too (``python -m reducerkit features --lib PATH``)."""
    command.add_argument("--lib", metavar="PATH", default=argparse.SUPPRESS,
                         help="the library (as before the command)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m reducerkit",
        description="Drive ReducerKit stores (reducers written in Swift) from the command line.")
    parser.add_argument("--lib", metavar="PATH",
                        help="the libreducerkit file (default: $REDUCERKIT_LIB, then the "
                             "copy inside the package)")
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("features", help="list the features, their actions and state")
    f.add_argument("--json", action="store_true", help="print rk_features() as JSON")
    _add_lib_option(f)
    r = sub.add_parser("run", help="apply an action log (one JSON action per line)")
    r.add_argument("feature", help="a feature name, e.g. counter")
    r.add_argument("actions", metavar="ACTIONS.jsonl", help="the action log ('-': stdin)")
    r.add_argument("--clock", choices=("live", "test"), default="live",
                   help="the store's clock (default: live)")
    r.add_argument("--diff", action="store_true",
                   help="print what each action changed instead of each state")
    r.add_argument("--initial-state", metavar="JSON",
                   help="an object merged over the feature's default state")
    r.add_argument("--wait", type=float, default=1.0, metavar="SECONDS",
                   help="after the log, wait this long for effects and print the final "
                        "state if they changed it (default: 1; 0: do not wait)")
    g = r.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="always draw a progress bar on stderr")
    g.add_argument("--no-progress", dest="progress", action="store_false",
                   help="never draw a progress bar")
    _add_lib_option(r)
    _add_lib_option(sub.add_parser("version", help="print the binding's and the library's "
                                                   "versions"))
    c = sub.add_parser(
        "check", help="run scenario files (*.scenario.json) like reducerkit-check",
        description="Runs scenario files (a directory: the *.scenario.json files under it): one "
                    "line per scenario, then 'N passed, N failed'. Exit status 0 when all "
                    "passed, 1 when one failed, 2 for bad usage.")
    c.add_argument("files", nargs="+", metavar="FILE_OR_DIRECTORY")
    c.add_argument("--lib", metavar="PATH", default=argparse.SUPPRESS,
                   help="the library (as before the command)")
    c.add_argument("--timeout-ms", type=int, default=1000, metavar="N",
                   help="how long a step waits for effects (default 1000)")
    from ._commands import add_commands
    add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None,
         err: TextIO | None = None) -> int:
    """Runs the command line; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # argparse: --help (0) or bad usage (2)
        return int(e.code) if isinstance(e.code, int) else 2
    try:
        lib = load_library(args.lib) if args.lib else load_library()
    except ReducerKitError as e:
        err.write(f"reducerkit: {e.message}\n")
        return 2 if args.command == "check" else 1
    try:
        if args.command == "features":
            return _cmd_features(args, lib, out)
        if args.command == "run":
            return _cmd_run(args, lib, out, err)
        if args.command == "check":
            return _cmd_check(args, lib, out, err)
        if args.command in _EXTRA_COMMANDS:
            return int(_EXTRA_COMMANDS[args.command](args, lib, out, err))
        if args.command == "version":
            from . import __version__
            out.write(f"reducerkit (Python) {__version__}; library {lib.version} "
                      f"(ABI {lib.abi_version}) at {lib.path}; JSON: {_json.BACKEND}\n")
            return 0
    except ReducerKitError as e:  # e.g. a library off the ABI (LibraryABIError)
        err.write(f"reducerkit: {e.message}\n")
        return 1
    except BrokenPipeError:  # e.g. piped into head
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the exit flush
        except OSError:  # pragma: no cover
            pass
        return 0
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
