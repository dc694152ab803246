"""The default α/β mapping: Algorithm 1's spans widened to the arguments a reader means.

Algorithm 1 (``mapping="paper"``, see mapping.py) takes α from the keyword's grandparent, which
leaves it short wherever the keyword's constituent attaches below the clause: for ``I try hard
because it is easy`` α is the VP without its subject. The rules below keep the paper's definitions
(α the other argument, β the keyword's own; unary relations keep Algorithm 1's one span) and pick
the constituents the way discourse treebanks (PDTB, GDTB) draw arguments. Each rule has a name in
``RULES``; docs/mapping.md gives the GDTB figures with and without each.

Function tags (``SBAR-ADV``, ``NP-SBJ``) are ignored, so gold treebank trees and parser trees are
read alike.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Optional

from .taxonomy import INTRINSIC
from .trees import ParseTree

Ranges = list[list[int]]

#: The rules of the default mapping, in the order docs/mapping.md documents them.
RULES = (
    "initial_coordinator",  # nothing before a coordinator in its parent: α = previous sentence
    "initial_rest_beta",  # ... and β = the rest of the sentence
    "interjection_opening",  # ... also after only interjections (``Um , but …``): β has them
    "next_conjunct_beta",  # β of a coordinator: stops at the next coordinator of its parent
    "vp_subject",  # coordinated VPs: α includes the clause's subject
    "adjunct_clause",  # subordinator/preposition: α = enclosing clause minus the adjunct
    "skip_parentheticals",  # ... minus parentheticals beside it
    "conjunct_stop",  # ... or only the conjunct (with its coordinator) it sits in
    "flat_adjunct",  # ... also where the parser left the keyword beside its clause
    "split_keyword",  # ... and where a multi-word keyword ends on the head of its clause
    "adverbial_clause",  # discourse adverbial: β = its clause, α = the clause before it
    "coordinated_any",  # ... a clause after a coordinator is coordinated whatever the label before
    "adverbs_only",  # ... not for a preposition/subordinator outside an SBAR/PP (Algorithm 1 stands)
    "vp_conjunct",  # ... in a coordinated VP: α = the VP before (with the subject), β from there
    "sentence_beta",  # ... a first clause directly under the sentence: β = the sentence
    "adverbial_sbar",  # ... in a subordinate clause: β = the whole SBAR, subordinator included
    "phrase_adverbial",  # ... a key phrase that is a whole PP (``on the other hand``) is one too
    "empty_alpha",  # a coordinator with no word before it in its parent (``( or min )``): α as for an adjunct
    "complementizer_alpha",  # a coordinator's α opens with its clause's subordinator (``that [X and Y]``)
    "adjunct_complementizer",  # ... and so does an adjunct's α
    "conjunct_coordinator",  # an adjunct's α in a coordinated clause opens with its coordinator
    "subjectless_clause",  # an adjunct's α climbs past an infinitive with no subject (``to dance``)
    "punct_edges",  # α and β do not start or end with punctuation
)
#: Rules in force; the ablation benchmark switches them off one at a time.
ACTIVE = set(RULES)

# Labels of clause nodes: where an argument stops climbing.
_CLAUSES = frozenset({"S", "SINV", "SQ", "SBARQ"})
# Parents that the keyword heads: subordinate clauses and prepositional adjuncts.
_HEADED = frozenset({"SBAR", "PP", "WHPP"})
# Children that separate conjuncts rather than being one.
_SEPARATORS = frozenset({"CC", "CONJP", ",", ":", ".", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP"})


@lru_cache(maxsize=4096)
def base_label(label: str) -> str:
    """``SBAR-ADV`` -> ``SBAR``, ``NP=2`` -> ``NP``; ``-NONE-``/``-LRB-`` stay as they are."""
    if not label or label[0] == "-":
        return label
    for sep in "-=":
        i = label.find(sep)
        if i > 0:
            label = label[:i]
    return label


def _is_word(token: str) -> bool:
    return any(ch.isalnum() for ch in token)


def _children(tree: ParseTree, node: int) -> list[int]:
    end, parents, starts = tree.ends[node], tree.parents, tree.starts
    out = []
    x = node + 1
    while x < len(parents) and starts[x] < end:
        if parents[x] == node:
            out.append(x)
        x += 1
    return out


def spans_minus(outer: tuple[int, int], holes: list[tuple[int, int]], offset: int) -> Ranges:
    """Token span ``outer`` minus the ``holes`` (spans inside it), shifted by ``offset``: set
    difference can leave pieces on both sides of a hole."""
    out, pos = [], outer[0]
    for a, b in sorted(holes):
        if a > pos:
            out.append([pos + offset, a + offset])
        pos = max(pos, b)
    if outer[1] > pos:
        out.append([pos + offset, outer[1] + offset])
    return out


def _shift(ranges: Ranges, offset: int) -> Ranges:
    return [[a + offset, b + offset] for a, b in ranges]


def _clause_above(tree: ParseTree, node: int) -> int:
    """The nearest clause node strictly above ``node``, else the root."""
    labels, parents = tree.labels, tree.parents
    node = parents[node]
    while node > 0 and base_label(labels[node]) not in _CLAUSES:
        node = parents[node]
    return max(node, 0)


def _clause_at(tree: ParseTree, node: int) -> int:
    """``node`` itself when it is a clause, else the nearest clause above it (or the root)."""
    return node if base_label(tree.labels[node]) in _CLAUSES else _clause_above(tree, node)


def _conjuncts(tree: ParseTree, parent: int, start: int, end: int
               ) -> tuple[Optional[int], Optional[tuple[int, int]]]:
    """Around the keyword tokens [start, end) among ``parent``'s children: the nearest conjunct
    before them (a node, or None), and the span of the conjuncts after them up to the next
    separating coordinator (None if there is none after)."""
    before, after_start, after_end = None, None, None
    for c in _children(tree, parent):
        label = base_label(tree.labels[c])
        if tree.ends[c] <= start:
            if label not in _SEPARATORS:
                before = c
        elif tree.starts[c] >= end:
            if label in ("CC", "CONJP") and after_start is not None:
                break
            if label not in _SEPARATORS:
                after_start = tree.starts[c] if after_start is None else after_start
                after_end = tree.ends[c]
    return before, (after_start, after_end) if after_start is not None else None


def _subject_clause_start(tree: ParseTree, vp: int) -> Optional[int]:
    """Start of the clause whose predicate is VP ``vp`` (through a chain of VPs), when that
    clause has a subject before it; else None (a reduced relative, an imperative, a bare VP)."""
    labels, parents = tree.labels, tree.parents
    top = vp
    while parents[top] >= 0 and base_label(labels[parents[top]]) == "VP":
        top = parents[top]
    clause = parents[top]
    if clause < 0 or base_label(labels[clause]) not in _CLAUSES:
        return None
    for c in _children(tree, clause):
        if tree.ends[c] > tree.starts[top]:
            return None
        if base_label(labels[c]) == "NP":
            return tree.starts[clause]
    return None


def _coordinator(tree: ParseTree, pa: int, start: int, end: int, offset: int,
                 prev: Ranges) -> tuple[Ranges, Ranges]:
    pa_span = (tree.starts[pa], tree.ends[pa])
    beta = [[end, pa_span[1]]] if pa_span[1] > end else []
    alpha = [[pa_span[0], start]] if start > pa_span[0] else []
    if "empty_alpha" in ACTIVE and not any(_is_word(w) for w in tree.leaves[pa_span[0]:start]):
        # Only punctuation before the coordinator in its parent (``( or min )``, ``“ But``): no
        # first conjunct there. After words, the phrase is attached like an adjunct (``English
        # [as well as French]``); at the sentence's start, α is the previous sentence.
        if any(_is_word(w) for w in tree.leaves[:pa_span[0]]):
            return _adjunct_alpha(tree, pa, offset), _shift(beta, offset)
        alpha = []
    if not alpha and "initial_coordinator" in ACTIVE:
        if "initial_rest_beta" in ACTIVE and not any(_is_word(w) for w in tree.leaves[:start]):
            beta = [[end, tree.ends[0]]]  # pa(n) reaches past the keyword, so the sentence does
        return prev, _shift(beta, offset)
    if ("interjection_opening" in ACTIVE and _interjections_only(tree, pa, start)
            and not any(_is_word(w) for w in tree.leaves[:pa_span[0]])):
        # ``Um , but …``: an interjection does not make a first conjunct; it opens β.
        return prev, spans_minus((0, tree.ends[0]), [(start, end)], offset)
    _, after = _conjuncts(tree, pa, start, end)
    if after is not None and "next_conjunct_beta" in ACTIVE:
        beta = [[end, after[1]]]
    if "vp_subject" in ACTIVE and alpha and base_label(tree.labels[pa]) == "VP":
        subject = _subject_clause_start(tree, pa)
        if subject is not None:  # a subject precedes its VP, so it starts before α
            alpha = [[subject, start]]
    if "complementizer_alpha" in ACTIVE and alpha:
        alpha[0][0] = _subordinator_start(tree, pa, alpha[0][0])
    return _shift(alpha, offset), _shift(beta, offset)


def _subordinator_start(tree: ParseTree, pa: int, a0: int) -> int:
    """``that [X and Y]``: where α starts when the clause it starts with has a subordinator
    or relative pronoun of its own (the SBAR's words before the clause), which introduces the
    first conjunct too; else ``a0``."""
    starts, parents = tree.starts, tree.parents
    x = pa
    while parents[x] >= 0 and starts[x] > a0:
        x = parents[x]
    while parents[x] >= 0 and starts[parents[x]] == a0:
        x = parents[x]
    if starts[x] != a0 or base_label(tree.labels[x]) not in _CLAUSES or parents[x] < 0:
        return a0
    up = parents[x]
    if base_label(tree.labels[up]) == "SBAR" and starts[up] < a0:
        return starts[up]
    if a0 > 0:
        before = tree.leaf_parents[a0 - 1]
        if parents[before] == up and base_label(tree.labels[before]) == "IN":
            return a0 - 1
    return a0


def _interjections_only(tree: ParseTree, parent: int, start: int) -> bool:
    """Whether ``parent``'s children before token ``start`` are interjections and punctuation."""
    first = tree.leaf_parents[tree.starts[parent]]
    while tree.parents[first] != parent:
        first = tree.parents[first]
    if base_label(tree.labels[first]) not in ("INTJ", "UH"):
        return False  # the usual case, decided without listing the children
    labels = [base_label(tree.labels[c]) for c in _children(tree, parent) if tree.ends[c] <= start]
    return any(x in ("INTJ", "UH") for x in labels) and all(
        x in ("INTJ", "UH") or x in _SEPARATORS for x in labels)


def _after_coordinator(tree: ParseTree, parent: int, start: int) -> bool:
    """Whether the sister just before the keyword (commas aside) is a coordinator: ``, and then``."""
    last = None
    for c in _children(tree, parent):
        if tree.ends[c] > start:
            break
        if base_label(tree.labels[c]) not in (",", ":"):
            last = c
    return last is not None and base_label(tree.labels[last]) in ("CC", "CONJP")


def _adverbial(tree: ParseTree, pa: int, start: int, end: int, offset: int,
               prev: Ranges) -> tuple[Ranges, Ranges]:
    starts, ends, parents = tree.starts, tree.ends, tree.parents
    # Between two conjuncts (``X , then Y``; ``X , and then Y``) the adverbial links the two.
    before, after = _conjuncts(tree, pa, start, end)
    if before is not None and after is not None and (
            base_label(tree.labels[before]) in _CLAUSES | {"VP"} or _after_coordinator(tree, pa, start)):
        alpha = [[starts[before], ends[before]]]
        if base_label(tree.labels[pa]) == "VP":
            subject = _subject_clause_start(tree, pa)
            if subject is not None:
                alpha = [[subject, ends[before]]]
        return _shift(alpha, offset), spans_minus((ends[before], after[1]), [(start, end)], offset)
    if "vp_conjunct" in ACTIVE:
        # The adverbial's VP is itself a conjunct (``had X , and therefore finished Y``).
        x = pa
        while base_label(tree.labels[x]) == "VP" and parents[x] >= 0:
            before, _ = _conjuncts(tree, parents[x], starts[x], ends[x])
            if before is not None and base_label(tree.labels[before]) == "VP":
                subject = _subject_clause_start(tree, before)
                a0 = starts[before] if subject is None else subject
                return ([[a0 + offset, ends[before] + offset]],
                        spans_minus((ends[before], ends[x]), [(start, end)], offset))
            x = parents[x]
    clause = _clause_at(tree, pa)
    if "adverbial_sbar" in ACTIVE and parents[clause] >= 0 and base_label(
            tree.labels[parents[clause]]) == "SBAR":
        # The clause of a subordinate or relative clause: its subordinator or relative pronoun
        # belongs to β (``, which he then used``).
        clause = parents[clause]
    span = (starts[clause], ends[clause])
    parent = parents[clause]
    if parent >= 0:
        before, _ = _conjuncts(tree, parent, span[0], span[1])
        if before is not None and (base_label(tree.labels[before]) in _CLAUSES or (
                "coordinated_any" in ACTIVE and _after_coordinator(tree, parent, span[0]))):
            # A coordinated clause: the conjunct before it is α; the coordinator joins β.
            return ([[starts[before] + offset, ends[before] + offset]],
                    spans_minus((ends[before], span[1]), [(start, end)], offset))
        if parents[parent] < 0 and "sentence_beta" in ACTIVE:
            # A clause directly under the sentence with no clause before it: the sentence is β.
            return prev, spans_minus((starts[parent], ends[parent]), [(start, end)], offset)
    beta = spans_minus(span, [(start, end)], offset)
    if parent < 0:
        return prev, beta
    outer = _clause_above(tree, clause)
    return spans_minus((starts[outer], ends[outer]), [span], offset), beta


def _adjunct_alpha(tree: ParseTree, pa: int, offset: int,
                   unit: Optional[tuple[int, int]] = None) -> Ranges:
    """α of a subordinate clause or prepositional adjunct ``pa`` (or of the tokens ``unit``
    inside ``pa``): the clause it attaches to, subject included, minus the adjunct;
    parentheticals beside it are left out, and a coordinated conjunct on the way up stops the
    climb."""
    labels, parents, starts, ends = tree.labels, tree.parents, tree.starts, tree.ends
    holes = [unit or (starts[pa], ends[pa])]
    if unit is not None and base_label(labels[pa]) in _CLAUSES:
        return spans_minus((starts[pa], ends[pa]), holes, offset)
    node = pa
    while parents[node] >= 0:
        parent = parents[node]
        kids = _children(tree, parent)
        for c in kids:
            if c == node:
                continue
            if "skip_parentheticals" in ACTIVE and base_label(labels[c]) == "PRN":
                holes.append((starts[c], ends[c]))
        if "conjunct_stop" in ACTIVE and node != pa:
            # ``X and [Y because Z]``: α is the conjunct with its coordinator, not X too.
            prior = [c for c in kids if ends[c] <= starts[node]
                     and base_label(labels[c]) not in (",", ":")]
            if len(prior) > 1 and base_label(labels[prior[-1]]) in ("CC", "CONJP"):
                return spans_minus((starts[prior[-1]], ends[node]), holes, offset)
        if base_label(labels[parent]) in _CLAUSES and not (
                "subjectless_clause" in ACTIVE and _subjectless(tree, parent)):
            node = parent
            break
        node = parent
    a0 = starts[node]
    if "adjunct_complementizer" in ACTIVE:
        a0 = _subordinator_start(tree, node, a0)
    if "conjunct_coordinator" in ACTIVE and parents[node] >= 0 and a0 == starts[node]:
        # ``X , and [when Y , Z]``: the conjunct's coordinator opens α, as ``conjunct_stop`` has it.
        prior = [c for c in _children(tree, parents[node]) if ends[c] <= starts[node]
                 and base_label(labels[c]) not in (",", ":")]
        if len(prior) > 1 and base_label(labels[prior[-1]]) in ("CC", "CONJP"):
            a0 = starts[prior[-1]]
    return spans_minus((a0, ends[node]), holes, offset)


def _subjectless(tree: ParseTree, clause: int) -> bool:
    """Whether ``clause`` is an infinitive with no subject (``to dance``): a complement of the
    clause above it, which the argument takes in; the root never counts."""
    if tree.parents[clause] < 0 or base_label(tree.labels[clause]) != "S":
        return False
    for c in _children(tree, clause):
        label = base_label(tree.labels[c])
        if label == "VP":
            return base_label(tree.labels[tree.leaf_parents[tree.starts[c]]]) == "TO"
        if label in ("NP", "SBAR") or label in _CLAUSES:
            return False
    return False


def map_default(tree: ParseTree, pa: int, start: int, end: int, category: str, offset: int,
                previous: Optional[tuple[int, int]]) -> Optional[tuple[Ranges, Ranges]]:
    """(alpha, beta) of a binary keyword occurrence at tokens [start, end) under ``pa`` (>= 0),
    or None where no rule applies and Algorithm 1 stands. Same range conventions as
    ``mapping.map_keyword``."""
    prev = [list(previous)] if previous else []
    if category == INTRINSIC:
        return _coordinator(tree, pa, start, end, offset, prev)
    if base_label(tree.labels[pa]) in _HEADED:
        if "adjunct_clause" not in ACTIVE or tree.parents[pa] < 0:
            return None
        pa_span = (tree.starts[pa], tree.ends[pa])
        return _adjunct_alpha(tree, pa, offset), spans_minus(pa_span, [(start, end)], offset)
    unit = _flat_adjunct(tree, pa, start, end)
    if unit is not None:
        return _adjunct_alpha(tree, pa, offset, unit), spans_minus(unit, [(start, end)], offset)
    if "adverbial_clause" not in ACTIVE or (
            "adverbs_only" in ACTIVE and _is_subordinator(tree, pa, start, end)):
        return None
    return _adverbial(tree, pa, start, end, offset, prev)


def _is_subordinator(tree: ParseTree, pa: int, start: int, end: int) -> bool:
    """Prepositions and subordinators are tagged IN or WRB (``however`` is WRB too, but an
    adverbial); a key phrase that is a whole phrase of its own (``(PP (IN on) (NP the other
    hand))``) is an adverbial whatever its first word."""
    if "phrase_adverbial" in ACTIVE and end - start > 1 and any(
            tree.starts[c] == start and tree.ends[c] == end for c in _children(tree, pa)):
        return False
    return (base_label(tree.labels[tree.leaf_parents[start]]) in ("IN", "WRB")
            and tree.leaves[start].lower() != "however")


def _flat_adjunct(tree: ParseTree, pa: int, start: int, end: int) -> Optional[tuple[int, int]]:
    """A subordinator or preposition that a parser left beside its clause instead of heading it
    (``(NP … (IN in) (S being …))``): the keyword and the constituent after it."""
    # A phrase that ends where its clause's own head begins (``(ADVP as soon) (SBAR (IN as) S)``).
    head = tree.parents[tree.leaf_parents[end - 1]]
    if ("split_keyword" in ACTIVE and end - start > 1 and head >= 0 and tree.starts[head] == end - 1
            and base_label(tree.labels[head]) in _HEADED):
        return start, tree.ends[head]
    if "flat_adjunct" not in ACTIVE or not _is_subordinator(tree, pa, start, end):
        return None
    for c in _children(tree, pa):
        if tree.starts[c] >= end and base_label(tree.labels[c]) not in _SEPARATORS:
            if base_label(tree.labels[c]) in _CLAUSES | {"SBAR"}:
                return start, tree.ends[c]
            return None
    return None
