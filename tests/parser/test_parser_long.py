"""A sentence longer than the parser takes, or longer than any its network was trained on: every
piece of it is parsed, by the parser and by the Annotator, with the real bundled parser."""

import nltk
import pytest

from logicparse.parser import load_parser

pytestmark = pytest.mark.slow

# Distinct clauses, so that each piece of the run-on holds clauses of its own.
CLAUSES = [
    "If the levee holds, the market opens as usual",
    "the old mill flooded because the river rose too quickly",
    "the owners kept the machines, but the mill never reopened",
    "when the spring rains come early, the lower streets are closed",
    "some residents want a taller wall, while others want a new school",
    "the ferry is slow although the bridge closes at night",
    "you can take the bus or you can walk along the river",
    "the council did not agree on a budget, so the repairs will wait",
    "the fishing is better here than anywhere upstream",
    "unless the warnings come in time, the town will not be ready",
    "the festival draws crowds from three counties and the hotels fill up",
    "nobody has lived on the ground floor since the flood of 1952",
    "the forecasters expect heavy rain in April, therefore every household prepares sandbags",
    "the teachers stayed late because the pupils had an exam",
    "if the road is closed, the buses take the long way round",
    "the mayor spoke briefly, and then the crowd went home",
    "the children played by the water until their parents called them",
    "the bakery opens early, but it closes before noon",
    "the library moved to the station after the old building burned",
    "the farmers sell apples and pears when the harvest is good",
    "the doctor visits twice a week, although the clinic is small",
    "the canal freezes in winter, so the boats stay in the harbour",
    "the hills are green in May, while the valley turns brown",
    "the museum is free on Sundays because the council pays for it",
    "the station was rebuilt after the storm, but the trains still run late",
    "if the tide is high, the fishermen wait on the pier",
    "the roads are quiet at dawn because the shops open at nine",
]
RUN_ON = "; ".join(CLAUSES) + "."
TOKENS = RUN_ON.replace(",", " ,").replace(";", " ;").replace(".", " .").split()


@pytest.fixture(scope="module")
def bundled():
    return load_parser("default")


def test_a_sentence_over_max_length_is_parsed_in_every_piece(bundled):
    assert len(TOKENS) > bundled.max_length
    tree = bundled.parse([TOKENS])[0]
    assert tree.leaves == TOKENS
    top = nltk.Tree.fromstring(tree.to_string())
    assert top.label() == "TOP" and len(top) == 1 and top[0].label() == "S"
    pieces = list(top[0])
    assert len(pieces) >= 2 and all(isinstance(p, nltk.Tree) for p in pieces), pieces
    start = 0
    for piece in pieces:
        words = TOKENS[start:start + len(piece.leaves())]
        # Each piece is the tree the parser gives its words as a sentence of their own.
        alone = nltk.Tree.fromstring(bundled.parse([words])[0].to_string())
        assert [piece] == list(alone)
        labels = {t.label() for t in piece.subtrees()}
        assert {"NP", "VP", "S"} <= labels, labels
        start += len(words)
    assert start == len(TOKENS)
    # Every subordinating keyword, in every piece, is tagged as one.
    for i, tok in enumerate(TOKENS):
        if tok in ("because", "although", "unless"):
            assert tree.labels[tree.leaf_parents[i]] == "IN", (i, tok)


def test_a_sentence_past_the_longest_trained_on_is_parsed_in_pieces_cut_at_semicolons(bundled):
    """The bundled network saw sentences of at most 60 words; past that its trees fall apart, so
    a longer sentence is parsed in pieces, each cut at the semicolon nearest its middle."""
    toks = ("; ".join(CLAUSES[:7]) + ".").replace(",", " ,").replace(";", " ;").replace(".", " .").split()
    assert bundled.piece_words == 60 < len(toks) <= bundled.max_length
    tree = bundled.parse([toks])[0]
    assert tree.leaves == toks
    top = nltk.Tree.fromstring(tree.to_string())
    assert top[0].label() == "S" and len(top[0]) >= 2
    start = 0
    for piece in top[0]:
        words = toks[start:start + len(piece.leaves())]
        assert len(words) <= 60 and (start == 0 or toks[start - 1] == ";")
        assert [piece] == list(nltk.Tree.fromstring(bundled.parse([words])[0].to_string()))
        start += len(words)
    assert start == len(toks)
    # At 60 words or fewer the sentence is one piece: the network's own tree.
    short = toks[:60]
    assert bundled.parse([short])[0].to_string() == bundled._parse_batch([short])[0].to_string()


@pytest.mark.parametrize("marks,want", [
    # a semicolon before a comma, though the comma is nearer the middle; then the rest again
    ({30: ";", 50: ","}, [(0, 31), (31, 51), (51, 100)]),
    # a mark within 5 words of an end is passed over; with no other, the middle
    ({2: ";", 96: ","}, [(0, 50), (50, 100)]),
    # the comma nearest the middle
    ({20: ",", 45: ",", 70: ","}, [(0, 46), (46, 100)]),
    # a colon or a dash as a semicolon; 5 words from an end is near enough, 4 is not
    ({4: ":", 60: ","}, [(0, 5), (5, 61), (61, 100)]),
    ({3: ":", 94: "--", 60: ","}, [(0, 30), (30, 61), (61, 95), (95, 100)]),
    ({95: "--", 60: ","}, [(0, 30), (30, 61), (61, 100)]),
])
def test_where_a_long_sentence_is_cut(bundled, marks, want):
    toks = [marks.get(i, f"w{i}") for i in range(100)]
    assert bundled._pieces(toks, 0, len(toks)) == want


def test_the_annotator_parses_every_piece_of_an_over_long_sentence(lexicon_annotator):
    parser = lexicon_annotator.parser
    doc = lexicon_annotator.annotate(RUN_ON)
    assert doc.tokens == TOKENS and doc.error is None
    limit = parser.max_length
    assert doc.sentence_starts == [0, limit]  # one sentence, cut at the parser's limit
    because = {}
    for (a, b), parse in zip(doc.sentences, doc.parse):
        assert parse == parser.parse([doc.tokens[a:b]])[0].to_string()
        assert "(SBAR" in parse and "(VP" in parse
        because[a] = [i for i in range(a, b) if doc.tokens[i] == "because"]
        for i in because[a]:
            rel = next(r for r in doc.relations if r.key == [[i, i + 1]])
            assert rel.relation == "causal" and rel.alpha and rel.beta and doc.logic[i]
            assert all(a <= x < y <= b for x, y in rel.alpha + rel.beta)  # within its piece
    assert all(because.values()), because  # a causal keyword in every piece
