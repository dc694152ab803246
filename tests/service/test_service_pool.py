"""The service's work pool: capacity (503), deadlines (504), batching and turns between requests.

Nothing here depends on how fast the machine is. Time is a clock the test moves: the event loop
and the pool both read it, so a deadline passes when the test says so, never because a busy
machine was slow. Work waits at gates (events) or for step tokens the test hands out, and the
test waits for what the pool's thread has done by polling with a deadline.
"""

from __future__ import annotations

import asyncio
import threading
import time
from types import SimpleNamespace

import httpx
import pyarrow as pa
import pytest

from logicparse.service import Settings, create_app, pool as pool_module
from logicparse.service.pool import Busy, TimedOut, WorkPool
from logicparse.tokens.document import ARROW_SCHEMA, Document
from test_service_threads import post_at_once

EXAMPLE = "But I try very hard not to go that way because it would be too easy for them."
TWO_SENTENCES = "If it rains, we stay home. We did not go out because it was raining."


def arrow_row(doc: Document) -> dict:
    return pa.Table.from_pylist([doc.to_dict()], schema=ARROW_SCHEMA).to_pylist()[0]


class Clock:
    """Seconds that pass only when ``advance`` is called (from the test or from a work step)."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class ClockLoop(asyncio.SelectorEventLoop):
    """An event loop whose timers (``asyncio.wait_for``'s among them) follow a Clock."""

    def __init__(self, clock: Clock):
        super().__init__()
        self._test_clock = clock

    def time(self) -> float:
        return self._test_clock()


@pytest.fixture
def clocked(monkeypatch):
    """``run(coroutine)`` on a ClockLoop, with the pool's own clock the same Clock."""
    clock = Clock()
    monkeypatch.setattr(pool_module, "time", SimpleNamespace(monotonic=clock))

    def run(coroutine):
        with asyncio.Runner(loop_factory=lambda: ClockLoop(clock)) as runner:
            return runner.run(coroutine)

    return SimpleNamespace(clock=clock, run=run)


async def until(condition, what: str, limit: float = 60.0) -> None:
    """Waits (real seconds, at most ``limit``) for something the pool's thread does."""
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"not within {limit} s: {what}"
        await asyncio.sleep(0)  # lets the loop take answers handed over by the thread
        time.sleep(0.002)


class GatedWork:
    """A work function that records its calls and waits at a gate before answering."""

    def __init__(self):
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.calls: list[list[str]] = []
        self.ids: list[list[str]] = []

    def __call__(self, texts, ids):
        self.calls.append(list(texts))
        self.ids.append(list(ids))
        self.entered.set()
        assert self.gate.wait(60)
        return [f"{i}:{t}" for t, i in zip(texts, ids)]


class Steps:
    """Stepped work whose steps run one per token handed out by the test; each step takes
    ``seconds`` on the clock. The log records every step and every end."""

    def __init__(self, clock: Clock, seconds: float = 0.25):
        self.clock = clock
        self.seconds = seconds
        self.tokens = threading.Semaphore(0)
        self.log: list[str] = []

    def give(self, n: int = 1) -> None:
        self.tokens.release(n)

    def work(self, n: int, name: str):
        try:
            for _ in range(n):
                yield
                assert self.tokens.acquire(timeout=60), f"{name}: no token within 60 s"
                self.clock.advance(self.seconds)
                self.log.append(name)
            return [name]
        finally:
            self.log.append(f"{name}:end")

    def held(self, long_steps: int):
        """A work function whose first request, ``hold``, keeps the thread until the event is
        set (so that the others wait together); ``long…`` requests then take ``long_steps``
        stepped turns, any other one a single free step."""
        hold = threading.Event()

        def work(texts, ids):
            if texts == ["hold"]:
                assert hold.wait(60)
                return ["hold"]
            name = texts[0]
            return self.work(long_steps, name) if name.startswith("long") else self.free(1, name)
        return hold, work

    def free(self, n: int, name: str):
        """Steps that need no token (a short request)."""
        try:
            for _ in range(n):
                yield
                self.log.append(name)
            return [name]
        finally:
            self.log.append(f"{name}:end")


async def admitted(pool: WorkPool, n: int) -> None:
    """Lets requests just handed to the loop reach the pool (admission happens on the loop)."""
    for _ in range(100):
        if pool.pending >= n:
            return
        await asyncio.sleep(0)
    assert pool.pending >= n, pool.pending


# --- capacity and deadlines ------------------------------------------------------------------

class Gated:
    """The real annotator behind a gate: pipe() waits until the test opens it."""

    def __init__(self, inner):
        self.inner = inner
        self.parser = inner.parser
        self.senses = inner.senses
        self.gate = threading.Event()
        self.entered = threading.Event()

    def pipe(self, texts, **kw):
        self.entered.set()
        assert self.gate.wait(60)
        return self.inner.pipe(texts, **kw)


def test_busy_is_503_with_retry_after_and_slow_is_504(lexicon_annotator, clocked):
    gated = Gated(lexicon_annotator)
    app = create_app(Settings(senses=None, threads=1, queue=0, timeout=0.2, retry_after=3),
                     annotator=gated)

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            first = asyncio.ensure_future(c.post("/v1/annotate", json={"text": EXAMPLE}))
            await until(gated.entered.is_set, "the annotator is called")
            clocked.clock.advance(1)
            r = await first
            assert r.status_code == 504 and r.json()["code"] == "E410"
            # The timed-out request still holds the only thread: the next one is refused at once.
            r = await c.post("/v1/annotate", json={"text": EXAMPLE})
            assert r.status_code == 503 and r.json()["code"] == "E409"
            assert r.headers["retry-after"] == "3"
            assert (await c.get("/readyz")).json()["pending"] == 1
            gated.gate.set()
            await until(lambda: app.state.pool.pending == 0, "the thread is freed")
            r = await c.post("/v1/annotate", json={"text": EXAMPLE})
            assert r.status_code == 200 and r.json()["relations"]

    try:
        clocked.run(scenario())
    finally:
        gated.gate.set()
        app.state.pool.shutdown()


def test_pool_bounds_waiting_work_and_cancels_what_timed_out_in_the_queue(clocked):
    work = GatedWork()

    async def scenario():
        pool = WorkPool(work, threads=1, queue=1, timeout=0.2)
        running = asyncio.ensure_future(pool.run(["a"], ["0"]))
        await until(work.entered.is_set, "the thread takes the first request")
        queued = asyncio.ensure_future(pool.run(["b"], ["1"]))
        await admitted(pool, 2)
        assert pool.pending == 2
        with pytest.raises(Busy):
            await pool.run(["c"], ["2"])
        clocked.clock.advance(1)
        for f in (running, queued):
            with pytest.raises(TimedOut):
                await f
        # The waiting request was dropped at once; the running one keeps its slot until done.
        assert pool.pending == 1
        work.gate.set()
        await until(lambda: pool.pending == 0, "the running request's slot comes back")
        assert work.calls == [["a"]]  # "b" never ran
        pool.timeout = 5
        assert await pool.run(["d"], ["x"]) == ["x:d"]
        pool.shutdown()

    clocked.run(scenario())


def test_pool_stops_stepped_work_past_its_deadline_and_frees_its_slot(clocked):
    steps = Steps(clocked.clock, seconds=0.02)

    async def scenario():
        pool = WorkPool(lambda texts, ids: steps.work(200, "long"), threads=1, queue=0,
                        timeout=0.3)
        job = asyncio.ensure_future(pool.run(["long"], ["0"]))
        steps.give()
        await until(lambda: steps.log == ["long"], "the first step")
        clocked.clock.advance(1)  # past the deadline while the second step waits for its token
        with pytest.raises(TimedOut):
            await job
        assert pool.pending == 1  # started work keeps its slot until its next step
        steps.give()  # the step in progress ends; the thread closes the work before the next
        await until(lambda: pool.pending == 0, "the slot comes back")
        abandoned = pool.abandoned
        pool.shutdown()
        return abandoned

    assert clocked.run(scenario()) == 1
    assert steps.log == ["long", "long", "long:end"]  # stopped, not run to its end


# --- batches and turns -----------------------------------------------------------------------

def test_pool_batches_waiting_requests_and_answers_each_its_own():
    work = GatedWork()

    async def scenario():
        pool = WorkPool(work, threads=1, queue=8, timeout=30, batch_size=4)
        first = asyncio.ensure_future(pool.run(["a"], ["0"]))
        await until(work.entered.is_set, "the thread is held at the gate with ['a']")
        waiting = [asyncio.ensure_future(pool.run(texts, [f"{t}-id" for t in texts]))
                   for texts in (["b", "c"], ["d"], ["e", "f"])]
        await admitted(pool, 4)
        work.gate.set()
        results = await asyncio.gather(first, *waiting)
        pool.shutdown()
        return results

    results = asyncio.run(scenario())
    assert results == [["0:a"], ["b-id:b", "c-id:c"], ["d-id:d"], ["e-id:e", "f-id:f"]]
    # Waiting requests were joined up to batch_size texts, in arrival order, never split.
    assert work.calls == [["a"], ["b", "c", "d"], ["e", "f"]]


def test_pool_puts_long_requests_in_batches_of_their_own():
    work = GatedWork()

    async def scenario():
        pool = WorkPool(work, threads=1, queue=8, timeout=30, batch_size=16, batch_chars=100)
        first = asyncio.ensure_future(pool.run(["x"], ["first"]))  # holds the thread
        await until(work.entered.is_set, "the thread is held at the gate")
        rest = [asyncio.ensure_future(pool.run([text], [name])) for name, text in (
            ("long1", "a " * 60), ("long2", "a " * 60), ("s1", "Short."), ("s2", "Short."))]
        await admitted(pool, 5)
        work.gate.set()
        await asyncio.gather(first, *rest)
        pool.shutdown()

    asyncio.run(scenario())
    # Short requests are batched as before; a long one (over batch_chars) goes alone.
    assert work.ids == [["first"], ["long1"], ["long2"], ["s1", "s2"]]


def test_pool_interleaves_a_short_request_with_a_long_one(clocked):
    """A one-step request arriving while a 60-step one runs is answered after the step in
    progress: the thread takes turns instead of finishing the long work first."""
    steps = Steps(clocked.clock)

    def work(texts, ids):
        return steps.work(60, "long") if texts == ["long"] else steps.free(1, "short")

    async def scenario():
        pool = WorkPool(work, threads=1, queue=4, timeout=1000, slice_s=0.5)
        long = asyncio.ensure_future(pool.run(["long"], ["0"]))
        steps.give()
        await until(lambda: "long" in steps.log, "the long request's first step")
        short = asyncio.ensure_future(pool.run(["short"], ["1"]))
        await admitted(pool, 2)
        steps.give()  # the long request's second step, in progress when the short one came
        assert await short == ["short"]
        assert not long.done()
        steps.give(58)
        result = await long
        pool.shutdown()
        return result

    assert clocked.run(scenario()) == ["long"]
    assert steps.log[:4] == ["long", "long", "short", "short:end"]
    assert steps.log.count("long") == 60 and steps.log[-1] == "long:end"


def test_pool_admits_a_short_request_within_one_step_beside_two_long_ones(clocked):
    """Two long requests, each given a first turn (three steps of 0.25 s for a slice of 0.5 s),
    then served in the order they came: a request that arrives waits for the step in progress
    only, not for either long one to end."""
    steps = Steps(clocked.clock)
    hold, work = steps.held(60)

    async def scenario():
        pool = WorkPool(work, threads=1, queue=4, timeout=1000, slice_s=0.5, batch_size=1)
        held = asyncio.ensure_future(pool.run(["hold"], ["h"]))
        longs = [asyncio.ensure_future(pool.run([name], [name])) for name in ("long1", "long2")]
        await admitted(pool, 3)
        hold.set()
        await held
        for given in range(1, 9):
            steps.give()
            await until(lambda: len(steps.log) == given, "one step per token")
        short = asyncio.ensure_future(pool.run(["short"], ["s"]))
        await admitted(pool, 3)
        steps.give()  # the step in progress when the short request came
        assert await short == ["short"]
        assert not any(f.done() for f in longs)
        steps.give(120 - 9)
        results = await asyncio.gather(*longs)
        pool.shutdown()
        return results

    assert clocked.run(scenario()) == [["long1"], ["long2"]]
    # First turns of three steps (0.75 s > slice_s), the batch started last first; then the first
    # to come runs to its end. The short request ran right after the step in progress.
    assert steps.log[:11] == ["long2"] * 3 + ["long1"] * 6 + ["short", "short:end"]
    assert steps.log[11:] == ["long1"] * 54 + ["long1:end"] + ["long2"] * 57 + ["long2:end"]


def test_concurrent_requests_each_get_their_own_document(lexicon_annotator):
    texts = [EXAMPLE, TWO_SENTENCES, "", "Nothing happened until noon, so we left.",
             "He stayed while she worked.", "It was cheap, but nobody bought it."]
    app = create_app(Settings(senses=None, batch_size=4), annotator=lexicon_annotator)
    answers = post_at_once(app, texts)
    app.state.pool.shutdown()
    for i, (text, r) in enumerate(zip(texts, answers)):
        assert r.status_code == 200
        assert r.json() == arrow_row(lexicon_annotator.annotate(text, id=f"d{i}"))


def test_the_pool_defaults_to_one_worker_thread_and_sixteen_waiting():
    # One thread by default: the service holds one model copy and answers in turn; more threads
    # are the operator's choice (`logicparse serve --threads`).
    pool = WorkPool(lambda texts, ids: texts)
    assert (pool.threads, pool.capacity, pool.timeout, pool.batch_size) == (1, 17, 30.0, 16)


def test_work_that_raises_fails_its_request_and_the_thread_serves_the_next():
    def work(texts, ids):
        if texts == ["bad"]:
            raise ValueError("no parse")
        return texts

    async def scenario():
        pool = WorkPool(work, threads=1, timeout=10)  # real seconds: only a broken pool waits
        with pytest.raises(ValueError, match="no parse"):
            await pool.run(["bad"], ["0"])
        answer = await pool.run(["good"], ["1"])
        pool.shutdown()
        return answer, pool

    answer, pool = asyncio.run(scenario())
    assert answer == ["good"]
    worker = pool._workers[0]
    worker.join(10)  # shutdown wakes the idle thread, which ends
    assert not worker.is_alive() and pool.pending == 0
