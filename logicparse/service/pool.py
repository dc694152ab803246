"""A bounded pool of annotation work for the service.

It answers early and cheaply so that latency stays bounded whatever clients send: work the pool
could not finish within its time limit is refused (503) instead of queueing. Work runs in steps
(chunks of parser work, see ``Annotator.pipe_steps``), so that a long request neither holds the
thread from the small requests that arrive after it nor keeps running once its deadline has
passed; small requests that arrive together are annotated together.
"""

from __future__ import annotations

import asyncio
import bisect
import itertools
import math
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from types import GeneratorType
from typing import Callable, Optional

from logicparse.errors import Errors

from .errors import Busy, ShuttingDown, TimedOut

__all__ = ["Busy", "TimedOut", "WorkPool"]

# Seconds of work per character of text before the pool has measured its own: the largest
# request measured (100,000 characters in 21.8 s, docs/service.md), so that a fresh service
# admits too little rather than too much.
COST_PER_CHAR = 2.2e-4
LEARN_CHARS = 2_000  # a smaller batch's time is mostly its fixed cost, not its text's
# Concurrency older than this many gathering windows (100 ms for a 5 ms window) is not waited
# for: a client left alone after a burst stops waiting within 20 windows.
RECENT_WINDOWS = 20


@dataclass(eq=False)
class _Job:
    texts: list
    ids: list
    deadline: float
    cost: float = 0.0  # estimated seconds of work
    arrived: float = 0.0
    future: Future = field(default_factory=Future)
    batch: Optional["_Batch"] = None  # once started

    def remaining(self) -> float:
        """Estimated seconds of work left: its share of its batch's estimate not yet worked."""
        b = self.batch
        if b is None:
            return self.cost
        return max(0.0, self.cost - b.work * self.cost / b.cost) if b.cost else 0.0


def _chars(job: _Job) -> int:
    return sum(len(t) for t in job.texts if isinstance(t, str))


@dataclass(eq=False)
class _Batch:
    jobs: list
    seq: int  # the order batches were started in: past their first turn, they run in it
    steps: object = None  # a generator of work steps
    turn: float = 0.0  # seconds of work in its first turn
    work: float = 0.0  # seconds of work so far

    @property
    def cost(self) -> float:
        return sum(j.cost for j in self.jobs)


class WorkPool:
    """Runs annotation off the event loop on ``threads`` threads, ``threads + queue`` requests at
    most. ``work(texts, ids)`` returns the results, or a generator that yields between steps of
    the work and returns them (``Annotator.pipe_steps``). A free thread takes every waiting
    request that fits in ``batch_size`` texts and annotates them in one ``work`` call.

    Gathering: a batch of small requests is cheaper per text than the same requests one by one
    (the network's fixed cost per call is shared), so when more requests were in flight at once
    lately than are waiting now, small ones wait up to ``gather_s`` (from the first one's
    arrival) for the others to arrive. A lone client does not wait: with one request in flight
    at a time there is no one to wait for (after a burst, for at most ``RECENT_WINDOWS``
    windows). ``gather_s=0`` starts every request at once.

    Admission finishes what it admits: a request's work is estimated from its characters
    (``cost_per_char``, measured on the work done), and it is refused at once (Busy, saying when
    it would be admitted) unless it would end within ``admit_share`` of its time limit without
    pushing a request admitted before it past its deadline. The rest of the limit is room for
    small requests and for estimates that fall short.

    First come first served, but for small requests (estimated at one turn, ``slice_s``, or
    less): between any two steps a busy thread takes those waiting, as a new batch that goes
    first, so that a one-sentence request waits for the step in progress only. A long request
    waits for a free thread, and past its first turn a batch waits for those started before it
    (shared evenly, enough long requests were all late).

    A request past ``timeout`` seconds is answered TimedOut: dropped at once if it was waiting;
    if it had started, its batch is closed before its next step once every request in it is past
    its deadline (a thread cannot be stopped from outside: work that is not stepped runs on).
    """

    def __init__(self, work: Callable[[list, list], object], threads: int = 1, queue: int = 16,
                 timeout: float = 30.0, batch_size: int = 16, retry_after: int = 1,
                 slice_s: float = 0.25, batch_chars: int = 20_000,
                 cost_per_char: float = COST_PER_CHAR, admit_share: float = 0.9,
                 gather_s: float = 0.0):
        self.work = work
        self.threads = threads
        self.capacity = threads + queue
        self.timeout = timeout
        self.batch_size = batch_size
        self.retry_after = retry_after
        self.slice_s = slice_s
        self.batch_chars = batch_chars
        self.cost_per_char = cost_per_char
        self.admit_share = admit_share
        self.gather_s = gather_s
        # (arrival, requests then in flight) of the latest arrivals: how many to gather for.
        self._in_flight: deque[tuple[float, int]] = deque(maxlen=max(1, batch_size))
        self._jobs: deque[_Job] = deque()
        self._cond = threading.Condition()
        self._admitted: dict[_Job, None] = {}  # waiting or running, in arrival order
        self._workers: list[threading.Thread] = []
        self._closed = False
        self._seq = itertools.count()
        self.abandoned = 0  # batches closed past their deadline

    @property
    def pending(self) -> int:
        return len(self._admitted)

    async def run(self, texts: list, ids: list) -> list:
        with self._cond:
            if self._closed:
                raise self._shut_down()
            now = time.monotonic()
            job = _Job(texts, ids, now + self.timeout,
                       self.cost_per_char * sum(len(t) for t in texts if isinstance(t, str)), now)
            self._admit(job, now)
            self._admitted[job] = None
            self._in_flight.append((now, len(self._admitted)))
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
                    self._admitted.pop(job, None)
                    job.future.cancel()
            raise TimedOut(Errors.E410.format(timeout=self.timeout)) from None

    def _small(self, job: _Job) -> bool:
        return job.cost <= self.slice_s

    def _admit(self, job: _Job, now: float) -> None:
        """Raises Busy unless ``job`` can be admitted (called with the lock held)."""
        full = len(self._admitted) >= self.capacity
        wait = 0.0 if full else self._wait(job, now)
        if not full and wait <= 0:
            return
        retry = max(self.retry_after, math.ceil(wait))
        raise Busy(Errors.E409.format(
            pending=len(self._admitted), capacity=self.capacity, timeout=self.timeout,
            work=sum(j.remaining() for j in self._admitted), retry=retry), {"Retry-After": retry})

    def _wait(self, job: _Job, now: float) -> float:
        """Seconds until ``job`` would be admitted if no other came; 0: now. The work admitted is
        projected in the order it is served: the small requests waiting, the batches started
        (oldest first), the long requests waiting. A small ``job`` goes before all but the
        first: none of those that would end in time may be pushed past its deadline. A long one
        goes last and must end within ``admit_share`` of its limit, or, if its estimate alone is
        longer, wait until no more than a turn of work is ahead of it."""
        def rank(j: _Job) -> int:
            return 1 if j.batch is not None else 0 if self._small(j) else 2

        small, ahead, wait = self._small(job), 0.0, 0.0
        for j in sorted(self._admitted, key=rank):  # stable: in arrival order within a rank
            end = now + ahead / self.threads + j.remaining()
            ahead += j.remaining()
            if small and rank(j) and end <= j.deadline < end + job.cost:
                wait = max(wait, end - now)  # once j has ended, job delays it no more
        if small:
            return wait
        limit = max(self.admit_share * self.timeout, job.cost + self.slice_s)
        return ahead / self.threads + job.cost - limit

    def _gathering(self, now: float) -> float:
        """Seconds the waiting requests should wait for others before they start; 0: now
        (called with the lock held). Only small requests wait, at most ``gather_s`` from the
        first one's arrival (and never past its deadline), until a batch's worth of text is
        waiting or as many requests as were in flight at once lately (among the latest
        arrivals, within ``RECENT_WINDOWS`` windows) less those already started."""
        if self.gather_s <= 0 or not all(self._small(j) for j in self._jobs):
            return 0.0
        first = self._jobs[0]
        left = min(first.arrived + self.gather_s, first.deadline) - now
        if left <= 0 or sum(len(j.texts) for j in self._jobs) >= self.batch_size \
                or sum(_chars(j) for j in self._jobs) >= self.batch_chars:
            return 0.0
        since = now - RECENT_WINDOWS * self.gather_s
        lately = max((n for t, n in self._in_flight if t >= since), default=1)
        started = len(self._admitted) - len(self._jobs)
        return left if len(self._jobs) < min(self.batch_size, lately) - started else 0.0

    def _take(self, busy: bool) -> list[_Job]:
        """Waiting jobs that fit in one batch, in arrival order: at most ``batch_size`` texts and,
        unless the first is larger, ``batch_chars`` characters; only small ones for a ``busy``
        thread (called with the lock held). Long requests go in batches of their own: a batch's
        first step segments all its texts, and a request that arrives meanwhile waits for it."""
        batch, n, chars, left, full = [], 0, 0, deque(), False
        for job in self._jobs:
            if full or (busy and not self._small(job)):
                left.append(job)
            elif batch and (n + len(job.texts) > self.batch_size
                            or chars + _chars(job) > self.batch_chars):
                full = True
                left.append(job)
            elif job.future.set_running_or_notify_cancel():
                batch.append(job)
                n += len(job.texts)
                chars += _chars(job)
            else:
                self._admitted.pop(job, None)
        self._jobs = left
        return batch

    def _loop(self) -> None:
        fresh: deque[_Batch] = deque()  # in their first turn, the latest first
        started: list[_Batch] = []  # past it, in the order they were started
        while True:
            with self._cond:
                while not self._closed:
                    busy = bool(fresh or started)
                    gather = self._gathering(time.monotonic()) if self._jobs else 0.0
                    if busy or (self._jobs and gather <= 0):
                        break
                    self._cond.wait(gather or None)
                if self._closed:
                    for b in (*fresh, *started):
                        self._end(b, error=self._shut_down())
                    return
                # Between every step: a small request never waits for more than the step in
                # progress (and its gathering), however many requests are in flight.
                jobs = self._take(busy) if self._jobs and gather <= 0 else []
                batch = _Batch(jobs, next(self._seq)) if jobs else None
                for j in jobs:
                    j.batch = batch  # under the lock: admission reads it
            if jobs:
                t0 = time.monotonic()
                try:
                    batch.steps = self.work([t for j in jobs for t in j.texts],
                                            [i for j in jobs for i in j.ids])
                except BaseException as e:  # noqa: BLE001 - handed to the waiting requests
                    self._end(batch, error=e)
                    continue
                batch.work += time.monotonic() - t0
                if not isinstance(batch.steps, GeneratorType):  # plain work: done already
                    self._learn(batch, finished=True)
                    self._end(batch, result=batch.steps)
                    continue
                fresh.appendleft(batch)
            if fresh or started:
                self._step(fresh, started)

    def _step(self, fresh: deque, started: list) -> None:
        first_turn = bool(fresh)
        batch = fresh.popleft() if first_turn else started.pop(0)
        if time.monotonic() > max(j.deadline for j in batch.jobs):
            batch.steps.close()  # between two steps: nothing is left half done
            self.abandoned += 1
            self._learn(batch, finished=False)
            self._end(batch, error=TimedOut(Errors.E410.format(timeout=self.timeout)))
            return
        t0 = time.monotonic()
        try:
            next(batch.steps)
        except StopIteration as done:
            batch.work += time.monotonic() - t0
            self._learn(batch, finished=True)
            return self._end(batch, result=done.value)
        except BaseException as e:  # noqa: BLE001 - handed to the waiting requests
            return self._end(batch, error=e)
        took = time.monotonic() - t0
        batch.work += took
        batch.turn += took if first_turn else 0.0
        if not first_turn:
            started.insert(0, batch)  # the oldest goes on to its end
        elif batch.turn <= self.slice_s:
            fresh.appendleft(batch)  # its turn goes on
        else:
            bisect.insort(started, batch, key=lambda b: b.seq)

    def _learn(self, batch: _Batch, finished: bool) -> None:
        """Moves ``cost_per_char`` towards the batch's measured rate, by a weight that grows
        with its size. A batch closed at its deadline shows only a lower bound: it counts if it
        is above the rate."""
        chars = sum(_chars(j) for j in batch.jobs)
        if chars < LEARN_CHARS:
            return
        rate = batch.work / chars
        if finished or rate > self.cost_per_char:
            self.cost_per_char += (rate - self.cost_per_char) * chars / (chars + 50_000)

    def _end(self, batch: _Batch, result: Optional[list] = None,
             error: Optional[BaseException] = None) -> None:
        # The slots come back before the answers go out: a client that sends its next request
        # the moment it has its answer must find its slot free.
        with self._cond:
            for job in batch.jobs:
                self._admitted.pop(job, None)
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
                self._admitted.pop(job, None)
            self._jobs.clear()
            self._cond.notify_all()
