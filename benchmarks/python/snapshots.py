#!/usr/bin/env python3
"""Saved state: how long the library takes to snapshot and to restore a ~1 MB state, and to
migrate one (issue 24's targets: snapshot and restore <= 10 ms each, a migration <= 20 ms).

    REDUCERKIT_LIB=build/libreducerkit.so python3 benchmarks/python/snapshots.py \
        [--scoreboard examples/custom-feature/.build/release/libscoreboard.so] [--repeat N]

Timed are the C calls alone, through ctypes (the JSON is never decoded in Python):
  - rk_store_snapshot of a `todos` store of 10,000 todos (about 1 MB of JSON), and rk_free;
  - rk_store_create with {"snapshot": that document} (parse, check, decode the state);
  - with the custom feature's library (`make test-custom` builds it), rk_store_create with a
    state_version 1 scoreboard snapshot of about 1 MB (a log of 60,000 lines), which runs its
    two migrations (rename the scores; rewrite every log line) before decoding, beside the same
    restore of the state already at version 3: the difference is the migration.
Each figure is the median of --repeat runs (default 15), in milliseconds.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
try:
    import reducerkit
except ImportError:  # a checkout without `pip install ./bindings/python`
    sys.path.insert(0, str(HERE.parents[1] / "bindings" / "python" / "src"))
    import reducerkit
from reducerkit import Library


def median_ms(repeat: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def snapshot_bytes(lib: Library, handle: ctypes.c_void_p) -> bytes:
    out, length = ctypes.c_void_p(), ctypes.c_size_t()
    lib.check(lib.rk_store_snapshot(handle, ctypes.byref(out), ctypes.byref(length)))
    return lib.take_string(out, length)


def timed_restore(lib: Library, feature: bytes, options: bytes, repeat: int) -> float:
    """The median time of rk_store_create(feature, options) (each store destroyed after)."""
    times = []
    for _ in range(repeat):
        out = ctypes.c_void_p()
        start = time.perf_counter()
        status = lib.rk_store_create(feature, options, ctypes.byref(out))
        times.append((time.perf_counter() - start) * 1000)
        lib.check(status, "rk_store_create")
        lib.rk_store_destroy(out)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", help="libreducerkit (default: $REDUCERKIT_LIB, ...)")
    parser.add_argument("--scoreboard", help="the custom feature's libscoreboard.so")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    lib = reducerkit.load_library(args.lib)
    rows: list[tuple[str, float, float]] = []

    todos = [{"id": i, "title": f"todo {i}: " + "buy milk and bread " * 4, "isComplete": i % 3 == 0}
             for i in range(1, 10_001)]
    with reducerkit.Store("todos", initial_state={"todos": todos, "nextID": 10_001},
                          library=lib) as store:
        handle = ctypes.c_void_p(store.handle)
        document = snapshot_bytes(lib, handle)
        size = len(document)
        rows.append((f"rk_store_snapshot, 10,000 todos ({size / 1e6:.2f} MB)",
                     median_ms(args.repeat, lambda: snapshot_bytes(lib, handle)), 10))
        options = b'{"snapshot":' + document + b"}"
        rows.append(("rk_store_create from that snapshot",
                     timed_restore(lib, b"todos", options, args.repeat), 10))

    if args.scoreboard:
        board = reducerkit.load_library(args.scoreboard)
        lines = [f"{'home' if i % 2 else 'away'} {i % 7 + 1}" for i in range(60_000)]
        v1 = {"feature": "scoreboard", "state_version": 1, "version": 60_000,
              "state": {"homeScore": 1, "awayScore": 2, "log": lines}}
        text = json.dumps(v1, separators=(",", ":")).encode()
        migrated = timed_restore(board, b"scoreboard", b'{"snapshot":' + text + b"}",
                                 args.repeat)
        v3 = {"feature": "scoreboard", "state_version": 3, "version": 60_000,
              "state": {"home": 1, "away": 2, "saved": None,
                        "log": [line.replace(" ", " +") for line in lines]}}
        plain = timed_restore(board, b"scoreboard", b'{"snapshot":' + json.dumps(v3).encode()
                              + b"}", args.repeat)
        rows.append((f"restore of a v1 scoreboard ({len(text) / 1e6:.2f} MB), 2 migrations",
                     migrated, 10 + 20))
        rows.append(("  the same state at v3, no migration", plain, 10))
        rows.append(("  the migrations (the difference)", migrated - plain, 20))
    else:
        print("(no --scoreboard library: the migration is not measured; `make test-custom` "
              "builds examples/custom-feature/.build/release/libscoreboard.so)")

    width = max(len(r[0]) for r in rows)
    print(f"{'':{width}}  median ms  target ms")
    for name, ms, target in rows:
        print(f"{name:{width}}  {ms:9.2f}  {target:9.0f}{'' if ms <= target else '  OVER'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
