"""Where the α of an adjunct stops: the clause a subordinate clause or prepositional adjunct
attaches to, found by climbing the tree from the adjunct, and what of that clause is left out.

Used by the default mapping (arguments.py) for subordinators and prepositions, and for the
coordinators whose α is found the same way. Each condition belongs to a rule of
``arguments.RULES``; the caller passes the set of rules in force (``active``), so that the
ablation benchmark and the tests can switch one off.
"""

from __future__ import annotations

from typing import AbstractSet, NamedTuple, Optional

from .constituents import (CLAUSES, SEPARATORS, Ranges, base_label, children, is_word, shift,
                           spans_minus)
from .trees import ParseTree

# Words that open a complement clause as often as an adverbial one (``said that``, ``ask if``,
# ``whether``): a clause they open is not an adjunct of its own.
_COMPLEMENTIZERS = frozenset({"that", "whether", "if"})


class Climb(NamedTuple):
    """The clause an adjunct attaches to: tokens [start, end), less the ``holes`` (the
    adjunct's own tokens not among them); ``conjuncts``: the holes of later conjuncts."""
    start: int
    end: int
    holes: list[tuple[int, int]]
    conjuncts: list[tuple[int, int]]


def adjunct_alpha(tree: ParseTree, pa: int, offset: int, active: AbstractSet[str],
                  unit: Optional[tuple[int, int]] = None) -> Ranges:
    """α of a subordinate clause or prepositional adjunct ``pa`` (or of the tokens ``unit``
    inside ``pa``): the clause it attaches to, subject included, minus the adjunct."""
    own = unit or (tree.starts[pa], tree.ends[pa])
    climb = climb_to_clause(tree, pa, active, unit)
    alpha = spans_minus((climb.start, climb.end), [own] + climb.holes, 0)
    if climb.conjuncts and not any(is_word(tree.leaves[t]) for a, b in alpha for t in range(a, b)):
        # Nothing but the adjunct before the coordinator (``When he will , and whom he will``):
        # the later conjunct is all there is to attach to.
        rest = [h for h in climb.holes if h not in climb.conjuncts]
        alpha = spans_minus((climb.start, climb.end), [own] + rest, 0)
    return shift(alpha, offset)


def climb_to_clause(tree: ParseTree, pa: int, active: AbstractSet[str],
                    unit: Optional[tuple[int, int]] = None) -> Climb:
    """Climb from ``pa`` to the clause it attaches to; parentheticals beside the way, adverbial
    clauses after it and conjuncts coordinated after it are holes; a coordinated conjunct on the
    way up stops the climb."""
    labels, parents, starts, ends = tree.labels, tree.parents, tree.starts, tree.ends
    holes: list[tuple[int, int]] = []
    conjuncts: list[tuple[int, int]] = []
    if unit is not None and base_label(labels[pa]) in CLAUSES:
        return Climb(starts[pa], ends[pa], holes, conjuncts)
    node = pa
    while parents[node] >= 0:
        parent = parents[node]
        kids = children(tree, parent)
        for c in kids:
            if c == node:
                continue
            if "skip_parentheticals" in active and base_label(labels[c]) == "PRN":
                holes.append((starts[c], ends[c]))
            if "adjunct_sisters" in active and starts[c] >= ends[node] and _adverbial_clause(tree, c):
                # ``Take it after meals , unless …``: another adverbial clause is not this one's α.
                holes.append((starts[c], ends[c]))
        if "conjunct_end" in active and _conjunct_before(tree, kids, node, node == pa):
            # ``[Stir until it thickens] , but …``: the conjuncts after it are not its α.
            conjuncts.append((ends[node], ends[parent]))
            holes.append(conjuncts[-1])
        if "conjunct_stop" in active and node != pa:
            # ``X and [Y because Z]``: α is the conjunct with its coordinator, not X too.
            prior = [c for c in kids if ends[c] <= starts[node]
                     and base_label(labels[c]) not in (",", ":")]
            if len(prior) > 1 and base_label(labels[prior[-1]]) in ("CC", "CONJP"):
                return Climb(starts[prior[-1]], ends[node], holes, conjuncts)
        if base_label(labels[parent]) in CLAUSES and not (
                "subjectless_clause" in active and _subjectless(tree, parent)):
            node = parent
            break
        node = parent
    a0 = starts[node]
    if "adjunct_complementizer" in active:
        a0 = subordinator_start(tree, node, a0)
    if "conjunct_coordinator" in active and parents[node] >= 0 and a0 == starts[node]:
        # ``X , and [when Y , Z]``: the conjunct's coordinator opens α, as ``conjunct_stop`` has it.
        prior = [c for c in children(tree, parents[node]) if ends[c] <= starts[node]
                 and base_label(labels[c]) not in (",", ":")]
        if len(prior) > 1 and base_label(labels[prior[-1]]) in ("CC", "CONJP"):
            a0 = starts[prior[-1]]
    return Climb(a0, ends[node], holes, conjuncts)


def _adverbial_clause(tree: ParseTree, node: int) -> bool:
    """Whether ``node`` is a subordinate clause opened by a subordinator (``unless …``,
    ``because …``, ``when …``), not by a complementizer."""
    if base_label(tree.labels[node]) != "SBAR":
        return False
    first = tree.starts[node]
    return (base_label(tree.labels[tree.leaf_parents[first]]) in ("IN", "WRB")
            and tree.leaves[first].lower() not in _COMPLEMENTIZERS)


def _conjunct_before(tree: ParseTree, kids: list[int], node: int, is_adjunct: bool) -> bool:
    """Whether ``node`` is a conjunct that another follows among ``kids``: a coordinator comes
    next (commas aside), or, for a VP or clause, one of the same label (``X , then Y``). The
    adjunct itself, directly under a clause, counts only after words of that clause: opening it,
    it modifies what the coordinator joins (``When X , Y and Z``)."""
    label = base_label(tree.labels[node])
    if label not in CLAUSES | {"VP", "SBAR", "PP"}:
        return False
    if is_adjunct and base_label(tree.labels[tree.parents[node]]) in CLAUSES:
        if not any(tree.ends[c] <= tree.starts[node] and base_label(tree.labels[c]) not in SEPARATORS
                   for c in kids):
            return False
    for c in kids:
        if tree.starts[c] < tree.ends[node]:
            continue
        after = base_label(tree.labels[c])
        if after in ("CC", "CONJP"):
            return True
        if after in (",", ":", "ADVP"):
            continue
        return after == label and label in CLAUSES | {"VP"}
    return False


def subordinator_start(tree: ParseTree, pa: int, a0: int) -> int:
    """``that [X and Y]``: where α starts when the clause it starts with has a subordinator
    or relative pronoun of its own (the SBAR's words before the clause), which introduces the
    first conjunct too; else ``a0``."""
    starts, parents = tree.starts, tree.parents
    x = pa
    while parents[x] >= 0 and starts[x] > a0:
        x = parents[x]
    while parents[x] >= 0 and starts[parents[x]] == a0:
        x = parents[x]
    if starts[x] != a0 or base_label(tree.labels[x]) not in CLAUSES or parents[x] < 0:
        return a0
    up = parents[x]
    if base_label(tree.labels[up]) == "SBAR" and starts[up] < a0:
        return starts[up]
    if a0 > 0:
        before = tree.leaf_parents[a0 - 1]
        if parents[before] == up and base_label(tree.labels[before]) == "IN":
            return a0 - 1
    return a0


def _subjectless(tree: ParseTree, clause: int) -> bool:
    """Whether ``clause`` is an infinitive with no subject (``to dance``): a complement of the
    clause above it, which the argument takes in; the root never counts."""
    if tree.parents[clause] < 0 or base_label(tree.labels[clause]) != "S":
        return False
    for c in children(tree, clause):
        label = base_label(tree.labels[c])
        if label == "VP":
            return base_label(tree.labels[tree.leaf_parents[tree.starts[c]]]) == "TO"
        if label in ("NP", "SBAR") or label in CLAUSES:
            return False
    return False


def predicate_after(tree: ParseTree, pa: int, first: int, end: int) -> bool:
    """``Stir [until it thickens , but do not let it boil]``: whether the conjunct before a
    coordinator (``first``, ending before token ``end``) is no VP while the one after is a
    finite or bare VP, a predicate that the parser coordinated too low. A gerund or infinitive
    after (``in [preserving X , in achieving Y and upholding Z]``) is a conjunct of the phrase."""
    if base_label(tree.labels[first]) == "VP":
        return False
    for c in children(tree, pa):
        if tree.starts[c] >= end and base_label(tree.labels[c]) not in SEPARATORS:
            head = base_label(tree.labels[tree.leaf_parents[tree.starts[c]]])
            return base_label(tree.labels[c]) == "VP" and head not in ("VBG", "TO")
    return False
