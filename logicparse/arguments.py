"""The default α/β mapping: Algorithm 1's spans widened to the arguments a reader means.

Algorithm 1 (``mapping="paper"``, see mapping.py) takes α from the keyword's grandparent, which
leaves it short wherever the keyword's constituent attaches below the clause: for ``I try hard
because it is easy`` α is the VP without its subject. The rules below keep the paper's definitions
(α the other argument, β the keyword's own; unary relations keep Algorithm 1's one span) and pick
the constituents the way discourse treebanks (PDTB, GDTB) draw arguments. Each rule has a name in
``RULES``; docs/mapping.md gives the GDTB figures with and without each. Where an adjunct's α
stops (the climb to its clause, and what is left out of it) is in adjuncts.py.

Function tags (``SBAR-ADV``, ``NP-SBJ``) are ignored, so gold treebank trees and parser trees are
read alike.
"""

from __future__ import annotations

from typing import Optional

from .adjuncts import adjunct_alpha, climb_to_clause, predicate_after, subordinator_start
from .constituents import (CLAUSES, COORDINATORS, HEADED, SEPARATORS, Ranges, base_label, children,
                           clause_above, clause_at, conjuncts, is_word, shift, spans_minus,
                           trim_punct)
from .taxonomy import INTRINSIC
from .trees import ParseTree

__all__ = ["ACTIVE", "RULES", "Ranges", "base_label", "map_default", "map_unary", "spans_minus"]

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
    "flat_preposition",  # ... or inside a flat phrase: the keyword and the rest of that phrase
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
    "conjunct_end",  # an adjunct's α stops before a conjunct coordinated after its own
    "adjunct_sisters",  # ... and leaves out an adverbial clause after it (``…, unless …``)
    "predicate_coordination",  # a VP coordinated after a non-VP: α = its clause up to the coordinator
    "headed_phrase",  # a subordinator heading an ADVP/ADJP with a clause (``though preliminary``)
    "opening_adjunct",  # an adverbial with no previous sentence: α = the sentence's opening adjunct
    "determiner_negation",  # a negating determiner (``Neither party …``): α = its clause, not its NP
)
#: Rules in force; the ablation benchmark switches them off one at a time.
ACTIVE = set(RULES)


def _subject_clause_start(tree: ParseTree, vp: int) -> Optional[int]:
    """Start of the clause whose predicate is VP ``vp`` (through a chain of VPs), when that
    clause has a subject before it; else None (a reduced relative, an imperative, a bare VP)."""
    labels, parents = tree.labels, tree.parents
    top = vp
    while parents[top] >= 0 and base_label(labels[parents[top]]) == "VP":
        top = parents[top]
    clause = parents[top]
    if clause < 0 or base_label(labels[clause]) not in CLAUSES:
        return None
    for c in children(tree, clause):
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
    if "empty_alpha" in ACTIVE and not any(is_word(w) for w in tree.leaves[pa_span[0]:start]):
        # Only punctuation before the coordinator in its parent (``( or min )``, ``“ But``): no
        # first conjunct there. After words, the phrase is attached like an adjunct (``English
        # [as well as French]``); at the sentence's start, α is the previous sentence.
        if any(is_word(w) for w in tree.leaves[:pa_span[0]]):
            return adjunct_alpha(tree, pa, offset, ACTIVE), shift(beta, offset)
        alpha = []
    if not alpha and "initial_coordinator" in ACTIVE:
        if "initial_rest_beta" in ACTIVE and not any(is_word(w) for w in tree.leaves[:start]):
            beta = [[end, tree.ends[0]]]  # pa(n) reaches past the keyword, so the sentence does
        return prev, shift(beta, offset)
    if ("interjection_opening" in ACTIVE and _interjections_only(tree, pa, start)
            and not any(is_word(w) for w in tree.leaves[:pa_span[0]])):
        # ``Um , but …``: an interjection does not make a first conjunct; it opens β.
        return prev, spans_minus((0, tree.ends[0]), [(start, end)], offset)
    first, after = conjuncts(tree, pa, start, end)
    if after is not None and "next_conjunct_beta" in ACTIVE:
        beta = [[end, after[1]]]
    if ("predicate_coordination" in ACTIVE and first is not None
            and predicate_after(tree, pa, first, end)):
        # ``Stir the sauce [until it thickens , but do not let it boil]``: the VP is coordinated
        # with the predicate the phrase belongs to, so α is that clause up to the coordinator.
        a0 = climb_to_clause(tree, pa, ACTIVE).start
        if a0 < tree.starts[first]:
            return [[a0 + offset, start + offset]], shift(beta, offset)
    if "vp_subject" in ACTIVE and alpha and base_label(tree.labels[pa]) == "VP":
        subject = _subject_clause_start(tree, pa)
        if subject is not None:  # a subject precedes its VP, so it starts before α
            alpha = [[subject, start]]
    if "complementizer_alpha" in ACTIVE and alpha:
        alpha[0][0] = subordinator_start(tree, pa, alpha[0][0])
    return shift(alpha, offset), shift(beta, offset)


def _interjections_only(tree: ParseTree, parent: int, start: int) -> bool:
    """Whether ``parent``'s children before token ``start`` are interjections and punctuation."""
    first = tree.leaf_parents[tree.starts[parent]]
    while tree.parents[first] != parent:
        first = tree.parents[first]
    if base_label(tree.labels[first]) not in ("INTJ", "UH"):
        return False  # the usual case, decided without listing the children
    labels = [base_label(tree.labels[c]) for c in children(tree, parent) if tree.ends[c] <= start]
    return any(x in ("INTJ", "UH") for x in labels) and all(
        x in ("INTJ", "UH") or x in SEPARATORS for x in labels)


def _after_coordinator(tree: ParseTree, parent: int, start: int) -> bool:
    """Whether the sister just before the keyword (commas aside) is a coordinator: ``, and then``."""
    last = None
    for c in children(tree, parent):
        if tree.ends[c] > start:
            break
        if base_label(tree.labels[c]) not in (",", ":"):
            last = c
    return last is not None and base_label(tree.labels[last]) in COORDINATORS


def _adverbial(tree: ParseTree, pa: int, start: int, end: int, offset: int,
               prev: Ranges) -> tuple[Ranges, Ranges]:
    starts, ends, parents = tree.starts, tree.ends, tree.parents
    # Between two conjuncts (``X , then Y``; ``X , and then Y``) the adverbial links the two.
    before, after = conjuncts(tree, pa, start, end)
    if before is not None and after is not None and (
            base_label(tree.labels[before]) in CLAUSES | {"VP"} or _after_coordinator(tree, pa, start)):
        alpha = [[starts[before], ends[before]]]
        if base_label(tree.labels[pa]) == "VP":
            subject = _subject_clause_start(tree, pa)
            if subject is not None:
                alpha = [[subject, ends[before]]]
        return shift(alpha, offset), spans_minus((ends[before], after[1]), [(start, end)], offset)
    if "vp_conjunct" in ACTIVE:
        # The adverbial's VP is itself a conjunct (``had X , and therefore finished Y``).
        x = pa
        while base_label(tree.labels[x]) == "VP" and parents[x] >= 0:
            before, _ = conjuncts(tree, parents[x], starts[x], ends[x])
            if before is not None and base_label(tree.labels[before]) == "VP":
                subject = _subject_clause_start(tree, before)
                a0 = starts[before] if subject is None else subject
                return ([[a0 + offset, ends[before] + offset]],
                        spans_minus((ends[before], ends[x]), [(start, end)], offset))
            x = parents[x]
    clause = clause_at(tree, pa)
    if "adverbial_sbar" in ACTIVE and parents[clause] >= 0 and base_label(
            tree.labels[parents[clause]]) == "SBAR":
        # The clause of a subordinate or relative clause: its subordinator or relative pronoun
        # belongs to β (``, which he then used``).
        clause = parents[clause]
    span = (starts[clause], ends[clause])
    parent = parents[clause]
    if parent >= 0:
        before, _ = conjuncts(tree, parent, span[0], span[1])
        if before is not None and (base_label(tree.labels[before]) in CLAUSES or (
                "coordinated_any" in ACTIVE and _after_coordinator(tree, parent, span[0]))):
            # A coordinated clause: the conjunct before it is α; the coordinator joins β.
            return ([[starts[before] + offset, ends[before] + offset]],
                    spans_minus((ends[before], span[1]), [(start, end)], offset))
        if parents[parent] < 0 and "sentence_beta" in ACTIVE:
            # A clause directly under the sentence with no clause before it: the sentence is β.
            span = (starts[parent], ends[parent])
            return _opening_adjunct(tree, clause, span, start, end, offset, prev) or (
                prev, spans_minus(span, [(start, end)], offset))
    if parent < 0:
        return _opening_adjunct(tree, clause, span, start, end, offset, prev) or (
            prev, spans_minus(span, [(start, end)], offset))
    beta = spans_minus(span, [(start, end)], offset)
    outer = clause_above(tree, clause)
    return spans_minus((starts[outer], ends[outer]), [span], offset), beta


def _opening_adjunct(tree: ParseTree, clause: int, span: tuple[int, int], start: int, end: int,
                     offset: int, prev: Ranges) -> Optional[tuple[Ranges, Ranges]]:
    """With no previous sentence, an adverbial whose clause opens with an adjunct set off by a
    comma (``As the temperature increases , the rate also increases``): α = that adjunct, β =
    the rest of ``span``; None otherwise. (With a previous sentence, GDTB takes that as α.) In a
    fragment (FRAG: chat's run-on ``same here , also the app crashes``) any opening phrase set off
    by a comma counts, whatever its label."""
    if prev or "opening_adjunct" not in ACTIVE:
        return None
    fragment = base_label(tree.labels[clause]) == "FRAG"
    for c in children(tree, clause):
        label = base_label(tree.labels[c])
        if label in SEPARATORS:
            continue
        e = tree.ends[c]
        if e <= start and e < len(tree.leaves) and tree.leaves[e] == "," and (fragment or (
                label in HEADED
                and base_label(tree.labels[tree.leaf_parents[tree.starts[c]]]) in ("IN", "WRB"))):
            adjunct = (tree.starts[c], e)
            return shift([list(adjunct)], offset), spans_minus(span, [adjunct, (start, end)], offset)
        return None
    return None


def map_unary(tree: ParseTree, pa: int, start: int, end: int, offset: int) -> Optional[Ranges]:
    """α of a unary keyword where the default mapping departs from Algorithm 1, else None: a
    negating determiner (``Neither party shall assign …``, ``He has no money``) negates its
    clause, not only the rest of its noun phrase (Algorithm 1: ``party``, ``money``); the clause
    without the punctuation at its ends, as ``punct_edges`` trims binary arguments."""
    if ("determiner_negation" not in ACTIVE or end - start != 1
            or base_label(tree.labels[tree.leaf_parents[start]]) != "DT"
            or base_label(tree.labels[pa]) != "NP"):
        return None
    clause = clause_at(tree, pa)
    trimmed = trim_punct(tree.leaves, [[tree.starts[clause], tree.ends[clause]]])
    return spans_minus(tuple(trimmed[0]), [(start, end)], offset) if trimmed else None


def map_default(tree: ParseTree, pa: int, start: int, end: int, category: str, offset: int,
                previous: Optional[tuple[int, int]]) -> Optional[tuple[Ranges, Ranges]]:
    """(alpha, beta) of a binary keyword occurrence at tokens [start, end) under ``pa`` (>= 0),
    or None where no rule applies and Algorithm 1 stands. Same range conventions as
    ``mapping.map_keyword``."""
    prev = [list(previous)] if previous else []
    if category == INTRINSIC:
        return _coordinator(tree, pa, start, end, offset, prev)
    if base_label(tree.labels[pa]) in HEADED:
        if "adjunct_clause" not in ACTIVE or tree.parents[pa] < 0:
            return None
        pa_span = (tree.starts[pa], tree.ends[pa])
        return adjunct_alpha(tree, pa, offset, ACTIVE), spans_minus(pa_span, [(start, end)], offset)
    if "headed_phrase" in ACTIVE and _heads_phrase(tree, pa, start, end):
        pa_span = (tree.starts[pa], tree.ends[pa])
        return adjunct_alpha(tree, pa, offset, ACTIVE), spans_minus(pa_span, [(start, end)], offset)
    unit = _flat_adjunct(tree, pa, start, end)
    if unit is not None:
        return adjunct_alpha(tree, pa, offset, ACTIVE, unit), spans_minus(unit, [(start, end)], offset)
    if "adverbial_clause" not in ACTIVE or (
            "adverbs_only" in ACTIVE and _is_subordinator(tree, pa, start, end)):
        return None
    return _adverbial(tree, pa, start, end, offset, prev)


def _is_subordinator(tree: ParseTree, pa: int, start: int, end: int) -> bool:
    """Prepositions and subordinators are tagged IN or WRB (``however`` is WRB too, but an
    adverbial); a key phrase that is a whole phrase of its own (``(PP (IN on) (NP the other
    hand))``) is an adverbial whatever its first word."""
    if "phrase_adverbial" in ACTIVE and end - start > 1 and any(
            tree.starts[c] == start and tree.ends[c] == end for c in children(tree, pa)):
        return False
    return (base_label(tree.labels[tree.leaf_parents[start]]) in ("IN", "WRB")
            and tree.leaves[start].lower() != "however")


def _flat_adjunct(tree: ParseTree, pa: int, start: int, end: int) -> Optional[tuple[int, int]]:
    """A subordinator or preposition that a parser left beside its clause instead of heading it
    (``(NP … (IN in) (S being …))``): the keyword and that clause; or, in a flat phrase with words
    on both sides of the keyword, the keyword and the rest of that phrase."""
    # A phrase that ends where its clause's own head begins (``(ADVP as soon) (SBAR (IN as) S)``).
    head = tree.parents[tree.leaf_parents[end - 1]]
    if ("split_keyword" in ACTIVE and end - start > 1 and head >= 0 and tree.starts[head] == end - 1
            and base_label(tree.labels[head]) in HEADED):
        return start, tree.ends[head]
    if not _is_subordinator(tree, pa, start, end):
        return None
    for c in children(tree, pa):
        if tree.starts[c] >= end and base_label(tree.labels[c]) not in SEPARATORS:
            if "flat_adjunct" in ACTIVE and base_label(tree.labels[c]) in CLAUSES | {"SBAR"}:
                return start, tree.ends[c]
            break
    # A flat phrase (``(VP have n't (VP made it out … (IN before) (NP 9 PM) …))``): Algorithm 1
    # would make the whole phrase but the keyword β, and α the auxiliaries above it.
    if ("flat_preposition" in ACTIVE
            and any(is_word(w) for w in tree.leaves[tree.starts[pa]:start])
            and any(is_word(w) for w in tree.leaves[end:tree.ends[pa]])):
        return start, tree.ends[pa]
    return None


def _heads_phrase(tree: ParseTree, pa: int, start: int, end: int) -> bool:
    """``The results , [ADVP though [S preliminary]] , suggest …``: a keyword that opens an ADVP
    or ADJP with a clause or predicate after it heads a reduced clause, an adjunct as an SBAR is
    (an adverb's ADVP holds no clause)."""
    if tree.starts[pa] != start or tree.parents[pa] < 0 or base_label(tree.labels[pa]) not in (
            "ADVP", "ADJP"):
        return False
    for c in children(tree, pa):
        if tree.starts[c] >= end and base_label(tree.labels[c]) not in SEPARATORS:
            return base_label(tree.labels[c]) in CLAUSES | {"SBAR", "ADJP", "VP"}
    return False
