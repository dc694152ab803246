"""The Ray engine: the same chunks over a pool of Ray actors, each loading the models once.

Each actor is a :class:`~logicparse.batch.worker.ChunkAnnotator` and returns a chunk's
:class:`~logicparse.batch.worker.ChunkResult`, so a document is parsed in the same company as with
the local engine and the rows come out identical; the driver assembles and writes the shards with
the same code. The driver keeps two chunks in flight per actor, so that an actor never waits for
the driver between chunks, and reads the corpus as it goes (memory stays flat).

Plain actors, not Ray Data's ``map_batches``: on this project's 2-core machine Ray Data's
executor and its statistics and autoscaling actors took CPU from the actors (docs/ray.md).

``address=None`` starts a local Ray instance with ``workers`` CPUs whose servers listen on loopback
only; ``"auto"`` or ``ray://host:10001`` joins an existing cluster.

When an actor dies (its node is gone, or native code crashed): its chunks go back to the queue at
once for the other actors, and Ray restarts it (``max_restarts=-1``) wherever a CPU frees up; it
takes work again once it answers. A chunk that was in flight on two actors that died is retried one
document at a time, each alone on an actor, as with the local engine; a document that kills an
actor alone gets a row with ``error`` filled (E321) and the run goes on.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections import Counter, deque
from typing import Iterable, Iterator, Optional

from ..errors import Errors, LogicparseError
from .worker import Chunk, ChunkAnnotator, ChunkResult, WorkerSpec, crashed, prepare_first_run

logger = logging.getLogger(__name__)

_LOOPBACK = "127.0.0.1"
PER_ACTOR = 1  # chunks in flight per actor
WAIT_WARNING_S = 60.0  # no actor ready for this long: say that the cluster has no free CPU


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
        source = iter(chunks)
        first = next(source, None)
        if first is None:
            return
        ray = self._init()
        from ray.exceptions import RayActorError, RayTaskError

        remote = ray.remote(num_cpus=self.spec.threads, max_restarts=-1, max_task_retries=0)
        self._actors = [remote(_Actor).remote(self.spec) for _ in range(self.workers)]
        queue: deque[Chunk] = deque([first])
        probes = {a.ready.remote(): a for a in self._actors}  # actors not (or no longer) ready
        ready: dict = {}  # actor -> its futures in flight
        pending: dict = {}  # future -> (actor, chunk)
        deaths: Counter = Counter()  # (shard, start, size) -> actors that died holding it
        waiting_since = time.monotonic()
        try:
            while True:
                self._dispatch(source, queue, ready, pending)
                if not pending and not queue:
                    return
                done, _ = ray.wait([*pending, *probes], num_returns=1,
                                   timeout=None if ready else WAIT_WARNING_S)
                if not done:
                    if time.monotonic() - waiting_since >= WAIT_WARNING_S:
                        logger.warning(Errors.W312.format(workers=self.workers, threads=self.spec.threads))
                        waiting_since = time.monotonic()
                    continue
                (future,) = done
                if future in probes:
                    actor = probes.pop(future)
                    try:
                        ray.get(future)
                    except RayActorError:  # died while starting: Ray starts it again
                        probes[actor.ready.remote()] = actor
                        continue
                    except RayTaskError as e:
                        raise _load_error(e.cause) from None
                    ready[actor] = set()
                    continue
                actor, chunk = pending.pop(future)
                try:
                    result = ray.get(future)
                except RayActorError:
                    if actor in ready:  # its other chunks fail too: those come back here as well
                        del ready[actor]
                        probes[actor.ready.remote()] = actor
                        waiting_since = time.monotonic()
                    yield from self._after_death(chunk, queue, deaths)
                    continue
                ready.get(actor, set()).discard(future)
                yield result
        finally:  # Ray itself stays up until close(): the caller may run more
            self._stop_actors()

    def _dispatch(self, source, queue: deque, ready: dict, pending: dict) -> None:
        """Give every ready actor work up to ``PER_ACTOR`` chunks; a chunk retried one document at
        a time runs alone on an idle actor, so that the actor's death names its document."""
        for actor, flying in ready.items():
            while len(flying) < PER_ACTOR and not any(pending[f][1].isolated for f in flying):
                if not queue:
                    chunk = next(source, None)
                    if chunk is None:
                        return
                    queue.append(chunk)
                if queue[0].isolated and flying:
                    break
                chunk = queue.popleft()
                future = actor.annotate.remote(chunk)
                pending[future] = (actor, chunk)
                flying.add(future)

    @staticmethod
    def _after_death(chunk: Chunk, queue: deque, deaths: Counter) -> Iterator[ChunkResult]:
        if chunk.isolated:
            yield crashed(chunk, "its Ray actor died")
            return
        key = (chunk.shard, chunk.start, len(chunk.ids))
        deaths[key] += 1
        if deaths[key] == 1:  # most often a node that went away: the chunk is retried whole
            queue.appendleft(chunk)
            return
        errors = chunk.errors or (None,) * len(chunk.ids)
        queue.extend(Chunk(chunk.shard, chunk.start + i, (d,), (t,), True, (e,))
                     for i, (d, t, e) in enumerate(zip(chunk.ids, chunk.texts, errors)))

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
