#!/usr/bin/env python3
"""The inspector on a long session (issue 23's targets; a benchmark, not a timed test).

    make bench-inspector
    REDUCERKIT_LIB=build/libreducerkit.so python3 benchmarks/inspector.py [--steps 100000]

1. Records a session of ``--steps`` sends on ``todos`` (a store with ``record=True``: adds,
   toggles and deletes, at most 25 todos at a time), written as a ``*.scenario.json``.
2. ``python -m reducerkit inspect`` of it, in this process (replay through the scenario
   runner, the report's data, the HTML): target <= 10 s; the file: target <= 50 MB.
3. Opens the report in headless Chromium (``chromium`` and ``chromium-driver``, selenium):
   the page interactive (``performance.now()`` when the load returns: parsing, the data,
   every checkpoint state, the first step drawn): target <= 2 s.
4. ``window.reducerkit.goTo(i)`` for 300 random steps (and the last), each measured with
   ``performance.now()`` in the page (the state rebuilt from the nearest checkpoint, the
   step's payload, patch and state tree drawn): target <= 50 ms, the worst one.

Prints each figure beside its target (a benchmark: it exits 0 either way; ``--strict``
exits 1 when one misses it).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "bindings" / "python" / "src"))  # this checkout's
import reducerkit  # noqa: E402
from reducerkit.cli import main as cli_main  # noqa: E402


def record(path: Path, steps: int, library: reducerkit.Library) -> None:
    rng = random.Random(23)
    with reducerkit.Store("todos", clock="test", record=True, library=library) as store:
        ids: list[int] = []
        for i in range(steps):
            roll = rng.random()
            if not ids or (len(ids) < 25 and roll < 0.4):
                store.send({"addTodo": {"title": f"todo {i}"}})
                ids.append(store.state["todos"][-1]["id"])
            elif roll < 0.8:
                store.send({"toggle": {"id": rng.choice(ids)}})
            else:
                victim = ids.pop(rng.randrange(len(ids)))
                store.send({"delete": {"id": victim}})
        scenario = store.scenario(f"todos, {steps} recorded sends")
    path.write_text(json.dumps(scenario), encoding="utf-8")


def browser() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1280,800"):
        options.add_argument(argument)
    options.binary_location = shutil.which("chromium") or "chromium"
    driver = webdriver.Chrome(options=options,
                              service=Service(shutil.which("chromedriver") or "chromedriver"))
    driver.set_page_load_timeout(600)
    driver.set_script_timeout(600)
    return driver


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--lib", metavar="PATH")
    parser.add_argument("--keep", metavar="DIR", help="keep the recording and report here")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()
    library = reducerkit.load_library(args.lib) if args.lib else reducerkit.load_library()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="rk-inspector-"))
    work.mkdir(parents=True, exist_ok=True)
    source = work / "todos_long.scenario.json"
    report = work / "todos_long.html"
    results: list[tuple[str, float, float, str]] = []
    try:
        started = time.perf_counter()
        record(source, args.steps, library)
        print(f"recorded {args.steps:,} sends in {time.perf_counter() - started:.1f} s: "
              f"{source.stat().st_size / 1e6:.1f} MB ({source})", flush=True)

        started = time.perf_counter()
        status = cli_main(["inspect", str(source), "-o", str(report), "--lib", library.path])
        generate = time.perf_counter() - started
        if status != 0:
            print(f"python -m reducerkit inspect failed (exit status {status})")
            return 1
        size = report.stat().st_size / 1e6
        results.append(("report generated (s)", generate, 10.0, "s"))
        results.append(("report file (MB)", size, 50.0, "MB"))

        driver = browser()
        try:
            driver.get(report.as_uri())
            interactive = driver.execute_script("return performance.now()") / 1000
            count = driver.execute_script("return window.reducerkit.steps().length")
            assert count >= args.steps, count
            results.append(("page interactive (s)", interactive, 2.0, "s"))
            rng = random.Random(5)
            targets = [rng.randrange(count) for _ in range(300)] + [count - 1, 0]
            times = driver.execute_script("""
                return arguments[0].map(function (i) {
                  var t = performance.now();
                  window.reducerkit.goTo(i);
                  window.reducerkit.current();
                  return performance.now() - t;
                });""", targets)
            times.sort()
            median = times[len(times) // 2]
            results.append(("goTo, median (ms)", median, 50.0, "ms"))
            results.append(("goTo, worst of 302 (ms)", times[-1], 50.0, "ms"))
        finally:
            driver.quit()
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"\ninspector, todos, {args.steps:,} steps (python -m reducerkit inspect; "
          f"headless Chromium):")
    missed = False
    for label, value, target, _unit in results:
        ok = value <= target
        missed |= not ok
        print(f"  {label:<26} {value:10.2f}   target <= {target:g}   {'ok' if ok else 'MISSED'}")
    return 1 if missed and args.strict else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
