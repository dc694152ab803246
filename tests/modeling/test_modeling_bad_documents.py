"""Documents the collator cannot use are coded errors, never batches whose labels are silently
all E: offsets outside the text (past it, negative, reversed), a string that is not JSON, fields
of the wrong type."""

import json

import pytest
from test_modeling_collator import CAUSE_KEY, rows_with_docs, tokenizer  # noqa: F401 (fixture)

from logicparse.errors import DataFormatError
from logicparse.modeling import LogicAligner, LogicDataCollator


def collate(tokenizer, **premise_doc_changes):
    row = rows_with_docs()[0]
    row["premise_doc"] = {**row["premise_doc"], **premise_doc_changes}
    collator = LogicDataCollator(tokenizer, k=2, text_fields=("premise", "hypothesis"))
    return collator([row])


def test_the_good_row_has_its_label(tokenizer):
    assert (collate(tokenizer)["logic_ids"] == CAUSE_KEY).any()


@pytest.mark.parametrize("change, what", [
    (lambda s, e: ([x + 1000 for x in s], [x + 1000 for x in e]), "past the end of"),
    (lambda s, e: ([x - 100 for x in s], e), "negative, before"),
    (lambda s, e: (e, s), "reversed, in"),
])
def test_offsets_outside_the_text_are_refused(tokenizer, change, what):
    doc = rows_with_docs()[0]["premise_doc"]
    starts, ends = change(doc["token_starts"], doc["token_ends"])
    with pytest.raises(DataFormatError) as err:
        collate(tokenizer, token_starts=starts, token_ends=ends)
    assert err.value.code == "E534" and what in str(err.value)
    assert "token 0 ('We')" in str(err.value)


def test_a_document_string_that_is_not_json_is_refused(tokenizer):
    row = rows_with_docs()[0]
    row["premise_doc"] = "{not json"
    with pytest.raises(DataFormatError) as err:
        LogicDataCollator(tokenizer, k=2, text_fields=("premise", "hypothesis"))([row])
    assert err.value.code == "E526" and "not a Document's JSON" in str(err.value)
    row["premise_doc"] = json.dumps(rows_with_docs()[0]["premise_doc"])  # its JSON: accepted
    LogicDataCollator(tokenizer, k=2, text_fields=("premise", "hypothesis"))([row])
    row["premise_doc"] = 5
    with pytest.raises(DataFormatError) as err:
        LogicDataCollator(tokenizer, k=2, text_fields=("premise", "hypothesis"))([row])
    assert err.value.code == "E526" and "of type int, not a Document" in str(err.value)


@pytest.mark.parametrize("changes, code", [
    ({"logic": 5}, "E526"),
    ({"logic": [5, 6, 7, 8, 9, 10]}, "E535"),
    ({"logic": [["7"]] * 6}, "E535"),
    ({"token_starts": [0.5] * 6}, "E535"),
    ({"relations": [{"bogus": 1}]}, "E526"),
])
def test_fields_of_the_wrong_type_are_refused(tokenizer, changes, code):
    with pytest.raises(DataFormatError) as err:
        collate(tokenizer, **changes)
    assert err.value.code == code


def test_the_aligner_checks_offsets_too(tokenizer):
    from logicparse.tokens import Document

    doc = Document.from_dict({**rows_with_docs()[0]["premise_doc"], "token_ends": [99] * 6})
    with pytest.raises(DataFormatError) as err:
        LogicAligner(tokenizer, k=2)([doc])
    assert err.value.code == "E534"
