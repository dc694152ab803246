"""Shared test setup: offline model loading, one bundled-parser Annotator per test session, and
the benchmarks' helpers loaded from the checkout."""

import importlib.util
import os
from pathlib import Path

# Tests must never reach a model hub: torch and transformers load local files only.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import pytest  # noqa: E402

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def benchmark_module(path: str):
    """``benchmarks/<path>.py`` (``"robustness/_received_files"``) loaded as a module: what a
    robustness case writes, a test can too."""
    spec = importlib.util.spec_from_file_location(Path(path).name, BENCHMARKS / f"{path}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def lexicon_annotator():
    """The real bundled parser with lexicon senses (no encoder), loaded once for the session."""
    import logicparse

    return logicparse.Annotator(parser="default", senses=None)
