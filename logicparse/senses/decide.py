"""One decision per keyword occurrence: tree rule, then classifier, then lexicon.

The rules (``rules.py``) cost a few microseconds and settle most frequent keywords (``in``,
``like``, ``when``, ``if``) without an encoder; what they leave undecided goes to the keyword's
sense classifier if there is one (one batched encoder call for all of them), and otherwise keeps
the lexicon's first sense. Every decision names its source (``rule``, ``classifier``,
``lexicon``) so that a Document says how each relation was decided.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Optional, Sequence

from ..taxonomy import by_keyword_lists, keywords as taxonomy_keywords
from .model import SenseDecision, SenseQuery
from .rules import CONNECTIVE, UNDECIDED, decide

logger = logging.getLogger(__name__)

# A rule's decision is certain given the tree; its measured accuracy is in docs/senses.md.
RULE_CONFIDENCE = 1.0


class KeywordDecisions:
    """:class:`~logicparse.senses.SenseModel` for every keyword: rules, classifier, lexicon."""

    def __init__(self, classifier=None, rules: bool = True):
        self.classifier = classifier
        self.rules = rules
        parts = (["rules"] if rules else []) + ([classifier.name] if classifier is not None else [])
        self.name = "+".join(parts) or "lexicon"
        self._warned: set[str] = set()

    def __getattr__(self, name):
        # The classifier's own attributes (meta, encoder, entries, keywords, directory) stay
        # reachable: ``load_senses("default").encoder`` is the encoder the classifiers use.
        classifier = self.__dict__.get("classifier")
        if classifier is None or name.startswith("__"):
            raise AttributeError(name)
        return getattr(classifier, name)

    @property
    def classified(self) -> frozenset:
        """Keywords the classifier decides (when no rule does)."""
        return frozenset(self.classifier.estimators) if self.classifier is not None else frozenset()

    def disambiguate(self, queries: Sequence[SenseQuery]) -> list[SenseDecision]:
        out: list[Optional[SenseDecision]] = [None] * len(queries)
        queries = list(queries)
        todo: list[int] = []
        classified = self.classified
        for i, q in enumerate(queries):
            if self.rules and q.tree is not None:
                r = decide(q.keyword, q.tree, q.token_start, q.token_end)
                if r is CONNECTIVE:
                    queries[i] = q = dataclasses.replace(q, connective=True)
                elif r is not UNDECIDED:
                    out[i] = SenseDecision(r, RULE_CONFIDENCE, "rule")
                    continue
            if q.keyword in classified:
                todo.append(i)
            else:
                out[i] = self._lexicon(q)
        if todo:
            for i, d in zip(todo, self.classifier.disambiguate([queries[i] for i in todo])):
                # a model trained on labels of an older convention (a concessive `but` as
                # adversative) is read by the keyword lists: `but` gives comparative or none
                relation = by_keyword_lists(queries[i].keyword, d.relation)
                out[i] = d if relation == d.relation else dataclasses.replace(d, relation=relation)
        return out  # type: ignore[return-value]

    def _lexicon(self, q: SenseQuery) -> SenseDecision:
        kw = taxonomy_keywords().get(q.keyword)
        # Only an ambiguous keyword is worth a warning: the others have one sense to keep.
        if kw is None or not kw.ambiguous or self.classifier is None:
            return lexicon_decision(q)
        return lexicon_decision(q, self._warned,
                                getattr(self.classifier, "directory", self.classifier.name))


def lexicon_decision(q: SenseQuery, warned: Optional[set] = None, model=None) -> SenseDecision:
    """The keyword's lexicon sense (its first relation). With ``warned`` (the keywords already
    warned about), one logged warning per keyword that ``model`` has no sense model for it."""
    relation = q.candidates[0] if q.candidates else None
    if warned is not None and q.keyword not in warned:
        warned.add(q.keyword)
        logger.warning("No sense model for keyword %r in %s: using its lexicon sense %r.",
                       q.keyword, model, relation)
    return SenseDecision(relation, 1.0, "lexicon")


def query(keyword, tokens: Sequence[str], start: int, end: int, tree=None) -> SenseQuery:
    """The query for the keyword at tokens [start, end) of a sentence (tokens joined by spaces,
    the form the classifiers were trained on)."""
    before = " ".join(tokens[:start])
    a = len(before) + (1 if start else 0)
    b = a + len(" ".join(tokens[start:end]))
    return SenseQuery(keyword.text, keyword.senses, " ".join(tokens), a, b, tree, start, end)
