"""A store's life outside the :class:`~reducerkit.Store` object: which library it lives in
(:func:`load_library`, :func:`features`), the handle and its destruction (:class:`Core`), and
the bookkeeping that callbacks, finalizers and the exit hook share.

Callbacks and the exit hook hold a store's :class:`Core`, never the store, so a forgotten store
can be collected (unless one of its own subscribers refers to it; then it lives until closed);
its finalizer (``Store.__del__``) then closes the core. :func:`close_all_at_exit` closes every live store before the interpreter and
ctypes are torn down.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from collections.abc import Callable
from contextlib import suppress
from ctypes import c_void_p
from typing import TYPE_CHECKING, Any

from . import _json
from ._native import Library, default_library, load
from .errors import ReducerKitError, SchemaMismatchError, Status, StoreClosedError

if TYPE_CHECKING:  # asyncio is imported where it is used: `import reducerkit` stays fast
    import asyncio

    from ._host import HostRequests

__all__ = ["load_library", "resolve_library", "features", "Core", "CLOSED", "tls",
           "callback_stack", "graveyard", "live_cores"]


# ---- the library --------------------------------------------------------------------------

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


def resolve_library(library: Library | str | os.PathLike[str] | None) -> Library:
    """``library`` as a :class:`Library`: itself, the file at that path, or (``None``) the
    default library."""
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
    lib = resolve_library(library)
    cached = _features_cache.get(lib.path)
    if cached is None:
        cached = _checked_features(lib, lib.decode(lib.features_json(), "rk_features"))
        _features_cache[lib.path] = cached
    copied: list[dict[str, Any]] = _json.loads(_json.dumps(cached))  # callers may mutate it
    return copied


def check_schema_hash(lib: Library, feature: str, expected: str, typed: str) -> None:
    """Raises :class:`SchemaMismatchError` unless the library's feature ``feature`` has the
    schema hash ``expected``, the one the typed store ``typed`` (a class of generated stubs)
    was generated from. An unknown feature passes: creating the store then says so."""
    listed = _features_cache.get(lib.path)
    if listed is None:  # read once per library (features() fills the cache); not copied
        features(lib)
        listed = _features_cache[lib.path]
    found = [f for f in listed if f.get("name") == feature]
    if not found:
        return
    actual = found[0].get("schema_hash")
    if actual == expected:
        return
    import shlex

    has = actual if isinstance(actual, str) else "no schema hash"
    raise SchemaMismatchError(
        f"{typed} ({feature!r}) was generated from schema {expected}, library has "
        f"{has}: regenerate with python -m reducerkit stubs "
        f"{shlex.quote(feature)} --lib {shlex.quote(lib.path)} (the library {lib.path} "
        f"changed the feature's actions, state or endpoints since)", Status.MISUSE)


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


# ---- bookkeeping shared by stores, their callbacks, finalizers and the exit hook ----------

#: Per-thread state: ``stack``, the stores whose callback runs on this thread (so that closing
#: a store from its own callback keeps the running thunk alive), and the out-parameters of
#: ``rk_store_patch`` that reading the state reuses (``patch_outs``).
tls = threading.local()

#: Callback thunks that unsubscribed themselves while running: they must outlive their own
#: return path, so they are kept for the life of the process (a few bytes each).
graveyard: list[Any] = []

#: The cores of the stores not closed yet (the exit hook closes them).
live_cores: set[Core] = set()
live_lock = threading.Lock()

#: The sentinel put into state streams (``Store.states()``) when their store closes.
CLOSED = object()


def callback_stack() -> list[Core]:
    """This thread's stack of stores whose callback is running."""
    stack: list[Core] | None = getattr(tls, "stack", None)
    if stack is None:
        stack = []
        tls.stack = stack
    return stack


#: Guards each core's ``closed`` flag (closing is rare: one lock for all of them keeps a core
#: small, see :class:`Core`).
_close_lock = threading.Lock()


class Core:
    """What a store's callbacks, finalizer and the exit hook need, without the Store.

    Kept small (a store's memory is mostly its core and the store object): slots, and what
    only some stores use (host requests, state streams, close hooks) made on first use."""

    __slots__ = ("lib", "handle", "owned", "feature", "errors", "subs", "requests", "closed",
                 "_streams", "_on_close")

    def __init__(self, lib: Library, handle: c_void_p, owned: bool,
                 feature: str | None) -> None:
        self.lib = lib
        self.handle = handle
        self.owned = owned
        self.feature = feature
        self.errors: list[BaseException] = []
        self.subs: dict[int, Any] = {}
        self.requests: HostRequests | None = None  # made on first use (Store._requests)
        self.closed = False
        self._streams: set[tuple[asyncio.AbstractEventLoop, asyncio.Queue[Any]]] | None = None
        self._on_close: list[Callable[[], object]] | None = None

    @property
    def name(self) -> str:
        """How messages name the store: ``Store('counter') at 0x...``."""
        if self.owned:
            return f"Store({self.feature!r}) at {self.handle.value:#x}"
        return f"borrowed store at {self.handle.value:#x}"

    @property
    def streams(self) -> set[tuple[asyncio.AbstractEventLoop, asyncio.Queue[Any]]]:
        """The ``states()`` iterators' queues, woken when the store closes."""
        streams = self._streams
        if streams is None:
            streams = self._streams = set()
        return streams

    @property
    def on_close(self) -> list[Callable[[], object]]:
        """Hooks run once the store is closed (the inspector's)."""
        hooks = self._on_close
        if hooks is None:
            hooks = self._on_close = []
        return hooks

    def in_own_callback(self) -> bool:
        stack = getattr(tls, "stack", None)
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
        with _close_lock:
            if self.closed:
                return
            self.closed = True
        with live_lock:
            live_cores.discard(self)
        requests = self.requests
        if requests is not None:
            requests.remove_own_readers()
        # Also from inside one of the store's own callbacks: the library runs callbacks outside
        # the store's lock, so destroying there returns at once, and no callback (nor any
        # state an action sent from that callback produced) is delivered after it.
        self._release()
        if requests is not None:
            requests.closed()
        for hook in self._on_close or ():
            try:
                hook()
            except Exception:  # noqa: BLE001 - pragma: no cover - a hook must not stop close
                pass
        for loop, queue in list(self._streams or ()):
            try:
                loop.call_soon_threadsafe(queue.put_nowait, CLOSED)
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
                # Closing a borrowed store: a subscription C removed already is no error.
                with suppress(ReducerKitError):
                    self.lib.call(self.lib.rk_store_unsubscribe, handle, token)
        # After destroy/unsubscribe returned, no callback runs again: the thunks may go, except
        # the one running now when this is called from a callback (freed later).
        if self.in_own_callback():
            graveyard.extend(self.subs.values())
        if getattr(tls, "stack", None) and self.requests is not None \
                and self.requests.thunk is not None:
            # Inside a callback of any store the library does not wait for this store's
            # request callbacks running on other threads (it could deadlock): keep the thunk.
            graveyard.append(self.requests.thunk)
        self.subs.clear()
        if self.requests is not None:
            self.requests.thunk = None

    def _report_unraised(self, reason: str) -> None:
        import traceback  # imported where it is used: `import reducerkit` stays fast

        errors = self.take_errors()
        try:
            sys.stderr.write(
                f"reducerkit: {len(errors)} exception(s) raised in callbacks of {self.name} "
                f"were never re-raised (the store was closed by its {reason}):\n")
            for error in errors:
                traceback.print_exception(error, file=sys.stderr)
        except Exception:  # pragma: no cover - stderr gone at exit
            pass


def close_all_at_exit() -> None:
    """Closes every live store before the interpreter and ctypes are torn down, so no
    Swift thread calls into a finalizing interpreter (effects in flight, subscribers)."""
    with live_lock:
        cores = list(live_cores)
    for core in cores:
        try:
            core.close(reason="exit hook")
        except Exception:  # pragma: no cover - best effort at exit
            pass


atexit.register(close_all_at_exit)
