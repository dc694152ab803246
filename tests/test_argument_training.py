"""``logicparse mapping train``: cross-validation over documents (``--folds``) and scoring a model
other than the bundled one (``mapping eval --model``)."""

import json
from pathlib import Path

from typer.testing import CliRunner

from logicparse.argument_model import load_argument_model
from logicparse.cli import _register, app
from logicparse.gdtb import read_gdtb
from logicparse.scorer import evaluate_mapping

GDTB = Path(__file__).parent / "fixtures" / "mapping" / "gdtb"

_register()


def _run(*args):
    r = CliRunner().invoke(app, ["mapping", *args, "--gdtb", str(GDTB)])
    return r, (json.loads(r.stdout.strip().splitlines()[-1]) if r.exit_code == 0 else None)


def test_folds_map_each_document_with_a_model_that_never_saw_it(tmp_path, monkeypatch):
    """Two documents, two folds: each is mapped by the model fitted on the other alone (the
    fixture's dev split holds one document, its test split the other)."""
    for split in ("dev", "test"):
        r, _ = _run("train", "--split", split, "--out", str(tmp_path / split))
        assert r.exit_code == 0, r.output
    by_doc = {"GUM_fixture_map": load_argument_model(str(tmp_path / "test")),
              "GUM_fixture_edges": load_argument_model(str(tmp_path / "dev"))}
    docs = read_gdtb(GDTB, None)
    expected = evaluate_mapping(docs, mapping="learned", arguments=lambda d: by_doc[d.name])
    import logicparse.argument_training as training

    fitted, real = [], training.fit
    monkeypatch.setattr(training, "fit", lambda ex, seed=0: fitted.append(len(ex)) or real(ex, seed))
    r, out = _run("train", "--split", "all", "--folds", "2")
    assert r.exit_code == 0, r.output
    assert "fold 2/2 fitted" in r.stderr
    assert out["folds"] == {**expected, "folds": 2}
    # Fold 1 (edges, first of the sorted names) learns from the 3 relations of the other
    # document, fold 2 from the 1 of edges: none from the document it maps.
    assert fitted == [3, 1]


def test_eval_scores_the_model_it_is_given(tmp_path):
    r, _ = _run("train", "--split", "test", "--out", str(tmp_path / "m"))
    assert r.exit_code == 0, r.output
    r, given = _run("eval", "--mapping", "learned", "--model", str(tmp_path / "m"))
    assert r.exit_code == 0, r.output
    model = load_argument_model(str(tmp_path / "m"))
    expected = evaluate_mapping(read_gdtb(GDTB, "dev"), mapping="learned",
                                arguments=lambda d: model)
    assert {k: given[k] for k in expected} == expected
    _, bundled = _run("eval", "--mapping", "learned")
    assert bundled["alpha"] != given["alpha"]
    r, _ = _run("eval", "--model", str(tmp_path / "m"))  # the rules use no model
    assert r.exit_code != 0 and "--mapping learned only" in r.output
    r, _ = _run("eval", "--mapping", "learned", "--model", str(tmp_path / "nowhere"))
    assert r.exit_code != 0 and "E542" in r.output and "nowhere" in r.output


def test_folds_and_out_together_write_the_model_and_report_both(tmp_path):
    r, out = _run("train", "--split", "all", "--folds", "2", "--out", str(tmp_path / "m"))
    assert r.exit_code == 0, r.output
    assert out["relations"] == 4 and out["folds"]["n"] == 8 and (tmp_path / "m/alpha.txt").exists()


def test_train_asks_for_out_or_folds_and_refuses_empty_folds(monkeypatch):
    r, _ = _run("train", "--split", "dev")
    assert r.exit_code != 0 and "--out DIR" in r.output and "--folds K" in r.output
    r, _ = _run("train", "--split", "dev", "--folds", "2")
    assert r.exit_code != 0 and "2 folds of 1 documents" in r.output
    import logicparse.argument_training as training

    real = training.gdtb_examples
    monkeypatch.setattr(training, "gdtb_examples", lambda docs, trees=None: [] if docs[0].name
                        == "GUM_fixture_map" else real(docs, trees))
    r, _ = _run("train", "--split", "all", "--folds", "2")
    assert r.exit_code != 0 and "E543" in r.output and "fold 1 of 2" in r.output
