"""The Pythonic layer: :class:`Store`, a handle on a Swift store, and :func:`features`.

```python
import reducerkit

with reducerkit.Store("counter") as store:
    store.send("increment")
    store.send({"setCount": 5})
    store.state                     # {'count': 5, 'fact': None, 'isTimerOn': False}
```
"""

from __future__ import annotations

import atexit
import ctypes
import math
import os
import sys
import threading
import time
import traceback
import weakref
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from ctypes import byref, c_size_t, c_uint64, c_void_p
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeAlias

from . import _json

try:  # the optional compiled call path for send (_speedups.c); ctypes alone without it
    from . import _speedups
except ImportError:  # not built (no compiler at install time), or not CPython >= 3.11
    _speedups = None  # type: ignore[assignment]

if TYPE_CHECKING:  # type-parameter defaults (PEP 696) for type checkers; plain at run time
    from typing_extensions import TypeVar

    StateT = TypeVar("StateT", default=dict[str, Any])
    ActionT = TypeVar("ActionT", default=Any)
else:
    from typing import TypeVar

    StateT = TypeVar("StateT")
    ActionT = TypeVar("ActionT")

from ._host import HostRequests, Provider, Request, _tls, normalize_provide
from ._native import PATCH_CALLBACK, STATE_CALLBACK, Library, default_library, load
from ._patch import MISSING, affects, apply_patch, freeze, parse_pointer, resolve

if TYPE_CHECKING:  # asyncio is imported where it is used: `import reducerkit` stays fast
    import asyncio
from .errors import (
    InvalidArgumentError,
    JSONError,
    MisuseError,
    ReducerKitError,
    Status,
    StoreClosedError,
)

__all__ = ["Store", "Request", "Provider", "features", "load_library", "JSON", "Action",
           "Subscriber"]

JSON: TypeAlias = Any
"""A JSON value as Python sees it: dict, list, str, int, float, bool or None."""

Action: TypeAlias = "str | dict[str, Any]"
"""An action in the wire format: ``"increment"``, ``{"setCount": 5}``, ..."""

Subscriber: TypeAlias = Callable[[dict[str, Any]], object]
"""A subscriber: called with the state after each action the store reduces."""

Clock: TypeAlias = Literal["live", "test"]

_MAX_CACHED_ACTIONS = 4096


def load_library(path: str | os.PathLike[str] | None = None) -> Library:
    """Loads ``libreducerkit`` and makes it the library used by default.

    Args:
        path: the library file. ``None``: ``$REDUCERKIT_LIB`` if set, else the copy inside
            the installed package.

    Raises:
        LibraryNotFoundError: the chosen file does not exist or cannot be loaded (never a
            fallback to another copy); the message says what to do.
        ABIVersionError: the library has another ABI version than this binding.
    """
    from ._native import set_default

    lib = load(path)
    set_default(lib)
    return lib


def _resolve_library(library: Library | str | os.PathLike[str] | None) -> Library:
    if library is None:
        return default_library()
    if isinstance(library, Library):
        return library
    return load(library)


_features_cache: dict[str, list[dict[str, Any]]] = {}


def features(library: Library | str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
    """The features the library exposes: ``[{"name", "description", "initial_state",
    "action_schema", "state_schema", "requests"}, ...]`` (``rk_features()``); ``"requests"``
    lists the feature's host endpoints: ``[{"name", "payload_schema", "response_schema"}]``."""
    lib = _resolve_library(library)
    cached = _features_cache.get(lib.path)
    if cached is None:
        cached = _checked_features(lib, lib.decode(lib.features_json(), "rk_features"))
        _features_cache[lib.path] = cached
    copied: list[dict[str, Any]] = _json.loads(_json.dumps(cached))  # callers may mutate it
    return copied


def _checked_features(lib: Library, value: Any) -> list[dict[str, Any]]:
    """``rk_features()``'s value, or a :class:`LibraryABIError` when it is not a list of
    objects with a ``"name"`` string (the least every host reads)."""
    if not isinstance(value, list):
        raise lib.abi_error("rk_features", f"returned a JSON {type(value).__name__}, not a "
                                           f"list of features")
    for index, item in enumerate(value):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise lib.abi_error("rk_features", f"returned a list whose item {index} is not an "
                                               f"object with a \"name\" string")
    return value


# ---- Bookkeeping shared by stores, their callbacks, finalizers and the exit hook ----------

# Callback thunks that unsubscribed themselves while running: they must outlive their own
# return path, so they are kept for the life of the process (a few bytes each).
_graveyard: list[Any] = []
_live_cores: set[_Core] = set()
_live_lock = threading.Lock()
_CLOSED = object()  # sentinel put into state streams when their store closes


def _callback_stack() -> list[_Core]:
    stack: list[_Core] | None = getattr(_tls, "stack", None)
    if stack is None:
        stack = []
        _tls.stack = stack
    return stack


class _Core:
    """What a store's callbacks, finalizer and the exit hook need, without the Store.

    The finalizer holds the core, never the :class:`Store`, so a forgotten store can be
    collected (unless one of its own subscribers refers to it; then it lives until closed).
    """

    def __init__(self, lib: Library, handle: c_void_p, owned: bool, name: str) -> None:
        self.lib = lib
        self.handle = handle
        self.owned = owned
        self.name = name
        self.errors: list[BaseException] = []
        self.subs: dict[int, Any] = {}
        self.requests: HostRequests | None = None  # set by Store._setup
        self.streams: set[tuple[asyncio.AbstractEventLoop, asyncio.Queue[Any]]] = set()
        self.lock = threading.Lock()
        self.closed = False

    def in_own_callback(self) -> bool:
        stack = getattr(_tls, "stack", None)
        return bool(stack) and self in stack  # type: ignore[operator]

    def live(self) -> c_void_p:
        """The handle, or StoreClosedError."""
        if self.closed:
            raise StoreClosedError(f"{self.name} is closed", Status.INVALID_HANDLE)
        return self.handle

    def record_error(self, error: BaseException, callback: object) -> None:
        """Keeps an exception raised in a callback, to re-raise it from the next call on the
        store. ``callback`` is the subscriber, or a str saying what raised it."""
        where = callback if isinstance(callback, str) else f"reducerkit subscriber {callback!r}"
        try:
            error.add_note(
                f"(raised in {where} of {self.name} on thread "
                f"{threading.current_thread().name!r}; re-raised by the next call on the "
                f"store)")
        except Exception:  # pragma: no cover - add_note cannot fail on real exceptions
            pass
        self.errors.append(error)

    def take_errors(self) -> list[BaseException]:
        errors = self.errors[:]
        del self.errors[:len(errors)]
        return errors

    def close(self, *, reason: str = "close") -> None:
        """Destroys an owned store (unsubscribes from a borrowed one). Idempotent."""
        with self.lock:
            if self.closed:
                return
            self.closed = True
        with _live_lock:
            _live_cores.discard(self)
        requests = self.requests
        if requests is not None:
            requests.remove_own_readers()
        # Also from inside one of the store's own callbacks: the library runs callbacks outside
        # the store's lock, so destroying there returns at once, and no callback (nor any
        # state an action sent from that callback produced) is delivered after it.
        self._release()
        if requests is not None:
            requests.closed()
        for loop, queue in list(self.streams):
            try:
                loop.call_soon_threadsafe(queue.put_nowait, _CLOSED)
            except RuntimeError:  # the loop is closed already
                pass
        if reason != "close" and self.errors:
            self._report_unraised(reason)

    def _release(self) -> None:
        handle = self.handle
        if self.owned:
            self.lib.rk_store_destroy(handle)
        else:
            for token in list(self.subs):
                self.lib.rk_store_unsubscribe(handle, token)
        # After destroy/unsubscribe returned, no callback runs again: the thunks may go, except
        # the one running now when this is called from a callback (freed later).
        if self.in_own_callback():
            _graveyard.extend(self.subs.values())
        if getattr(_tls, "stack", None) and self.requests is not None \
                and self.requests.thunk is not None:
            # Inside a callback of any store the library does not wait for this store's
            # request callbacks running on other threads (it could deadlock): keep the thunk.
            _graveyard.append(self.requests.thunk)
        self.subs.clear()
        if self.requests is not None:
            self.requests.thunk = None

    def _report_unraised(self, reason: str) -> None:
        errors = self.take_errors()
        try:
            sys.stderr.write(
                f"reducerkit: {len(errors)} exception(s) raised in callbacks of {self.name} "
                f"were never re-raised (the store was closed by its {reason}):\n")
            for error in errors:
                traceback.print_exception(error, file=sys.stderr)
        except Exception:  # pragma: no cover - stderr gone at exit
            pass


def _close_all_at_exit() -> None:
    """Closes every live store before the interpreter and ctypes are torn down, so no
    Swift thread calls into a finalizing interpreter (effects in flight, subscribers)."""
    with _live_lock:
        cores = list(_live_cores)
    for core in cores:
        try:
            core.close(reason="exit hook")
        except Exception:  # pragma: no cover - best effort at exit
            pass


atexit.register(_close_all_at_exit)


def _raise_errors(errors: list[BaseException]) -> None:
    if len(errors) == 1:
        raise errors[0]
    raise BaseExceptionGroup(f"{len(errors)} exceptions raised in reducerkit callbacks",
                             errors)


_str_actions: dict[str, bytes] = {}


def _encode_action(action: Any) -> bytes:
    if type(action) is str:
        data = _str_actions.get(action)
        if data is None:
            data = _json.dumps(action)
            if len(_str_actions) < _MAX_CACHED_ACTIONS:
                _str_actions[action] = data
        return data
    if isinstance(action, (bytes, bytearray, memoryview)):
        return bytes(action)  # already JSON text
    try:
        return _json.dumps(action)
    except _json.EncodeError as e:
        raise JSONError(f"action {action!r} cannot be encoded as JSON: {e}",
                        Status.JSON) from e


_INT64_MAX = 2**63 - 1
_WAIT_SLICE_MS = 100


def _monotonic_ms() -> int:
    return time.monotonic_ns() // 1_000_000


def _milliseconds(name: str, value: Any, *, scale: int, ceil: bool) -> int:
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
    if ms < 0 or ms > _INT64_MAX:
        raise InvalidArgumentError(
            f"{name} must be from 0 to {limit} {unit}, not {value!r}", Status.INVALID_ARGUMENT)
    return int(ms)


class _Worker:
    """A daemon thread that runs one blocking library call at a time for the main thread, so
    that the main thread can wait in short slices and take Ctrl-C (a signal handler runs only
    on the main thread, and only between bytecodes).

    Each call gets a worker of its own (:func:`_interruptible`): an idle one, or a new one. A
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


_MAX_IDLE_WORKERS = 2


def _interruptible(lib: Library, fn: Callable[..., int], *args: Any) -> tuple[int, str | None]:
    """``fn(*args)`` and, when it failed, its ``rk_last_error()`` (None: read it on this
    thread). On the main thread a worker of this call's own makes the call while this thread
    waits in short slices, so Ctrl-C raises ``KeyboardInterrupt`` at once (the abandoned call
    finishes on its worker, holding up no other call)."""
    if threading.current_thread() is not threading.main_thread():
        return fn(*args), None
    result, done = _Worker.submit(lib, fn, args)
    while not done.wait(_WAIT_SLICE_MS / 1000):
        pass
    value = result[0]
    if isinstance(value, BaseException):  # pragma: no cover
        raise value
    status, message = value
    return int(status), message


def _takes_one_argument(callback: Callable[..., object]) -> bool:
    """Whether ``callback`` accepts exactly one positional argument (not two)."""
    import inspect  # here, not at import: `import reducerkit` stays fast

    try:
        signature = inspect.signature(callback)
    except (TypeError, ValueError):  # builtins without a signature: call with both
        return False
    try:
        signature.bind(None, None)
        return False
    except TypeError:
        pass
    try:
        signature.bind(None)
        return True
    except TypeError:
        return False


class _PatchOuts:
    """One thread's arguments of ``rk_store_patch`` for :meth:`Store._catch_up`, made once:
    ctypes passes instances and ``byref`` objects without converting them."""

    __slots__ = ("since", "json", "json_ref", "text", "version", "version_ref")

    def __init__(self) -> None:
        self.since = c_uint64()
        self.json = c_void_p()  # char *, freed with rk_free
        self.json_ref = byref(self.json)
        self.text = ctypes.c_char_p.from_buffer(self.json)  # the same pointer, read as bytes
        self.version = c_uint64()
        self.version_ref = byref(self.version)


class Store(Generic[StateT, ActionT]):
    """A store of a feature implemented in Swift.

    Generic in its state and action types for type checkers (``Store[CounterState,
    CounterAction]``; ``python -m reducerkit stubs FEATURE`` writes them); unparameterized,
    ``Store[dict[str, Any], Any]``.

    ```python
    with reducerkit.Store("counter", clock="test") as store:
        store.send("toggleTimer")
        store.advance(seconds=3)
        assert store.state["count"] == 3
    ```

    Args:
        feature: a feature name from :func:`features`, e.g. ``"counter"``.
        initial_state: an object merged over the feature's default state (``None``: the
            default state).
        clock: ``"live"`` (real time) or ``"test"`` (time moves only by :meth:`advance`).
        record_actions: record every reduced action for :meth:`take_actions` (what
            :class:`reducerkit.testing.TestStore` uses).
        providers: host endpoints of the feature that Python functions answer, e.g.
            ``{"numberFact": lambda n: f"{n} is mine"}``: ``fn(payload)`` returns the
            response, or raises to fail the request. A plain function runs inside the
            request callback, on the thread of the effect (the fastest path: the effect goes
            on without suspending); an ``async def`` one (or one that returns an awaitable)
            runs as a task on ``loop`` and is cancelled with its request. See "Effects the
            host fulfils" in the README.
        provide: more endpoint names that the program answers by hand, through
            :meth:`pending_requests`, :meth:`wait_request` or :meth:`requests`.
        loop: the asyncio loop for ``async def`` providers (default: the loop running when
            the store is created).
        library: a :class:`Library` or a path to the library file (default: see
            :func:`load_library`).
        record: record the session (sends, clock advances, requests and answers, received
            actions, the state after each) for :meth:`scenario`, which returns it as a
            scenario that replays in the Swift, C and Python runners.

    Raises:
        UnknownFeatureError, StateError, JSONError, InvalidArgumentError (also a ``provide``
        name that is not an endpoint of the feature: the message lists its endpoints).

    Calls may come from any thread. The store is destroyed by :meth:`close`, by leaving a
    ``with`` block, when it is garbage-collected, or at interpreter exit.
    """

    feature: str | None
    clock: str | None
    record_actions: bool
    provide: tuple[str, ...]
    """The endpoints this store answers (the ``"provide"`` option): the providers' names, then
    the other ``provide`` names."""
    _handle: c_void_p | None

    def __init__(self, feature: str, initial_state: dict[str, Any] | None = None,
                 clock: Clock = "live", record_actions: bool = False, *,
                 providers: Mapping[str, Provider] | None = None,
                 provide: Iterable[str] | None = None,
                 loop: asyncio.AbstractEventLoop | None = None,
                 library: Library | str | os.PathLike[str] | None = None,
                 record: bool = False) -> None:
        lib = _resolve_library(library)
        options: dict[str, Any] = {"clock": clock}
        if initial_state is not None:
            options["initial_state"] = initial_state
        if record_actions:
            options["record_actions"] = True
        if record:
            options["record"] = True
        names = normalize_provide(provide, providers)
        if names is not None:
            options["provide"] = names
        if providers and loop is None:
            import asyncio

            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                for name, fn in providers.items():
                    import inspect

                    if inspect.iscoroutinefunction(fn):
                        raise InvalidArgumentError(
                            f"provider {name!r} is an async function, but no asyncio loop is "
                            f"running: create the store inside the loop (in async code), or "
                            f"pass loop=", Status.INVALID_ARGUMENT) from None
        try:
            options_json = _json.dumps(options)
        except _json.EncodeError as e:
            raise JSONError(f"initial_state cannot be encoded as JSON: {e}", Status.JSON) from e
        if not isinstance(feature, str):
            raise InvalidArgumentError(f"feature must be a str, not {type(feature).__name__}",
                                       Status.INVALID_ARGUMENT)
        if "\x00" in feature:
            raise InvalidArgumentError(
                f"feature name {feature[:64]!r} contains a NUL character", Status.INVALID_ARGUMENT)
        out = c_void_p()
        status = lib.rk_store_create(feature.encode("utf-8"), options_json, byref(out))
        if status:
            raise lib.error(status)
        self._setup(lib, out, owned=True, feature=feature, clock=clock,
                    record_actions=record_actions, provide=tuple(names or ()),
                    providers=providers, loop=loop)
        self._recording = record

    @classmethod
    def from_handle(cls, handle: int | c_void_p, *,
                    library: Library | str | os.PathLike[str] | None = None) -> Store[Any, Any]:
        """Wraps a store created by C (an ``rk_store *``), borrowed: Python never destroys
        it. :meth:`close` (and the finalizer) only remove the subscriptions made from
        Python; the store stays alive and owned by C.

        Args:
            handle: the ``rk_store *`` as an integer address or a ``c_void_p``.
        """
        if isinstance(handle, c_void_p):
            address = handle.value
        else:
            address = int(handle)
        if not address:
            raise InvalidArgumentError("from_handle(): NULL store handle",
                                       Status.INVALID_ARGUMENT)
        self = cls.__new__(cls)
        self._setup(_resolve_library(library), c_void_p(address), owned=False, feature=None,
                    clock=None, record_actions=False)
        return self

    def _setup(self, lib: Library, handle: c_void_p, *, owned: bool, feature: str | None,
               clock: str | None, record_actions: bool, provide: tuple[str, ...] = (),
               providers: Mapping[str, Provider] | None = None,
               loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.feature = feature
        self.clock = clock
        self.record_actions = record_actions
        self.provide = provide
        self._lib = lib
        self._owned = owned
        name = (f"Store({feature!r}) at {handle.value:#x}" if owned
                else f"borrowed store at {handle.value:#x}")
        self._core = core = _Core(lib, handle, owned, name)
        self._handle = handle
        # The handle as a ctypes argument object (c_void_p.from_param of its address): the
        # untyped hot-path calls pass it on as the pointer without converting anything.
        self._handle_arg = c_void_p.from_param(handle.value)
        self._errors = core.errors  # the same list: a cheap check on the hot path
        core.requests = self._requests = HostRequests(core, providers, loop)
        try:
            self._requests.install()
        except BaseException:
            core.close()
            raise
        self._cache: tuple[int, Any] = (-1, None)  # (version, snapshot) of the last read
        self._send = lib.rk_store_send_n
        # (c_void_p or None, bytes): see Library. The GIL is kept during the call while no
        # Python callback can run on the library's threads (a store Python owns, without a
        # request callback: nothing in the library can want the GIL); `_callbacks_installed`
        # switches to the releasing call for good before the first subscription.
        # The state is read the same way (`_version_fn`, `_patch_fn`: see Library).
        # With _speedups, the send fast path calls rk_store_send without ctypes
        # (`_fast_send(address, handle, data)`), keeping or releasing the GIL as above.
        self._send_address = lib._send_address
        self._handle_value: int = handle.value or 0
        self._fast_send: Callable[[int, int, bytes], int] | None
        if owned and not self._requests.callback_mode:
            self._send_text = lib._send_untyped_gil
            self._version_fn = lib._version_untyped_gil
            self._patch_fn = lib._patch_untyped_gil
            self._fast_send = _speedups.send_keep_gil if _speedups and self._send_address else None
        else:
            self._send_text = lib._send_untyped
            self._version_fn = lib._version_untyped
            self._patch_fn = lib._patch_untyped
            self._fast_send = _speedups.send_release_gil if _speedups and self._send_address else None
        self._version_out = c_uint64()  # shared by the threads reading this store (see state)
        self._version_ref = byref(self._version_out)
        with _live_lock:
            _live_cores.add(core)
        self._finalizer = weakref.finalize(self, core.close, reason="finalizer")
        self._finalizer.atexit = False  # _close_all_at_exit closes live stores at exit

    # ---- basics ----------------------------------------------------------------------

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else f"version {self._version_or('?')}"
        kind = f"{self.feature!r}" if self._owned else "borrowed"
        return f"<reducerkit.Store {kind} {state}>"

    def _callbacks_installed(self) -> None:
        """A Python callback may run on the library's threads from now on: sends release the
        GIL, as every other call does. (A send does not wait for another thread's delivery,
        so keeping the GIL would not deadlock there either; releasing it lets callbacks on
        effect threads run while this thread is in C, and keeps the reasoning simple: the GIL
        is kept only where nothing in the library can want it.)"""
        self._send_text = self._lib._send_untyped
        self._version_fn = self._lib._version_untyped
        self._patch_fn = self._lib._patch_untyped
        if self._fast_send is not None:
            self._fast_send = _speedups.send_release_gil

    def _version_or(self, default: str) -> str:
        try:
            return str(self.version)
        except BaseException:
            return default

    def __enter__(self) -> Store[StateT, ActionT]:
        self._live_handle()
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        if exc is None:
            self.close()
            return
        # An exception is already propagating: do not replace it with a subscriber's.
        self._handle = None
        self._finalizer.detach()
        self._core.close()
        errors = self._core.take_errors()
        for error in errors:
            exc.add_note(f"also raised in a subscriber before the store closed: {error!r}")

    def close(self) -> None:
        """Destroys the store (cancels its effects, removes its subscriptions); for a
        borrowed store (:meth:`from_handle`) only removes the Python subscriptions.
        Idempotent. Raises any exception a subscriber raised that was not re-raised yet."""
        self._handle = None
        self._finalizer.detach()
        self._core.close()
        if self._errors:
            _raise_errors(self._core.take_errors())

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (or the store was otherwise closed)."""
        return self._handle is None or self._core.closed

    @property
    def handle(self) -> int:
        """The ``rk_store *`` address, e.g. to pass the store to C code."""
        return self._live_handle().value or 0

    @property
    def library(self) -> Library:
        """The library this store lives in."""
        return self._lib

    def _raise_pending(self) -> None:
        errors = self._core.take_errors()
        if errors:
            _raise_errors(errors)

    def _live_handle(self) -> c_void_p:
        if self._errors:
            self._raise_pending()
        handle = self._handle
        if handle is None or self._core.closed:
            self._handle = None
            raise StoreClosedError(f"{self._core.name} is closed", Status.INVALID_HANDLE)
        return handle

    def _fail(self, status: int, context: str = "", message: str | None = None) -> None:
        error = self._lib.error(status, context, message)
        if self._errors:
            # A subscriber's exception comes first; the call's own error rides along.
            errors = self._core.take_errors()
            for e in errors:
                e.add_note(f"the call itself also failed: {error!r}")
            _raise_errors(errors)
        raise error

    # ---- actions and state -------------------------------------------------------------

    def send(self, action: ActionT) -> None:
        """Sends an action; it is reduced before this returns.

        Args:
            action: ``"increment"``, ``{"setCount": 5}``, ... (or JSON text as bytes).

        Raises:
            ActionError: not an action of the feature (the message says what is expected).
            JSONError, StoreClosedError; or an exception a subscriber raised.
        """
        errors = self._errors
        handle = self._handle
        if not errors and handle is not None:
            # The fast path, for a str (its JSON cached) or a dict: JSON this module encoded
            # has no NUL byte (JSON escapes it), so the two-argument rk_store_send serves
            # (ctypes converts a size_t argument slowly), and the handle goes as a ready
            # argument object.
            kind = type(action)
            if kind is str:
                data = _str_actions.get(action)  # type: ignore[call-overload]  # a str here
                if data is None:
                    data = _encode_action(action)
            elif kind is dict:
                try:
                    data = _json.dumps(action)
                except _json.EncodeError as e:
                    raise JSONError(f"action {action!r} cannot be encoded as JSON: {e}",
                                    Status.JSON) from e
            else:
                data = None
            if data is not None:
                fast = self._fast_send
                if fast is not None:
                    status = fast(self._send_address, self._handle_value, data)
                else:
                    status = self._send_text(self._handle_arg, data)
                if status:
                    self._fail(status)
                if errors:
                    self._raise_pending()
                return
        if errors:
            self._raise_pending()
        if handle is None:
            self._live_handle()
        if isinstance(action, (bytes, bytearray, memoryview)):
            data = bytes(action)  # the caller's JSON text
            status = self._send(handle, data, len(data))  # by length: a NUL byte is not the end
        else:
            # JSON this module encodes has no NUL byte (as on the fast path above).
            status = self._send_text(handle, _encode_action(action))
        if status:
            self._fail(status)
        if self._errors:
            self._raise_pending()

    @property
    def version(self) -> int:
        """The number of actions the store has reduced."""
        handle = self._live_handle()
        status = self._version_fn(handle, self._version_ref)
        if status:
            self._fail(status)
        return self._version_out.value

    @property
    def state(self) -> StateT:
        """The current state: a read-only snapshot (``dict`` and ``list`` subclasses whose
        mutating methods raise ``TypeError``; ``copy.deepcopy`` gives a mutable copy).

        The whole state is read once; after that, each read whose :attr:`version` changed
        applies the JSON Patch since the last read (``rk_store_patch``), so it costs what
        changed. Each version is a new object that shares its unchanged parts with the
        previous one: a snapshot you keep never changes, and the same object is returned
        while nothing happens."""
        if self._errors:
            self._raise_pending()
        handle = self._handle
        if handle is None:
            handle = self._live_handle()
        # The version buffer is shared by the threads reading this store: any value read
        # from it is a version the store had, and a stale label only causes one more patch.
        status = self._version_fn(self._handle_arg, self._version_ref)
        if status:
            self._fail(status)
        cache = self._cache
        if cache[0] == self._version_out.value:
            return cache[1]  # type: ignore[no-any-return]
        state: StateT = self._catch_up(handle, cache)
        return state

    def _catch_up(self, handle: c_void_p, cache: tuple[int, Any]) -> Any:
        """The newest snapshot: ``cache`` with the patch since its version applied (the
        whole state first, on the first read)."""
        outs = _tls.__dict__.get("patch_outs")
        if outs is None:  # out-parameters of this thread (calls may come from any thread)
            outs = _tls.patch_outs = _PatchOuts()
        if cache[1] is None:
            lib = self._lib
            ptr, length, version = c_void_p(), c_size_t(), c_uint64()
            status = lib.rk_store_get(handle, None, ptr, length, version)
            if status:
                self._fail(status)
            cache = (version.value,
                     freeze(lib.decode(lib.take_string(ptr, length), "rk_store_get")))
        # From the version read: the first call also starts the store's patch history.
        outs.since.value = cache[0]
        status = self._patch_fn(self._handle_arg, outs.since, outs.json_ref, None,
                                outs.version_ref)
        if status:
            self._fail(status)
        try:
            data = outs.text.value  # the patch: NUL-terminated JSON, which has no NUL byte
        finally:
            self._lib._free_untyped_gil(outs.json)
        try:
            ops = _json.loads(data)  # type: ignore[arg-type]  # bytes: the call succeeded
            state = apply_patch(cache[1], ops) if ops else cache[1]
        except (ValueError, TypeError, LookupError, AttributeError) as e:
            raise self._lib.abi_error(
                "rk_store_patch", f"returned a patch that is not a JSON Patch of the state "
                                  f"({type(e).__name__}: {e})") from None
        self._cache = (outs.version.value, state)
        return state

    def get(self, pointer: str = "") -> Any:
        """The part of the state at an RFC 6901 JSON Pointer, e.g. ``store.get("/todos/0/title")``
        (``""``: the whole state; in a key, ``~`` is written ``~0`` and ``/`` is ``~1``).
        Read from the current snapshot when :attr:`state` is up to date, else from the
        library (``rk_store_get``, which costs the part, not the state).

        Raises:
            InvalidArgumentError: not a pointer, or a pointer to nothing (the message names
                the first segment that does not exist).
        """
        if self._errors:
            self._raise_pending()
        try:
            segments = parse_pointer(pointer)
        except (ValueError, AttributeError) as e:
            raise InvalidArgumentError(str(e), Status.INVALID_ARGUMENT) from None
        handle = self._live_handle()
        cache = self._cache
        if cache[1] is not None:
            out = c_uint64()
            status = self._version_fn(handle, byref(out))
            if status:
                self._fail(status)
            if cache[0] == out.value:
                value = resolve(cache[1], segments)
                if value is not MISSING:
                    return value
        return self._get_part(handle, pointer)[0]

    def _get_part(self, handle: c_void_p, pointer: str) -> tuple[Any, int]:
        """``rk_store_get``: the part at ``pointer`` (a snapshot) and its version."""
        lib = self._lib
        ptr = c_void_p()
        length = c_size_t()
        version = c_uint64()
        encoded = pointer.encode("utf-8", "surrogatepass")
        if b"\0" in encoded:
            raise InvalidArgumentError(f"pointer {pointer!r} contains a NUL character",
                                       Status.INVALID_ARGUMENT)
        status = lib.rk_store_get(handle, encoded, ptr, length, version)
        if status:
            self._fail(status, f"get({pointer!r})")
        return freeze(lib.decode(lib.take_string(ptr, length), "rk_store_get")), version.value

    def state_json(self) -> bytes:
        """The current state as the library's JSON text (not cached)."""
        handle = self._live_handle()
        try:
            return self._lib.call_out_string(self._lib.rk_store_state, handle)
        except ReducerKitError:
            self._reraise_pending_first()
            raise

    def _reraise_pending_first(self) -> None:
        if self._errors:
            self._raise_pending()

    @property
    def effect_count(self) -> int:
        """How many effects have not finished (sleeping ones included)."""
        handle = self._live_handle()
        out = c_uint64()
        status = self._lib.rk_store_effect_count(handle, out)
        if status:
            self._fail(status)
        return out.value

    def take_actions(self) -> list[dict[str, Any]]:
        """The actions reduced since the last call, oldest first, and clears the log:
        ``[{"action": ..., "origin": "host"|"effect", "version": n, "state": {...}}]``.
        Needs ``record_actions=True`` (else :class:`MisuseError`)."""
        if self._recording and not self.record_actions:
            raise MisuseError("the store does not record actions; create it with "
                              "record_actions=True", Status.MISUSE)
        handle = self._live_handle()
        try:
            data = self._lib.call_out_string(self._lib.rk_store_take_actions, handle)
        except ReducerKitError:
            self._reraise_pending_first()
            raise
        records: list[dict[str, Any]] = self._lib.decode(data, "rk_store_take_actions")
        if self._errors:
            self._raise_pending()
        return records

    # ---- subscriptions -----------------------------------------------------------------

    def subscribe(self, callback: Callable[..., object], *, path: str | None = None,
                  with_version: bool = False) -> int:
        """Calls ``callback(state)`` (``callback(state, version)`` with ``with_version``)
        once per send that reduced an action, from now on, with the final state (an action
        and the actions its ``.send`` effects queue give one call). It runs outside the
        store's lock, one call at a time: on the thread that sent (the caller of
        :meth:`send`, or one of Swift's threads for actions sent by effects). An exception
        it raises is re-raised by the next call on this store. Returns a token for
        :meth:`unsubscribe`.

        With ``path`` (an RFC 6901 JSON Pointer, e.g. ``"/count"`` or ``"/todos/0/title"``),
        ``callback(value)`` gets only that part, and only when it changed (repeats are
        skipped; a part that stops existing is :data:`reducerkit.MISSING`). It is driven by
        the store's JSON Patches, so an action that does not touch the part costs a check of
        the patch's paths, and no read of the state.

        Raises:
            InvalidArgumentError: ``path`` is not a pointer, or points to nothing now.
        """
        if path is not None:
            return self._subscribe_path(callback, path, with_version)
        handle = self._live_handle()
        core = self._core
        lib = self._lib
        loads = _json.loads
        string_at = ctypes.string_at

        def trampoline(_userdata: Any, ptr: int, length: int, version: int) -> None:
            stack = getattr(_tls, "stack", None)
            if stack is None:
                stack = _callback_stack()
            stack.append(core)
            try:
                data = string_at(ptr, length)
                try:
                    state = loads(data)
                except ValueError:
                    state = lib.decode(data, "the state callback")  # raises, saying what
                if with_version:
                    callback(state, version)
                else:
                    callback(state)
            except BaseException as e:  # never let it reach ctypes: store, re-raise later
                core.record_error(e, callback)
            finally:
                stack.pop()

        thunk = STATE_CALLBACK(trampoline)
        token = c_uint64()
        self._callbacks_installed()
        status = self._lib.rk_store_subscribe(handle, thunk, None, byref(token))
        if status:
            self._fail(status)
        core.subs[token.value] = thunk
        return token.value

    def _subscribe_path(self, callback: Callable[..., object], path: str,
                        with_version: bool) -> int:
        try:
            watched = parse_pointer(path)
        except (ValueError, AttributeError) as e:
            raise InvalidArgumentError(str(e), Status.INVALID_ARGUMENT) from None
        handle = self._live_handle()
        store = self
        last: list[Any] = [MISSING]

        below = path + "/"

        def on_patch(ops: list[dict[str, Any]], version: int) -> None:
            value: Any = last[0]
            changed = False
            for op in ops:
                text = op["path"]
                kind = op["op"]
                if text == path:  # the watched part itself: the op holds its value
                    changed = True
                    value = MISSING if kind == "remove" else freeze(op["value"])
                    continue
                if kind == "replace" and not text.startswith(below) and \
                        not below.startswith(text + "/") and text != "":
                    continue  # a replace elsewhere (the common case): nothing to do
                op_path = parse_pointer(text)
                if not affects(op_path, kind, watched):
                    continue
                changed = True
                if len(op_path) <= len(watched) and op_path == watched[:len(op_path)]:
                    # At or above the watched part: the op holds its new value.
                    value = MISSING if kind == "remove" else \
                        resolve(freeze(op["value"]), watched[len(op_path):])
                else:
                    # Below it, or an index shift before it: read the part again.
                    try:
                        value = store._get_part(store._handle or handle, path)[0]
                    except InvalidArgumentError:
                        value = MISSING
                    break
            if not changed or _json_same(value, last[0]):
                return
            last[0] = value
            if with_version:
                callback(value, version)
            else:
                callback(value)

        token = self._subscribe_patch_ops(on_patch, callback)
        try:
            last[0] = self._get_part(handle, path)[0]
        except BaseException:
            self.unsubscribe(token)
            raise
        return token

    def subscribe_patches(self, callback: Callable[..., object]) -> int:
        """Calls ``callback(patch, version)`` after every change of the state, with the RFC
        6902 JSON Patch (a list of ``{"op": "add"|"remove"|"replace", "path": ..., "value":
        ...}``) from the version of the previous call (the first: from now) to ``version``.
        A callback that takes one argument is called with the patch alone. Coalesced per
        outer send like :meth:`subscribe`; a send that changes nothing makes no call. Returns
        a token for :meth:`unsubscribe`."""
        if _takes_one_argument(callback):
            one = callback
            return self._subscribe_patch_ops(lambda patch, _version: one(patch), callback)
        return self._subscribe_patch_ops(callback, callback)

    def _subscribe_patch_ops(self, on_ops: Callable[[Any, int], object], callback: object) -> int:
        handle = self._live_handle()
        core = self._core
        lib = self._lib
        loads = _json.loads

        def trampoline(_userdata: Any, patch: bytes, _length: int, version: int) -> None:
            stack = getattr(_tls, "stack", None)
            if stack is None:
                stack = _callback_stack()
            stack.append(core)
            try:
                try:
                    ops = loads(patch)
                except ValueError:
                    ops = lib.decode(patch, "the patch callback")  # raises, saying what
                on_ops(ops, version)
            except BaseException as e:  # never let it reach ctypes: store, re-raise later
                core.record_error(e, callback)
            finally:
                stack.pop()

        thunk = PATCH_CALLBACK(trampoline)
        token = c_uint64()
        self._callbacks_installed()
        status = self._lib.rk_store_subscribe_patches(handle, thunk, None, byref(token))
        if status:
            self._fail(status)
        core.subs[token.value] = thunk
        return token.value

    def unsubscribe(self, token: int) -> None:
        """Removes a subscription; after this returns its callback is not called again
        (from inside that callback itself, it returns at once)."""
        handle = self._live_handle()
        core = self._core
        status = self._lib.rk_store_unsubscribe(handle, token)
        thunk = core.subs.pop(token, None)
        if thunk is not None and core.in_own_callback():
            _graveyard.append(thunk)  # it may be the callback that is running right now
        if status:
            self._fail(status, f"unsubscribe({token})")

    # ---- time and effects --------------------------------------------------------------

    def wait_idle(self, timeout: float | None = 1.0) -> None:
        """Blocks until every effect has finished or sleeps on the test clock.

        Args:
            timeout: seconds (``0`` to ``2**63 / 1000``); ``None`` or ``math.inf`` waits
                without limit. Ctrl-C interrupts the wait (``KeyboardInterrupt``) within a
                tenth of a second; the store stays usable.

        Raises:
            TimeoutError: effects still running after ``timeout``.
            InvalidArgumentError: a negative, NaN or too large ``timeout``.
        """
        handle = self._live_handle()
        if timeout is None or timeout == math.inf:
            deadline = None
        else:
            ms = _milliseconds("timeout", timeout, scale=1000, ceil=True)
            deadline = _monotonic_ms() + ms
        status = 0
        while True:
            # In slices, so that Python runs signal handlers (Ctrl-C) between them.
            remaining = _WAIT_SLICE_MS if deadline is None else max(0, deadline - _monotonic_ms())
            status = self._lib.rk_store_wait_idle(handle, min(_WAIT_SLICE_MS, remaining))
            if status != Status.TIMEOUT or (deadline is not None and _monotonic_ms() >= deadline):
                break
        if status:
            self._fail(status, f"wait_idle(timeout={timeout})")
        if self._errors:
            self._raise_pending()

    def advance(self, seconds: float | None = None, *, milliseconds: int | None = None) -> None:
        """Moves the test clock forward; due sleepers run, and this returns when every
        effect they woke has finished or sleeps again (so the state is deterministic).

        ``store.advance(seconds=0.3)`` or ``store.advance(milliseconds=300)``; from 0 to
        ``2**63 - 1`` milliseconds. Ctrl-C raises ``KeyboardInterrupt`` within a tenth of a
        second; the advance under way then finishes in the library (it is bounded: it stops
        when woken effects make no progress for 10 s, or after 100,000 wake-ups) on a thread
        of its own, so no other call waits for it, and the store stays usable.

        Raises:
            MisuseError: the store uses the live clock.
            InvalidArgumentError: a negative, NaN, infinite or too large amount.
            TimeoutError: woken effects made no progress for 10 s without settling, or
                100,000 sleepers woke with more due (the message says where the clock
                stopped).
        """
        if (seconds is None) == (milliseconds is None):
            raise TypeError("advance() takes exactly one of seconds= or milliseconds=")
        if milliseconds is None:
            assert seconds is not None
            ms = _milliseconds("seconds", seconds, scale=1000, ceil=False)
        else:
            if isinstance(milliseconds, float) and not float(milliseconds).is_integer():
                raise InvalidArgumentError(
                    f"milliseconds must be a whole number, not {milliseconds!r}",
                    Status.INVALID_ARGUMENT)
            ms = _milliseconds("milliseconds", milliseconds, scale=1, ceil=False)
        handle = self._live_handle()
        status, message = _interruptible(self._lib, self._lib.rk_store_advance_clock, handle, ms)
        if status:
            self._fail(status, f"advance({ms} ms)", message)
        if self._errors:
            self._raise_pending()

    # ---- effects the host fulfils ---------------------------------------------------------

    def resolve(self, request_id: int, value: Any) -> None:
        """Answers request ``request_id`` with ``value`` (encoded as JSON; ``bytes`` are sent
        as JSON text): the effect's call returns it. The same as ``request.resolve(value)``.

        Raises:
            ResponseError: not a response of the endpoint (the message names the path and the
                expected type); the request stays pending and can be answered again.
            JSONError: ``value`` cannot be encoded as JSON, or ``bytes`` that are not JSON.
            InvalidArgumentError: an id that is unknown, already answered or cancelled (the
                message says which).
            StoreClosedError.
        """
        self._live_handle()
        self._requests.resolve(request_id, value)

    def fail(self, request_id: int, message: str) -> None:
        """Fails request ``request_id``: the effect's call throws an error carrying
        ``message``. The same as ``request.fail(message)``.

        Raises:
            InvalidArgumentError: an id that is unknown, already answered or cancelled, or a
                message with a NUL character.
            StoreClosedError.
        """
        self._live_handle()
        self._requests.fail(request_id, message)

    def pending_requests(self) -> list[Request]:
        """The requests the program has to answer (of endpoints given in ``provide=``
        without a provider) that are neither answered nor cancelled, oldest first. Does not
        block."""
        self._live_handle()
        return self._requests.pending_requests()

    def wait_request(self, timeout: float | None = 1.0) -> Request:
        """Blocks until a request arrives that was not handed out yet (by this method or
        :meth:`requests`) and returns it; a request that is already waiting is returned at
        once. Requests answered or cancelled meanwhile are skipped.

        Args:
            timeout: seconds (``0`` to ``2**63 / 1000``); ``None`` or ``math.inf`` waits
                without limit. Ctrl-C interrupts the wait (``KeyboardInterrupt``) within a
                tenth of a second; the store stays usable.

        Raises:
            TimeoutError: no request within ``timeout`` (``reducerkit.TimeoutError``, also the
                built-in ``TimeoutError``).
            StoreClosedError: the store is (or gets) closed.
            InvalidArgumentError: a negative, NaN or too large ``timeout``.
        """
        self._live_handle()
        seconds: float | None = None
        if timeout is not None and timeout != math.inf:
            seconds = _milliseconds("timeout", timeout, scale=1000, ceil=True) / 1000
        try:
            return self._requests.wait(seconds)
        finally:
            if self._errors:
                self._raise_pending()

    def requests(self) -> AsyncGenerator[Request, None]:
        """The requests to answer by hand, as an async iterator (each handed out once, like
        :meth:`wait_request`). Ends when the store closes. Without ``providers`` it watches
        the library's request descriptor with ``loop.add_reader`` (no thread, no polling);
        with them, the request callback wakes it:

        ```python
        async for request in store.requests():
            request.resolve(await look_up(request.payload))
        ```

        Leaving the loop early (``break``) leaves the reader until the generator is closed:
        use ``contextlib.aclosing(store.requests())`` to remove it at once.
        """
        self._live_handle()
        return self._requests.iterate(self._raise_pending)

    def _host_events(self) -> list[tuple[str, Request]]:
        """Every request event since the last call, oldest first, as ``("request", r)`` or
        ``("cancelled", r)`` (for :class:`reducerkit.testing.TestStore`; logging starts at
        the first call)."""
        self._live_handle()
        requests = self._requests
        if requests.log is None:
            requests.log = []
        return requests.take_log()

    # ---- recording -------------------------------------------------------------------

    _recording = False  # created with record=True (the library records: rk_store_scenario)

    def scenario(self, name: str | None = None) -> dict[str, Any]:
        """The scenario of everything this store has done since it was created (needs
        ``record=True``): its options, a step for each send (with the state after it, or
        the error it raised), clock advance, request, answer, cancellation and received
        action, ``finish`` when no effect is running, and the final state. Written to a
        ``*.scenario.json`` file, it replays in ``reducerkit-check``, the Swift runner and
        :func:`reducerkit.testing.run_scenario`:

        ```python
        with reducerkit.Store("counter", clock="test", record=True) as store:
            store.send("increment")
            json.dump(store.scenario("increments"), open("inc.scenario.json", "w"))
        ```

        Raises:
            MisuseError: the store was not created with ``record=True``.
        """
        if self._owned and not self._recording:
            raise MisuseError("the store does not record its session; create it with "
                              "record=True", Status.MISUSE)
        handle = self._live_handle()
        try:
            data = self._lib.call_out_string(self._lib.rk_store_scenario, handle)
        except ReducerKitError:
            self._reraise_pending_first()
            raise
        scenario: dict[str, Any] = self._lib.decode(data, "rk_store_scenario")
        if name:
            scenario["name"] = name
        if self._errors:
            self._raise_pending()
        return scenario

    # ---- asyncio -----------------------------------------------------------------------

    async def wait_idle_async(self, timeout: float | None = 1.0) -> None:
        """:meth:`wait_idle` in the loop's default executor, so the event loop keeps
        running while effects settle."""
        import asyncio

        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self.wait_idle, timeout)

    async def states(self, *, initial: bool = True) -> AsyncGenerator[StateT, None]:
        """The state after each change, as an async iterator of snapshots (the current state
        first unless ``initial=False``). Ends when the store closes:

        ```python
        async for state in store.states():
            print(state["count"])
        ```

        Driven by the store's JSON Patches: each change brings the store's snapshot up to date
        (on the thread that changed the state, sharing unchanged parts with the previous
        snapshot), and the iterator yields it.
        """
        import asyncio

        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        core = self._core
        store = self

        def on_patch(_ops: Any, _version: int) -> None:
            handle = store._handle
            if handle is None:
                return
            state = store._catch_up(handle, store._cache)
            try:
                loop.call_soon_threadsafe(queue.put_nowait, (store._cache[0], state))
            except RuntimeError:  # the loop was closed
                pass

        token = self._subscribe_patch_ops(on_patch, "a states() iterator")
        stream = (loop, queue)
        core.streams.add(stream)
        try:
            seen = -1
            if initial:
                state = self.state
                seen = self._cache[0]
                yield state
            while True:
                item = await queue.get()
                if item is _CLOSED:
                    return
                if self._errors:
                    self._raise_pending()
                version, state = item
                if version <= seen:
                    continue  # already yielded
                seen = version
                yield state
        finally:
            core.streams.discard(stream)
            if not core.closed and self._handle is not None:
                try:
                    self.unsubscribe(token)
                except StoreClosedError:
                    pass


def _json_same(a: Any, b: Any) -> bool:
    """Equality of JSON values where ``true`` is not ``1``."""
    if a is b:
        return True
    if type(a) is not type(b) and not (isinstance(a, (dict, list)) and isinstance(b, (dict, list))):
        if isinstance(a, bool) or isinstance(b, bool):
            return False
        if not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
            return False
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and \
            all(_json_same(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and \
            all(_json_same(x, y) for x, y in zip(a, b))
    return bool(a == b)
