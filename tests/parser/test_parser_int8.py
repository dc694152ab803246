"""The parser's network in int8 under ONNX Runtime, on request: quantized once from the checked
float32 export into the cache, kept only if it labels the check sentences' constituents as
float32 does (else float32, with a warning). float32 stays the default: an int8 sentence's tree
can depend on the sentences of its batch."""

import logging

import pytest

from logicparse.errors import ModelLoadError
from logicparse.parser import load_parser

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

SENTENCES = [["She", "said", "that", "he", "left", "."], ["Yes", "!"],
             ["The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "warm", "."],
             ["a"], ["I", "like", "tea", "."]]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path))
    monkeypatch.delenv("LOGICPARSE_PARSER_PRECISION", raising=False)
    return tmp_path


def test_int8_on_request_is_cached_beside_the_float32_file(cache, monkeypatch):
    from logicparse.parser import onnx_network

    exact = load_parser("default", runtime="onnx")
    assert exact.precision == "fp32"  # the default
    fp32 = exact.network.path
    assert not list(cache.glob("onnx/*/network.int8.onnx"))  # nothing quantized unasked
    fast = load_parser("default", runtime="onnx", precision="int8")
    assert fast.precision == "int8"
    int8 = fast.network.path
    assert int8.name == "network.int8.onnx" and int8.is_relative_to(cache)
    assert int8.with_name("network.int8.onnx.sha256").is_file()
    # A byte a weight in the matrix products, not four (the embedding tables stay float32).
    assert int8.stat().st_size < 0.7 * fp32.stat().st_size
    # These short sentences get the same trees in int8 as in float32.
    assert ([t.to_string() for t in fast.parse(SENTENCES)]
            == [t.to_string() for t in exact.parse(SENTENCES)])

    # A second load takes the cached file: nothing is quantized again.
    def no_quantizing(*args):
        raise AssertionError("quantized again")

    monkeypatch.setattr(onnx_network, "quantize", no_quantizing)
    assert load_parser("default", runtime="onnx", precision="int8").network.path == int8


def test_an_int8_file_that_fails_its_check_is_not_used(cache, monkeypatch, caplog):
    from logicparse.parser import onnx_network

    monkeypatch.setattr(onnx_network, "INT8_AGREEMENT", 1.01)  # no file can pass
    with caplog.at_level(logging.WARNING):
        parser = load_parser("default", runtime="onnx", precision="int8")
    assert "int8 network is not used" in caplog.text and "at least 101%" in caplog.text
    assert parser.precision == "fp32" and parser.network.path.name == "network.onnx"
    assert not list(cache.glob("onnx/*/network.int8.onnx"))  # nothing half-built is left


def test_precision_from_the_environment_and_unknown_ones(cache, monkeypatch):
    monkeypatch.setenv("LOGICPARSE_PARSER_PRECISION", "int8")
    assert load_parser("default", runtime="onnx").precision == "int8"
    monkeypatch.setenv("LOGICPARSE_PARSER_PRECISION", "int4")
    with pytest.raises(ModelLoadError, match=r"E106.*precision 'int4'.*"
                                             r"LOGICPARSE_PARSER_PRECISION.*fp32, int8"):
        load_parser("default")
    with pytest.raises(ModelLoadError, match=r"E106.*'half'"):
        load_parser("default", precision="half")


def test_pytorch_runs_float32():
    assert load_parser("default", runtime="torch", precision="int8").precision == "fp32"
