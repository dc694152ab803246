"""The bundled sense SVMs with the real offline encoder (all-MiniLM-L6-v2), and strict loading.

A tiny random BERT stands in for "another encoder" (no other weights exist offline)."""

import json
import logging
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from logicparse.errors import ModelLoadError
from logicparse.resources import ANNOTATIONS_DIR
from logicparse.senses import SenseQuery, load_senses
from logicparse.senses.classifier import bundled_models_dir
from logicparse.senses.data import NONE
from logicparse.senses.features import Occurrence
from logicparse.taxonomy import keywords

pytestmark = pytest.mark.slow
FIXTURES = Path(__file__).parents[1] / "fixtures" / "senses"


def _query(a) -> SenseQuery:
    """The query for an annotated occurrence, as the Annotator builds it."""
    return SenseQuery(a.keyword, keywords()[a.keyword].senses, a.text, a.char_start, a.char_end)


def q(marked: str) -> SenseQuery:
    """A query from a sentence with the keyword in [brackets]."""
    s, e = marked.index("["), marked.index("]")
    text = marked[:s] + marked[s + 1:e] + marked[e + 1:]
    kw = marked[s + 1:e].lower()
    return SenseQuery(kw, keywords()[kw].senses, text, s, e - 1)


@pytest.fixture(scope="module")
def senses():
    return load_senses("default")


@pytest.fixture(scope="module")
def tiny_encoder_dir(tmp_path_factory):
    """A random 2-layer BERT with the MiniLM tokenizer, saved like any local model."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from logicparse.resources import minilm_path

    path = tmp_path_factory.mktemp("tiny-bert")
    torch.manual_seed(0)
    BertModel(BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2,
                         num_attention_heads=2, intermediate_size=64,
                         max_position_embeddings=64)).save_pretrained(path)
    AutoTokenizer.from_pretrained(minilm_path()).save_pretrained(path)
    return path


def test_bundled_models_meta(senses):
    meta = senses.meta
    assert meta["encoder"]["name"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert {"since", "as", "while"} <= set(senses.keywords)
    for kw, e in meta["keywords"].items():
        assert e["labels"] and e["data_hash"] and 0 < e["cv_accuracy"] <= 1
        assert (bundled_models_dir() / e["file"]).is_file()
        assert 0 <= e["layer"] < senses.encoder.n_layers
        assert e["window"] is None or 8 <= e["window"] <= senses.encoder.max_length


# Written for these tests, never seen in training: test_clear_examples_are_held_out checks that
# none of them is in the annotations the bundled models were trained on.
CLEAR_EXAMPLES = [
    ("The bridge has been under repair [since] 2019 .", "temporal"),
    ("Nobody has seen him [since] Tuesday .", "temporal"),
    ("The museum has grown a lot [since] it opened .", "temporal"),
    ("We cancelled the picnic [since] the forecast was bad .", "causal"),
    ("[Since] the printer is broken , please use the one upstairs .", "causal"),
    ("[Since] you asked , I will explain it again .", "causal"),
    ("My cousin works [as] a nurse in Leeds .", None),
    ("This box is [as] heavy as a brick .", None),
    ("[As] we walked home , it began to snow .", "temporal"),
    ("She hummed a song [while] she painted the fence .", "temporal"),
    ("The kettle boiled [while] I was reading the paper .", "temporal"),
    ("It will take a [while] to load .", None),
    ("Sit down and rest for a [while] .", None),
    ("[While] the plan is cheap , it is also risky .", "comparative"),
]


def test_clear_examples_are_held_out():
    from logicparse.senses.data import read_annotations

    trained_on = [a.text.lower() for a in read_annotations(sorted(ANNOTATIONS_DIR.glob("*.jsonl")))]
    assert len(trained_on) > 5000
    for marked, _ in CLEAR_EXAMPLES:
        text = q(marked).text.lower()
        # Neither the sentence nor (when it is 4 words or more) its part after the keyword appears
        # in any training text.
        tail = text[q(marked).char_end:].strip(" .")
        assert not any(text in t or (len(tail.split()) >= 4 and tail in t) for t in trained_on), marked


@pytest.mark.parametrize("marked,relation", CLEAR_EXAMPLES)
def test_clear_examples(senses, marked, relation):
    (d,) = senses.disambiguate([q(marked)])
    assert d.relation == relation
    assert d.source == "classifier" and 0 < d.confidence <= 1


def test_edges_one_word_and_batch(senses):
    queries = [q("[Since]"), q("[as]"), q("[While] ."), q("It has been like this ever [since]"),
               q("I left early [as]"), q("[As] you know , it rained .")]
    out = senses.disambiguate(queries)
    assert len(out) == len(queries)
    assert all(d.source == "classifier" for d in out)
    # Batched and one-by-one give the same decisions.
    assert [senses.disambiguate([x])[0].relation for x in queries] == [d.relation for d in out]


def test_overlong_text_encodes_the_window(senses):
    enc = senses.encoder
    filler = " ".join(["word"] * 700)
    text = f"{filler} We stayed inside since it rained . {filler}"
    start = text.index("since")
    occ = Occurrence(text, start, start + 5)
    win = enc.window(occ)
    assert win.text[win.char_start:win.char_end] == "since"
    assert "We stayed inside since it rained ." in win.text and len(win.text) < len(text)
    assert enc._tokenize([win.text])[0]["input_ids"].shape[1] <= enc.max_length
    # The long text's vector is the window's vector.
    import numpy as np

    a, b = enc.encode([occ], layers=[3], parts=["mean"]), enc.encode([win], layers=[3], parts=["mean"])
    np.testing.assert_allclose(a[(3, "mean")], b[(3, "mean")], atol=1e-5)
    for s in (0, len(text) - 5):  # keyword at the very start / end of an over-long text
        t = "since " + text if s == 0 else text + " since"
        w = enc.window(Occurrence(t, s if s == 0 else len(t) - 5, (s if s == 0 else len(t) - 5) + 5))
        assert w.text[w.char_start:w.char_end] == "since"
    (d,) = senses.disambiguate([SenseQuery("since", ("temporal", "causal"), text, start, start + 5)])
    assert d.relation == "causal"


def test_bad_span_is_refused(senses):
    with pytest.raises(ValueError, match="outside the text"):
        senses.disambiguate([SenseQuery("since", ("temporal",), "since", 3, 9)])


def test_keyword_without_model_falls_back_to_lexicon(tmp_path, caplog):
    models = tmp_path / "models"
    shutil.copytree(bundled_models_dir(), models)
    meta = json.loads((models / "meta.json").read_text())
    del meta["keywords"]["while"]
    (models / "meta.json").write_text(json.dumps(meta))
    m = load_senses(str(models))
    with caplog.at_level(logging.WARNING, logger="logicparse.senses"):
        out = m.disambiguate([q("He read [while] she slept ."), q("We left [while] it rained .")])
    assert [(d.relation, d.source) for d in out] == [("comparative", "lexicon")] * 2
    assert sum("No sense model for keyword 'while'" in r.message for r in caplog.records) == 1


def _copy_models(tmp_path) -> Path:
    models = tmp_path / "models"
    shutil.copytree(bundled_models_dir(), models)
    return models


def test_missing_truncated_tampered_untrusted(tmp_path):
    import skops.io as sio

    models = _copy_models(tmp_path)
    since = models / "since.skops"
    data = since.read_bytes()

    since.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelLoadError, match="since.skops does not match the sha256"):
        load_senses(str(models))

    meta = json.loads((models / "meta.json").read_text())
    meta["keywords"]["since"].pop("sha256")  # without the hash, the damage itself is reported
    (models / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ModelLoadError, match="since.skops cannot be read"):
        load_senses(str(models))

    # A valid skops file holding a type outside the allow-list (here a callable) is refused.
    sio.dump({"f": shutil.rmtree}, since)
    with pytest.raises(ModelLoadError, match=r"since.skops contains types that are not trusted"):
        load_senses(str(models))

    since.unlink()
    with pytest.raises(ModelLoadError, match=r"since.skops is missing"):
        load_senses(str(models))

    (models / "meta.json").unlink()
    with pytest.raises(ModelLoadError, match="has no meta.json"):
        load_senses(str(models))


def test_train_cli_round_trip_and_encoder_mismatch(tmp_path, tiny_encoder_dir):
    from logicparse.cli import _register, app
    from logicparse.senses.data import read_annotations, read_hand, write_annotations

    _register()
    train = tmp_path / "train.jsonl"
    write_annotations(train, read_hand(FIXTURES / "train.tsv"))
    out = tmp_path / "svm"
    res = CliRunner().invoke(app, ["senses", "train", "--annotations", str(train), "--keywords",
                                   "since,while", "--encoder", str(tiny_encoder_dir), "--out",
                                   str(out), "--folds", "3", "--repeats", "1"])
    assert res.exit_code == 0, res.output
    assert set(json.loads(res.stdout.strip().splitlines()[-1])["cv_accuracy"]) == {"since", "while"}
    meta = json.loads((out / "meta.json").read_text())
    assert meta["encoder"]["spec"] == str(tiny_encoder_dir)
    assert meta["keywords"]["since"]["labels"] == ["causal", "temporal"]

    m = load_senses(str(out))  # its own encoder, named in meta.json
    assert m.encoder.name == str(tiny_encoder_dir)
    # The reloaded SVMs give back most of the labels they were fitted on (labels shuffled before
    # the final fit would give back about half).
    anns = [a for a in read_annotations([train]) if a.keyword in ("since", "while")]
    decisions = m.disambiguate([_query(a) for a in anns])
    right = sum((d.relation or NONE) == a.label for d, a in zip(decisions, anns))
    assert len(anns) == 14 and right >= 12, [(a.label, d.relation) for d, a in zip(decisions, anns)]

    # Models trained for the tiny encoder, loaded with MiniLM: refused, naming both encoders.
    with pytest.raises(ModelLoadError, match="trained for encoder .*tiny-bert.*all-MiniLM-L6-v2"):
        load_senses(str(out), encoder="default")
    # The bundled (MiniLM) models with the tiny encoder given by path: refused too.
    with pytest.raises(ModelLoadError, match="trained for encoder .*all-MiniLM-L6-v2"):
        load_senses(str(tiny_encoder_dir))


def test_train_keep_adds_keywords_to_a_model_directory(tmp_path, tiny_encoder_dir):
    """--keep retrains the keywords given and keeps the directory's other models as they were;
    without it the directory holds the given keywords only; models of another encoder are not
    kept beside new ones (E209)."""
    from logicparse.cli import _register, app
    from logicparse.senses.data import read_hand, write_annotations

    _register()
    train = tmp_path / "train.jsonl"
    write_annotations(train, read_hand(FIXTURES / "train.tsv"))
    out = tmp_path / "svm"

    def run(keywords, *extra, to=out):
        return CliRunner().invoke(app, ["senses", "train", "--annotations", str(train), "--keywords",
                                        keywords, "--encoder", str(tiny_encoder_dir), "--out", str(to),
                                        "--folds", "3", "--repeats", "1", *extra])

    assert run("since,while").exit_code == 0
    before = json.loads((out / "meta.json").read_text())["keywords"]
    res = run("since", "--keep")
    assert res.exit_code == 0, res.output
    kept = json.loads((out / "meta.json").read_text())["keywords"]
    assert set(kept) == {"since", "while"} and kept["while"] == before["while"]
    assert load_senses(str(out)).classifier.keywords == ["since", "while"]
    assert run("since").exit_code == 0
    assert set(json.loads((out / "meta.json").read_text())["keywords"]) == {"since"}

    other = tmp_path / "other"
    other.mkdir()
    (other / "meta.json").write_text(json.dumps({"encoder": {"name": "another", "fingerprint": "0"},
                                                 "keywords": {"as": {}}}))
    res = run("since", "--keep", to=other)
    assert res.exit_code != 0 and "trained for encoder 'another'" in res.output
    assert not (other / "since.skops").exists()


def test_unknown_encoder_is_a_clear_error():
    from logicparse.errors import OptionError

    # Refused before anything loads: a name that is no choice, no directory, not in the local cache.
    with pytest.raises(OptionError, match=r"\[E218\] Unknown senses value 'no-such/encoder-here'"):
        load_senses("no-such/encoder-here")


def test_eval_cli_figures_and_errors_file(tmp_path, senses):
    from logicparse.cli import _register, app
    from logicparse.gdtb import read_gdtb
    from logicparse.senses.data import gdtb_annotations, relabel_since
    from logicparse.senses.scoring import decide_annotations

    # The fixture with one gold sense changed: the second `while` (temporal in the original,
    # which the model gets right) now says concession, so the model's answer is wrong there.
    gdtb = tmp_path / "gdtb"
    shutil.copytree(FIXTURES / "gdtb", gdtb)
    gold = gdtb / "gold" / "GUM_fixture_two"
    text = gold.read_text()
    assert text.count("|while|Temporal.Synchronous|") == 1
    gold.write_text(text.replace("|while|Temporal.Synchronous|",
                                 "|while|Comparison.Concession.Arg1-as-denier|"))

    _register()
    err = tmp_path / "err.jsonl"
    res = CliRunner().invoke(app, ["senses", "eval", "--gdtb", str(gdtb), "--split", "dev",
                                   "--errors", str(err)])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["n"] == 3 and set(out["per_keyword"]) == {"since", "while"}
    # The one-word sentence 'Since' (an adverb standing alone) is relabelled temporal, and said.
    assert out["relabelled"] == 1 and out["rules"] is True
    assert "relabelled 1 occurrence(s) of 'since'" in res.stderr
    # Accuracy is the confusion matrix's trace over n, per keyword and over all.
    traces = 0
    for r in out["per_keyword"].values():
        cm = r["confusion"]
        assert len(cm) == len(r["labels"]) and sum(map(sum, cm)) == r["n"]
        trace = sum(cm[i][i] for i in range(len(cm)))
        assert r["accuracy"] == round(trace / r["n"], 4)
        traces += trace
    assert out["accuracy"] == round(traces / out["n"], 4)

    # The errors file holds exactly the occurrences decided wrongly, each decided on its own.
    anns, _ = relabel_since(gdtb_annotations(read_gdtb(gdtb, "dev"), ["since", "while"],
                                             "gdtb:dev", trees=True))
    wrong = []
    for a in anns:
        (d,) = decide_annotations(senses, [a])
        if (d.relation or NONE) != a.label:
            wrong.append({"keyword": a.keyword, "gold": a.label, "predicted": d.relation or NONE,
                          "doc": a.doc})
    rows = [json.loads(line) for line in err.read_text().splitlines()]
    assert [{k: r[k] for k in ("keyword", "gold", "predicted", "doc")} for r in rows] == wrong
    assert wrong == [{"keyword": "while", "gold": "comparative", "predicted": "temporal",
                      "doc": "GUM_fixture_two"}]
    assert out["accuracy"] == round(1 - len(wrong) / out["n"], 4)


@pytest.mark.parametrize("runtime", ["torch", "onnx"])
def test_partial_forward_gives_the_same_vectors(runtime):
    """Only the blocks up to the highest layer a model reads are run: same numbers, less time."""
    import numpy as np

    from logicparse.senses.features import Encoder

    enc = Encoder("default", runtime=runtime)
    occ = [Occurrence("We left as it rained .", 8, 10), Occurrence("since 1990", 0, 5)]
    full, part = enc.encode(occ), enc.encode(occ, layers=[2, 4])
    for key in part:
        np.testing.assert_allclose(full[key], part[key], atol=1e-5)
    assert len(enc.model.encoder.layer) == enc.n_layers - 1  # the shared model is untouched
    assert len(enc._upto(2).encoder.layer) == 2


def test_a_connective_by_its_tree_gets_a_relation_not_none(senses):
    """`as` heading a clause with its own subject is a connective: the classifier's most probable
    relation decides, even where `none` is more probable; without the tree (no rules) `none`
    stands. The `as` classifier is swapped for one whose probabilities are known (none 1/2,
    temporal 1/3, causal 1/6) so the figures do not depend on the trained SVM."""
    import copy

    from sklearn.dummy import DummyClassifier

    from logicparse.senses.decide import query
    from logicparse.trees import read_tree

    model = copy.copy(senses)
    model.classifier = copy.copy(senses.classifier)
    dummy = DummyClassifier(strategy="prior").fit(
        [[0]] * 6, [NONE, NONE, NONE, "temporal", "temporal", "causal"])
    model.classifier.estimators = {**senses.classifier.estimators, "as": dummy}
    tokens = "As it rained , we stayed".split()
    tree = read_tree("(S (SBAR (IN As) (S (NP (PRP it)) (VP (VBD rained)))) (, ,) (NP (PRP we))"
                     " (VP (VBD stayed)))")
    kw = keywords()["as"]
    with_tree, without = model.disambiguate([query(kw, tokens, 0, 1, tree), query(kw, tokens, 0, 1)])
    assert (with_tree.relation, with_tree.source) == ("temporal", "classifier")
    assert with_tree.confidence == pytest.approx(1 / 3)
    assert (without.relation, without.source) == (None, "classifier")


def test_eval_cli_on_parser_trees(senses):
    from logicparse.cli import _register, app
    from logicparse.gdtb import read_gdtb
    from logicparse.parser import load_parser
    from logicparse.senses.data import gdtb_annotations, relabel_since
    from logicparse.senses.scoring import decide_annotations

    _register()
    args = ["senses", "eval", "--gdtb", str(FIXTURES / "gdtb"), "--split", "dev"]
    res = CliRunner().invoke(app, args + ["--trees", "parser"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout.strip().splitlines()[-1])
    # Gold is fixed on GDTB's trees (the relabelling reads them); the decisions read the parser's.
    assert out["trees"] == "parser" and out["relabelled"] == 1 and out["n"] == 3
    anns, _ = relabel_since(gdtb_annotations(read_gdtb(FIXTURES / "gdtb", "dev"),
                                             ["since", "while"], "gdtb:dev", trees=True))
    parsed = load_parser("default").parse([a.text.split(" ") for a in anns])
    decided = decide_annotations(senses, anns, parsed)
    right = sum((d.relation or NONE) == a.label for a, d in zip(anns, decided))
    assert out["accuracy"] == round(right / len(anns), 4)
    bad = CliRunner().invoke(app, args + ["--trees", "gold"])
    assert bad.exit_code == 2 and "E214" in bad.output
