"""The work pool's admission projection in the cases mutation testing found unchecked: the order
in which the work admitted is projected (small requests waiting, batches started, long requests
waiting), the work ahead shared among the threads, a request estimated longer than its limit, a
full pool's Retry-After, a request without text, batches that keep arrival order, and the rate
the pool learns from plain work, from a stepped work's last step and from a batch closed at its
deadline. On a clock the test moves (test_service_pool.py); estimates are exact binary fractions
(1,024 characters a second) so that a projection lands exactly where the test says."""

from __future__ import annotations

import asyncio
import math
import threading

import pytest
from test_service_pool import GatedWork, admitted, clocked, until  # noqa: F401 - a fixture
from test_service_pool_defaults import thread_clock  # noqa: F401 - a fixture

from logicparse.errors import Errors
from logicparse.service.pool import Busy, TimedOut, WorkPool

PER_CHAR = 2.0 ** -10


def text(seconds: float) -> str:
    """A text the pool estimates at ``seconds`` of work."""
    return "x" * int(seconds / PER_CHAR)


class Work:
    """Work by each request's id: ``hold…`` waits at ``gate`` inside the work call (its thread
    takes no step meanwhile); ``step…`` is stepped, each of its ``steps[id]`` steps (one by
    default) waiting for a token; any other is done at once. ``waits``: the request whose step
    waits for a token now."""

    def __init__(self):
        self.gate = threading.Event()
        self.tokens = threading.Semaphore(0)
        self.steps: dict[str, int] = {}
        self.entered: list[str] = []
        self.waits = None

    def __call__(self, texts, ids):
        self.entered.append(ids[0])
        if ids[0].startswith("hold"):
            assert self.gate.wait(60)
        elif ids[0].startswith("step"):
            return self._stepped(ids)
        return list(ids)

    def _stepped(self, ids):
        for _ in range(self.steps.get(ids[0], 1)):
            yield
            self.waits = ids[0]
            assert self.tokens.acquire(timeout=60), f"{ids[0]}: no token within 60 s"
            self.waits = None
        return list(ids)


@pytest.fixture
def work():
    w = Work()
    yield w
    # A mutant that answers differently leaves the pool's thread waiting: let it go.
    w.gate.set()
    w.tokens.release(100)


def pool_of(work, **settings) -> WorkPool:
    return WorkPool(work, **{"threads": 1, "queue": 8, "timeout": 1000, "batch_size": 1,
                             "slice_s": 1.5, "cost_per_char": PER_CHAR, **settings})


async def refusal(pool: WorkPool, seconds: float, name: str) -> Busy:
    """The refusal of a request of ``seconds``. Admission is decided before ``run`` first
    waits: a request admitted by mistake fails here, instead of waiting for an answer that the
    held thread cannot give."""
    request = asyncio.ensure_future(pool.run([text(seconds)], [name]))
    await asyncio.sleep(0)
    assert request.done(), f"{name} was admitted"
    with pytest.raises(Busy) as e:
        request.result()
    return e.value


async def refused(pool: WorkPool, seconds: float, name: str) -> str:
    """The Retry-After of the refusal of a request of ``seconds``."""
    return (await refusal(pool, seconds, name)).headers["Retry-After"]


# --- a small request goes before the started and the long, but not at their expense ----------

def test_a_small_request_is_refused_while_it_would_push_a_started_small_one_past_its_deadline(
        clocked, work):
    """A started small request (1.5 s left, 2 s limit) is itself checked: one more second of
    small work before its next step would make it late."""
    async def scenario():
        pool = pool_of(work, timeout=2)
        started = asyncio.ensure_future(pool.run([text(1.5)], ["step-s"]))
        await until(lambda: work.waits == "step-s", "the small request's step")
        retry = await refused(pool, 1, "d")  # it would be admitted once the started one ends
        work.tokens.release(1)
        assert await started == ["step-s"]
        answer = await pool.run([text(1)], ["d"])
        pool.shutdown()
        return retry, answer

    assert clocked.run(scenario()) == ("2", ["d"])


def test_a_small_request_goes_after_the_small_ones_waiting_and_cannot_make_them_late(
        clocked, work):
    """A small request waiting is served before the new one, so it is not at risk: however
    close to its deadline its projected end, the new small request is admitted."""
    async def scenario():
        pool = pool_of(work)
        held = asyncio.ensure_future(pool.run(["h"], ["hold"]))
        await until(lambda: work.entered, "the thread takes the held request")
        pool.timeout = 2
        waiting = asyncio.ensure_future(pool.run([text(1.5)], ["w"]))  # ends 0.5 s early
        await admitted(pool, 2)
        new = asyncio.ensure_future(pool.run([text(1)], ["d"]))
        await admitted(pool, 3)
        work.gate.set()
        answers = await asyncio.gather(held, waiting, new)
        pool.shutdown()
        return answers

    assert clocked.run(scenario()) == [["hold"], ["w"], ["d"]]


def test_a_small_request_is_refused_while_it_would_make_a_long_one_waiting_late(clocked, work):
    """The long request waiting ends at 2.5 s (0.5 s of the started one, then its own 2 s)
    with a 3 s limit: a one-second request before it would make it late, so it is told to come
    back when the long one has ended."""
    async def scenario():
        pool = pool_of(work)
        held = asyncio.ensure_future(pool.run([text(0.5)], ["hold"]))
        await until(lambda: work.entered, "the thread takes the held request")
        pool.timeout = 3
        long = asyncio.ensure_future(pool.run([text(2)], ["long"]))
        await admitted(pool, 2)
        retry = await refused(pool, 1, "d")
        work.gate.set()
        answers = await asyncio.gather(held, long)
        pool.shutdown()
        return retry, answers

    assert clocked.run(scenario()) == ("3", [["hold"], ["long"]])


def test_a_batch_started_after_a_long_request_waiting_is_projected_before_it(clocked, work):
    """A busy thread started a small request that came after a long one waiting: the started
    one (1 s, 3.5 s limit) is projected to end at 1 s, before the long one's 2 s, and a new
    small request does not make it late. Projected after the long one it would end at 3 s,
    and be pushed past 3.5 s."""
    work.steps["step-a"] = 2

    async def scenario():
        pool = pool_of(work)
        first = asyncio.ensure_future(pool.run(["a"], ["step-a"]))
        await until(lambda: work.waits == "step-a", "the first request's step")
        long = asyncio.ensure_future(pool.run([text(2)], ["long"]))
        await admitted(pool, 2)
        pool.timeout = 3.5
        small = asyncio.ensure_future(pool.run([text(1)], ["step-c"]))
        await admitted(pool, 3)
        work.tokens.release(1)  # between two steps the busy thread starts the small one only
        await until(lambda: work.waits == "step-c", "the small request's step")
        new = asyncio.ensure_future(pool.run([text(1)], ["d"]))
        await admitted(pool, 4)
        work.tokens.release(2)
        answers = await asyncio.gather(first, long, small, new)
        pool.shutdown()
        return answers

    assert clocked.run(scenario()) == [["step-a"], ["long"], ["step-c"], ["d"]]


def test_the_work_ahead_is_shared_among_the_threads(clocked, work):
    """Two threads each hold 2 s of work. A 3 s request with a 6 s limit ends at 2 + 3 s
    (within 90% of it) and is admitted; a 1.25 s request before it would make it late, and is
    told to come back after the 5 s it is projected to take."""
    async def scenario():
        pool = pool_of(work, threads=2)
        held = [asyncio.ensure_future(pool.run([text(2)], [f"hold{i}"])) for i in range(2)]
        await until(lambda: len(work.entered) == 2, "both threads hold a request")
        pool.timeout = 6
        long = asyncio.ensure_future(pool.run([text(3)], ["long"]))
        await admitted(pool, 3)
        retry = await refused(pool, 1.25, "d")
        work.gate.set()
        answers = await asyncio.gather(*held, long)
        pool.shutdown()
        return retry, answers

    assert clocked.run(scenario()) == ("5", [["hold0"], ["hold1"], ["long"]])


# --- long requests ---------------------------------------------------------------------------

def test_a_request_estimated_past_its_limit_waits_until_at_most_a_turn_of_work_is_ahead(
        clocked, work):
    """A 20 s request against a 10 s limit is admitted behind a turn of work (0.25 s), not
    refused for ever; the next one must wait until the first has ended (20 s)."""
    async def scenario():
        pool = pool_of(work, timeout=10, slice_s=0.25)
        held = asyncio.ensure_future(pool.run([text(0.25)], ["hold"]))
        await until(lambda: work.entered, "the thread takes the held request")
        first = asyncio.ensure_future(pool.run([text(20)], ["first"]))
        await admitted(pool, 2)
        retry = await refused(pool, 20, "second")
        work.gate.set()
        answers = await asyncio.gather(held, first)
        pool.shutdown()
        return retry, answers

    assert clocked.run(scenario()) == ("20", [["hold"], ["first"]])


def test_a_request_that_would_end_half_a_second_past_its_share_of_the_limit_is_refused(
        clocked, work):
    """2 s of work ahead: 7.5 s more would end at 9.5 s, past 90% of 10 s; 6.5 s fits."""
    async def scenario():
        pool = pool_of(work, timeout=10)  # 9 s: 90% of the limit
        held = asyncio.ensure_future(pool.run([text(2)], ["hold"]))
        await until(lambda: work.entered, "the thread takes the held request")
        retry = await refused(pool, 7.5, "late")
        fits = asyncio.ensure_future(pool.run([text(6.5)], ["fits"]))
        await admitted(pool, 2)
        work.gate.set()
        answers = await asyncio.gather(held, fits)
        pool.shutdown()
        return retry, answers

    assert clocked.run(scenario()) == ("1", [["hold"], ["fits"]])


def test_a_started_request_without_text_counts_as_no_work(clocked, work):
    """An empty text costs nothing: the 8.5 s request after it fits in 90% of 10 s."""
    async def scenario():
        pool = pool_of(work, timeout=10, slice_s=0.25)
        held = asyncio.ensure_future(pool.run([""], ["hold"]))
        await until(lambda: work.entered, "the thread takes the empty request")
        long = asyncio.ensure_future(pool.run([text(8.5)], ["long"]))
        await admitted(pool, 2)
        work.gate.set()
        answers = await asyncio.gather(held, long)
        pool.shutdown()
        return answers

    assert clocked.run(scenario()) == [["hold"], ["long"]]


# --- a full pool -----------------------------------------------------------------------------

def test_a_full_pool_sends_the_configured_retry_after_even_zero(clocked, work):
    """When every slot is taken the wait is for a slot, not for work: the operator's
    Retry-After (here 0) is sent, whatever the refused request's own estimate would say."""
    async def scenario():
        pool = pool_of(work, queue=0, timeout=30, retry_after=0)
        held = asyncio.ensure_future(pool.run([text(5)], ["hold"]))
        await admitted(pool, 1)
        small, long = await refusal(pool, 0.001, "small"), await refusal(pool, 30, "long")
        work.gate.set()
        assert await held == ["hold"]
        pool.shutdown()
        return [r.headers["Retry-After"] for r in (small, long)], str(small)

    retries, message = clocked.run(scenario())
    assert retries == ["0", "0"]
    assert message == Errors.E409.format(pending=1, work=5.0, capacity=1, timeout=30, retry=0)


# --- batches ---------------------------------------------------------------------------------

def test_a_request_that_does_not_fit_in_the_batch_ends_it_and_no_later_one_passes_it():
    work = GatedWork()

    async def scenario():
        pool = WorkPool(work, threads=1, queue=8, batch_size=2)
        first = asyncio.ensure_future(pool.run(["x"], ["first"]))  # holds the thread
        await until(work.entered.is_set, "the thread is held at the gate")
        rest = [asyncio.ensure_future(pool.run(texts, texts)) for texts in (
            ["a"], ["b1", "b2", "b3"], ["c"])]
        await admitted(pool, 4)
        work.gate.set()
        await asyncio.gather(first, *rest)
        pool.shutdown()

    asyncio.run(scenario())
    # ["c"] would fit beside ["a"], but it came after the three texts that did not
    assert work.calls == [["x"], ["a"], ["b1", "b2", "b3"], ["c"]]


# --- the rate the pool learns ----------------------------------------------------------------

def moved(rate: float, measured: float, chars: int) -> float:
    return rate + (measured - rate) * chars / (chars + 50_000)


def test_plain_work_teaches_the_pool_its_rate_from_2000_characters(clocked):
    """Work that is not stepped is measured too, including when it was faster than the
    estimate; a batch of 1,999 characters (mostly fixed cost) is not."""
    def work(texts, ids):
        clocked.clock.advance(1.0)
        return list(ids)

    async def scenario():
        pool = WorkPool(work, threads=1, timeout=30, cost_per_char=1e-3)
        rates = []
        for chars in (1_999, 2_000):
            await pool.run(["x" * chars], [str(chars)])
            await until(lambda: pool.pending == 0, "the batch ends")
            rates.append(pool.cost_per_char)
        pool.shutdown()
        return rates

    below, at = clocked.run(scenario())
    assert below == 1e-3
    assert math.isclose(at, moved(1e-3, 1.0 / 2_000, 2_000))


def test_the_time_of_a_stepped_work_s_last_step_counts_in_its_rate(clocked):
    def work(texts, ids):
        yield
        clocked.clock.advance(2.5)  # the step that ends the work
        return list(ids)

    async def scenario():
        pool = WorkPool(work, threads=1, timeout=30, cost_per_char=1e-3)
        await pool.run(["x" * 10_000], ["0"])
        await until(lambda: pool.pending == 0, "the batch ends")
        pool.shutdown()
        return pool.cost_per_char

    assert math.isclose(clocked.run(scenario()), moved(1e-3, 2.5e-4, 10_000))


def test_a_batch_closed_at_its_deadline_does_not_lower_the_rate(thread_clock):
    """Closed before its first step (it waited 31 s behind another), a batch shows nothing of
    its rate: the pool keeps the estimate it had."""
    gate, entered = threading.Event(), threading.Event()

    def work(texts, ids):
        if ids == ["hold"]:
            entered.set()
            assert gate.wait(60)
            thread_clock.clock.advance(31)
            return ["hold"]
        return stepped()

    def stepped():
        yield
        return ["long"]

    async def scenario():
        pool = WorkPool(work, threads=1, timeout=30, cost_per_char=1e-3)
        held = asyncio.ensure_future(pool.run(["h"], ["hold"]))
        await until(entered.is_set, "the thread takes the held request")
        long = asyncio.ensure_future(pool.run(["x" * 10_000], ["long"]))
        await admitted(pool, 2)
        gate.set()
        assert await held == ["hold"]
        with pytest.raises(TimedOut):
            await long
        await until(lambda: pool.pending == 0, "the slots come back")
        pool.shutdown()
        return pool.cost_per_char, pool.abandoned

    try:
        assert thread_clock.run(scenario()) == (1e-3, 1)
    finally:
        gate.set()
