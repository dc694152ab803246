"""Training inputs that are not what training needs are coded errors before training: a file
that is not UTF-8, a field past the csv limit, a split with no examples, and shards annotated
with another parser or senses setting (not read, said in a warning)."""

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
