"""Annotator.pipe and its stepped form (the real bundled parser, lexicon senses): what was read is
never lost, ids are checked against texts, text length is bounded with a coded error, and the
parser's work comes in bounded chunks that a caller can stop between."""

import pytest

from logicparse.annotator import PARSE_CHUNK_COST, parse_chunks
from logicparse.errors import InputTextError

TEXTS = ["If it rains, we stay home.", "She left since it was late.",
         "Nobody came, but we went on.", "It was cheap; however, nobody bought it.",
         "He stayed while she worked."]


def test_pipe_yields_what_it_read_before_the_source_fails(lexicon_annotator):
    def source():
        yield from TEXTS[:4]
        raise OSError("the source broke")

    got = []
    with pytest.raises(OSError, match="the source broke"):
        for doc in lexicon_annotator.pipe(source(), batch_size=32):
            got.append(doc)
    assert [d.text for d in got] == TEXTS[:4]
    assert all(d.error is None and d.tokens for d in got)
    assert [d.id for d in got] == ["0", "1", "2", "3"]


def test_pipe_checks_ids_against_texts(lexicon_annotator):
    got = []
    with pytest.raises(InputTextError) as e:
        for doc in lexicon_annotator.pipe(TEXTS[:4], ids=iter(["a", "b"]), batch_size=3):
            got.append(doc.id)
    assert e.value.code == "E330" and "text 2 has no id" in str(e.value)
    assert got == ["a", "b"]  # the documents that had ids came out first

    got = []
    with pytest.raises(InputTextError) as e:
        for doc in lexicon_annotator.pipe(TEXTS[:2], ids=["a", "b", "c"]):
            got.append(doc.id)
    assert e.value.code == "E331" and got == ["a", "b"]
    assert [d.id for d in lexicon_annotator.pipe(TEXTS[:2], ids=["a", "b"])] == ["a", "b"]


def test_text_over_the_length_limit_is_a_coded_error(lexicon_annotator):
    text = "x" * (lexicon_annotator.max_chars + 1)
    with pytest.raises(InputTextError) as e:
        lexicon_annotator.annotate(text)
    assert e.value.code == "E333" and "nlp.max_length" in str(e.value)
    docs = list(lexicon_annotator.pipe([TEXTS[0], text], ids=["ok", "long"]))
    assert docs[0].error is None and docs[1].error.startswith("[E333]")
    assert docs[1].text == text and docs[1].tokens == []


def test_a_document_that_fails_gets_a_coded_error_and_its_batch_mates_are_annotated(
        lexicon_annotator):
    class Failing:
        """The real parser, failing on one marked sentence."""

        def __init__(self, inner):
            self.inner, self.max_length, self.name = inner, inner.max_length, "failing"

        def parse(self, sentences):
            if any("BREAK" in s for s in sentences):
                raise RuntimeError("cannot parse this")
            return self.inner.parse(sentences)

    real = lexicon_annotator.parser
    lexicon_annotator.parser = Failing(real)
    try:
        docs = list(lexicon_annotator.pipe([TEXTS[0], "Please BREAK here.", TEXTS[1]]))
    finally:
        lexicon_annotator.parser = real
    assert docs[0].error is None and docs[2].error is None and docs[0].relations
    assert docs[1].error.startswith("[E320]") and "RuntimeError: cannot parse this" in docs[1].error


def test_a_document_that_cannot_be_segmented_is_caught_by_the_annotator(lexicon_annotator,
                                                                         monkeypatch):
    real = lexicon_annotator.segment

    def segment(text):
        if "BREAK" in text:
            raise RuntimeError("cannot segment this")
        return real(text)

    monkeypatch.setattr(lexicon_annotator, "segment", segment)
    docs = list(lexicon_annotator.pipe([TEXTS[0], "Please BREAK here.", TEXTS[1]]))
    assert docs[0].error is None and docs[2].error is None and docs[0].relations
    assert docs[1].error.startswith("[E320]") and "RuntimeError: cannot segment this" in docs[1].error


def test_one_by_one_fails_only_the_items_at_fault():
    from logicparse.retry import one_by_one

    def double(batch):
        if 3 in batch:
            raise ValueError("three")
        return [2 * x for x in batch]

    assert one_by_one([1, 2], double, lambda x, e: None) == [2, 4]
    assert one_by_one([1, 3, 2], double, lambda x, e: f"{x}: {e}") == [2, "3: three", 4]
    with pytest.raises(ValueError):
        one_by_one([3], double, lambda x, e: None, catch=KeyError)


def test_parse_chunks_bound_the_squared_lengths():
    assert parse_chunks([]) == []
    assert parse_chunks([10, 10, 10], budget=250) == [(0, 2), (2, 3)]
    assert parse_chunks([300, 5, 300], budget=300 ** 2) == [(0, 1), (1, 2), (2, 3)]
    assert parse_chunks([20] * 500) == [(0, 225), (225, 450), (450, 500)]
    assert parse_chunks([400], budget=100) == [(0, 1)]  # too long alone: still one chunk
    assert PARSE_CHUNK_COST == 300 ** 2


class CountingParser:
    def __init__(self, inner):
        self.inner, self.max_length, self.name = inner, inner.max_length, "counting"
        self.calls: list[int] = []

    def parse(self, sentences):
        self.calls.append(len(sentences))
        return self.inner.parse(sentences)


def test_pipe_steps_parse_in_chunks_and_stop_when_closed(lexicon_annotator):
    """Two 300-token sentences are two chunks (and the short one a third); a stepped run returns
    the same Documents as annotate(), and a run closed after its first chunk parses no more."""
    text = ("a " * 300 + "\n\n") * 2
    real = lexicon_annotator.parser
    counting = CountingParser(real)
    lexicon_annotator.parser = counting
    try:
        steps = lexicon_annotator.pipe_steps([text, TEXTS[0]], ["long", "short"])
        n_steps = 0
        while True:
            try:
                next(steps)
                n_steps += 1
            except StopIteration as done:
                docs = done.value
                break
        assert counting.calls == [1, 1, 1]  # 300 ** 2 + 7 ** 2 is over the bound
        assert n_steps == 4  # before each chunk, and before the documents are built
        assert [d.id for d in docs] == ["long", "short"]
        assert docs[0].sentence_starts == [0, 300]
        assert docs[1] == lexicon_annotator.annotate(TEXTS[0], id="short")

        counting.calls.clear()
        steps = lexicon_annotator.pipe_steps([text], ["long"])
        next(steps)
        next(steps)  # the first chunk is parsed
        steps.close()
        assert counting.calls == [1]
    finally:
        lexicon_annotator.parser = real
    with pytest.raises(InputTextError) as e:
        next(lexicon_annotator.pipe_steps(TEXTS[:2], ["a"]))
    assert e.value.code == "E330"


def test_a_batch_is_parsed_shortest_first_and_each_sentence_keeps_its_tree(lexicon_annotator):
    """Sentences of all the batch's documents go to the parser by length (little padding in its
    batches); every document still gets its own sentences' trees, in order."""
    class Recording:
        def __init__(self, inner):
            self.inner, self.max_length, self.name = inner, inner.max_length, "recording"
            self.lengths: list[int] = []

        def parse(self, sentences):
            self.lengths += [len(s) for s in sentences]
            return self.inner.parse(sentences)

    texts = ["We stayed home because it was raining hard all day long. Why?",
             "Yes. If it rains tomorrow, the match will be cancelled, but we go anyway.",
             TEXTS[3]]
    alone = [lexicon_annotator.annotate(t, id=str(i)) for i, t in enumerate(texts)]
    real = lexicon_annotator.parser
    lexicon_annotator.parser = recording = Recording(real)
    try:
        docs = list(lexicon_annotator.pipe(texts, batch_size=3))
    finally:
        lexicon_annotator.parser = real
    assert recording.lengths == sorted(recording.lengths) and len(recording.lengths) == 5
    assert recording.lengths[:2] == [2, 2]  # "Why?" and "Yes." first, from two documents
    assert docs == alone
