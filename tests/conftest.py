"""Shared test setup: offline model loading, and one bundled-parser Annotator per test session."""

import os

# Tests must never reach a model hub: torch and transformers load local files only.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def lexicon_annotator():
    """The real bundled parser with lexicon senses (no encoder), loaded once for the session."""
    import logicparse

    return logicparse.Annotator(parser="default", senses=None)
