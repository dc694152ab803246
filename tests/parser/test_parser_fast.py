"""The parser's fast inference path: CKY finds the best tree, only real spans are scored (with the
numbers of benepar's full forward), and ONNX Runtime gives PyTorch's trees from a cached export
checked by sha256."""

import itertools
import logging

import numpy as np
import pytest

from logicparse.errors import ModelLoadError
from logicparse.parser import load_parser
from logicparse.parser.fast_span import _cky, charts_from_best, decode_chart, span_index

SENTENCES = [["She", "said", "that", "he", "left", "."], ["Yes", "!"],
             ["The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "warm", "."],
             ["a"], ["I", "like", "tea", "."]]


def all_trees(i, j):
    """Every binary bracketing of words i..j, as sets of spans."""
    if i == j:
        yield {(i, i)}
        return
    for k in range(i, j):
        for left, right in itertools.product(all_trees(i, k), all_trees(k + 1, j)):
            yield {(i, j)} | left | right


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7])
def test_cky_finds_the_best_tree(n):
    rng = np.random.default_rng(n)
    for _ in range(20):
        best = rng.normal(size=(n, n)).astype(np.float32)
        spans = _cky(best, n)
        score = sum(float(best[i, j]) for i, j in spans)
        brute = max(sum(float(best[i, j]) for i, j in tree) for tree in all_trees(0, n - 1))
        assert len(set(spans)) == 2 * n - 1
        assert score == pytest.approx(brute, abs=1e-9)


def test_cky_known_tree():
    # ((0 1) 2): span (0, 1) is strongly wanted, (1, 2) is not.
    best = np.zeros((3, 3), dtype=np.float32)
    best[0, 1], best[1, 2] = 2.0, -1.0
    assert sorted(_cky(best, 3)) == [(0, 0), (0, 1), (0, 2), (1, 1), (2, 2)]


def test_span_index_lists_every_span_of_every_sentence():
    left, right = span_index([2, 1], width=3)
    # sentence 0 (fenceposts 0..2): spans (0,0) (0,1) (1,1); sentence 1 starts at row 3
    assert left.tolist() == [0, 0, 1, 3]
    assert right.tolist() == [1, 2, 2, 4]


def test_charts_from_best_equal_decode_chart_on_full_scores():
    rng = np.random.default_rng(0)
    lengths = [4, 1, 6]
    scores = [rng.normal(size=(n, n, 5)).astype(np.float32) for n in lengths]
    for s in scores:
        s[..., 0] = 0
    best = np.concatenate([s[np.triu_indices(len(s))][:, 1:].max(-1) for s in scores])
    labels = np.concatenate([s[np.triu_indices(len(s))][:, 1:].argmax(-1) + 1 for s in scores])
    for bias in (0.0, 0.25):
        got = charts_from_best(best, labels, lengths, True, bias)
        want = [decode_chart(s, True, bias) for s in scores]
        assert all((g == w).all() for g, w in zip(got, want))


@pytest.fixture(scope="module")
def bundled_torch():
    return load_parser("default", runtime="torch")


def test_real_spans_get_the_scores_of_the_full_forward(bundled_torch):
    import torch

    from logicparse.parser.fast_span import best_spans

    cp = bundled_torch.chart_parser
    batch = cp.pad_encoded([bundled_torch._encode(s) for s in SENTENCES])
    lengths = [len(s) for s in SENTENCES]
    left, right = span_index(lengths, batch["valid_token_mask"].shape[1] - 1)
    with torch.no_grad():
        full, tags_full = cp.forward(batch)
        best, labels, tags = best_spans(cp, batch, torch.from_numpy(left), torch.from_numpy(right))
    want = [full[b, :n, :n][np.triu_indices(n)] for b, n in enumerate(lengths)]
    want = torch.cat(want)[:, 1:]
    assert torch.allclose(best, want.max(-1).values, atol=1e-4)
    assert (labels == want.argmax(-1) + 1).all()
    assert (tags == tags_full.argmax(-1)).all()


def test_a_batch_gives_each_sentence_its_own_tree(bundled_torch):
    together = [t.to_string() for t in bundled_torch.parse(SENTENCES)]
    alone = [bundled_torch.parse([s])[0].to_string() for s in SENTENCES]
    assert together == alone


def test_unknown_runtime_is_refused(monkeypatch):
    from logicparse.parser.runtime import choose_network

    with pytest.raises(ModelLoadError, match="E106"):
        choose_network(None, None, "cpu", "bogus")
    monkeypatch.setenv("LOGICPARSE_PARSER_RUNTIME", "gpu")
    with pytest.raises(ModelLoadError, match="E106"):
        choose_network(None, None, "cpu")


def test_onnx_runtime_gives_the_torch_trees_from_a_checked_cache(bundled_torch, tmp_path,
                                                                  monkeypatch, caplog):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    from logicparse.parser.onnx_network import OnnxNetwork

    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path))
    fast = load_parser("default", runtime="onnx", precision="fp32")  # int8 is the default
    assert isinstance(fast.network, OnnxNetwork) and fast.precision == "fp32"
    want = [t.to_string() for t in bundled_torch.parse(SENTENCES)]
    assert [t.to_string() for t in fast.parse(SENTENCES)] == want
    # The session holds the weights: PyTorch's copy is released, not kept beside it.
    assert all(p.device.type == "meta" for p in fast.chart_parser.parameters())
    exported = fast.network.path
    assert exported.is_relative_to(tmp_path)
    stamp = exported.with_name("network.onnx.sha256").read_text().strip()

    # A damaged file is noticed by its sha256 and exported again.
    with open(exported, "ab") as f:
        f.write(b"\0")
    with caplog.at_level(logging.WARNING):
        again = load_parser("default", runtime="onnx", precision="fp32")
    assert "does not match its sha256" in caplog.text
    assert again.network.path == exported
    assert exported.with_name("network.onnx.sha256").read_text().strip() == stamp
    assert [t.to_string() for t in again.parse(SENTENCES)] == want


def test_auto_falls_back_to_torch_when_onnx_runtime_is_missing(monkeypatch, caplog):
    import sys

    from logicparse.parser.fast_span import TorchNetwork

    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails
    with caplog.at_level(logging.WARNING):
        parser = load_parser("default", runtime="auto")
    assert isinstance(parser.network, TorchNetwork)
    assert "ONNX Runtime not used" in caplog.text
    with pytest.raises(ModelLoadError, match="E107"):
        load_parser("default", runtime="onnx")


def test_releasing_freed_memory_is_harmless_without_glibc(monkeypatch):
    import ctypes

    from logicparse.parser.runtime import release_freed_memory

    release_freed_memory()  # glibc here: trims the heap

    def no_libc(*args, **kwargs):
        raise OSError("no libc here")

    monkeypatch.setattr(ctypes, "CDLL", no_libc)
    release_freed_memory()  # macOS, musl, Windows: nothing to do, no error


def test_a_cpu_parser_calls_its_network_with_small_sub_batches_and_the_same_trees(monkeypatch):
    """On a CPU 500 word pieces a network call (faster, a lower peak than benepar's 2,000, which a
    GPU keeps), and the trees do not depend on it: the int8 network quantizes each token alone."""
    from logicparse.parser.loading import default_subbatch_tokens

    assert (default_subbatch_tokens("cpu"), default_subbatch_tokens("cuda:0")) == (500, 2000)
    parser = load_parser("default")
    assert parser.subbatch_max_tokens == 500
    long = [w for _ in range(12) for w in SENTENCES[2]]  # 132 words: calls of 2 of them at 500
    sentences = SENTENCES + [long] * 6
    monkeypatch.setattr(parser, "piece_words", None)  # whole, not in pieces of 60 words
    calls = []
    network = parser.network
    monkeypatch.setattr(parser, "network", lambda *a: calls.append(1) or network(*a))
    small = [t.to_string() for t in parser.parse(sentences)]
    assert len(calls) == 3
    monkeypatch.setattr(parser, "subbatch_max_tokens", 2000)
    calls.clear()
    assert [t.to_string() for t in parser.parse(sentences)] == small and len(calls) == 1
