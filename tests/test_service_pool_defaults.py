"""The work pool's defaults (what a pool made with only a work function does) and its count of
requests in progress after a shutdown (what /healthz reports)."""

from __future__ import annotations

import asyncio

import pytest
from test_service_pool import GatedWork, Steps, admitted, clocked, until  # noqa: F401 - a fixture

from logicparse.service.limits import Busy, WorkPool


def test_a_default_pool_asks_a_refused_client_to_retry_after_one_second():
    work = GatedWork()

    async def scenario():
        pool = WorkPool(work, threads=1, queue=0)
        first = asyncio.ensure_future(pool.run(["x"], ["first"]))
        await admitted(pool, 1)
        with pytest.raises(Busy) as refused:
            await pool.run(["y"], ["second"])
        work.gate.set()
        await first
        pool.shutdown()
        return refused.value

    refused = asyncio.run(scenario())
    assert refused.headers == {"Retry-After": "1"}


def test_a_default_pool_batches_waiting_requests_up_to_20000_characters():
    work = GatedWork()

    async def scenario():
        pool = WorkPool(work, threads=1, queue=8)
        first = asyncio.ensure_future(pool.run(["x"], ["first"]))  # holds the thread
        await until(work.entered.is_set, "the thread is held at the gate")
        rest = [asyncio.ensure_future(pool.run([text], [name])) for name, text in (
            ("a", "a" * 10_000), ("b", "b" * 10_000), ("c", "c"))]
        await admitted(pool, 4)
        work.gate.set()
        await asyncio.gather(first, *rest)
        pool.shutdown()

    asyncio.run(scenario())
    # 20,000 characters fit in one batch, one more does not
    assert work.ids == [["first"], ["a", "b"], ["c"]]


def test_shutdown_leaves_only_the_running_request_in_progress():
    work = GatedWork()

    async def scenario():
        pool = WorkPool(work, threads=1, queue=8)
        running = asyncio.ensure_future(pool.run(["x"], ["running"]))
        await until(work.entered.is_set, "the thread is held at the gate")
        waiting = [asyncio.ensure_future(pool.run([t], [t])) for t in ("y", "z")]
        await admitted(pool, 3)
        pool.shutdown()
        after = pool.pending  # the waiting ones are dropped, the running one goes on
        work.gate.set()
        assert await running == ["running:x"]
        await until(lambda: pool.pending == 0, "the running request's slot comes back")
        for w in waiting:
            with pytest.raises(asyncio.CancelledError):
                await w
        return after

    assert asyncio.run(scenario()) == 1


def test_a_default_pool_gives_each_long_request_turns_of_a_quarter_second(clocked):
    """Two long requests take turns of 0.25 s of work: with steps of 0.25 s, two steps each
    (the turn ends once past the quarter second)."""
    steps = Steps(clocked.clock)
    hold, work = steps.held(20)

    async def scenario():
        pool = WorkPool(work, threads=1, queue=4, timeout=1000, batch_size=1)
        held = asyncio.ensure_future(pool.run(["hold"], ["h"]))
        longs = [asyncio.ensure_future(pool.run([name], [name])) for name in ("long1", "long2")]
        await admitted(pool, 3)
        hold.set()
        await held
        steps.give(40)
        results = await asyncio.gather(*longs)
        pool.shutdown()
        return results

    assert clocked.run(scenario()) == [["long1"], ["long2"]]
    assert steps.log[:8] == ["long2"] * 2 + ["long1"] * 2 + ["long2"] * 2 + ["long1"] * 2
