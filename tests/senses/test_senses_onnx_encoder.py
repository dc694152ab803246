"""The sense encoder under ONNX Runtime: PyTorch's vectors in float32, from a checked cache, only
the blocks a pass needs; int8 by default, a keyword's vector independent of its batch, float32
where the int8 copies fail; a clear choice of runtime and precision, and PyTorch where the export
does not reach."""

import logging

import numpy as np
import pytest

from logicparse.errors import ModelLoadError
from logicparse.senses.features import Encoder, Occurrence

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

OCCURRENCES = [Occurrence("We left as it rained .", 8, 10), Occurrence("since 1990", 0, 5),
               Occurrence("Yet another word , and then one more while the sun was up and we "
                          "waited for the bus that never came since the roads were closed .",
                          58, 63)]


def _encoder_dir(tmp_path, config):
    """A random tiny encoder of ``config``'s kind with the MiniLM tokenizer, saved like any local
    model."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    from logicparse.resources import minilm_path

    torch.manual_seed(0)
    AutoModel.from_config(config).save_pretrained(tmp_path)
    AutoTokenizer.from_pretrained(minilm_path()).save_pretrained(tmp_path)
    return str(tmp_path)


def _same_vectors(spec, monkeypatch, tmp_path, window=None):
    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path / "cache"))
    fast = Encoder(spec, runtime="onnx", precision="fp32")
    slow = Encoder(spec, runtime="torch")
    got = fast.encode(OCCURRENCES, max_length=window)
    want = slow.encode(OCCURRENCES, max_length=window)
    assert fast._onnx and slow._onnx is False
    for key in want:
        np.testing.assert_allclose(got[key], want[key], atol=1e-4)
    return fast


def test_minilm_under_onnx_runtime_gives_pytorchs_vectors_from_a_checked_cache(
        tmp_path, monkeypatch, caplog):
    fast = _same_vectors("default", monkeypatch, tmp_path, window=16)
    folder = fast._onnx.folder
    assert folder.is_relative_to(tmp_path / "cache")
    assert sorted(p.name for p in folder.glob("*.onnx")) == [
        "block0.onnx", "block1.onnx", "block2.onnx", "block3.onnx", "block4.onnx",
        "block5.onnx", "embeddings.onnx"]

    # A pass runs only the blocks up to the layer asked for.
    again = Encoder("default", runtime="onnx", precision="fp32")
    part = again.encode(OCCURRENCES[:2], layers=[2])
    assert sorted(again._onnx._sessions) == ["block0.onnx", "block1.onnx", "embeddings.onnx"]
    np.testing.assert_allclose(part[(2, "first")],
                               fast.encode(OCCURRENCES[:2], layers=[2])[(2, "first")], atol=1e-5)

    # A damaged block is noticed by its sha256 and exported again, with the same vectors.
    with open(folder / "block3.onnx", "ab") as f:
        f.write(b"\0")
    with caplog.at_level(logging.WARNING):
        mended = Encoder("default", runtime="onnx", precision="fp32")
        vectors = mended.encode(OCCURRENCES, layers=[4])
    assert "does not match its sha256" in caplog.text
    assert mended._onnx.folder == folder
    np.testing.assert_allclose(vectors[(4, "mean")],
                               fast.encode(OCCURRENCES, layers=[4])[(4, "mean")], atol=1e-5)


@pytest.mark.parametrize("kind", ["bert", "roberta"])
def test_tiny_bert_like_encoders_under_onnx_runtime_give_pytorchs_vectors(kind, tmp_path,
                                                                          monkeypatch):
    from transformers import BertConfig, RobertaConfig

    sizes = dict(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                 intermediate_size=64, max_position_embeddings=80)
    config = BertConfig(**sizes) if kind == "bert" else RobertaConfig(**sizes)
    _same_vectors(_encoder_dir(tmp_path / kind, config), monkeypatch, tmp_path)


def test_an_encoder_the_export_does_not_cover_runs_in_pytorch_or_is_refused(
        tmp_path, monkeypatch, caplog):
    """ALBERT shares one block across its layers: no per-block export. ``auto`` says so once and
    runs PyTorch; ``onnx`` is a coded error."""
    from transformers import AlbertConfig

    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path / "cache"))
    spec = _encoder_dir(tmp_path / "albert", AlbertConfig(
        vocab_size=30522, embedding_size=16, hidden_size=32, num_hidden_layers=2,
        num_attention_heads=2, intermediate_size=64, max_position_embeddings=80))
    with caplog.at_level(logging.WARNING):
        auto = Encoder(spec)
        auto.encode(OCCURRENCES[:1])
    assert auto._onnx is False
    assert "sense encoder: ONNX Runtime not used" in caplog.text
    with pytest.raises(ModelLoadError, match="E107.*sense encoder.*LOGICPARSE_ENCODER_RUNTIME"):
        Encoder(spec, runtime="onnx").encode(OCCURRENCES[:1])


def test_unknown_encoder_runtime_is_refused(monkeypatch):
    with pytest.raises(ModelLoadError, match="E106.*'gpu'.*auto, onnx, torch"):
        Encoder("default", runtime="gpu").encode(OCCURRENCES[:1])
    monkeypatch.setenv("LOGICPARSE_ENCODER_RUNTIME", "fast")
    with pytest.raises(ModelLoadError, match="E106.*LOGICPARSE_ENCODER_RUNTIME"):
        Encoder("default").encode(OCCURRENCES[:1])


def _cosines(a, b):
    return np.sum(a * b, -1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


def test_int8_is_the_default_and_close_to_float32_whatever_the_batch(tmp_path, monkeypatch):
    from logicparse.senses.onnx_encoder import INT8_COSINE

    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path / "cache"))
    int8, fp32 = Encoder("default"), Encoder("default", precision="fp32")
    assert (int8.precision, fp32.precision) == ("int8", "fp32")
    assert "-int8-" in int8._onnx.folder.name
    assert sorted(p.name for p in int8._onnx.folder.glob("*.onnx")) == sorted(
        p.name for p in fp32._onnx.folder.glob("*.onnx"))
    got, want = int8.encode(OCCURRENCES, layers=[3, 6]), fp32.encode(OCCURRENCES, layers=[3, 6])
    for key in want:
        assert not np.allclose(got[key], want[key], atol=1e-4), key  # int8 really ran
        assert _cosines(got[key], want[key]).min() >= max(INT8_COSINE, 0.98), key
    # Activations are quantized token by token: a keyword's vector does not depend on the
    # texts encoded beside it.
    alone = int8.encode(OCCURRENCES[1:2], layers=[6])
    np.testing.assert_allclose(alone[(6, "mean")][0], got[(6, "mean")][1], atol=1e-5)


def test_int8_copies_that_fail_their_check_leave_float32(tmp_path, monkeypatch, caplog):
    from logicparse.senses import onnx_encoder

    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(onnx_encoder, "least_cosine", lambda *a: 0.5)
    with caplog.at_level(logging.WARNING):
        encoder = Encoder("default")
        vectors = encoder.encode(OCCURRENCES[:1], layers=[2])
    assert encoder.precision == "fp32"
    assert "the int8 blocks are not used" in caplog.text and "0.500" in caplog.text
    np.testing.assert_allclose(
        vectors[(2, "mean")],
        Encoder("default", runtime="torch").encode(OCCURRENCES[:1], layers=[2])[(2, "mean")],
        atol=1e-4)


def test_the_sense_models_name_says_int8(tmp_path, monkeypatch):
    from logicparse.resources import model_name
    from logicparse.senses import load_senses

    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path / "cache"))
    assert model_name(load_senses("default", encoder=Encoder("default"))).endswith(
        "all-MiniLM-L6-v2 (int8)")
    assert model_name(load_senses("default", encoder=Encoder("default", precision="fp32"))
                      ).endswith("all-MiniLM-L6-v2")


def test_unknown_encoder_precision_is_refused(monkeypatch):
    with pytest.raises(ModelLoadError, match="E106.*sense encoder.*'int4'.*fp32, int8"):
        Encoder("default", precision="int4")
    monkeypatch.setenv("LOGICPARSE_ENCODER_PRECISION", "half")
    with pytest.raises(ModelLoadError, match="E106.*LOGICPARSE_ENCODER_PRECISION"):
        Encoder("default")


def test_two_threads_share_one_encoder(tmp_path, monkeypatch):
    """The service's annotation threads share one encoder: concurrent passes give the vectors of
    passes made one at a time (transformers' fast tokenizer alone fails when two threads call it
    at once)."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path / "cache"))
    encoder = Encoder("default", runtime="onnx")
    batches = [OCCURRENCES[i % 3:i % 3 + 1 + i % 2] for i in range(60)]
    want = [encoder.encode(b, layers=[1], max_length=16 + i % 3)[(1, "mean")]
            for i, b in enumerate(batches)]
    with ThreadPoolExecutor(2) as pool:
        got = list(pool.map(lambda ib: encoder.encode(ib[1], layers=[1], max_length=16 + ib[0] % 3)
                            [(1, "mean")], enumerate(batches)))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
