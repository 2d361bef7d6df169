"""asyncio: what :meth:`Store.states <reducerkit.Store.states>` and
:meth:`~reducerkit.Store.wait_idle_async` do. (The requests to answer by hand, as an async
iterator, are :meth:`reducerkit._host.HostRequests.iterate`.)

asyncio is imported where it is used, never at import: ``import reducerkit`` stays fast.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from ._lifecycle import CLOSED
from ._subscriptions import subscribe_patch_ops, unsubscribe
from .errors import StoreClosedError

if TYPE_CHECKING:
    import asyncio

    from .store import Store

__all__ = ["states", "wait_idle_async"]


async def wait_idle_async(store: Store[Any, Any], timeout: float | None) -> None:
    """:meth:`reducerkit.Store.wait_idle_async`."""
    import asyncio

    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, store.wait_idle, timeout)


async def states(store: Store[Any, Any], *, initial: bool) -> AsyncGenerator[Any, None]:
    """:meth:`reducerkit.Store.states`: each change brings the store's snapshot up to date
    (on the thread that changed the state), and the iterator yields it."""
    import asyncio

    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    core = store._core

    def on_patch(_ops: Any, _version: int) -> None:
        handle = store._handle
        if handle is None:
            return
        state = store._catch_up(handle, store._cache)
        try:
            loop.call_soon_threadsafe(queue.put_nowait, (store._cache[0], state))
        except RuntimeError:  # the loop was closed
            pass

    token = subscribe_patch_ops(store, on_patch, "a states() iterator")
    stream = (loop, queue)
    core.streams.add(stream)
    try:
        seen = -1
        if initial:
            state = store.state
            seen = store._cache[0]
            yield state
        while True:
            item = await queue.get()
            if item is CLOSED:
                return
            if store._errors:
                store._raise_pending()
            version, state = item
            if version <= seen:
                continue  # already yielded
            seen = version
            yield state
    finally:
        core.streams.discard(stream)
        if not core.closed and store._handle is not None:
            try:
                unsubscribe(store, token)
            except StoreClosedError:
                pass
