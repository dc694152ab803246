"""The work pool's defaults (what a pool made with only a work function does), its count of
requests in progress after a shutdown (what /healthz reports), and the exact answers a client
gets: the refusal's and the timeout's messages, each request's own slice of a batch, the thread's
own deadline check, a failing step, the worker threads and shutdown."""

from __future__ import annotations

import asyncio
import re
import sys
import threading
from types import SimpleNamespace

import pytest
from test_service_pool import (  # noqa: F401 - clocked is a fixture
    Clock, ClockLoop, GatedWork, Steps, admitted, clocked, until)

from logicparse.errors import Errors
from logicparse.service import pool as pool_module
from logicparse.service.errors import ShuttingDown, code_of, status_of
from logicparse.service.pool import Busy, TimedOut, WorkPool


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
        for w in waiting:  # answered at once with the coded 503, not left to the time limit
            with pytest.raises(ShuttingDown, match="^" + re.escape(Errors.E427.format(retry=1)) + "$"):
                await w
        return after

    assert asyncio.run(scenario()) == 1


def test_a_default_pool_gives_each_long_request_a_first_turn_of_a_quarter_second(clocked):
    """Two long requests each get a first turn of 0.25 s of work, the later first: with steps
    of 0.25 s, two steps each (the turn ends once past the quarter second). Then the first to
    come runs to its end before the other goes on."""
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
    assert steps.log == ["long2"] * 2 + ["long1"] * 20 + ["long1:end"] + ["long2"] * 18 + [
        "long2:end"]


# --- what a refused or timed-out client is told ----------------------------------------------

async def occupied(pool: WorkPool, work: GatedWork, *waiting: tuple[list, list],
                   held: tuple[list, list] = (["a"], ["0"])):
    """The ``held`` (texts, ids) request kept on the pool's thread at ``work``'s gate, then the
    ``waiting`` requests, once all are admitted: (the held one, [the waiting ones])."""
    running = asyncio.ensure_future(pool.run(*held))
    await until(work.entered.is_set, "the thread takes the first request")
    queued = [asyncio.ensure_future(pool.run(texts, ids)) for texts, ids in waiting]
    await admitted(pool, 1 + len(waiting))
    return running, queued


def test_a_full_pool_refuses_with_its_count_capacity_and_retry_after():
    work = GatedWork()

    async def scenario():
        pool = WorkPool(work, threads=1, queue=1, retry_after=3)
        running, (waiting,) = await occupied(pool, work, (["b"], ["1"]))
        with pytest.raises(Busy) as refused:
            await pool.run(["c"], ["2"])
        after = pool.pending  # a refused request takes no slot
        work.gate.set()
        results = await asyncio.gather(running, waiting)
        pool.shutdown()
        return refused.value, after, results

    refused, after, results = asyncio.run(scenario())
    assert str(refused) == Errors.E409.format(pending=2, work=0.0, capacity=2, timeout=30.0,
                                              retry=3)
    assert "2 requests (0.0 s of work) are admitted, at most 2, each within 30.0 s. Retry after 3 s" in str(refused)
    assert refused.code == "E409" and refused.headers == {"Retry-After": "3"}
    assert after == 2 and results == [["0:a"], ["1:b"]]


def test_dropping_a_timed_out_waiting_request_frees_its_slot_only(clocked):
    """A request that times out while waiting gives back its own slot; the running request and
    another waiting one (with a later deadline) keep theirs and are answered."""
    work = GatedWork()

    async def scenario():
        pool = WorkPool(work, threads=1, queue=4, timeout=1000)
        running, (patient,) = await occupied(pool, work, (["c"], ["2"]))
        pool.timeout = 0.5  # only the next request has a short deadline
        hasty = asyncio.ensure_future(pool.run(["b"], ["1"]))
        await admitted(pool, 3)
        clocked.clock.advance(1)
        with pytest.raises(TimedOut) as late:
            await hasty
        after = pool.pending
        work.gate.set()
        results = await asyncio.gather(running, patient)
        await until(lambda: pool.pending == 0, "every slot comes back")
        pool.shutdown()
        return late.value, after, results

    late, after, results = clocked.run(scenario())
    assert str(late) == Errors.E410.format(timeout=0.5) and late.code == "E410"
    assert "time limit of 0.5 s" in str(late)
    assert after == 2
    assert results == [["0:a"], ["2:c"]] and work.calls == [["a"], ["c"]]  # "b" never ran


# --- batches: each request its own slice -----------------------------------------------------

def test_a_batch_filled_to_exactly_batch_size_answers_each_request_its_own_texts():
    work = GatedWork()

    async def scenario():
        pool = WorkPool(work, threads=1, queue=8, batch_size=4)
        first, waiting = await occupied(
            pool, work, *[(texts, [t.upper() for t in texts])
                          for texts in (["a"], ["b", "c"], ["d"], ["e"])],
            held=(["x"], ["first"]))
        work.gate.set()
        results = await asyncio.gather(first, *waiting)
        pool.shutdown()
        return results

    results = asyncio.run(scenario())
    # Requests of 1, 2 and 1 texts make one batch of exactly 4; the fifth text waits for the next.
    assert work.calls == [["x"], ["a", "b", "c", "d"], ["e"]]
    assert results == [["first:x"], ["A:a"], ["B:b", "C:c"], ["D:d"], ["E:e"]]


# --- the thread's own deadline check ---------------------------------------------------------

@pytest.fixture
def thread_clock(monkeypatch):
    """The pool's deadlines follow a Clock the test moves (through the work's steps), while the
    event loop's timers never fire: a client's answer is then what the pool's thread decided."""
    clock = Clock()
    monkeypatch.setattr(pool_module, "time", SimpleNamespace(monotonic=clock))

    def run(coroutine):
        with asyncio.Runner(loop_factory=lambda: ClockLoop(Clock())) as runner:
            return runner.run(coroutine)

    return SimpleNamespace(clock=clock, run=run)


def test_stepped_work_is_stopped_past_its_deadline_not_at_it(thread_clock):
    """Steps of 0.25 s with a 0.25 s limit: a step that starts exactly at the deadline still runs
    (two-step work is answered); work that would need a third step is closed before it and
    answered TimedOut, and each closed batch is counted."""
    steps = Steps(thread_clock.clock, seconds=0.25)

    async def scenario():
        pool = WorkPool(lambda texts, ids: steps.work(2 if texts == ["edge"] else 3, texts[0]),
                        threads=1, queue=4, timeout=0.25)
        steps.give(2)
        edge = await pool.run(["edge"], ["0"])
        late = []
        for name in ("late1", "late2"):
            steps.give(2)
            with pytest.raises(TimedOut) as e:
                await pool.run([name], [name])
            late.append(e.value)
        await until(lambda: pool.pending == 0, "the slots come back")
        abandoned = pool.abandoned
        pool.shutdown()
        return edge, late, abandoned

    edge, late, abandoned = thread_clock.run(scenario())
    assert edge == ["edge"]
    for e in late:
        assert str(e) == Errors.E410.format(timeout=0.25) and e.code == "E410"
    assert abandoned == 2
    assert steps.log == ["edge", "edge", "edge:end", "late1", "late1", "late1:end",
                         "late2", "late2", "late2:end"]


def test_a_step_that_raises_fails_only_its_own_request(clocked):
    steps = Steps(clocked.clock)
    hold, held_work = steps.held(4)

    def broken():
        yield
        raise ValueError("no parse")

    def work(texts, ids):
        return broken() if texts == ["bad"] else held_work(texts, ids)

    async def scenario():
        pool = WorkPool(work, threads=1, queue=4, timeout=1000, batch_size=1)
        held = asyncio.ensure_future(pool.run(["hold"], ["h"]))
        long = asyncio.ensure_future(pool.run(["long"], ["l"]))
        bad = asyncio.ensure_future(pool.run(["bad"], ["b"]))
        await admitted(pool, 3)
        hold.set()
        assert await held == ["hold"]
        with pytest.raises(ValueError, match="no parse"):
            await bad  # fails while the long request is in the middle of its steps
        assert not long.done()
        steps.give(4)
        result = await long
        await until(lambda: pool.pending == 0, "the slots come back")
        pool.shutdown()
        return result

    assert clocked.run(scenario()) == ["long"]
    assert steps.log == ["long"] * 4 + ["long:end"]


# --- the worker threads and shutdown ---------------------------------------------------------

def test_two_threads_run_two_requests_at_once_on_named_daemon_threads():
    """Daemon threads: an annotation that never ends does not keep the process from exiting.
    The names are what thread dumps and log records show."""
    gate = threading.Event()
    seen = []

    def work(texts, ids):
        me = threading.current_thread()
        seen.append((me.name, me.daemon))
        assert gate.wait(60)
        return texts

    async def scenario():
        pool = WorkPool(work, threads=2, queue=0, batch_size=1)  # one request each
        running = [asyncio.ensure_future(pool.run([t], [t])) for t in ("a", "b")]
        await until(lambda: len(seen) == 2, "both requests are in progress together")
        with pytest.raises(Busy):
            await pool.run(["c"], ["c"])
        gate.set()
        results = await asyncio.gather(*running)
        pool.shutdown()
        return results, len(pool._workers)

    assert asyncio.run(scenario()) == ([["a"], ["b"]], 2)
    assert sorted(seen) == [("logicparse-annotate-0", True), ("logicparse-annotate-1", True)]


def _waiting(thread: threading.Thread) -> bool:
    """Whether ``thread`` is blocked on a threading wait (a condition, a semaphore)."""
    frame = sys._current_frames().get(thread.ident)
    while frame is not None:
        if frame.f_code.co_name == "wait" and frame.f_code.co_filename == threading.__file__:
            return True
        frame = frame.f_back
    return False


def test_an_idle_pool_thread_sleeps_until_work_comes():
    """An idle service uses no CPU: its thread waits on the pool's condition, not in a loop."""
    async def scenario():
        pool = WorkPool(lambda texts, ids: [t.upper() for t in texts])
        assert await pool.run(["a"], ["0"]) == ["A"]
        worker = pool._workers[0]
        await until(lambda: _waiting(worker), "the idle thread waits", limit=10)
        assert await pool.run(["b"], ["1"]) == ["B"]  # and wakes for the next request
        pool.shutdown()
        return worker

    worker = asyncio.run(scenario())
    worker.join(10)
    assert not worker.is_alive()


def test_shutdown_fails_started_stepped_work_and_refuses_new_work(clocked):
    steps = Steps(clocked.clock)

    async def scenario():
        pool = WorkPool(lambda texts, ids: steps.work(10, "long"), threads=1, queue=0,
                        timeout=1000)
        job = asyncio.ensure_future(pool.run(["long"], ["0"]))
        steps.give()
        await until(lambda: steps.log == ["long"], "the first step")
        await until(lambda: _waiting(pool._workers[0]), "the second step waits for its token")
        pool.shutdown()
        steps.give(3)  # the step in progress ends; no further step is taken
        # A coded 503 with Retry-After: the client may send the same request again.
        for pending in (job, pool.run(["more"], ["1"])):
            with pytest.raises(ShuttingDown) as e:
                await pending
            assert str(e.value) == Errors.E427.format(retry=pool.retry_after)
            assert status_of(e.value) == 503 and code_of(e.value) == "E427"
            assert e.value.headers == {"Retry-After": str(pool.retry_after)}
        pool._workers[0].join(10)
        return pool

    pool = clocked.run(scenario())
    assert not pool._workers[0].is_alive() and pool.pending == 0
    assert steps.log.count("long") == 2


def test_a_client_answered_finds_its_slot_free_at_once(monkeypatch):
    """With no queue, the request a client sends the moment its answer is handed out is
    admitted, not refused as busy: the slot is given back before the answer goes out."""
    pending_when_answered = []

    class Watched(pool_module._Job):
        def __init__(self, *args):
            super().__init__(*args)
            # runs in the pool's thread, at the instant the answer is set
            self.future.add_done_callback(lambda _: pending_when_answered.append(pool.pending))

    monkeypatch.setattr(pool_module, "_Job", Watched)
    pool = WorkPool(lambda texts, ids: list(texts), threads=1, queue=0)

    async def scenario():
        assert await pool.run(["x"], ["first"]) == ["x"]
        assert await pool.run(["y"], ["second"]) == ["y"]
        pool.shutdown()

    asyncio.run(scenario())
    assert pending_when_answered == [0, 0]
