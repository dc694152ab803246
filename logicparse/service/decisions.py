"""The keywords a Document leaves out because they were decided ``none`` (``in Paris``, the verb
``like``): the REST response lists them when asked (``"decided_none": true``), so that the page can
show every decision, not only the relations kept. They are not part of the Document record.

They are found again from the Document itself: detection over each sentence's tokens (the same
``find_keywords`` the Annotator runs), minus the keywords the Document keeps. Which step said
``none`` follows the order of :class:`logicparse.senses.decide.KeywordDecisions`: the tree rule
if it decides ``none`` on the sentence's tree, otherwise the sense classifier. No encoder runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..annotator import extends_lists
from ..mapping import find_keywords
from ..senses.rules import decide
from ..tokens import Document
from ..trees import read_tree

REASONS = {
    "rule": "a tree rule: not a connective in this sentence",
    "classifier": "the sense classifier: not a connective in this sentence",
}


@dataclass
class NoneDecision:
    keyword: str  # as written in the text (tokens joined by single spaces)
    key: list[list[int]]  # [[start, end)] token range, as Relation.key
    sentence: int
    source: str  # rule | classifier
    reason: str


def decided_none(doc: Document, senses, mapping: str = "default") -> list[NoneDecision]:
    """The keywords of ``doc`` decided ``none`` by ``senses`` (the Annotator's sense model; with
    None every keyword keeps its lexicon relation, so none is left out)."""
    if senses is None or doc.error is not None or not doc.parse:
        return []
    kept = {tuple(span) for r in doc.relations for span in r.key}
    rules = getattr(senses, "rules", False)
    out = []
    for s, ((a, b), bracketed) in enumerate(zip(doc.sentences, doc.parse)):
        tokens = doc.tokens[a:b]
        tree = None
        for m in find_keywords(tokens, extends_lists(senses, mapping)):
            if (a + m.start, a + m.end) in kept:
                continue
            if rules and tree is None:
                tree = read_tree(bracketed)
            source = "rule" if rules and decide(m.keyword.text, tree, m.start, m.end) is None \
                else "classifier"
            out.append(NoneDecision(" ".join(tokens[m.start:m.end]), [[a + m.start, a + m.end]],
                                    s, source, REASONS[source]))
    return out
