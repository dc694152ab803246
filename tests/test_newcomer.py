"""What a new user meets first: a wrong --device named before anything runs, commands that do not
write into the installed package, whole --help texts, --version, quiet model loading, records
that survive spaCy's DocBin, a datasets cache that is reused, a warning for text that is not
English, and annotate_trees' one-document contract."""

import json
import warnings
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

import logicparse
from logicparse.cli import _register, app
from logicparse.errors import OptionError, TreeFormatError

_register()
TREE = "(S (NP (PRP We)) (VP (VBD left) (SBAR (IN because) (S (NP (PRP it)) (VP (VBD rained))))))"
GPU = torch.cuda.is_available()


def cli(*args, **kw):
    return CliRunner().invoke(app, [str(a) for a in args], **kw)


@pytest.mark.parametrize("device", ["cpux", "gpu0"] + ([] if GPU else ["cuda", "cuda:1"]))
def test_a_bad_device_is_named_before_any_output(tmp_path, device):
    (tmp_path / "a.txt").write_text("It rains.")
    res = cli("annotate", tmp_path / "a.txt", "--out", tmp_path / "out", "--device", device)
    assert res.exit_code == 2 and "[E024]" in res.output and repr(device) in res.output
    assert "Traceback" not in res.output and not (tmp_path / "out").exists()
    with pytest.raises(OptionError, match=r"\[E024\]"):
        logicparse.Annotator(parser="default", senses=None, device=device)
    res = cli("serve", "--device", device)
    assert res.exit_code == 2 and "[E024]" in res.output and "--parser" not in res.output
    res = cli("train", "--task", "conjnli", "--device", device, "--out", tmp_path / "t")
    assert res.exit_code == 2 and "[E024]" in res.output and not (tmp_path / "t").exists()


def test_a_manifest_without_shards_does_not_block_the_corrected_rerun(tmp_path):
    from logicparse.batch import shards as sh
    from logicparse.batch.outdir import prepare

    out = tmp_path / "out"
    out.mkdir()
    sh.write_manifest(out, {"format": sh.FORMAT, "fingerprint": "of-the-bad-run", "shards": []})
    assert prepare(out, "of-the-new-run", overwrite=False) is None
    assert not (out / sh.MANIFEST).exists()


@pytest.mark.parametrize("command, option", [
    (["senses", "train"], "out"), (["senses", "build-annotations"], "out"),
    (["keywords", "build-tmp"], "out")])
def test_builders_do_not_default_into_the_package(command, option):
    import typer

    group = typer.main.get_command(app).commands[command[0]].commands[command[1]]
    default = Path(next(p for p in group.params if p.name == option).default)
    package = Path(logicparse.__file__).resolve().parent
    assert not default.is_absolute() and package not in (Path.cwd() / default).resolve().parents


def test_help_is_whole_at_80_columns_and_flags_take_no_value():
    for command in (["annotate"], ["train"], ["parser", "train"], ["senses", "train"]):
        res = cli(*command, "--help", env={"COLUMNS": "80"})
        assert res.exit_code == 0 and "…" not in res.output and "<bool>" not in res.output
        assert all(len(line) <= 80 for line in res.output.splitlines())
    res = cli("train", "--help", env={"COLUMNS": "80"})
    assert "adversarial_train_15k.tsv" in res.output.replace("\n", "").replace(" ", "")


def test_version():
    res = cli("--version")
    assert res.exit_code == 0 and res.output.strip() == f"logicparse {logicparse.__version__}"


def test_loading_the_parser_prints_no_tokenizer_advice(lexicon_annotator, capsys, caplog):
    from logicparse.parser import load_parser

    load_parser("default").parse([["We", "left", "because", "it", "rained", "."]])
    assert "BertTokenizerFast" not in capsys.readouterr().err + caplog.text


def test_relations_survive_a_docbin_round_trip():
    import spacy
    from spacy.tokens import DocBin

    import logicparse.spacy_component  # noqa: F401 (the extensions)

    nlp = spacy.blank("en")
    doc = nlp("We left because it rained")
    doc._.relation_dicts = [r.to_dict() for r in logicparse.annotate_trees([TREE]).relations]
    data = DocBin(store_user_data=True, docs=[doc]).to_bytes()
    back = list(DocBin().from_bytes(data).get_docs(nlp.vocab))[0]
    assert back._.relations == doc._.relations and back._.relations


def test_annotate_dataset_reuses_its_cache(tmp_path, lexicon_annotator):
    import datasets

    from logicparse.modeling import annotate_dataset

    datasets.Dataset.from_dict({"text": ["We left because it rained."]}).save_to_disk(tmp_path / "d")
    data = datasets.load_from_disk(str(tmp_path / "d"))
    calls = []

    class Counting:
        parser, senses, mapping = lexicon_annotator.parser, None, "default"

        def pipe(self, texts, batch_size=32):
            calls.append(len(texts))
            return lexicon_annotator.pipe(texts, batch_size=batch_size)

    first = annotate_dataset(data, Counting(), ["text"])
    second = annotate_dataset(data, Counting(), ["text"])
    assert calls == [1] and first._fingerprint == second._fingerprint
    assert second[0]["text_doc"]["tokens"][:2] == ["We", "left"]


def test_text_that_is_not_english_draws_a_warning(lexicon_annotator):
    german = ("Wir bleiben zu Hause, weil es regnet und der Zug spät ist. Obwohl die Mannschaft "
              "gut gespielt hat, hat sie nicht gewonnen.")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        lexicon_annotator.annotate("We stayed in because it rained all day, so the match was off.")
        assert not seen
        lexicon_annotator.annotate(german)
    assert [str(w.message)[:6] for w in seen] == ["[W024]"]


def test_annotate_trees_takes_one_document():
    doc = logicparse.annotate_trees([TREE, TREE])
    assert isinstance(doc, logicparse.Document) and len(doc.sentence_starts) == 2
    with pytest.raises(TreeFormatError) as err:
        logicparse.annotate_trees([[TREE], [TREE]])
    assert err.value.code == "E025" and "once each" in str(err.value)
    assert json.loads(json.dumps(doc.to_dict()))["tokens"][:2] == ["We", "left"]


def test_a_one_label_confusion_matrix_draws_no_warning():
    from logicparse.senses.train import _confusion

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _confusion(["cause", "cause"], ["cause", "cause"], ["cause"]) == [[2]]
