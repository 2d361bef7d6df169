"""Effects the host fulfils: providers (sync and async), answering by hand (pending_requests,
wait_request, requests()), the errors of answers, and closing with requests pending.

The shipped features have one endpoint each: counter's ``numberFact`` (payload: the count;
response: a string; the effect catches a failure as "Could not load a fact about N: MSG")
and search's ``search`` (payload: the query; response: [string]; 300 ms after the last
``queryChanged``, a newer query cancels the one in flight).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import announce_inside, cap

import reducerkit
from reducerkit import (
    InvalidArgumentError,
    JSONError,
    Library,
    ReducerKitError,
    Request,
    ResponseError,
    Store,
    StoreClosedError,
)

SRC = str(Path(reducerkit.__file__).resolve().parents[1])


def _until(predicate: Any, timeout: float = 10) -> bool:
    deadline = time.monotonic() + cap(timeout)
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return bool(predicate())


async def _until_async(predicate: Any, timeout: float = 10) -> bool:
    deadline = time.monotonic() + cap(timeout)
    while time.monotonic() < deadline:
        if predicate():
            return True
        await asyncio.sleep(0.005)
    return bool(predicate())


# ---- the API's shape --------------------------------------------------------------------

def test_response_error_is_part_of_the_hierarchy(lib: Library) -> None:
    assert reducerkit.ResponseError is ResponseError
    assert issubclass(ResponseError, ReducerKitError) and issubclass(ResponseError, ValueError)
    assert reducerkit.Status.RESPONSE == 10
    assert "RK_ERR_RESPONSE" in lib.status_string(reducerkit.Status.RESPONSE)
    assert "ResponseError" in reducerkit.__all__ and "Request" in reducerkit.__all__


def test_features_list_the_endpoints(lib: Library) -> None:
    by_name = {f["name"]: f for f in reducerkit.features(lib)}
    assert [e["name"] for e in by_name["counter"]["requests"]] == ["numberFact"]
    assert by_name["counter"]["requests"][0]["response_schema"]["type"] == "string"
    assert [e["name"] for e in by_name["search"]["requests"]] == ["search"]
    assert by_name["todos"]["requests"] == []


def test_unknown_endpoint_lists_the_features_endpoints(lib: Library) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        Store("counter", provide=["numberFacts"])
    assert "numberFact" in info.value.message and "numberFacts" in info.value.message
    with pytest.raises(InvalidArgumentError, match="numberFact"):
        Store("counter", providers={"search": lambda q: []})


def test_provide_checks_its_arguments(lib: Library) -> None:
    with pytest.raises(InvalidArgumentError, match=r"provide=\['numberFact'\]"):
        Store("counter", provide="numberFact")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="not callable"):
        Store("counter", providers={"numberFact": "a fact"})  # type: ignore[dict-item]
    with pytest.raises(InvalidArgumentError, match="twice|given"):
        Store("counter", provide=["numberFact", "numberFact"])


def test_provide_is_the_providers_names_then_the_others(lib: Library) -> None:
    with Store("counter", providers={"numberFact": str}, provide=["numberFact"]) as store:
        assert store.provide == ("numberFact",)  # given in both: once
    with Store("counter", provide=["numberFact"]) as store:
        assert store.provide == ("numberFact",)
    with Store("counter") as store:
        assert store.provide == ()


# ---- synchronous providers ----------------------------------------------------------------

def test_sync_provider_answers_inside_the_send(lib: Library) -> None:
    calls: list[tuple[Any, threading.Thread]] = []

    def number_fact(n: int) -> str:
        calls.append((n, threading.current_thread()))
        return f"{n} is mine"

    with Store("counter", initial_state={"count": 7},
               providers={"numberFact": number_fact}) as store:
        store.send("factButtonTapped")
        # Answered in the callback, on this thread: the effect went on without suspending,
        # so its action was reduced before send() returned.
        assert store.state["fact"] == "7 is mine"
        assert calls == [(7, threading.current_thread())]
        assert store.pending_requests() == []
        assert store.effect_count == 0


def test_without_provide_the_swift_implementation_runs(lib: Library) -> None:
    with Store("counter", initial_state={"count": 1}) as store:
        store.send("factButtonTapped")
        store.wait_idle(cap(10))
        assert store.state["fact"] == "1 is the multiplicative identity."


def test_sync_provider_exception_fails_the_request(lib: Library) -> None:
    def offline(n: int) -> str:
        raise ConnectionError("the network is down")

    with Store("counter", initial_state={"count": 7}, providers={"numberFact": offline}) as store:
        store.send("factButtonTapped")  # the exception fails the request; it is not re-raised
        store.wait_idle(cap(10))
        assert store.state["fact"] == "Could not load a fact about 7: the network is down"


def test_an_exception_without_text_fails_with_its_class_name(lib: Library) -> None:
    def bare(n: int) -> str:
        raise LookupError

    with Store("counter", providers={"numberFact": bare}) as store:
        store.send("factButtonTapped")
        store.wait_idle(cap(10))
        assert store.state["fact"] == "Could not load a fact about 0: LookupError"


def test_a_response_of_the_wrong_type_fails_the_request_and_is_raised(lib: Library) -> None:
    with Store("counter", providers={"numberFact": lambda n: n}) as store:
        with pytest.raises(ResponseError) as info:
            store.send("factButtonTapped")  # the provider ran in this send: it re-raises
        assert "expected String at $, found number 0" in info.value.message
        assert any("provider 'numberFact'" in note for note in info.value.__notes__)
        store.wait_idle(cap(10))
        # Not lost for the effect either: the request was failed with the library's message.
        assert store.state["fact"] == ("Could not load a fact about 0: response to request 1 "
                                       "(numberFact): expected String at $, found number 0")
        store.send("increment")  # raised once: the store goes on


def test_a_response_json_cannot_encode_fails_the_request_and_is_raised(lib: Library) -> None:
    with Store("counter", providers={"numberFact": lambda n: object()}) as store:
        with pytest.raises(JSONError, match="cannot be encoded as JSON"):
            store.send("factButtonTapped")
        store.wait_idle(cap(10))
        assert store.state["fact"].startswith("Could not load a fact about 0: response <object")


def test_a_provider_error_on_a_swift_thread_is_raised_by_the_next_call(lib: Library) -> None:
    """search calls its endpoint after a 300 ms sleep, on one of Swift's threads."""
    with Store("search", providers={"search": lambda q: "not a list"}) as store:
        store.send({"queryChanged": "sw"})
        assert _until(lambda: store._errors)  # the provider ran on a Swift thread
        with pytest.raises(ResponseError, match=r"expected \[String\] \(array\) at \$"):
            store.send({"queryChanged": "swi"})


def test_a_provider_may_send_to_its_store(lib: Library) -> None:
    stores: list[Store] = []

    def number_fact(n: int) -> str:
        stores[0].send("increment")  # allowed inside the request callback
        return f"{n} and one"

    with Store("counter", providers={"numberFact": number_fact}) as store:
        stores.append(store)
        store.send("factButtonTapped")
        store.wait_idle(cap(10))
        assert store.state["count"] == 1 and store.state["fact"] == "0 and one"


# ---- async providers ----------------------------------------------------------------------

def test_async_provider_runs_on_the_loop(lib: Library) -> None:
    async def main() -> tuple[str, list[Any]]:
        seen: list[Any] = []
        loop = asyncio.get_running_loop()

        async def number_fact(n: int) -> str:
            seen.append((n, asyncio.get_running_loop() is loop))
            await asyncio.sleep(0.01)
            return f"{n} came from asyncio"

        with Store("counter", initial_state={"count": 3},
                   providers={"numberFact": number_fact}) as store:
            store.send("factButtonTapped")
            assert store.state["fact"] is None  # the task has not run yet
            assert await _until_async(lambda: store.state["fact"] is not None)
            return store.state["fact"], seen

    fact, seen = asyncio.run(main())
    assert fact == "3 came from asyncio"
    assert seen == [(3, True)]


def test_a_request_on_the_loop_thread_creates_the_task_in_the_send(lib: Library) -> None:
    """Issue 25 (async round trip): a request made in a send on the loop's thread creates its
    task there (no call_soon_threadsafe wake-up of the loop); the provider still runs on a
    later iteration of the loop, after send() returns."""
    async def main() -> None:
        started: list[int] = []

        async def number_fact(n: int) -> str:
            started.append(n)
            return f"{n} from a task"

        with Store("counter", providers={"numberFact": number_fact}) as store:
            store.send("factButtonTapped")
            names = [task.get_name() for task in asyncio.all_tasks()]
            assert "reducerkit provider numberFact #1" in names
            assert started == []
            assert await _until_async(lambda: store.state["fact"] is not None)
            assert store.state["fact"] == "0 from a task" and started == [0]

    asyncio.run(main())


def test_an_async_providers_answer_is_reduced_on_the_loop_thread(lib: Library) -> None:
    """Issue 25 (async round trip): the answer of a provider task that suspended first is
    given on the loop's thread, and the effect goes on there: factResponse is reduced and
    the subscriber called before the task's answer returns, with no Swift pool thread."""
    async def main() -> None:
        loop_thread = threading.get_ident()
        delivered: list[tuple[int, Any]] = []
        answered: list[Any] = []

        async def number_fact(n: int) -> str:
            await asyncio.sleep(0)
            return f"{n} after a suspension"

        with Store("counter", providers={"numberFact": number_fact}) as store:
            store.subscribe(lambda state: delivered.append((threading.get_ident(), state["fact"])))
            store.send("factButtonTapped")
            tasks = [t for t in asyncio.all_tasks()
                     if t.get_name() == "reducerkit provider numberFact #1"]
            assert len(tasks) == 1
            tasks[0].add_done_callback(lambda _: answered.append(store.state["fact"]))
            assert await _until_async(lambda: answered != [])
            assert answered == ["0 after a suspension"]
            assert delivered[-1] == (loop_thread, "0 after a suspension")
            assert all(thread == loop_thread for thread, _ in delivered), delivered

    asyncio.run(main())


@pytest.mark.skipif(not hasattr(asyncio, "eager_task_factory"), reason="Python 3.12 and later")
def test_with_an_eager_task_factory_an_async_provider_answers_in_the_send(
        lib: Library) -> None:
    """With asyncio.eager_task_factory, a provider that answers without suspending resolves
    inside the request callback: factResponse is reduced before send() returns."""
    async def main() -> None:
        asyncio.get_running_loop().set_task_factory(
            asyncio.eager_task_factory)  # type: ignore[attr-defined]

        async def number_fact(n: int) -> str:
            return f"{n} eagerly"

        async def slow_fact(n: int) -> str:
            await asyncio.sleep(0)
            return f"{n} later"

        with Store("counter", providers={"numberFact": number_fact}) as store:
            store.send("factButtonTapped")
            assert store.state["fact"] == "0 eagerly"
            assert store.pending_requests() == []
        with Store("counter", providers={"numberFact": slow_fact}) as store:
            store.send("factButtonTapped")
            assert store.state["fact"] is None  # suspended: its task answers later
            assert await _until_async(lambda: store.state["fact"] is not None)
            assert store.state["fact"] == "0 later"

    asyncio.run(main())


def test_a_provider_returning_an_awaitable_runs_on_the_loop(lib: Library) -> None:
    async def main() -> str:
        async def later(n: int) -> str:
            await asyncio.sleep(0)
            return f"{n} later"

        with Store("counter", providers={"numberFact": lambda n: later(n)}) as store:
            store.send("factButtonTapped")
            assert await _until_async(lambda: store.state["fact"] is not None)
            return store.state["fact"]

    assert asyncio.run(main()) == "0 later"


def test_async_provider_exception_fails_the_request(lib: Library) -> None:
    async def main() -> str:
        async def offline(n: int) -> str:
            await asyncio.sleep(0)
            raise OSError("no route to host")

        with Store("counter", providers={"numberFact": offline}) as store:
            store.send("factButtonTapped")
            assert await _until_async(lambda: store.state["fact"] is not None)
            return store.state["fact"]

    assert asyncio.run(main()) == "Could not load a fact about 0: no route to host"


def test_async_provider_wrong_response_is_raised_by_the_next_call(lib: Library) -> None:
    async def main() -> None:
        async def wrong(n: int) -> Any:
            return {"fact": n}

        with Store("counter", providers={"numberFact": wrong}) as store:
            store.send("factButtonTapped")
            assert await _until_async(lambda: bool(store._errors))
            with pytest.raises(ResponseError, match="expected String"):
                store.send("increment")
            assert await _until_async(lambda: store.state["fact"] is not None)
            assert "expected String at $, found object" in store.state["fact"]

    asyncio.run(main())


def test_async_provider_is_cancelled_with_its_request(lib: Library) -> None:
    """search on the test clock: the request for "sw" is cancelled by a newer query, and the
    asyncio task answering it sees CancelledError."""

    async def main() -> None:
        log: list[tuple[str, str]] = []
        release = asyncio.Event()

        async def search(query: str) -> list[str]:
            log.append(("start", query))
            try:
                if query == "sw":
                    await release.wait()  # would wait forever: only a cancellation ends it
                return [query + "ift", query + "m"]
            except asyncio.CancelledError:
                log.append(("cancelled", query))
                raise

        with Store("search", clock="test", providers={"search": search}) as store:
            store.send({"queryChanged": "sw"})
            store.advance(milliseconds=300)  # the debounce elapses: request 1 ("sw")
            assert await _until_async(lambda: log == [("start", "sw")])
            store.send({"queryChanged": "swi"})  # cancels the search in flight
            assert await _until_async(lambda: ("cancelled", "sw") in log)
            store.advance(milliseconds=300)
            assert await _until_async(lambda: store.state["results"] != [])
            assert store.state == {"query": "swi", "results": ["swiift", "swim"]}
            assert log == [("start", "sw"), ("cancelled", "sw"), ("start", "swi")]
            await store.wait_idle_async(cap(10))
            assert store.effect_count == 0

    asyncio.run(main())


def test_a_request_cancelled_before_its_task_started_never_runs(lib: Library) -> None:
    async def main() -> list[str]:
        started: list[str] = []

        async def search(query: str) -> list[str]:
            started.append(query)
            return []

        with Store("search", clock="test", providers={"search": search}) as store:
            store.send({"queryChanged": "sw"})
            store.advance(milliseconds=300)  # request 1 scheduled on the loop, not started
            store.send({"queryChanged": ""})  # cancelled at once, before the loop runs
            await asyncio.sleep(0.05)  # a task wrongly scheduled would start meanwhile
            assert await _until_async(lambda: store.effect_count == 0)
        return started

    assert asyncio.run(main()) == []


def test_async_provider_needs_a_loop(lib: Library) -> None:
    async def number_fact(n: int) -> str:
        return ""

    with pytest.raises(InvalidArgumentError, match="no asyncio loop is running"):
        Store("counter", providers={"numberFact": number_fact})


def test_a_provider_returning_an_awaitable_without_a_loop_fails_visibly(lib: Library) -> None:
    async def later(n: int) -> str:
        return "never"

    with Store("counter", providers={"numberFact": lambda n: later(n)}) as store:
        with pytest.raises(InvalidArgumentError, match="no asyncio loop"):
            store.send("factButtonTapped")
        store.wait_idle(cap(10))
        assert "provider 'numberFact' is asynchronous" in store.state["fact"]


def test_async_provider_with_an_explicit_loop(lib: Library) -> None:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        async def number_fact(n: int) -> str:
            assert threading.current_thread() is thread
            return f"{n} from another thread's loop"

        with Store("counter", providers={"numberFact": number_fact}, loop=loop) as store:
            store.send("factButtonTapped")
            assert _until(lambda: store.state["fact"] is not None)
            assert store.state["fact"] == "0 from another thread's loop"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(cap(10))
        loop.close()


def test_closing_the_store_cancels_running_provider_tasks(lib: Library) -> None:
    async def main() -> list[str]:
        log: list[str] = []
        entered: list[int] = []

        async def slow(n: int) -> str:
            entered.append(n)
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                log.append("cancelled")
                raise
            return "late"

        store = Store("counter", providers={"numberFact": slow})
        store.send("factButtonTapped")
        assert await _until_async(lambda: store.effect_count == 1)
        assert await _until_async(lambda: entered)  # the task started
        store.close()
        assert await _until_async(lambda: log == ["cancelled"])
        return log

    assert asyncio.run(main()) == ["cancelled"]


# ---- answering by hand -------------------------------------------------------------------

def test_pending_requests_and_resolve(lib: Library) -> None:
    with Store("counter", initial_state={"count": 42}, provide=["numberFact"]) as store:
        assert store.pending_requests() == []
        store.send("factButtonTapped")
        store.wait_idle(cap(10))  # an effect waiting for the host counts as idle
        assert store.effect_count == 1
        (request,) = store.pending_requests()
        assert isinstance(request, Request)
        assert (request.id, request.name, request.payload) == (1, "numberFact", 42)
        assert not request.cancelled and not request.answered
        assert repr(request) == "Request(id=1, name='numberFact', payload=42)"
        assert store.state["fact"] is None
        request.resolve("42 is the answer")
        assert request.answered and store.pending_requests() == []
        store.wait_idle(cap(10))
        assert store.state["fact"] == "42 is the answer"
        assert store.effect_count == 0


def test_fail_by_hand(lib: Library) -> None:
    with Store("counter", provide=["numberFact"]) as store:
        store.send("factButtonTapped")
        request = store.wait_request(timeout=cap(10))
        request.fail("offline")
        store.wait_idle(cap(10))
        assert store.state["fact"] == "Could not load a fact about 0: offline"
        with pytest.raises(InvalidArgumentError, match="already answered"):
            request.fail("again")


def test_resolve_and_fail_by_id(lib: Library) -> None:
    with Store("counter", provide=["numberFact"]) as store:
        store.send("factButtonTapped")
        store.send("factButtonTapped")
        first, second = store.pending_requests()
        store.resolve(second.id, "two")
        assert second.answered and store.pending_requests() == [first]
        store.fail(first.id, "one failed")
        assert first.answered
        with pytest.raises(InvalidArgumentError, match="unknown request id 3"):
            store.resolve(3, "three")
        with pytest.raises(InvalidArgumentError, match="out of range"):
            store.resolve(-1, "minus one")
        with pytest.raises(InvalidArgumentError, match="NUL"):
            store.fail(1, "a\x00b")


def test_a_failure_message_that_is_not_utf8_answers_nothing(lib: Library) -> None:
    """A lone surrogate is no UTF-8: the library refuses the message (it made it U+FFFD)."""
    with Store("counter", provide=["numberFact"]) as store:
        store.send("factButtonTapped")
        (request,) = store.pending_requests()
        with pytest.raises(InvalidArgumentError, match=r"message is not valid UTF-8 \(byte 1\)"):
            store.fail(request.id, "a\ud800b")
        assert store.pending_requests() == [request]
        store.fail(request.id, "offline")
        assert store.state["fact"] == "Could not load a fact about 0: offline"


def test_answering_twice_is_an_error(lib: Library) -> None:
    with Store("counter", provide=["numberFact"]) as store:
        store.send("factButtonTapped")
        request = store.wait_request(timeout=cap(10))
        request.resolve("once")
        with pytest.raises(InvalidArgumentError) as info:
            request.resolve("twice")
        assert "already answered" in info.value.message
        store.wait_idle(cap(10))
        assert store.state["fact"] == "once"


def test_a_wrong_response_leaves_the_request_pending(lib: Library) -> None:
    with Store("counter", provide=["numberFact"]) as store:
        store.send("factButtonTapped")
        request = store.wait_request(timeout=cap(10))
        with pytest.raises(ResponseError) as info:
            request.resolve(42)
        assert info.value.status is reducerkit.Status.RESPONSE
        assert "response to request 1 (numberFact): expected String at $" in info.value.message
        assert store.pending_requests() == [request] and not request.answered
        request.resolve("42, the second time")
        store.wait_idle(cap(10))
        assert store.state["fact"] == "42, the second time"


def test_malformed_json_is_a_json_error_and_the_request_stays_pending(lib: Library) -> None:
    with Store("counter", provide=["numberFact"]) as store:
        store.send("factButtonTapped")
        request = store.wait_request(timeout=cap(10))
        with pytest.raises(JSONError):
            request.resolve(b'"unterminated')
        with pytest.raises(JSONError, match="NUL"):
            request.resolve(b'"a"\x00garbage')  # not truncated at the NUL into valid JSON
        with pytest.raises(JSONError, match="cannot be encoded"):
            request.resolve({1j})
        assert store.pending_requests() == [request]
        request.resolve(b'"raw JSON text"')
        store.wait_idle(cap(10))
        assert store.state["fact"] == "raw JSON text"


def test_a_cancellation_marks_the_request(lib: Library) -> None:
    with Store("search", clock="test", provide=["search"]) as store:
        store.send({"queryChanged": "sw"})
        store.advance(milliseconds=300)
        request = store.wait_request(timeout=cap(10))
        assert (request.name, request.payload) == ("search", "sw")
        store.send({"queryChanged": "swi"})  # cancels the search in flight
        assert store.pending_requests() == []
        assert request.cancelled and repr(request).endswith("cancelled)")
        with pytest.raises(InvalidArgumentError, match="cancelled"):
            request.resolve(["too late"])
        store.advance(milliseconds=300)
        second = store.wait_request(timeout=cap(10))
        assert (second.id, second.payload) == (2, "swi")
        second.resolve(["swift"])
        store.wait_idle(cap(10))
        assert store.state == {"query": "swi", "results": ["swift"]}


def test_wait_request_times_out(lib: Library) -> None:
    with Store("counter", provide=["numberFact"]) as store:
        start = time.monotonic()
        with pytest.raises(reducerkit.TimeoutError) as info:
            store.wait_request(timeout=0.2)
        elapsed = time.monotonic() - start
        assert isinstance(info.value, TimeoutError)  # the built-in too
        assert 0.19 <= elapsed < cap(5)  # it waited; the cap only catches a wait that hangs
        with pytest.raises(InvalidArgumentError):
            store.wait_request(timeout=-1)


def test_wait_request_wakes_when_another_thread_sends(lib: Library) -> None:
    with Store("counter", provide=["numberFact"]) as store:
        def later() -> None:
            time.sleep(0.2)
            store.send("factButtonTapped")

        thread = threading.Thread(target=later)
        thread.start()
        request = store.wait_request(timeout=cap(10))  # woken: no TimeoutError
        assert request.payload == 0
        thread.join()
        request.resolve("woken")


def test_wait_request_hands_each_request_out_once(lib: Library) -> None:
    with Store("counter", provide=["numberFact"]) as store:
        store.send("factButtonTapped")
        store.send("increment")
        store.send("factButtonTapped")
        first = store.wait_request(timeout=cap(10))
        second = store.wait_request(timeout=cap(10))
        assert (first.id, first.payload, second.id, second.payload) == (1, 0, 2, 1)
        with pytest.raises(reducerkit.TimeoutError):
            store.wait_request(timeout=0.05)
        assert store.pending_requests() == [first, second]  # handed out, still pending


def test_wait_request_skips_requests_answered_meanwhile(lib: Library) -> None:
    with Store("counter", provide=["numberFact"]) as store:
        store.send("factButtonTapped")
        store.send("factButtonTapped")
        first, _ = store.pending_requests()
        first.resolve("answered before anyone waited")
        assert store.wait_request(timeout=cap(10)).id == 2


def test_wait_request_ends_when_the_store_closes(lib: Library) -> None:
    store = Store("counter", provide=["numberFact"])
    timer = threading.Timer(0.2, store.close)
    timer.start()
    with pytest.raises(StoreClosedError):  # woken by the close, not a TimeoutError
        store.wait_request(timeout=cap(10))
    timer.join()


CTRL_C_CHILD = textwrap.dedent("""
    import sys, time
    import reducerkit
    CAP = float(sys.argv[1])
    store = reducerkit.Store("counter", provide=["numberFact"])
    try:
        store.wait_request(timeout=None)
        print("returned", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    store.send("factButtonTapped")
    store.wait_request(timeout=CAP).resolve("still usable")
    store.wait_idle(CAP)
    print(store.state["fact"], flush=True)
""")


def _sigint_default() -> None:
    """In the child, before exec: Ctrl-C's default action, even when this test runs as a
    background job (whose shell ignores SIGINT, which the child would inherit)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_interrupts_wait_request(lib: Library) -> None:
    env = dict(os.environ, PYTHONPATH=SRC, REDUCERKIT_LIB=lib.path)
    code = announce_inside("wait_request") + CTRL_C_CHILD
    with subprocess.Popen([sys.executable, "-c", code, str(cap(10))], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env,
                          preexec_fn=_sigint_default) as child:
        _interrupt(child)


def _interrupt(child: subprocess.Popen[str]) -> None:
    watchdog = threading.Timer(cap(60), child.kill)  # a child that hangs fails the test
    watchdog.start()
    try:
        assert child.stdout is not None
        ready = child.stdout.readline().strip()  # once the main thread is in the call
        assert ready == "ready", (ready, child.stderr.read() if child.stderr else "")
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        line = child.stdout.readline().strip()
        latency = time.monotonic() - sent
        assert line == "interrupted", (line, child.stderr.read() if child.stderr else "")
        # Within a tenth of a second on a quiet machine; the cap only catches a wait that
        # ignores Ctrl-C.
        assert latency < cap(5), f"KeyboardInterrupt took {latency:.3f} s"
        assert child.stdout.readline().strip() == "still usable"
        assert child.wait(timeout=cap(30)) == 0
    finally:
        watchdog.cancel()
        watchdog.join()  # no thread left behind for the next test to count
        if child.poll() is None:
            child.kill()
            child.wait()


def test_closing_the_store_cancels_pending_requests(lib: Library) -> None:
    store = Store("counter", provide=["numberFact"])
    store.send("factButtonTapped")
    request = store.wait_request(timeout=cap(10))
    store.close()
    assert request.cancelled
    with pytest.raises(StoreClosedError):
        request.resolve("after close")
    with pytest.raises(StoreClosedError):
        store.pending_requests()


# ---- asyncio: requests() -----------------------------------------------------------------

def test_requests_async_iterator_uses_add_reader(lib: Library) -> None:
    async def main() -> tuple[str, list[int], set[int], set[int]]:
        loop = asyncio.get_running_loop()
        threads_before = threading.active_count()
        ids: list[int] = []
        watched: set[int] = set()

        def selector_fds() -> set[int]:
            return {key.fd for key in loop._selector.get_map().values()}  # type: ignore[attr-defined]

        with Store("counter", provide=["numberFact"]) as store:
            async def answer() -> None:
                async for request in store.requests():
                    ids.append(request.id)
                    # The loop watches (a duplicate of) the request descriptor meanwhile.
                    readers = {fd for _, fd in store._requests.readers}
                    assert len(readers) == 1 and readers <= selector_fds()
                    watched.update(readers)
                    await asyncio.sleep(0.01)  # an answer that takes a while
                    request.resolve(f"{request.payload} from the iterator")

            task = asyncio.create_task(answer())
            await asyncio.sleep(0.01)
            store.send("factButtonTapped")
            assert await _until_async(lambda: store.state["fact"] is not None)
            store.send("increment")
            store.send("factButtonTapped")
            assert await _until_async(lambda: store.state["fact"] == "1 from the iterator")
            assert threading.active_count() == threads_before  # no polling thread
            fact = store.state["fact"]
        await asyncio.wait_for(task, cap(10))  # the iteration ended with the store
        return fact, ids, watched, selector_fds()

    fact, ids, watched, after = asyncio.run(main())
    assert fact == "1 from the iterator" and ids == [1, 2]
    assert watched and not (watched & after)  # the reader was removed


def test_requests_ends_when_another_thread_closes_the_store(lib: Library) -> None:
    async def main() -> list[int]:
        store = Store("counter", provide=["numberFact"])
        got: list[int] = []

        async def consume() -> None:
            async for request in store.requests():
                got.append(request.id)

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.01)
        store.send("factButtonTapped")
        assert await _until_async(lambda: got == [1])
        closer = threading.Thread(target=store.close)
        closer.start()
        await asyncio.wait_for(task, cap(10))
        closer.join()
        return got

    assert asyncio.run(main()) == [1]


def test_requests_aclosing_removes_the_reader_at_once(lib: Library) -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        with Store("counter", provide=["numberFact"]) as store:
            store.send("factButtonTapped")
            before = set(loop._selector.get_map())  # type: ignore[attr-defined]
            async with contextlib.aclosing(store.requests()) as requests:
                async for request in requests:
                    assert set(loop._selector.get_map()) != before  # type: ignore[attr-defined]
                    request.resolve("first")
                    break
            assert set(loop._selector.get_map()) == before  # type: ignore[attr-defined]

    asyncio.run(main())


# ---- the callback path for endpoints without a provider (a feature with two endpoints) -----

def test_callback_mode_hands_unprovided_requests_to_the_book(lib: Library) -> None:
    """A store with providers gets every event through the request callback; an endpoint
    without a provider goes to pending_requests/wait_request/requests(). The shipped features
    have one endpoint each, so the event of a second one is fed to the callback here."""
    with Store("counter", providers={"numberFact": str}) as store:
        book = store._requests
        event = b'{"id":99,"name":"other","payload":[1,2]}'

        def deliver() -> None:
            time.sleep(0.1)
            book._trampoline(None, event, len(event))

        thread = threading.Thread(target=deliver)
        thread.start()
        request = store.wait_request(timeout=cap(10))  # woken by the callback, not the queue
        thread.join()
        assert (request.id, request.name, request.payload) == (99, "other", [1, 2])
        assert store.pending_requests() == [request]
        cancel = b'{"id":99,"cancelled":true}'
        book._trampoline(None, cancel, len(cancel))
        assert request.cancelled and store.pending_requests() == []


# ---- interpreter exit -----------------------------------------------------------------------

EXIT_CHILD = textwrap.dedent("""
    import asyncio, reducerkit
    kept = []

    async def main():
        async def slow(n):
            await asyncio.sleep(30)
            return "late"
        store = reducerkit.Store("counter", providers={"numberFact": slow})
        store.send("factButtonTapped")
        await asyncio.sleep(0.05)          # the provider's task runs
        kept.append(store)                  # never closed: the exit hook closes it

    asyncio.run(main())                     # closes the loop with the task still pending
    manual = reducerkit.Store("counter", provide=["numberFact"])
    manual.send("factButtonTapped")
    request = manual.wait_request(timeout=CAP)
    sync = reducerkit.Store("search", providers={"search": lambda q: [q]})
    sync.send({"queryChanged": "sw"})       # its request comes on a Swift thread, maybe at exit
    print("exiting", request, flush=True)
""")


def test_exit_with_requests_pending(run_python: Any) -> None:
    done = run_python(code=EXIT_CHILD.replace("CAP", repr(cap(10))))
    assert done.returncode == 0, done.stderr
    assert "exiting Request(id=1, name='numberFact', payload=0)" in done.stdout
    assert "Fatal Python error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
