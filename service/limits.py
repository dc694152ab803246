"""Resource control for the service: a request-body guard and a bounded pool of annotation work.

Both answer early and cheaply so that memory and latency stay bounded whatever clients send:
an oversized body is refused before it is read whole, and work beyond the pool's capacity is
refused (503) instead of queueing without end.
"""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Optional, TypeVar

from logicparse.errors import Errors

T = TypeVar("T")

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


async def _send_json(send, status: int, code: str, detail: str, headers=()) -> None:
    body = json.dumps({"detail": detail, "code": code}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"), *headers]})
    await send({"type": "http.response.body", "body": body})


class BodyGuard:
    """ASGI middleware: 413 for a body over ``limit`` bytes, judged by Content-Length before any
    byte is read, or by counting the stream when the length is not declared (chunked); 400 for a
    body that is not UTF-8. The checked body is then replayed to the app, which parses it."""

    def __init__(self, app, limit: int, max_chars: int):
        self.app = app
        self.limit = limit
        self.max_chars = max_chars

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in _BODY_METHODS:
            return await self.app(scope, receive, send)
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                size = int(declared)
                if size < 0:
                    raise ValueError
            except ValueError:
                return await _send_json(send, 400, "E405", Errors.E405.format(
                    value=declared.decode("latin-1")))
            if size > self.limit:
                return await self._too_large(send, size)

        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                return await self._too_large(send, f"more than {size}")
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as e:
            return await _send_json(send, 400, "E404", Errors.E404.format(pos=e.start, reason=e.reason))

        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)

    async def _too_large(self, send, size) -> None:
        await _send_json(send, 413, "E401", Errors.E401.format(
            size=size, limit=self.limit, max_chars=self.max_chars))


class Busy(Exception):
    """The pool is at capacity (503)."""


class TimedOut(Exception):
    """A request ran past the time limit (504)."""


class WorkPool:
    """Runs annotation off the event loop on ``threads`` threads, with room for ``queue`` more
    requests waiting. A request beyond that is refused at once (Busy). A request past ``timeout``
    seconds is answered TimedOut; if it already started, its slot stays taken until its thread
    finishes, so that abandoned work still counts against the bound."""

    def __init__(self, threads: int, queue: int, timeout: float):
        self.threads = threads
        self.capacity = threads + queue
        self.timeout = timeout
        self._pending = 0
        self._lock = threading.Lock()  # the done-callbacks run on worker threads
        self._executor: Optional[ThreadPoolExecutor] = ThreadPoolExecutor(
            threads, thread_name_prefix="logicparse-annotate")

    @property
    def pending(self) -> int:
        return self._pending

    def _release(self, _future) -> None:
        with self._lock:
            self._pending -= 1

    async def run(self, fn: Callable[..., T], *args) -> T:
        with self._lock:
            if self._pending >= self.capacity:
                raise Busy(self._pending)
            self._pending += 1
        try:
            future = self._executor.submit(fn, *args)
        except BaseException:
            self._release(None)
            raise
        future.add_done_callback(self._release)
        try:
            # wait_for cancels the wrapper on timeout, which cancels work still queued.
            return await asyncio.wait_for(asyncio.wrap_future(future), self.timeout)
        except asyncio.TimeoutError:
            raise TimedOut(self.timeout) from None

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
