"""What the corpus benchmarks share: the offline environment, their corpus options, the texts.

Imported by the scripts beside it (``python benchmarks/speed/NAME.py`` puts this folder on the
path).
"""

import argparse
import os
from pathlib import Path

from logicparse.resources import offline_environment

offline_environment()
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[2]


def corpus_arguments(doc: str) -> argparse.ArgumentParser:
    """An argument parser with ``--corpus``, ``--limit`` and ``--batch-size``."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=str(ROOT.parent / "shared/data/corpora/inaugural"))
    ap.add_argument("--limit", type=int, default=0, help="only the first N files (0 = all)")
    ap.add_argument("--batch-size", type=int, default=8)
    return ap


def corpus_texts(args) -> list[str]:
    """The ``*.txt`` files of ``--corpus`` in name order (the first ``--limit``), as text."""
    files = sorted(Path(args.corpus).glob("*.txt"))[: args.limit or None]
    return [f.read_bytes().decode("utf-8", errors="replace") for f in files]
