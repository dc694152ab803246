"""A keyword occurrence in its parse tree: the words, tags and nodes around it that the tree
rules (``rules.py``, ``clauses.py``) read.

Labels are read without function tags (``PP-TMP`` is ``PP``) so that rules behave alike on
treebank trees and on the bundled parser's, which has none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..trees import ParseTree

UNDECIDED = object()  # the rule has nothing to say: a classifier or the lexicon decides
# A subordinator heading a clause with its own subject and verb is a connective: the classifier
# picks which sense, but not none (``since I've been back``, ``as the nation industrialized``).
CONNECTIVE = object()

# Heads of a time expression after `in` ("in 1998", "in the morning", "in two weeks").
_TIME_WORDS = frozenset("""
january february march april may june july august september october november december jan feb
mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday
sunday morning mornings afternoon afternoons evening evenings night nights day days daytime
week weeks weekend weekends month months year years decade decades century centuries
millennium hour hours minute minutes second seconds moment moments time times past future
meantime interim era eras age ages period periods quarter quarters semester term season
seasons summer summers winter winters spring autumn fall childhood youth adolescence
infancy adulthood lifetime beginning end ending dawn dusk half halves advance
dynasty dynasties reign reigns epoch epochs
midnight noon today tomorrow yesterday recent early late earlier later
""".split())
_YEAR = re.compile(r"^(mid-|early-|late-)?(1[0-9]|20)\d\d(s|'s)?$|^'\d0s$|^\d0s$|^\d{1,2}(st|nd|rd|th)$")
# A PP's object ends before the first of these (a nested PP, a relative clause, a verb).
_OBJECT_END = ("IN", "TO", "WDT", "WP", "WRB", ",", ":", ".", "VB", "MD", "CC", "-LRB-")
_AUX = frozenset("""is are was were do does did will would can could shall should may might must
has have had 's 're 'm 'll""".split())
# Verbs whose object a comment or manner clause leaves out: "as our founders intended".
_INTEND = frozenset("""intended intends intend planned plans plan promised promises hoped hopes
wished wanted wants agreed agrees proposed proposes predicted predicts feared requested requires
required demanded directed instructed prescribed envisioned envisaged anticipated""".split())
# The pro-verb: after it a prepositional phrase is an adjunct ("as people have done over the
# world"), where after "be" it is the complement ("as it was in Rome").
_DO = frozenset("do does did done".split())
_PUNCT_TAGS = frozenset({",", ".", ":", "``", "''", "-LRB-", "-RRB-"})


def base(label: str) -> str:
    """``PP-TMP`` -> ``PP``; ``-LRB-`` and ``-NONE-`` stay."""
    if label.startswith("-"):
        return label
    return label.split("-")[0].split("=")[0]


@dataclass
class Site:
    """One keyword occurrence in its tree: tokens [start, end) and their surroundings."""

    tree: ParseTree
    start: int
    end: int

    def __post_init__(self):
        self.words = [w.lower() for w in self.tree.leaves]
        self.tags = [base(self.tree.labels[p]) for p in self.tree.leaf_parents]

    def word(self, i: int) -> str:
        return self.words[i] if 0 <= i < len(self.words) else ""

    def tag(self, i: int) -> str:
        return self.tags[i] if 0 <= i < len(self.tags) else ""

    @property
    def prev(self) -> str:
        return self.word(self.start - 1)

    @property
    def next(self) -> str:
        return self.word(self.end)

    def prev_content(self, skip=("not", "n't", "even", "just", "really")) -> str:
        """The word before the keyword, skipping negation and focus adverbs."""
        i = self.start - 1
        while self.word(i) in skip:  # "" before the first word stops the walk
            i -= 1
        return self.word(i)

    @property
    def key_tag(self) -> str:
        return self.tags[self.end - 1]

    def parent_label(self, token: int) -> str:
        p = self.tree.parents[self.tree.leaf_parents[token]]
        return base(self.tree.labels[p]) if p >= 0 else ""

    def clause_of(self, token: int) -> int:
        """The lowest SBAR (or PP) node the token's preterminal sits in, -1 if none."""
        node = self.tree.parents[self.tree.leaf_parents[token]]
        while node >= 0 and base(self.tree.labels[node]) not in ("SBAR", "PP"):
            node = self.tree.parents[node]
        return node

    def object_words(self, limit: int, names: bool = False) -> list[str]:
        """The noun phrase after a preposition: the words up to a nested PP, clause or verb,
        inside the phrase the keyword heads, at most ``limit`` of them; ``names``: read on past a
        coordinator between two proper nouns (``the Ming and Qing Dynasties`` is one phrase)."""
        out = []
        for i in range(self.end, min(self.end + limit, self._parent_end())):
            if self.tags[i].startswith(_OBJECT_END) and not (
                    names and self.tags[i] == "CC" and self.tag(i - 1).startswith("NNP")
                    and self.tag(i + 1).startswith("NNP")):
                break
            out.append(self.words[i])
        return out

    def _parent_end(self) -> int:
        p = self.tree.parents[self.tree.leaf_parents[self.end - 1]]
        if p >= 0 and self.tree.starts[p] == self.start and self.tree.ends[p] > self.end:
            return self.tree.ends[p]
        return len(self.words)

    def phrase_end(self) -> int:
        """One past the last token of the phrase the keyword heads (its parent node), or of the
        noun phrase after it when the parent is no phrase of its own."""
        p = self.tree.parents[self.tree.leaf_parents[self.end - 1]]
        if p >= 0 and base(self.tree.labels[p]) in ("PP", "SBAR") and self.tree.starts[p] == self.start:
            return self.tree.ends[p]
        return self.end + len(self.object_words(8))

    def children(self, node: int) -> list[int]:
        return [n for n, parent in enumerate(self.tree.parents) if parent == node]

    def clause(self) -> int:
        """The clause the keyword introduces as a subordinator: an S after it under the same
        SBAR, with a subject and a verb phrase; -1 if there is none."""
        pre = self.tree.leaf_parents[self.end - 1]
        sbar = self.tree.parents[pre]
        if sbar < 0 or base(self.tree.labels[sbar]) != "SBAR":
            return -1
        for node in self.children(sbar):
            if node > pre and base(self.tree.labels[node]) == "S":
                labels = [base(self.tree.labels[k]) for k in self.children(node)]
                if "VP" in labels and "NP" in labels:
                    return node
        return -1

    def verb_group(self, clause: int) -> tuple[list[tuple[str, str]], list[int]]:
        """The verbs heading the clause's chain of verb phrases, outermost first, as (word, tag),
        and the nodes after the last of them (its complements and adjuncts)."""
        vp = next(k for k in self.children(clause) if base(self.tree.labels[k]) == "VP")
        verbs = []
        while True:
            kids = self.children(vp)
            if kids and self.tree.labels[kids[0]].startswith(("VB", "MD")):
                verbs.append((self.words[self.tree.starts[kids[0]]], base(self.tree.labels[kids[0]])))
                kids = kids[1:]
            inner = [k for k in kids if base(self.tree.labels[k]) == "VP"]
            if not inner:
                return verbs, kids
            vp = inner[-1]

    def gapped_verb(self, clause: int) -> bool:
        """The clause's verb phrase ends without its complement: an auxiliary with nothing after
        it but adverbs or a time phrase (``as we are not``, ``as it has for two centuries``, ``as it
        was this year``), or a
        verb of intending without its object (``as our founders intended``)."""
        verbs, kids = self.verb_group(clause)
        verb = verbs[-1][0] if verbs else ""
        if verb not in _AUX and verb not in _INTEND and verb not in ("been", "done"):
            return False
        for k in kids:
            label = base(self.tree.labels[k])
            if label in _PUNCT_TAGS:
                break  # what follows a comma is an aside: "as we are not, under normal ..."
            words = self.words[self.tree.starts[k]:self.tree.ends[k]]
            if label in ("RB", "ADVP") or (label == "PP" and verb in _DO) or (label in ("PP", "NP") and any(
                    w in _TIME_WORDS or w in ("yr", "yr.") or _YEAR.match(w) for w in words)):
                continue
            return False
        return True

    def sentence_ends_with_question(self) -> bool:
        return "?" in self.words[-2:]
