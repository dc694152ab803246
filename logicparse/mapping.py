"""Logic detection and mapping (paper section 3, Algorithm 1) and per-token layered labels (4.1-4.2).

Detection. A keyword is found on the sentence's tokens, case-insensitively, longest phrase first
(``as well as`` before ``as well`` before ``as``). Every single token is a constituent (its
preterminal), so for one-word keywords this is exactly the paper's "constituent whose string equals a
keyword". The keyword node n is the highest node whose span is exactly the keyword's tokens (a unary
chain such as ``(ADVP (RB however))`` counts as one node; otherwise pa(n) would add nothing).

A multi-word keyword that is not a single constituent (``in order to`` is usually split across
``(IN in) (NN order) (S (VP (TO to) ...))``) is kept as a virtual node made of its tokens, whose
parent pa(n) is the lowest constituent that covers all of them; its depth is that parent's plus one.

Mapping, exactly as Algorithm 1 (spans are token ranges; set difference can leave two pieces):
  unary      alpha = pa(n) \\ n
  intrinsic  pa(n) = A + n + B; alpha = A, beta = B
  extrinsic  alpha = pa(pa(n)) \\ pa(n), beta = pa(n) \\ n; when pa(n) is the sentence root,
             alpha = the previous sentence, or nothing for the first sentence.
A keyword that is the whole sentence (``No.``) has no pa(n): its spans are empty.

``mapping="paper"`` is Algorithm 1 as above; ``mapping="default"`` widens binary relations' spans
to the arguments GDTB annotates (arguments.py). Unary relations map the same under both.
"""

from __future__ import annotations

from typing import NamedTuple, Optional, Sequence

from .arguments import Ranges, map_default, map_unary, spans_minus
from .errors import Errors, OptionError
from .taxonomy import EXTRINSIC, INTRINSIC, LABEL_IDS, UNARY, Keyword, keywords
from .tokens import Relation
from .trees import ParseTree

#: Mapping names: "default" (the rules of arguments.py, measured better on GDTB), "paper"
#: (Algorithm 1) and "learned" (the rules' spans or a better candidate, argument_model.py).
MAPPINGS = ("default", "paper", "learned")
DEFAULT_MAPPING = "default"

#: Most labels one token lists. Every keyword above a token adds one, so nested keywords
#: (``if if if ... .``: 299 in one sentence) made the labels quadratic in the sentence's length
#: (332 KB of answer for 933 bytes of text). The most seen on 273,765 tokens of gold trees
#: (GDTB, WSJ section 22, GUM dev) is 11; models read the first K (3 by default).
MAX_TOKEN_LABELS = 16


def check_mapping(mapping: str) -> str:
    """``mapping`` if it names a mapping, else OptionError (a ValueError) naming the choices."""
    if mapping not in MAPPINGS:
        raise OptionError(Errors.E023.format(name=mapping, opts=", ".join(MAPPINGS)))
    return mapping


class Match(NamedTuple):
    start: int  # sentence-level token index
    end: int
    keyword: Keyword


def _index(extended: bool = False) -> dict[str, list[Keyword]]:
    by_first: dict[str, list[Keyword]] = {}
    for kw in keywords(extended).values():
        by_first.setdefault(kw.words[0], []).append(kw)
    for lst in by_first.values():
        lst.sort(key=lambda k: -len(k.words))
    return by_first


_BY_FIRST = _index()
_BY_FIRST_EXTENDED = _index(extended=True)  # with the default annotator's extensions


def find_keywords(tokens: Sequence[str], extended: bool = False) -> list[Match]:
    """Non-overlapping keyword occurrences, left to right, longest phrase first; ``extended``:
    the paper's lists with the default annotator's extensions (taxonomy._EXTENSIONS)."""
    index = _BY_FIRST_EXTENDED if extended else _BY_FIRST
    lower = [t.lower() for t in tokens]
    out: list[Match] = []
    i, n = 0, len(lower)
    while i < n:
        cands = index.get(lower[i])
        if cands:
            for kw in cands:
                m = len(kw.words)
                if m == 1 or tuple(lower[i:i + m]) == kw.words:
                    out.append(Match(i, i + m, kw))
                    i += m
                    break
            else:
                i += 1
        else:
            i += 1
    return out


def keyword_node(tree: ParseTree, start: int, end: int) -> tuple[int, int, int]:
    """(n, pa(n), depth of n) for the keyword tokens [start, end); n = -1 for a virtual node,
    pa(n) = -1 when n is the root."""
    starts, ends, parents = tree.starts, tree.ends, tree.parents
    node = tree.leaf_parents[start]
    best = node if ends[node] == end else -1
    # Climb while the span still begins at `start`; remember the highest node spanning exactly.
    while parents[node] >= 0 and starts[parents[node]] == start and ends[parents[node]] <= end:
        node = parents[node]
        if ends[node] == end:
            best = node
    if best >= 0:
        return best, parents[best], tree.depths[best]
    # Not one constituent: the lowest node covering all the keyword's tokens is pa(n).
    while starts[node] > start or ends[node] < end:
        node = parents[node]
    return -1, node, tree.depths[node] + 1


def map_keyword(tree: ParseTree, start: int, end: int, category: str, offset: int,
                previous: Optional[tuple[int, int]], mapping: str = DEFAULT_MAPPING
                ) -> tuple[int, Ranges, Ranges]:
    """Map one keyword occurrence. Returns (depth, alpha, beta) as document-level ranges;
    ``offset`` is the sentence's first token in the document, ``previous`` the previous
    sentence's document-level range (None for the first sentence). ``mapping``: "paper" for
    Algorithm 1 exactly, "default" for the wider arguments of arguments.py."""
    _, pa, depth = keyword_node(tree, start, end)
    if pa >= 0 and category != UNARY and mapping == "default":
        spans = map_default(tree, pa, start, end, category, offset, previous)
        if spans is not None:
            return (depth, *spans)
    if pa < 0:
        # The keyword is the whole sentence; a coordinator (``But.``) still links it to the
        # previous sentence under the default mapping, as it does at the start of a sentence.
        linked = category == EXTRINSIC or (category == INTRINSIC and mapping == "default")
        alpha = [list(previous)] if linked and previous else []
        return depth, alpha, []
    pa_span = (tree.starts[pa], tree.ends[pa])
    if category == UNARY:
        alpha = map_unary(tree, pa, start, end, offset) if mapping == "default" else None
        return depth, alpha or spans_minus(pa_span, [(start, end)], offset), []
    if category == INTRINSIC:
        alpha = [[pa_span[0] + offset, start + offset]] if start > pa_span[0] else []
        beta = [[end + offset, pa_span[1] + offset]] if pa_span[1] > end else []
        return depth, alpha, beta
    beta = spans_minus(pa_span, [(start, end)], offset)
    gp = tree.parents[pa]
    if gp >= 0:
        alpha = spans_minus((tree.starts[gp], tree.ends[gp]), [pa_span], offset)
    else:
        alpha = [list(previous)] if previous else []
    return depth, alpha, beta


def layer_labels(n_tokens: int, relations: Sequence[Relation],
                 max_labels: int = MAX_TOKEN_LABELS) -> list[list[int]]:
    """Per token, the label ids of the relations covering it, shallowest keyword first, ties by
    keyword position, at most ``max_labels`` of them (the shallowest); [] for a token with no
    association."""
    logic: list[list[int]] = [[] for _ in range(n_tokens)]
    for rel in sorted(relations, key=lambda r: (r.depth, r.key)):
        for role in ("key", "alpha", "beta"):
            ranges = getattr(rel, role)
            if not ranges:
                continue
            label = LABEL_IDS[f"{rel.relation}:{role}"]
            for a, b in ranges:
                for t in range(a, b):
                    if len(logic[t]) < max_labels:
                        logic[t].append(label)
    return logic
