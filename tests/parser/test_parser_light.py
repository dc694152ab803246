"""The parser without PyTorch: the subwords, sub-batches and compressed trees are benepar's, and a
new process parses from what a first load left in the cache, with the same trees and without
importing torch, transformers, nltk or benepar; a changed file or setting is never used."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from logicparse.parser import load_parser
from logicparse.parser.inference import compressed
from logicparse.parser.subwords import subbatches

pytest.importorskip("onnxruntime")

SENTENCES = [["She", "said", "that", "he", "left", "."], ["Yes", "!"], ["a"],
             ["Café", "naïve", "ÉCOLE", "中文", "字", "Ångström"], ["x\u0301", "\u200b", "ﬁ", "①"],
             ["I", "ca", "n't", "--", "(", "really", ")", "``", "go", "''", "."],
             ["\U0001F600", "$", "5", "-LRB-", "U.S.", "e-mail", "co-op", "..."],
             # past the 60 words the network was trained on: parsed in pieces
             ("We left early ; it rained , so we stayed home ; " * 7).split()]


@pytest.fixture(scope="module")
def full():
    return load_parser("default", light=False)


def test_subwords_are_benepars(full):
    assert full.subwords is not None  # the bundled model's tokenizer is covered
    ours = full.subwords.pad([full._encode(s) for s in SENTENCES])
    theirs = full.chart_parser.pad_encoded([full._benepar_encode(s) for s in SENTENCES])
    assert set(ours) <= set(theirs)
    for key, value in ours.items():
        np.testing.assert_array_equal(value, theirs[key].numpy(), err_msg=key)
    assert [full._count(w) for s in SENTENCES for w in s] == \
        [len(full._tokenizer.tokenize(w)) for s in SENTENCES for w in s]


def test_sub_batches_and_compressed_trees_are_benepars(full):
    from benepar import subbatching

    rng = np.random.default_rng(0)
    for _ in range(20):
        costs = rng.integers(1, 300, size=int(rng.integers(1, 40))).tolist()
        want = [ids for ids, _ in subbatching.split(costs, costs=costs, max_cost=600)]
        assert list(subbatches(costs, 600)) == want
    decoder = full.chart_parser.decoder
    for n in (1, 2, 5, 9):
        chart = rng.integers(0, 4, size=(n, n)) * np.triu(np.ones((n, n), dtype=np.int64))
        out = decoder.compressed_output_from_chart(chart)
        for got, want in zip(compressed(chart), (out.starts, out.ends, out.labels)):
            np.testing.assert_array_equal(got, want)


def test_a_new_process_parses_from_the_cache_without_torch(full):
    want = [t.to_string() for t in full.parse(SENTENCES)]  # the load above left the record
    script = ("import json, sys\n"
              "from logicparse.parser import load_parser\n"
              f"p = load_parser('default')\n"
              f"trees = [t.to_string() for t in p.parse({SENTENCES!r})]\n"
              "print(json.dumps({'kind': type(p).__name__, 'precision': p.precision, "
              "'piece_words': p.piece_words, "
              "'trees': trees, 'imported': sorted(m for m in ('torch', 'transformers', 'nltk', "
              "'benepar') if m in sys.modules)}))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={**os.environ, "HF_HUB_OFFLINE": "1"}, timeout=300, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["kind"] == "LightParser" and got["precision"] == full.precision
    assert got["piece_words"] == full.piece_words == 60
    assert got["imported"] == []
    assert got["trees"] == want


def test_a_changed_file_or_setting_is_not_used(tmp_path, monkeypatch, caplog):
    from logicparse.parser.light import LightParser, load_light

    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path))
    assert load_light("default", precision="fp32") is None  # nothing cached yet
    first = load_parser("default", precision="fp32")  # exports, checks, writes the record
    assert type(first).__name__ == "ChartParserModel"
    light = load_light("default", precision="fp32")
    assert isinstance(light, LightParser) and light.network.path == first.network.path
    assert [t.to_string() for t in light.parse(SENTENCES)] == \
        [t.to_string() for t in first.parse(SENTENCES)]
    assert load_light("default", precision="int8") is None  # another precision: its own record
    assert load_light("default", precision="fp32", runtime="torch") is None
    assert load_light("default", precision="fp32", device="cuda") is None
    assert load_light("benepar_en3", precision="fp32") is None  # a benepar name: not covered
    monkeypatch.setenv("LOGICPARSE_PARSER_RUNTIME", "torch")
    assert load_light("default", precision="fp32") is None
    monkeypatch.delenv("LOGICPARSE_PARSER_RUNTIME")

    import onnx

    changed = onnx.load(str(first.network.path))  # still a network that runs, but not the one
    changed.doc_string = "changed"                # the record names
    onnx.save(changed, str(first.network.path))
    assert load_light("default", precision="fp32") is None
    again = load_parser("default", precision="fp32")  # exported again, the record rewritten
    assert type(again).__name__ == "ChartParserModel"
    assert isinstance(load_light("default", precision="fp32"), LightParser)

    for record in (tmp_path / "parser-light").glob("*.json"):
        record.write_text("{not json")
    assert load_light("default", precision="fp32") is None
    assert type(load_parser("default", precision="fp32")).__name__ == "ChartParserModel"


def test_spans_scored_in_chunks_give_the_same_scores(monkeypatch):
    from logicparse.parser import onnx_network
    from logicparse.parser.fast_span import span_index

    parser = load_parser("default")
    padded = parser._pad([parser._encode(s) for s in SENTENCES])
    left, right = span_index([len(s) for s in SENTENCES], padded["valid_token_mask"].shape[1] - 1)
    whole = parser.network(padded, left, right)
    trees = [t.to_string() for t in parser.parse(SENTENCES)]
    monkeypatch.setattr(onnx_network, "SPAN_CHUNK", 7)
    chunked = parser.network(padded, left, right)
    for a, b in zip(whole, chunked):
        np.testing.assert_array_equal(a, b)
    assert [t.to_string() for t in parser.parse(SENTENCES)] == trees


def test_a_tokenizer_set_up_beyond_its_file_is_not_used(tmp_path, monkeypatch):
    """Where the subwords from tokenizer.json would not be benepar's (transformers configures some
    tokenizers from their config too), benepar's code feeds the encoder and no record is left."""
    from logicparse.parser import subwords as sw
    from logicparse.parser.light import load_light

    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path))
    load_parser("default", precision="fp32")  # a record, from subwords that held then
    assert load_light("default", precision="fp32") is not None
    real = sw.Subwords.encode

    def other(self, words, space_after):
        out = real(self, words, space_after)
        return {**out, "input_ids": out["input_ids"][:-1] + [0]}

    monkeypatch.setattr(sw.Subwords, "encode", other)
    parser = load_parser("default", precision="fp32", light=False)
    assert parser.subwords is None and parser.network.name == "onnxruntime"
    want = [t.to_string() for t in load_parser("default", runtime="torch").parse(SENTENCES)]
    assert [t.to_string() for t in parser.parse(SENTENCES)] == want
    assert load_light("default", precision="fp32") is None  # the record that no longer holds


def test_the_record_is_named_by_the_tokenizer_files_too(tmp_path):
    """transformers reads tokenizer_config.json, special_tokens_map.json and vocab.txt when it
    sets up a tokenizer: a change to one of them is another record."""
    import shutil

    from logicparse.parser.light import model_digest
    from logicparse.resources import PARSER_DIR

    model = tmp_path / "model"
    shutil.copytree(PARSER_DIR, model)
    first = model_digest(model, "int8")
    assert first is not None and model_digest(model, "fp32") != first
    for name in ("tokenizer_config.json", "special_tokens_map.json", "vocab.txt", "tokenizer.json"):
        with open(model / name, "a") as f:
            f.write("\n")
        assert model_digest(model, "int8") != first, name
        first = model_digest(model, "int8")


def test_the_record_names_the_kind_of_int8_file(monkeypatch):
    """A record made where int8 weights are exact does not serve a CPU whose int8 files hold uint8
    weights (nor the other way), for the parser and the sense encoder alike."""
    from logicparse.parser import int8
    from logicparse.parser.light import model_digest
    from logicparse.resources import PARSER_DIR, minilm_path
    from logicparse.senses.encoder_record import encoder_digest

    digests = []
    for exact in (True, False):
        monkeypatch.setattr(int8, "signed_weights_exact", lambda exact=exact: exact)
        digests.append((model_digest(PARSER_DIR, "int8"), encoder_digest(minilm_path(), "int8")))
    (parser_s8, encoder_s8), (parser_u8, encoder_u8) = digests
    assert None not in (parser_s8, encoder_s8)
    assert parser_s8 != parser_u8 and encoder_s8 != encoder_u8
