"""Subscriptions: what :meth:`Store.subscribe <reducerkit.Store.subscribe>`,
:meth:`~reducerkit.Store.subscribe_patches` and :meth:`~reducerkit.Store.unsubscribe` do.

Each subscription is a ctypes thunk kept in the store's core (``core.subs``, by token) until
it is removed: the library calls it on the thread that sent, outside the store's lock. The
trampolines never let an exception reach ctypes: they keep it in the core, and the next call
on the store re-raises it. A path subscription (``subscribe(cb, path=...)``) is driven by the
store's JSON Patches, so an action that does not touch the part costs a check of the patch's
paths and no read of the state.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from ctypes import byref, c_uint64
from typing import TYPE_CHECKING, Any

from . import _json
from ._lifecycle import callback_stack, graveyard, tls
from ._native import PATCH_CALLBACK, STATE_CALLBACK
from ._patch import MISSING, affects, freeze, parse_pointer, resolve
from .errors import InvalidArgumentError, Status

if TYPE_CHECKING:
    from .store import Store

__all__ = ["subscribe", "subscribe_patches", "subscribe_patch_ops", "unsubscribe"]


def subscribe(store: Store[Any, Any], callback: Callable[..., object], *, path: str | None,
              with_version: bool) -> int:
    """:meth:`reducerkit.Store.subscribe`."""
    if path is not None:
        return _subscribe_path(store, callback, path, with_version)
    handle = store._live_handle()
    core = store._core
    lib = store._lib
    _json.backend()  # chosen before loads is kept (a borrowed store has not encoded yet)
    loads = _json.loads
    string_at = ctypes.string_at

    def trampoline(_userdata: Any, ptr: int, length: int, version: int) -> None:
        stack = getattr(tls, "stack", None)
        if stack is None:
            stack = callback_stack()
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
    store._callbacks_installed()
    store._call(lib.rk_store_subscribe, handle, thunk, None, byref(token))
    core.subs[token.value] = thunk
    return token.value


def _subscribe_path(store: Store[Any, Any], callback: Callable[..., object], path: str,
                    with_version: bool) -> int:
    try:
        watched = parse_pointer(path)
    except (ValueError, AttributeError) as e:
        raise InvalidArgumentError(str(e), Status.INVALID_ARGUMENT) from None
    handle = store._live_handle()
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

    token = subscribe_patch_ops(store, on_patch, callback)
    try:
        last[0] = store._get_part(handle, path)[0]
    except BaseException:
        unsubscribe(store, token)
        raise
    return token


def subscribe_patches(store: Store[Any, Any], callback: Callable[..., object]) -> int:
    """:meth:`reducerkit.Store.subscribe_patches`."""
    if _takes_one_argument(callback):
        one = callback
        return subscribe_patch_ops(store, lambda patch, _version: one(patch), callback)
    return subscribe_patch_ops(store, callback, callback)


def subscribe_patch_ops(store: Store[Any, Any], on_ops: Callable[[Any, int], object],
                        callback: object) -> int:
    """Calls ``on_ops(ops, version)`` with each patch (decoded) of the store; an exception it
    raises is kept as one of ``callback`` (the subscriber, or a str saying what it is)."""
    handle = store._live_handle()
    core = store._core
    lib = store._lib
    _json.backend()  # chosen before loads is kept (a borrowed store has not encoded yet)
    loads = _json.loads

    def trampoline(_userdata: Any, patch: bytes, _length: int, version: int) -> None:
        stack = getattr(tls, "stack", None)
        if stack is None:
            stack = callback_stack()
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
    store._callbacks_installed()
    store._call(lib.rk_store_subscribe_patches, handle, thunk, None, byref(token))
    core.subs[token.value] = thunk
    return token.value


def unsubscribe(store: Store[Any, Any], token: int) -> None:
    """:meth:`reducerkit.Store.unsubscribe`."""
    handle = store._live_handle()
    core = store._core
    status = store._lib.rk_store_unsubscribe(handle, token)
    thunk = core.subs.pop(token, None)
    if thunk is not None and core.in_own_callback():
        graveyard.append(thunk)  # it may be the callback that is running right now
    store._check(status, f"unsubscribe({token})")


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
