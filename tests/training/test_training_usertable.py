"""The user's own labelled table (`logicparse train --task table`, `predict`, `evaluate`): every
format read alike, columns named or guessed and said, string labels mapped and saved with the
model, coded errors naming file, row and column, and nothing written by a refused run."""

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from test_training import FlatAnnotator, tokenizer  # noqa: F401 (fixture)
from test_training_downstream import tiny_pair_model

from logicparse.errors import DataFormatError
from logicparse.training import TrainConfig, train
from logicparse.training.predict import predict_table
from logicparse.training.usertable import read_rows, read_table_splits

ROWS = [{"sentence": f"It did not rain on day {i}." if i % 2 else f"It rained on day {i}.",
         "label": "negated" if i % 2 else "plain"} for i in range(40)]


def write(path: Path, rows=ROWS, fmt=None) -> str:
    fmt = fmt or path.suffix
    if fmt in (".csv", ".tsv"):
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, list(rows[0]), delimiter="\t" if fmt == ".tsv" else ",")
            w.writeheader()
            w.writerows(rows)
    elif fmt == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif fmt == ".parquet":
        pq.write_table(pa.Table.from_pylist(rows), path)
    else:  # a datasets folder
        import datasets

        datasets.Dataset.from_list(rows).save_to_disk(str(path))
    return str(path)


def splits(train, dev=None, test=None, dev_size=None, **columns):
    return read_table_splits({"train": train, "dev": dev, "test": test},
                             {"text": None, "pair": None, "label": None, **columns}, dev_size)


@pytest.mark.parametrize("name", ["t.csv", "t.tsv", "t.jsonl", "t.parquet", "folder"])
def test_every_format_gives_the_same_examples_and_says_what_it_read(tmp_path, name):
    task, got = splits(write(tmp_path / name, fmt=None if "." in name else "dataset"))
    assert task.name == "table" and task.classes == ("negated", "plain")
    assert [(e.premise, e.hypothesis, e.label) for e in got["train"]] == [
        (r["sentence"], None, 0 if r["label"] == "negated" else 1) for r in ROWS]
    assert task.carve_dev == 4  # a tenth of the rows, carved as dev (no dev file)
    assert ("text column 'sentence', label column 'label' (guessed: text, label" in task.described
            and "2 classes 'negated', 'plain'; 40 training rows, 4 of them carved as dev"
            in task.described)


def test_pairs_named_columns_and_numeric_labels_in_value_order(tmp_path):
    rows = [{"a": f"x{i}", "b": f"y{i}", "gold": str([10, 2, 9][i % 3])} for i in range(9)]
    task, got = splits(write(tmp_path / "p.csv", rows), text="a", pair="b", label="gold")
    assert task.classes == ("2", "9", "10") and task.carve_dev == 0  # under 20 rows: no carve
    assert [(e.premise, e.hypothesis) for e in got["train"][:2]] == [("x0", "y0"), ("x1", "y1")]
    assert [e.label for e in got["train"][:3]] == [2, 0, 1]


@pytest.mark.parametrize("rows,options,code,says", [
    (ROWS, {"text": "body"}, "E540", "no column 'body' (--text-column); its columns are "
                                     "'sentence', 'label'"),
    ([{"words": "a", "label": "x"}] * 3, {}, "E540", "no text column found (tried text, sentence"),
    ([{"text": "a", "label": "x"}, {"text": " ", "label": "y"}], {}, "E541",
     "row 2, column 'text': the text is empty"),
    ([{"text": "a", "label": ""}, {"text": "b", "label": "y"}], {}, "E541",
     "row 1, column 'label': the label is empty"),
    ([{"text": "a", "label": "x"}] * 5, {}, "E540", "every row has the label 'x'"),
])
def test_a_bad_table_is_a_coded_error_naming_file_row_and_column(tmp_path, rows, options, code,
                                                                   says):
    path = write(tmp_path / "bad.csv", rows)
    with pytest.raises(DataFormatError) as e:
        splits(path, **options)
    assert e.value.code == code and says in str(e.value) and path in str(e.value)


def test_a_dev_label_the_training_file_lacks_is_refused_with_its_row(tmp_path):
    dev = write(tmp_path / "dev.csv", [{"sentence": "a", "label": "plain"},
                                       {"sentence": "b", "label": "sarcastic"}])
    with pytest.raises(DataFormatError, match=r"\[E541\].*dev.csv, row 2, column 'label': the "
                       r"label 'sarcastic' does not occur in the training file"):
        splits(write(tmp_path / "t.csv"), dev=dev)


def test_files_that_are_not_tables_say_how_to_fix_them(tmp_path):
    latin = tmp_path / "l.csv"
    latin.write_bytes(b"text,label\ncaf\xe9,x\n")
    with pytest.raises(DataFormatError, match=r"\[E540\].*not valid UTF-8.*iconv"):
        read_rows(str(latin))
    (tmp_path / "t.xlsx").write_bytes(b"PK")
    with pytest.raises(DataFormatError, match=r"\[E540\].*\.xlsx is not a table format"):
        read_rows(str(tmp_path / "t.xlsx"))
    with pytest.raises(DataFormatError, match=r"\[E540\].*gone.csv: it does not exist"):
        read_rows(str(tmp_path / "gone.csv"))
    import datasets

    datasets.DatasetDict({"train": datasets.Dataset.from_list(ROWS)}).save_to_disk(
        str(tmp_path / "dd"))
    with pytest.raises(DataFormatError, match=r"\[E540\].*DatasetDict.*--train .*dd/train"):
        read_rows(str(tmp_path / "dd"))


@pytest.mark.parametrize("logic", ["none", "default"])
def test_train_predict_and_evaluate_a_users_table(tmp_path, tokenizer, logic):  # noqa: F811
    model = tiny_pair_model(tmp_path / "m", tokenizer, classes=2)
    data = write(tmp_path / "mine.csv")
    test = write(tmp_path / "test.jsonl", ROWS[:10])
    out = tmp_path / "run"
    result = train(TrainConfig(task="table", model=model, train_file=data, test_file=test,
                               out=str(out), logic=logic, shards=str(tmp_path / "s"),
                               batch_size=8, epochs=2, lr=1e-3, k=2, quiet=True),
                   annotator=FlatAnnotator())
    assert result["train"] == 36 and result["dev"]["n"] == 4 and result["test"]["n"] == 10
    # Only the model to predict with: no resume checkpoint unless asked (three times the model).
    assert sorted(p.name for p in out.iterdir()) == ["best", "metrics.jsonl"]
    assert result["model"] == str(out / "best")
    config = json.loads((out / "best" / "config.json").read_text())
    assert config["id2label"] == {"0": "negated", "1": "plain"}
    scored = predict_table(str(out / "best"), test, str(tmp_path / "p.jsonl"), need_labels=True,
                           shards=str(tmp_path / "s"), annotator=FlatAnnotator())
    assert scored["accuracy"] == result["test"]["accuracy"] and scored["n"] == 10
    lines = [json.loads(x) for x in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert [x["row"] for x in lines] == list(range(1, 11))
    assert [["negated", "plain"].index(x["label"]) for x in lines] == \
        result["test"]["predictions"]
    assert all(abs(sum(x["probabilities"].values()) - 1) < 1e-4 for x in lines)


def test_a_refused_table_leaves_no_output_folder(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(DataFormatError, match="E540"):
        train(TrainConfig(task="table", train_file=write(tmp_path / "t.csv"), out=str(out),
                          text_column="nope", logic="none", quiet=True))
    assert not out.exists()


@pytest.mark.slow
def test_the_commands_train_predict_and_evaluate_a_csv(tmp_path):
    """As the docs show them, with the bundled MiniLM and no --task (a --train table is one)."""
    from logicparse.cli import _register, app

    _register()
    data, out = write(tmp_path / "mine.csv"), tmp_path / "run"
    r = CliRunner().invoke(app, ["train", "--train", data, "--out", str(out), "--logic", "none",
                                 "--epochs", "1", "--quiet"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout.strip().splitlines()[-1])["model"] == str(out / "best")
    r = CliRunner().invoke(app, ["evaluate", "--model", str(out / "best"), data])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout.strip().splitlines()[-1])["n"] == 40
    r = CliRunner().invoke(app, ["predict", "--model", str(out / "best"), data, "--out",
                                 str(tmp_path / "p.jsonl")])
    assert r.exit_code == 0 and len((tmp_path / "p.jsonl").read_text().splitlines()) == 40


# --- multiple choice ---------------------------------------------------------------------------

CHOICES = [{"text": f"The box {i} is {'red' if i % 2 else 'blue'}.", "question": "Which colour?",
            "choices": ["red", "blue", "green"], "label": "red" if i % 2 else "1"}
           for i in range(24)]


@pytest.mark.parametrize("name", ["mc.jsonl", "mc.csv"])
def test_a_choices_column_makes_it_multiple_choice(tmp_path, name):
    rows = CHOICES if name.endswith("jsonl") else [
        {**r, "choices": " | ".join(r["choices"])} for r in CHOICES]
    task, got = splits(write(tmp_path / name, rows), pair="question")
    assert task.kind == "multiple_choice" and task.classes == ()
    first = got["train"][0]
    assert (first.context, first.question, first.options, first.label) == (
        "The box 0 is blue.", "Which colour?", ["red", "blue", "green"], 1)
    assert [e.label for e in got["train"][:4]] == [1, 0, 1, 0]  # "1" an index, "red" a choice
    assert "multiple choice of 3 from column 'choices'" in task.described


@pytest.mark.parametrize("row,says", [
    ({"choices": "red"}, "row 2, column 'choices': 'red' is not two choices or more"),
    ({"choices": "red | blue"}, "row 2, column 'choices': 2 choices where the first row has 3"),
    ({"label": "purple"}, "row 2, column 'label': the label 'purple' is neither a choice's index "
                          "(0 to 2) nor one of the choices"),
    ({"label": "3"}, "the label '3' is neither a choice's index (0 to 2)"),
])
def test_a_bad_multiple_choice_row_is_named(tmp_path, row, says):
    rows = [{**r, "choices": " | ".join(r["choices"])} for r in CHOICES[:3]]
    rows[1].update(row)
    with pytest.raises(DataFormatError, match="E541") as e:
        splits(write(tmp_path / "mc.csv", rows))
    assert says in str(e.value)


def test_train_and_predict_a_multiple_choice_table(tmp_path, tokenizer):  # noqa: F811
    from test_training import tiny_bert

    model = tiny_bert(tmp_path / "m", tokenizer)
    data, test = write(tmp_path / "mc.jsonl", CHOICES), write(tmp_path / "t.jsonl", CHOICES[:6])
    out = tmp_path / "run"
    result = train(TrainConfig(task="table", model=model, train_file=data, test_file=test,
                               pair_column="question", out=str(out), logic="default",
                               shards=str(tmp_path / "s"), batch_size=4, epochs=1, lr=1e-3, k=2,
                               quiet=True), annotator=FlatAnnotator())
    assert result["train"] == 22 and result["test"]["n"] == 6
    scored = predict_table(str(out / "best"), test, str(tmp_path / "p.jsonl"), need_labels=True,
                           pair_column="question", shards=str(tmp_path / "s"),
                           annotator=FlatAnnotator())
    assert scored["accuracy"] == result["test"]["accuracy"] and "classes" not in scored
    lines = [json.loads(x) for x in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert [x["choice"] for x in lines] == result["test"]["predictions"]
    assert all(x["answer"] == ["red", "blue", "green"][x["choice"]] for x in lines)


def test_the_step_lines_say_how_long_is_left(tmp_path, tokenizer):  # noqa: F811
    model = tiny_pair_model(tmp_path / "m", tokenizer, classes=2)
    out = tmp_path / "run"
    train(TrainConfig(task="table", model=model, train_file=write(tmp_path / "t.csv"),
                      out=str(out), logic="none", batch_size=4, epochs=2, lr=1e-3, log_every=3,
                      quiet=True))
    steps = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()
             if '"grad_norm"' in x]
    assert [s["step"] for s in steps] == [3, 6, 9, 12, 15, 18]
    assert steps[-1]["eta_s"] == 0 and all(s["eta_s"] >= 0 for s in steps)
    # At the pace so far: the seconds per step times the steps left.
    assert steps[0]["eta_s"] == pytest.approx(steps[0]["elapsed_s"] / 3 * 15, abs=0.1)
