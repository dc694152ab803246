"""Resource control for the service: a request-body guard and a bounded pool of annotation work.

Both answer early and cheaply so that memory and latency stay bounded whatever clients send:
an oversized body is refused before it is read whole, and work beyond the pool's capacity is
refused (503) instead of queueing without end.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Callable, Optional

from logicparse.errors import Errors

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
                return await self._too_large(send, f"at least {size}")
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


@dataclass(eq=False)
class _Job:
    texts: list
    ids: list
    future: Future = field(default_factory=Future)


class WorkPool:
    """Runs annotation off the event loop on ``threads`` threads, with room for ``queue`` more
    requests waiting; a request beyond that is refused at once (Busy).

    A thread that becomes free takes every waiting request that fits in ``batch_size`` texts and
    annotates them in one ``work(texts, ids)`` call: the parser handles a batch of sentences in
    much less time than one by one, so under load requests wait less, not more.

    A request past ``timeout`` seconds is answered TimedOut. If it was still waiting it is dropped;
    if its batch had started, the batch runs to the end and keeps its slots until then, so that
    abandoned work still counts against the bound.
    """

    def __init__(self, work: Callable[[list, list], list], threads: int = 1, queue: int = 16,
                 timeout: float = 30.0, batch_size: int = 16):
        self.work = work
        self.threads = threads
        self.capacity = threads + queue
        self.timeout = timeout
        self.batch_size = batch_size
        self._jobs: deque[_Job] = deque()
        self._cond = threading.Condition()
        self._pending = 0  # admitted and not finished: waiting or running
        self._workers: list[threading.Thread] = []
        self._closed = False

    @property
    def pending(self) -> int:
        return self._pending

    async def run(self, texts: list, ids: list) -> list:
        job = _Job(texts, ids)
        with self._cond:
            if self._closed:
                raise RuntimeError("the work pool is shut down")
            if self._pending >= self.capacity:
                raise Busy(self._pending)
            self._pending += 1
            self._jobs.append(job)
            if len(self._workers) < self.threads:  # threads start on first use
                t = threading.Thread(target=self._loop, daemon=True,
                                     name=f"logicparse-annotate-{len(self._workers)}")
                self._workers.append(t)
                t.start()
            self._cond.notify()
        try:
            return await asyncio.wait_for(asyncio.wrap_future(job.future), self.timeout)
        except asyncio.TimeoutError:
            with self._cond:
                if job in self._jobs:  # never started: drop it and free its slot now
                    self._jobs.remove(job)
                    self._pending -= 1
                    job.future.cancel()
            raise TimedOut(self.timeout) from None

    def _take(self) -> Optional[list[_Job]]:
        with self._cond:
            while not self._jobs and not self._closed:
                self._cond.wait()
            if self._closed:
                return None
            batch, n = [], 0
            while self._jobs and (not batch or n + len(self._jobs[0].texts) <= self.batch_size):
                job = self._jobs.popleft()
                if job.future.set_running_or_notify_cancel():
                    batch.append(job)
                    n += len(job.texts)
                else:
                    self._pending -= 1
            return batch

    def _loop(self) -> None:
        while True:
            batch = self._take()
            if batch is None:
                return
            if not batch:
                continue
            try:
                docs = self.work([t for j in batch for t in j.texts], [i for j in batch for i in j.ids])
                start = 0
                for job in batch:
                    job.future.set_result(docs[start:start + len(job.texts)])
                    start += len(job.texts)
            except BaseException as e:  # noqa: BLE001 - handed to the waiting requests
                for job in batch:
                    if not job.future.done():
                        job.future.set_exception(e)
            finally:
                with self._cond:
                    self._pending -= len(batch)

    def shutdown(self) -> None:
        with self._cond:
            self._closed = True
            for job in self._jobs:
                job.future.cancel()
            self._pending -= len(self._jobs)
            self._jobs.clear()
            self._cond.notify_all()
