"""What one worker (a local process or a Ray actor) does: load the models once, then turn chunks
of documents into Arrow tables of Documents."""

from __future__ import annotations

import ctypes
import importlib
import logging
import multiprocessing
import os
import resource
import sys
import time
import warnings
from dataclasses import asdict, dataclass, fields
from functools import lru_cache
from typing import Optional

import pyarrow as pa

from ..errors import Errors
from ..resources import model_name, offline_environment
from ..terminal import warnings_as_lines
from ..tokens import Document
from .shards import documents_to_table


@dataclass(frozen=True)
class WorkerSpec:
    """How a worker builds its Annotator (picklable: it travels to processes and Ray actors)."""

    parser: str = "default"
    senses: Optional[str] = "default"
    device: str = "cpu"
    mapping: str = "default"  # "default", "learned" or "paper" (Algorithm 1 exactly)
    threads: int = 1  # torch threads per worker; processes, not threads, are how a run scales
    # "module:function" returning an object with .pipe(texts, batch_size, ids) and, optionally,
    # .parser.name / .senses.name. For tests and custom pipelines; None = logicparse.Annotator.
    # Like the Annotator, its pipe yields one Document per text and records a failing document
    # in its ``error`` (logicparse.retry); the worker handles only the death of its process.
    factory: Optional[str] = None

    def __post_init__(self):
        # Refuse a device, parser or senses value that names nothing here, in the calling
        # process, before any worker starts or any output is written.
        from ..resources import check_device

        check_device(self.device)
        if self.factory is None:
            from ..parser import check_parser
            from ..resources import senses_spec

            senses_spec(self.senses)
            check_parser(self.parser)


@dataclass(frozen=True)
class Chunk:
    """Consecutive documents of one shard: rows [start, start + len(ids)) of shard ``shard``.
    Chunks are cut from the input alone (never from the number of workers), so a document is
    always parsed in the same company and the shards do not depend on how the run was spread."""

    shard: int
    start: int
    ids: tuple
    texts: tuple
    isolated: bool = False  # retried alone after a worker died
    errors: tuple = ()  # per document: None, or why its record could not be read (row error)


@dataclass(frozen=True)
class WorkerStats:
    """What a worker reports with every chunk: its memory, its models and its timings."""

    pid: int
    rss_mb: float
    peak_rss_mb: float
    parser: Optional[str]
    senses: Optional[str]
    load_s: float  # loading the models
    ready_at: float  # wall clock when the models were loaded
    parse_s: float  # cumulative parsing time of this worker

    ARROW_TYPES = {"pid": pa.int64(), "rss_mb": pa.float64(), "peak_rss_mb": pa.float64(),
                   "parser": pa.string(), "senses": pa.string(), "load_s": pa.float64(),
                   "ready_at": pa.float64(), "parse_s": pa.float64()}

    def arrow_columns(self, rows: int, prefix: str = "") -> dict:
        """The stats repeated over ``rows`` rows, one Arrow array per field (named with
        ``prefix``): how they travel beside a chunk's table out of a Ray actor."""
        return {prefix + k: pa.array([v] * rows, self.ARROW_TYPES[k])
                for k, v in asdict(self).items()}

    @classmethod
    def from_arrow(cls, table: pa.Table, prefix: str = "") -> "WorkerStats":
        """The stats carried by the first row of ``table`` (see :meth:`arrow_columns`)."""
        return cls(**{f.name: table.column(prefix + f.name)[0].as_py() for f in fields(cls)})


@dataclass
class ChunkResult:
    chunk: Chunk
    table: pa.Table
    stats: Optional[WorkerStats] = None  # None: the worker died, nothing to report


def crashed(chunk: Chunk, reason: str) -> ChunkResult:
    """The rows of a chunk whose worker died with it: each document failed with E321."""
    docs = [Document.failed(d, t if isinstance(t, str) else "", Errors.E321.format(reason=reason))
            for d, t in zip(chunk.ids, chunk.texts)]
    return ChunkResult(chunk, documents_to_table(docs))


def limit_threads(threads: int) -> None:
    """Called before torch is imported in a worker, and again after."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(threads)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # Library notices repeated by every worker would bury the progress lines.
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    warnings.filterwarnings("ignore", message=".*does not define `arg_constraints`")
    warnings_as_lines()  # a worker's warnings read as the command's own: one line each
    offline_environment()
    if "torch" in sys.modules:
        import torch

        torch.set_num_threads(threads)


class ChunkAnnotator:
    """Loads the models once; ``__call__(chunk)`` -> ChunkResult. Never raises for a document:
    a document that fails becomes a row with ``error`` filled."""

    def __init__(self, spec: WorkerSpec):
        t0 = time.perf_counter()
        limit_threads(spec.threads)
        if spec.factory:
            module, _, name = spec.factory.partition(":")
            self.annotator = getattr(importlib.import_module(module), name)()
        else:
            from ..annotator import Annotator

            parser, senses = light_models(spec)
            self.annotator = Annotator(parser=parser, senses=senses, device=spec.device,
                                       mapping=spec.mapping)
        limit_threads(spec.threads)
        self.parse_s = 0.0
        if hasattr(getattr(self.annotator, "parser", None), "parse"):
            self.annotator.parser = _TimedParser(self.annotator.parser, self)
        # A custom factory's models are named by the objects alone, never by the unused specs.
        self.models = {
            "parser": model_name(getattr(self.annotator, "parser", None),
                                 None if spec.factory else spec.parser),
            "senses": model_name(getattr(self.annotator, "senses", None),
                                 None if spec.factory else spec.senses),
        }
        self.load_s = round(time.perf_counter() - t0, 3)
        self.ready_at = time.time()  # wall clock: the run measures start-up (spawn, imports, load)

    def __call__(self, chunk: Chunk) -> ChunkResult:
        docs = self.annotate(list(chunk.ids), list(chunk.texts), list(chunk.errors))
        release_free_memory()
        return ChunkResult(chunk, documents_to_table(docs),
                           WorkerStats(**memory_stats(), **self.models, load_s=self.load_s,
                                       ready_at=self.ready_at, parse_s=round(self.parse_s, 4)))

    def annotate(self, ids: list, texts: list, errors: Optional[list] = None) -> list[Document]:
        if errors and any(errors):  # records that could not be read: rows with their error
            todo = [i for i, e in enumerate(errors) if e is None]
            done = iter(self.annotate([ids[i] for i in todo], [texts[i] for i in todo]))
            # A row with an error keeps what was read of its text (a prefix of one too long).
            return [Document.failed(ids[i], texts[i] if isinstance(texts[i], str) else "", e)
                    if e is not None else next(done) for i, e in enumerate(errors)]
        if not ids:
            return []
        # A document that fails is the Annotator's to record (logicparse.retry): it yields a row
        # with ``error`` and never raises. The worker handles only the death of its process.
        docs = list(self.annotator.pipe(texts, batch_size=max(1, len(texts)), ids=ids))
        if len(docs) != len(ids):
            raise RuntimeError(f"pipe returned {len(docs)} documents for {len(ids)} inputs")
        return docs


def light_models(spec: WorkerSpec) -> tuple:
    """(parser, senses) for the Annotator: the models themselves when they load from what an
    earlier run left in the cache without PyTorch (``parser/light.py``, ``senses/light.py``),
    else the specs (loaded with PyTorch, which leaves those files for the next run).

    Such a worker never runs PyTorch, but spaCy and skops import it (thinc looks for GPU support
    a tokenizer does not use; skops lists every scikit-learn module): about 220 MB of every
    worker's memory. So the worker then hides it from imports (:class:`_NoTorch`)."""
    if spec.device != "cpu" or "torch" in sys.modules:
        return spec.parser, spec.senses
    from ..parser.light import load_light

    parser = load_light(spec.parser)
    if parser is None:
        return spec.parser, spec.senses
    hook = _NoTorch()
    sys.meta_path.insert(0, hook)
    if spec.senses is None:
        return parser, None
    from ..senses import load_senses

    try:
        return parser, load_senses(spec.senses)  # its encoder from the cache where it can
    except ModuleNotFoundError as e:  # an encoder the cache does not hold: PyTorch loads it
        if e.name != "torch":
            raise
        sys.meta_path.remove(hook)
        return parser, spec.senses


def needs_preparing(spec: WorkerSpec) -> bool:
    """Whether the cache lacks a record a worker could load its models from without PyTorch (a
    first run on this machine): the parser's, for the bundled model or a model directory, or the
    default sense encoder's. Other models load with PyTorch in any case."""
    from ..parser import light as parser_light
    from ..parser.runtime import ENV, check_precision as parser_precision
    from ..senses import encoder_record
    from ..senses.onnx_encoder import check_precision as encoder_precision

    if spec.factory or spec.device != "cpu" or os.environ.get(ENV, "auto") not in ("auto", "onnx"):
        return False
    folder = parser_light.model_folder(spec.parser)
    digest = parser_light.model_digest(folder, parser_precision()) if folder else None
    if digest is None:
        return False
    if not parser_light.record_path(digest).is_file():
        return True
    if spec.senses != "default":
        return False
    digest = encoder_record.encoder_digest(encoder_record.encoder_folder("default"),
                                           encoder_precision())
    return digest is not None and not encoder_record.record_path(digest).is_file()


def prepare_first_run(spec: WorkerSpec) -> None:
    """On a first run on this machine (no cache records yet), one spawned process loads the models
    with PyTorch and leaves the records, so that the workers load from the cache without PyTorch:
    about 0.7 GB a worker instead of 1.2 (docs/batch.md). Workers of one machine that call it at
    once take turns, and the later ones find the records."""
    if not needs_preparing(spec):
        return
    from ..onnx_export import cache_dir, locked

    try:
        cache_dir().mkdir(parents=True, exist_ok=True)
        with locked(cache_dir() / "prepare.lock"):
            if needs_preparing(spec):
                _prepare_in_child(spec)
    except OSError as e:  # a cache that cannot be written (or locked): the workers load with PyTorch
        logging.getLogger(__name__).info("the cache is not prepared (%s)", e)


def _prepare_in_child(spec: WorkerSpec) -> None:
    process = multiprocessing.get_context("spawn").Process(
        target=prepare, args=(spec,), name="logicparse-prepare")
    process.start()
    try:
        process.join()
    except BaseException:  # Ctrl-C: the run stops, and so does the preparing
        process.terminate()
        process.join()
        raise


def prepare(spec: WorkerSpec) -> None:
    """Load the models once with PyTorch (exporting, quantizing and writing the cache records),
    in this process; a failure is left for the workers to report as theirs."""
    limit_threads(spec.threads)
    try:
        ChunkAnnotator(spec)  # naming the sense models chooses their runtime: the record
    except (Exception, KeyboardInterrupt):  # noqa: BLE001 - the workers load the same models
        pass  # and say what failed; Ctrl-C stops the run in the parent


class _NoTorch:
    """An import hook under which ``import torch`` fails as if it were not installed."""

    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"No module named {name!r} (not used by this worker)",
                                      name=name)
        return None


class _TimedParser:
    """The Annotator's parser, timed: the run reports how much of its time is parsing."""

    def __init__(self, parser, owner: "ChunkAnnotator"):
        self._parser, self._owner = parser, owner

    def parse(self, sentences):
        t0 = time.perf_counter()
        try:
            return self._parser.parse(sentences)
        finally:
            self._owner.parse_s += time.perf_counter() - t0

    def __getattr__(self, name):
        return getattr(self._parser, name)


@lru_cache(maxsize=1)
def _libc_malloc_trim():
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc (macOS, musl): nothing to trim
        return None


def release_free_memory() -> None:
    """Hand freed heap memory back to the OS. Parsing a chunk allocates and frees charts of
    every size; glibc keeps the freed pages, so without this a worker's RSS crept up by a fifth
    over the inaugural corpus (828 -> 1,004 MB over 15 chunks) and stayed flat with it (665 ->
    678 MB; docs/batch.md)."""
    trim = _libc_malloc_trim()
    if trim is not None:
        trim(0)


def memory_stats() -> dict:
    import psutil

    rss = psutil.Process().memory_info().rss
    # ru_maxrss is in KiB on Linux, bytes on macOS.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak = peak if sys.platform == "darwin" else peak * 1024
    return {"pid": os.getpid(), "rss_mb": round(rss / 2**20, 1),
            "peak_rss_mb": round(peak / 2**20, 1)}
