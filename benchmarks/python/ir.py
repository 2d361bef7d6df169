#!/usr/bin/env python3
"""Instructions per operation of Python-side work, counted by callgrind (repeatable on a
loaded machine, unlike times): each mode runs twice, with a low and a high count of
operations, and the difference of the counts over the difference of the operations is
printed, so start-up and set-up cancel out. The interpreter's own work is counted.

    REDUCERKIT_LIB=build/libreducerkit.so PYTHONPATH=bindings/python/src \\
        python3 benchmarks/python/ir.py [MODE...]

Modes (issue 25's Python rows where callgrind applies):
  send-ctypes   store.send("increment") through ctypes alone (no compiled path)
  send          store.send("increment") as installed (the compiled path when built)
  pydux         the pydux-style dispatch of bench.py, one listener
  check-step    one step of a recorded counter session, `python -m reducerkit check`'s runner
  store         Store("counter") created, two sends, closed
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MODES = {"send-ctypes": (2_000, 12_000), "send": (2_000, 12_000), "pydux": (2_000, 12_000),
         "check-step": (200, 1_200), "store": (100, 600)}


def child(mode: str, n: int) -> None:
    sys.path.insert(0, str(HERE))
    import bench  # noqa: E402  (the pydux-style store, the session recorder)
    import reducerkit
    from reducerkit import store as store_module

    lib = reducerkit.load_library()
    if mode == "pydux":
        redux = bench.create_store(bench.counter_reducer, None)
        redux["subscribe"](lambda: None)
        dispatch, action = redux["dispatch"], {"type": "increment"}
        for _ in range(n):
            dispatch(action)
    elif mode in ("send", "send-ctypes"):
        if mode == "send-ctypes":
            store_module._speedups = None  # type: ignore[assignment]
        with reducerkit.Store("counter", library=lib) as store:
            send = store.send
            for _ in range(n):
                send("increment")
    elif mode == "store":
        for _ in range(n):
            with reducerkit.Store("counter", library=lib) as store:
                store.send("increment")
                store.send("increment")
    elif mode == "check-step":
        import io
        import tempfile

        from reducerkit.testing.scenarios import check_files
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "counter.scenario.json"
            bench._record_session(path, n, lib, "counter")
            out = io.StringIO()
            if check_files([path], out=out, library=lib) != 0:
                raise SystemExit(out.getvalue())
    else:
        raise SystemExit(f"unknown mode {mode!r}")


def refs(mode: str, n: int) -> int:
    env = {**os.environ, "SWIFT_DETERMINISTIC_HASHING": "1", "PYTHONHASHSEED": "0"}
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          sys.executable, __file__, "--child", mode, str(n)],
                         env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"ir.py: {mode} {n} failed:\n{out.stderr[-2000:]}")
    found = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if found is None:
        raise SystemExit(f"ir.py: no instruction count in:\n{out.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        child(argv[1], int(argv[2]))
        return 0
    modes = argv or list(MODES)
    print(f"{'mode':<12} instructions per operation (callgrind; interpreter included)")
    results: dict[str, Any] = {}
    for mode in modes:
        low, high = MODES[mode]
        results[mode] = (refs(mode, high) - refs(mode, low)) // (high - low)
        print(f"{mode:<12} {results[mode]:,}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
