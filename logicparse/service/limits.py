"""Resource control for the service: a request-body guard and a bounded pool of annotation work.

Both answer early and cheaply so that memory and latency stay bounded whatever clients send:
an oversized or stalled body is refused before it is read whole, and work beyond the pool's
capacity is refused (503) instead of queueing without end. Work runs in steps (chunks of parser
work, see ``Annotator.pipe_steps``), so that a long request neither holds the thread from the
requests that arrive after it nor keeps running once its deadline has passed.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from types import GeneratorType
from typing import Callable, Optional

from logicparse.errors import Errors

from .errors import BadRequest, Busy, ShuttingDown, SlowClient, TimedOut, TooLarge, send_error

__all__ = ["BodyGuard", "Busy", "TimedOut", "WorkPool"]

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class BodyGuard:
    """ASGI middleware for requests with a body.

    * 503 when ``max_bodies`` requests with a body are already in progress (the memory of
      bodies and answers in flight stays bounded; GET requests such as /healthz never wait);
    * 413 for a body over ``limit`` bytes, judged by Content-Length before any byte is read, or
      by counting the stream when the length is not declared (chunked);
    * 408 when the whole body has not arrived ``read_timeout`` seconds after the headers (a
      stalled client is disconnected instead of holding its slot);
    * 400 for a body that is not UTF-8.

    The checked body is then replayed to the app, which parses it."""

    def __init__(self, app, limit: int, max_chars: int, read_timeout: float = 10.0,
                 max_bodies: int = 512, retry_after: int = 1):
        self.app = app
        self.limit = limit
        self.max_chars = max_chars
        self.read_timeout = read_timeout
        self.max_bodies = max_bodies
        self.retry_after = retry_after
        self.in_progress = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in _BODY_METHODS:
            return await self.app(scope, receive, send)
        if self.in_progress >= self.max_bodies:
            return await send_error(send, Busy(
                Errors.E417.format(n=self.in_progress, retry=self.retry_after),
                {"Retry-After": self.retry_after}))
        self.in_progress += 1
        try:
            return await self._guarded(scope, receive, send)
        finally:
            self.in_progress -= 1

    async def _guarded(self, scope, receive, send):
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                size = int(declared)
                if size < 0:
                    raise ValueError
            except ValueError:
                return await send_error(send, BadRequest(Errors.E405.format(
                    value=declared.decode("latin-1"))))
            if size > self.limit:
                return await send_error(send, self._too_large(size))
        try:
            body = await asyncio.wait_for(self._read(receive), self.read_timeout)
        except asyncio.TimeoutError:
            return await send_error(send, SlowClient(Errors.E416.format(
                part="body", timeout=self.read_timeout)))
        except TooLarge as e:
            return await send_error(send, e)
        if body is None:  # the client went away
            return
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as e:
            return await send_error(send, BadRequest(Errors.E404.format(pos=e.start,
                                                                        reason=e.reason)))
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)

    async def _read(self, receive) -> Optional[bytes]:
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                raise self._too_large(f"at least {size}")
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _too_large(self, size) -> TooLarge:
        return TooLarge(Errors.E401.format(size=size, limit=self.limit, max_chars=self.max_chars))


@dataclass(eq=False)
class _Job:
    texts: list
    ids: list
    deadline: float
    future: Future = field(default_factory=Future)


def _chars(job: _Job) -> int:
    return sum(len(t) for t in job.texts if isinstance(t, str))


@dataclass(eq=False)
class _Batch:
    jobs: list
    steps: object = None  # a generator of work steps
    turn: float = 0.0  # seconds of work in its current turn


class WorkPool:
    """Runs annotation off the event loop on ``threads`` threads, with room for ``queue`` more
    requests waiting; a request beyond that is refused at once (Busy).

    ``work(texts, ids)`` returns the results, or a generator that yields between steps of the
    work and returns them (``Annotator.pipe_steps``). A thread that becomes free takes every
    waiting request that fits in ``batch_size`` texts and annotates them in one ``work`` call:
    the parser handles a batch of sentences in much less time than one by one.

    Stepped work is interleaved: between any two steps, the requests waiting start as a new
    batch, which goes first; the batches already started take turns of steps worth ``slice_s``
    seconds. So a one-sentence request waits for at most the step in progress (a chunk of
    parsing, about a second), however many long requests are in flight.

    A request past ``timeout`` seconds is answered TimedOut. If it was still waiting it is dropped
    at once; if it had started, its batch is closed before its next step once every request in it
    is past its deadline, and the slots come back then. (A thread cannot be stopped from outside:
    work that is not stepped runs to its end, and keeps its slots until then.)
    """

    def __init__(self, work: Callable[[list, list], object], threads: int = 1, queue: int = 16,
                 timeout: float = 30.0, batch_size: int = 16, retry_after: int = 1,
                 slice_s: float = 0.25, batch_chars: int = 20_000):
        self.work = work
        self.threads = threads
        self.capacity = threads + queue
        self.timeout = timeout
        self.batch_size = batch_size
        self.retry_after = retry_after
        self.slice_s = slice_s
        self.batch_chars = batch_chars
        self._jobs: deque[_Job] = deque()
        self._cond = threading.Condition()
        self._pending = 0  # admitted and not finished: waiting or running
        self._workers: list[threading.Thread] = []
        self._closed = False
        self.abandoned = 0  # batches closed past their deadline

    @property
    def pending(self) -> int:
        return self._pending

    async def run(self, texts: list, ids: list) -> list:
        job = _Job(texts, ids, time.monotonic() + self.timeout)
        with self._cond:
            if self._closed:
                raise self._shut_down()
            if self._pending >= self.capacity:
                raise Busy(Errors.E409.format(pending=self._pending, capacity=self.capacity,
                                              retry=self.retry_after),
                           {"Retry-After": self.retry_after})
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
            raise TimedOut(Errors.E410.format(timeout=self.timeout)) from None

    def _take(self) -> list[_Job]:
        """Waiting jobs that fit in one batch: at most ``batch_size`` texts and, unless the
        first is larger, ``batch_chars`` characters (called with the lock held). Long requests
        go in batches of their own: a batch's first step segments all its texts, and a request
        that arrives meanwhile waits for that step."""
        batch, n, chars = [], 0, 0
        while self._jobs and (not batch or (
                n + len(self._jobs[0].texts) <= self.batch_size
                and chars + _chars(self._jobs[0]) <= self.batch_chars)):
            job = self._jobs.popleft()
            if job.future.set_running_or_notify_cancel():
                batch.append(job)
                n += len(job.texts)
                chars += _chars(job)
            else:
                self._pending -= 1
        return batch

    def _loop(self) -> None:
        active: deque[_Batch] = deque()  # this thread's batches, in turn order
        while True:
            with self._cond:
                while not self._jobs and not active and not self._closed:
                    self._cond.wait()
                if self._closed:
                    for b in active:
                        self._end(b, error=self._shut_down())
                    return
                # Between every step, whatever the number of batches in turn: a request never
                # waits for more than the step in progress.
                jobs = self._take() if self._jobs else []
            if jobs:
                batch = _Batch(jobs)
                try:
                    batch.steps = self.work([t for j in jobs for t in j.texts],
                                            [i for j in jobs for i in j.ids])
                except BaseException as e:  # noqa: BLE001 - handed to the waiting requests
                    self._end(batch, error=e)
                    continue
                if not isinstance(batch.steps, GeneratorType):  # plain work: done already
                    self._end(batch, result=batch.steps)
                    continue
                active.appendleft(batch)
            if active:
                self._step(active)

    def _step(self, active: deque) -> None:
        batch = active.popleft()
        if time.monotonic() > max(j.deadline for j in batch.jobs):
            batch.steps.close()  # between two steps: nothing is left half done
            self.abandoned += 1
            self._end(batch, error=TimedOut(Errors.E410.format(timeout=self.timeout)))
            return
        t0 = time.monotonic()
        try:
            next(batch.steps)
        except StopIteration as done:
            self._end(batch, result=done.value)
        except BaseException as e:  # noqa: BLE001 - handed to the waiting requests
            self._end(batch, error=e)
        else:
            batch.turn += time.monotonic() - t0
            if batch.turn <= self.slice_s or not active:
                active.appendleft(batch)  # its turn goes on
            else:
                batch.turn = 0.0  # its turn ends: the next batch's begins
                active.append(batch)

    def _end(self, batch: _Batch, result: Optional[list] = None,
             error: Optional[BaseException] = None) -> None:
        # The slots come back before the answers go out: a client that sends its next request
        # the moment it has its answer must find its slot free.
        with self._cond:
            self._pending -= len(batch.jobs)
        start = 0
        for job in batch.jobs:
            part = None if result is None else result[start:start + len(job.texts)]
            start += len(job.texts)
            if job.future.done():
                continue
            if error is not None:
                job.future.set_exception(error)
            else:
                job.future.set_result(part)

    def _shut_down(self) -> ShuttingDown:
        return ShuttingDown(Errors.E427.format(retry=self.retry_after), {"Retry-After": self.retry_after})

    def shutdown(self) -> None:
        with self._cond:
            self._closed = True
            for job in self._jobs:  # never started: answered now, the client may send it again
                job.future.set_exception(self._shut_down())
            self._pending -= len(self._jobs)
            self._jobs.clear()
            self._cond.notify_all()
