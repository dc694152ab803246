"""The controls that isolate the labels in a downstream run: the all-e source, the random stream
every source of one seed shares, test-time ablations, label fingerprints, length-bucketed batches,
the logic learning rate, and the table's stale-run check, on tiny models and known answers."""

import json

import numpy as np
import pytest
import torch
from test_training import FlatAnnotator, tokenizer  # noqa: F401 (fixture)
from test_training_downstream import CONJ, fake_row, table, tiny_pair_model  # noqa: F401

from logicparse.errors import DataFormatError, ModelingError
from logicparse.modeling import logic_param_groups, logicalize
from logicparse.training import TrainConfig, read_conjnli, train
from logicparse.training.batches import batch_order
from logicparse.training.labels import annotate_missing, digest, labels_for, texts_of, transform


@pytest.fixture()
def shards(tmp_path):
    texts = texts_of(ex for f in ("adversarial_train_15k.tsv", "conj_dev.tsv")
                     for ex in read_conjnli(str(CONJ / f)))
    annotate_missing(texts, tmp_path / "shards", annotator=FlatAnnotator())
    return tmp_path / "shards"


def run(tmp_path, tokenizer, shards, logic, **kw):
    model = str(tmp_path / "m")
    if not (tmp_path / "m").exists():  # one base model for every run of a test
        torch.manual_seed(0)
        tiny_pair_model(tmp_path / "m", tokenizer)
    cfg = dict(task="conjnli", model=model, data=str(CONJ), out=str(tmp_path / f"o-{logic}"),
               logic=logic, shards=str(shards), dev_size=4, batch_size=4, epochs=2, lr=1e-3,
               quiet=True, checkpoint=False)
    return train(TrainConfig(**{**cfg, **kw}))


def test_all_e_trains_exactly_the_plain_model_with_the_centered_layer(tmp_path, tokenizer, shards):
    """The same seed gives the same head, batches and dropout masks; with no labels the centered
    layer adds exactly nothing, so every loss and prediction is the plain model's."""
    # float32 on a GPU too: the labels move this tiny model's test loss by about 2e-7 of itself,
    # far below what bf16 logits resolve.
    plain = run(tmp_path, tokenizer, shards, "none", bf16=False)
    all_e = run(tmp_path, tokenizer, shards, "all-e", bf16=False)
    assert all_e["test"]["predictions"] == plain["test"]["predictions"]
    assert all_e["test"]["loss"] == plain["test"]["loss"]
    assert all_e["dev_curve"] == plain["dev_curve"]
    default = run(tmp_path, tokenizer, shards, "default", bf16=False)
    assert default["test"]["loss"] != plain["test"]["loss"]  # the labels do reach the logits


def test_a_logical_run_reports_ablations_fingerprints_and_the_label_share(tmp_path, tokenizer, shards):
    result = run(tmp_path, tokenizer, shards, "default")
    for a in ("shuffled", "random", "all-e"):
        assert len(result[f"test_{a}"]["predictions"]) == 6
        assert 0 <= result[f"test_{a}"]["accuracy"] <= 1
    share = result["label_share"]
    assert share["init"]["labelled"] > 0.05 and share["init"]["all_e"] == 0.0
    assert share["after"]["labelled_tokens"] == share["init"]["labelled_tokens"] > 0
    texts = texts_of(read_conjnli(str(CONJ / "conj_dev.tsv")))
    labels = labels_for(texts, str(shards), "x", annotate=False)
    assert result["test_annotation_sha"] == digest(labels, texts)
    shuffled = run(tmp_path, tokenizer, shards, "shuffled")
    assert "test_all-e" in shuffled and "test_random" in shuffled and "test_shuffled" not in shuffled
    assert "test_random" not in run(tmp_path, tokenizer, shards, "random")
    assert "test_shuffled" not in run(tmp_path, tokenizer, shards, "none")


def test_the_all_e_ablation_of_a_model_is_its_plain_reading(tmp_path, tokenizer, shards):
    """With lr 0 nothing trains: the logical model fed no labels at test is the plain model."""
    logical = run(tmp_path, tokenizer, shards, "default", lr=0.0)
    plain = run(tmp_path, tokenizer, shards, "none", lr=0.0)
    assert logical["test_all-e"]["predictions"] == plain["test"]["predictions"]
    assert logical["test_all-e"]["loss"] == pytest.approx(plain["test"]["loss"], abs=1e-6)


def test_digest_changes_with_any_label_and_not_with_other_texts(tmp_path, shards):
    texts = texts_of(read_conjnli(str(CONJ / "conj_dev.tsv")))
    labels = labels_for(texts, str(shards), "x", annotate=False)
    before = digest(labels, texts)
    assert digest(dict(labels), texts) == before
    moved = {t: transform(d, "all-e") for t, d in labels.items()}
    assert digest(moved, texts) != before
    assert all(not any(r) for d in moved.values() for r in d.logic)
    assert digest(labels, texts[:-1]) != before


def test_length_buckets_keep_every_example_once_and_cut_padding():
    lengths = np.array([5, 40, 6, 38, 7, 41, 5, 39] * 25)
    plain = batch_order(lengths, 8, True, seed=1, bucket=False)
    bucketed = batch_order(lengths, 8, True, seed=1, bucket=True)
    for order in (plain, bucketed):
        assert sorted(np.concatenate(order).tolist()) == list(range(200))
    padded = lambda bs: sum(len(b) * lengths[b].max() for b in bs)  # noqa: E731
    assert padded(bucketed) < 0.7 * padded(plain)
    assert [b.tolist() for b in bucketed] == [b.tolist() for b in batch_order(lengths, 8, True, 1)]
    assert [b.tolist() for b in bucketed] != [b.tolist() for b in batch_order(lengths, 8, True, 2)]
    evaluation = batch_order(lengths, 8, False, seed=0)
    assert np.all(np.diff(lengths[np.concatenate(evaluation)]) >= 0)


def test_logic_param_groups_give_the_new_parameters_their_own_rate():
    import transformers as T

    cfg = T.BertConfig(vocab_size=50, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                       intermediate_size=16, num_labels=2)
    model = logicalize(T.BertForSequenceClassification(cfg))
    groups = logic_param_groups(model, 1e-4, logic_lr=1e-2, weight_decay=0.1)
    emb = model.bert.embeddings.word_embeddings
    new = {id(p) for p in (emb.logic_vectors.weight, emb.proj.weight, emb.proj.bias)}
    for g in groups:
        is_new = {id(p) in new for p in g["params"]}
        assert len(is_new) == 1
        assert g["lr"] == (1e-2 if is_new.pop() else 1e-4)
        assert g["weight_decay"] == (0.1 if g["params"][0].dim() >= 2 else 0.0)
    assert sum(len(g["params"]) for g in groups) == len(list(model.parameters()))
    assert {g["lr"] for g in logic_param_groups(model, 1e-4)} == {1e-4}
    frozen = logic_param_groups(model, 1e-4, logic_lr=0.0)  # the layer held still: 0, not lr
    assert {g["lr"] for g in frozen if id(g["params"][0]) in new} == {0.0}
    with pytest.raises(ModelingError, match="logic_lr"):
        logic_param_groups(model, 1e-4, logic_lr=-1)


@pytest.mark.parametrize("kw, what", [({"logic": "all_e"}, "label source"),
                                      ({"layer": "gated"}, "logical layer"),
                                      ({"logic_lr": -1.0}, "logic learning rate")])
def test_bad_training_options_name_the_choices(kw, what):
    with pytest.raises(DataFormatError, match=what) as e:
        TrainConfig(**kw)
    assert "E506" in str(e.value)


def test_the_table_leaves_out_runs_fed_other_labels_than_today(tmp_path, table, shards, capsys):
    from logicparse.training.train import read_splits

    results = tmp_path / "r.jsonl"
    _, _, splits = read_splits(TrainConfig(task="conjnli", data=str(CONJ), train_size=8, dev_size=2))
    texts = texts_of(ex for exs in splits.values() for ex in exs)
    today = digest(labels_for(texts, str(shards), "x", annotate=False), texts)
    rows = [fake_row("none", 0, [0] * 6), fake_row("default", 0, [0, 2, 2, 0, 1, 2], sha=today),
            fake_row("shuffled", 0, [0, 2, 2, 0, 1, 2], sha=today)]
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    argv = ["--data", str(CONJ), "--train-size", "8", "--dev-size", "2", "--epochs", "1", "--lr", "5e-5",
            "--results", str(results), "--shards", str(shards), "--report"]
    assert table.main(argv) == 0
    out = capsys.readouterr().out
    assert "left out: 1 runs fed other labels" in out and "shuffled/seed 0" in out
    summary = json.loads(out.strip().splitlines()[-1])
    assert set(summary["sources"]) == {"none", "default"}
    assert summary["stale"] == [["shuffled", 0, today]]


def test_a_cell_fed_other_labels_is_run_again_and_reported_once(tmp_path, table, shards, monkeypatch,
                                                                capsys):
    from logicparse.training.train import read_splits

    results = tmp_path / "r.jsonl"
    _, _, splits = read_splits(TrainConfig(task="conjnli", data=str(CONJ), train_size=8, dev_size=2))
    texts = texts_of(ex for exs in splits.values() for ex in exs)
    today = digest(labels_for(texts, str(shards), "x", annotate=False), texts)
    rows = [fake_row("none", 0, [0] * 6), fake_row("default", 0, [0] * 6, sha="0ld0ld0ld0ld0ld0"),
            fake_row("shuffled", 0, [0] * 6, sha=digest(labels_for(
                texts, str(shards), "x", source="shuffled", annotate=False), texts))]
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    ran = []

    def run_cell(args, logic, seed, rows):
        ran.append((logic, seed))
        return fake_row(logic, seed, [0, 2, 2, 0, 1, 2], sha=today)

    from logicparse.training import comparison

    monkeypatch.setattr(comparison, "run_cell", run_cell)
    argv = ["--data", str(CONJ), "--seeds", "0", "--logic", "none", "default", "shuffled",
            "--train-size", "8", "--dev-size", "2", "--epochs", "1", "--lr", "5e-5",
            "--results", str(results), "--shards", str(shards)]
    assert table.main(argv) == 0
    assert ran == [("default", 0)]  # none needs no labels; shuffled was fed today's
    out = capsys.readouterr().out
    assert "left out: 1 runs fed other labels" in out and "default/seed 0" in out
    summary = json.loads(out.strip().splitlines()[-1])
    # Only the new default run is counted: right on all 6 pairs.
    assert summary["sources"]["default"]["test"][0] == pytest.approx(1.0)
    assert table.main(argv) == 0 and ran == [("default", 0)]
