"""A batch worker whose parser and sense encoder load from the cache runs without PyTorch (spaCy's
and skops' imports of it are hidden) and writes the Documents of a worker that loads them with
PyTorch; an encoder the cache does not hold is loaded with PyTorch as before."""

import json
import os
import subprocess
import sys

import pytest

from logicparse.annotator import Annotator
from logicparse.parser import load_parser

pytest.importorskip("onnxruntime")

TEXTS = ["We stayed inside as it rained, but they left since the storm had passed.",
         "If you forget a dose, take it as soon as you remember. Do not drive while you feel "
         "drowsy, and keep it out of the reach of children."]

SCRIPT = """
import json, sys
from logicparse.batch.worker import ChunkAnnotator, WorkerSpec
w = ChunkAnnotator(WorkerSpec())
docs = w.annotate(["a", "b"], {texts!r})
print(json.dumps({{"parser": type(w.annotator.parser._parser).__name__,
                  "encoder": type(w.annotator.senses.encoder).__name__,
                  "torch": "torch" in sys.modules, "docs": [d.to_dict() for d in docs]}}))
"""


def run_worker(**env) -> dict:
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(texts=TEXTS)], capture_output=True,
                         text=True, env={**os.environ, "HF_HUB_OFFLINE": "1", **env}, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def documents(**encoder) -> list[dict]:
    """The Documents of models loaded with PyTorch, whose first ONNX runs leave the records."""
    from logicparse.senses import load_senses
    from logicparse.senses.features import Encoder

    annotator = Annotator(parser=load_parser("default", light=False),
                          senses=load_senses("default", encoder=Encoder("default", **encoder)))
    return [d.to_dict() for d in annotator.pipe(TEXTS, ids=["a", "b"])]


@pytest.fixture(scope="module")
def want():
    return documents()


def test_a_worker_from_the_cache_runs_without_torch(want):
    got = run_worker()
    assert (got["parser"], got["encoder"], got["torch"]) == ("LightParser", "LightEncoder", False)
    assert got["docs"] == want


def test_an_encoder_not_in_the_cache_is_loaded_with_torch():
    got = run_worker(LOGICPARSE_ENCODER_RUNTIME="torch")
    assert (got["parser"], got["encoder"], got["torch"]) == ("LightParser", "Encoder", True)
    assert got["docs"] == documents(precision="fp32")  # PyTorch runs float32
