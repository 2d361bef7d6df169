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
each JSON-dependent figure with the standard library's json and with orjson if installed.

Options: --repeat N (default 7), --quick (fewer iterations), --lib PATH.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import statistics
import sys
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
    args = parser.parse_args()
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
          f"default backend: {_json.BACKEND}")

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
    return 0


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
