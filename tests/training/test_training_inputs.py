"""Training inputs that are not what training needs are coded errors before training: a file
that is not UTF-8, a field past the csv limit, a split with no examples, shards annotated with
another parser or senses setting (not read, said in a warning), JSON records whose fields are of
another type, and a model without the head its task needs."""

import json
import logging
import re

import pytest
from test_training import FIX, FlatAnnotator

from logicparse.errors import DataFormatError
from logicparse.training import TrainConfig, train
from logicparse.training.labels import labels_for

HEADER = "\ufeffPremise\tHypothesis\tLabel\n"
PAIR = "The shop sells bread and milk.\tThe shop sells milk.\tentailment\n"


def _train(data, **kw):
    """A run that must be refused before any model is loaded (the model does not exist)."""
    return train(TrainConfig(task="conjnli", model="no-such-model", data=str(data),
                             out=str(data / "out"), logic="none", **kw))


def _conjnli(tmp_path, train_bytes: bytes):
    (tmp_path / "adversarial_train_15k.tsv").write_bytes(train_bytes)
    (tmp_path / "conj_dev.tsv").write_text(HEADER + PAIR, encoding="utf-8")
    return tmp_path / "adversarial_train_15k.tsv"


def test_a_latin1_file_names_its_file_and_line(tmp_path):
    latin1 = "Le café est ouvert.\tIl est ouvert.\tentailment\n".encode("latin-1")
    path = _conjnli(tmp_path, (HEADER + PAIR).encode("utf-8") + latin1)
    with pytest.raises(DataFormatError) as err:
        _train(tmp_path, dev_size=1)
    msg = str(err.value)
    assert msg.startswith("[E520]") and str(path) in msg
    assert re.search(r"line 3, column 7: not valid UTF-8", msg) and "iconv" in msg


def test_a_field_over_the_csv_limit_names_its_line(tmp_path):
    path = _conjnli(tmp_path, (HEADER + PAIR + "x" * 131_073 + "\tA.\tneutral\n").encode())
    with pytest.raises(DataFormatError) as err:
        _train(tmp_path, dev_size=1)
    msg = str(err.value)
    assert msg.startswith("[E520]") and f"{path}, line 3:" in msg and "131,072" in msg


@pytest.mark.parametrize("kw, split", [({"dev_size": 0}, "train"), ({"limit": 0, "dev_size": 1}, "train")])
def test_a_split_without_examples_is_refused_before_training(tmp_path, kw, split):
    body = HEADER if "limit" not in kw else HEADER + PAIR * 3
    path = _conjnli(tmp_path, body.encode())
    with pytest.raises(DataFormatError) as err:
        _train(tmp_path, **kw)
    assert str(err.value).startswith(f"[E532] {path} gives no {split} examples")
    assert not (tmp_path / "out" / "metrics.jsonl").exists() or \
        (tmp_path / "out" / "metrics.jsonl").read_text() == ""


def test_shards_of_another_parser_or_senses_setting_are_not_read(tmp_path, caplog):
    from logicparse.batch.shards import write_documents
    from logicparse.training.labels import text_id, texts_of
    from logicparse.training.tasks import read_conjnli

    texts = texts_of(read_conjnli(str(FIX / "conjnli" / "conj_dev.tsv")))
    docs = list(FlatAnnotator().pipe(texts, ids=[text_id(t) for t in texts]))
    write_documents(tmp_path / "run-a", docs, settings={"parser": "other-parser", "senses": None})
    with caplog.at_level(logging.WARNING), pytest.raises(DataFormatError, match=r"\[E514\]"):
        labels_for(texts, str(tmp_path), "x", annotate=False, parser="default", senses="default")
    assert "[E533]" in caplog.text and "parser='other-parser', not the 'default'" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING), pytest.raises(DataFormatError, match=r"\[E514\]"):
        labels_for(texts, str(tmp_path), "x", annotate=False, parser="other-parser",
                   senses="default")
    assert "senses='none'" in caplog.text and "train with --senses none" in caplog.text
    # The settings they were made with: read.
    found = labels_for(texts, str(tmp_path), "x", annotate=False, parser="other-parser",
                       senses=None)
    assert set(found) == set(texts)


def test_shards_of_another_network_precision_are_not_read(tmp_path, caplog, monkeypatch):
    """An int8 encoder's labels differ from float32's in a few occurrences: a cache made in one
    precision does not serve a run in the other."""
    from logicparse.batch.shards import write_documents
    from logicparse.training.labels import text_id, texts_of
    from logicparse.training.tasks import read_conjnli

    texts = texts_of(read_conjnli(str(FIX / "conjnli" / "conj_dev.tsv")))
    docs = list(FlatAnnotator().pipe(texts, ids=[text_id(t) for t in texts]))
    write_documents(tmp_path / "run-a", docs, settings={
        "parser": "default", "senses": "default", "parser_precision": "int8",
        "encoder_precision": "fp32"})
    monkeypatch.delenv("LOGICPARSE_ENCODER_PRECISION", raising=False)
    monkeypatch.delenv("LOGICPARSE_PARSER_PRECISION", raising=False)
    with caplog.at_level(logging.WARNING), pytest.raises(DataFormatError, match=r"\[E514\]"):
        labels_for(texts, str(tmp_path), "x", annotate=False)
    assert "encoder_precision='fp32', not the 'int8'" in caplog.text
    monkeypatch.setenv("LOGICPARSE_ENCODER_PRECISION", "fp32")
    assert set(labels_for(texts, str(tmp_path), "x", annotate=False)) == set(texts)


# --- JSON records of another shape: E520 naming the file, the record and what was expected ------

DREAM_ITEM = [["M: Hi.", "W: Hello."], [{"question": "Who?", "choice": ["M", "W"], "answer": "M"}],
              "d-1"]


def _dream_with(**question):
    turns, questions, dialogue_id = DREAM_ITEM
    return [[turns, [{**questions[0], **question}], dialogue_id]]


D0 = r"item 0 \(dialogue d-1\)"
Q0 = D0 + ", question 0"


@pytest.mark.parametrize("data, where, reason", [
    ({"d-1": DREAM_ITEM}, "the top level", r"the file must be a list of \[turns, questions, id\] "
     "items, got an object"),
    ([[DREAM_ITEM[0], ["not an object"], "d-1"]], Q0,
     "the record must be an object with 'question', 'choice' and 'answer', got the string"),
    (_dream_with(choice="MW"), Q0,
     "'choice' must be a list of at least two strings, got the string 'MW'"),
    (_dream_with(choice=["M"]), Q0, "'choice' must be a list of at least two strings"),
    (_dream_with(choice=["M", 7]), Q0, "'choice' must be a list of at least two strings"),
    ([[DREAM_ITEM[0], [{"question": "Who?", "answer": "M"}], "d-1"]], Q0,
     "'choice' must be a list of at least two strings, got nothing"),
    ([[DREAM_ITEM[0], [{"question": "Who?", "choice": ["M", "W"]}], "d-1"]], Q0,
     "'answer' must be a string, got nothing"),
    (_dream_with(answer=["M"]), Q0, "'answer' must be a string, got a list of 1"),
    (_dream_with(question=None), Q0, "'question' must be a string, got null"),
    ([[["M: Hi.", 3], DREAM_ITEM[1], "d-1"]], D0,
     "the turns \\(first entry\\) must be a non-empty list of strings, got a list of 2"),
    ([[[], DREAM_ITEM[1], "d-1"]], D0, "the turns .* got a list of 0"),
    ([["M: Hi.", DREAM_ITEM[1], "d-1"]], D0, "the turns .* got the string 'M: Hi.'"),
    ([[DREAM_ITEM[0], {"question": "Who?"}, "d-1"]], D0, "the questions .* got an object"),
    ([[DREAM_ITEM[0], DREAM_ITEM[1], ["d-1"]]], "item 0", "the id .* got a list of 1"),
])
def test_dream_records_of_another_shape_name_file_record_and_type(tmp_path, data, where, reason):
    from logicparse.training.tasks import read_dream

    path = tmp_path / "train.json"
    path.write_text(json.dumps(data))
    with pytest.raises(DataFormatError) as err:
        read_dream(str(path))
    assert err.value.code == "E520"
    assert re.search(f"^\\[E520\\] {re.escape(str(path))}, {where}: {reason}", str(err.value))


def test_dream_that_is_not_json_names_line_and_column(tmp_path):
    from logicparse.training.tasks import read_dream

    path = tmp_path / "train.json"
    path.write_text('[\n  [["M: Hi."], [], "d-1"],\n  oops\n]')
    with pytest.raises(DataFormatError, match=re.escape(f"{path}, line 3, column 3: not JSON")):
        read_dream(str(path))


def test_a_dream_choice_string_is_refused_before_a_model_loads(tmp_path):
    """A string of choices once became one option per letter, and trained on them silently."""
    for name in ("train.json", "dev.json"):
        (tmp_path / name).write_text(json.dumps(_dream_with(choice="MW")))
    with pytest.raises(DataFormatError, match=r"^\[E520\] .*train.json, .*'choice' must be a list"):
        train(TrainConfig(task="dream", model="no-such-model", data=str(tmp_path),
                          out=str(tmp_path / "out"), logic="none"))


PARA_ROW = {"id": "c", "context": "Anne is big.", "questions": [{"id": "q", "text": "Anne is big.",
                                                                  "label": "true"}]}


def _para_with(**question):
    return {**PARA_ROW, "questions": [{**PARA_ROW["questions"][0], **question}]}


@pytest.mark.parametrize("row, where, reason", [
    (_para_with(text=7), "line 1, question 0", "'text' must be a non-empty string, got the number 7"),
    (_para_with(text=["Anne is big."]), "line 1, question 0", "'text' must be a non-empty "
     "string, got a list of 1"),
    (_para_with(text=" "), "line 1, question 0", "'text' must be a non-empty string"),
    (_para_with(label=1), "line 1, question 0", "'label' must be false or true, got the number 1"),
    (_para_with(id={"n": 1}), "line 1, question 0", "'id' must be a string or a whole number, got "
     "an object"),
    ({**PARA_ROW, "questions": ["Anne is big."]}, "line 1, question 0", "the record must be an "
     "object with a 'text' and a 'label', got the string"),
    ({**PARA_ROW, "context": ["Anne is big."]}, "line 1", "'context' must be a non-empty string"),
    ({**PARA_ROW, "questions": {"q": 1}}, "line 1", "'questions' must be a list of objects, got an "
     "object"),
    ([PARA_ROW], "line 1", "the record must be an object with a 'context' string"),
])
def test_pararule_records_of_another_shape_name_file_record_and_type(tmp_path, row, where, reason):
    from logicparse.training.tasks import read_pararule

    path = tmp_path / "depth2_dev.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(DataFormatError) as err:
        read_pararule(str(path))
    assert str(err.value).startswith(f"[E520] {path}, {where}: {reason}"), str(err.value)


@pytest.mark.parametrize("row, reason", [
    ({"summary": "They meet."}, "'dialogue' must be a non-empty string, got nothing"),
    ({"dialogue": 3, "summary": "They meet."}, "'dialogue' must be a non-empty string, got the "
     "number 3"),
    ({"dialogue": "#Person1#: Hi.", "summary": ["They meet."]}, "'summary' must be a string, got "
     "a list of 1"),
    ({"dialogue": "#Person1#: Hi.", "summary1": 5}, "'summary1' must be a string, got the number 5"),
    ({"dialogue": "#Person1#: Hi.", "summary": ""}, "expected a non-empty 'summary'"),
    ({"dialogue": "#Person1#: Hi.", "summary": "They meet.", "fname": [1]}, "'fname' must be a "
     "string or a whole number"),
    (["#Person1#: Hi.", "They meet."], "the record must be an object with 'dialogue' and 'summary'"),
])
def test_dialogsum_records_of_another_shape_name_file_line_and_type(tmp_path, row, reason):
    from logicparse.training.tasks import read_dialogsum

    path = tmp_path / "dialogsum.train.jsonl"
    good = {"dialogue": "#Person1#: Hi.", "summary": "A greeting."}
    path.write_text(json.dumps(good) + "\n" + json.dumps(row) + "\n")
    with pytest.raises(DataFormatError) as err:
        read_dialogsum(str(path))
    assert str(err.value).startswith(f"[E520] {path}, line 2: {reason}"), str(err.value)


# --- a model without the task's head ------------------------------------------------------------


class NoAnnotator:
    def pipe(self, *a, **k):
        pytest.fail("texts were annotated before the model was checked")


@pytest.mark.parametrize("logic", ["none", "default"])
def test_dialogsum_with_an_encoder_only_model_is_refused_before_annotating(tmp_path, logic):
    from logicparse.errors import ModelLoadError

    with pytest.raises(ModelLoadError) as err:
        train(TrainConfig(task="dialogsum", data=str(FIX / "dialogsum"), out=str(tmp_path / "o"),
                          logic=logic, shards=str(tmp_path / "s")), annotator=NoAnnotator())
    msg = str(err.value)
    assert err.value.code == "E520" and "config.json, model_type 'bert'" in msg
    assert "--task dialogsum needs a sequence-to-sequence model" in msg and "--model" in msg


def test_the_train_command_refuses_dialogsum_with_the_bundled_model(tmp_path):
    from typer.testing import CliRunner

    from logicparse.cli import _register, app

    _register()
    res = CliRunner().invoke(app, ["train", "--task", "dialogsum", "--data", str(FIX / "dialogsum"),
                                   "--out", str(tmp_path / "o"), "--logic", "none"])
    assert res.exit_code == 2, res.output
    assert "[E520]" in res.output and "sequence-to-sequence" in res.output
    assert "Traceback" not in res.output
