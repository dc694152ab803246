"""Admission by the work already admitted: the pool admits a request only if it can finish it
within its deadline, serves long requests first come first served, and lets small ones pass
them. On a clock the test moves (test_service_pool.py): a fake pipeline's steps take their
seconds on it, one per token the test hands out."""

from __future__ import annotations

import asyncio
import math
import threading

import httpx
import pytest
from test_service_pool import admitted, clocked, until  # noqa: F401 - clocked is a fixture

from logicparse.errors import Errors
from logicparse.service import Settings, create_app
from logicparse.service.pool import Busy, WorkPool

STEP = 0.25
LONG = "a " * 32_768  # 64 KiB
LONG_STEPS = 21  # 5.25 s on the clock
SENTENCE = "If it rains, we stay."


class Doc:
    def __init__(self, id: str):
        self.id = id

    def to_dict(self) -> dict:
        return {"id": self.id}


class SlowPipeline:
    """An annotator whose ``pipe_steps`` takes ``LONG_STEPS`` steps of ``STEP`` seconds for a
    batch of ``LONG``, each when the test gives a token, and one free step for anything else.
    ``ended``: the clock when each request's work ended."""

    def __init__(self, clock):
        self.clock = clock
        self.tokens = threading.Semaphore(0)
        self.log: list[str] = []
        self.ended: dict[str, float] = {}

    def pipe_steps(self, texts, ids):
        long = texts == [LONG]
        for _ in range(LONG_STEPS if long else 1):
            yield
            if long:
                assert self.tokens.acquire(timeout=60), "no token within 60 s"
                self.clock.advance(STEP)
            self.log.append(ids[0])
        self.ended[ids[0]] = self.clock()
        return [Doc(i) for i in ids]


def test_ten_long_requests_at_once_the_first_end_in_time_the_rest_are_refused_at_once(clocked):
    """Ten requests of 64 KiB, each 5.25 s of work, against a 30 s limit: five are
    admitted (26.25 s ending within 90% of the limit) and answered 200 one after another, the
    first after 5.25 s; the other five are refused at once, 503 E409 with the seconds after
    which one would be admitted (4.5 s: Retry-After 5). None gets 504. A one-sentence request
    sent meanwhile is answered after the step in progress, not after the backlog."""
    pipeline = SlowPipeline(clocked.clock)
    app = create_app(Settings(senses=None, timeout=30, threads=1), annotator=pipeline)
    pool = app.state.pool
    pool.cost_per_char = LONG_STEPS * STEP / len(LONG)  # what the pool measured before
    t0 = clocked.clock()

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            sent = [asyncio.ensure_future(c.post("/v1/annotate", json={"text": LONG, "id": f"r{i}"}))
                    for i in range(10)]
            await until(lambda: pool.pending + sum(f.done() for f in sent) == 10,
                        "every request admitted or answered")
            assert clocked.clock() == t0 and pool.pending == 5  # refused before any work
            refused = [f.result() for f in sent if f.done()]
            waiting = [f for f in sent if not f.done()]
            pipeline.tokens.release(3)
            await until(lambda: len(pipeline.log) == 3, "three steps of the first request")
            small = asyncio.ensure_future(c.post("/v1/annotate", json={"text": SENTENCE,
                                                                       "id": "small"}))
            await until(lambda: pool.pending == 6, "the small request is admitted")
            pipeline.tokens.release(1)  # the step in progress when the small request came
            r = await small
            assert r.status_code == 200 and r.json() == {"id": "small"}
            assert clocked.clock() - t0 == 4 * STEP and not pipeline.ended.keys() - {"small"}
            pipeline.tokens.release(5 * LONG_STEPS - 4)
            answers = await asyncio.gather(*waiting)
        return refused, answers

    try:
        refused, answers = clocked.run(scenario())
    finally:
        pipeline.tokens.release(1000)
        pool.shutdown()
    assert len(refused) == 5
    busy = Errors.E409.format(pending=5, work=5 * LONG_STEPS * STEP, capacity=17, timeout=30.0,
                              retry=5)
    for r in refused:
        assert r.status_code == 503 and r.json() == {"detail": busy, "code": "E409"}
        assert r.headers["retry-after"] == "5"
    assert [r.status_code for r in answers] == [200] * 5
    ends = sorted(end - t0 for name, end in pipeline.ended.items() if name != "small")
    assert ends == [k * LONG_STEPS * STEP for k in range(1, 6)] and ends[-1] <= 30


def test_small_requests_pass_a_long_one_only_while_it_still_ends_in_time(clocked):
    """A long request estimated at 9 s against a 10 s limit leaves 1 s for the small requests
    (0.25 s each) that go before it: four are admitted and answered at once, the fifth is refused
    and told to come back when the long one ends (8 s); the long one ends within its limit."""
    per_char = 2.0 ** -10
    tokens, log, asked = threading.Semaphore(0), [], []

    def work(texts, ids):
        for _ in range(35 if ids == ["long"] else 1):  # the long one in 8.75 s, not 9
            yield
            if ids == ["long"]:
                asked.append(1)
                assert tokens.acquire(timeout=60), "no token within 60 s"
            clocked.clock.advance(STEP)
            log.append(ids[0])
        return ids

    async def scenario():
        pool = WorkPool(work, threads=1, queue=8, timeout=10, cost_per_char=per_char)
        long = asyncio.ensure_future(pool.run(["x" * int(9 / per_char)], ["long"]))
        await admitted(pool, 1)
        for i in range(4):
            await until(lambda: len(asked) == i + 1, "the long request's step waits")
            small = asyncio.ensure_future(pool.run(["x" * int(STEP / per_char)], [f"s{i}"]))
            await admitted(pool, 2)
            tokens.release(1)  # the long request's step in progress
            assert await small == [f"s{i}"]
        with pytest.raises(Busy) as refused:
            await pool.run(["x" * int(STEP / per_char)], ["s4"])
        tokens.release(31)
        result = await long
        pool.shutdown()
        return refused.value, result

    refused, result = clocked.run(scenario())
    assert refused.headers == {"Retry-After": "8"} and "Retry after 8 s" in str(refused)
    assert result == ["long"] and log.count("long") == 35
    assert log[:8] == ["long", "s0", "long", "s1", "long", "s2", "long", "s3"]


def test_the_pool_estimates_work_at_the_rate_it_measures(clocked):
    """A batch that ends moves the rate towards its own, weighted by its size (10,000
    characters against 50,000); one closed at its deadline shows a lower bound, which counts
    only when it is above the rate; a small batch's time, mostly fixed cost, does not count."""
    seconds = {"fast": 2.5, "slow": 20.0, "tiny": 5.0}

    def work(texts, ids):
        yield
        clocked.clock.advance(seconds[ids[0]])
        yield
        return ids

    async def scenario():
        pool = WorkPool(work, threads=1, timeout=30, cost_per_char=1e-3, admit_share=1.0)
        rates = []
        for name, chars in (("fast", 10_000), ("tiny", 100), ("slow", 10_000)):
            pool.timeout = 10 if name == "slow" else 30
            try:
                await pool.run(["x" * chars], [name])
            except Exception as e:  # noqa: BLE001 - the slow one is past its limit
                assert name == "slow" and e.code == "E410"
            await until(lambda: pool.pending == 0, "the batch ends")
            rates.append(pool.cost_per_char)
        pool.shutdown()
        return rates

    fast, tiny, slow = clocked.run(scenario())
    assert math.isclose(fast, 1e-3 + (2.5e-4 - 1e-3) / 6)
    assert tiny == fast
    assert math.isclose(slow, fast + (2e-3 - fast) / 6)
