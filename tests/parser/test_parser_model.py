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

FIX = Path(__file__).parents[1] / "fixtures" / "parser"


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
    with pytest.raises(ModelLoadError, match=r"\[E021\] Unknown parser 'benepar_en3'.*benepar.download"):
        load_parser("benepar_en3")  # not installed on this machine: how to install it


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
    # Training's length limit is recorded, and kept by `parser export`: the parser cuts longer
    # sentences into pieces.
    config = json.loads((trained_tiny / "config.json").read_text())
    assert config["logicparse"]["max_train_words"] == model.piece_words == 60
    out = trained_tiny.parent / "exported"
    _cli("parser", "export", str(trained_tiny), str(out))
    assert json.loads((out / "config.json").read_text())["logicparse"]["max_train_words"] == 60
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


def _cli(*args):
    from logicparse.cli import _register, app

    _register()
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_eval_command_scores_the_parsers_own_trees(bundled, tmp_path):
    from logicparse.parser.evalb import evalb
    from logicparse.parser.treebank import read_trees
    from logicparse.ptb import raw_tokens

    treebank, saved = FIX / "tiny_train.mrg", tmp_path / "pred.mrg"
    score = _cli("parser", "eval", "--treebank", str(treebank), "--save-trees", str(saved))
    gold = read_trees(treebank)
    parsed = [t.to_string() for t in bundled.parse([raw_tokens(t.leaves()) for t in gold])]
    assert saved.read_text().splitlines() == parsed
    expected = evalb(gold, parsed).to_dict()
    assert {k: score[k] for k in expected} == expected
    assert score["sentences"] == 6 and score["failed"] == 0 and score["error_sentences"] == 0
    # Six short, plain sentences: the bundled parser gets most of their brackets right.
    assert score["f1"] >= 0.9
    # The saved trees scored again, and the gold trees given as the prediction.
    again = _cli("parser", "eval", "--treebank", str(treebank), "--predicted", str(saved))
    assert again["f1"] == score["f1"] and again["exact_match"] == score["exact_match"]
    perfect = _cli("parser", "eval", "--treebank", str(treebank), "--predicted", str(treebank))
    assert (perfect["f1"], perfect["precision"], perfect["recall"], perfect["exact_match"]) == \
        (1.0, 1.0, 1.0, 1.0)
    # Only the trees of more than N words, parsed or given (each prediction beside its own gold).
    lengths = [len(t.leaves()) for t in gold]
    n = sorted(lengths)[len(lengths) // 2]
    longer = [i for i, k in enumerate(lengths) if k > n]
    assert 0 < len(longer) < len(gold)
    some = _cli("parser", "eval", "--treebank", str(treebank), "--longer-than", str(n))
    assert some["sentences"] == len(longer)
    assert some["f1"] == evalb([gold[i] for i in longer], [parsed[i] for i in longer]).to_dict()["f1"]
    given = _cli("parser", "eval", "--treebank", str(treebank), "--predicted", str(saved),
                 "--longer-than", str(n))
    assert (given["sentences"], given["f1"], given["error_sentences"]) == (len(longer), some["f1"], 0)
    # ... a file of only those trees (saved with --longer-than) scores the same, and --limit
    # takes the first N of them.
    kept = tmp_path / "kept.mrg"
    _cli("parser", "eval", "--treebank", str(treebank), "--longer-than", str(n), "--save-trees", str(kept))
    again = _cli("parser", "eval", "--treebank", str(treebank), "--predicted", str(kept),
                 "--longer-than", str(n))
    assert (again["sentences"], again["f1"], again["error_sentences"]) == (len(longer), some["f1"], 0)
    first = _cli("parser", "eval", "--treebank", str(treebank), "--longer-than", str(n), "--limit", "1")
    assert first["sentences"] == 1
    assert first["f1"] == evalb([gold[longer[0]]], [parsed[longer[0]]]).to_dict()["f1"]


def test_cached_bottom_layers_match_benepar_forward():
    """Training from cached bottom-layer outputs gives the loss of benepar's own forward through
    the whole encoder (the fixture BERT has 3 layers: 1 cached, 2 resumed from the cache)."""
    import torch

    from logicparse.parser.layer_cache import BottomLayerCache, span_loss
    from logicparse.parser.train_config import load_config
    from logicparse.parser.training import build_parser
    from logicparse.parser.treebank import load_examples

    cfg = load_config(FIX / "tiny.toml")
    cfg["model"]["pretrained_model"] = str(FIX / "tiny_bert")
    examples = load_examples(FIX / "tiny_train.mrg")
    torch.manual_seed(0)
    parser = build_parser(cfg["model"], [ex.tree for ex in examples], pretrained=False)
    bert = parser.pretrained_model
    assert len(bert.encoder.layer) == 3
    parser.eval()  # no dropout: both paths compute the same function
    cache = BottomLayerCache(parser, examples, k=1)
    ids = list(range(len(examples)))
    batch, _ = cache.batch(parser, ids)
    # The span scores inside the cached path, caught on their way to the loss.
    forward, seen = parser.forward, []
    parser.forward = lambda b: seen.append(forward(b)) or seen[-1]
    with torch.no_grad():
        cached = cache.loss(parser, ids, "span_ce")
        del parser.forward
        reference, _ = parser.forward(batch)
        reference_loss = span_loss(parser, batch, "span_ce")
    valid = batch["span_labels"] != -100
    # float16 cache: within 1e-3 (one skipped layer moves them by ~1e-2)
    assert torch.allclose(seen[0][0][valid], reference[valid], atol=1e-3)
    assert cached.item() == pytest.approx(reference_loss.item(), rel=1e-5)
    # the loss through the cache trains the layers above it and the head, never the cached layer
    cache.loss(parser, ids, "span_ce").backward()
    assert bert.encoder.layer[0].attention.self.query.weight.grad is None
    assert all(bert.encoder.layer[i].attention.self.query.weight.grad is not None for i in (1, 2))
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
    assert out["f1"] == max(out["f1_by_bias"].values()) == out["f1_by_bias"][str(out["span_bias"])]
    assert out["f1_at_zero"] == out["f1_by_bias"]["0.0"]
    cfg = json.loads((model / "config.json").read_text())
    assert cfg["logicparse"]["span_bias"] == out["span_bias"]
    assert load_parser(str(model)).span_bias == out["span_bias"]
    assert load_parser(str(model), light=False).chart_parser.decoder.span_bias == out["span_bias"]


def test_eval_command_on_a_treebank_with_raw_brackets(bundled):
    # GUM-style leaves `[`, `]`, `{`, `}` and `[...]` against the parser's escaped ones.
    score = _cli("parser", "eval", "--treebank", str(FIX / "raw_brackets.mrg"))
    assert score["sentences"] == 4 and score["error_sentences"] == 0 and score["failed"] == 0
