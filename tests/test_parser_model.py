"""The parser models: the bundled model parses offline, bad input and bad model directories give
typed errors, and the training command trains a tiny random-config ChartParser end to end."""

import json
import shutil
from pathlib import Path

import nltk
import pytest
from typer.testing import CliRunner

from logicparse.errors import ModelLoadError, ParseError
from logicparse.parser import load_parser
from logicparse.parser.loading import BUNDLED_DIR
from logicparse.ptb import escape

FIX = Path(__file__).parent / "fixtures" / "parser"


@pytest.fixture(scope="module")
def bundled():
    return load_parser("default")


@pytest.mark.slow
def test_bundled_model_parses_offline(bundled):
    assert (BUNDLED_DIR / "benepar_model.bin").is_file()
    size = sum(f.stat().st_size for f in BUNDLED_DIR.iterdir())
    assert size <= 30 * 2**20
    assert isinstance(bundled.name, str) and bundled.name
    assert bundled.max_length >= 100
    sents = [
        "But I try very hard not to go that way because it would be too easy for them .".split(),
        ["The", "cat", "sat", "."],
        ["Hello"],
    ]
    trees = bundled.parse(sents)
    assert len(trees) == 3
    for tree, toks in zip(trees, sents):
        t = nltk.Tree.fromstring(tree.to_string())
        assert t.leaves() == toks == tree.leaves
        assert t.label() == "TOP"
    # Batching does not change a sentence's parse.
    assert bundled.parse([sents[1]]) == [trees[1]]


@pytest.mark.slow
def test_bundled_model_bad_input(bundled):
    sents = [
        ["(", "see", "below", ")", "costs", "$", "5", "."],  # raw brackets come back raw
        ["Zxqvbnm", "flurbled", "glorpishly", "."],  # unseen words
        ["naïve", "café", "in", "Zürich", "—", "日本語", "!"],  # non-ASCII
        ["...", "!", "?"],  # punctuation only
        ["a\u200b", "\u0301", "b"],  # characters the word-piece tokenizer drops
        ["word"] * 700,  # longer than max_length: parsed in pieces, still one tree
    ]
    trees = bundled.parse(sents)
    assert len(trees) == len(sents)
    for tree, toks in zip(trees, sents):
        assert tree.leaves == toks  # raw tokens in the tree
        assert nltk.Tree.fromstring(tree.to_string()).leaves() == [escape(t) for t in toks]
    assert " -LRB-)" in trees[0].to_string() and " -RRB-)" in trees[0].to_string()
    for bad, match in (([[]], "empty"), ([["ok", ""]], "token"), ([["ok", None]], "token"),
                       (["not a list"], "token")):
        with pytest.raises(ParseError, match=match):
            bundled.parse(bad)


def test_missing_model_dir_names_path_and_fix(tmp_path):
    with pytest.raises(ModelLoadError) as e:
        load_parser(str(tmp_path / "no_such_model"))
    assert "no_such_model" in str(e.value) and "benepar.download" in str(e.value)
    with pytest.raises(ModelLoadError, match=r"benepar.download\('benepar_en3'\)"):
        load_parser("benepar_en3")  # not installed on this machine: name the download


def test_corrupted_model_dir(tmp_path):
    bad = tmp_path / "model"
    bad.mkdir()
    with pytest.raises(ModelLoadError, match="config.json is missing"):
        load_parser(str(bad))
    (bad / "config.json").write_text("{not json")
    (bad / "benepar_model.bin").write_bytes(b"garbage")
    with pytest.raises(ModelLoadError) as e:
        load_parser(str(bad))
    assert str(bad) in str(e.value)


def test_truncated_weights(tmp_path, trained_tiny):
    bad = tmp_path / "model"
    shutil.copytree(trained_tiny, bad)
    data = (bad / "benepar_model.bin").read_bytes()
    (bad / "benepar_model.bin").write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelLoadError, match="corrupted"):
        load_parser(str(bad))


@pytest.fixture(scope="module")
def trained_tiny(tmp_path_factory):
    """`logicparse parser train` on the fixture treebank with a random tiny BERT (seconds)."""
    from logicparse.cli import _register, app

    _register()
    out = tmp_path_factory.mktemp("run")
    res = CliRunner().invoke(app, [
        "parser", "train", "--config", str(FIX / "tiny.toml"), "--out", str(out),
        "--random-init",
        "--set", f"pretrained_model={FIX / 'tiny_bert'}",
        "--set", f'train={json.dumps([str(FIX / "tiny_train.mrg")])}',
        "--set", f"dev={FIX / 'tiny_train.mrg'}",
    ])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout.strip().splitlines()[-1])
    assert summary["steps"] == 2 and summary["sentences_seen"] == 6
    assert (out / "checkpoint.pt").is_file()
    return out / "model"


def test_training_smoke_and_export_loads(trained_tiny):
    import benepar

    model = load_parser(str(trained_tiny))
    assert model.name == "tiny-test"
    toks = ["She", "said", "that", "he", "left", "."]
    tree = model.parse([toks])[0]
    assert nltk.Tree.fromstring(tree.to_string()).leaves() == toks
    # The export is benepar's release format: plain benepar loads it too.
    assert benepar.Parser(str(trained_tiny)).parse(toks).leaves() == toks


def test_training_resume(trained_tiny, tmp_path):
    from logicparse.cli import _register, app

    _register()
    run = trained_tiny.parent
    res = CliRunner().invoke(app, [
        "parser", "train", "--config", str(FIX / "tiny.toml"), "--out", str(run), "--resume",
        "--random-init", "--set", "max_epochs=2",
        "--set", f"pretrained_model={FIX / 'tiny_bert'}",
        "--set", f'train={json.dumps([str(FIX / "tiny_train.mrg")])}',
        "--set", f"dev={FIX / 'tiny_train.mrg'}",
    ])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout.strip().splitlines()[-1])
    assert summary["sentences_seen"] == 12 and summary["epochs"] == 2


def test_eval_command_json_last_line(trained_tiny):
    from logicparse.cli import _register, app

    _register()
    res = CliRunner().invoke(app, ["parser", "eval", "--treebank", str(FIX / "tiny_train.mrg"),
                                   "--parser", str(trained_tiny)])
    assert res.exit_code == 0, res.output
    score = json.loads(res.stdout.strip().splitlines()[-1])
    assert {"f1", "precision", "recall", "sentences"} <= set(score)
    assert score["sentences"] == 6 and 0.0 <= score["f1"] <= 1.0


def test_cached_bottom_layers_match_benepar_forward():
    """Training from cached bottom-layer outputs scores spans as benepar's own forward does."""
    import torch

    from logicparse.parser.training import BottomLayerCache, build_parser, load_config
    from logicparse.parser.treebank import load_examples

    cfg = load_config(FIX / "tiny.toml")
    cfg["model"]["pretrained_model"] = str(FIX / "tiny_bert")
    examples = load_examples(FIX / "tiny_train.mrg")
    torch.manual_seed(0)
    parser = build_parser(cfg["model"], [ex.tree for ex in examples], pretrained=False)
    parser.eval()
    cache = BottomLayerCache(parser, examples, k=1)
    ids = list(range(len(examples)))
    batch, hidden = cache.batch(parser, ids)
    with torch.no_grad():
        reference, _ = parser.forward(batch)
        bert = parser.pretrained_model

        def resumed(input_ids, attention_mask=None, **_):
            ext = bert.get_extended_attention_mask(attention_mask, attention_mask.shape)
            h = hidden
            for layer in bert.encoder.layer[1:]:
                h = layer(h, attention_mask=ext)[0]
            return type("Out", (), {"last_hidden_state": h})()

        bert.forward = resumed
        try:
            cached, _ = parser.forward(batch)
        finally:
            del bert.forward
    valid = batch["span_labels"] != -100
    assert torch.allclose(reference[valid], cached[valid], atol=1e-2)
    # the loss through the cache trains the head and never reaches the cached layer
    parser.train()
    cache.loss(parser, ids, "span_ce").backward()
    assert bert.encoder.layer[0].attention.self.query.weight.grad is None
    assert parser.f_label[0].weight.grad is not None


def test_fast_inference_gives_benepar_trees(trained_tiny):
    """The factored span scorer and numpy CKY return the trees benepar's own code returns."""
    import benepar

    sents = [["She", "said", "that", "he", "left", "."], ["The", "cat", "sat", "on", "the", "mat"],
             ["I", "like", "tea", "."], ["a"]]
    plain = benepar.Parser(str(trained_tiny))
    expected = [str(plain.parse(s)) for s in sents]
    ours = load_parser(str(trained_tiny)).parse(sents)
    # benepar labels unknown tags the same way; compare the bracketings and labels
    assert [" ".join(str(nltk.Tree.fromstring(t.to_string())).split()) for t in ours] == \
        [" ".join(e.split()) for e in expected]


def test_training_warm_start_from_exported_model(trained_tiny, tmp_path):
    from logicparse.cli import _register, app

    _register()
    res = CliRunner().invoke(app, [
        "parser", "train", "--config", str(FIX / "tiny.toml"), "--out", str(tmp_path / "warm"),
        "--random-init", "--set", f"init_from={trained_tiny}",
        "--set", f"pretrained_model={FIX / 'tiny_bert'}",
        "--set", f'train={json.dumps([str(FIX / "tiny_train.mrg")])}',
        "--set", f"dev={FIX / 'tiny_train.mrg'}",
    ])
    assert res.exit_code == 0, res.output
    assert "initialised from" in res.output


def test_calibrate_writes_span_bias(trained_tiny, tmp_path):
    from logicparse.cli import _register, app

    model = tmp_path / "model"
    shutil.copytree(trained_tiny, model)
    _register()
    res = CliRunner().invoke(app, ["parser", "calibrate", "--treebank",
                                   str(FIX / "tiny_train.mrg"), "--parser", str(model)])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["f1"] >= out["f1_at_zero"]
    cfg = json.loads((model / "config.json").read_text())
    assert cfg["logicparse"]["span_bias"] == out["span_bias"]
    assert load_parser(str(model)).chart_parser.decoder.span_bias == out["span_bias"]
