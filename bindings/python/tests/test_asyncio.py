"""asyncio: waiting for effects without blocking the loop, and states as an async stream."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from conftest import cap

import reducerkit
from reducerkit import Library, Store


def test_wait_idle_async(lib: Library) -> None:
    async def main() -> str | None:
        with Store("counter", initial_state={"count": 3}) as store:
            store.send("factButtonTapped")
            ticks = 0

            async def ticker() -> None:
                nonlocal ticks
                while True:
                    ticks += 1
                    await asyncio.sleep(0)

            task = asyncio.create_task(ticker())
            await store.wait_idle_async(timeout=cap(10))
            task.cancel()
            assert ticks >= 1  # the loop kept running while we waited
            return store.state["fact"]

    assert asyncio.run(main()) == "3 is the number of spatial dimensions we perceive."


def test_wait_idle_async_timeout(lib: Library) -> None:
    async def main() -> None:
        with Store("counter") as store:
            store.send("toggleTimer")
            with pytest.raises(reducerkit.TimeoutError):
                await store.wait_idle_async(timeout=0.05)

    asyncio.run(main())


def test_states_from_a_live_timer(lib: Library) -> None:
    async def main() -> list[int]:
        with Store("counter") as store:
            store.send({"setCount": 10})
            counts: list[int] = []
            store.send("toggleTimer")
            async for state in store.states():
                counts.append(state["count"])
                if len(counts) == 3:
                    break
            store.send("toggleTimer")
            return counts

    counts = asyncio.run(asyncio.wait_for(main(), cap(30)))
    assert counts == [10, 11, 12]


def test_states_ends_when_the_store_closes(lib: Library) -> None:
    async def main() -> list[int]:
        store = Store("counter")
        seen: list[int] = []

        async def consume() -> None:
            async for state in store.states(initial=False):
                seen.append(state["count"])

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.01)
        store.send("increment")
        store.send("increment")
        await asyncio.sleep(0.01)
        store.close()
        await asyncio.wait_for(task, cap(10))
        return seen

    assert asyncio.run(main()) == [1, 2]


def test_breaking_out_unsubscribes(lib: Library) -> None:
    async def main() -> tuple[int, int]:
        with Store("counter") as store:
            async for _ in store.states():
                break
            await asyncio.sleep(0.01)  # the loop closes the abandoned generator
            after_break = len(store._core.subs)
            async with contextlib.aclosing(store.states()) as states:
                async for _ in states:
                    break
            return after_break, len(store._core.subs)  # aclosing: at once

    assert asyncio.run(main()) == (0, 0)


def test_states_with_test_clock(lib: Library) -> None:
    async def main() -> list[dict[str, object]]:
        with Store("search", clock="test") as store:
            stream = store.states(initial=False)
            first = asyncio.ensure_future(stream.__anext__())
            await asyncio.sleep(0.01)  # the stream subscribes
            store.send({"queryChanged": "py"})
            store.advance(seconds=0.3)
            got = [await first, await stream.__anext__()]
            await stream.aclose()
            return got

    assert asyncio.run(main()) == [{"query": "py", "results": []},
                                   {"query": "py", "results": ["python"]}]
