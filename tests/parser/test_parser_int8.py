"""The parser's network in int8 under ONNX Runtime, the default on a CPU: quantized once from the
checked float32 export into the cache, kept only if it labels the check sentences' constituents
as float32 does (else float32, with a warning). Activations are quantized one token at a time, so
a sentence gets the same tree in any batch."""

import logging
from pathlib import Path

import numpy as np
import pytest

from logicparse.errors import ModelLoadError
from logicparse.parser import load_parser

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

SENTENCES = [["She", "said", "that", "he", "left", "."], ["Yes", "!"],
             ["The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "warm", "."],
             ["a"], ["I", "like", "tea", "."]]
# Sixteen keyword sentences; with one activation scale per batch, eight of them got another tree
# parsed together than parsed alone.
BATCH = [line.split() for line in (Path(__file__).parents[1] / "fixtures" / "parser" /
                                   "batch_sentences.txt").read_text().splitlines()]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path))
    monkeypatch.delenv("LOGICPARSE_PARSER_PRECISION", raising=False)
    return tmp_path


def test_int8_is_the_default_and_cached_beside_the_float32_file(cache, monkeypatch):
    from logicparse.parser import onnx_network

    fast = load_parser("default", runtime="onnx")
    assert fast.precision == "int8"  # the default
    int8 = fast.network.path
    assert int8.name == "network.int8.onnx" and int8.is_relative_to(cache)
    assert int8.with_name("network.int8.onnx.sha256").is_file()
    exact = load_parser("default", runtime="onnx", precision="fp32")
    fp32 = exact.network.path
    assert exact.precision == "fp32" and fp32.name == "network.onnx"
    # A byte a weight in the matrix products, not four (the embedding tables stay float32).
    assert int8.stat().st_size < 0.7 * fp32.stat().st_size
    # These short sentences get the same trees in int8 as in float32.
    assert ([t.to_string() for t in fast.parse(SENTENCES)]
            == [t.to_string() for t in exact.parse(SENTENCES)])

    # A second load takes the cached file: nothing is quantized again.
    def no_quantizing(*args):
        raise AssertionError("quantized again")

    monkeypatch.setattr(onnx_network, "quantize", no_quantizing)
    assert load_parser("default", runtime="onnx").network.path == int8


def test_an_int8_sentence_gets_the_same_tree_in_any_batch(cache):
    parser = load_parser("default", runtime="onnx")
    assert parser.precision == "int8"
    alone = [parser.parse([s])[0].to_string() for s in BATCH]
    assert [t.to_string() for t in parser.parse(BATCH)] == alone
    assert [t.to_string() for t in parser.parse(BATCH[::-1])] == alone[::-1]
    assert [t.to_string() for t in parser.parse(BATCH[:5] + SENTENCES)][:5] == alone[:5]


def test_an_int8_file_that_fails_its_check_is_not_used(cache, monkeypatch, caplog):
    from logicparse.parser import onnx_network

    monkeypatch.setattr(onnx_network, "INT8_AGREEMENT", 1.01)  # no file can pass
    with caplog.at_level(logging.WARNING):
        parser = load_parser("default", runtime="onnx")
    assert "int8 network is not used" in caplog.text and "at least 101%" in caplog.text
    assert parser.precision == "fp32" and parser.network.path.name == "network.onnx"
    assert not list(cache.glob("onnx/*/network.int8.onnx"))  # nothing half-built is left


def test_precision_from_the_environment_and_unknown_ones(cache, monkeypatch):
    monkeypatch.setenv("LOGICPARSE_PARSER_PRECISION", "fp32")
    assert load_parser("default", runtime="onnx").precision == "fp32"
    monkeypatch.setenv("LOGICPARSE_PARSER_PRECISION", "int4")
    with pytest.raises(ModelLoadError, match=r"E106.*precision 'int4'.*"
                                             r"LOGICPARSE_PARSER_PRECISION.*fp32, int8"):
        load_parser("default")
    with pytest.raises(ModelLoadError, match=r"E106.*'half'"):
        load_parser("default", precision="half")


def test_pytorch_runs_float32():
    assert load_parser("default", runtime="torch", precision="int8").precision == "fp32"


# ---- the graph rewrite itself, on one matrix product ----------------------------------------

def _quantized_matmul(tmp_path, k=16, n=8, w=None):
    """A float MatMul [rows, k] x [k, n] quantized by ONNX Runtime's dynamic quantization."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from onnxruntime.quantization import QuantType, quantize_dynamic

    if w is None:
        w = np.random.default_rng(0).normal(size=(k, n)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "t", k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", "t", n])],
        [numpy_helper.from_array(w, "w")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              tmp_path / "f.onnx")
    quantize_dynamic(str(tmp_path / "f.onnx"), str(tmp_path / "q.onnx"),
                     weight_type=QuantType.QInt8, per_channel=True)
    return onnx.load(str(tmp_path / "q.onnx")), w


def _run(model, x):
    import onnxruntime as ort

    return ort.InferenceSession(model.SerializeToString(),
                                providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]


def test_per_row_quantizes_each_token_on_its_own(tmp_path):
    import onnx

    from logicparse.parser.int8 import per_row, signed_weights_exact

    model, w = _quantized_matmul(tmp_path)
    batch = onnx.ModelProto()
    batch.CopyFrom(model)
    rows = per_row(model, unsigned_weights=not signed_weights_exact())
    x = np.random.default_rng(1).normal(size=(2, 3, 16)).astype(np.float32)
    loud = x.copy()
    loud[1] *= 1000  # another sentence in the batch, a thousand times larger
    got, got_loud = _run(rows, x), _run(rows, loud)
    np.testing.assert_array_equal(got[0], got_loud[0])  # the first sentence does not see it
    assert np.abs(got - x @ w).max() < 0.05 * np.abs(x @ w).max()  # and is still x @ w
    # One scale per batch, what the rewrite replaces, lets the loud sentence swamp the first.
    assert not np.array_equal(_run(batch, x)[0], _run(batch, loud)[0])


def _extreme(tmp_path):
    """A matrix product whose first column is all 127 once quantized, its int8 weights and scales,
    and activations whose first row is all 255 once quantized: a product that a uint8 x int8
    kernel without VNNI saturates (it adds pairs of products in 16 bits)."""
    from onnx import numpy_helper

    w = np.random.default_rng(0).normal(size=(64, 4)).astype(np.float32)
    w[:, 0] = 1.0
    model, _ = _quantized_matmul(tmp_path, k=64, n=4, w=w)
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    q = next(v for v in init.values() if v.dtype == np.int8 and v.shape == (64, 4)).astype(np.int64)
    scale = next(v for v in init.values() if v.dtype == np.float32 and v.shape == (4,))
    x = np.random.default_rng(1).normal(size=(1, 3, 64)).astype(np.float32)
    x[0, 0] = 1.0
    s = np.abs(x).max(-1, keepdims=True) / 127
    qx = np.clip(np.rint(x / s) + 128, 0, 255).astype(np.int64) - 128
    assert q[:, 0].min() == 127 and qx[0, 0].min() == 127
    return model, x, (qx @ q) * scale * s


def test_the_int8_files_products_are_exact_on_this_cpu(tmp_path):
    """What ``quantize`` writes computes exact integer products on the CPU it was built on, so a
    sentence's tree does not depend on whether the CPU has VNNI."""
    import onnx

    from logicparse.parser.int8 import quantize

    _, x, exact = _extreme(tmp_path)
    quantize(tmp_path / "f.onnx", tmp_path / "int8.onnx")
    np.testing.assert_allclose(_run(onnx.load(str(tmp_path / "int8.onnx")), x), exact,
                               rtol=1e-5, atol=1e-6)


def test_uint8_weights_are_exact_and_the_probe_tells_when_int8_ones_are(tmp_path):
    import onnx

    from logicparse.parser.int8 import per_row, signed_weights_exact, tagged

    model, x, exact = _extreme(tmp_path)
    signed = onnx.ModelProto()
    signed.CopyFrom(model)
    got = _run(per_row(model, unsigned_weights=True), x)
    np.testing.assert_allclose(got, exact, rtol=1e-5, atol=1e-6)
    assert {i.data_type for i in model.graph.initializer if i.name.endswith("_quantized")} == {2}
    got_signed = _run(per_row(signed), x)
    assert np.allclose(got_signed, exact, rtol=1e-5, atol=1e-6) == signed_weights_exact()
    assert tagged(3) == (3 if signed_weights_exact() else "3-u8")  # the cache's names


def test_per_row_refuses_a_graph_it_does_not_know(tmp_path):
    import onnx

    from logicparse.parser.int8 import per_row

    _quantized_matmul(tmp_path)
    with pytest.raises(ValueError, match="no dynamically quantized matrix product"):
        per_row(onnx.load(str(tmp_path / "f.onnx")))  # the float32 file
