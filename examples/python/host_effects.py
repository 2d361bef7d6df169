#!/usr/bin/env python3
"""Effects the host fulfils, from asyncio: the Swift ``search`` feature's network call is
answered by Python, over a real socket, and cancelled when the user types on.

    make lib && python3 examples/python/host_effects.py      (from any directory)

1. A word server (a local TCP server this program starts) answers slowly, like a backend.
2. ``Store("search", providers={"search": search})``: the feature debounces the query for
   300 ms and then calls its ``search`` endpoint; the async provider connects to the server.
   Typing fast ("s", "sw") makes one request. Typing again ("swi") while the server still
   works on "sw" cancels that effect: the provider's task gets ``CancelledError``, closes its
   connection, and the server sees the client hang up. The request for "swi" is answered.
3. ``Store("counter", provide=["numberFact"])`` without a provider: the program answers by
   hand, from ``async for request in store.requests()``, reading the fact from a file.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
# A checkout's package and library first, so that this runs from any directory.
if (REPO / "bindings" / "python" / "src" / "reducerkit").is_dir():
    sys.path.insert(0, str(REPO / "bindings" / "python" / "src"))
import reducerkit  # noqa: E402

if not os.environ.get("REDUCERKIT_LIB"):
    built = REPO / "build" / reducerkit._native.library_file_name()  # make lib
    if built.exists():
        reducerkit.load_library(built)

WORDS = ["swift", "swim", "swing", "switch", "python", "pear", "plum", "reducer", "store"]
SERVER_DELAY = 0.5  # seconds the word server takes to answer
received: dict[str, asyncio.Event] = {}  # queries the word server got


def got(query: str) -> asyncio.Event:
    return received.setdefault(query, asyncio.Event())


def say(text: str) -> None:
    print(text, flush=True)


async def word_server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """One query per connection: a line in, a JSON array of words out, SERVER_DELAY later
    (unless the client hangs up first)."""
    try:
        query = (await reader.readline()).decode().strip()
        say(f"  server: searching {query!r} ...")
        got(query).set()
        try:
            await asyncio.wait_for(reader.read(1), timeout=SERVER_DELAY)  # b"": client left
            say(f"  server: the client hung up; search {query!r} abandoned")
            return
        except asyncio.TimeoutError:
            pass
        words = [w for w in WORDS if w.startswith(query)]
        writer.write((json.dumps(words) + "\n").encode())
        await writer.drain()
        say(f"  server: answered {query!r} with {words}")
    except ConnectionError:
        pass
    finally:
        writer.close()


async def search_demo() -> None:
    server = await asyncio.start_server(word_server, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]

    async def search(query: str) -> list[str]:
        """The provider of the ``search`` endpoint: real IO on the loop."""
        say(f"  provider: request for {query!r}")
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(query.encode() + b"\n")
            await writer.drain()
            words: list[str] = json.loads(await reader.readline())
            return words
        except asyncio.CancelledError:
            say(f"  provider: the request for {query!r} was cancelled (CancelledError)")
            raise
        finally:
            writer.close()

    say("== search: the feature's network call, answered by a Python provider")
    async with server:
        with reducerkit.Store("search", providers={"search": search}) as store:
            for text in ("s", "sw"):  # typing fast: the debounce makes one request
                say(f"  user types {text!r}")
                store.send({"queryChanged": text})
                await asyncio.sleep(0.05)
            await got("sw").wait()  # the server works on "sw"
            say("  user types 'swi' while 'sw' is in flight")
            store.send({"queryChanged": "swi"})
            async for state in store.states():
                if state["results"]:
                    say(f"  state: {state}")
                    break
            await asyncio.sleep(0.05)  # let the server's last line print


async def fact_demo() -> None:
    say("== counter: numberFact answered by hand, from a file")
    with tempfile.TemporaryDirectory() as tmp:
        facts = Path(tmp) / "facts.json"
        facts.write_text(json.dumps({"3": "3 is the number of spatial dimensions we see."}))
        with reducerkit.Store("counter", initial_state={"count": 3},
                              provide=["numberFact"]) as store:

            async def answer() -> None:
                async for request in store.requests():  # the request fd, on the loop
                    say(f"  got {request}")
                    text = await asyncio.to_thread(facts.read_text)
                    request.resolve(json.loads(text).get(str(request.payload), "no fact"))

            answering = asyncio.create_task(answer())
            store.send("factButtonTapped")
            async for state in store.states():
                if state["fact"]:
                    say(f"  state: {state}")
                    break
        await answering  # ends with the store


async def main() -> None:
    await search_demo()
    await fact_demo()


if __name__ == "__main__":
    asyncio.run(main())
