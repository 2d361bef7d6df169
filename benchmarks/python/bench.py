#!/usr/bin/env python3
"""ReducerKit from Python: ns/op beside its floors, in one run.

    REDUCERKIT_LIB=.build/release/libreducerkit.so python3 benchmarks/python/bench.py

Prints, as the median of several repetitions (ns per operation):
  - a bare ctypes call into the library (rk_abi_version): the floor of any call;
  - store.send("increment") from Python (the issue's target: <= 1 us; stretch: <= pydux);
  - a pure-Python pydux-style dispatch of the same counter reducer (written inline below);
  - store.send({"setCount": n}) (an action that needs JSON encoding);
  - store.state of 1,000 todos after one change (target: <= 200 us), with the parts it is
    made of (rk_store_state's copy, the JSON decode);
  - a host-request round trip with a synchronous provider (target: <= 15 us): counter with
    providers={"numberFact": fn}, send("factButtonTapped"); the request reaches the Python
    provider inside the send, its answer is resolved there, and the factResponse action is
    reduced before the send returns. Beside it, its floors: a plain send, the same round
    trip answered by a bare ctypes callback (no Python layer), and the Swift implementation;
each JSON-dependent figure with the standard library's json and with orjson if installed;
then issue 25's Python rows, each beside its floor:
  - a round trip with an ``async def`` provider (target: <= 15 us): send("factButtonTapped")
    from a task on the loop, awaited until factResponse is reduced; its floor, asyncio alone:
    call_soon_threadsafe of a function that starts a task awaiting a coroutine, awaited;
  - store.send("increment") through ctypes alone (no compiled path) and pydux in turn
    (target: <= 1.0x pydux);
  - `import reducerkit` over `python -c pass`, CPU time of whole processes (target: median
    <= 20 ms), beside `import orjson`, and import + a first Store (what a program pays);
  - memory per store: RSS growth over 10,000 counter stores after two sends each, in a fresh
    process (target: <= 3,000 B), beside the pydux-style store's (and, for the record,
    what tracemalloc counts of the Python objects alone);
  - `python -m reducerkit check` per scenario step beside the C runner `reducerkit-check`
    (target: <= 2x), on the same recorded todos sessions: CPU time of whole processes at
    two lengths, the difference over the difference of steps (start-up cancels out).

Options: --repeat N (default 7), --quick (fewer iterations), --lib PATH, --check PATH (the
C runner; default build/reducerkit-check), --only issue25 (only those rows).
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import gc
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
try:
    import reducerkit
except ImportError:  # a checkout without `pip install ./bindings/python`
    sys.path.insert(0, str(HERE.parents[1] / "bindings" / "python" / "src"))
    import reducerkit
from reducerkit import _json  # noqa: E402

# ---- a minimal redux-style store, shaped like pydux's create_store -----------------------

def create_store(reducer: Callable[[Any, dict[str, Any]], Any], initial_state: Any):  # noqa: ANN201
    """pydux.create_store, reduced to what dispatch does: validate, guard re-entrancy,
    reduce, notify listeners."""
    state = initial_state
    listeners: list[Callable[[], None]] = []
    is_dispatching = False

    def get_state() -> Any:
        return state

    def subscribe(listener: Callable[[], None]) -> Callable[[], None]:
        listeners.append(listener)
        return lambda: listeners.remove(listener)

    def dispatch(action: dict[str, Any]) -> dict[str, Any]:
        nonlocal state, is_dispatching
        if not isinstance(action, dict):
            raise TypeError("Actions must be plain dictionaries.")
        if action.get("type") is None:
            raise ValueError("Actions may not have an undefined 'type' property.")
        if is_dispatching:
            raise RuntimeError("Reducers may not dispatch actions.")
        try:
            is_dispatching = True
            state = reducer(state, action)
        finally:
            is_dispatching = False
        for listener in listeners[:]:
            listener()
        return action

    dispatch({"type": "@@redux/INIT"})
    return {"dispatch": dispatch, "get_state": get_state, "subscribe": subscribe}


def counter_reducer(state: dict[str, Any] | None, action: dict[str, Any]) -> dict[str, Any]:
    if state is None:
        state = {"count": 0, "fact": None, "isTimerOn": False}
    kind = action["type"]
    if kind == "increment":
        return {**state, "count": state["count"] + 1}
    if kind == "decrement":
        return {**state, "count": state["count"] - 1}
    if kind == "setCount":
        return {**state, "count": action["value"]}
    return state


# ---- timing ------------------------------------------------------------------------------

def measure(body: Callable[[int], int], n: int, repeat: int) -> float:
    """Median ns/op of `repeat` runs; `body(n)` runs n operations and returns elapsed ns."""
    body(max(1, n // 10))  # warm up
    results = []
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            results.append(body(n) / n)
    finally:
        if gc_was:
            gc.enable()
    return statistics.median(results)


def loop(fn: Callable[[], Any]) -> Callable[[int], int]:
    def body(n: int) -> int:
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        return time.perf_counter_ns() - t0
    return body


def loop1(fn: Callable[[Any], Any], arg: Any) -> Callable[[int], int]:
    def body(n: int) -> int:
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn(arg)
        return time.perf_counter_ns() - t0
    return body


def row(name: str, ns: float, note: str = "") -> None:
    print(f"  {name:<58} {ns:>12,.1f} ns/op  {note}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--lib", help="libreducerkit path (default: $REDUCERKIT_LIB, ...)")
    parser.add_argument("--check", default=str(HERE.parents[1] / "build" / "reducerkit-check"),
                        help="the C scenario runner (default: build/reducerkit-check)")
    parser.add_argument("--only", choices=["issue25"], help="only issue 25's rows")
    parser.add_argument("--memory-child", choices=["reducerkit", "pydux", "tracemalloc"],
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        print(_memory_child(args.memory_child, args.lib))
        return 0
    scale = 0.1 if args.quick else 1.0
    n_fast = int(200_000 * scale)
    n_state = int(2_000 * scale)

    lib = reducerkit.load_library(args.lib)
    backends = ["json"]
    try:
        import orjson  # noqa: F401
        backends.append("orjson")
    except ImportError:
        pass
    print(f"reducerkit {reducerkit.__version__} (Python {sys.version.split()[0]}), library "
          f"{lib.version} at {lib.path}")
    print(f"median of {args.repeat} repetitions; JSON backends: {', '.join(backends)}; "
          f"default backend: {_json.backend()}")

    if args.only:
        _issue25(lib, args, n_fast)
        return 0

    print("\nfloors")
    empty = measure(loop(lambda: None), n_fast, args.repeat)
    row("empty Python loop calling a lambda", empty)
    abi = lib.rk_abi_version
    row("bare ctypes call: rk_abi_version()", measure(loop(abi), n_fast, args.repeat))

    print("\ndispatch of the counter reducer")
    redux = create_store(counter_reducer, None)
    dispatch = redux["dispatch"]
    redux["subscribe"](lambda: None)
    incr = {"type": "increment"}
    pydux_ns = measure(loop1(dispatch, incr), n_fast, args.repeat)
    row('pydux-style dispatch({"type": "increment"}), 1 listener', pydux_ns)

    with reducerkit.Store("counter", library=lib) as store:
        send = store.send
        send_ns = measure(loop1(send, "increment"), n_fast, args.repeat)
        row('store.send("increment")', send_ns,
            f"(target <= 1000; {send_ns / pydux_ns:.2f}x pydux)")
        handle = ctypes.c_void_p(store.handle)
        raw_send = lib.rk_store_send
        row('raw rk_store_send(handle, b\'"increment"\') (no Python layer)',
            measure(lambda n: loop(lambda: raw_send(handle, b'"increment"'))(n), n_fast,
                    args.repeat))
        store.subscribe(lambda state: None)
        row('store.send("increment") with 1 Python subscriber',
            measure(loop1(send, "increment"), int(n_fast / 4), args.repeat),
            "(the state is encoded + decoded for the subscriber)")

    with reducerkit.Store("counter", library=lib) as store:
        for backend in backends:
            _json.use(backend)
            action = {"setCount": 5}
            row(f'store.send({{"setCount": 5}}) [{backend}]',
                measure(loop1(store.send, action), n_fast, args.repeat))
            row(f"store.state after a send, 3-key counter [{backend}]",
                measure(lambda n: _send_then_read(store, n), int(n_fast / 4), args.repeat),
                "(send + read)")

    print("\nstore.state of 1,000 todos after one change")
    todos = [{"id": i, "title": f"Todo number {i}", "isComplete": i % 3 == 0}
             for i in range(1, 1001)]
    with reducerkit.Store("todos", initial_state={"todos": todos, "nextID": 1001},
                          library=lib) as store:
        size = len(store.state_json())
        print(f"  (state JSON: {size:,} bytes)")
        for backend in backends:
            _json.use(backend)
            ns = measure(lambda n: _toggle_then_read(store, n), n_state, args.repeat)
            row(f"store.state after a toggle [{backend}]", ns, "(target <= 200,000)")
        row("store.state unchanged (cached; the version check only)",
            measure(loop(lambda: store.state), n_fast, args.repeat))
        handle = ctypes.c_void_p(store.handle)
        row("  part: rk_store_state after a toggle (Swift encodes; + copy, rk_free)",
            measure(lambda n: _raw_state(store, lib, handle, n), n_state, args.repeat))
        row("  part: rk_store_state unchanged (+ copy, rk_free)",
            measure(lambda n: _raw_state(None, lib, handle, n), n_state, args.repeat))
        data = store.state_json()
        import json as stdjson
        row("  part: json.loads of those bytes",
            measure(loop1(stdjson.loads, data), n_state, args.repeat))
        if "orjson" in backends:
            import orjson
            row("  part: orjson.loads of those bytes",
                measure(loop1(orjson.loads, data), n_state, args.repeat))
    _json.use(backends[-1])

    print("\nhost request round trip (counter's numberFact answered by the host)")
    _host_round_trip(lib, n_fast // 4, args.repeat, backends)
    _json.use(backends[-1])
    _issue25(lib, args, n_fast)
    return 0


# ---- issue 25's Python rows --------------------------------------------------------------

def _issue25(lib: reducerkit.Library, args: argparse.Namespace, n_fast: int) -> None:
    scale = 0.1 if args.quick else 1.0
    print("\nissue 25: async provider round trip (send, the provider's task answers, "
          "factResponse reduced; awaited)")
    _async_round_trip(lib, int(4_000 * scale) or 100, args.repeat)
    print("\nissue 25: store.send(\"increment\") through ctypes alone, pydux in turn")
    _ctypes_send(lib, n_fast // 2, max(args.repeat, 9))
    print("\nissue 25: import time, CPU ms of a whole process over `python -c pass` "
          "(bytecode cached; median, min of 15 runs each, in turn)")
    _import_time(15)
    print("\nissue 25: memory per counter store after two sends (RSS over 10,000 stores, "
          "a fresh process each)")
    _memory(lib)
    print("\nissue 25: scenario check per step, recorded counter and todos sessions (CPU of whole "
          "processes at two lengths)")
    _check_per_step(lib, args.check, int(20_000 * scale) or 2_000)


def _async_round_trip(lib: reducerkit.Library, n: int, repeat: int) -> None:
    eager = getattr(asyncio, "eager_task_factory", None)  # Python 3.12+

    async def main(factory: Any) -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        loop.set_task_factory(factory)
        waiting: list[asyncio.Future[None]] = []

        async def number_fact(count: int) -> str:
            return f"{count} is async"

        def wake(state: dict[str, Any]) -> None:  # a subscriber: factResponse was reduced
            if waiting and state["fact"] is not None:
                future = waiting.pop()
                if loop is _running_loop():
                    future.set_result(None)
                else:
                    loop.call_soon_threadsafe(future.set_result, None)

        with reducerkit.Store("counter", providers={"numberFact": number_fact},
                              library=lib) as store:
            store.subscribe(wake)

            async def round_trips(k: int) -> int:
                t0 = time.perf_counter_ns()
                for _ in range(k):
                    future = loop.create_future()
                    waiting.append(future)
                    store.send("factButtonTapped")
                    await future
                return time.perf_counter_ns() - t0

            ours = await _measure_async(round_trips, n, repeat)
            assert store.state["fact"] == "0 is async" and store._errors == []

        async def provider(count: int) -> str:
            return f"{count} is async"

        def start(future: asyncio.Future[str]) -> None:
            async def run() -> None:
                future.set_result(await provider(0))
            loop.create_task(run())

        async def floors(k: int) -> int:
            t0 = time.perf_counter_ns()
            for _ in range(k):
                future: asyncio.Future[str] = loop.create_future()
                loop.call_soon_threadsafe(start, future)
                await future
            return time.perf_counter_ns() - t0

        floor = await _measure_async(floors, n, repeat)
        return ours, floor

    ours, floor = asyncio.run(main(None))
    row("floor: call_soon_threadsafe + task + await (asyncio alone)", floor)
    row('send("factButtonTapped"), an async def provider answers', ours,
        f"(target <= 15,000; {ours / floor:.2f}x the floor)")
    if eager is None:
        print("  (the same with asyncio.eager_task_factory: Python 3.12 and later)")
        return
    ours, floor = asyncio.run(main(eager))
    row("  with asyncio.eager_task_factory: the floor", floor)
    row("  with asyncio.eager_task_factory: the round trip", ours,
        f"(target <= 15,000; {ours / floor:.2f}x the floor)")


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


async def _measure_async(body: Callable[[int], Any], n: int, repeat: int) -> float:
    await body(max(1, n // 10))
    results = []
    for _ in range(repeat):
        results.append(await body(n) / n)
    return statistics.median(results)


def _ctypes_send(lib: reducerkit.Library, n: int, repeat: int) -> None:
    from reducerkit import store as store_module

    saved = store_module._speedups
    store_module._speedups = None  # type: ignore[assignment]  # as without the compiled path
    try:
        with reducerkit.Store("counter", library=lib) as store:
            assert store._fast_send is None
            redux = create_store(counter_reducer, None)
            redux["subscribe"](lambda: None)
            dispatch = redux["dispatch"]
            incr = {"type": "increment"}
            ours, theirs, ratios = [], [], []
            send = store.send
            for _ in range(repeat):  # in turn, so that a busy moment hits both
                a = measure(loop1(send, "increment"), n, 1)
                b = measure(loop1(dispatch, incr), n, 1)
                ours.append(a)
                theirs.append(b)
                ratios.append(a / b)
            raw = lib._send_untyped_gil
            handle = store._handle
            floor = measure(lambda k: loop(lambda: raw(handle, b'"increment"'))(k), n, repeat)
    finally:
        store_module._speedups = saved
    row("floor: the same untyped ctypes call of rk_store_send, no Python layer", floor)
    row('pydux-style dispatch({"type": "increment"}), 1 listener', statistics.median(theirs))
    row('store.send("increment"), ctypes only', statistics.median(ours),
        f"(target <= 1.0x pydux; {statistics.median(ratios):.2f}x, "
        f"{min(ratios):.2f}-{max(ratios):.2f}x over runs)")


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE",)}
    src = str(HERE.parents[1] / "bindings" / "python" / "src")
    if Path(reducerkit.__file__).resolve().parent.parent == Path(src).resolve():
        env["PYTHONPATH"] = src  # the checkout's package, as this process uses it
    return env


def _import_time(runs: int) -> None:
    env = _child_env()
    lib_path = reducerkit.load_library().path

    def cpu_ms(code: str) -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e3

    codes = {"bare": "pass", "import reducerkit": "import reducerkit",
             "import orjson": "import orjson",
             "import + Store('counter') + send": (
                 f"import reducerkit; reducerkit.Store('counter', library={lib_path!r})"
                 f".send('increment')")}
    for code in codes.values():
        try:
            cpu_ms(code)  # writes the bytecode caches
        except subprocess.CalledProcessError:
            pass
    times: dict[str, list[float]] = {k: [] for k in codes}
    for _ in range(runs):
        for label, code in codes.items():
            try:
                times[label].append(cpu_ms(code))
            except subprocess.CalledProcessError:  # orjson not installed
                pass
    bare = times.pop("bare")
    for label, values in times.items():
        if not values:
            continue
        over = [v - b for v, b in zip(values, bare)]
        note = "(target: median <= 20 ms)" if label == "import reducerkit" else ""
        print(f"  {label + ' over bare':<58} median {statistics.median(over):6.1f} ms, "
              f"min {min(values) - min(bare):6.1f} ms  {note}")


def _memory_child(kind: str, lib_path: str | None) -> str:
    """Runs in a fresh process: bytes per store, as RSS growth over N stores."""
    n = 10_000

    def rss() -> int:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS"):
                    return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS")

    lib = reducerkit.load_library(lib_path)
    def make() -> Any:
        if kind == "pydux":
            redux = create_store(counter_reducer, None)
            redux["subscribe"](lambda: None)
            redux["dispatch"]({"type": "increment"})
            redux["dispatch"]({"type": "increment"})
            return redux
        store = reducerkit.Store("counter", library=lib)
        store.send("increment")
        store.send("increment")
        return store

    warm = [make() for _ in range(100)]
    del warm
    gc.collect()
    if kind == "tracemalloc":
        import tracemalloc
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        kept = [make() for _ in range(n)]
        gc.collect()
        return str((tracemalloc.get_traced_memory()[0] - before - sys.getsizeof(kept)) / n)
    before = rss()
    kept = [make() for _ in range(n)]
    gc.collect()
    return str((rss() - before) / n)


def _memory(lib: reducerkit.Library) -> None:
    if not os.path.exists("/proc/self/status"):
        print("  (skipped: no /proc/self/status to read RSS from)")
        return
    env = _child_env()

    def child(kind: str) -> float:
        out = subprocess.run([sys.executable, __file__, "--memory-child", kind, "--lib",
                              lib.path], env=env, check=True, capture_output=True, text=True)
        return float(out.stdout.strip().splitlines()[-1])

    for label, kind, note in (("pydux-style store (dict state, a listener)", "pydux", ""),
                              ("reducerkit.Store('counter')", "reducerkit",
                               "(target <= 3,000)"),
                              ("  part: its Python objects alone (tracemalloc)", "tracemalloc",
                               "")):
        values = [child(kind) for _ in range(3)]
        print(f"  {label:<58} {statistics.median(values):12,.0f} B/store  {note}")


def _record_session(path: Path, steps: int, lib: reducerkit.Library, feature: str) -> None:
    """A recorded session, the state after each step: counter's increments, decrements and
    setCounts, or todos' adds, toggles and deletes, at most 25 todos (as
    benchmarks/inspector.py records one)."""
    rng = random.Random(25)
    if feature == "counter":
        with reducerkit.Store("counter", clock="test", record=True, library=lib) as store:
            for i in range(steps):
                roll = rng.random()
                store.send("increment" if roll < 0.45 else "decrement" if roll < 0.9
                           else {"setCount": i})
            path.write_text(json.dumps(store.scenario(f"counter, {steps} steps")),
                            encoding="utf-8")
        return
    with reducerkit.Store("todos", clock="test", record=True, library=lib) as store:
        ids: list[int] = []
        for i in range(steps):
            roll = rng.random()
            if not ids or (len(ids) < 25 and roll < 0.4):
                store.send({"addTodo": {"title": f"todo {i}"}})
                ids.append(store.state["todos"][-1]["id"])
            elif roll < 0.8:
                store.send({"toggle": {"id": rng.choice(ids)}})
            else:
                store.send({"delete": {"id": ids.pop(rng.randrange(len(ids)))}})
        path.write_text(json.dumps(store.scenario(f"todos, {steps} steps")), encoding="utf-8")


def _check_per_step(lib: reducerkit.Library, check: str, steps: int) -> None:
    if not os.access(check, os.X_OK):
        print(f"  (skipped: no C runner at {check}; make build/reducerkit-check)")
        return
    for feature in ("counter", "todos"):
        _check_feature(lib, check, steps if feature == "counter" else steps // 4, feature)


def _check_feature(lib: reducerkit.Library, check: str, steps: int, feature: str) -> None:
    env = _child_env()
    env.pop("REDUCERKIT_LIB", None)
    with tempfile.TemporaryDirectory() as tmp:
        short, long = Path(tmp) / "short.scenario.json", Path(tmp) / "long.scenario.json"
        low, high = steps // 10, steps
        _record_session(short, low, lib, feature)
        _record_session(long, high, lib, feature)

        def cpu_ms(command: list[str]) -> float:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e3

        runners = {"reducerkit-check (C)": [check, "--lib", lib.path],
                   "python -m reducerkit check": [sys.executable, "-m", "reducerkit", "check",
                                                  "--lib", lib.path]}
        per_step: dict[str, list[float]] = {k: [] for k in runners}
        for _ in range(3):
            for label, command in runners.items():
                a = cpu_ms(command + [str(short)])
                b = cpu_ms(command + [str(long)])
                per_step[label].append((b - a) * 1e3 / (high - low))
    c = statistics.median(per_step["reducerkit-check (C)"])
    py = statistics.median(per_step["python -m reducerkit check"])
    print(f"  {feature} ({high:,} steps against {low:,})")
    print(f"  {'floor: reducerkit-check (C), per step':<58} {c:12,.1f} us/step "
          f"({min(per_step['reducerkit-check (C)']):,.1f}-"
          f"{max(per_step['reducerkit-check (C)']):,.1f})")
    print(f"  {'python -m reducerkit check, per step':<58} {py:12,.1f} us/step "
          f"({min(per_step['python -m reducerkit check']):,.1f}-"
          f"{max(per_step['python -m reducerkit check']):,.1f}; target <= 2x: {py / c:.2f}x)")


def _round_trips(store: reducerkit.Store, n: int) -> int:
    send = store.send
    version = store.version
    t0 = time.perf_counter_ns()
    for _ in range(n):
        send("factButtonTapped")
    elapsed = time.perf_counter_ns() - t0
    # Every round trip completed inside its send: factButtonTapped and factResponse reduced.
    assert store.version == version + 2 * n, (store.version, version, n)
    assert store.state["fact"] is not None and store.effect_count == 0
    return elapsed


def _host_round_trip(lib: reducerkit.Library, n: int, repeat: int,
                     backends: list[str]) -> None:
    with reducerkit.Store("counter", library=lib) as store:
        row('floor: store.send("increment")',
            measure(loop1(store.send, "increment"), n * 4, repeat))
    with reducerkit.Store("counter", library=lib) as store:
        store.send("factButtonTapped")
        if store.state["fact"] is not None:  # the Swift implementation did not suspend
            row('Swift implementation: send("factButtonTapped") (no host)',
                measure(lambda k: _round_trips(store, k), n, repeat))
    with reducerkit.Store("counter", provide=["numberFact"], library=lib) as store:
        # The C path through ctypes alone: a callback that resolves with a constant.
        handle = ctypes.c_void_p(store.handle)
        resolve = lib.rk_store_resolve

        def raw(_userdata: Any, event: bytes, length: int) -> None:
            if b'"cancelled"' not in event:
                resolve(handle, int(event[6:event.index(b",")]), b'"a fact"')

        thunk = reducerkit._native.REQUEST_CALLBACK(raw)
        assert lib.rk_store_on_request(handle, thunk, None) == 0
        row("floor: same round trip, a bare ctypes callback answers",
            measure(lambda k: _round_trips(store, k), n, repeat))
        assert lib.rk_store_on_request(handle, reducerkit._native.REQUEST_CALLBACK(), None) == 0
    with reducerkit.Store("counter", providers={"numberFact": lambda count: f"{count} is mine"},
                          library=lib) as store:
        for backend in backends:  # the event is decoded, the response encoded
            _json.use(backend)
            ns = measure(lambda k: _round_trips(store, k), n, repeat)
            row(f'send("factButtonTapped"), sync provider answers [{backend}]', ns,
                "(target <= 15,000)")


def _send_then_read(store: reducerkit.Store, n: int) -> int:
    send = store.send
    t0 = time.perf_counter_ns()
    for _ in range(n):
        send("increment")
        store.state  # noqa: B018
    return time.perf_counter_ns() - t0


def _toggle_then_read(store: reducerkit.Store, n: int) -> int:
    total = 0
    actions = [{"toggle": {"id": 1 + i % 1000}} for i in range(n)]
    for action in actions:
        store.send(action)
        t0 = time.perf_counter_ns()
        store.state  # noqa: B018
        total += time.perf_counter_ns() - t0
    return total


def _raw_state(store: reducerkit.Store | None, lib: reducerkit.Library,
               handle: ctypes.c_void_p, n: int) -> int:
    """The raw call, timed alone; after a toggle (store given) or unchanged."""
    fn = lib.rk_store_state
    total = 0
    for i in range(n):
        if store is not None:
            store.send({"toggle": {"id": 1 + i % 1000}})
        t0 = time.perf_counter_ns()
        lib.call_out_string(fn, handle)
        total += time.perf_counter_ns() - t0
    return total


if __name__ == "__main__":
    raise SystemExit(main())
