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
  check-step-c  the same step, the C runner (build/reducerkit-check, or $REDUCERKIT_CHECK)
  store         Store("counter") created, two sends, closed
  state         store.state unchanged (the version check only)
  async         send("factButtonTapped") from a task, an async def provider answers, awaited
                until factResponse is reduced (every thread's instructions; with Python 3.12+
                also async-eager: the same under asyncio.eager_task_factory)
  sync          the same round trip with a plain function as the provider (it answers inside
                the send: no task, no await)
  async-floor   asyncio alone: call_soon_threadsafe of a function that starts a task
                awaiting a coroutine, awaited (bench.py's floor of the round trip)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MODES = {"send-ctypes": (2_000, 12_000), "send": (2_000, 12_000), "pydux": (2_000, 12_000),
         "check-step": (200, 1_200), "check-step-c": (200, 1_200), "store": (100, 600), "state": (2_000, 12_000), "async": (200, 1_200),
         "async-eager": (200, 1_200), "async-floor": (200, 1_200), "sync": (200, 1_200)}


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
    elif mode == "state":
        with reducerkit.Store("counter", library=lib) as store:
            store.send("increment")
            for _ in range(n):
                store.state  # noqa: B018
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
    elif mode == "sync":
        with reducerkit.Store("counter", providers={"numberFact": lambda c: f"{c} is sync"},
                              library=lib) as store:
            for _ in range(n):
                store.send("factButtonTapped")
    elif mode.startswith("async"):
        import asyncio
        asyncio.run(_async(mode, n, lib))
    else:
        raise SystemExit(f"unknown mode {mode!r}")


async def _async(mode: str, n: int, lib: Any) -> None:
    import asyncio

    import reducerkit

    loop = asyncio.get_running_loop()
    if mode == "async-floor":
        async def provider(count: int) -> str:
            return f"{count} is async"

        def start(future: asyncio.Future[str]) -> None:
            async def run() -> None:
                future.set_result(await provider(0))
            loop.create_task(run())

        for _ in range(n):
            future: asyncio.Future[Any] = loop.create_future()
            loop.call_soon_threadsafe(start, future)
            await future
        return
    if mode == "async-eager":
        loop.set_task_factory(asyncio.eager_task_factory)  # type: ignore[attr-defined]
    waiting: list[asyncio.Future[None]] = []

    async def number_fact(count: int) -> str:
        return f"{count} is async"

    def wake(state: dict[str, Any]) -> None:
        if waiting and state["fact"] is not None:
            done = waiting.pop()
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                done.set_result(None)
            else:
                loop.call_soon_threadsafe(done.set_result, None)

    with reducerkit.Store("counter", providers={"numberFact": number_fact},
                          library=lib) as store:
        store.subscribe(wake)
        for _ in range(n):
            future = loop.create_future()
            waiting.append(future)
            store.send("factButtonTapped")
            await future


def refs(mode: str, n: int) -> int:
    env = {**os.environ, "SWIFT_DETERMINISTIC_HASHING": "1", "PYTHONHASHSEED": "0"}
    command = [sys.executable, __file__, "--child", mode, str(n)]
    if mode == "check-step-c":  # the same recorded session, replayed by the C runner
        import tempfile

        sys.path.insert(0, str(HERE))
        import bench  # noqa: E402
        import reducerkit

        lib = reducerkit.load_library()
        runner = os.environ.get("REDUCERKIT_CHECK",
                                str(HERE.parents[1] / "build" / "reducerkit-check"))
        tmp = tempfile.mkdtemp()
        path = Path(tmp) / "counter.scenario.json"
        bench._record_session(path, n, lib, "counter")
        command = [runner, "--lib", lib.path, str(path)]
        try:
            return _count(command, env, mode, n)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return _count(command, env, mode, n)


def _count(command: list[str], env: dict[str, str], mode: str, n: int) -> int:
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          *command], env=env, capture_output=True, text=True)
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
    modes = argv or [m for m in MODES if m != "async-eager" or sys.version_info >= (3, 12)]
    print(f"{'mode':<12} instructions per operation (callgrind; interpreter included)")
    results: dict[str, Any] = {}
    for mode in modes:
        low, high = MODES[mode]
        results[mode] = (refs(mode, high) - refs(mode, low)) // (high - low)
        print(f"{mode:<12} {results[mode]:,}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
