"""The local engine: ``--workers N`` processes on this machine, each loading the models once.

Chunks go out through a ``ProcessPoolExecutor`` (spawn: no torch state is forked) with a bounded
number in flight, so memory stays flat however large the corpus. If a worker process dies (a
crash in native code, the OOM killer), the chunks it may have held are retried one document at a
time, one at a time, on a fresh pool; a document that kills a worker again gets a row with
``error`` filled (E321) and the run goes on.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Iterable, Iterator, Optional

from .worker import (Chunk, ChunkAnnotator, ChunkResult, WorkerSpec, crashed, limit_threads,
                     prepare_first_run)

_ANNOTATOR: Optional[ChunkAnnotator] = None
_INIT_ERROR: Optional[BaseException] = None


def _init_worker(spec: WorkerSpec) -> None:
    global _ANNOTATOR, _INIT_ERROR
    # Ctrl-C reaches the whole process group: the parent decides what to do, workers carry on
    # until they are told to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_with_parent()
    limit_threads(spec.threads)
    try:
        _ANNOTATOR = ChunkAnnotator(spec)
    except Exception as e:  # noqa: BLE001 - raised with the first chunk: the parent stops the run
        _INIT_ERROR = e


def _exit_with_parent(interval: float = 1.0) -> None:
    """A worker whose parent was killed (kill -9, OOM) would otherwise wait for work forever."""
    parent = os.getppid()

    def watch():
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _run_chunk(chunk: Chunk) -> ChunkResult:
    if _INIT_ERROR is not None:
        raise _INIT_ERROR
    return _ANNOTATOR(chunk)


class LocalEngine:
    name = "local"

    def __init__(self, spec: WorkerSpec, workers: int = 1, in_flight: Optional[int] = None):
        self.spec = spec
        self.workers = workers
        self.in_flight = in_flight or 2 * workers
        self._pool: Optional[ProcessPoolExecutor] = None

    def _new_pool(self, workers: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=workers,
                                   mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_init_worker, initargs=(self.spec,))

    def prepare(self) -> None:
        prepare_first_run(self.spec)

    def run(self, chunks: Iterable[Chunk]) -> Iterator[ChunkResult]:
        """Results as they complete (not in order: the caller assembles shards)."""
        self.prepare()
        source = iter(chunks)
        retry: deque[Chunk] = deque()
        pending = {}
        self._pool = self._new_pool(self.workers)
        try:
            while True:
                # Retries after a crash run alone so that the culprit is known exactly.
                limit = 1 if retry else self.in_flight
                while len(pending) < limit:
                    chunk = retry.popleft() if retry else next(source, None)
                    if chunk is None:
                        break
                    pending[self._pool.submit(_run_chunk, chunk)] = chunk
                if not pending:
                    return
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                broken = []
                for fut in done:
                    chunk = pending.pop(fut)
                    try:
                        yield fut.result()
                    except BrokenProcessPool as e:
                        broken.append((chunk, e))
                if broken:
                    lost = [c for c, _ in broken] + list(pending.values())
                    pending.clear()
                    self._pool.shutdown(wait=False, cancel_futures=True)
                    for chunk in sorted(lost, key=lambda c: (c.shard, c.start)):
                        if chunk.isolated:
                            yield crashed(chunk, str(broken[0][1]))
                        else:
                            errors = chunk.errors or (None,) * len(chunk.ids)
                            retry.extend(Chunk(chunk.shard, chunk.start + i, (d,), (t,), True, (e,))
                                         for i, (d, t, e) in enumerate(zip(chunk.ids, chunk.texts,
                                                                           errors)))
                    self._pool = self._new_pool(self.workers)
        finally:
            self.close()

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # On an interrupt, do not wait for chunks in flight: their shards are redone on resume.
        procs = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(timeout=10)

