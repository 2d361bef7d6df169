"""The Pythonic layer: :class:`Store`, a handle on a Swift store.

```python
import reducerkit

with reducerkit.Store("counter") as store:
    store.send("increment")
    store.send({"setCount": 5})
    store.state                     # {'count': 5, 'fact': None, 'isTimerOn': False}
```

The store's other concepts live beside it, and its methods call them: the library, the handle
and its destruction in :mod:`reducerkit._lifecycle` (which also has :func:`features` and
:func:`load_library`, re-exported here), subscriptions in :mod:`reducerkit._subscriptions`,
asyncio in :mod:`reducerkit._asyncio`, blocking calls that Ctrl-C interrupts in
:mod:`reducerkit._blocking`, and effects the host fulfils in :mod:`reducerkit._host`. Every
call that returns ``rk_status`` is checked by :meth:`Library.check
<reducerkit.Library.check>` (through :meth:`Store._call` and :meth:`Store._check`, which put
an exception a subscriber raised first).
"""

from __future__ import annotations

import math
import os
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from ctypes import byref, c_char_p, c_size_t, c_uint64, c_void_p
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeAlias

from . import _asyncio, _blocking, _json, _subscriptions

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

from ._host import HostRequests, Provider, Request, normalize_provide
from ._lifecycle import (
    Core,
    check_schema_hash,
    features,
    live_cores,
    live_lock,
    load_library,
    resolve_library,
    tls,
)
from ._native import Library
from ._patch import MISSING, apply_patch, freeze, parse_pointer, resolve

if TYPE_CHECKING:  # asyncio is imported where it is used: `import reducerkit` stays fast
    import asyncio
from .errors import (
    InvalidArgumentError,
    JSONError,
    MisuseError,
    ReducerKitError,
    Status,
    StoreClosedError,
    reraise,
)

__all__ = ["Store", "Request", "Provider", "features", "load_library", "JSON", "Action",
           "Subscriber"]

# What tests and tools read here: the stores not closed yet (reducerkit._lifecycle).
_live_cores = live_cores

JSON: TypeAlias = Any
"""A JSON value as Python sees it: dict, list, str, int, float, bool or None."""

Action: TypeAlias = "str | dict[str, Any]"
"""An action in the wire format: ``"increment"``, ``{"setCount": 5}``, ..."""

Subscriber: TypeAlias = Callable[[dict[str, Any]], object]
"""A subscriber: called with the state after each action the store reduces."""

Clock: TypeAlias = Literal["live", "test"]

_MAX_CACHED_ACTIONS = 4096

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
        raise JSONError(f"action {_json.shown(action)} cannot be encoded as JSON: {e}",
                        Status.JSON) from e


class _PatchOuts:
    """One thread's arguments of ``rk_store_patch`` for :meth:`Store._catch_up`, made once:
    ctypes passes instances and ``byref`` objects without converting them."""

    __slots__ = ("since", "json", "json_ref", "text", "version", "version_ref")

    def __init__(self) -> None:
        self.since = c_uint64()
        self.json = c_void_p()  # char *, freed with rk_free
        self.json_ref = byref(self.json)
        self.text = c_char_p.from_buffer(self.json)  # the same pointer, read as bytes
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
        feature: a feature name from :func:`features`, e.g. ``"counter"``. Every other
            argument is a keyword, in the order :class:`reducerkit.testing.TestStore` shares.
        initial_state: an object merged over the feature's default state (``None``: the
            default state).
        snapshot: a document :meth:`snapshot` returned (perhaps by an older release of the
            library, read back from a file): the store starts from its state, migrated to
            the feature's current ``state_version``, and its version continues from the
            snapshot's. Not together with ``initial_state``.
        clock: ``"live"`` (real time) or ``"test"`` (time moves only by :meth:`advance`).
        record_actions: record every reduced action for :meth:`take_actions` (what
            :class:`reducerkit.testing.TestStore` uses).
        record: record the session (sends, clock advances, requests and answers, received
            actions, the state after each) for :meth:`scenario`, which returns it as a
            scenario that replays in the Swift, C and Python runners.
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

    Raises:
        UnknownFeatureError, StateError, JSONError, InvalidArgumentError (also a ``provide``
        name that is not an endpoint of the feature: the message lists its endpoints).
        A ``snapshot`` of another feature, of a newer state version than the library's,
        whose migration fails, or whose state the feature cannot decode is a
        :class:`StateError` (the library's message names the migration and the JSON Pointer
        of the offending value); a document that is not a snapshot, or one given with
        ``initial_state``, an :class:`InvalidArgumentError`.

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
    _schema_hash: str | None = None
    """Set by a typed store of generated stubs (``python -m reducerkit stubs``): the feature's
    schema hash they were generated from. Creating the store checks it against the library's
    (:class:`reducerkit.SchemaMismatchError` when they differ)."""

    def __init__(self, feature: str, *, initial_state: dict[str, Any] | None = None,
                 snapshot: Mapping[str, Any] | None = None, clock: Clock = "live", record_actions: bool = False, record: bool = False,
                 providers: Mapping[str, Provider] | None = None,
                 provide: Iterable[str] | None = None,
                 loop: asyncio.AbstractEventLoop | None = None,
                 library: Library | str | os.PathLike[str] | None = None) -> None:
        lib = resolve_library(library)
        options: dict[str, Any] = {"clock": clock}
        if initial_state is not None:
            options["initial_state"] = initial_state
        if snapshot is not None:
            options["snapshot"] = snapshot
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
            what = "snapshot" if snapshot is not None and initial_state is None else "initial_state"
            raise JSONError(f"{what} cannot be encoded as JSON: {e}", Status.JSON) from e
        if not isinstance(feature, str):
            raise InvalidArgumentError(f"feature must be a str, not {type(feature).__name__}",
                                       Status.INVALID_ARGUMENT)
        if "\x00" in feature:
            raise InvalidArgumentError(
                f"feature name {feature[:64]!r} contains a NUL character", Status.INVALID_ARGUMENT)
        if self._schema_hash is not None:
            check_schema_hash(lib, feature, self._schema_hash, type(self).__name__)
        out = c_void_p()
        lib.call(lib.rk_store_create, feature.encode("utf-8"), options_json, byref(out))
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
        self._setup(resolve_library(library), c_void_p(address), owned=False, feature=None,
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
        self._core = core = Core(lib, handle, owned, feature)
        # The handle (a c_void_p): the untyped hot-path calls pass it on as the pointer
        # without converting anything.
        self._handle = handle
        self._errors = core.errors  # the same list: a cheap check on the hot path
        if providers:  # callback mode: the book exists from the start (else on first use)
            core.requests = HostRequests(core, providers, loop)
            try:
                core.requests.install()
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
        if owned and not providers:
            self._send_text = lib._send_untyped_gil
            self._version_fn = lib._version_untyped_gil
            self._patch_fn = lib._patch_untyped_gil
            self._fast_send = _speedups.send_keep_gil if _speedups and self._send_address else None
        else:
            self._send_text = lib._send_untyped
            self._version_fn = lib._version_untyped
            self._patch_fn = lib._patch_untyped
            self._fast_send = _speedups.send_release_gil if _speedups and self._send_address else None
        if self._fast_send is None:  # sends go through ctypes: see _read_args
            self._handle_arg = c_void_p.from_param(self._handle_value)
        with live_lock:
            live_cores.add(core)

    # Made on the first read of the state or version (see _read_args), or by _setup for
    # sends through ctypes: the handle as a ready ctypes argument object (c_void_p.from_param
    # of its address: ctypes passes it on as the pointer without making an argument object
    # per call, ~7 % of an unchanged state read and of a ctypes send), and the out-parameter
    # of rk_store_version, shared by the threads reading this store. ~400 B a store that a
    # store that only sends does not need.
    _handle_arg: Any = None
    _version_out: Any = None
    _version_ref: Any = None

    def _read_args(self) -> Any:
        """Makes the arguments above if needed; returns the version buffer's ``byref``."""
        if self._handle_arg is None:
            self._handle_arg = c_void_p.from_param(self._handle_value)
        if self._version_ref is None:
            out = c_uint64()
            self._version_out, self._version_ref = out, byref(out)
        return self._version_ref

    @property
    def _requests(self) -> HostRequests:
        """The store's host requests on the Python side (:mod:`reducerkit._host`), made on
        first use unless the store has providers."""
        core = self._core
        requests = core.requests
        if requests is None:
            with live_lock:
                requests = core.requests
                if requests is None:
                    requests = core.requests = HostRequests(core, None, None)
        return requests

    def __del__(self) -> None:
        # The finalizer: a forgotten store is destroyed when it is collected. (A method, not
        # weakref.finalize: no object per store. The exit hook closes the live ones first.)
        core = self.__dict__.get("_core")
        if core is not None and not core.closed:
            core.close(reason="finalizer")

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
        self._core.close()
        errors = self._core.take_errors()
        for error in errors:
            exc.add_note(f"also raised in a subscriber before the store closed: {error!r}")

    def close(self) -> None:
        """Destroys the store (cancels its effects, removes its subscriptions); for a
        borrowed store (:meth:`from_handle`) only removes the Python subscriptions.
        Idempotent. Raises any exception a subscriber raised that was not re-raised yet."""
        self._handle = None
        self._core.close()
        if self._errors:
            reraise(self._core.take_errors())

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
            reraise(errors)

    def _live_handle(self) -> c_void_p:
        if self._errors:
            self._raise_pending()
        handle = self._handle
        if handle is None or self._core.closed:
            self._handle = None
            raise StoreClosedError(f"{self._core.name} is closed", Status.INVALID_HANDLE)
        return handle

    def _check(self, status: int, context: str = "", message: str | None = None) -> None:
        """:meth:`Library.check <reducerkit.Library.check>` for a call on this store: an
        exception a subscriber raised comes first (the call's own error rides along as a
        note)."""
        self._lib.check(status, context, message, pending=self._errors)

    def _call(self, fn: Callable[..., int], *args: Any, context: str = "") -> None:
        """``fn(*args)``, a call on this store that returns ``rk_status``, and
        :meth:`_check` of its status (called only for a failure: this is on the paths of
        ``version`` and ``get``)."""
        status = fn(*args)
        if status:
            self._lib.check(status, context, pending=self._errors)

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
                    raise JSONError(f"action {_json.shown(action)} cannot be encoded as JSON: {e}",
                                    Status.JSON) from e
            else:
                data = None
            if data is not None:
                fast = self._fast_send
                if fast is not None:
                    status = fast(self._send_address, self._handle_value, data)
                else:
                    # (the handle itself until a read made the ready argument, when the
                    # compiled path was turned off after the store was made)
                    status = self._send_text(self._handle_arg or handle, data)
                if status:  # tested here: a call of _check costs a tenth of a send
                    if kind is dict:
                        _json.refuse_nonfinite(action)
                    self._check(status)
                if errors:
                    self._raise_pending()
                return
        if errors:
            self._raise_pending()
        if handle is None:
            self._live_handle()
        if isinstance(action, (bytes, bytearray, memoryview)):
            data = bytes(action)  # the caller's JSON text
            self._call(self._send, handle, data, len(data))  # by length: a NUL is not the end
        else:
            # JSON this module encodes has no NUL byte (as on the fast path above).
            try:
                self._call(self._send_text, handle, _encode_action(action))
            except ReducerKitError:
                _json.refuse_nonfinite(action)
                raise
        if self._errors:
            self._raise_pending()

    @property
    def version(self) -> int:
        """The number of actions the store has reduced."""
        handle = self._live_handle()
        self._call(self._version_fn, handle, self._version_ref or self._read_args())
        return self._version_out.value  # type: ignore[no-any-return]

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
        ref = self._version_ref
        if ref is None:  # the first read (which makes _handle_arg too)
            ref = self._read_args()
        status = self._version_fn(self._handle_arg, ref)
        if status:  # tested here, as in send: the hot path
            self._check(status)
        cache = self._cache
        if cache[0] == self._version_out.value:
            return cache[1]  # type: ignore[no-any-return]
        state: StateT = self._catch_up(handle, cache)
        return state

    def _catch_up(self, handle: c_void_p, cache: tuple[int, Any]) -> Any:
        """The newest snapshot: ``cache`` with the patch since its version applied (the
        whole state first, on the first read)."""
        outs = tls.__dict__.get("patch_outs")
        if outs is None:  # out-parameters of this thread (calls may come from any thread)
            outs = tls.patch_outs = _PatchOuts()
        if cache[1] is None:
            lib = self._lib
            ptr, length, version = c_void_p(), c_size_t(), c_uint64()
            self._call(lib.rk_store_get, handle, None, ptr, length, version)
            cache = (version.value,
                     freeze(lib.decode(lib.take_string(ptr, length), "rk_store_get")))
        # From the version read: the first call also starts the store's patch history.
        outs.since.value = cache[0]
        if self._handle_arg is None:  # a patch read before any read of the state
            self._read_args()
        status = self._patch_fn(self._handle_arg, outs.since, outs.json_ref, None,
                                outs.version_ref)
        if status:  # tested here, as in send: the hot path
            self._check(status)
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
            self._call(self._version_fn, handle, byref(out))
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
            raise InvalidArgumentError(f"pointer {_json.shown(pointer)} contains a NUL character",
                                       Status.INVALID_ARGUMENT)
        self._call(lib.rk_store_get, handle, encoded, ptr, length, version,
                   context=f"get({_json.shown(pointer)})")
        return freeze(lib.decode(lib.take_string(ptr, length), "rk_store_get")), version.value

    def snapshot(self) -> dict[str, Any]:
        """The state with what is needed to restore it later, as a dict ready for
        ``json.dump``: ``{"feature": ..., "state_version": 3, "schema_hash": ..., "version":
        17, "state": {...}}``. Pass it back as ``Store(feature, snapshot=...)``, in this
        process or another one, with this library or a newer one (which migrates it).

        ```python
        json.dump(store.snapshot(), open("state.json", "w"))
        store = reducerkit.Store("todos", snapshot=json.load(open("state.json")))
        ```
        """
        handle = self._live_handle()
        lib = self._lib
        data = lib.call_out_string(lib.rk_store_snapshot, handle, context="snapshot()",
                                   pending=self._errors)
        document: dict[str, Any] = lib.decode(data, "rk_store_snapshot")
        return document

    def state_json(self) -> bytes:
        """The current state as the library's JSON text (not cached)."""
        handle = self._live_handle()
        return self._lib.call_out_string(self._lib.rk_store_state, handle, pending=self._errors)

    @property
    def effect_count(self) -> int:
        """How many effects have not finished (sleeping ones included)."""
        handle = self._live_handle()
        out = c_uint64()
        self._call(self._lib.rk_store_effect_count, handle, out)
        return out.value

    def take_actions(self) -> list[dict[str, Any]]:
        """The actions reduced since the last call, oldest first, and clears the log:
        ``[{"action": ..., "origin": "host"|"effect", "version": n, "state": {...}}]``.
        Needs ``record_actions=True`` (else :class:`MisuseError`)."""
        if self._recording and not self.record_actions:
            raise MisuseError("the store does not record actions; create it with "
                              "record_actions=True", Status.MISUSE)
        handle = self._live_handle()
        data = self._lib.call_out_string(self._lib.rk_store_take_actions, handle, pending=self._errors)
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
        :meth:`send`; for an effect's action, the thread whose answer to a request resumed
        the effect, e.g. the loop's for an async provider, else one of Swift's threads).
        An exception it raises is re-raised by the next call on this store. Returns a token for
        :meth:`unsubscribe`.

        With ``path`` (an RFC 6901 JSON Pointer, e.g. ``"/count"`` or ``"/todos/0/title"``),
        ``callback(value)`` gets only that part, and only when it changed (repeats are
        skipped; a part that stops existing is :data:`reducerkit.MISSING`). It is driven by
        the store's JSON Patches, so an action that does not touch the part costs a check of
        the patch's paths, and no read of the state.

        Raises:
            InvalidArgumentError: ``path`` is not a pointer, or points to nothing now.
        """
        return _subscriptions.subscribe(self, callback, path=path, with_version=with_version)

    def subscribe_patches(self, callback: Callable[..., object]) -> int:
        """Calls ``callback(patch, version)`` after every change of the state, with the RFC
        6902 JSON Patch (a list of ``{"op": "add"|"remove"|"replace", "path": ..., "value":
        ...}``) from the version of the previous call (the first: from now) to ``version``.
        A callback that takes one argument is called with the patch alone. Coalesced per
        outer send like :meth:`subscribe`; a send that changes nothing makes no call. Returns
        a token for :meth:`unsubscribe`."""
        return _subscriptions.subscribe_patches(self, callback)

    def unsubscribe(self, token: int) -> None:
        """Removes a subscription; after this returns its callback is not called again
        (from inside that callback itself, it returns at once)."""
        _subscriptions.unsubscribe(self, token)

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
            ms = _blocking.milliseconds("timeout", timeout, scale=1000, ceil=True)
            deadline = _blocking.monotonic_ms() + ms
        now = _blocking.monotonic_ms
        slice_ms = _blocking.WAIT_SLICE_MS
        status = 0
        while True:
            # In slices, so that Python runs signal handlers (Ctrl-C) between them.
            remaining = slice_ms if deadline is None else max(0, deadline - now())
            status = self._lib.rk_store_wait_idle(handle, min(slice_ms, remaining))
            if status != Status.TIMEOUT or (deadline is not None and now() >= deadline):
                break
        self._check(status, f"wait_idle(timeout={timeout})")
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
            ms = _blocking.milliseconds("seconds", seconds, scale=1000, ceil=False)
        else:
            if isinstance(milliseconds, float) and not float(milliseconds).is_integer():
                raise InvalidArgumentError(
                    f"milliseconds must be a whole number, not {milliseconds!r}",
                    Status.INVALID_ARGUMENT)
            ms = _blocking.milliseconds("milliseconds", milliseconds, scale=1, ceil=False)
        handle = self._live_handle()
        status, message = _blocking.interruptible(self._lib, self._lib.rk_store_advance_clock,
                                                  handle, ms)
        self._check(status, f"advance({ms} ms)", message)
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
            seconds = _blocking.milliseconds("timeout", timeout, scale=1000, ceil=True) / 1000
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
    _inspector: Any = None  # reducerkit.inspect.live.Inspector, once inspect() was called

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
            ValueError: ``name`` is not one the scenario format allows (control or format
                characters, over 512 bytes): the runners would refuse the file.
        """
        if self._owned and not self._recording:
            raise MisuseError("the store does not record its session; create it with "
                              "record=True", Status.MISUSE)
        handle = self._live_handle()
        data = self._lib.call_out_string(self._lib.rk_store_scenario, handle, pending=self._errors)
        scenario: dict[str, Any] = self._lib.decode(data, "rk_store_scenario")
        if self._errors:
            self._raise_pending()
        if name is not None:
            scenario["name"] = name
            # The name is checked by the format's one parser (the runners' own), on the
            # whole document: no second copy of its rules here.
            from .testing.scenarios import ScenarioError, validate_scenario
            try:
                validate_scenario(scenario, self._lib)
            except ScenarioError as e:
                raise ValueError(f"scenario name {name[:64]!r}: {e}") from None
        return scenario

    def inspect(self, port: int = 0) -> str:
        """Serves the time-travel inspector of this store on 127.0.0.1 (loopback only;
        ``port`` 0: any free port) and returns its URL; open it in a browser and each new
        step appears while the program runs. It stops when the store closes, and costs the
        store nothing while no page is connected. The same as
        ``reducerkit.inspect.serve(store, port)``:

        ```python
        store = reducerkit.Store("todos")
        print(store.inspect())        # http://127.0.0.1:PORT/
        ```

        Raises:
            OSError: the port cannot be bound.
            StoreClosedError: the store is closed.
        """
        from .inspect.live import serve
        return serve(self, port)

    # ---- asyncio -----------------------------------------------------------------------

    async def wait_idle_async(self, timeout: float | None = 1.0) -> None:
        """:meth:`wait_idle` in the loop's default executor, so the event loop keeps
        running while effects settle."""
        await _asyncio.wait_idle_async(self, timeout)

    def states(self, *, initial: bool = True) -> AsyncGenerator[StateT, None]:
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
        return _asyncio.states(self, initial=initial)
