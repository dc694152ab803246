"""Re-balanced PARARULE-Plus (logicparse.training.pararule): the closed-world reasoner against
released labels (a fixture of 24 released contexts), stratified negation, depths, the quartets
whose words give nothing away, and the command that writes the files a training run reads."""

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from logicparse.cli import _register, app
from logicparse.errors import DataFormatError
from logicparse.training.pararule import (balanced_rows, best_single_word, warm_up_rows,
                                          build_balanced, check_released, closure, fewer_entities,
                                          parse_context, read_rows, truth)
from logicparse.training.tasks import get_task, split_files

PARA = Path(__file__).parents[1] / "fixtures" / "modeling" / "pararule_plus"
# A released depth-3 context (NegationRule-Animal-D3-484) where "not strong" must be read only once
# nothing can derive "strong": the tiger is dull and rough, so heavy, so (not furry) awful, so strong.
TIGER = ("The tiger is dull. The tiger is rough. The rabbit is furry. If something is not strong "
         "then it is lovely. If something is dull and rough then it is heavy. If something is "
         "heavy and not furry then it is awful. All awful animals are strong.")


def released_folder(tmp_path: Path) -> Path:
    """A data folder holding the fixture's released depth-2 files."""
    data = tmp_path / "pararule_plus"
    data.mkdir()
    for name in ("depth2_dev.jsonl", "depth2_test.jsonl"):
        (data / name).write_bytes((PARA / name).read_bytes())
    return data


def test_the_reasoner_reproduces_every_released_label_of_the_fixture():
    for name in ("depth2_dev.jsonl", "depth2_test.jsonl"):
        rows = read_rows(str(PARA / name))
        check = check_released(rows, name)
        assert check["questions"] == sum(len(r["questions"]) for r in rows) >= 70
        assert check["agree"] == check["questions"] and check["first_disagreement"] is None


def test_a_wrong_released_label_is_found_and_named():
    rows = read_rows(str(PARA / "depth2_test.jsonl"))
    rows[1]["questions"][2]["label"] = {"true": "false", "false": "true"}[rows[1]["questions"][2]["label"]]
    check = check_released(rows)
    assert check["agree"] == check["questions"] - 1
    assert check["first_disagreement"]["line"] == 2
    assert check["first_disagreement"]["question"] == rows[1]["questions"][2]["text"]


def test_negation_is_read_only_once_nothing_can_derive_its_atom():
    derived = closure(parse_context(TIGER))
    assert truth(derived, "The tiger is strong.") is True
    assert truth(derived, "The tiger is lovely.") is False  # "not strong" never held
    assert truth(derived, "The rabbit is lovely.") is True  # nothing makes the rabbit strong
    assert truth(derived, "The rabbit is not lovely.") is False


def test_depth_counts_rule_applications_from_the_facts():
    derived = closure(parse_context("Harry is strong. Strong people are smart. "
                                    "All smart people are quiet. If someone is quiet and strong "
                                    "then they are kind. Gary is kind."))
    assert derived[("is", "Harry", "strong")] == 0 and derived[("is", "Gary", "kind")] == 0
    assert derived[("is", "Harry", "smart")] == 1 and derived[("is", "Harry", "quiet")] == 2
    assert derived[("is", "Harry", "kind")] == 3  # one more than its deepest condition
    assert ("is", "Gary", "smart") not in derived


def test_relations_and_rules_over_them():
    derived = closure(parse_context("The bald eagle chases the mouse. The mouse is round. If "
                                    "something chases the mouse then it is big. If something is "
                                    "big then it needs the dog."))
    assert derived[("is", "the bald eagle", "big")] == 1
    assert derived[("needs", "the bald eagle", "the dog")] == 2
    assert truth(derived, "The bald eagle is big.") and not truth(derived, "The mouse is big.")
    assert truth(derived, "The bald eagle needs the dog.") is None  # not a statement form asked


@pytest.mark.parametrize("sentence", ["Harry is strong or quiet.", "Harry is kind and big.",
                                      "Harry is not strong."])
def test_a_sentence_outside_the_grammar_is_refused_by_name(sentence):
    named = repr(sentence).replace(".", r"\.")
    with pytest.raises(DataFormatError, match=r"\[E536\] ctx: the sentence " + named):
        parse_context(f"Harry is kind. {sentence}", "ctx")


def test_a_rule_that_needs_its_own_negation_has_no_reading():
    with pytest.raises(DataFormatError, match=r"\[E537\]"):
        closure(parse_context("Harry is kind. If someone is not big then they are big."))


def test_released_statements_are_answered_by_not_alone():
    assert best_single_word(read_rows(str(PARA / "depth2_dev.jsonl"))) == ("not", 1.0)


def test_quartets_give_no_single_word_the_answer_and_agree_with_the_reasoner():
    rows = balanced_rows(read_rows(str(PARA / "depth2_dev.jsonl")), 40, seed=3)
    assert len(rows) == 10 and all(len(r["questions"]) == 4 for r in rows)
    assert best_single_word(rows) == ("(majority)", 0.5)
    cells = {}
    for r in rows:
        derived = closure(parse_context(r["context"]))
        for q in r["questions"]:
            assert truth(derived, q["text"]) == (q["label"] == "true")
            key = (q["meta"]["negated"], q["label"])
            cells[key] = cells.get(key, 0) + 1
        x, y = r["questions"][0], r["questions"][2]
        assert x["text"].split(" is ")[1] == y["text"].split(" is ")[1]  # one attribute
        assert x["text"].split(" is ")[0] != y["text"].split(" is ")[0]  # two entities
        depth = int(x["meta"]["QDep"])
        subject = x["text"].split(" is ")[0]
        atom = ("is", subject[0].lower() + subject[1:] if subject.startswith("The ") else subject,
                x["text"].split(" is ")[1].rstrip("."))
        assert derived[atom] == depth
    assert cells == {(False, "true"): 10, (True, "false"): 10, (False, "false"): 10,
                     (True, "true"): 10}
    assert sorted({q["meta"]["QDep"] for r in rows for q in r["questions"]}) == ["0", "1", "2"]


def test_the_same_seed_builds_the_same_quartets():
    released = read_rows(str(PARA / "depth2_dev.jsonl"))
    assert balanced_rows(released, 40, seed=3) == balanced_rows(released, 40, seed=3)
    assert balanced_rows(released, 40, seed=3) != balanced_rows(released, 40, seed=4)


def test_the_command_writes_disjoint_splits_that_the_task_reads(tmp_path):
    data = released_folder(tmp_path)
    _register()
    res = CliRunner().invoke(app, ["tasks", "pararule-balanced", str(data), "--train", "24",
                                   "--dev", "8", "--test", "12", "--seed", "1"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output.strip().splitlines()[-1])
    assert f"{sum(len(r['questions']) for r in read_rows(str(data / 'depth2_dev.jsonl')))} of" \
        in res.output.replace(",", "")
    assert {s: v["statements"] for s, v in summary["splits"].items()} == \
        {"train": 24, "dev": 8, "test": 12}
    assert all(v["best_single_word_accuracy"] == 0.5 for v in summary["splits"].values())
    assert "best single-word predictor 0.500 (no word beats the majority)" in res.output
    train_ids = {r["id"] for r in read_rows(str(data / "balanced" / "train.jsonl"))}
    dev_ids = {r["id"] for r in read_rows(str(data / "balanced" / "dev.jsonl"))}
    assert len(train_ids) == 6 and len(dev_ids) == 2 and not train_ids & dev_ids
    task = get_task("pararule-balanced")
    files = split_files(task, str(data), {})
    pairs = {s: task.read(p) for s, p in files.items()}
    assert [len(pairs[s]) for s in ("train", "dev", "test")] == [24, 8, 12]
    assert {p.group for p in pairs["train"]} == train_ids
    first = read_rows(str(data / "balanced" / "train.jsonl"))[0]  # the statement, then its context
    assert (pairs["train"][0].premise, pairs["train"][0].hypothesis) == \
        (first["questions"][0]["text"], first["context"])
    before = (data / "balanced" / "train.jsonl").read_bytes()
    build_balanced(str(data), sizes=(24, 8, 12), seed=1)
    assert (data / "balanced" / "train.jsonl").read_bytes() == before


def test_the_command_refuses_when_the_reasoner_disagrees_with_a_released_label(tmp_path):
    rows = read_rows(str(PARA / "depth2_test.jsonl"))
    rows[0]["questions"][0]["label"] = "false" if rows[0]["questions"][0]["label"] == "true" else "true"
    (tmp_path / "depth2_test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "depth2_dev.jsonl").write_bytes((PARA / "depth2_dev.jsonl").read_bytes())
    _register()
    res = CliRunner().invoke(app, ["tasks", "pararule-balanced", str(tmp_path)])
    assert res.exit_code == 2 and "[E537]" in res.output and "depth2_test.jsonl" in res.output
    assert not (tmp_path / "balanced").exists()


@pytest.mark.parametrize("args, named", [(["--depths", "0,4"], "--depths"),
                                         (["--depths", "x"], "--depths")])
def test_the_command_names_a_wrong_depth(tmp_path, args, named):
    _register()
    res = CliRunner().invoke(app, ["tasks", "pararule-balanced", str(PARA), *args])
    assert res.exit_code == 2 and "[E506]" in res.output and named in res.output


def test_a_missing_file_is_named(tmp_path):
    _register()
    res = CliRunner().invoke(app, ["tasks", "pararule-balanced", str(tmp_path)])
    assert res.exit_code == 2 and "[E521]" in res.output and "depth2_dev.jsonl" in res.output


def test_best_single_word_counts_presence_and_absence():
    said = [("A is x.", "true"), ("B is x.", "true"), ("C is x.", "false"), ("A is y.", "false"),
            ("B is y.", "false"), ("C is z.", "false")]
    rows = [{"questions": [{"text": t, "label": y} for t, y in said]}]
    assert best_single_word(rows) == ("x", 5 / 6)  # majority alone: 4 / 6
    assert np.isclose(best_single_word([{"questions": [{"text": "A is x.", "label": "true"}]}])[1], 1.0)


def test_the_table_reports_depth_and_negation_and_the_random_control(tmp_path, capsys):
    """Known answers through benchmarks/downstream/downstream_table.py --report: default right on
    every test statement, random right on the true ones, none on none of the negated ones."""
    import importlib.util

    from test_training import FlatAnnotator

    from logicparse.training import TrainConfig
    from logicparse.training.labels import annotate_missing, digest, labels_for, texts_of
    from logicparse.training.train import read_splits

    data = released_folder(tmp_path)
    build_balanced(str(data), sizes=(24, 8, 12), seed=1)
    spec = importlib.util.spec_from_file_location(
        "downstream_table",
        Path(__file__).parents[2] / "benchmarks" / "downstream" / "downstream_table.py")
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    cfg = TrainConfig(task="pararule-balanced", data=str(data), train_size=24, dev_size=0)
    _, files, splits = read_splits(cfg)
    texts = texts_of(ex for exs in splits.values() for ex in exs)
    annotate_missing(texts, tmp_path / "s", annotator=FlatAnnotator())
    meta = [q["meta"] for r in read_rows(files["test"]) for q in r["questions"]]
    gold = [ex.label for ex in splits["test"]]
    rows = []
    for logic, predictions in (("none", [1 - g if m["negated"] else g for g, m in zip(gold, meta)]),
                               ("default", gold), ("random", [1] * 12)):
        sha = None if logic == "none" else digest(
            labels_for(texts, str(tmp_path / "s"), "x", source=logic, seed=0, annotate=False), texts)
        rows.append({"task": "pararule-balanced", "logic": logic, "seed": 0, "train_size": 24,
                     "epochs": 1, "lr": 1e-4, "layer": "centered", "logic_lr": None,
                     "labels_sha": sha, "best_epoch": 0, "dev_accuracy": 0.5,
                     "test_accuracy": float(np.mean(np.array(predictions) == gold)), "steps": 1,
                     "seconds": 1.0, "step_ratio": None, "step_seconds": 0.1, "dev_curve": [0.5],
                     "test_predictions": predictions,
                     **({"test_random_accuracy": 0.75} if logic == "default" else {})})
    results = tmp_path / "r.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    argv = ["--task", "pararule-balanced", "--data", str(data), "--seeds", "0", "--train-size",
            "24", "--dev-size", "0", "--epochs", "1", "--results", str(results), "--shards",
            str(tmp_path / "s"), "--report"]
    assert table.main(argv) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["stale"] == []
    groups = summary["groups"]
    assert groups["negated"]["n"] == groups["not negated"]["n"] == 6
    assert [groups[f"depth {d}"]["n"] for d in "012"] == [4, 4, 4]
    assert groups["negated"]["none"][0] == 0.0 and groups["not negated"]["none"][0] == 1.0
    assert groups["negated"]["default"][0] == 1.0
    assert summary["differences"]["default-random"]["mean"] == pytest.approx(0.5)
    assert summary["ablations"]["default-random"]["mean"] == pytest.approx(0.25)


def test_several_quartets_per_context_ask_each_statement_once_at_distinct_depths():
    released = read_rows(str(PARA / "depth2_dev.jsonl"))
    rows = balanced_rows(released, 60, seed=2, per_context=3)
    assert sum(len(r["questions"]) for r in rows) == 60 and len(rows) == 5
    for r in rows:
        texts = [q["text"] for q in r["questions"]]
        depths = [q["meta"]["QDep"] for q in r["questions"]][::4]
        assert len(texts) == len(set(texts)) == 12 and len(set(depths)) == 3
    assert best_single_word(rows) == ("(majority)", 0.5)
    assert balanced_rows(released, 40, seed=3, per_context=1) == balanced_rows(released, 40, seed=3)


def test_fewer_entities_keep_every_rule_and_the_chosen_entities_facts():
    context = ("The lion is rough. The lion visits the mouse. The cat is furry. Bob is big. "
               "If something is rough then it is slow. All furry animals are cute.")
    cut = fewer_entities(context, 2, np.random.default_rng(0))
    kept = {e for e in ("The lion", "The cat", "Bob") if e in cut}
    assert len(kept) == 2  # of the three entities with facts, two keep theirs
    assert "If something is rough then it is slow." in cut and "All furry animals are cute." in cut
    if "The lion" in kept:
        assert "The lion visits the mouse." in cut  # a relation is its subject's fact
    assert fewer_entities(context, 3, np.random.default_rng(0)) == context  # no fewer to keep


def test_statements_of_a_shorter_context_follow_from_that_context():
    released = read_rows(str(PARA / "depth2_dev.jsonl"))
    rows = balanced_rows(released, 40, seed=1, entities=2)
    assert sum(len(r["questions"]) for r in rows) == 40
    for r in rows:
        theory = parse_context(r["context"])
        assert len({f[1] for f in theory.facts}) <= 2
        derived = closure(theory)
        for q in r["questions"]:
            assert truth(derived, q["text"]) == (q["label"] == "true")
    assert best_single_word(rows) == ("(majority)", 0.5)
    assert rows != balanced_rows(released, 40, seed=1)


def test_the_binding_warm_up_asks_which_of_two_entities_has_a_stated_attribute(tmp_path):
    released = read_rows(str(PARA / "depth2_dev.jsonl"))
    quartets = balanced_rows(released, 40, depths=(0,), seed=1, entities=2)
    rows = warm_up_rows(quartets)
    assert sum(len(r["questions"]) for r in rows) == 20 and len(rows) == 10
    for r, q4 in zip(rows, quartets):
        theory = parse_context(r["context"])
        assert not theory.rules and theory.facts == parse_context(q4["context"]).facts
        derived = closure(theory)
        (x, y) = r["questions"]
        assert [x["label"], y["label"]] == ["true", "false"]
        assert " not " not in x["text"] + y["text"] and x["meta"]["QDep"] == "0"
        assert x["text"].split(" is ")[1] == y["text"].split(" is ")[1]  # one attribute
        for q in r["questions"]:
            assert truth(derived, q["text"]) == (q["label"] == "true")
    data = released_folder(tmp_path)
    _register()
    res = CliRunner().invoke(app, ["tasks", "pararule-balanced", str(data), "--warm-up", "binding", "--train",
                                   "12", "--dev", "4", "--test", "4", "--out", str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output.strip().splitlines()[-1])
    assert summary["warm_up"] == "binding" and summary["depths"] == [0] and summary["entities"] == 2
    assert {s: v["statements"] for s, v in summary["splits"].items()} == \
        {"train": 12, "dev": 4, "test": 4}
    # the set is the depth-0, two-entity quartets' build (twice the statements) cut down
    build_balanced(str(data), str(tmp_path / "q"), (24, 8, 8), (0,), entities=2)
    assert read_rows(str(tmp_path / "b" / "train.jsonl")) == \
        warm_up_rows(read_rows(str(tmp_path / "q" / "train.jsonl")))
    quartets = warm_up_rows(read_rows(str(tmp_path / "q" / "train.jsonl")), "quartets")
    assert all(len(r["questions"]) == 4 and not parse_context(r["context"]).rules for r in quartets)
    assert best_single_word(quartets) == ("(majority)", 0.5)
    res = CliRunner().invoke(app, ["tasks", "pararule-balanced", str(data), "--warm-up",
                                   "quartets", "--train", "8", "--dev", "4", "--test", "4"])
    assert res.exit_code == 0 and not (data / "balanced").exists()  # the task's files untouched
    assert len(read_rows(str(data / "warm-up-quartets" / "balanced" / "train.jsonl"))) == 2
    res = CliRunner().invoke(app, ["tasks", "pararule-balanced", str(data), "--warm-up", "rules"])
    assert res.exit_code == 2 and "binding, quartets" in res.output
