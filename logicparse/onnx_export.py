"""Networks exported to ONNX at first use and kept in the user's cache, checked at every load.

The parser's network (``parser/onnx_network.py``) and the sense encoder's blocks
(``senses/onnx_encoder.py``) run under ONNX Runtime on a CPU. Each is exported from the loaded
PyTorch model into the cache (``LOGICPARSE_CACHE``, default ``~/.cache/logicparse``) under a key
made of the weights, the configuration and the exporting versions, so a changed model is exported
anew. Every file's sha256 is written beside it and checked at every load: a file that does not
match (a truncated write, an edit) is exported again. The caller's ``build`` exports into a
temporary folder and checks the export against PyTorch before anything is moved into place.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Callable, Optional, Sequence

from .resources import file_sha256

logger = logging.getLogger(__name__)


def cache_dir() -> Path:
    return Path(os.environ.get("LOGICPARSE_CACHE", Path.home() / ".cache" / "logicparse"))


def stamp(path: Path) -> str:
    """The sha256 written beside a cached file when it was built (checked by :func:`cached_files`
    at the load that just returned it: a record reads it instead of hashing the file again)."""
    return (path.parent / (path.name + ".sha256")).read_text().strip()


def _stamped(folder: Path, names: Sequence[str]) -> bool:
    for name in names:
        f, stamp = folder / name, folder / (name + ".sha256")
        if not (f.is_file() and stamp.is_file() and stamp.read_text().strip() == file_sha256(f)):
            return False
    return True


def cached_files(folder: Path, names: Sequence[str], build: Callable[[Path], None]) -> Path:
    """``folder``, holding the files ``names``, each with its sha256 beside it: built by
    ``build(tmp)`` (which writes every name into ``tmp``, or raises) when one is missing or does
    not match. Concurrent workers build once (a file lock); a half-built set is never visible."""
    if _stamped(folder, names):
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    with locked(folder / ".lock"):  # another worker may be exporting the same model
        if _stamped(folder, names):
            return folder
        if any((folder / name).exists() for name in names):
            logger.warning("%s does not match its sha256: exporting it again",
                           folder / names[0] if len(names) == 1 else folder)
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            build(Path(tmp))
            digests = {name: file_sha256(Path(tmp) / name) for name in names}
            for name in names:
                os.replace(Path(tmp) / name, folder / name)
        for name, digest in digests.items():
            (folder / (name + ".sha256")).write_text(digest + "\n")
    return folder


# A model directory's files that decide its subwords, beside its weights (transformers reads the
# last three when it sets up a tokenizer).
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")


def record_digest(h, folder: Path, **settings) -> Optional[str]:
    """``h`` (a sha256 of a model's weights) finished with the tokenizer files ``folder`` has,
    ``settings`` and the installed versions of what builds, runs and tokenizes for the exported
    files: the name of a light record (``parser/light.py``, ``senses/encoder_record.py``). None
    when one of those packages is not installed."""
    from importlib import metadata

    from .resources import file_sha256

    for name in TOKENIZER_FILES:
        if (folder / name).is_file():
            h.update(name.encode() + file_sha256(folder / name).encode())
    try:
        versions = {name: metadata.version(name) for name in
                    ("onnxruntime", "torch", "transformers", "tokenizers", "logicparse")}
    except metadata.PackageNotFoundError:
        return None
    h.update(json.dumps({**settings, **versions}, sort_keys=True).encode())
    return h.hexdigest()[:32]


def forget_record(path: Path) -> None:
    """Remove a light record that no longer holds (its model's check failed this time)."""
    try:
        path.unlink(missing_ok=True)
    except OSError as e:
        logger.info("the cache record %s was not removed (%s)", path, e)


_session_threads: Optional[int] = None  # set by a process that divides its CPUs (the service)


CGROUP_CPU_MAX = Path("/sys/fs/cgroup/cpu.max")  # a container's CPU quota (cgroup v2)


def available_cpus() -> int:
    """The CPUs this process may run on: not the host's, in a container (its CPU affinity, and
    its cgroup's CPU quota, rounded up, where one is set)."""
    try:
        cpus = len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    try:
        quota, period = CGROUP_CPU_MAX.read_text().split()[:2]
        if quota != "max":
            cpus = min(cpus, max(1, -(-int(quota) // int(period))))
    except (OSError, ValueError):  # no cgroup v2 file, or one this reading does not understand
        pass
    return cpus


def divide_cpus(threads: int) -> None:
    """Give each of ``threads`` threads that run networks at once its share of the CPUs: the
    sessions this process opens from now on take ``available_cpus() // threads`` threads (at least
    one) unless ``OMP_NUM_THREADS`` says otherwise. Several short calls side by side on one thread
    each outrun one call split across the cores (the service, measured in docs/service.md)."""
    global _session_threads
    _session_threads = max(1, available_cpus() // max(1, threads))


def session_threads(default: int) -> int:
    """Threads for a session opened beside PyTorch (a model loaded with it): ``OMP_NUM_THREADS``,
    else the process's share (:func:`divide_cpus`), else ``default`` (torch's thread count)."""
    env = int(os.environ.get("OMP_NUM_THREADS") or 0)
    return env if env > 0 else _session_threads or default


def cpu_threads() -> int:
    """Threads for an ONNX Runtime session where torch does not say: ``OMP_NUM_THREADS``, else
    the process's share (:func:`divide_cpus`), else the CPUs this process may run on."""
    return session_threads(available_cpus())


def write_record(path: Path, record: dict) -> None:
    """Write a light record whole (a reader never sees half of one). A cache that cannot be
    written costs the next process its PyTorch load, no more."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(record))
        os.replace(tmp, path)
    except OSError as e:
        logger.info("the cache record %s was not written (%s)", path, e)


@contextlib.contextmanager
def locked(path: Path):
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: concurrent exports just repeat the work
        yield
        return
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def session(path: Path, threads: int = 1):
    """An ONNX Runtime CPU session over ``path`` with ``threads`` threads inside an operator."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = max(1, threads)
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Threads that spin between calls would take the core from the worker's own Python work.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


RUNTIMES = ("auto", "onnx", "torch")
#: What ONNX Runtime runs a network in: "int8" (the default: weights one scale per output channel,
#: activations one scale per token, so a sentence's result does not depend on its batch;
#: parser/int8.py) or "fp32" (the trained weights). PyTorch always runs float32.
PRECISIONS = ("fp32", "int8")


def check_precision(precision, env: str, what: str) -> str:
    """The precision asked for (argument, else the environment variable ``env``, else "int8"),
    or E106 naming the choices."""
    from .errors import Errors, ModelLoadError

    precision = precision or os.environ.get(env) or "int8"
    if precision not in PRECISIONS:
        raise ModelLoadError(Errors.E106.format(what=what, setting="precision", value=precision,
                                                env=env, options=", ".join(PRECISIONS)))
    return precision


def choose_runtime(runtime, env: str, device, what: str, build: Callable[[], object]):
    """``build()`` (the ONNX Runtime runner) or None (run in PyTorch). ``runtime``: "torch",
    "onnx" (ONNX Runtime, CPU only) or "auto" (the default, also from the environment variable
    ``env``): ONNX Runtime on a CPU when it is installed and the export works, PyTorch otherwise
    (a GPU, a model the export does not cover, a failed export; logged)."""
    import torch

    from .errors import Errors, ModelLoadError

    runtime = runtime or os.environ.get(env) or "auto"
    if runtime not in RUNTIMES:
        raise ModelLoadError(Errors.E106.format(what=what, setting="runtime", value=runtime,
                                                env=env, options=", ".join(RUNTIMES)))
    if runtime == "torch" or torch.device(device).type != "cpu":
        return None
    try:
        return build()
    except Exception as e:  # noqa: BLE001 - any failure leaves the PyTorch path, which always works
        if runtime == "onnx":
            raise ModelLoadError(Errors.E107.format(what=what, env=env,
                                                    reason=f"{type(e).__name__}: {e}")) from e
        logger.warning("%s: ONNX Runtime not used (%s: %s); running it in PyTorch",
                       what, type(e).__name__, e)
        return None
