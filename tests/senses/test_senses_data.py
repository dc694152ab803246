"""Sense annotations: the fixed GDTB gold mapping, occurrence finding, the JSONL and TSV formats."""

import json
from pathlib import Path

import pytest

from logicparse.errors import DataFormatError
from logicparse.gdtb import read_gdtb
from logicparse.resources import ANNOTATIONS_DIR
from logicparse.senses.data import (LABELS, Annotation, data_hash, gdtb_annotations, gold_relation,
                                    read_annotations, read_hand, write_annotations)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "senses"
GDTB = FIXTURES / "gdtb"
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("sense,relation", [
    ("Temporal.Synchronous", "temporal"),
    ("Temporal.Asynchronous.Succession", "temporal"),
    ("Contingency.Cause.Reason", "causal"),
    ("Contingency.Cause.Result", "causal"),
    ("Contingency.Purpose.Arg2-as-goal", "causal"),
    ("Contingency.Condition.Arg2-as-cond", "conditional"),
    ("Comparison.Contrast", "comparative"),
    ("Comparison.Concession.Arg1-as-denier", "adversative"),
    ("Comparison.Similarity", "analogy"),
    ("Expansion.Conjunction", "conjunction"),
    ("Expansion.Level-of-detail.Arg1-as-detail", "none"),
    ("Expansion.Manner.Arg2-as-manner", "none"),
    ("", "none"),
])
def test_gold_mapping_is_the_issue_table(sense, relation):
    assert gold_relation(sense) == relation


def _by_text(split):
    anns = gdtb_annotations(read_gdtb(GDTB, split), ["since", "as", "while"], f"gdtb:{split}")
    return anns, {(a.text[a.char_start - 3 if a.char_start >= 3 else 0:a.char_end + 4], a.label)
                  for a in anns}


def test_annotations_from_gdtb_fixture():
    anns, _ = _by_text("train")
    got = [(a.keyword, a.text[a.char_start:a.char_end], a.label) for a in anns]
    assert got == [
        ("since", "since", "causal"),  # Explicit Contingency.Cause.Reason
        ("since", "since", "none"),  # 'since 2005': no Explicit relation claims it
        ("as", "As", "temporal"),  # sentence-initial, Temporal.Synchronous
        ("as", "as", "none"),  # 'works as a teacher'; the 'as' of 'as well as' are not targets
    ]
    for a in anns:
        # The text is the sentence alone, tokens joined by single spaces (as the Annotator sends).
        assert a.text in read_gdtb(GDTB, "train")[0].text
        assert a.text[a.char_start:a.char_end].lower() == a.keyword
        assert a.source == "gdtb:train" and a.doc == "GUM_fixture_one"


def test_longer_phrases_and_one_word_sentence():
    anns, _ = _by_text("dev")
    got = [(a.text, a.label) for a in anns]
    # 'such as' is a longer taxonomy phrase: its 'as' is no target; the one-word sentence 'Since'
    # is a target with no relation.
    # GDTB's Concession on `while` is comparative: the keyword is listed there
    assert got == [("While I agree , I will vote no .", "comparative"),
                   ("Fruits such as apples grow here while it is warm .", "temporal"),
                   ("Since", "none")]


def test_jsonl_round_trip_and_hash(tmp_path):
    anns, _ = _by_text("train")
    path = tmp_path / "a.jsonl"
    assert write_annotations(path, anns) == len(anns)
    assert read_annotations([path]) == anns
    assert data_hash(anns) == data_hash(list(reversed(anns)))
    assert data_hash(anns) != data_hash(anns[:-1])


def test_bad_annotation_lines_name_file_and_line(tmp_path):
    good = Annotation("as", "as a rule", 0, 2, "none", "hand").to_json()
    bad = [json.dumps({"keyword": "as", "text": "as", "char_start": 0, "char_end": 9,
                       "label": "none", "source": "hand"}),
           json.dumps({"keyword": "as", "text": "so it is", "char_start": 0, "char_end": 2,
                       "label": "none", "source": "hand"}),
           json.dumps({"keyword": "as", "text": "as", "char_start": 0, "char_end": 2,
                       "label": "cause", "source": "hand"}),
           "{not json"]
    for line in bad:
        path = tmp_path / "bad.jsonl"
        path.write_text(good + "\n" + line + "\n")
        with pytest.raises(DataFormatError, match=r"bad.jsonl, line 2"):
            read_annotations([path])


@pytest.mark.parametrize("line,problem", [
    ('{"id": 1, "keyword": "as", "text": "as a rule"}',
     "unknown field 'id'; missing fields 'char_start', 'char_end', 'label', 'source'"),
    ("[1, 2]", "a JSON list, not an object"),
])
def test_a_line_of_another_format_names_its_fields_and_the_ones_expected(tmp_path, line, problem):
    path = tmp_path / "mine.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(DataFormatError) as e:
        read_annotations([path])
    assert f"mine.jsonl, line 1: {problem}. Each line is one JSON object with keyword, text, " \
           "char_start, char_end, label, source (optional: doc, sense, tree)" in str(e.value)


def test_hand_tsv(tmp_path):
    anns = read_hand(FIXTURES / "train.tsv")
    assert anns[0] == Annotation("since", "It has rained every day since 1990 .", 24, 29,
                                 "temporal", "hand")
    assert anns[4].text[anns[4].char_start:anns[4].char_end] == "since"
    path = tmp_path / "h.tsv"
    path.write_text("temporal\tno brackets here\n")
    with pytest.raises(DataFormatError, match="brackets"):
        read_hand(path)


def test_committed_annotations_are_valid():
    """The committed logicparse/annotations/*.jsonl (what users and tests train and check on, built once from
    GDTB): present, valid, as documented."""
    anns = read_annotations(sorted((ANNOTATIONS_DIR).glob("*.jsonl")))
    kws = {a.keyword for a in anns}
    assert {"since", "as", "while"} <= kws
    assert {a.label for a in anns} <= set(LABELS)
    assert {a.source for a in anns} >= {"gdtb:train", "gdtb:dev", "hand"}
    # hand.jsonl is built from hand.tsv: the two agree.
    assert read_annotations([ANNOTATIONS_DIR / "hand.jsonl"]) == read_hand(
        ANNOTATIONS_DIR / "hand.tsv")


def test_since_heading_a_time_expression_is_relabelled_temporal():
    """GDTB leaves 'since 2005' unannotated (none); the keyword guide makes it temporal. The
    clausal, causal 'since' keeps its GDTB label; annotations without trees are left alone."""
    from logicparse.senses.data import relabel_since

    anns = gdtb_annotations(read_gdtb(GDTB, "train"), ["since", "as"], "gdtb:train", trees=True)
    out, n = relabel_since(anns)
    assert n == 1
    assert [(a.text[a.char_start:a.char_end + 5], a.label) for a in out if a.keyword == "since"] == [
        ("since it r", "causal"), ("since 2005", "temporal")]
    assert [a.label for a in out if a.keyword == "as"] == [a.label for a in anns if a.keyword == "as"]
    assert relabel_since(gdtb_annotations(read_gdtb(GDTB, "train"), ["since"], "x"))[1] == 0


def test_a_later_label_of_the_same_occurrence_replaces_the_earlier():
    """`senses train --annotations gdtb_train.jsonl --annotations keywords_train.jsonl`: where the
    hand-labelled set relabels an occurrence GDTB also labels, the model trains on the hand label,
    once; other occurrences (another span in the same sentence) stay."""
    from logicparse.senses.data import merge_annotations

    text = "As it was late , as you know , we left ."
    gdtb = [Annotation("as", text, 0, 2, "temporal", "gdtb:train"),
            Annotation("as", text, 17, 19, "causal", "gdtb:train")]
    hand = [Annotation("as", text, 17, 19, "analogy", "hand:gdtb-train")]
    merged = merge_annotations(gdtb + hand)
    assert [(a.char_start, a.label, a.source) for a in merged] == [
        (0, "temporal", "gdtb:train"), (17, "analogy", "hand:gdtb-train")]
    assert [(a.char_start, a.label) for a in merge_annotations(hand + gdtb)] == [(17, "causal"), (0, "temporal")]


def test_keywords_train_set_is_from_train_documents_only():
    """The hand-labelled training set of the keyword decisions holds no sentence of the keyword
    dev set or of the rules' blind check, and comes from GDTB train documents only."""
    train = read_annotations([ANNOTATIONS_DIR / "keywords_train.jsonl"])
    dev = read_annotations([ANNOTATIONS_DIR / "keywords_dev.jsonl",
                            ANNOTATIONS_DIR / "keywords_rules_test.jsonl"])
    assert not {a.text for a in train} & {a.text for a in dev}
    dev_docs = {a.doc for a in read_annotations([ANNOTATIONS_DIR / "keywords_dev.jsonl"])}
    assert not {a.doc for a in train} & dev_docs
    assert {a.keyword for a in train} == {"but", "however", "yet", "while", "as", "since", "when",
                                          "like"}
    assert all(a.tree for a in train)
