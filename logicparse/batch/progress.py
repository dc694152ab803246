"""Progress of a batch run: a rich bar (documents/s, sentences/s, ETA) on a terminal, a plain line
every ``interval`` seconds otherwise (logs, CI), nothing with ``--quiet``."""

from __future__ import annotations

import sys
import threading
import time
from typing import Optional, TextIO


LOADING = "loading models…"


class Progress:
    """Counts documents and sentences; subclasses show them. This base class shows nothing."""

    def __init__(self):
        self.total: Optional[int] = None
        self.docs = 0  # annotated in this run
        self.skipped = 0  # found finished (resume)
        self.sentences = 0
        self.failed = 0
        self.t0 = time.perf_counter()

    def start(self, total: Optional[int]) -> None:
        self.total = total
        self.t0 = time.perf_counter()

    def skip(self, docs: int) -> None:
        self.skipped += docs

    def advance(self, docs: int, sentences: int, failed: int) -> None:
        self.docs += docs
        self.sentences += sentences
        self.failed += failed

    def close(self) -> None:
        pass

    # shared by the views
    def rates(self) -> tuple[float, float, Optional[float]]:
        elapsed = max(time.perf_counter() - self.t0, 1e-9)
        dps, sps = self.docs / elapsed, self.sentences / elapsed
        eta = None
        if self.total is not None and dps > 0:
            eta = max(self.total - self.skipped - self.docs, 0) / dps
        return dps, sps, eta


class PlainProgress(Progress):
    def __init__(self, stream: Optional[TextIO] = None, interval: float = 10.0):
        super().__init__()
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self._last = 0.0
        self._printed = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: Optional[threading.Thread] = None

    def start(self, total):
        super().start(total)
        self._last = time.perf_counter()
        # The workers load the parser and sense models first: seconds with nothing else to show.
        print(f"annotate: {LOADING}", file=self.stream, flush=True)
        # A line every interval even while no document finishes (models loading, a long chunk).
        if self.interval > 0:
            self._ticker = threading.Thread(target=self._tick, name="progress", daemon=True)
            self._ticker.start()

    def _tick(self):
        while not self._stop.wait(self.interval / 4):
            if time.perf_counter() - self._last >= self.interval:
                self._print()

    def advance(self, docs, sentences, failed):
        super().advance(docs, sentences, failed)
        if time.perf_counter() - self._last >= self.interval:
            self._print()

    def close(self):
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        if self._printed != (self.docs, self.skipped):
            self._print()

    def _print(self):
        with self._lock:
            self._print_locked()

    def _print_locked(self):
        self._last = time.perf_counter()
        if not self.docs and not self.skipped:
            print(f"annotate: {LOADING} ({self._last - self.t0:.0f} s)", file=self.stream,
                  flush=True)
            return
        self._printed = (self.docs, self.skipped)
        dps, sps, eta = self.rates()
        done = self.docs + self.skipped
        of = f"/{self.total}" if self.total is not None else ""
        pct = f" ({100 * done / self.total:.0f}%)" if self.total else ""
        resumed = f", {self.skipped} resumed" if self.skipped else ""
        eta_s = f", ETA {_hms(eta)}" if eta is not None else ""
        print(f"annotate: {done}{of} documents{pct}{resumed}, {dps:.2f} docs/s, {sps:.1f} "
              f"sentences/s, {self.failed} failed{eta_s}", file=self.stream, flush=True)


class RichProgress(Progress):
    def __init__(self, console=None):
        super().__init__()
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn,
                                   TimeRemainingColumn)
        from rich.progress import Progress as _Bar

        self._bar = _Bar(TextColumn("annotate"), BarColumn(), MofNCompleteColumn(),
                         TextColumn("{task.fields[rate]}"), TextColumn("ETA"),
                         TimeRemainingColumn(),
                         TextColumn("elapsed"), TimeElapsedColumn(),
                         console=console or Console(stderr=True), transient=False)
        self._task = None

    def start(self, total):
        super().start(total)
        self._bar.start()
        self._task = self._bar.add_task("annotate", total=total, rate=LOADING)

    def skip(self, docs):
        # Resumed documents leave the bar's total rather than advance it, so that the rate and
        # ETA count only the work of this run.
        super().skip(docs)
        if self._task is not None and self.total is not None:
            self._bar.update(self._task, total=self.total - self.skipped)

    def advance(self, docs, sentences, failed):
        super().advance(docs, sentences, failed)
        dps, sps, _ = self.rates()
        failed_s = f", [red]{self.failed} failed[/]" if self.failed else ""
        self._bar.update(self._task, advance=docs,
                         rate=f"{dps:.2f} docs/s, {sps:.1f} sent/s{failed_s}")

    def close(self):
        self._bar.stop()


def make_progress(quiet: bool = False, stream: Optional[TextIO] = None, interval: float = 10.0
                  ) -> Progress:
    if quiet:
        return Progress()
    stream = stream if stream is not None else sys.stderr  # looked up now: tests swap it
    if stream.isatty():
        return RichProgress()
    return PlainProgress(stream, interval)


def _hms(seconds: float) -> str:
    s = int(round(seconds))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s" if m else f"{s}s"
