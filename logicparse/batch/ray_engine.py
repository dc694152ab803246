"""The Ray engine: the same chunks over a pool of Ray actors, each loading the models once.

Each actor is a :class:`~logicparse.batch.worker.ChunkAnnotator` and returns a chunk's
:class:`~logicparse.batch.worker.ChunkResult`, so a document is parsed in the same company as with
the local engine and the rows come out identical; the driver assembles and writes the shards with
the same code. The driver gives each actor one chunk at a time (a call's round trip is about a
millisecond against a chunk's second, and a second chunk waiting on one actor would leave the
others idle at the end) and reads the corpus as it goes, so its memory stays flat.

Plain actors, not Ray Data's ``map_batches``: on this project's 2-core machine Ray Data's
executor and its statistics and autoscaling actors took CPU from the actors (docs/ray.md).

``address=None`` starts a local Ray instance with ``workers`` CPUs whose servers listen on loopback
only; ``"auto"`` or ``ray://host:10001`` joins an existing cluster.

When an actor dies (its node is gone, or native code crashed), its chunk goes back to the queue
for the other actors, the idle ones are asked again whether they are alive before they get work,
and Ray restarts the dead one (``max_restarts=-1``) wherever a CPU frees up; it takes work again
once it answers. A chunk whose actor died twice is retried one document at a time, and a document
that kills its actor twice alone gets a row with ``error`` filled (E321), as with the local
engine. A result lost with its node is redone.
"""

from __future__ import annotations

import ipaddress
import logging
import re
import time
from collections import Counter, deque
from typing import Iterable, Iterator, Optional

from ..errors import Errors, LogicparseError
from .worker import Chunk, ChunkAnnotator, ChunkResult, WorkerSpec, crashed, prepare_first_run

logger = logging.getLogger(__name__)

_LOOPBACK = "127.0.0.1"
WAIT_WARNING_S = 60.0  # no actor ready for this long: say so, and why it may be
REPROBE_S = 1.0  # an actor Ray is starting again is asked again this long after it said so
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # Ray colours its tracebacks


class _Actor:
    """One Ray actor: models loaded once in ``__init__``."""

    def __init__(self, spec: WorkerSpec):
        # Kept and raised by ready(): an actor whose __init__ raises would only say so inside
        # Ray's traceback, and the driver tells the user what went wrong, as the local engine does.
        self.error: Optional[Exception] = None
        try:
            prepare_first_run(spec)  # on each machine of a cluster, by its first actor
            self.annotator = ChunkAnnotator(spec)
        except Exception as e:  # noqa: BLE001 - whatever it is, the run stops with it
            self.error = e

    def ready(self) -> bool:
        if self.error is not None:
            raise self.error
        return True

    def annotate(self, chunk: Chunk) -> ChunkResult:
        self.ready()
        result = self.annotator(chunk)
        # The driver needs where the rows go, not the texts back.
        return ChunkResult(Chunk(chunk.shard, chunk.start, (), ()), result.table, result.stats)


class RayEngine:
    name = "ray"

    def __init__(self, spec: WorkerSpec, workers: int = 1, address: Optional[str] = None):
        if workers < 1:
            raise LogicparseError(Errors.E317.format(name="workers", value=workers))
        self.spec, self.workers, self.address = spec, workers, address
        self._started_here = False
        self._actors: list = []

    def _init(self):
        import ray

        if ray.is_initialized():
            return ray
        try:
            if self.address:
                ray.init(address=self.address, log_to_driver=False)
            else:
                _start_on_loopback(ray, self.workers)
                self._started_here = True
        except LogicparseError:
            raise
        except Exception as e:  # noqa: BLE001 - connection and start-up errors of all kinds
            raise LogicparseError(Errors.E318.format(reason=f"{type(e).__name__}: {e}")) from e
        return ray

    def run(self, chunks: Iterable[Chunk]) -> Iterator[ChunkResult]:
        """Results as they complete (not in order: the caller assembles shards)."""
        work = _Work(chunks)
        if not work.left():
            return
        ray = self._init()
        from ray.exceptions import ObjectLostError, RayActorError, RayTaskError

        remote = ray.remote(num_cpus=self.spec.threads, max_restarts=-1, max_task_retries=0)
        self._actors = [remote(_Actor).remote(self.spec) for _ in range(self.workers)]
        probes = {a.ready.remote(): a for a in self._actors}  # actors not known to be alive
        later: dict = {}  # actor -> when to ask it again (Ray is restarting it)
        busy: dict = {}  # actor known to be alive -> its future in flight, or None
        pending: dict = {}  # future -> (actor, chunk)
        alone_since: Optional[float] = None  # since when no actor has been ready

        def suspect(actor) -> None:
            """After a death: that actor and every idle one are asked before they get work."""
            for a in [actor] + [a for a, f in busy.items() if f is None]:
                if a in busy:
                    del busy[a]
                    probes[a.ready.remote()] = a

        try:
            while True:
                for actor in [a for a, f in busy.items() if f is None]:
                    chunk = work.take()
                    if chunk is None:
                        break
                    future = actor.annotate.remote(chunk)
                    busy[actor], pending[future] = future, (actor, chunk)
                if not pending and not work.left():
                    return
                now = time.monotonic()
                for actor in [a for a, t in later.items() if t <= now]:
                    del later[actor]
                    probes[actor.ready.remote()] = actor
                if busy:
                    alone_since = None
                elif alone_since is None:
                    alone_since = now
                elif alone_since + WAIT_WARNING_S <= now:
                    logger.warning(Errors.W312.format(workers=self.workers,
                                                      threads=self.spec.threads))
                    alone_since = now
                due = [t - now for t in later.values()]
                due += [alone_since + WAIT_WARNING_S - now] if alone_since is not None else []
                timeout = max(0.0, min(due + [WAIT_WARNING_S]))
                if not (pending or probes):
                    time.sleep(timeout)
                    continue
                # Probes first: ray.wait returns in list order, and a restarted actor should get work.
                done, _ = ray.wait([*probes, *pending], num_returns=1, timeout=timeout)
                if not done:
                    continue
                (future,) = done
                if future in probes:
                    actor = probes.pop(future)
                    try:
                        ray.get(future)
                        busy[actor] = None
                    except RayTaskError as e:
                        raise _load_error(e.cause) from None
                    except RayActorError as e:
                        if e.actor_init_failed:  # not a Python error of ours: unpickling, a kill
                            raise _load_error(RuntimeError(_ANSI.sub("", str(e)))) from None
                        # Ray is starting it again (or cannot, for want of a CPU: W312).
                        later[actor] = time.monotonic() + REPROBE_S
                    continue
                actor, chunk = pending.pop(future)
                try:
                    result = ray.get(future)
                except RayActorError as e:
                    suspect(actor)
                    yield from work.after_death(chunk, counted=not getattr(e, "preempted", False))
                    continue
                except ObjectLostError:  # its node went away with the result
                    suspect(actor)
                    work.again(chunk)
                    continue
                if busy.get(actor) is future:
                    busy[actor] = None
                yield result
        finally:  # Ray itself stays up until close(): the caller may run more
            self._stop_actors()

    def _stop_actors(self) -> None:
        actors, self._actors = self._actors, []
        if actors:
            import ray

            for actor in actors:
                ray.kill(actor)

    def close(self) -> None:
        self._stop_actors()
        if self._started_here:
            import ray

            ray.shutdown()
            self._started_here = False


class _Work:
    """The chunks still to run: the corpus read as it goes, and chunks to run again."""

    def __init__(self, chunks: Iterable[Chunk]):
        self.source = iter(chunks)
        self.queue: deque[Chunk] = deque()
        self.deaths: Counter = Counter()  # chunk -> actors that died holding it

    def left(self) -> bool:
        if not self.queue:
            chunk = next(self.source, None)
            if chunk is not None:
                self.queue.append(chunk)
        return bool(self.queue)

    def take(self) -> Optional[Chunk]:
        return self.queue.popleft() if self.left() else None

    def again(self, chunk: Chunk) -> None:
        self.queue.appendleft(chunk)

    def after_death(self, chunk: Chunk, counted: bool = True) -> Iterator[ChunkResult]:
        """The chunk again: whole the first time (most often a node that went away), one document
        at a time the second; a document alone gets a row with E321 at its second death (a node
        that went away can take several documents alone with it, and only one may be at fault)."""
        key = (chunk.shard, chunk.start, len(chunk.ids), chunk.isolated)
        self.deaths[key] += int(counted)
        if self.deaths[key] < 2:
            self.again(chunk)
            return
        if chunk.isolated:
            yield crashed(chunk, "a Ray actor")
            return
        errors = chunk.errors or (None,) * len(chunk.ids)
        self.queue.extendleft(reversed([
            Chunk(chunk.shard, chunk.start + i, (d,), (t,), True, (e,))
            for i, (d, t, e) in enumerate(zip(chunk.ids, chunk.texts, errors))]))


def _load_error(cause: BaseException) -> Exception:
    """What the actors' failure to load the models is raised as: a logicparse error as it is
    (its code names the fix), anything else inside E351."""
    if isinstance(cause, LogicparseError):
        return cause
    return LogicparseError(Errors.E351.format(reason=f"{type(cause).__name__}: {cause}"))


def _start_on_loopback(ray, workers: int) -> None:
    """Start Ray on this machine with every server (GCS, raylet, workers) on loopback.

    Ray runs code for whoever reaches its ports, and it binds them to all interfaces unless the
    node's address is loopback. On Linux it also swaps a loopback address given to ``ray.init``
    for the machine's own, so that other machines could join; ``ENABLE_RAY_CLUSTER`` off (as Ray
    sets it on macOS and Windows) keeps 127.0.0.1. A Ray that still takes another address is
    shut down before any work reaches it (E344).
    """
    from ray._private import ray_constants

    swap = getattr(ray_constants, "ENABLE_RAY_CLUSTER", None)
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                 configure_logging=False, _node_ip_address=_LOOPBACK)
    finally:
        if swap is None:
            del ray_constants.ENABLE_RAY_CLUSTER
        else:
            ray_constants.ENABLE_RAY_CLUSTER = swap
    node = ray.util.get_node_ip_address()
    if not ipaddress.ip_address(node).is_loopback:
        ray.shutdown()
        raise LogicparseError(Errors.E344.format(address=node, version=ray.__version__))
