"""The raw layer: finds and loads ``libreducerkit``, and mirrors ``include/reducerkit.h``.

Every C function of the header is declared once, in :data:`FUNCTIONS`, with its ``argtypes``
and ``restype``. Strings the library hands over (``char **out_json``) are read as
``c_void_p`` so ctypes never copies-and-forgets them; :meth:`Library.take_string` copies the
bytes and frees the original with ``rk_free``. Borrowed library strings (``rk_version``,
``rk_status_string``, ``rk_last_error``) are read as ``c_char_p``.

The library is loaded with :class:`ctypes.CDLL`, which releases the GIL for the duration of
every call, so subscriber callbacks arriving on Swift's threads can take it.

Which library (:func:`find_library`): an explicit path if one is given, else
``$REDUCERKIT_LIB`` if it is set, else the copy shipped inside the package
(``reducerkit/libreducerkit.so``, put there by the wheel or ``pip install``). An explicit
choice that does not exist is an error, never a fallback to another copy. ``os.environ`` is
only read.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Callable, Sequence
from ctypes import CFUNCTYPE, POINTER, c_char_p, c_int, c_int64, c_size_t, c_uint64, c_void_p
from pathlib import Path
from typing import Any

from . import _json
from .errors import (
    ABIVersionError,
    LibraryABIError,
    LibraryNotFoundError,
    ReducerKitError,
    Status,
    error_for_status,
    reraise,
)

__all__ = [
    "ABI_VERSION",
    "ENV_VAR",
    "FUNCTIONS",
    "STATE_CALLBACK",
    "PATCH_CALLBACK",
    "REQUEST_CALLBACK",
    "Library",
    "find_library",
    "load",
    "default_library",
    "library_file_name",
]

#: The ABI version this binding is written against (``RK_ABI_VERSION`` in the header).
ABI_VERSION = 1

#: The environment variable naming the library file.
ENV_VAR = "REDUCERKIT_LIB"

#: Where the package data copy of the library is looked for (this package's folder).
PACKAGE_DIR = Path(__file__).resolve().parent

#: ``typedef void (*rk_state_callback)(void *userdata, const char *state_json, size_t len,
#: uint64_t version);`` -- ``state_json`` is declared ``c_void_p`` so ctypes does not run
#: strlen() and build a bytes object we would copy again with the known length.
STATE_CALLBACK = CFUNCTYPE(None, c_void_p, c_void_p, c_size_t, c_uint64)

#: ``typedef void (*rk_patch_callback)(void *userdata, const char *patch_json, size_t len,
#: uint64_t version);`` -- ``patch_json`` is ``c_char_p``: patches are small and JSON text has
#: no NUL byte, and ctypes' own conversion to bytes is faster than ``string_at``.
PATCH_CALLBACK = CFUNCTYPE(None, c_void_p, c_char_p, c_size_t, c_uint64)

#: ``typedef void (*rk_request_callback)(void *userdata, const char *event_json, size_t len);``
#: -- ``event_json`` is ``c_char_p``: events are small and JSON text has no NUL byte, and
#: ctypes' own conversion to bytes (in C) is 0.7 us faster per event than ``string_at``.
#: ``REQUEST_CALLBACK()`` (no argument) is the NULL callback that ``rk_store_on_request``
#: takes to go back to queueing.
REQUEST_CALLBACK = CFUNCTYPE(None, c_void_p, c_char_p, c_size_t)

_status = c_int  # rk_status is a C enum: int-sized on every ABI we target
_OUT_STR = POINTER(c_void_p)  # char **: owned, freed with rk_free
_OUT_LEN = POINTER(c_size_t)

#: Every function of ``reducerkit.h``: name -> (argtypes, restype). The single source of the
#: ctypes signatures; :class:`Library` refuses a library that lacks any of them.
FUNCTIONS: dict[str, tuple[Sequence[Any], Any]] = {
    # Versions
    "rk_version": ([], c_char_p),                      # static storage: do not free
    "rk_abi_version": ([], c_int),
    # Status codes and errors
    "rk_status_string": ([_status], c_char_p),         # static: do not free
    "rk_last_error": ([], c_char_p),                   # thread-local, library-owned
    "rk_free": ([c_void_p], None),
    # Features
    "rk_features": ([_OUT_STR, _OUT_LEN], _status),
    # Stores
    "rk_store_create": ([c_char_p, c_char_p, POINTER(c_void_p)], _status),
    "rk_store_destroy": ([c_void_p], None),
    "rk_store_send": ([c_void_p, c_char_p], _status),
    "rk_store_send_n": ([c_void_p, c_char_p, c_size_t], _status),
    "rk_store_state": ([c_void_p, _OUT_STR, _OUT_LEN], _status),
    "rk_store_version": ([c_void_p, POINTER(c_uint64)], _status),
    # pointer (borrowed, NULL: the whole state), out json, out len, out version
    "rk_store_get": ([c_void_p, c_char_p, _OUT_STR, _OUT_LEN, POINTER(c_uint64)], _status),
    "rk_store_patch": ([c_void_p, c_uint64, _OUT_STR, _OUT_LEN, POINTER(c_uint64)], _status),
    "rk_store_subscribe_patches": ([c_void_p, PATCH_CALLBACK, c_void_p, POINTER(c_uint64)],
                                   _status),
    "rk_store_subscribe": ([c_void_p, STATE_CALLBACK, c_void_p, POINTER(c_uint64)], _status),
    "rk_store_unsubscribe": ([c_void_p, c_uint64], _status),
    "rk_store_wait_idle": ([c_void_p, c_int64], _status),
    "rk_store_advance_clock": ([c_void_p, c_int64], _status),
    "rk_store_take_actions": ([c_void_p, _OUT_STR, _OUT_LEN], _status),
    "rk_store_scenario": ([c_void_p, _OUT_STR, _OUT_LEN], _status),
    "rk_store_snapshot": ([c_void_p, _OUT_STR, _OUT_LEN], _status),
    "rk_store_effect_count": ([c_void_p, POINTER(c_uint64)], _status),
    # Effects the host fulfils
    "rk_store_on_request": ([c_void_p, REQUEST_CALLBACK, c_void_p], _status),
    "rk_store_take_requests": ([c_void_p, _OUT_STR, _OUT_LEN], _status),
    "rk_store_request_fd": ([c_void_p, POINTER(c_int)], _status),
    "rk_store_resolve": ([c_void_p, c_uint64, c_char_p], _status),   # response JSON, borrowed
    "rk_store_fail": ([c_void_p, c_uint64, c_char_p], _status),      # message, borrowed
    # Scenario files: the format's checks and normal form, and its comparison of values
    "rk_scenario_parse": ([c_char_p, c_size_t, _OUT_STR, _OUT_LEN], _status),
    # expected, its length, actual, its length, out equal, out diff (owned; NULL: equal), len
    "rk_json_match": ([c_char_p, c_size_t, c_char_p, c_size_t, POINTER(c_int), _OUT_STR,
                       _OUT_LEN], _status),
}


def library_file_name() -> str:
    """The platform's file name of the library (``libreducerkit.so`` on Linux)."""
    if sys.platform == "darwin":
        return "libreducerkit.dylib"
    if sys.platform == "win32":
        return "reducerkit.dll"
    return "libreducerkit.so"


def _choice(path: str | os.PathLike[str] | None) -> tuple[str, str]:
    """(source, path) of the library to load: the first of an explicit path,
    ``$REDUCERKIT_LIB`` and the package's own copy that is given."""
    if path is not None:
        return ("explicit path", os.fspath(path))
    env = os.environ.get(ENV_VAR)
    if env:
        return (f"${ENV_VAR}", env)
    return ("package data", str(PACKAGE_DIR / library_file_name()))


def _describe(source: str, candidate: str, resolved: str) -> str:
    """The chosen file, for a message: where its name came from and the absolute path."""
    absolute = f" ({resolved})" if resolved != candidate else ""
    if source == "package data":
        return f"the package's own copy {candidate}"
    if source.startswith("$"):
        return f"{source}={candidate}{absolute}"
    return f"the path given, {candidate}{absolute},"


def _not_found_advice(source: str) -> str:
    """What to do when the library chosen from ``source`` does not exist."""
    if source == "package data":
        return (f"This reducerkit package was installed without the library. Install a wheel "
                f"that carries it (in a ReducerKit checkout, with Swift: `make wheel`, then "
                f"`pip install dist/reducerkit-*.whl`), or `pip install ./bindings/python` with "
                f"the Swift toolchain on PATH; or name a built library with "
                f"reducerkit.load_library(path) or ${ENV_VAR}.")
    undo = "unset $" + ENV_VAR if source.startswith("$") else "pass no path"
    return (f"A library named explicitly is never replaced by another copy: fix the path, "
            f"or {undo} to use the copy inside the installed package ({PACKAGE_DIR}).")


class Library:
    """A loaded ``libreducerkit`` with every function of the header bound and typed.

    The C functions are attributes named as in the header (``lib.rk_store_send(...)``).
    Use :func:`load` rather than constructing this directly.
    """

    path: str
    cdll: ctypes.CDLL
    abi_version: int
    version: str

    rk_version: Callable[[], bytes]
    rk_abi_version: Callable[[], int]
    rk_status_string: Callable[[int], bytes]
    rk_last_error: Callable[[], bytes]
    rk_free: Callable[[Any], None]
    rk_features: Callable[..., int]
    rk_store_create: Callable[..., int]
    rk_store_destroy: Callable[[Any], None]
    rk_store_send: Callable[[Any, bytes], int]
    rk_store_send_n: Callable[[Any, bytes, int], int]
    rk_store_state: Callable[..., int]
    rk_store_version: Callable[..., int]
    rk_store_get: Callable[..., int]
    rk_store_patch: Callable[..., int]
    rk_store_subscribe_patches: Callable[..., int]
    rk_store_subscribe: Callable[..., int]
    rk_store_unsubscribe: Callable[[Any, int], int]
    rk_store_wait_idle: Callable[[Any, int], int]
    rk_store_advance_clock: Callable[[Any, int], int]
    rk_store_take_actions: Callable[..., int]
    rk_store_scenario: Callable[..., int]
    rk_store_snapshot: Callable[..., int]
    rk_store_effect_count: Callable[..., int]
    rk_store_on_request: Callable[..., int]
    rk_store_take_requests: Callable[..., int]
    rk_store_request_fd: Callable[..., int]
    rk_store_resolve: Callable[[Any, int, bytes], int]
    rk_store_fail: Callable[[Any, int, bytes], int]
    rk_scenario_parse: Callable[..., int]
    rk_json_match: Callable[..., int]

    def __init__(self, path: str, cdll: ctypes.CDLL) -> None:
        self.path = path
        self.cdll = cdll
        # Check the ABI first, with the one function whose signature never changes, so a
        # library of another ABI is refused with a clear message and not a missing symbol.
        try:
            abi_fn = cdll.rk_abi_version
        except AttributeError:
            raise ABIVersionError(
                f"{path} is not a ReducerKit library: it does not export rk_abi_version"
            ) from None
        abi_fn.argtypes, abi_fn.restype = [], c_int
        abi = int(abi_fn())
        if abi != ABI_VERSION:
            raise ABIVersionError(
                f"{path} has ReducerKit ABI version {abi}, but this binding (reducerkit "
                f"for Python) supports only ABI version {ABI_VERSION}; install a binding "
                f"and a library of the same version")
        self.abi_version = abi
        missing = []
        for name, (argtypes, restype) in FUNCTIONS.items():
            try:
                fn = getattr(cdll, name)
            except AttributeError:
                missing.append(name)
                continue
            fn.argtypes = list(argtypes)
            fn.restype = restype
            setattr(self, name, fn)
        if missing:
            raise ABIVersionError(
                f"{path} (ABI {abi}) lacks functions of reducerkit.h: {', '.join(missing)}")
        # The hot path's copy of rk_store_send, without argtypes: ctypes then passes a
        # c_void_p and a bytes object as pointers directly, where typed arguments go through
        # from_param (c_char_p's builds an argument object and looks its format up each call).
        # Only for (c_void_p handle or None, bytes without NUL) arguments.
        send_fast = cdll["rk_store_send"]
        send_fast.restype = _status
        self._send_untyped: Callable[[Any, bytes], int] = send_fast
        # rk_store_send's address, for the compiled call path (_speedups; see Store.send).
        self._send_address: int = ctypes.cast(send_fast, ctypes.c_void_p).value or 0
        # The same, keeping the GIL during the call (no release and retake: most of the cost
        # of a ctypes call). Only for a store no Python callback can be called from, so that
        # nothing the library runs during the send waits for the GIL: a store Python created,
        # before it has a subscription or a request callback (Store switches to _send_untyped
        # for good when it gets one).
        self._send_untyped_gil: Callable[[Any, bytes], int] = ctypes.PYFUNCTYPE(_status)(
            ("rk_store_send", cdll))
        # The same pairs for reading the state (Store.state), whose arguments are all ctypes
        # instances made once (a c_void_p handle, a c_uint64 by value, byref() objects for the
        # out-parameters), so nothing goes through from_param: rk_store_version(handle,
        # byref(out)) and rk_store_patch(handle, c_uint64, byref(char *), None,
        # byref(out_version)). The GIL-keeping ones under the same condition as
        # _send_untyped_gil: the store's locks they take are never held while a callback of
        # the store runs (header: a callback may call them), so they only wait for Swift work.
        version_fast = cdll["rk_store_version"]
        version_fast.restype = _status
        self._version_untyped: Callable[[Any, Any], int] = version_fast
        self._version_untyped_gil: Callable[[Any, Any], int] = ctypes.PYFUNCTYPE(_status)(
            ("rk_store_version", cdll))
        patch_fast = cdll["rk_store_patch"]
        patch_fast.restype = _status
        self._patch_untyped: Callable[[Any, Any, Any, Any, Any], int] = patch_fast
        self._patch_untyped_gil: Callable[[Any, Any, Any, Any, Any], int] = \
            ctypes.PYFUNCTYPE(_status)(("rk_store_patch", cdll))
        # rk_free(c_void_p instance) keeping the GIL: free() waits for nothing.
        self._free_untyped_gil: Callable[[Any], None] = ctypes.PYFUNCTYPE(None)(
            ("rk_free", cdll))
        raw_version = self.rk_version()
        if not raw_version:
            raise self.abi_error("rk_version", "returned NULL")
        self.version = raw_version.decode("utf-8", "replace")

    def __repr__(self) -> str:
        return f"<reducerkit.Library {self.version} (ABI {self.abi_version}) at {self.path!r}>"

    # -- helpers used by the Pythonic layer ------------------------------------------------

    def status_string(self, status: int) -> str:
        """``rk_status_string(status)`` (``"status N"`` if the library returns NULL: this is
        read while reporting another error, which it must not hide)."""
        raw = self.rk_status_string(status)
        return raw.decode("utf-8", "replace") if raw else f"status {status}"

    def abi_error(self, function: str, problem: str) -> LibraryABIError:
        """The error for a call of ``function`` whose result breaks the ABI (``problem``
        says how), naming this library."""
        return LibraryABIError(
            f"{self.path} does not follow the ReducerKit ABI (version {self.abi_version}, "
            f"which it reports): {function}() {problem}. Is it a ReducerKit library, of the "
            f"version of this binding?")

    def decode(self, data: bytes, function: str) -> Any:
        """The JSON value of ``data``, which ``function`` returned; a
        :class:`LibraryABIError` naming the library when it is not JSON."""
        try:
            return _json.loads(data)
        except ValueError as e:  # json's and orjson's decode errors are ValueErrors
            raise self.abi_error(function, f"returned text that is not JSON ({e}): "
                                           f"{_excerpt(data)}") from None

    def last_error(self) -> str:
        """``rk_last_error()`` of the calling thread."""
        raw = self.rk_last_error()
        return raw.decode("utf-8", "replace") if raw else ""

    def error(self, status: int, context: str = "", message: str | None = None) -> ReducerKitError:
        """The exception for ``status``, with this thread's ``rk_last_error()`` message (or
        ``message``, read on the thread that made the call). Call it on the thread of the
        failing call, right after it."""
        if message is None:
            message = self.last_error()
        if context:
            message = f"{context}: {message}" if message else context
        return error_for_status(status, message, self.status_string(status))

    def check(self, status: int, context: str = "", message: str | None = None, *,
              pending: list[BaseException] | None = None) -> None:
        """Raises the exception for ``status`` unless it is ``RK_OK``: the one place where a
        status the library returned becomes an exception (:meth:`call` makes a call and
        checks it). Call it on the thread of the call, right after it.

        Args:
            context: what was called, put before the library's message (``get('/x')``).
            message: the library's message, when the call was made on another thread
                (default: this thread's ``rk_last_error()``).
            pending: a store's exceptions raised in its callbacks and not re-raised yet.
                When there are any they come first: they are taken from the list and
                raised, each with a note naming this call's own error.
        """
        if not status:
            return
        error = self.error(status, context, message)
        if pending:
            errors = pending[:]
            del pending[:len(errors)]
            for e in errors:
                e.add_note(f"the call itself also failed: {error!r}")
            reraise(errors)
        raise error

    def call(self, fn: Callable[..., int], *args: Any, context: str = "",
             pending: list[BaseException] | None = None) -> None:
        """``fn(*args)``, a function of the header that returns ``rk_status``, and
        :meth:`check` of its status."""
        status = fn(*args)
        if status:
            self.check(status, context, pending=pending)

    def take_string(self, ptr: c_void_p, length: c_size_t) -> bytes:
        """Copies an owned string (``char *`` + length) out and frees it with ``rk_free``."""
        address = ptr.value
        if not address:
            return b""
        try:
            return ctypes.string_at(address, length.value)
        finally:
            self.rk_free(address)

    def call_out_string(self, fn: Callable[..., int], *args: Any, context: str = "",
                        pending: list[BaseException] | None = None) -> bytes:
        """Calls ``fn(*args, char **out, size_t *len)`` (through :meth:`call`) and returns the
        owned string's bytes."""
        out = c_void_p()
        length = c_size_t()
        self.call(fn, *args, out, length, context=context, pending=pending)  # by reference
        return self.take_string(out, length)

    def features_json(self) -> bytes:
        """``rk_features()`` as raw JSON bytes."""
        return self.call_out_string(self.rk_features, context="rk_features")


def _excerpt(data: bytes, limit: int = 64) -> str:
    """``data`` for a message: escaped, cut after ``limit`` bytes."""
    more = f"...({len(data)} bytes)" if len(data) > limit else ""
    return repr(bytes(data[:limit]))[1:] + more


_lock = threading.Lock()
_loaded: dict[str, Library] = {}
_default: Library | None = None


def find_library(path: str | os.PathLike[str] | None = None) -> list[tuple[str, str]]:
    """The place :func:`load` would load from, as a one-element list of ``(source, path)``:
    ``path`` if given, else ``$REDUCERKIT_LIB`` if set, else the package's own copy."""
    return [_choice(path)]


def load(path: str | os.PathLike[str] | None = None) -> Library:
    """Loads the library: ``path`` if given, else ``$REDUCERKIT_LIB`` if set, else the copy
    inside this package (which the wheel and ``pip install`` put there).

    Only that one place is tried: a path given explicitly (or by ``$REDUCERKIT_LIB``) that
    does not exist or does not load is an error, never a silent fallback to another copy. A
    relative path is taken from the current directory. The same file is loaded once per
    process.

    Raises:
        LibraryNotFoundError: the chosen file does not exist or cannot be loaded; the message
            names it, says why and what to do.
        ABIVersionError: the library's ABI version is not :data:`ABI_VERSION`.
    """
    source, candidate = _choice(path)
    resolved = os.path.abspath(candidate)
    where = _describe(source, candidate, resolved)
    if not os.path.exists(resolved):
        raise LibraryNotFoundError(
            f"cannot find {library_file_name()}: {where} does not exist. "
            f"{_not_found_advice(source)}",
            [(f"{source}: {candidate}", "does not exist")],
        )
    with _lock:
        lib = _loaded.get(resolved)
        if lib is not None:
            return lib
        try:
            cdll = ctypes.CDLL(resolved)
        except OSError as e:
            raise LibraryNotFoundError(
                f"cannot load {library_file_name()}: {where} cannot be loaded: {e}",
                [(f"{source}: {candidate}", f"cannot be loaded: {e}")],
            ) from None
        lib = Library(resolved, cdll)
        _loaded[resolved] = lib
        return lib


def default_library() -> Library:
    """The library :class:`reducerkit.Store` uses when none is given: the one last passed
    to :func:`set_default`, else :func:`load` with no path (loaded on first use)."""
    global _default
    lib = _default
    if lib is None:
        lib = load()
        _default = lib
    return lib


def set_default(lib: Library) -> None:
    """Makes ``lib`` the library used when none is given."""
    global _default
    _default = lib
