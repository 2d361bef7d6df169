"""The exhaustive :class:`TestStore` (see :mod:`reducerkit.testing` for a tour)."""

from __future__ import annotations

import copy
import itertools
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeAlias

from .._diff import describe_changes, json_equal
from .._json import compact
from .._lifecycle import check_schema_hash, resolve_library
from .._native import Library
from ..errors import TimeoutError
from ..store import ActionT, Request, StateT, Store

__all__ = ["TestStore", "Changes"]

Changes: TypeAlias = Mapping[str, Any] | Callable[[dict[str, Any]], Any] | None
"""How an expected state change is given: a dict of top-level keys, or a function that
mutates a copy of the previous state (or returns the new state), or ``None`` (no change)."""


class _Exact:
    """Changes that give the expected state itself (the scenario runner's): used as it is,
    without copying the previous state first."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _normalize_action(action: Any) -> Any:
    """The wire format's output form: ``{"increment": {}}`` and ``{"increment": null}``
    are written ``"increment"``."""
    if isinstance(action, dict) and len(action) == 1:
        (name, payload), = action.items()
        if payload is None or payload == {}:
            return name
    return action


# Lists of unasserted actions and events show this many, then how many more there are (a
# timer over a long advance left 100,000 of them, each a line).
_LIST_AT_MOST = 20


def _listed(lines: list[str], total: int) -> str:
    if total > len(lines):
        lines = [*lines, f"  ({total - len(lines)} more not shown)"]
    return "\n".join(lines)


def _show(action: Any) -> str:
    if isinstance(action, (bytes, bytearray)):  # JSON text
        return bytes(action).decode("utf-8", "replace")
    return compact(action)


def _differences(expected: Any, actual: Any) -> str | None:
    """``None`` when the values are equal JSON values (``true`` is not ``1``), else a
    path-by-path summary and a unified diff."""
    return None if json_equal(expected, actual) else describe_changes(expected, actual)


def _show_request(request: Request) -> str:
    return f"{request.name}({compact(request.payload)}) [request {request.id}]"


def _show_event(event: tuple[str, Request]) -> str:
    kind, request = event
    if kind == "cancelled":
        return f"the cancellation of request {request.id} ({request.name})"
    return f"the request {_show_request(request)}"


class TestStore(Generic[StateT, ActionT]):
    """A store under exhaustive test (see the module documentation).

    Args:
        feature: the feature name, e.g. ``"search"``.
        initial_state: merged over the feature's default state.
        snapshot: a document :meth:`reducerkit.Store.snapshot` returned: the test starts
            from its (migrated) state.
        clock: ``"test"`` (default: time moves only by :meth:`advance`) or ``"live"``.
        exhaustive: ``False`` asserts only what is given: unasserted state changes, received
            actions and running effects are let through (TCA's ``exhaustivity = .off``).
        timeout: seconds :meth:`receive`, :meth:`receive_request` and :meth:`finish` wait
            for effects.
        provide: host endpoints the test answers (``["numberFact"]``): their calls are
            asserted with :meth:`receive_request` and :meth:`receive_cancellation`.
        library: a :class:`reducerkit.Library` or library path.

    Used as a context manager, leaving the block without an exception calls
    :meth:`finish`, and the store is closed either way.

    Generic in the feature's state and action types for type checkers, like
    :class:`reducerkit.Store` (``python -m reducerkit stubs FEATURE`` writes them).
    """

    __test__ = False  # not a pytest test class
    _schema_hash: str | None = None
    """Set by a typed test store of generated stubs: see :class:`reducerkit.Store`."""

    def __init__(self, feature: str, *, initial_state: dict[str, Any] | None = None,
                 snapshot: Mapping[str, Any] | None = None, clock: str = "test", exhaustive: bool = True, timeout: float = 1.0,
                 provide: Iterable[str] | None = None,
                 library: Library | str | os.PathLike[str] | None = None) -> None:
        self.feature = feature
        self.exhaustive = exhaustive
        self.timeout = timeout
        if self._schema_hash is not None:
            check_schema_hash(resolve_library(library), feature, self._schema_hash,
                              type(self).__name__)
        self.store = Store(feature, initial_state=initial_state, snapshot=snapshot,
                           clock=clock,  # type: ignore[arg-type]  # checked by the library
                           record_actions=True, provide=provide, library=library)
        self._state: dict[str, Any] = copy.deepcopy(self.store.state)
        self._version = self.store.version  # of the asserted state (for the inspector)
        self._copy_results = True  # send/receive return a copy (the runner needs none)
        self._received: deque[dict[str, Any]] = deque()
        # Host request events not asserted yet, and the requests receive_request returned.
        self._events: deque[tuple[str, Request]] = deque(self.store._host_events())
        self._asserted: dict[int, Request] = {}
        # How states, actions and request payloads are compared: None when equal, else what
        # differs (shown after the label). The scenario runner uses the format's rule.
        self._differ: Callable[[Any, Any], str | None] = _differences
        self._diff_label = " (-expected +actual)"

    # ---- state ---------------------------------------------------------------------

    @property
    def state(self) -> dict[str, Any]:
        """The state as asserted so far (a copy)."""
        return copy.deepcopy(self._state)

    @property
    def received_actions(self) -> list[Any]:
        """Actions effects sent that were not received (asserted) yet."""
        self._collect()
        return [r["action"] for r in self._received]

    @property
    def host_events(self) -> list[tuple[str, Request]]:
        """Request events not asserted yet, oldest first: ``("request", request)`` or
        ``("cancelled", request)``."""
        self._collect_events()
        return list(self._events)

    def __repr__(self) -> str:
        return f"<reducerkit.testing.TestStore {self.feature!r} exhaustive={self.exhaustive}>"

    def __enter__(self) -> TestStore[StateT, ActionT]:
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        try:
            if exc is None:
                self.finish()
        finally:
            self.close()

    def close(self) -> None:
        """Closes the underlying store (cancels its effects). Idempotent."""
        self.store.close()

    # ---- internals -----------------------------------------------------------------

    def _fail(self, message: str) -> None:
        __tracebackhide__ = True
        raise AssertionError(f"[TestStore {self.feature!r}] {message}")

    def _collect(self, allow_host: bool = False) -> list[dict[str, Any]]:
        """Moves recorded effect actions into the received queue; returns host records."""
        hosts: list[dict[str, Any]] = []
        for record in self.store.take_actions():
            if record.get("origin") == "host":
                hosts.append(record)
            else:
                self._received.append(record)
        return hosts

    def _collect_events(self) -> None:
        self._events.extend(self.store._host_events())

    def _await_event(self, timeout: float) -> bool:
        """Waits until a request event is queued, or effects are idle (an effect waiting for
        the host counts as idle), or timeout."""
        return self._await(timeout, self._collect_events, lambda: bool(self._events))

    def _await(self, timeout: float, collect: Callable[[], object],
               arrived: Callable[[], bool]) -> bool:
        """Collects (``collect``) until ``arrived()``, or effects are idle, or ``timeout``
        seconds passed; whether it arrived."""
        deadline = time.monotonic() + timeout
        while True:
            collect()
            if arrived():
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            try:
                self.store.wait_idle(min(remaining, 0.05))
                idle = True
            except TimeoutError:
                idle = False
            collect()
            if arrived():
                return True
            if idle:
                return False

    def _events_text(self) -> str:
        return _listed([f"  {i + 1}. {_show_event(e)}"
                        for i, e in enumerate(itertools.islice(self._events, _LIST_AT_MOST))], len(self._events))

    def _expected(self, base: dict[str, Any], changes: Changes | _Exact,
                  kw: Mapping[str, Any]) -> dict[str, Any]:
        if isinstance(changes, _Exact) and not kw:
            exact: dict[str, Any] = changes.value
            return exact
        expected = copy.deepcopy(base)
        if changes is not None:
            if callable(changes):
                result = changes(expected)
                if result is not None:
                    if not isinstance(result, dict):
                        raise TypeError("a changes function must mutate the state it is "
                                        f"given or return a dict, not {type(result).__name__}")
                    expected = result
            elif isinstance(changes, Mapping):
                expected.update(copy.deepcopy(dict(changes)))
            else:
                raise TypeError("changes must be a dict, a function or None, not "
                                f"{type(changes).__name__}")
        if kw:
            expected.update(copy.deepcopy(dict(kw)))
        return expected

    def _assert_state(self, what: str, previous: dict[str, Any], actual: dict[str, Any],
                      changes: Changes, kw: Mapping[str, Any], version: int) -> None:
        __tracebackhide__ = True
        if self.exhaustive:
            expected = self._expected(previous, changes, kw)
            difference = self._differ(expected, actual)
            if difference is not None:
                self._fail(f"state after {what} is not the expected state"
                           f"{self._diff_label}:\n{difference}")
        elif changes is not None or kw:
            # Only what was asserted counts: the changes must hold on the actual state
            # (absolute assertions) or lead to it from the previous one (relative ones).
            on_actual = self._expected(actual, changes, kw)
            difference = self._differ(on_actual, actual)
            if difference is not None:
                on_previous = self._expected(previous, changes, kw)
                if self._differ(on_previous, actual) is not None:
                    self._fail(f"state after {what} does not match the asserted changes"
                               f"{self._diff_label}:\n{difference}")
        self._state = actual
        self._version = version

    def _pending_text(self) -> str:
        return _listed([f"  {i + 1}. {_show(r['action'])}"
                        for i, r in enumerate(itertools.islice(self._received, _LIST_AT_MOST))], len(self._received))

    def _await_received(self, timeout: float) -> bool:
        """Waits until an effect action is recorded, or effects are idle, or timeout."""
        return self._await(timeout, self._collect, lambda: bool(self._received))

    # ---- the API -------------------------------------------------------------------

    def send(self, action: ActionT, changes: Changes = None, /, **kw: Any) -> dict[str, Any]:
        """Sends ``action`` and asserts the state after it: the previous state with
        ``changes`` / keyword changes applied. Fails if received actions are pending
        (exhaustive). Returns the new state (a copy).

        ```python
        ts.send({"setCount": 5}, count=5)
        ```
        """
        __tracebackhide__ = True
        self._collect()
        if self._received:
            if self.exhaustive:
                self._fail(f"must receive {len(self._received)} action(s) before sending "
                           f"{_show(action)}:\n{self._pending_text()}")
            self._skip_received()
        self.store.send(action)
        hosts = self._collect()
        if len(hosts) != 1:  # pragma: no cover - a library bug, not a test failure
            self._fail(f"the action log has {len(hosts)} host records for one send of "
                       f"{_show(action)}; expected exactly 1")
        record = hosts[0]
        # Effect actions reduced *before* ours (a race with a running effect) were
        # received before the send: a test must not ignore them.
        early = [r for r in self._received if r["version"] < record["version"]]
        if early:
            if self.exhaustive:
                self._fail(f"effects sent {len(early)} action(s) while {_show(action)} was "
                           f"sent and they were not received:\n"
                           + "\n".join(f"  {_show(r['action'])}" for r in early))
            for r in early:
                self._received.remove(r)
        self._assert_state(f"sending {_show(action)}", self._state, record["state"],
                           changes, kw, record["version"])
        return self.state if self._copy_results else self._state

    def receive(self, action: ActionT, changes: Changes = None, /, **kw: Any) -> dict[str, Any]:
        """Asserts that an effect sent ``action`` (next in order), and the state after it.
        Waits up to :attr:`timeout` seconds for running effects. Returns the new state.

        ```python
        ts.receive({"factResponse": "1 is the multiplicative identity."},
                   fact="1 is the multiplicative identity.")
        ```
        """
        __tracebackhide__ = True
        expected_action = _normalize_action(action)
        if not self._received:
            self._await_received(self.timeout)
        if not self._received:
            try:
                running = self.store.effect_count
            except Exception:  # pragma: no cover
                running = -1
            hint = (f"{running} effect(s) still running or sleeping; advance the test clock?"
                    if running else "no effect is running")
            self._fail(f"expected to receive {_show(expected_action)}, but no action was "
                       f"received within {self.timeout} s ({hint})")
        if self.exhaustive:
            record = self._received.popleft()
            difference = self._differ(expected_action, _normalize_action(record["action"]))
            if difference is not None:
                self._received.appendleft(record)
                self._fail(f"received an unexpected action{self._diff_label}:\n{difference}\n"
                           f"received actions not asserted yet:\n{self._pending_text()}")
        else:
            record = self._skip_until(expected_action)
        self._assert_state(f"receiving {_show(expected_action)}", self._state,
                           record["state"], changes, kw, record["version"])
        return self.state if self._copy_results else self._state

    def _skip_until(self, expected_action: Any) -> dict[str, Any]:
        __tracebackhide__ = True
        deadline = time.monotonic() + self.timeout
        while True:
            while self._received:
                record = self._received.popleft()
                if self._differ(expected_action, _normalize_action(record["action"])) is None:
                    return record
                self._state, self._version = record["state"], record["version"]
            if not self._await_received(max(0.0, deadline - time.monotonic())):
                self._fail(f"expected to receive {_show(expected_action)}, but it was not "
                           f"received within {self.timeout} s")

    def _skip_received(self) -> None:
        while self._received:
            record = self._received.popleft()
            self._state, self._version = record["state"], record["version"]

    def skip_received_actions(self) -> None:
        """Drops the received actions not asserted yet (their state changes are taken)."""
        self._collect()
        self._skip_received()

    def receive_request(self, name: str, payload: Any) -> Request:
        """Asserts that the next host event is a request of endpoint ``name`` with
        ``payload`` (compared as JSON values), waiting up to :attr:`timeout` seconds for
        running effects, and returns it: answer it with ``request.resolve(response)`` or
        ``request.fail(message)``, then :meth:`receive` the action the effect sends.

        ```python
        req = ts.receive_request("numberFact", 0)
        req.resolve("0 is a fact")
        ts.receive({"factResponse": "0 is a fact"}, fact="0 is a fact")
        ```
        """
        __tracebackhide__ = True
        expected = {"name": name, "payload": payload}
        shown = f"{name}({compact(payload)})"
        while True:
            if not self._events:
                self._await_event(self.timeout)
            if not self._events:
                running = self.store.effect_count
                hint = (f"{running} effect(s) still running, sleeping or waiting for the host; "
                        f"advance the test clock?" if running else "no effect is running")
                self._fail(f"expected the request {shown}, but the host got no request event "
                           f"within {self.timeout} s ({hint})")
            kind, request = self._events[0]
            actual = {"name": request.name, "payload": request.payload}
            difference = self._differ(expected, actual) if kind == "request" else ""
            if difference is None:
                self._events.popleft()
                self._asserted[request.id] = request
                return request
            if self.exhaustive:
                if kind == "cancelled":
                    self._fail(f"expected the request {shown}, but the next host event is "
                               f"{_show_event((kind, request))}\nhost events not asserted "
                               f"yet:\n{self._events_text()}")
                self._fail(f"the next request is not the expected one{self._diff_label}:\n"
                           f"{difference}\nhost events not asserted yet:\n"
                           f"{self._events_text()}")
            self._events.popleft()  # not exhaustive: skip what was not asserted

    def receive_cancellation(self, request: Request | int) -> None:
        """Asserts that the next host event is the cancellation of ``request`` (a
        :class:`reducerkit.Request` or its id): the effect that waited for it was cancelled,
        e.g. by a newer query. Waits up to :attr:`timeout` seconds for running effects."""
        __tracebackhide__ = True
        request_id = request.id if isinstance(request, Request) else request
        while True:
            if not self._events:
                self._await_event(self.timeout)
            if not self._events:
                self._fail(f"expected the cancellation of request {request_id}, but the host "
                           f"got no event within {self.timeout} s")
            event = self._events[0]
            kind, actual = event
            if kind == "cancelled" and actual.id == request_id:
                self._events.popleft()
                return
            if self.exhaustive:
                self._fail(f"expected the cancellation of request {request_id}, but the next "
                           f"host event is {_show_event(event)}\nhost events not asserted "
                           f"yet:\n{self._events_text()}")
            self._events.popleft()

    def advance(self, seconds: float | None = None, *, milliseconds: int | None = None) -> None:
        """Moves the test clock forward; the actions effects send meanwhile must then be
        asserted with :meth:`receive`."""
        self.store.advance(seconds, milliseconds=milliseconds)
        self._collect()

    def finish(self, timeout: float | None = None) -> None:
        """Waits for effects to settle, then fails if received actions or host request
        events were not asserted, if a request is still unanswered, or if effects are still
        running (e.g. a timer sleeping on the test clock)."""
        __tracebackhide__ = True
        wait = self.timeout if timeout is None else timeout
        timed_out = False
        try:
            self.store.wait_idle(wait)
        except TimeoutError:
            timed_out = True
        self._collect()
        self._collect_events()
        if not self.exhaustive:
            return
        if self._received:
            self._fail(f"{len(self._received)} received action(s) were not asserted:\n"
                       f"{self._pending_text()}")
        if self._events:
            self._fail(f"{len(self._events)} host request event(s) were not asserted (use "
                       f"receive_request / receive_cancellation):\n{self._events_text()}")
        unanswered = [r for r in self._asserted.values() if not r.answered and not r.cancelled]
        if unanswered:
            self._fail(f"{len(unanswered)} request(s) were not answered (resolve or fail "
                       f"them):\n" + "\n".join(f"  {_show_request(r)}" for r in unanswered))
        running = self.store.effect_count
        if running or timed_out:
            self._fail(f"{running} effect(s) still running at finish"
                       + (f" after waiting {wait} s" if timed_out else
                          " (sleeping on the test clock, or waiting for an answer to a "
                          "request: cancel them, e.g. by toggling a timer off, advance the "
                          "clock until they end, or answer the request)"))
