"""The 12 logical relations of the paper (section 2), their keywords, and the label vocabulary.

This module is the single source of truth for relation names, keyword lists, mapping categories
and label ids: the mapper, the shards, the service (`GET /v1/taxonomy`) and the model code all read
it. The extracted paper text swaps the Negation and Conditional keyword lists; the lists below are
the corrected ones (Negation: not, no, none, n't, nothing; Conditional: if, as long as).

Mapping categories (section 2.1), decided per (relation, keyword):

* ``unary``: one span, alpha = pa(n) minus n. Negation and example keywords modify the constituent
  they sit in (``not [to go]``, ``such as [apples]``).
* ``intrinsic``: pa(n) = A + n + B. Coordinators (``and``, ``or``, ``as well as``) join sister
  constituents inside their own parent, so both sides are found there.
* ``extrinsic``: alpha = pa(pa(n)) minus pa(n), beta = pa(n) minus n, falling back to the previous
  sentence. Subordinators and discourse adverbials (``because``, ``if``, ``but``, ``however``,
  ``also``) head or modify a clause whose counterpart lies outside it, often in the previous
  sentence when the keyword opens a sentence.

The reasons for the less obvious choices are written beside the keyword (``why``). The mapping
evaluation (``logicparse mapping eval``) measures every choice against GDTB Arg1/Arg2.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from .resources import SENSE_KEYWORDS

UNARY = "unary"
INTRINSIC = "intrinsic"
EXTRINSIC = "extrinsic"
CATEGORIES = (UNARY, INTRINSIC, EXTRINSIC)

# (relation, roles) in the paper's order; unary relations have no beta.
_RELATION_ROLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("conjunction", ("key", "alpha", "beta")),
    ("disjunction", ("key", "alpha", "beta")),
    ("negation", ("key", "alpha")),
    ("conditional", ("key", "alpha", "beta")),
    ("negative_conditional", ("key", "alpha", "beta")),
    ("analogy", ("key", "alpha", "beta")),
    ("comparative", ("key", "alpha", "beta")),
    ("adversative", ("key", "alpha", "beta")),
    ("temporal", ("key", "alpha", "beta")),
    ("causal", ("key", "alpha", "beta")),
    ("progression", ("key", "alpha", "beta")),
    ("example", ("key", "alpha")),
)

RELATIONS: list[str] = [name for name, _ in _RELATION_ROLES]
LABELS: list[str] = ["E"] + [f"{name}:{role}" for name, roles in _RELATION_ROLES for role in roles]
LABEL_IDS: dict[str, int] = {label: i for i, label in enumerate(LABELS)}
UNARY_RELATIONS = frozenset(name for name, roles in _RELATION_ROLES if "beta" not in roles)
# One colour per relation, for every view of the labels: the service page (its style.css holds
# the same values) and displaCy (spacy_component.displacy_options).
RELATION_COLORS: dict[str, str] = {
    "conjunction": "#1f77b4", "disjunction": "#e07b00", "negation": "#d62728",
    "conditional": "#2ca02c", "negative_conditional": "#9467bd", "analogy": "#8c564b",
    "comparative": "#d6409f", "adversative": "#7b7d16", "temporal": "#0f9fb0",
    "causal": "#3b3fa0", "progression": "#5a7d2a", "example": "#a0522d",
}

assert len(LABELS) == 35, len(LABELS)

# Section 2's keyword lists. Each entry: keyword -> (category, why). The first relation that lists
# an ambiguous keyword gives its lexicon sense (used when sense disambiguation is off).
_KEYWORDS: dict[str, dict[str, tuple[str, str]]] = {
    "conjunction": {
        "and": (INTRINSIC, "coordinator: both conjuncts are sisters under its parent"),
        "as well as": (INTRINSIC, "coordinator like 'and'"),
        "as well": (EXTRINSIC, "clause-final adverb: adds its clause to what came before"),
        "also": (EXTRINSIC, "adverb inside the clause it adds; the other member is outside it"),
        "at the same time": (EXTRINSIC, "discourse adverbial linking its clause to the previous one"),
    },
    "disjunction": {
        "or": (INTRINSIC, "coordinator: both alternatives are sisters under its parent"),
    },
    "negation": {
        "not": (UNARY, "negates the constituent it sits in"),
        "no": (UNARY, "determiner: negates its noun phrase"),
        "none": (UNARY, "negates its noun phrase / clause"),
        "n't": (UNARY, "clitic of 'not' (its own token in PTB trees)"),
        "nothing": (UNARY, "negative pronoun: negates its clause"),
    },
    "conditional": {
        "if": (EXTRINSIC, "subordinator: beta is its clause, alpha the main clause around it"),
        "as long as": (EXTRINSIC, "subordinator like 'if'"),
    },
    "negative_conditional": {
        "unless": (EXTRINSIC, "subordinator like 'if'"),
        "otherwise": (EXTRINSIC, "adverbial: its clause against the previous one"),
    },
    "analogy": {
        "as if": (EXTRINSIC, "subordinator"),
        "as though": (EXTRINSIC, "subordinator"),
        "just as": (EXTRINSIC, "subordinator"),
        "just like": (EXTRINSIC, "subordinator / preposition"),
        "likewise": (EXTRINSIC, "discourse adverbial"),
        "similarly": (EXTRINSIC, "discourse adverbial"),
    },
    "comparative": {
        # The paper lists 'but' as extrinsic (2.1.3), but it is mostly a coordinator joining two
        # sister clauses: on GDTB dev (gold trees) intrinsic raises alpha F1 0.632 -> 0.671 and
        # beta F1 0.872 -> 0.911 overall. Table 1 holds either way (sentence-initial 'But': A is
        # empty, B is the rest of the sentence).
        "but": (INTRINSIC, "coordinator: measured better as intrinsic on GDTB (see comment)"),
        "however": (EXTRINSIC, "discourse adverbial"),
        "in comparison": (EXTRINSIC, "discourse adverbial"),
        "while": (EXTRINSIC, "subordinator"),
        "yet": (INTRINSIC, "coordinator like 'but' (GDTB dev: comparative alpha F1 0.50 -> 0.53)"),
        "rather than": (EXTRINSIC, "subordinator / preposition"),
        "unlike": (EXTRINSIC, "preposition heading an adjunct"),
        "on the other hand": (EXTRINSIC, "discourse adverbial"),
        "in contrast": (EXTRINSIC, "discourse adverbial"),
        "contrary to": (EXTRINSIC, "preposition heading an adjunct"),
        "on the contrary": (EXTRINSIC, "discourse adverbial"),
    },
    "adversative": {
        "nevertheless": (EXTRINSIC, "discourse adverbial"),
        "nonetheless": (EXTRINSIC, "discourse adverbial"),
        "notwithstanding": (EXTRINSIC, "preposition / adverbial"),
        "although": (EXTRINSIC, "subordinator"),
        "though": (EXTRINSIC, "subordinator"),
        "despite": (EXTRINSIC, "preposition heading an adjunct"),
        "despite of": (EXTRINSIC, "preposition heading an adjunct"),
        "in spite of": (EXTRINSIC, "preposition heading an adjunct"),
        "regardless of": (EXTRINSIC, "preposition heading an adjunct"),
        "albeit": (EXTRINSIC, "subordinator"),
    },
    "temporal": {
        "during": (EXTRINSIC, "preposition heading a temporal adjunct"),
        "after": (EXTRINSIC, "subordinator / preposition"),
        "in": (EXTRINSIC, "preposition heading an adjunct"),
        "when": (EXTRINSIC, "subordinator"),
        "since": (EXTRINSIC, "subordinator / preposition"),
        "before": (EXTRINSIC, "subordinator / preposition"),
        "as": (EXTRINSIC, "subordinator"),
        "as soon as": (EXTRINSIC, "subordinator"),
        "while": (EXTRINSIC, "subordinator"),
        "then": (EXTRINSIC, "adverbial: its clause follows the previous one"),
        "until": (EXTRINSIC, "subordinator / preposition"),
        "meanwhile": (EXTRINSIC, "discourse adverbial"),
    },
    "causal": {
        "because": (EXTRINSIC, "subordinator (the paper's Figure 3b)"),
        "thanks to": (EXTRINSIC, "preposition heading an adjunct"),
        "since": (EXTRINSIC, "subordinator"),
        "as a result": (EXTRINSIC, "discourse adverbial"),
        "in order to": (EXTRINSIC, "purpose clause"),
        "as": (EXTRINSIC, "subordinator"),
        "therefore": (EXTRINSIC, "discourse adverbial"),
        "hence": (EXTRINSIC, "discourse adverbial"),
        "so that": (EXTRINSIC, "subordinator"),
        "due to": (EXTRINSIC, "preposition heading an adjunct"),
        "thus": (EXTRINSIC, "discourse adverbial"),
        "consequently": (EXTRINSIC, "discourse adverbial"),
        "thereby": (EXTRINSIC, "discourse adverbial"),
        "now that": (EXTRINSIC, "subordinator"),
    },
    "progression": {
        "moreover": (EXTRINSIC, "discourse adverbial"),
        "furthermore": (EXTRINSIC, "discourse adverbial"),
        "in addition": (EXTRINSIC, "discourse adverbial"),
        "besides": (EXTRINSIC, "discourse adverbial / preposition"),
    },
    "example": {
        "for example": (UNARY, "marks its own constituent as the example (section 2.1.1)"),
        "as an example": (UNARY, "like 'for example'"),
        "like": (UNARY, "preposition: its object is the example"),
        "such as": (UNARY, "section 2.1.1 names it unary"),
        "for instance": (UNARY, "like 'for example'"),
        "including": (UNARY, "preposition: its object is the example"),
    },
}

# Keywords the paper's lists leave out (its lists are open to extension). Matched only by the
# default annotator (decisions on, ``mapping="default"``); ``senses=None`` and ``mapping="paper"``
# keep the lists above exactly. Measured in docs/keywords.md.
_EXTENSIONS: dict[str, dict[str, tuple[str, str]]] = {
    "negation": {
        # spaCy's tokenizer splits "cant", "dont", "wont", "isnt" into "ca"/"do"/"wo"/"is" + "nt"
        "nt": (UNARY, "'n't' written without its apostrophe"),
        "never": (UNARY, "negates the clause it sits in"),
        "nobody": (UNARY, "negative pronoun, like 'nothing'"),
        "neither": (UNARY, "negates its noun phrase or clause"),
        "nor": (UNARY, "negates the conjunct it heads"),
    },
    "conditional": {
        "in the event that": (EXTRINSIC, "subordinator like 'if' (contracts, statutes)"),
    },
    "comparative": {
        "whereas": (EXTRINSIC, "subordinator like contrastive 'while'; never a time"),
    },
}

# Keywords the paper calls ambiguous (section 3.1) plus any keyword listed under two relations,
# plus `then` and `yet`: on GDTB a sense model beats their lexicon sense (docs/history.md). They are
# the keywords with bundled sense classifiers (resources.SENSE_KEYWORDS).
AMBIGUOUS_EXTRA = frozenset(SENSE_KEYWORDS)


@dataclass(frozen=True)
class Keyword:
    """One keyword or key phrase with the relations it can signal, in lexicon order."""

    text: str
    words: tuple[str, ...]
    senses: tuple[str, ...]  # relations, lexicon (first) sense first

    @property
    def ambiguous(self) -> bool:
        return len(self.senses) > 1 or self.text in AMBIGUOUS_EXTRA


@lru_cache(maxsize=2)
def keywords(extended: bool = False) -> dict[str, Keyword]:
    """All keywords, lower-cased, with their candidate relations in the paper's order;
    ``extended``: with the default annotator's extensions (``_EXTENSIONS``) after them."""
    senses: dict[str, list[str]] = {}
    for table in (_KEYWORDS, _EXTENSIONS) if extended else (_KEYWORDS,):
        for relation in RELATIONS:
            for text in table.get(relation, {}):
                senses.setdefault(text, []).append(relation)
    return {t: Keyword(t, tuple(t.split()), tuple(rels)) for t, rels in senses.items()}


def listed_contrast(keyword: str) -> Optional[str]:
    """``comparative`` or ``adversative`` when the paper's lists (or the extensions) put
    ``keyword`` under that relation, else None. Contrast and concession are told apart by the
    keyword, never by reading the sentence (docs/labelling.md): a keyword listed under one of
    the two signals that one, concessive or not."""
    for relation in ("comparative", "adversative"):
        if keyword in _KEYWORDS[relation] or keyword in _EXTENSIONS.get(relation, {}):
            return relation
    return None


def by_keyword_lists(keyword: str, relation: Optional[str]) -> Optional[str]:
    """``relation`` for ``keyword`` under the keyword-list convention (docs/labelling.md). A
    keyword listed under comparative or adversative signals that relation or none (``while``
    also a time): a contrast or concession becomes the listed relation, and so does any other
    relation of ``while`` (``while respecting …`` = whereas); any other relation of such a
    keyword is none (``not only X but also Y``: the adding is ``also``'s). On a keyword listed
    under neither, a contrast or concession is no marker of either: ``even if`` stays a
    condition, ``then again``, ``as opposed to``, ``great as it is`` give none. Any other
    relation is returned as it is."""
    if relation is None:
        return None
    listed = listed_contrast(keyword)
    if listed is None:
        if relation in ("comparative", "adversative"):
            return "conditional" if keyword == "if" else None
        return relation
    if relation in keywords(True)[keyword].senses:
        return relation
    return listed if relation in ("comparative", "adversative") or keyword == "while" else None


def category(keyword: str, relation: str) -> str:
    """Mapping category of ``keyword`` when it signals ``relation``.

    A sense classifier may assign a relation the lexicon does not list for the keyword (``while``
    as adversative); the keyword then keeps the category of its first listed sense, since the
    category follows the keyword's syntax, not its meaning.
    """
    entry = _KEYWORDS.get(relation, {}).get(keyword) or _EXTENSIONS.get(relation, {}).get(keyword)
    if entry is None:
        first = keywords(True)[keyword].senses[0]
        entry = _KEYWORDS.get(first, {}).get(keyword) or _EXTENSIONS[first][keyword]
    cat = entry[0]
    # A unary relation has no beta: whatever the keyword's syntax, it maps one span.
    return UNARY if relation in UNARY_RELATIONS else (EXTRINSIC if cat == UNARY else cat)


def as_dict() -> dict:
    """The taxonomy as plain data (served at ``GET /v1/taxonomy``)."""
    return {
        "relations": [
            {
                "name": name,
                "roles": list(roles),
                "keywords": [
                    {"text": kw, "category": cat, "why": why,
                     "ambiguous": keywords()[kw].ambiguous}
                    for kw, (cat, why) in _KEYWORDS[name].items()
                ],
            }
            for name, roles in _RELATION_ROLES
        ],
        "labels": LABELS,
        "ambiguous": sorted(k for k, v in keywords().items() if v.ambiguous),
        # matched by the default annotator only (decisions on, mapping "default")
        "extensions": {name: sorted(kws) for name, kws in _EXTENSIONS.items()},
    }
