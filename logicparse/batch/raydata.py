"""The Ray engine: the same chunks through Ray Data ``map_batches`` over an actor pool.

Each input row of the Ray dataset is one :class:`~logicparse.batch.worker.Chunk` (``batch_size=1``),
so a document is parsed in the same company as with the local engine and the rows come out
identical. Every actor loads the models once (``ChunkAnnotator``) and returns the chunk's
Documents as an Arrow table; the driver assembles and writes the shards with the same code as the
local engine, so the shard format and manifest are the same. ``address=None`` starts a local Ray
instance with ``workers`` CPUs whose servers listen on loopback only; ``"auto"`` or
``ray://host:10001`` joins an existing cluster.
"""

from __future__ import annotations

import ipaddress
import logging
from typing import Iterable, Iterator, Optional

import pyarrow as pa

from ..errors import Errors, LogicparseError
from .worker import Chunk, ChunkAnnotator, ChunkResult, WorkerSpec, WorkerStats

logger = logging.getLogger(__name__)

_POS = ("__shard", "__start")
_STATS = "__"  # prefix of the WorkerStats columns
_LOOPBACK = "127.0.0.1"


class _Actor:
    """One Ray actor: models loaded once in ``__init__``."""

    def __init__(self, spec: WorkerSpec):
        self.annotate = ChunkAnnotator(spec)

    def __call__(self, batch: pa.Table) -> pa.Table:
        out = []
        for row in batch.to_pylist():
            result = self.annotate(Chunk(row["shard"], row["start"], tuple(row["ids"]),
                                         tuple(row["texts"]), errors=tuple(row["errors"])))
            t, n = result.table, result.table.num_rows
            cols = {"__shard": pa.array([row["shard"]] * n, pa.int64()),
                    "__start": pa.array([row["start"] + i for i in range(n)], pa.int64()),
                    **result.stats.arrow_columns(n, prefix=_STATS)}
            for name, values in cols.items():
                t = t.append_column(name, values)
            out.append(t)
        return pa.concat_tables(out)


class RayEngine:
    name = "ray"

    def __init__(self, spec: WorkerSpec, workers: int = 1, address: Optional[str] = None):
        self.spec, self.workers, self.address = spec, workers, address
        self._started_here = False

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
        # Ray Data needs the items up front; a corpus larger than the driver's memory is
        # annotated in several runs (one per part), or with the local engine per node.
        items = [{"shard": c.shard, "start": c.start, "ids": list(c.ids),
                  "texts": [t if t is not None else None for t in c.texts],
                  "errors": list(c.errors) or [None] * len(c.ids)} for c in chunks]
        if not items:
            return
        ray = self._init()
        if not logging.getLogger().isEnabledFor(logging.INFO):
            logging.getLogger("ray").setLevel(logging.WARNING)
        ctx = ray.data.DataContext.get_current()
        ctx.execution_options.preserve_order = True
        ctx.enable_progress_bars = False
        ds = ray.data.from_items(items, override_num_blocks=len(items))
        ds = ds.map_batches(_Actor, fn_constructor_kwargs={"spec": self.spec}, batch_size=1,
                            batch_format="pyarrow",
                            compute=ray.data.ActorPoolStrategy(size=self.workers),
                            num_cpus=self.spec.threads, zero_copy_batch=True)
        for batch in ds.iter_batches(batch_format="pyarrow", batch_size=None):
            yield from _split(batch)

    def close(self) -> None:
        if self._started_here:
            import ray

            ray.shutdown()
            self._started_here = False


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


def _split(batch: pa.Table) -> Iterator[ChunkResult]:
    """Results of one Ray output batch, one per run of consecutive rows of one shard."""
    shards = batch.column("__shard").to_pylist()
    starts = batch.column("__start").to_pylist()
    a = 0
    while a < len(shards):
        b = a + 1
        while b < len(shards) and shards[b] == shards[a] and starts[b] == starts[b - 1] + 1:
            b += 1
        part = batch.slice(a, b - a)
        stats = WorkerStats.from_arrow(part, prefix=_STATS)
        table = part.drop_columns(list(_POS) + [_STATS + k for k in WorkerStats.ARROW_TYPES])
        yield ChunkResult(Chunk(shards[a], starts[a], (), ()), table, stats)
        a = b
