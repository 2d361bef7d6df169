"""The inspector of a live store: ``store.inspect(port=0)`` or
``reducerkit.inspect.serve(store, port=0)``.

```python
store = reducerkit.Store("todos")
print(store.inspect())          # http://127.0.0.1:PORT/ : open it, then keep sending
store.send({"addTodo": {"title": "milk"}})   # appears on the open pages at once
```

A small HTTP server on loopback (a daemon thread) serves the report's page, whose data is the
state when the inspector started and the steps seen since, and streams each new step to the
open pages as Server-Sent Events (``/events``). A step is a change of the store's state as its
patch subscription reports it (an action and the actions its ``.send`` effects queue make one
step): its patch is read with ``rk_store_patch`` from the version of the previous step, so no
change is lost or counted twice. The step's kind is ``send`` when it happened on a Python
thread, ``receive`` when on one of the library's (an effect's action).

While no page is connected the store is not subscribed to and nothing runs on its account
(the server waits in ``select``): what changed meanwhile is one step, read when a page opens
or connects. The server stops when the store closes (or is collected).
"""

from __future__ import annotations

import json
import select
import socket
import threading
from collections.abc import Callable
import weakref
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from .._patch import apply_patch
from ..errors import ReducerKitError
from .page import render_html
from .report import REPORT_FORMAT, patch_since

if TYPE_CHECKING:
    from ..store import Store

__all__ = ["Inspector", "serve"]

#: Seconds between keep-alive comments on an idle event stream.
KEEPALIVE = 15.0
#: Seconds between checks, on an idle event stream, that the page is still there (its
#: socket not closed): a page that went away unsubscribes the store within this time.
CHECK_GONE = 0.5


class Inspector:
    """The server of one store's live inspector (see the module documentation). Made by
    :func:`serve`; :attr:`url` is the page, :meth:`stop` stops it (closing the store does)."""

    def __init__(self, store: Store[Any, Any], port: int, host: str) -> None:
        self._store = weakref.ref(store)
        self._feature = store.feature
        self._options: dict[str, Any] = {"clock": store.clock or "live",
                                         "provide": list(store.provide)}
        self._cond = threading.Condition()
        state, version = store._get_part(store._live_handle(), "")
        self._initial: Any = state
        self._version: int = version
        self._tail: Any = state
        self._tail_version: int = version
        self._steps: list[dict[str, Any]] = []
        self._clients = 0
        self._token: int | None = None
        self._stopped = False
        # The connections being served: stop() closes them, so that a page (or anything) that
        # keeps one open, idle or streaming, does not keep its thread after the store closes.
        self._connections: set[socket.socket] = set()
        inspector = self

        class Handler(_Handler):
            owner = inspector

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self.host = host
        self.port: int = self._server.server_address[1]
        self.url = f"http://{host}:{self.port}/"
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name=f"reducerkit-inspect-{self.port}", daemon=True)
        self._thread.start()

    # ---- the store's side ---------------------------------------------------------------

    def _catch_up_locked(self, kind: str, **extra: Any) -> None:
        """Appends the change since the last step as a step (nothing when there is none)."""
        store = self._store()
        if store is None or store.closed or self._stopped:
            return
        try:
            ops, version = patch_since(store, self._tail_version)
        except ReducerKitError:  # closed meanwhile
            return
        if not ops or version == self._tail_version:
            return
        self._tail = apply_patch(self._tail, ops)
        self._tail_version = version
        step = {"index": len(self._steps), "kind": kind, "version": version, "patch": ops,
                "live": True}
        step.update(extra)
        self._steps.append(step)
        self._cond.notify_all()

    def _on_change(self, _ops: Any, _version: int) -> None:
        # On the thread that changed the state: a Python thread (a send from Python), or one
        # of the library's (ctypes shows it as a dummy thread: an effect's action).
        foreign = isinstance(threading.current_thread(), threading._DummyThread)
        with self._cond:
            self._catch_up_locked("receive" if foreign else "send")

    def _connect(self) -> None:
        with self._cond:
            self._clients += 1
            if self._clients == 1 and self._token is None:
                store = self._store()
                if store is not None and not store.closed:
                    self._token = store.subscribe_patches(self._on_change)
            self._catch_up_locked("send", name="(changes while no page was open)")

    def _disconnect(self) -> None:
        token = None
        with self._cond:
            self._clients -= 1
            if self._clients == 0:
                token, self._token = self._token, None
        store = self._store()
        if token is not None and store is not None and not store.closed:
            # Outside the lock: unsubscribing waits for a callback that may be waiting for it.
            try:
                store.unsubscribe(token)
            except ReducerKitError:  # pragma: no cover - closed meanwhile
                pass

    def stop(self) -> None:
        """Ends the event streams and stops the server (in the background: this returns at
        once). Idempotent."""
        with self._cond:
            if self._stopped:
                return
            self._stopped = True
            self._cond.notify_all()

        def shut() -> None:
            self._server.shutdown()
            self._server.server_close()
            with self._cond:
                connections, self._connections = self._connections, set()
            for connection in connections:
                _hang_up(connection)

        threading.Thread(target=shut, name=f"reducerkit-inspect-stop-{self.port}",
                         daemon=True).start()

    def _track(self, connection: socket.socket) -> bool:
        """Keeps ``connection`` for :meth:`stop` to close; False when stopped already."""
        with self._cond:
            if self._stopped:
                return False
            self._connections.add(connection)
            return True

    def _untrack(self, connection: socket.socket) -> None:
        with self._cond:
            self._connections.discard(connection)

    @property
    def stopped(self) -> bool:
        """Whether :meth:`stop` was called (or the store closed)."""
        return self._stopped

    # ---- the page's side ----------------------------------------------------------------

    def page(self) -> str:
        with self._cond:
            if self._clients == 0:
                self._catch_up_locked("send", name="(changes while no page was open)")
            data = {"format": REPORT_FORMAT, "name": f"live: {self._feature or 'store'}",
                    "feature": self._feature, "source": self.url, "options": self._options,
                    "exhaustive": True, "initial": self._initial, "version": self._version,
                    "steps": list(self._steps), "divergence": None, "not_run": 0,
                    "error": None, "live": {"events": "/events"}}
        return render_html(data)

    def stream(self, start: int, write: Callable[[str], None],
               gone: Callable[[], bool]) -> None:
        """Writes the steps from ``start`` on as events, then each new one, until the
        inspector stops or the page goes away (``gone()``, checked every
        :data:`CHECK_GONE` seconds while idle, or ``write`` raises ``OSError``)."""
        self._connect()
        try:
            index = start
            idle = 0.0
            while True:
                with self._cond:
                    if index >= len(self._steps) and not self._stopped:
                        self._cond.wait(CHECK_GONE)
                    batch = self._steps[index:]
                    stopped = self._stopped
                chunks = [f"id: {step['index']}\nevent: step\ndata: "
                          f"{json.dumps(step, separators=(',', ':'))}\n\n" for step in batch]
                index += len(batch)
                if stopped:
                    chunks.append("event: end\ndata: {}\n\n")
                if chunks:
                    idle = 0.0
                    write("".join(chunks))
                else:
                    if gone():
                        return
                    idle += CHECK_GONE
                    if idle >= KEEPALIVE:
                        idle = 0.0
                        write(": keep-alive\n\n")
                if stopped:
                    return
        finally:
            self._disconnect()


def _hang_up(connection: socket.socket) -> None:
    """Ends both directions of ``connection``: its handler's blocked read returns at once."""
    try:
        connection.shutdown(socket.SHUT_RDWR)
    except OSError:  # closed already
        pass


class _Handler(BaseHTTPRequestHandler):
    owner: Inspector
    server_version = "reducerkit-inspect"

    def setup(self) -> None:
        super().setup()
        if not self.owner._track(self.connection):
            _hang_up(self.connection)  # the inspector stopped meanwhile

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.owner._untrack(self.connection)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # quiet: the program's own output is the user's

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        owner = self.owner
        # Loopback only, and only for pages addressed to it (not another site's DNS name).
        host = (self.headers.get("Host") or "").lower()
        if host not in (f"{owner.host}:{owner.port}", f"localhost:{owner.port}"):
            self._send(403, b"forbidden: not addressed to this inspector\n", "text/plain")
            return
        url = urlsplit(self.path)
        if url.path == "/":
            self._send(200, owner.page().encode("utf-8"), "text/html; charset=utf-8")
        elif url.path == "/events":
            start = 0
            last = self.headers.get("Last-Event-ID")
            given = parse_qs(url.query).get("from", [None])[0]
            try:
                if last is not None:
                    start = int(last) + 1
                elif given is not None:
                    start = int(given)
            except ValueError:
                self._send(400, b"bad from / Last-Event-ID\n", "text/plain")
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()

            def write(text: str) -> None:
                self.wfile.write(text.encode("utf-8"))
                self.wfile.flush()

            connection: socket.socket = self.connection

            def gone() -> bool:
                """The page closed its end (readable, and nothing to read)."""
                try:
                    readable, _, _ = select.select([connection], [], [], 0)
                    return bool(readable) and not connection.recv(1, socket.MSG_PEEK)
                except OSError:
                    return True

            try:
                owner.stream(max(0, start), write, gone)
            except OSError:  # the page went away
                pass
        else:
            self._send(404, b"not found\n", "text/plain")


def serve(store: Store[Any, Any], port: int = 0) -> str:
    """Serves the inspector page of ``store`` on 127.0.0.1 (loopback only), ``port`` (0: any
    free port), and returns its URL. A store has one inspector: calling again returns the same
    URL. It stops when the store closes.

    Raises:
        OSError: the port cannot be bound.
        StoreClosedError: the store is closed.
    """
    store._live_handle()
    existing: Inspector | None = store._inspector
    if existing is not None and not existing.stopped:
        return existing.url
    inspector = Inspector(store, port, "127.0.0.1")
    store._inspector = inspector
    store._core.on_close.append(inspector.stop)
    return inspector.url
