"""Text -> Document with the real bundled parser (lexicon senses, so no encoder is loaded)."""

import pytest

from logicparse import LABELS, Annotator, Document
from logicparse.errors import InputTextError

PAPER = "But I try very hard not to go that way because it would be too easy for them."

pytestmark = pytest.mark.slow


def _check_offsets(doc: Document):
    assert len(doc.tokens) == len(doc.token_starts) == len(doc.token_ends) == len(doc.logic)
    for tok, a, b in zip(doc.tokens, doc.token_starts, doc.token_ends):
        assert doc.text[a:b] == tok


def test_paper_sentence_end_to_end(lexicon_annotator):
    doc = lexicon_annotator.annotate(PAPER, id="paper")
    _check_offsets(doc)
    assert doc.id == "paper" and doc.error is None and doc.sentence_starts == [0]
    assert len(doc.parse) == 1 and doc.parse[0].startswith("(")
    found = {(r.keyword, r.relation) for r in doc.relations}
    assert {("But", "comparative"), ("not", "negation"), ("because", "causal")} <= found
    because = next(r for r in doc.relations if r.keyword == "because")
    assert because.key == [[10, 11]] and because.beta and because.beta[0][0] == 11
    assert LABELS.index("comparative:key") in doc.logic[0]


def test_parse_column_reads_back_to_the_tokens_even_with_bracket_tokens(lexicon_annotator):
    from logicparse.trees import read_tree

    doc = lexicon_annotator.annotate("Prices (see below) rose [sharply] {again}.")
    assert "(" in doc.tokens and "[" in doc.tokens
    assert [leaf for s in doc.parse for leaf in read_tree(s).leaves] == doc.tokens


def test_empty_and_whitespace_text_give_an_empty_document(lexicon_annotator):
    for text in ("", "   \n\t  "):
        doc = lexicon_annotator.annotate(text)
        assert doc.tokens == [] and doc.relations == [] and doc.logic == [] and doc.error is None
        assert doc.text == text


def test_control_characters_are_spaces_and_offsets_index_the_original(lexicon_annotator):
    text = "It rained\x00 but\x07 we\x1b played ."
    doc = lexicon_annotator.annotate(text)
    _check_offsets(doc)
    assert doc.tokens == ["It", "rained", "but", "we", "played", "."]
    assert any(r.keyword == "but" for r in doc.relations)


def test_invalid_utf8_and_lone_surrogates_raise_a_clear_error(lexicon_annotator):
    with pytest.raises(InputTextError, match="not valid UTF-8 at byte 3"):
        lexicon_annotator.annotate(b"abc\xff\xfe def")
    with pytest.raises(InputTextError, match="lone surrogate"):
        lexicon_annotator.annotate("abc \udcff def")
    with pytest.raises(InputTextError, match="must be a str"):
        lexicon_annotator.annotate(42)
    assert lexicon_annotator.annotate("I did not go .".encode()).relations[0].keyword == "not"


def test_paragraph_break_ends_a_sentence_and_previous_sentence_is_alpha(lexicon_annotator):
    doc = lexicon_annotator.annotate("Prices rose sharply\n\nHowever, sales kept growing.")
    _check_offsets(doc)
    assert doc.sentence_starts == [0, 3]
    however = next(r for r in doc.relations if r.keyword == "However")
    assert however.alpha == [[0, 3]]


class _ShortLimit:
    """The real bundled parser, told to accept at most 8 tokens per sentence."""

    def __init__(self, parser):
        self._parser, self.name, self.max_length = parser, parser.name, 8

    def parse(self, sentences):
        assert all(len(s) <= 8 for s in sentences)
        return self._parser.parse(sentences)


def test_over_long_sentence_is_split_not_dropped(lexicon_annotator):
    annotator = Annotator(parser=_ShortLimit(lexicon_annotator.parser), senses=None)
    words = ("the cat sat on the mat and the dog lay by the door because it was cold "
             "and nobody had lit the fire").split()
    doc = annotator.annotate(" ".join(words) + ".")
    _check_offsets(doc)
    assert doc.tokens == words + ["."]  # nothing lost
    assert doc.sentence_starts == [0, 8, 16]
    assert {r.keyword for r in doc.relations} >= {"and", "because"}


def test_pipe_gives_one_result_per_input_in_order_and_records_failures(lexicon_annotator):
    texts = ["It works.", b"bad \xff bytes", "", "If it rains, we stay home.", 3.5]
    docs = list(lexicon_annotator.pipe(texts, batch_size=2))
    assert [d.id for d in docs] == ["0", "1", "2", "3", "4"]
    assert [d.error is None for d in docs] == [True, False, True, True, False]
    assert "UTF-8" in docs[1].error and "str" in docs[4].error
    assert docs[1].tokens == [] and docs[3].relations[0].relation == "conditional"
