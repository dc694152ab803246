"""`logicparse compare` (training/comparison.py, comparison_report.py): the label sources side by
side on the user's table or a benchmark task, its plain sentences (no more than the intervals
allow), and the committed ConjNLI table reproduced from its results file without training."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from test_training import tokenizer  # noqa: F401 (fixture)
from test_training_downstream import tiny_pair_model
from test_training_usertable import ROWS, write

from logicparse.cli import _register, app
from logicparse.training.comparison_report import verdict

ROOT = Path(__file__).resolve().parents[2]
CONJ = ROOT.parent / "shared" / "data" / "tasks" / "conjnli"


def cli(*args):
    _register()
    return CliRunner().invoke(app, ["compare", *map(str, args)])


@pytest.mark.parametrize("per_seed,says", [
    ([0.02, 0.03, 0.025], "default scores above shuffled by +2.50 points (95% over 3 seeds: "),
    ([-0.02, -0.03, -0.025], "default scores below shuffled by -2.50 points"),
    ([0.01, -0.005, 0.004], "default − shuffled: no difference shown; over 3 seeds the data allow "
                            "from -1.58 to +2.18 points. About 5 seeds would narrow"),
    ([0.01], "default − shuffled: +1.00 points from one seed; no interval"),
])
def test_the_sentence_says_no_more_than_the_interval(per_seed, says):
    assert verdict("default", "shuffled", per_seed, 0.01).startswith(says)


def test_runs_that_learnt_nothing_conclude_nothing():
    said = verdict("default", "none", [0.0, 0.0], 0.01, one_class=("default", "none"))
    assert said.startswith("default − none: nothing can be concluded: every default and every "
                           "none model answers one class")


@pytest.mark.parametrize("args,says", [
    (["--train", "t.csv", "--test", "t.csv", "--logic", "none,sarcastic"],
     "Invalid value for '--logic': 'sarcastic' is not a list of 'none', 'paper'"),
    (["--train", "t.csv"], "Invalid value for '--test': a comparison is made on a test table"),
    ([], "Invalid value for '--task': give --train FILE"),
])
def test_command_line_mistakes_are_coded(args, says):
    r = cli(*args)
    assert r.exit_code == 2 and r.output.startswith(f"error: [E009] {says}"), r.output


@pytest.mark.slow
def test_a_run_of_another_model_or_precision_is_a_cell_of_its_own():
    from logicparse.training.comparison import CompareConfig, cell_key, protocol

    old = {"task": "conjnli", "logic": "none", "seed": 0, "train_size": 3000, "epochs": 6,
           "lr": 1e-4, "layer": "centered", "logic_lr": None}  # recorded before either was kept
    cfg = CompareConfig(task="conjnli", train_size=3000, epochs=6, lr=1e-4)
    assert cell_key(old)[3:] == protocol(cfg)
    for change in ({"model": "all-mpnet-base-v2"}, {"cpu_bf16": True}, {"bucket": False}):
        assert cell_key({**old, **change})[3:] != protocol(cfg)
        assert cell_key({**old, **change})[3:] == protocol(CompareConfig(
            task="conjnli", train_size=3000, epochs=6, lr=1e-4, **change))


def test_a_small_table_runs_end_to_end_and_resumes(tmp_path, tokenizer):  # noqa: F811
    """2 seeds x 3 sources of a tiny model on a 40-row table, with the real annotator; a rerun
    trains nothing and reports the same."""
    model = tiny_pair_model(tmp_path / "m", tokenizer, classes=2)
    data, test = write(tmp_path / "mine.csv"), write(tmp_path / "test.csv", ROWS[:12])
    args = ["--train", data, "--test", test, "--model", model, "--seeds", 2, "--logic",
            "none,default,shuffled", "--epochs", 2, "--out", tmp_path / "cmp", "--shards",
            tmp_path / "s", "--plot", tmp_path / "curves.png", "--quiet"]
    r = cli(*args)
    assert r.exit_code == 0, r.output
    first = json.loads(r.stdout.strip().splitlines()[-1])
    assert {s: v["seeds"] for s, v in first["sources"].items()} == {
        "none": [0, 1], "default": [0, 1], "shuffled": [0, 1]}
    assert set(first["differences"]) == {"default-none", "default-shuffled", "shuffled-none"}
    assert len(first["verdicts"]) == 2 and (tmp_path / "curves.png").stat().st_size > 0
    assert len((tmp_path / "cmp" / "results.jsonl").read_text().splitlines()) == 6
    r = cli(*args)  # finished cells are not run again
    assert r.exit_code == 0 and "logic=" not in r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])["differences"] == first["differences"]
    assert len((tmp_path / "cmp" / "results.jsonl").read_text().splitlines()) == 6


@pytest.mark.slow
@pytest.mark.skipif(not CONJ.is_dir(), reason="the ConjNLI data is not beside the repository")
def test_the_committed_conjnli_table_comes_out_of_compare_unchanged(tmp_path):
    """The figures docs/modeling.md states, from benchmarks/results/downstream_conjnli.jsonl,
    each run as recorded (the last run of each cell), without training."""
    r = cli("--task", "conjnli", "--data", CONJ, "--train-size", 3000, "--epochs", 6, "--lr",
            1e-4, "--results", ROOT / "benchmarks" / "results" / "downstream_conjnli.jsonl",
            "--shards", tmp_path / "s", "--report", "--as-recorded")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout.strip().splitlines()[-1])
    means = {s: (round(v["dev"][0], 4), round(v["test"][0], 4), round(v["test"][1], 4))
             for s, v in out["sources"].items()}
    assert means == {"none": (0.9366, 0.636, 0.0059), "paper": (0.9326, 0.6382, 0.0078),
                     "default": (0.9357, 0.6376, 0.0155), "shuffled": (0.9357, 0.6319, 0.011),
                     "all-e": (0.9383, 0.6326, 0.0064)}
    d = out["differences"]
    assert [round(x, 4) for x in d["default-shuffled"]["ci95_seeds"]] == [-0.0009, 0.0121]
    assert [round(x, 4) for x in d["default-shuffled"]["ci95"]] == [0.001, 0.0104]
    assert round(d["default-all-e"]["mean"], 4) == 0.005
    assert [round(x, 4) for x in d["default-none"]["ci95_seeds"]] == [-0.0084, 0.0238]
    assert round(out["ablations"]["default-all-e"]["mean"], 4) == 0.0104
    assert out["verdicts"][1] == ("default − shuffled: no difference shown; over 10 seeds the "
                                  "data allow from -0.09 to +1.21 points.")


def test_a_report_says_a_logic_rate_of_zero(capsys):
    from logicparse.training.comparison import CompareConfig
    from logicparse.training.comparison_report import report

    report(CompareConfig(task="conjnli", lr=1e-4, logic_lr=0.0), [])
    assert ", logic lr 0," in capsys.readouterr().out  # a frozen layer, not the default rate
