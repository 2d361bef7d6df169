#!/usr/bin/env python3
"""What observing a store costs against the state's size, from C and Python, in one run.

    python3 benchmarks/scaling.py --c build/bench/c_scaling      (make bench runs it)

Runs the C benchmark (benchmarks/c/scaling.c), then, in this process, for 10, 1,000, 10,000
and 100,000 todos toggling one todo per action (ns per action, median of repetitions):
  - py_state: store.send(toggle) then store.state (kept by JSON Patches);
  - py_path:  store.send(toggle) with store.subscribe(cb, path="/todos/<i>/isComplete");
  - pydux:    pydux (PyPI) dispatch(toggle) then get_state(), the reducer copying the list and
              the toggled todo (structural sharing, as store.state does);
and at one size: store.send("increment") beside pydux's dispatch of the same counter action,
and `import reducerkit` against `python -c pass`. Prints the table, and writes
benchmarks/results/scaling.json, scaling.md and scaling.png (log-log, cost per action against
the number of todos).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "bindings" / "python" / "src"
try:  # the installed package (`make bench-scaling` installs the checkout's, with _speedups)
    import reducerkit
    FROM_SRC = False
except ImportError:  # else the source tree (sends go through ctypes alone)
    sys.path.insert(0, str(SRC))
    import reducerkit
    FROM_SRC = True
print(f"reducerkit from {Path(reducerkit.__file__).parent} (compiled send path: "
      f"{'yes' if getattr(reducerkit.store, '_speedups', None) else 'no, ctypes'})", file=sys.stderr)

SIZES = (10, 1_000, 10_000, 100_000)
RESULTS = HERE / "results"

# What each series is, for the table and the plot.
SERIES = {
    "c_state_callback": "C: send + whole-state callback (rk_store_subscribe)",
    "c_patch_equatable": "C: send + patch callback, plain [Todo] (Equatable diff)",
    "c_patch": "C: send + patch callback, TrackedArray (shipped todos)",
    "c_send": "C: send alone (floor)",
    "py_state": "Python: send + store.state",
    "py_path": "Python: send + subscribe(cb, path=one field)",
    "pydux": "pydux: dispatch + get_state (pure Python)",
}


def measure(op: Callable[[int], Any], repeat: int, target_s: float = 0.1) -> dict[str, float]:
    """ns per operation: median (and min, max) of `repeat` runs of about `target_s`."""
    n = 1
    while True:
        t0 = time.perf_counter_ns()
        op(n)
        dt = time.perf_counter_ns() - t0
        if dt > 20e6 or n > 1 << 24:
            break
        n *= 4
    n = max(1, int(n * target_s * 1e9 / dt))
    times = []
    gc.disable()
    try:
        for _ in range(repeat):
            t0 = time.perf_counter_ns()
            op(n)
            times.append((time.perf_counter_ns() - t0) / n)
    finally:
        gc.enable()
    return {"ns": statistics.median(times), "min": min(times), "max": max(times)}


def todos_state(n: int) -> dict[str, Any]:
    return {"todos": [{"id": i + 1, "title": f"todo {i + 1}", "isComplete": False}
                      for i in range(n)], "filter": "all", "nextID": n + 1}


def python_rows(size: int, repeat: int) -> list[dict[str, Any]]:
    import pydux

    rows = []
    mid = size // 2 + 1
    toggle = {"toggle": {"id": mid}}
    initial = todos_state(size)
    reps = repeat if size < 100_000 else max(3, repeat // 2)

    with reducerkit.Store("todos", initial_state=initial) as store:
        store.state  # noqa: B018 - the first read: the whole state, once
        send = store.send

        def py_state(n: int) -> None:
            for _ in range(n):
                send(toggle)
                store.state  # noqa: B018

        rows.append({"bench": "py_state", "size": size, **measure(py_state, reps)})

    with reducerkit.Store("todos", initial_state=initial) as store:
        seen = []
        store.subscribe(seen.append, path=f"/todos/{mid - 1}/isComplete")
        send = store.send

        def py_path(n: int) -> None:
            for _ in range(n):
                send(toggle)

        rows.append({"bench": "py_path", "size": size, **measure(py_path, reps)})
        assert seen, "the path subscriber was not called"

    positions = {t["id"]: i for i, t in enumerate(initial["todos"])}

    def reducer(state: dict[str, Any] | None, action: dict[str, Any]) -> dict[str, Any]:
        if state is None:
            return initial
        if action["type"] == "toggle":
            i = positions[action["id"]]
            todos = list(state["todos"])
            todo = todos[i]
            todos[i] = {**todo, "isComplete": not todo["isComplete"]}
            return {**state, "todos": todos}
        return state

    px = pydux.create_store(reducer)
    dispatch, get_state = px.dispatch, px.get_state
    action = {"type": "toggle", "id": mid}

    def pydux_toggle(n: int) -> None:
        for _ in range(n):
            dispatch(action)
            get_state()

    rows.append({"bench": "pydux", "size": size, **measure(pydux_toggle, reps)})
    return rows


def measure_pair(a: Callable[[int], Any], b: Callable[[int], Any], repeat: int
                 ) -> tuple[dict[str, float], dict[str, float]]:
    """`measure` for two operations in turn (a, b, a, b, ...), so that a busy moment of a
    shared machine falls on both: the comparison the targets ask for ("in the same run")."""
    runs: list[tuple[float, float]] = []
    for _ in range(repeat):
        runs.append((measure(a, 1)["ns"], measure(b, 1)["ns"]))

    def summary(times: list[float]) -> dict[str, float]:
        return {"ns": statistics.median(times), "min": min(times), "max": max(times)}

    return summary([t[0] for t in runs]), summary([t[1] for t in runs])


def python_fixed(repeat: int) -> list[dict[str, Any]]:
    import pydux

    rows = []

    def counter(state: dict[str, Any] | None, action: dict[str, Any]) -> dict[str, Any]:
        if state is None:
            return {"count": 0}
        if action["type"] == "increment":
            return {**state, "count": state["count"] + 1}
        return state

    px = pydux.create_store(counter)
    dispatch = px.dispatch
    increment = {"type": "increment"}

    def pydux_dispatch(n: int) -> None:
        for _ in range(n):
            dispatch(increment)

    with reducerkit.Store("counter") as store:
        send = store.send

        def py_send(n: int) -> None:
            for _ in range(n):
                send("increment")

        ours, theirs = measure_pair(py_send, pydux_dispatch, max(repeat, 9))
    rows.append({"bench": "py_send_increment", "size": 0, **ours})
    rows.append({"bench": "pydux_dispatch_increment", "size": 0, **theirs})

    # Import time: whole processes, CPU time (user + system, the least of 15 runs) over
    # `python -c pass`, with bytecode caches written and used, as an installed package has.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    if FROM_SRC:
        env["PYTHONPATH"] = str(SRC)

    def run(code: str) -> float:
        import resource

        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e3

    run("import reducerkit")  # writes the bytecode caches
    bares, imports = [], []
    for _ in range(15):  # in turn, so a busy moment hits both; the minimum of each
        bares.append(run("pass"))
        imports.append(run("import reducerkit"))
    bare, imported = min(bares), min(imports)
    rows.append({"bench": "py_import_ms_over_bare", "size": 0, "ms": imported - bare,
                 "bare_ms": bare, "import_ms": imported})
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    by = {(r["bench"], r["size"]): r for r in rows}
    lines = ["| per action (ns, median) | " + " | ".join(f"{s:,} todos" for s in SIZES) + " |",
             "|---|" + "---:|" * len(SIZES)]
    for bench, title in SERIES.items():
        cells = []
        for size in SIZES:
            r = by.get((bench, size))
            cells.append(f"{r['ns']:,.0f}" if r else "")
        lines.append(f"| {title} | " + " | ".join(cells) + " |")
    fixed = [r for r in rows if r["size"] == 0 or r["bench"] == "c_full_encode"]
    if fixed:
        lines += ["", "| one size | figure |", "|---|---:|"]
        for r in fixed:
            if "bytes" in r:
                value = f"{r['bytes']:,.0f} bytes"
            elif "ms" in r:
                value = f"{r['ms']:.1f} ms ({r['import_ms']:.1f} - {r['bare_ms']:.1f})"
            else:
                value = f"{r['ns']:,.0f} ns (min {r['min']:,.0f}, max {r['max']:,.0f})"
            lines.append(f"| {r['bench']} | {value} |")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5.5), dpi=110)
    for bench, title in SERIES.items():
        points = sorted((r["size"], r["ns"]) for r in rows if r["bench"] == bench and r["size"])
        if points:
            xs, ys = zip(*points)
            ax.plot(xs, [y / 1000 for y in ys], marker="o", label=title)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("todos in the state")
    ax.set_ylabel("µs per action (toggle one todo)")
    ax.set_title("ReducerKit: cost of observing a store, per action")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--c", help="the C benchmark binary (build/bench/c_scaling)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("--from-json", help="re-render the table and plot of a saved run")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    if args.from_json:
        rows = json.loads(Path(args.from_json).read_text())
    elif args.c:
        out = subprocess.run([args.c, str(args.repeat)], check=True, capture_output=True,
                             text=True).stdout
        rows += [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    if not args.from_json:
        for size in SIZES:
            rows += python_rows(size, args.repeat)
        rows += python_fixed(args.repeat)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    text = table(rows)
    print(text)
    (out_dir / "scaling.md").write_text(text + "\n")
    (out_dir / "scaling.json").write_text(json.dumps(rows, indent=1) + "\n")
    plot(rows, out_dir / "scaling.png")
    print(f"\nwrote {out_dir / 'scaling.png'}, scaling.md, scaling.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
