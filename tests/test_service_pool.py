"""The service's work pool: 503 at capacity, 504 past the time limit, batching of waiting
requests, and stepped work interleaved and stopped between steps.

The 503/504 tests hold the annotator (or the work) at a gate so that "busy" and "too slow" are
certain, not a matter of timing.
"""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pyarrow as pa
import pytest
from fastapi.testclient import TestClient

from logicparse.service import Settings, create_app
from logicparse.service.limits import Busy, TimedOut, WorkPool
from logicparse.tokens.document import ARROW_SCHEMA, Document

EXAMPLE = "But I try very hard not to go that way because it would be too easy for them."
TWO_SENTENCES = "If it rains, we stay home. We did not go out because it was raining."


def arrow_row(doc: Document) -> dict:
    return pa.Table.from_pylist([doc.to_dict()], schema=ARROW_SCHEMA).to_pylist()[0]

# --- capacity and time limit -----------------------------------------------------------------

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


def test_busy_is_503_with_retry_after_and_slow_is_504(lexicon_annotator):
    gated = Gated(lexicon_annotator)
    app = create_app(Settings(senses=None, threads=1, queue=0, timeout=0.2, retry_after=3),
                     annotator=gated)
    with TestClient(app) as c:
        r = c.post("/v1/annotate", json={"text": EXAMPLE})
        assert r.status_code == 504 and r.json()["code"] == "E410"
        assert gated.entered.is_set()
        # The timed-out request still holds the only thread: the next one is refused at once.
        r = c.post("/v1/annotate", json={"text": EXAMPLE})
        assert r.status_code == 503 and r.json()["code"] == "E409"
        assert r.headers["retry-after"] == "3"
        assert c.get("/readyz").json()["pending"] == 1
        gated.gate.set()
        deadline = time.monotonic() + 30
        while c.get("/readyz").json()["pending"] and time.monotonic() < deadline:
            time.sleep(0.05)
        app.state.pool.timeout = 60
        r = c.post("/v1/annotate", json={"text": EXAMPLE})
        assert r.status_code == 200 and r.json()["relations"]


class GatedWork:
    """A work function that records its calls and waits at a gate before answering."""

    def __init__(self):
        self.gate = threading.Event()
        self.calls: list[list[str]] = []

    def __call__(self, texts, ids):
        self.calls.append(list(texts))
        assert self.gate.wait(30)
        return [f"{i}:{t}" for t, i in zip(texts, ids)]


def test_pool_bounds_waiting_work_and_cancels_what_timed_out_in_the_queue():
    work = GatedWork()

    async def scenario():
        pool = WorkPool(work, threads=1, queue=1, timeout=0.2)
        running = asyncio.ensure_future(pool.run(["a"], ["0"]))
        await asyncio.sleep(0.05)
        queued = asyncio.ensure_future(pool.run(["b"], ["1"]))
        await asyncio.sleep(0.05)
        assert pool.pending == 2
        with pytest.raises(Busy):
            await pool.run(["c"], ["2"])
        for f in (running, queued):
            with pytest.raises(TimedOut):
                await f
        # The waiting request was dropped at once; the running one keeps its slot until done.
        assert pool.pending == 1
        work.gate.set()
        for _ in range(200):
            if pool.pending == 0:
                break
            await asyncio.sleep(0.02)
        assert pool.pending == 0
        assert work.calls == [["a"]]  # "b" never ran
        pool.timeout = 5
        assert await pool.run(["d"], ["x"]) == ["x:d"]
        pool.shutdown()

    asyncio.run(scenario())


def test_pool_batches_waiting_requests_and_answers_each_its_own():
    work = GatedWork()

    async def scenario():
        pool = WorkPool(work, threads=1, queue=8, timeout=30, batch_size=4)
        first = asyncio.ensure_future(pool.run(["a"], ["0"]))
        await asyncio.sleep(0.05)  # the thread is now held at the gate with ["a"]
        waiting = [asyncio.ensure_future(pool.run(texts, [f"{t}-id" for t in texts]))
                   for texts in (["b", "c"], ["d"], ["e", "f"])]
        await asyncio.sleep(0.05)
        work.gate.set()
        results = await asyncio.gather(first, *waiting)
        pool.shutdown()
        return results

    results = asyncio.run(scenario())
    assert results == [["0:a"], ["b-id:b", "c-id:c"], ["d-id:d"], ["e-id:e", "f-id:f"]]
    # Waiting requests were joined up to batch_size texts, in arrival order, never split.
    assert work.calls == [["a"], ["b", "c", "d"], ["e", "f"]]


def test_concurrent_requests_each_get_their_own_document(lexicon_annotator):
    texts = [EXAMPLE, TWO_SENTENCES, "", "Nothing happened until noon, so we left.",
             "He stayed while she worked.", "It was cheap, but nobody bought it."]
    app = create_app(Settings(senses=None, batch_size=4), annotator=lexicon_annotator)

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            return await asyncio.gather(*(
                c.post("/v1/annotate", json={"text": t, "id": f"d{i}"}) for i, t in enumerate(texts)))

    answers = asyncio.run(scenario())
    app.state.pool.shutdown()
    for i, (text, r) in enumerate(zip(texts, answers)):
        assert r.status_code == 200
        assert r.json() == arrow_row(lexicon_annotator.annotate(text, id=f"d{i}"))


def stepped(n: int, seconds: float, log: list, name: str):
    """Stepped work: ``n`` steps of ``seconds`` each; records its steps and whether it ended."""
    def work():
        try:
            for _ in range(n):
                yield
                time.sleep(seconds)
                log.append(name)
            return [name]
        finally:
            log.append(f"{name}:end")
    return work()


def test_pool_interleaves_a_short_request_with_a_long_one():
    """A one-step request arriving while a 60-step one runs is answered long before the long
    one ends: the thread takes turns instead of finishing the long work first."""
    log: list = []

    def work(texts, ids):
        return stepped(60 if texts == ["long"] else 1, 0.05, log, texts[0])

    async def scenario():
        pool = WorkPool(work, threads=1, queue=4, timeout=30, slice_s=0.1)
        long = asyncio.ensure_future(pool.run(["long"], ["0"]))
        while "long" not in log:
            await asyncio.sleep(0.01)
        short = await pool.run(["short"], ["1"])
        assert not long.done()
        at_short = log.count("long")
        result = await long
        pool.shutdown()
        return short, result, at_short

    short, result, at_short = asyncio.run(scenario())
    assert short == ["short"] and result == ["long"]
    assert at_short < 60 and log.count("long") == 60


def test_pool_admits_a_short_request_within_one_step_beside_two_long_ones():
    """With two long requests taking turns, a request that arrives waits for the step in
    progress only, not for either long one to end."""
    log: list = []

    def work(texts, ids):
        return stepped(60 if texts[0].startswith("long") else 1, 0.05, log, texts[0])

    async def scenario():
        pool = WorkPool(work, threads=1, queue=4, timeout=30, slice_s=0.1, batch_size=1)
        longs = [asyncio.ensure_future(pool.run([name], [name])) for name in ("long1", "long2")]
        while "long1" not in log or "long2" not in log:
            await asyncio.sleep(0.01)
        arrived = len(log)
        short = await pool.run(["short"], ["s"])
        waited = [e for e in log[arrived:log.index("short")] if e.startswith("long")]
        assert not any(f.done() for f in longs)
        results = await asyncio.gather(*longs)
        pool.shutdown()
        return short, results, waited

    short, results, waited = asyncio.run(scenario())
    assert short == ["short"] and results == [["long1"], ["long2"]]
    assert len(waited) <= 1, waited  # at most the step that was running when it arrived


def test_pool_puts_long_requests_in_batches_of_their_own():
    batches: list = []
    gate = threading.Event()

    def work(texts, ids):
        batches.append(list(ids))
        gate.wait(10)
        return [None] * len(texts)

    async def scenario():
        pool = WorkPool(work, threads=1, queue=8, timeout=30, batch_size=16, batch_chars=100)
        first = asyncio.ensure_future(pool.run(["x"], ["first"]))  # holds the thread
        while not batches:
            await asyncio.sleep(0.01)
        rest = [asyncio.ensure_future(pool.run([text], [name])) for name, text in (
            ("long1", "a " * 60), ("long2", "a " * 60), ("s1", "Short."), ("s2", "Short."))]
        await asyncio.sleep(0.2)
        gate.set()
        await asyncio.gather(first, *rest)
        pool.shutdown()

    asyncio.run(scenario())
    # Short requests are batched as before; a long one (over batch_chars) goes alone.
    assert batches == [["first"], ["long1"], ["long2"], ["s1", "s2"]]


def test_pool_stops_stepped_work_past_its_deadline_and_frees_its_slot():
    log: list = []

    async def scenario():
        pool = WorkPool(lambda texts, ids: stepped(200, 0.02, log, "long"), threads=1, queue=0,
                        timeout=0.3)
        with pytest.raises(TimedOut):
            await pool.run(["long"], ["0"])
        for _ in range(500):  # the thread closes the work at its next step
            if pool.pending == 0:
                break
            await asyncio.sleep(0.01)
        pending, abandoned = pool.pending, pool.abandoned
        pool.shutdown()
        return pending, abandoned

    pending, abandoned = asyncio.run(scenario())
    assert pending == 0 and abandoned == 1
    assert log[-1] == "long:end" and log.count("long") < 200  # stopped, not run to its end
