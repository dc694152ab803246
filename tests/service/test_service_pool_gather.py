"""The work pool's gathering: small requests that arrive close together while several clients
are in flight wait (up to ``gather_s``) to be annotated in one batch; a lone client, a long
request and a gathering that runs out of time start at once.

Real seconds here, but no test depends on how fast the machine is: the gathering windows are
either far longer than any test (60 s: only a broken pool would start without the others, or
wait) or short (50 ms) where the test only needs the request to end at all.
"""

from __future__ import annotations

import asyncio
import threading
import time

from test_service_pool import admitted, until

from logicparse.service import Settings, create_app
from logicparse.service.pool import WorkPool, _Job


class Recorded:
    """Work that answers at once and records the texts of each call."""

    def __init__(self):
        self.calls: list[list[str]] = []
        self.lock = threading.Lock()

    def __call__(self, texts, ids):
        with self.lock:
            self.calls.append(list(texts))
        return [t.upper() for t in texts]


def _lately(pool: WorkPool, n: int) -> WorkPool:
    """The pool as if ``n`` requests had just been in flight at once (which real requests sent
    together give only as the threads happen to interleave)."""
    pool._in_flight.append((time.monotonic(), n))
    return pool


def test_requests_arriving_one_after_another_while_others_were_in_flight_run_as_one_batch():
    work = Recorded()

    async def scenario():
        pool = _lately(WorkPool(work, threads=1, queue=8, gather_s=60.0), 3)
        first = asyncio.ensure_future(pool.run(["a"], ["a"]))
        await admitted(pool, 1)
        await asyncio.sleep(0.05)  # a pool that does not gather starts "a" alone meanwhile
        rest = [asyncio.ensure_future(pool.run([t], [t])) for t in ("b", "c")]
        answers = await asyncio.wait_for(asyncio.gather(first, *rest), 30)
        pool.shutdown()
        return answers

    assert asyncio.run(scenario()) == [["A"], ["B"], ["C"]]
    assert work.calls == [["a", "b", "c"]]


def test_a_lone_client_never_waits_for_others():
    work = Recorded()

    async def scenario():
        pool = WorkPool(work, threads=1, queue=8, gather_s=60.0)
        answers = [await asyncio.wait_for(pool.run([t], [t]), 30) for t in ("a", "b", "c")]
        pool.shutdown()
        return answers

    assert asyncio.run(scenario()) == [["A"], ["B"], ["C"]]
    assert work.calls == [["a"], ["b"], ["c"]]


def test_gathering_ends_after_gather_s_and_the_request_starts_alone():
    work = Recorded()

    async def scenario():
        pool = _lately(WorkPool(work, threads=1, queue=8, gather_s=0.05), 3)
        answer = await asyncio.wait_for(pool.run(["a"], ["a"]), 30)  # nobody else comes
        pool.shutdown()
        return answer

    assert asyncio.run(scenario()) == ["A"]
    assert work.calls == [["a"]]


def test_a_long_request_starts_at_once_however_many_were_in_flight():
    work = Recorded()

    async def scenario():
        # 100 characters at 0.01 s each: a second of work, past a turn (0.25 s): not small
        pool = _lately(WorkPool(work, threads=1, queue=8, gather_s=60.0, cost_per_char=0.01,
                                timeout=1000), 3)
        answer = await asyncio.wait_for(pool.run(["l" * 100], ["long"]), 10)
        pool.shutdown()
        return answer

    assert asyncio.run(scenario()) == ["L" * 100]


def test_a_pool_that_does_not_gather_starts_the_first_request_alone():
    work = Recorded()
    gate = threading.Event()

    def held(texts, ids):
        if texts == ["a"]:
            assert gate.wait(60)
        return work(texts, ids)

    async def scenario():
        pool = _lately(WorkPool(held, threads=1, queue=8), 3)  # gather_s=0: the class's default
        first = asyncio.ensure_future(pool.run(["a"], ["a"]))
        await until(lambda: pool.pending == 1 and not pool._jobs, "'a' has started")
        second = asyncio.ensure_future(pool.run(["b"], ["b"]))
        await admitted(pool, 2)
        gate.set()
        await asyncio.gather(first, second)
        pool.shutdown()

    asyncio.run(scenario())
    assert work.calls == [["a"], ["b"]]


def _waiting(pool: WorkPool, n: int, arrived: float, started: int = 0) -> None:
    """``n`` requests waiting, a millisecond apart from ``arrived``, after ``started`` running."""
    for i in range(started + n):
        job = _Job([f"t{i}"], [f"t{i}"], arrived + pool.timeout, 0.001, arrived + i / 1000)
        pool._admitted[job] = None
        if i >= started:
            pool._jobs.append(job)


def test_the_wait_is_for_those_recently_in_flight_at_once_up_to_a_batch_less_those_started():
    pool = WorkPool(Recorded(), threads=1, queue=16, gather_s=0.01, batch_size=4)
    pool._in_flight.extend([(99.9, 1), (99.95, 6), (100.0, 2)])  # six at once: four fit a batch
    _waiting(pool, 3, arrived=100.0)
    assert round(pool._gathering(100.004), 6) == 0.006  # from the first one's arrival
    assert pool._gathering(100.010) == 0.0  # its window is over
    _waiting(pool, 1, arrived=100.003)
    assert pool._gathering(100.004) == 0.0  # a batch's worth is waiting
    pool = WorkPool(Recorded(), threads=1, queue=16, gather_s=0.01, batch_size=4)
    pool._in_flight.extend([(99.9, 1), (99.95, 6), (100.0, 2)])
    _waiting(pool, 3, arrived=100.0, started=1)
    assert pool._gathering(100.004) == 0.0  # one of the four has started: three are all


def test_the_wait_ends_with_a_batchs_worth_of_text_its_deadline_or_a_stale_burst():
    def pool_with(waiting_texts: int, **kwargs) -> WorkPool:
        pool = WorkPool(Recorded(), threads=1, queue=16, gather_s=0.01, batch_size=4, **kwargs)
        pool._in_flight.extend([(100.0, 8)])
        job = _Job([f"t{i}" for i in range(waiting_texts)], ["one"], 100.0 + pool.timeout, 0.001,
                   100.0)
        pool._admitted[job] = None
        pool._jobs.append(job)
        return pool

    assert round(pool_with(3)._gathering(100.004), 6) == 0.006
    assert pool_with(4)._gathering(100.004) == 0.0  # four texts in one request: a full batch
    assert pool_with(3, batch_chars=6)._gathering(100.004) == 0.0  # "t0t1t2": the characters
    assert round(pool_with(3, timeout=0.005)._gathering(100.004), 6) == 0.001  # its deadline
    # eight in flight at once are waited for within 20 windows (0.2 s), not after
    recent, stale = pool_with(1), pool_with(1)
    recent._jobs[0].arrived, stale._jobs[0].arrived = 100.15, 100.3
    assert round(recent._gathering(100.151), 6) == 0.009
    assert stale._gathering(100.301) == 0.0


def test_the_service_gathers_only_when_told_to():
    assert create_app(Settings(senses=None), annotator=object()).state.pool.gather_s == 0
    assert create_app(Settings(senses=None, gather_ms=5), annotator=object()).state.pool.gather_s == 0.005

