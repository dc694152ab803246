"""Where the files bundled inside the package live.

Everything a user needs at run time ships inside ``logicparse/`` so that a plain ``pip install``
(wheel, not a clone) finds it: the parser, the sense models and the labelled occurrences they
were trained from.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
MODELS_DIR = PACKAGE_DIR / "models"
PARSER_DIR = MODELS_DIR / "parser"
ANNOTATIONS_DIR = PACKAGE_DIR / "annotations"


def sense_models_dir() -> Path:
    """The bundled sense models (``LOGICPARSE_SVM_MODELS`` points elsewhere)."""
    env = os.environ.get("LOGICPARSE_SVM_MODELS")
    return Path(env) if env else MODELS_DIR / "senses"
