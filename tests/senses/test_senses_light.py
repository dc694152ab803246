"""The sense encoder without PyTorch: after a first run under ONNX Runtime, a new process encodes
from the cache with the same vectors, fingerprint and windows; a changed block file, another
runtime or a name the cache does not cover loads the encoder with PyTorch."""

import re

import numpy as np
import pytest

from logicparse.senses.features import Encoder, Occurrence

pytest.importorskip("onnxruntime")

TEXTS = ["As the storm grew, we stayed inside while they left.", "Since then, as ever, nothing.",
         "Café naïve ÉCOLE 中文 as well ①", "as",
         "x" * 3000 + " as " + "y " * 600,
         "He ran as fast as he could, since he was late, yet he missed it. " * 30]


def occurrences():
    return [Occurrence(t, *re.search(r"\bas\b", t, re.I).span()) for t in TEXTS]


def test_the_light_encoder_gives_the_same_vectors(tmp_path, monkeypatch):
    from logicparse.senses.light import LightEncoder, load_light_encoder

    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path))
    assert load_light_encoder("default") is None  # nothing cached yet
    full = Encoder("default", runtime="onnx")
    want = full.encode(occurrences(), layers=[2, 4], max_length=64)
    light = load_light_encoder("default")  # the first pass above wrote the record
    assert isinstance(light, LightEncoder)
    assert light.fingerprint == full.fingerprint and light.identity == full.identity
    assert [light.window(o, 64) for o in occurrences()] == [full.window(o, 64) for o in occurrences()]
    for max_length in (64, None):
        got = light.encode(occurrences(), layers=[2, 4], max_length=max_length)
        want = full.encode(occurrences(), layers=[2, 4], max_length=max_length)
        for key in want:
            np.testing.assert_array_equal(got[key], want[key], err_msg=str(key))

    monkeypatch.setenv("LOGICPARSE_ENCODER_RUNTIME", "torch")
    assert load_light_encoder("default") is None
    monkeypatch.delenv("LOGICPARSE_ENCODER_RUNTIME")
    assert load_light_encoder("default", device="cuda") is None
    assert load_light_encoder("albert-base-v2") is None  # a hub name: PyTorch's path

    block = light._onnx.folder / "block1.onnx"
    with open(block, "ab") as f:  # a block file changed since the record
        f.write(b"\0")
    assert load_light_encoder("default") is None


def test_sense_models_take_the_light_encoder():
    """The bundled SVMs accept it (the fingerprint they were trained with) and decide as with
    the encoder loaded with PyTorch and run in the same precision."""
    from logicparse.senses import SenseQuery, load_senses
    from logicparse.senses.classifier import get_encoder
    from logicparse.senses.light import load_light_encoder

    Encoder("default").encode(occurrences()[:1], layers=[1])  # leaves the record if missing
    light = load_light_encoder("default")
    assert light is not None
    queries = [SenseQuery("as", ("temporal", "causal"), o.text, o.char_start, o.char_end)
               for o in occurrences()]
    a = load_senses("default", encoder=light).disambiguate(queries)
    b = load_senses("default", encoder=Encoder("default", runtime="onnx")).disambiguate(queries)
    assert [(d.relation, round(d.confidence, 4)) for d in a] == \
        [(d.relation, round(d.confidence, 4)) for d in b]
    get_encoder.cache_clear()
    assert type(get_encoder("default")).__name__ == "LightEncoder"


def test_a_tokenizer_set_up_beyond_its_file_leaves_no_record(tmp_path, monkeypatch):
    """Where tokenizer.json alone would not give the encoder's own subwords (transformers
    configures some tokenizers from their config too), no record is written."""
    from logicparse.senses import encoder_record
    from logicparse.senses.light import load_light_encoder

    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path))
    Encoder("default", runtime="onnx", max_length=32).encode(occurrences()[:2], layers=[1])
    assert load_light_encoder("default") is None  # not the default length: no record
    Encoder("default", runtime="onnx").encode(occurrences()[:2], layers=[1])
    assert load_light_encoder("default") is not None
    real = encoder_record.FileTokenizer.batch

    def other(self, texts):
        enc, offsets, special = real(self, texts)
        return {**enc, "input_ids": enc["input_ids"][:, ::-1].copy()}, offsets, special

    monkeypatch.setattr(encoder_record.FileTokenizer, "batch", other)
    Encoder("default", runtime="onnx").encode(occurrences()[:2], layers=[1])
    assert load_light_encoder("default") is None  # the record that no longer holds is removed


def test_a_record_serves_only_the_precision_it_was_made_in(tmp_path, monkeypatch):
    """Records are named by the precision asked for: a float32 run's record is not used by a
    process asking for int8 (the default), and each gives its own blocks back."""
    from logicparse.senses.light import load_light_encoder

    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path))
    Encoder("default", precision="fp32").encode(occurrences()[:1], layers=[1])
    assert load_light_encoder("default") is None
    monkeypatch.setenv("LOGICPARSE_ENCODER_PRECISION", "fp32")
    assert load_light_encoder("default").precision == "fp32"
    monkeypatch.delenv("LOGICPARSE_ENCODER_PRECISION")
    full = Encoder("default")
    full.encode(occurrences()[:1], layers=[1])
    light = load_light_encoder("default")
    assert light.precision == "int8" and light._onnx.folder == full._onnx.folder
