"""The work pool's deadlines within a batch: requests that waited together and were joined into
one batch keep each its own deadline. On a clock the test moves (test_service_pool.py)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from test_service_pool import admitted, clocked, until  # noqa: F401 - clocked is a fixture

from logicparse.service.pool import TimedOut, WorkPool


def test_a_batch_runs_on_for_its_member_with_the_later_deadline(clocked):
    """Two requests 0.5 s apart wait behind a third and are joined into one batch. When the
    first one's deadline passes mid-work it is answered 504; the batch goes on, and the later
    one, still within its own deadline, gets its answer."""
    hold, in_step, tokens = threading.Event(), threading.Event(), threading.Semaphore(0)
    calls = []

    def stepped(texts):
        for _ in range(2):
            yield
            in_step.set()
            assert tokens.acquire(timeout=60), "no token within 60 s"
        return [f"{t}!" for t in texts]

    def work(texts, ids):
        calls.append(list(texts))
        if texts == ["hold"]:
            assert hold.wait(60)
            return ["hold"]
        return stepped(texts)

    async def scenario():
        pool = WorkPool(work, threads=1, queue=4, timeout=1.0, batch_size=4)
        held = asyncio.ensure_future(pool.run(["hold"], ["h"]))
        await until(lambda: calls, "the thread takes the first request")
        early = asyncio.ensure_future(pool.run(["early"], ["e"]))  # deadline 1001.0
        await admitted(pool, 2)
        clocked.clock.advance(0.5)
        late = asyncio.ensure_future(pool.run(["late"], ["l"]))  # deadline 1001.5
        await admitted(pool, 3)
        hold.set()
        assert await held == ["hold"]
        await until(in_step.is_set, "the batch's first step")
        clocked.clock.advance(0.75)  # the step takes the clock past the early deadline only
        with pytest.raises(TimedOut):
            await early
        tokens.release(2)
        answer = await late
        await until(lambda: pool.pending == 0, "the slots come back")
        abandoned = pool.abandoned
        pool.shutdown()
        return answer, abandoned

    answer, abandoned = clocked.run(scenario())
    assert calls == [["hold"], ["early", "late"]]  # one batch of the two
    assert answer == ["late!"] and abandoned == 0
