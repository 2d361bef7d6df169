"""Effects the host fulfils: the Python side of a store's host requests.

A feature's effects may call *host endpoints* (``rk_features()`` lists them under
``"requests"``). A store created with ``provide=[...]`` (or ``providers={...}``) sends each
call of those endpoints to Python as a request event, ``{"id": 1, "name": "numberFact",
"payload": 42}``, and, when the effect that waits for it is cancelled, a cancellation
``{"id": 1, "cancelled": true}`` (``include/reducerkit.h``, "Effects the host fulfils").

:class:`HostRequests` is what a store keeps of them (one per store, held by the store's core,
never by the :class:`~reducerkit.Store` itself, so that a forgotten store can be collected):

- *callback mode* (the store has ``providers``): ``rk_store_on_request`` delivers every event
  to :meth:`HostRequests._trampoline` on the thread where it happens. A synchronous provider
  answers right there (the fastest round trip: the effect goes on without suspending); an
  ``async def`` one runs as a task on the store's asyncio loop and is cancelled with its
  request. Requests of endpoints without a provider go to the book below.
- *queue mode* (no providers): events queue in the library; :meth:`HostRequests.drain`
  takes them (``rk_store_take_requests``) into the book, and the library's request fd says
  when there are some.

The book: ``pending`` (requests the program has to answer, oldest first) and ``unclaimed``
(those not yet handed out by ``wait_request()`` / ``requests()``).
"""

from __future__ import annotations

import math
import os
import select
import sys
import threading
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Mapping
from contextlib import suppress
from ctypes import byref, c_int
from typing import TYPE_CHECKING, Any

from . import _json
from ._lifecycle import callback_stack
from ._native import REQUEST_CALLBACK, Library
from .errors import (
    InvalidArgumentError,
    JSONError,
    ReducerKitError,
    Status,
    StoreClosedError,
    TimeoutError,
)

if TYPE_CHECKING:  # asyncio is imported where it is used: `import reducerkit` stays fast
    import asyncio

    from ._lifecycle import Core

__all__ = ["Request", "HostRequests", "Provider", "failure_message", "encode_response",
           "normalize_provide"]

def _is_async_function(fn: Any) -> bool:
    import inspect  # imported on first use: `import reducerkit` stays fast

    return inspect.iscoroutinefunction(fn)


def _is_awaitable(value: Any) -> bool:
    if not hasattr(value, "__await__") and type(value).__name__ not in ("coroutine", "generator"):
        return False
    import inspect

    return inspect.isawaitable(value)


def _is_coroutine(value: Any) -> bool:
    import inspect

    return inspect.iscoroutine(value)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The loop running on this thread, if any (asyncio only when it is imported already:
    no loop can run without it)."""
    aio = sys.modules.get("asyncio")
    if aio is None:
        return None
    loop: asyncio.AbstractEventLoop | None = aio._get_running_loop()
    return loop


def _log_debug(message: str, *args: Any) -> None:
    """Logs to the "reducerkit" logger (logging is imported on first use)."""
    import logging

    logging.getLogger("reducerkit").debug(message, *args, exc_info=True)

Provider = Callable[[Any], Any]
"""A provider: called with a request's payload, returns the response (or an awaitable of it,
or is an ``async def``), or raises to fail the request."""

_PENDING, _ANSWERED, _CANCELLED = 0, 1, 2
_MISSING: Any = object()
_UINT64_MAX = 2**64 - 1
_WAIT_SLICE = 0.1  # seconds: blocking waits run in slices so that Ctrl-C gets through


def failure_message(error: BaseException) -> str:
    """The message a provider's exception fails its request with: ``str(error)``, or the
    exception's class name when that is empty (``raise TimeoutError`` -> ``"TimeoutError"``).
    NUL characters, which C strings cannot carry, become U+FFFD."""
    try:
        text = str(error)
    except Exception:  # a broken __str__
        text = ""
    if not text:
        text = type(error).__name__
    return text.replace("\x00", "\ufffd")


def _check_id(request_id: Any) -> int:
    if isinstance(request_id, bool) or not isinstance(request_id, int):
        raise InvalidArgumentError(
            f"a request id is an int, not {type(request_id).__name__}", Status.INVALID_ARGUMENT)
    if not 0 <= request_id <= _UINT64_MAX:  # ctypes would wrap it silently
        raise InvalidArgumentError(f"request id {request_id} is out of range (0 to 2**64 - 1)",
                                   Status.INVALID_ARGUMENT)
    return request_id


def encode_response(value: Any) -> bytes:
    """A response as JSON text: ``bytes`` (and bytearray, memoryview) are taken as JSON text
    already; anything else is encoded. Raises :class:`JSONError`."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        if b"\x00" in data:  # the C call takes a NUL-terminated string: refuse, not truncate
            raise JSONError("a response given as JSON text contains a NUL byte", Status.JSON)
        return data
    try:
        return _json.dumps(value)
    except _json.EncodeError as e:
        raise JSONError(f"response {_json.shown(value)} cannot be encoded as JSON: {e}",
                        Status.JSON) from e


class Request:
    """A call of a host endpoint that the program answers (an endpoint given in
    ``provide=`` without a provider).

    Attributes:
        id: the request's id (from 1, per store; never reused).
        name: the endpoint, e.g. ``"numberFact"``.
        payload: the call's payload, decoded from JSON (e.g. ``42``).

    Answer it once, from any thread, with :meth:`resolve` or :meth:`fail`. :attr:`cancelled`
    becomes ``True`` when the effect that waited for it was cancelled (it must not be
    answered any more).
    """

    __slots__ = ("id", "name", "payload", "_book", "_state")

    id: int
    name: str
    payload: Any

    def __init__(self, book: HostRequests, request_id: int, name: str, payload: Any) -> None:
        """Made by the store (@private: programs get requests from it, never construct one)."""
        self.id = request_id
        self.name = name
        self.payload = payload
        self._book = book
        self._state = _PENDING

    @property
    def cancelled(self) -> bool:
        """Whether the effect waiting for this request was cancelled (or its store closed)."""
        return self._state == _CANCELLED

    @property
    def answered(self) -> bool:
        """Whether :meth:`resolve` or :meth:`fail` (through this binding) answered it."""
        return self._state == _ANSWERED

    def resolve(self, value: Any) -> None:
        """Answers with ``value`` (encoded as JSON; ``bytes`` are sent as JSON text): the
        effect's call returns it.

        Raises:
            ResponseError: not a response of the endpoint (the message says where and what
                was expected); the request stays pending and can be answered again.
            JSONError: ``value`` cannot be encoded, or ``bytes`` that are not JSON.
            InvalidArgumentError: already answered or cancelled (the message says which).
            StoreClosedError: the store was closed.
        """
        self._book.resolve(self.id, value)

    def fail(self, message: str) -> None:
        """Fails the request: the effect's call throws an error carrying ``message``.

        Raises:
            InvalidArgumentError: already answered or cancelled, or a NUL in ``message``.
            StoreClosedError: the store was closed.
        """
        self._book.fail(self.id, message)

    def __repr__(self) -> str:
        state = {_PENDING: "", _ANSWERED: ", answered", _CANCELLED: ", cancelled"}[self._state]
        return f"Request(id={self.id}, name={self.name!r}, payload={self.payload!r}{state})"


class HostRequests:
    """A store's host requests, on the Python side (see the module documentation)."""

    def __init__(self, core: Core, providers: Mapping[str, Provider] | None,
                 loop: asyncio.AbstractEventLoop | None) -> None:
        self.core = core
        self.lib: Library = core.lib
        # name -> (function, is an async def)
        self.providers: dict[str, tuple[Provider, bool]] = {
            name: (fn, _is_async_function(fn)) for name, fn in (providers or {}).items()}
        self.loop = loop
        self.callback_mode = bool(self.providers)
        self.cond = threading.Condition(threading.Lock())
        self.pending: dict[int, Request] = {}    # not answered, not cancelled; oldest first
        self.unclaimed: dict[int, Request] = {}  # pending, not handed out yet
        self.log: list[tuple[str, Request]] | None = None  # every event, for TestStore
        self.async_waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        self.readers: set[tuple[asyncio.AbstractEventLoop, int]] = set()
        # Provider requests being answered: id -> its asyncio task (None: a synchronous
        # provider is running, or the task is about to start). A cancellation pops the id.
        self.inflight: dict[int, asyncio.Task[None] | None] = {}
        self.flight_lock = threading.Lock()
        self.fd: int | None = None
        self.thunk: Any = None

    # ---- setup and teardown -------------------------------------------------------------

    def install(self) -> None:
        """Sets the request callback (callback mode). Call right after creating the store,
        before any action is sent."""
        if not self.callback_mode:
            return
        thunk = REQUEST_CALLBACK(self._trampoline)
        self.lib.call(self.lib.rk_store_on_request, self.core.handle, thunk, None,
                      context="rk_store_on_request")
        self.thunk = thunk

    def remove_own_readers(self) -> None:
        """Removes the ``requests()`` readers of the loop running on this thread (called
        before the store is destroyed; readers of other loops end by themselves: they watch
        their own duplicate of the descriptor, which the library's close leaves valid)."""
        if not self.readers:
            return  # (and asyncio may not even be imported)
        import asyncio

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            return
        for loop, fd in list(self.readers):
            if loop is running:
                loop.remove_reader(fd)

    def closed(self) -> None:
        """The store was destroyed: every request still pending is cancelled; waiters wake
        (and see the store closed); provider tasks still running are cancelled."""
        with self.cond:
            for request in self.pending.values():
                request._state = _CANCELLED
            self.pending.clear()
            self.unclaimed.clear()
            self.cond.notify_all()
        with self.flight_lock:
            tasks = [t for t in self.inflight.values() if t is not None]
            self.inflight.clear()
        for task in tasks:
            self._call_soon(task.get_loop(), task.cancel)
        self._notify_async()

    # ---- events ---------------------------------------------------------------------

    def _trampoline(self, _userdata: Any, event_json: bytes, _length: int) -> None:
        """The ``rk_request_callback``: runs on the thread of the event; never raises."""
        core = self.core
        stack = callback_stack()
        stack.append(core)
        try:
            event = self.lib.decode(event_json, "the request callback")
            request_id = event["id"]
            name = event.get("name")
            if name is not None:
                entry = self.providers.get(name)
                if entry is not None:
                    self._provide(entry, request_id, name, event["payload"])
                    return
            elif self.inflight:
                with self.flight_lock:
                    task = self.inflight.pop(request_id, _MISSING)
                if task is not _MISSING:
                    if task is not None:  # a running async provider: cancel its task
                        self._call_soon(task.get_loop(), task.cancel)
                    return
            with self.cond:
                self._event_locked(event)
                self.cond.notify_all()
            self._notify_async()
        except BaseException as e:  # never into ctypes: re-raised by the next call
            core.record_error(e, "the request callback")
        finally:
            stack.pop()

    def _event_locked(self, event: dict[str, Any]) -> None:
        request_id = event["id"]
        if event.get("cancelled"):
            request = self.pending.pop(request_id, None)
            self.unclaimed.pop(request_id, None)
            if request is None:  # not one of ours (answered through C, say): still logged
                request = Request(self, request_id, "?", None)
            request._state = _CANCELLED
            if self.log is not None:
                self.log.append(("cancelled", request))
            return
        request = Request(self, request_id, event["name"], event.get("payload"))
        self.pending[request_id] = request
        self.unclaimed[request_id] = request
        if self.log is not None:
            self.log.append(("request", request))

    def _notify_async(self) -> None:
        for loop, wake in list(self.async_waiters):
            self._call_soon(loop, wake.set)

    @staticmethod
    def _call_soon(loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], *args: Any) -> bool:
        try:
            loop.call_soon_threadsafe(fn, *args)
            return True
        except RuntimeError:  # the loop is closed
            return False

    def drain(self) -> None:
        """Queue mode: moves the queued events into the book (and wakes waiters)."""
        if self.callback_mode:
            return
        handle = self.core.live()
        with self.cond:
            # Under the lock: two threads draining at once must not reorder a request and
            # its cancellation. The call does not block (it only empties the queue).
            data = self.lib.call_out_string(self.lib.rk_store_take_requests, handle)
            if data == b"[]":
                return
            for event in self.lib.decode(data, "rk_store_take_requests"):
                self._event_locked(event)
            self.cond.notify_all()
        self._notify_async()

    def take_log(self) -> list[tuple[str, Request]]:
        """The events since the last call, oldest first (needs ``log`` enabled)."""
        self.drain()
        with self.cond:
            log = self.log or []
            out = log[:]
            del log[:len(out)]
        return out

    def pending_requests(self) -> list[Request]:
        self.drain()
        with self.cond:
            return list(self.pending.values())

    def claim(self) -> Request | None:
        """The oldest request not handed out yet, now handed out; None if there is none."""
        with self.cond:
            return self._claim_locked()

    def _claim_locked(self) -> Request | None:
        for request_id in self.unclaimed:
            return self.unclaimed.pop(request_id)
        return None

    def request_fd(self) -> int:
        if self.fd is None:
            out = c_int(-1)
            self.lib.call(self.lib.rk_store_request_fd, self.core.live(), byref(out),
                          context="rk_store_request_fd")
            self.fd = out.value
        return self.fd

    # ---- answers ---------------------------------------------------------------------

    def resolve(self, request_id: int, value: Any) -> None:
        request_id = _check_id(request_id)
        data = encode_response(value)
        handle = self.core.live()
        try:
            self.lib.call(self.lib.rk_store_resolve, handle, request_id, data)
        except ReducerKitError:
            _json.refuse_nonfinite(value)
            raise
        self._answered(request_id)

    def fail(self, request_id: int, message: str) -> None:
        request_id = _check_id(request_id)
        if not isinstance(message, str):
            raise InvalidArgumentError(f"a failure message is a str, not "
                                       f"{type(message).__name__}", Status.INVALID_ARGUMENT)
        if "\x00" in message:
            raise InvalidArgumentError("a failure message contains a NUL character",
                                       Status.INVALID_ARGUMENT)
        handle = self.core.live()
        self.lib.call(self.lib.rk_store_fail, handle, request_id,
                      message.encode("utf-8", "surrogatepass"))
        self._answered(request_id)

    def _answered(self, request_id: int) -> None:
        with self.cond:
            request = self.pending.pop(request_id, None)
            self.unclaimed.pop(request_id, None)
            if request is not None:
                request._state = _ANSWERED

    # ---- providers -------------------------------------------------------------------

    def _provide(self, entry: tuple[Provider, bool], request_id: int, name: str,
                 payload: Any) -> None:
        fn, is_async = entry
        if is_async:
            self._schedule(request_id, name, lambda: fn(payload))
            return
        self.inflight[request_id] = None
        try:
            value = fn(payload)
        except Exception as e:
            self.inflight.pop(request_id, None)
            _log_debug("provider %r failed request %d", name, request_id)
            self._fail_quietly(request_id, failure_message(e))
            return
        except BaseException as e:  # KeyboardInterrupt, SystemExit: fail, then re-raise
            self.inflight.pop(request_id, None)
            self._fail_quietly(request_id, failure_message(e))
            raise
        if _is_awaitable(value):
            self._schedule(request_id, name, lambda: value, awaitable=value)
            return
        self._answer(request_id, name, value)

    def _answer(self, request_id: int, name: str, value: Any) -> None:
        """Resolves a provider's request with its result; a result the library (or the JSON
        encoder) refuses fails the request with the message and is re-raised to Python."""
        try:
            data = encode_response(value)
        except JSONError as e:
            self.inflight.pop(request_id, None)
            self._fail_quietly(request_id, e.message)
            self._record_provider_error(e, name, request_id)
            return
        try:
            self.lib.call(self.lib.rk_store_resolve, self.core.handle, request_id, data)
        except ReducerKitError as error:
            self.inflight.pop(request_id, None)
            if error.status == Status.INVALID_HANDLE:
                return  # the store was closed meanwhile: nobody waits for the answer
            if error.status == Status.INVALID_ARGUMENT and "cancelled" in error.message:
                return  # the request was cancelled while the provider worked on it
            self._fail_quietly(request_id, error.message)
            self._record_provider_error(error, name, request_id)
            return
        self.inflight.pop(request_id, None)

    def _record_provider_error(self, error: BaseException, name: str, request_id: int) -> None:
        try:
            error.add_note(f"(the response of provider {name!r} to request {request_id} was "
                           f"refused; the request was failed with this message)")
        except Exception:  # pragma: no cover
            pass
        self.core.record_error(error, f"provider {name!r}")

    def _fail_quietly(self, request_id: int, message: str) -> None:
        """rk_store_fail, ignoring a closed store or a request that ended meanwhile."""
        with suppress(ReducerKitError):
            self.lib.call(self.lib.rk_store_fail, self.core.handle, request_id,
                          message.encode("utf-8", "surrogatepass"))

    def _schedule(self, request_id: int, name: str, make: Callable[[], Awaitable[Any]],
                  awaitable: Any = None) -> None:
        """Runs ``await make()`` as a task on the store's loop (from any thread)."""
        loop = self.loop
        self.inflight[request_id] = None
        why = ""
        if loop is None:
            why = (f"provider {name!r} is asynchronous, but the store has no asyncio loop "
                   f"(create the store while a loop runs, or pass loop=)")
        elif _running_loop() is loop:
            # The event came on the loop's own thread (a send from the loop started the
            # effect): the task is created here, without a thread-safe wake-up of the loop.
            self._start(request_id, name, make, awaitable)
        elif not self._call_soon(loop, self._start, request_id, name, make, awaitable):
            why = f"provider {name!r} cannot run: the store's asyncio loop is closed"
        if why:
            self.inflight.pop(request_id, None)
            if _is_coroutine(awaitable):
                awaitable.close()  # never awaited, on purpose
            self._fail_quietly(request_id, why)
            self.core.record_error(InvalidArgumentError(why, Status.INVALID_ARGUMENT),
                                   f"provider {name!r}")

    def _start(self, request_id: int, name: str, make: Callable[[], Awaitable[Any]],
               awaitable: Any) -> None:
        """On the loop: starts the provider's task unless the request was cancelled first.
        The task is created outside the lock: with an eager task factory
        (``asyncio.eager_task_factory``) it runs here until it first suspends, and a provider
        that answers without suspending resolves inside the request callback (the effect then
        goes on without suspending, as with a plain function)."""
        loop = self.loop
        assert loop is not None
        with self.flight_lock:
            if request_id not in self.inflight:  # cancelled before it could start
                if _is_coroutine(awaitable):
                    awaitable.close()
                return
        task = loop.create_task(self._run(request_id, name, make),
                                name=f"reducerkit provider {name} #{request_id}")
        with self.flight_lock:
            if request_id in self.inflight:
                if not task.done():
                    self.inflight[request_id] = task
                return
        # Cancelled meanwhile (from another thread, or while an eager task ran): its
        # cancellation found no task to cancel.
        task.cancel()

    async def _run(self, request_id: int, name: str,
                   make: Callable[[], Awaitable[Any]]) -> None:
        import asyncio

        try:
            value = await make()
        except asyncio.CancelledError:
            with self.flight_lock:
                ours = self.inflight.pop(request_id, _MISSING) is not _MISSING
            if ours:  # cancelled by something else than the request's cancellation
                self._fail_quietly(request_id, f"provider {name!r}: its task was cancelled")
            raise
        except Exception as e:
            self.inflight.pop(request_id, None)
            _log_debug("provider %r failed request %d", name, request_id)
            self._fail_quietly(request_id, failure_message(e))
            return
        except BaseException as e:
            self.inflight.pop(request_id, None)
            self._fail_quietly(request_id, failure_message(e))
            raise
        if request_id in self.inflight:  # else cancelled just as it returned
            self._answer(request_id, name, value)

    # ---- waiting ---------------------------------------------------------------------

    def wait(self, timeout: float | None) -> Request:
        """The next request not handed out yet, waiting up to ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        fd = -1
        try:
            while True:
                self.drain()
                with self.cond:
                    request = self._claim_locked()
                    if request is not None:
                        return request
                    if self.core.closed:
                        raise StoreClosedError(f"{self.core.name} is closed",
                                               Status.INVALID_HANDLE)
                    remaining = math.inf if deadline is None else deadline - time.monotonic()
                    if remaining <= 0:
                        raise TimeoutError(f"no request within {timeout} s", Status.TIMEOUT)
                    if self.callback_mode:
                        self.cond.wait(min(_WAIT_SLICE, remaining))
                        continue
                # Queue mode: sleep on (our own duplicate of) the library's descriptor, in
                # slices: Ctrl-C gets through, and a request another thread took from the
                # queue into the book is seen within a slice.
                if fd < 0:
                    fd = os.dup(self.request_fd())
                _wait_readable(fd, min(_WAIT_SLICE, remaining))
        finally:
            if fd >= 0:
                os.close(fd)

    async def iterate(self, raise_pending: Callable[[], None]) -> AsyncGenerator[Request, None]:
        import asyncio

        loop = asyncio.get_running_loop()
        wake = asyncio.Event()
        waiter = (loop, wake)
        core = self.core
        fd = -1

        def readable() -> None:
            try:
                self.drain()
            except StoreClosedError:
                pass
            except BaseException as e:  # pragma: no cover - take_requests does not fail
                core.record_error(e, "requests()")
            wake.set()

        self.async_waiters.add(waiter)
        try:
            if not self.callback_mode:
                # Our own duplicate of the descriptor: the store's close (from any thread)
                # leaves it valid (it reads as end-of-file, which wakes us), so the loop
                # never watches a closed or reused descriptor.
                fd = os.dup(self.request_fd())
                self.readers.add((loop, fd))
                loop.add_reader(fd, readable)
            while True:
                raise_pending()
                try:
                    self.drain()
                except StoreClosedError:
                    return
                request = self.claim()
                if request is not None:
                    yield request
                    continue
                if core.closed:
                    return
                wake.clear()
                request = self.claim()  # one that came between the first look and clear()
                if request is not None:
                    yield request
                    continue
                await wake.wait()
        finally:
            self.async_waiters.discard(waiter)
            if fd >= 0:
                self.readers.discard((loop, fd))
                if not loop.is_closed():
                    loop.remove_reader(fd)
                os.close(fd)


def _wait_readable(fd: int, seconds: float) -> None:
    """Waits until ``fd`` is readable (or hung up), at most ``seconds``."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        poller.poll(max(0, math.ceil(seconds * 1000)))
    else:  # pragma: no cover - platforms without poll()
        select.select([fd], [], [], max(0.0, seconds))


def normalize_provide(provide: Iterable[str] | None,
                      providers: Mapping[str, Provider] | None) -> list[str] | None:
    """The ``"provide"`` option: the providers' names, then the other ``provide`` names
    (a name in both counts once; one given twice in ``provide`` is left for the library to
    refuse). None when neither is given."""
    if provide is None and providers is None:
        return None
    names: list[str] = []
    if providers is not None:
        if not isinstance(providers, Mapping):
            raise InvalidArgumentError(
                f"providers must be a dict of endpoint name -> function, not "
                f"{type(providers).__name__}", Status.INVALID_ARGUMENT)
        for name, fn in providers.items():
            if not isinstance(name, str):
                raise InvalidArgumentError(f"a provider's endpoint name is a str, not "
                                           f"{type(name).__name__}", Status.INVALID_ARGUMENT)
            if not callable(fn):
                raise InvalidArgumentError(f"the provider of {name!r} is not callable: {fn!r}",
                                           Status.INVALID_ARGUMENT)
            names.append(name)
    if provide is not None:
        if isinstance(provide, (str, bytes)):
            raise InvalidArgumentError(
                f"provide is a list of endpoint names, not a single {type(provide).__name__} "
                f"(write provide=[{provide!r}])", Status.INVALID_ARGUMENT)
        given = set(names)
        for name in provide:
            if not isinstance(name, str):
                raise InvalidArgumentError(f"an endpoint name in provide is a str, not "
                                           f"{type(name).__name__}", Status.INVALID_ARGUMENT)
            if name not in given:
                names.append(name)
    return names

