"""The downstream table: the ConjNLI reader, the four label sources, sentence-pair training, the
table script's resume and damaged results, and the statistics it prints, on known answers."""

import collections
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import torch
import transformers as T
from test_training import FIX, FlatAnnotator, tokenizer, tiny_bert  # noqa: F401 (fixture)

import logicparse
from logicparse.errors import DataFormatError
from logicparse.training import TrainConfig, read_conjnli, read_pararule, train
from logicparse.training import compare as C
from logicparse.training.labels import (annotate_missing, digest, labels_for, paper_labels,
                                        shuffle_labels, texts_of)
from logicparse.training.tasks import carve

CONJ = FIX / "conjnli"
TABLE = Path(__file__).parents[2] / "benchmarks" / "downstream" / "downstream_table.py"


# --- reader ----------------------------------------------------------------------------------


def test_conjnli_reader_reads_the_bom_header_and_labels():
    train_pairs = read_conjnli(str(CONJ / "adversarial_train_15k.tsv"))
    assert len(train_pairs) == 12
    assert train_pairs[0].premise == "The museum is open on Monday and Tuesday."
    assert [p.label for p in train_pairs[:3]] == [0, 1, 2]  # entailment, neutral, contradiction
    assert texts_of(train_pairs[:1]) == [train_pairs[0].premise, train_pairs[0].hypothesis]


@pytest.mark.parametrize("line, reason", [
    ("A premise.\tA hypothesis.\n", r"line 3: expected a premise, a hypothesis and a label"),
    ("A premise.\tA hypothesis.\tmaybe\n", r"line 3: unknown label 'maybe'"),
])
def test_conjnli_bad_rows_name_the_file_and_line_before_training(tmp_path, line, reason):
    bad = tmp_path / "adversarial_train_15k.tsv"
    bad.write_text("\ufeffPremise\tHypothesis\tLabel\nA.\tB.\tneutral\n" + line, encoding="utf-8")
    with pytest.raises(DataFormatError, match="adversarial_train_15k.tsv, " + reason):
        read_conjnli(str(bad))
    # The command refuses it before a model is loaded or anything is written.
    with pytest.raises(DataFormatError, match=reason):
        train(TrainConfig(task="conjnli", model="no-such-model", data=str(tmp_path),
                          out=str(tmp_path / "out"), logic="none", dev_size=1))
    assert not (tmp_path / "out" / "metrics.jsonl").exists() or \
        (tmp_path / "out" / "metrics.jsonl").read_text() == ""


def test_the_dev_carve_is_seeded_disjoint_and_independent_of_the_training_seed():
    items = list(range(100))
    tr, dev = carve(items, 10, 30, seed=0)
    assert len(dev) == 10 and len(tr) == 30 and not set(tr) & set(dev)
    assert carve(items, 10, 30, seed=0) == (tr, dev)
    assert carve(items, 10, None, seed=0)[1] == dev  # the same dev split whatever the train size
    assert carve(items, 10, 30, seed=1)[1] != dev
    with pytest.raises(DataFormatError, match="lower --dev-size"):
        carve(items[:5], 10, None)


# --- label sources ---------------------------------------------------------------------------

# `in Paris` is a place (the decisions say none; the lexicon says temporal) and `because`'s α is
# widened by the default mapping: the paper's labels differ from the default ones here.
TREE = ("(S (CC But) (NP (PRP I)) (VP (VBP live) (PP (IN in) (NP (NNP Paris))) (SBAR (IN because) "
        "(S (NP (PRP it)) (VP (VBZ is) (ADJP (JJ cheap)))))) (. .))")


def default_doc():
    return logicparse.annotate_trees([TREE], senses="rules")


def test_paper_labels_are_the_papers_algorithm_on_the_same_trees():
    doc = default_doc()
    paper = paper_labels(doc)
    literal = logicparse.annotate_trees([TREE], senses=None, mapping="paper")
    assert paper.logic == literal.logic and paper.tokens == doc.tokens
    assert paper.logic != doc.logic
    assert "temporal" in {r.relation for r in paper.relations}
    assert "temporal" not in {r.relation for r in doc.relations}
    with pytest.raises(DataFormatError, match="no parse trees"):
        paper_labels(logicparse.Document(id="x", tokens=["a"], token_starts=[0], token_ends=[1],
                                         logic=[[]], sentence_starts=[0]))


def test_paper_labels_pass_error_rows_and_empty_texts_and_name_a_document_without_trees():
    failed = logicparse.Document(id="bad", tokens=["a"], token_starts=[0], token_ends=[1],
                                 logic=[[]], sentence_starts=[0], error="[E322] it changed")
    assert paper_labels(failed) is failed  # its error stays its row's reason
    empty = logicparse.Document(id="e", text="")
    assert paper_labels(empty) is empty
    no_trees = logicparse.Document(id="x", tokens=["a"], token_starts=[0], token_ends=[1],
                                   logic=[[]], sentence_starts=[0])
    with pytest.raises(DataFormatError) as e:
        paper_labels(no_trees)
    assert str(e.value).startswith("[E530] shards: document 'x' has no parse trees")
    with pytest.raises(DataFormatError) as e:
        paper_labels(no_trees, "cache/run-a")
    assert str(e.value).startswith("[E530] cache/run-a: document 'x' has no parse trees")


def test_shuffled_labels_keep_counts_and_frequencies_but_move():
    doc = default_doc()
    shuffled = shuffle_labels(doc, seed=0)
    count = lambda d: collections.Counter(tuple(r) for r in d.logic)  # noqa: E731
    assert count(shuffled) == count(doc)
    assert sum(1 for r in shuffled.logic if r) == sum(1 for r in doc.logic if r)
    assert shuffled.logic != doc.logic and shuffled.tokens == doc.tokens
    assert shuffle_labels(doc, seed=0).logic == shuffled.logic  # seeded
    assert shuffle_labels(doc, seed=1).logic != shuffled.logic


class TreeAnnotator:
    """The annotator's default labels (tree-rule decisions, default mapping) on the hand-built
    tree of each text; a text is its tree's words joined by spaces."""

    def pipe(self, texts, batch_size=32, ids=None):
        for text, doc_id in zip(texts, ids):
            doc = logicparse.annotate_trees([TREES[text]], senses="rules", id=doc_id)
            doc.text = text
            yield doc


TREES = {" ".join(logicparse.annotate_trees([t]).tokens): t for t in [
    TREE, "(S (NP (PRP We)) (VP (VBP stay)) (. .))"]}


def test_labels_for_each_source_from_one_annotation(tmp_path):
    texts = list(TREES)
    shards = tmp_path / "shards"
    annotate_missing(texts, shards, annotator=TreeAnnotator())
    default = labels_for(texts, str(shards), "x", annotate=False)
    paper = labels_for(texts, str(shards), "x", source="paper", annotate=False)
    shuffled = labels_for(texts, str(shards), "x", source="shuffled", annotate=False, seed=3)
    assert labels_for(texts, str(shards), "x", source="none") == {}
    for t in texts:
        assert paper[t].tokens == default[t].tokens
        assert sorted(map(tuple, shuffled[t].logic)) == sorted(map(tuple, default[t].logic))
    assert default[texts[0]].logic == default_doc().logic
    assert paper[texts[0]].logic == logicparse.annotate_trees([TREE], mapping="paper").logic
    assert shuffled[texts[0]].logic != default[texts[0]].logic
    with pytest.raises(DataFormatError, match="Unknown label source 'gold'"):
        labels_for(texts, str(shards), "x", source="gold")


# --- sentence-pair training --------------------------------------------------------------------


def tiny_pair_model(path: Path, tokenizer, zero: bool = False, classes: int = 3) -> str:
    cfg = T.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=16, num_hidden_layers=1,
                       num_attention_heads=2, intermediate_size=32, max_position_embeddings=128,
                       num_labels=classes)
    model = T.BertForSequenceClassification(cfg)
    if zero:
        with torch.no_grad():
            model.classifier.weight.zero_()
            model.classifier.bias.copy_(torch.tensor([0.0, 1.0, 0.0]))
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return str(path)


@pytest.mark.parametrize("logic", ["none", "paper", "default", "shuffled"])
def test_conjnli_trains_with_each_label_source(tmp_path, tokenizer, logic):
    model = tiny_pair_model(tmp_path / "m", tokenizer)
    result = train(TrainConfig(task="conjnli", model=model, data=str(CONJ), out=str(tmp_path / "o"),
                               logic=logic, shards=str(tmp_path / "s"), dev_size=4, batch_size=4,
                               epochs=2, lr=1e-3, k=2, checkpoint=False, quiet=True),
                   annotator=FlatAnnotator())
    assert result["logic"] == logic and result["train"] == 8 and result["steps"] == 4
    assert len(result["dev_curve"]) == 2 and result["dev"]["n"] == 4
    assert result["test"]["n"] == 6 and len(result["test"]["predictions"]) == 6
    assert not (tmp_path / "o" / "ckpt.pt").exists() and not (tmp_path / "o" / "best").exists()


def test_pair_accuracy_of_a_model_that_always_says_neutral(tmp_path, tokenizer):
    """A classifier whose logits are (0, 1, 0) for every pair predicts neutral: test accuracy is
    the share of neutral pairs in the fixture (1 of 6); lr=0 keeps it so."""
    model = tiny_pair_model(tmp_path / "m", tokenizer, zero=True)
    result = train(TrainConfig(task="conjnli", model=model, data=str(CONJ), out=str(tmp_path / "o"),
                               logic="none", dev_size=4, batch_size=4, epochs=1, lr=0.0, quiet=True))
    assert result["test"]["predictions"] == [1] * 6
    assert result["test"]["accuracy"] == pytest.approx(1 / 6)


# --- the statistics --------------------------------------------------------------------------


def test_bootstrap_on_known_answers():
    gold = [0, 1, 2, 0]
    right = C.correct_matrix([gold, gold], gold)
    wrong = C.correct_matrix([[1, 2, 0, 1]] * 2, gold)
    assert C.paired_bootstrap(right, right) == (0.0, 0.0, 0.0)
    assert C.paired_bootstrap(right, wrong) == (1.0, 1.0, 1.0)
    # A is right on every example, B on the first half: the difference is 0.5 and the interval
    # holds it, within [0, 1]; resampling 200 examples keeps it near 0.5 (binomial sd 0.035).
    a = np.ones((3, 200))
    b = np.zeros((3, 200))
    b[:, :100] = 1
    diff, lo, hi = C.paired_bootstrap(a, b, n_boot=4000)
    assert diff == 0.5 and 0.40 < lo < 0.5 < hi < 0.60
    assert C.mean_std([0.5, 0.7]) == pytest.approx((0.6, 0.1414213562))
    # Over seeds: mean 0.02, sd 0.01, 3 seeds: 0.02 ± t(0.975, 2) 4.3027 × 0.01 / √3.
    assert C.seed_interval([0.01, 0.02, 0.03]) == pytest.approx((0.02 - 0.02484138, 0.02 + 0.02484138))
    assert C.seed_interval([0.01]) is None
    assert C.group_accuracy(right, np.array([True, False, True, False])) == (1.0, 0.0, 2)
    assert C.group_accuracy(right, np.zeros(4, dtype=bool)) is None


# --- the table script ------------------------------------------------------------------------


@pytest.fixture()
def table():
    spec = importlib.util.spec_from_file_location("downstream_table", TABLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_row(logic, seed, predictions, args=("conjnli", 8, 1, 5e-5), sha=None):
    """A finished run; ``sha`` is the fingerprint of the labels it was fed."""
    task, size, epochs, lr = args
    return {"task": task, "logic": logic, "seed": seed, "train_size": size, "epochs": epochs,
            "lr": lr, "layer": "centered", "logic_lr": None, "labels_sha": sha,
            "best_epoch": 0, "dev_accuracy": 0.5, "test_accuracy": float(np.mean(
                np.array(predictions) == [0, 2, 2, 0, 1, 2])),
            "steps": 2, "seconds": 1.0, "step_ratio": 1.0, "step_seconds": 0.1,
            "dev_curve": [0.5], "test_predictions": predictions}


def test_table_skips_finished_cells_and_reports_from_the_results(tmp_path, table, monkeypatch, capsys):
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps(fake_row("none", 0, [0, 0, 0, 0, 0, 0])) + "\n")
    ran = []

    from logicparse.training.train import read_splits

    _, _, splits = read_splits(TrainConfig(task="conjnli", data=str(CONJ), train_size=8, dev_size=2))
    texts = texts_of(ex for exs in splits.values() for ex in exs)
    annotate_missing(texts, tmp_path / "s", annotator=FlatAnnotator())
    today = digest(labels_for(texts, str(tmp_path / "s"), str(CONJ / "x")), texts)

    def run_cell(args, logic, seed, rows):
        ran.append((logic, seed))
        return fake_row(logic, seed, [0, 2, 2, 0, 1, 2], sha=today)

    from logicparse.training import comparison

    monkeypatch.setattr(comparison, "run_cell", run_cell)
    argv = ["--data", str(CONJ), "--seeds", "0", "--logic", "none", "default", "--train-size", "8",
            "--dev-size", "2", "--epochs", "1", "--lr", "5e-5", "--results", str(results), "--shards", str(tmp_path / "s")]
    assert table.main(argv) == 0
    assert ran == [("default", 0)]  # none/seed 0 was finished
    assert len(results.read_text().splitlines()) == 2
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    # default is right on all 6 test pairs, none on the 2 entailments: +4/6, per seed and overall.
    assert summary["differences"]["default-none"]["mean"] == pytest.approx(4 / 6)
    assert summary["sources"]["none"]["test"][0] == pytest.approx(2 / 6)
    assert summary["groups"]["disjunction"]["n"] == 2  # "or" in the card/cash and tea/coffee pairs
    assert table.main(argv) == 0 and ran == [("default", 0)]  # nothing left to run


def test_a_damaged_results_line_is_named_and_the_file_left_alone(tmp_path, table, capsys):
    results = tmp_path / "r.jsonl"
    good = json.dumps(fake_row("none", 0, [0] * 6))
    results.write_text(good + "\n{\"task\": \"conjnli\", \"lo\n")
    before = results.read_bytes()
    assert table.main(["--data", str(CONJ), "--results", str(results), "--report"]) == 2
    err = capsys.readouterr().err
    assert "[E531]" in err and "line 2" in err and str(results) in err
    assert results.read_bytes() == before


def test_a_parser_typo_is_refused_before_anything_loads(tmp_path):
    from typer.testing import CliRunner

    from logicparse.cli import _register, app

    _register()
    res = CliRunner().invoke(app, ["train", "--task", "conjnli", "--data", str(CONJ), "--parser",
                                   "defualt", "--out", str(tmp_path / "o"), "--quiet"])
    assert res.exit_code == 2 and "[E021]" in res.output
    assert not (tmp_path / "o").exists()


# --- PARARULE-Plus ---------------------------------------------------------------------------

PARA = FIX / "pararule"


def test_pararule_reader_makes_one_pair_per_question_grouped_by_context():
    pairs = read_pararule(str(PARA / "depth2_dev.jsonl"))
    assert len(pairs) == 12 and [p.label for p in pairs[:2]] == [1, 0]  # true, false
    assert pairs[0].premise.startswith("Anne is big.") and pairs[1].hypothesis == "Anne is rough."
    assert pairs[0].group == pairs[1].group == "D2-0" != pairs[2].group


@pytest.mark.parametrize("line, reason", [
    ('{"id": "x", "questions": []}', r"line 2: 'context' must be a non-empty string, got nothing"),
    ('{"id": "x", "context": "A is b.", "questions": [{"text": "A is b.", "label": "maybe"}]}',
     r"line 2, question 0: 'label' must be false or true, got the string 'maybe'"),
    ("{not json", r"line 2: not JSON"),
])
def test_pararule_bad_lines_name_the_file_and_line(tmp_path, line, reason):
    bad = tmp_path / "depth2_dev.jsonl"
    bad.write_text((PARA / "depth2_dev.jsonl").read_text().splitlines()[0] + "\n" + line + "\n")
    with pytest.raises(DataFormatError, match="depth2_dev.jsonl, " + reason):
        read_pararule(str(bad))


def test_the_pararule_carve_keeps_each_context_on_one_side():
    pairs = read_pararule(str(PARA / "depth2_dev.jsonl"))
    tr, dev = carve(pairs, 3, None, seed=0)
    assert len(dev) == 4 and len(tr) == 8  # whole contexts: 2 of them (4 questions) for 3 asked
    assert not {p.group for p in tr} & {p.group for p in dev}
    assert carve(pairs, 3, None, seed=0) == (tr, dev) and carve(pairs, 3, 5, seed=0)[1] == dev
    assert len(carve(pairs, 3, 5, seed=0)[0]) == 5


def test_pararule_trains_with_labels(tmp_path, tokenizer):
    model = tiny_pair_model(tmp_path / "m", tokenizer, classes=2)
    result = train(TrainConfig(task="pararule", model=model, data=str(PARA), out=str(tmp_path / "o"),
                               logic="default", shards=str(tmp_path / "s"), dev_size=4,
                               batch_size=4, epochs=1, lr=1e-3, k=2, checkpoint=False, quiet=True),
                   annotator=FlatAnnotator())
    assert result["train"] == 8 and result["dev"]["n"] == 4 and result["test"]["n"] == 4


def test_a_dialogsum_line_that_is_not_json_is_named(tmp_path):
    from logicparse.training import read_dialogsum

    bad = tmp_path / "dialogsum.train.jsonl"
    bad.write_text('{"dialogue": "#Person1#: Hi.", "summary": "A greeting."}\n{"dialogue": \n')
    with pytest.raises(DataFormatError, match=r"dialogsum.train.jsonl, line 2: not JSON"):
        read_dialogsum(str(bad))


def test_the_training_log_escapes_its_paths(tmp_path, tokenizer, capsys):
    """A data folder named to write to the clipboard and clear the screen reaches stderr escaped."""
    model = tiny_pair_model(tmp_path / "m", tokenizer)
    data = tmp_path / "conj\x1b]52;c;aGk=\x07\x1b[2Jnli\U000e0041"
    data.mkdir()
    for name in ("adversarial_train_15k.tsv", "conj_dev.tsv"):
        (data / name).write_bytes((CONJ / name).read_bytes())
    train(TrainConfig(task="conjnli", model=model, data=str(data), out=str(tmp_path / "o"),
                      logic="none", dev_size=4, batch_size=4, epochs=1, checkpoint=False))
    err = capsys.readouterr().err
    assert "data=" in err and "\\x1b]52;c;aGk=\\x07" in err and "\\U000e0041" in err
    assert not {"\x1b", "\x07", "\U000e0041"} & set(err)
