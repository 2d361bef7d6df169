"""Recording a store's session as a scenario (``Store(..., record=True)``,
:meth:`reducerkit.Store.scenario`).

The recorder sees the store through the C interface only: the action log
(``record_actions``: every reduced action, whether the host or an effect sent it, and the
state after it), the clock advances and sends it wraps, and the request events and answers
the store's host-request book tells it of, each at the moment it happens. Before each event
it takes the action log, so the steps come out in the order things happened: a request comes
after the send that caused it, an answer before the action it lets the effect send.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any

from . import _json
from ._diff import json_equal
from .errors import MisuseError, ReducerKitError, Status

if TYPE_CHECKING:
    from .store import Store

__all__ = ["SessionRecorder"]


def _status_name(error: ReducerKitError) -> str:
    return f"RK_ERR_{error.status.name}" if isinstance(error.status, Status) else "RK_ERR_?"


class SessionRecorder:
    """Records what a store does as scenario steps (see the module documentation)."""

    def __init__(self, store: Store, *, options: dict[str, Any], user_records: bool) -> None:
        from .store import Store as _Store
        self._cls = _Store
        self._store = weakref.ref(store)
        self.feature = store.feature
        self.options = options
        self.lock = threading.RLock()
        self.steps: list[dict[str, Any]] = []
        # The records take_actions() hands the program when it asked for record_actions too.
        self.user_log: list[dict[str, Any]] | None = [] if user_records else None
        self.state: Any = store.state
        store._requests.observer = self
        # Instance attributes: only a recorded store pays for the recording.
        store.send = self._send  # type: ignore[method-assign]
        store.advance = self._advance  # type: ignore[method-assign]
        store.take_actions = self._take_actions  # type: ignore[method-assign]

    def _live(self) -> Store:
        store = self._store()
        if store is None:  # pragma: no cover - the store owns the recorder
            raise MisuseError("the recorded store is gone", Status.MISUSE)
        return store

    # ---- the action log ------------------------------------------------------------------

    def _drain_actions(self) -> None:
        """Turns the reduced actions logged since the last call into send/receive steps."""
        with self.lock:
            for record in self._cls.take_actions(self._live()):
                if self.user_log is not None:
                    self.user_log.append(record)
                kind = "send" if record.get("origin") == "host" else "receive"
                step: dict[str, Any] = {kind: record["action"]}
                if not json_equal(record["state"], self.state):
                    step["state"] = record["state"]
                self.state = record["state"]
                self.steps.append(step)

    def flush(self) -> None:
        """Takes the queued request events (which calls :meth:`request` and
        :meth:`cancelled`) and the action log."""
        store = self._live()
        if not store.closed:
            store._requests.drain()  # without self.lock: the book's lock comes first
            self._drain_actions()

    # ---- the book's observer (reducerkit/_host.py) ----------------------------------------

    def request(self, request_id: int, name: str, payload: Any) -> None:
        with self.lock:
            self._drain_actions()
            self.steps.append({"request": {"id": request_id, "name": name, "payload": payload}})

    def cancelled(self, request_id: int) -> None:
        with self.lock:
            self._drain_actions()
            self.steps.append({"cancelled": request_id})

    def resolve(self, request_id: int, data: bytes) -> dict[str, Any]:
        with self.lock:
            self._drain_actions()
            try:
                response = _json.loads(data)
            except ValueError:  # not JSON: the library refuses it (RK_ERR_JSON)
                response = data.decode("utf-8", "replace")
            step = {"resolve": request_id, "response": response}
            self.steps.append(step)
            return step

    def fail(self, request_id: int, message: str) -> dict[str, Any]:
        with self.lock:
            self._drain_actions()
            step = {"fail": request_id, "message": message}
            self.steps.append(step)
            return step

    def refused(self, step: dict[str, Any], error: ReducerKitError) -> None:
        """The answer of ``step`` was refused: the step expects that error."""
        with self.lock:
            if error.status == Status.INVALID_HANDLE:  # the store was closed meanwhile
                self.discard(step)
                return
            step["error"] = {"status": _status_name(error), "message": error.message}

    def discard(self, step: dict[str, Any]) -> None:
        with self.lock:
            for i in range(len(self.steps) - 1, -1, -1):
                if self.steps[i] is step:
                    del self.steps[i]
                    return

    # ---- the wrapped Store methods --------------------------------------------------------

    def _settle(self, store: Store) -> None:
        """On the test clock, lets effects an answer resumed finish (or sleep on the clock)
        before the next step, so the steps come out in the order a replay waits for them."""
        if self.options.get("clock") != "test":
            return
        try:
            self._cls.wait_idle(store, 1.0)
        except ReducerKitError:
            pass

    def _send(self, action: Any) -> None:
        store = self._live()
        self._settle(store)
        try:
            self._cls.send(store, action)
        except ReducerKitError as e:
            if e.status in (Status.ACTION, Status.JSON) and not store.closed:
                try:
                    shown = _json.loads(action) if isinstance(action, (bytes, bytearray)) else action
                    _json.compact(shown)
                except (ValueError, TypeError):
                    raise e from None  # not JSON at all: nothing a scenario can replay
                self.flush()
                with self.lock:
                    self._drain_actions()
                    self.steps.append({"send": shown, "error": {"status": _status_name(e),
                                                                "message": e.message}})
            raise
        self.flush()

    def _advance(self, seconds: float | None = None, *, milliseconds: int | None = None) -> None:
        from .store import _milliseconds
        store = self._live()
        if (seconds is None) == (milliseconds is None):
            raise TypeError("advance() takes exactly one of seconds= or milliseconds=")
        if milliseconds is None:
            ms = _milliseconds("seconds", seconds, scale=1000, ceil=False)
        else:
            ms = _milliseconds("milliseconds", milliseconds, scale=1, ceil=False)
        self._settle(store)
        self.flush()
        with self.lock:
            self._drain_actions()
            step = {"advance_ms": ms}
            self.steps.append(step)
        try:
            self._cls.advance(store, milliseconds=ms)
        except BaseException:
            self.discard(step)
            raise
        self.flush()

    def _take_actions(self) -> list[dict[str, Any]]:
        if self.user_log is None:
            raise MisuseError("the store does not record actions; create it with "
                              "record_actions=True", Status.MISUSE)
        self.flush()
        with self.lock:
            records, self.user_log = self.user_log, []
        return records

    # ---- the scenario ---------------------------------------------------------------------

    def scenario(self, name: str | None = None) -> dict[str, Any]:
        """The scenario of everything recorded so far (after waiting up to a second for
        running effects to settle); ends with a ``finish`` step when no effect runs (nothing
        sleeps on the test clock or waits for an answer)."""
        store = self._live()
        try:  # let cancelled effects wind down (a live clock's effects may keep running)
            self._cls.wait_idle(store, 1.0)
        except ReducerKitError:
            pass
        self.flush()
        with self.lock:
            self._drain_actions()
            steps = [dict(step) for step in self.steps]
            idle = store.effect_count == 0
            final_state = store.state
        if idle:
            steps.append({"finish": True})
        return {
            "name": name or f"a recorded session of {self.feature}",
            "feature": self.feature,
            "options": dict(self.options),
            "steps": steps,
            "final_state": final_state,
        }
