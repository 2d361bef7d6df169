"""Blocking library calls that Ctrl-C can interrupt, and the time arguments they take.

A signal handler runs only on the main thread, and only between bytecodes: a call that blocks
in C (``rk_store_advance_clock``) would hold Ctrl-C back until it returns. On the main thread,
:func:`interruptible` hands such a call to a worker thread of its own and waits for it in
short slices; waits the library can do in slices (``rk_store_wait_idle``) are sliced by their
caller instead.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any

from ._native import Library
from .errors import InvalidArgumentError, Status

__all__ = ["INT64_MAX", "WAIT_SLICE_MS", "interruptible", "milliseconds", "monotonic_ms"]

INT64_MAX = 2**63 - 1
#: Blocking waits run in slices of this many milliseconds, so that Ctrl-C gets through.
WAIT_SLICE_MS = 100
_MAX_IDLE_WORKERS = 2


def monotonic_ms() -> int:
    return time.monotonic_ns() // 1_000_000


def milliseconds(name: str, value: Any, *, scale: int, ceil: bool) -> int:
    """``value`` (seconds when ``scale`` is 1000, milliseconds when it is 1) as whole
    milliseconds in ``0 ... 2**63 - 1``, or an :class:`InvalidArgumentError` that says the
    range. Checked here: ctypes would silently wrap an out-of-range integer."""
    unit = "seconds" if scale == 1000 else "milliseconds"
    limit = "2**63 / 1000" if scale == 1000 else "2**63 - 1"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgumentError(
            f"{name} must be a number of {unit}, not {type(value).__name__}",
            Status.INVALID_ARGUMENT)
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        raise InvalidArgumentError(
            f"{name} must be a finite number of {unit} from 0 to {limit}, not {value!r}",
            Status.INVALID_ARGUMENT)
    scaled = value * scale
    ms = math.ceil(scaled) if ceil else round(scaled)
    if ms < 0 or ms > INT64_MAX:
        raise InvalidArgumentError(
            f"{name} must be from 0 to {limit} {unit}, not {value!r}", Status.INVALID_ARGUMENT)
    return int(ms)


class _Worker:
    """A daemon thread that runs one blocking library call at a time for the main thread, so
    that the main thread can wait in short slices and take Ctrl-C.

    Each call gets a worker of its own (:func:`interruptible`): an idle one, or a new one. A
    call the main thread gave up on (Ctrl-C) keeps its worker until the library returns, and
    no other call waits for it."""

    _idle: list[_Worker] = []  # workers waiting for a call, at most _MAX_IDLE_WORKERS
    _idle_lock = threading.Lock()

    def __init__(self) -> None:
        self.ready = threading.Condition(threading.Lock())
        self.job: tuple[Library, Callable[..., int], tuple[Any, ...], list[Any],
                        threading.Event] | None = None
        threading.Thread(target=self._run, name="reducerkit-blocking", daemon=True).start()

    @classmethod
    def submit(cls, lib: Library, fn: Callable[..., int],
               args: tuple[Any, ...]) -> tuple[list[Any], threading.Event]:
        """Runs ``fn(*args)`` on an idle worker (or a new one); ``done`` is set when the
        result (``(status, rk_last_error())``) is in ``result``."""
        with cls._idle_lock:
            worker = cls._idle.pop() if cls._idle else None
        if worker is None:
            worker = cls()
        result: list[Any] = []
        done = threading.Event()
        with worker.ready:
            worker.job = (lib, fn, args, result, done)
            worker.ready.notify()
        return result, done

    def _run(self) -> None:
        while True:
            with self.ready:
                while self.job is None:
                    self.ready.wait()
                lib, fn, args, result, done = self.job
                self.job = None
            try:
                status = fn(*args)
                # rk_last_error() is per thread: read it here, on the calling thread.
                result.append((status, lib.last_error() if status else ""))
            except BaseException as e:  # pragma: no cover - ctypes calls do not raise
                result.append(e)
            done.set()
            with self._idle_lock:
                if len(self._idle) >= _MAX_IDLE_WORKERS:
                    return  # enough idle ones: this thread ends
                self._idle.append(self)


def interruptible(lib: Library, fn: Callable[..., int], *args: Any) -> tuple[int, str | None]:
    """``fn(*args)`` and, when it failed, its ``rk_last_error()`` (None: read it on this
    thread), for :meth:`Library.check`. On the main thread a worker of this call's own makes
    the call while this thread waits in short slices, so Ctrl-C raises ``KeyboardInterrupt``
    at once (the abandoned call finishes on its worker, holding up no other call)."""
    if threading.current_thread() is not threading.main_thread():
        return fn(*args), None
    result, done = _Worker.submit(lib, fn, args)
    while not done.wait(WAIT_SLICE_MS / 1000):
        pass
    value = result[0]
    if isinstance(value, BaseException):  # pragma: no cover
        raise value
    status, message = value
    return int(status), message
