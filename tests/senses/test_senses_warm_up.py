"""The sense classifiers' warm-up: the service calls it before it takes requests, so that the
first request with an ambiguous keyword does not open the encoder's blocks (ONNX Runtime
sessions, a few hundred milliseconds) on its own time."""

from __future__ import annotations

import pytest

from logicparse.senses import load_senses, onnx_encoder
from logicparse.senses.classifier import get_encoder
from logicparse.senses.features import ENV, Occurrence

pytest.importorskip("onnxruntime")


def _opened_while_deciding(monkeypatch, warm: bool) -> list:
    monkeypatch.delenv(ENV, raising=False)  # the blocks under ONNX Runtime, as on any CPU
    get_encoder.cache_clear()  # a fresh encoder: one shared with earlier tests has its blocks open
    senses = load_senses("default")
    if warm:
        senses.warm_up()
    opened = []
    real = onnx_encoder.session

    def counted(*args, **kwargs):
        opened.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(onnx_encoder, "session", counted)
    for kw in senses.keywords:  # every classifier, so every layer any of them reads
        text = f"It rained {kw} we left the house."
        start = text.index(f" {kw} ") + 1
        assert len(senses.predict_labels(kw, [Occurrence(text, start, start + len(kw))])) == 1
    get_encoder.cache_clear()  # later tests get one that was not counted
    return opened


def test_after_warm_up_no_query_opens_an_encoder_block(monkeypatch):
    assert _opened_while_deciding(monkeypatch, warm=True) == []


def test_without_it_the_first_queries_open_them(monkeypatch):
    # the check above would pass vacuously if deciding never opened anything
    assert _opened_while_deciding(monkeypatch, warm=False)
