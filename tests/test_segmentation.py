"""Text -> spaCy tokens: a long run without spaces is tokenized in pieces (spaCy's time on one
grows with its square), with the tokens, offsets and sentences spaCy gives elsewhere."""

import pytest
import spacy

from logicparse.segmentation import MAX_RUN, load_spacy


class Spy:
    """spaCy's tokenizer, recording what it is fed."""

    def __init__(self, tokenizer):
        self.tokenizer, self.fed = tokenizer, []
        self.vocab, self.url_match = tokenizer.vocab, tokenizer.url_match

    def __call__(self, text):
        self.fed.append(text)
        return self.tokenizer(text)


@pytest.fixture()
def nlp():
    nlp = load_spacy(None)
    nlp.tokenizer.tokenizer = Spy(nlp.tokenizer.tokenizer)
    return nlp


def plain(text):
    ref = spacy.blank("en")
    ref.add_pipe("sentencizer")
    return ref(text)


def tokens(doc):
    return [(t.text, t.idx, t.whitespace_, t.is_sent_start) for t in doc]


@pytest.mark.parametrize("run", ["$" * 10_000, "=" * 5_000, "(" * 2_000, "😀" * 1_000, ".," * 3_000,
                                 "http://example.com/" + ")" * 2_000])  # a URL, then a long tail
def test_a_long_run_of_punctuation_reaches_spacy_in_pieces(nlp, run):
    text = f"Prices rose {run} and fell. Then it rained."
    doc = nlp(text)
    assert doc.text == text and all(text[t.idx:t.idx + len(t)] == t.text for t in doc)
    assert max(len(w) for piece in nlp.tokenizer.tokenizer.fed for w in piece.split()) <= MAX_RUN
    # The words around the run and the sentences are spaCy's own.
    assert [s.text for s in doc.sents][-1] == "Then it rained."
    assert tokens(doc)[:2] == tokens(plain("Prices rose $"))[:2]
    assert [t.text for t in doc][-7:] == ["and", "fell", ".", "Then", "it", "rained", "."]


@pytest.mark.parametrize("text", [
    "It rained.  Then  it\n\nstopped , because it was late .",
    "see https://example.com/" + "abc/def-ghi_jk?x=1&" * 30 + "z now. Next one.",  # a long URL
    "a" * 5_000 + " is one word.",  # letters only: one token, read in one step
    "x " + "=" * 250 + "\nnext line here.  " + "(" * 300 + "  two spaces after.",
])
def test_text_gets_spacys_own_tokens_and_sentences(nlp, text):
    doc = nlp(text)
    assert doc.text == text
    if "=" in text:  # a cut run: the same tokens but for the runs themselves
        kept = [t for t in tokens(doc) if t[0][0] not in "=("]
        assert kept == [t for t in tokens(plain(text)) if t[0][0] not in "=("]
    else:
        assert tokens(doc) == tokens(plain(text))
        assert len(nlp.tokenizer.tokenizer.fed) == 1
