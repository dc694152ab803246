"""The learned α/β choice's candidates and their features (argument_model.py scores them).

For each binary relation the rules of arguments.py have mapped, candidate spans are drawn from the
tree: for β the keyword's ancestors without the keyword, or what follows it (up to each later
sister); for α each ancestor's part before the keyword, the ancestor without the keyword's branch,
its other children (and those children without one of theirs), and each of the two sentences
before, whole; the part before the keyword, its branch's sisters, the ancestor without the branch
and β's keyword-less ancestors also with the coordinator or subordinator before them. The rules'
span and Algorithm 1's are candidates too; none made of the keyword's own tokens only. A
candidate's features: its position and size, the tags at its edges, its agreement with the rules'
span, and the keyword, relation and tree labels. Token sets leave punctuation out (as the GDTB
scorer does).
"""

from __future__ import annotations

from typing import Sequence

from .constituents import CLAUSES, COORDINATORS, PHRASES, base_label, is_punct
from .mapping import keyword_node, map_keyword
from .taxonomy import UNARY
from .trees import ParseTree

#: Names of the categorical features, in order; the numeric ones follow them.
CATEGORICAL = ("op", "label", "keyword", "relation", "category", "keyword_label", "parent_label",
               "variant", "relation_op", "first_tag", "last_tag", "tag_before", "tag_after")
UNKNOWN = 250  # the code of a category not seen in training
SAYING = frozenset({"said", "says", "say", "told", "according", "added", "noted", "reported",
                    "explained", "argued", "claimed", "think", "believe", "thinks", "believes",
                    "know", "mean", "guess"})


def _ancestors(tree: ParseTree, node: int) -> list[int]:
    out = []
    while node >= 0:
        out.append(node)
        node = tree.parents[node]
    return out


def _tag(tree: ParseTree, i: int) -> str:
    return base_label(tree.labels[tree.leaf_parents[i]])


# A candidate's tokens are drawn as pieces, sorted ranges (a, b) (a node's span without another's
# is at most two), and become rows of a boolean matrix: sets of Python ints took most of the
# choice's time in long sentences.
def _range(a: int, b: int) -> tuple:
    return ((a, b),) if a < b else ()


def _minus(a: int, b: int, x: int, y: int) -> tuple:
    """The tokens [a, b) without those of [x, y)."""
    if x >= y:
        return _range(a, b)
    return _range(a, min(b, x)) + _range(max(a, y), b)


def _in_sentence(tree: ParseTree, kids: list, start: int, end: int, pa: int) -> tuple[list, list]:
    """α and β candidates inside the keyword's sentence (``pa``: the keyword node's parent,
    ``kids``: each node's children): (pieces, op, level, label)."""
    alpha, beta = [], []
    starts, ends = tree.starts, tree.ends
    for level, a in enumerate(_ancestors(tree, pa if pa >= 0 else 0)):
        s, e, label = starts[a], ends[a], base_label(tree.labels[a])
        branch = next((c for c in kids[a] if starts[c] <= start and ends[c] >= end), None)
        beta += [(_minus(s, e, start, end), "key", level, label),
                 (_range(end, e), "after", level, label)]
        alpha.append((_range(s, start), "before", level, label))
        if branch is not None:
            bs, be = starts[branch], ends[branch]
            alpha += [(_minus(s, e, bs, be), "minusbranch", level, label),
                      (_range(s, bs), "beforebranch", level, label),
                      (_range(be, e), "afterbranch", level, label)]
            beta.append((_minus(bs, be, start, end), "branch", level,
                         base_label(tree.labels[branch])))
        for c in kids[a]:
            if c == branch:
                continue
            cs, ce, cl = starts[c], ends[c], base_label(tree.labels[c])
            alpha.append((_range(cs, ce), "child", level, cl))
            if cs >= end:
                beta.append((_range(end, ce), "tochild", level, cl))
            if cl in CLAUSES or cl == "VP":
                for g in kids[c]:
                    alpha.append((_minus(cs, ce, starts[g], ends[g]), "childminus", level,
                                  base_label(tree.labels[g])))
    return alpha, beta


def _before(tree: ParseTree, back: int) -> list:
    """The α candidate in the sentence ``back`` sentences before the keyword's: the whole of it
    (GDTB's α outside its keyword's sentence is always one whole sentence)."""
    return [(_range(0, len(tree.leaves)), "prevall", back, base_label(tree.labels[0]))]


#: The candidates that also come with the coordinator or subordinator before them: on GDTB train
#: the others' such variants, and every candidate with a leading one removed, were never exactly
#: the annotated argument (on gold trees or the bundled parser's), and were half the candidates.
PREVWORD = frozenset({"before", "child", "minusbranch", "key"})


def _variants(cands: list, tags: list[str]) -> list:
    """The coordinator or subordinator before a candidate added (``tags``: the sentence's)."""
    out = []
    for pieces, op, level, label in cands:
        if pieces and op in PREVWORD:
            (lo, b), rest = pieces[0], pieces[1:]
            if lo > 0 and tags[lo - 1] in ("CC", "IN"):
                out.append((((lo - 1, b),) + rest, op + "+prevword", level, label))
    return out


def _children(tree: ParseTree) -> list[list[int]]:
    kids: list[list[int]] = [[] for _ in tree.labels]
    for x, p in enumerate(tree.parents):
        if p >= 0:
            kids[p].append(x)
    return kids


def _masks(cands: list, shift: int, keep):
    """Candidates' pieces as rows of a boolean matrix over ``keep``'s token positions (a piece's
    tokens start ``shift`` positions in), punctuation (``keep`` False) left out."""
    import numpy as np

    pieces = np.array([(i, a, b) for i, (own, *_) in enumerate(cands) for a, b in own],
                      dtype=np.int64).reshape(-1, 3)
    edges = np.zeros((len(cands), len(keep) + 1), dtype=np.int8)
    edges[pieces[:, 0], pieces[:, 1] + shift] = 1  # a candidate's pieces neither overlap nor touch
    edges[pieces[:, 0], pieces[:, 2] + shift] -= 1
    return (np.cumsum(edges, axis=1, dtype=np.int8)[:, :-1] > 0) & keep


class _Sentence:
    """What every relation of one sentence shares: the tags and words of it and the two sentences
    before it, the token window they span (one position more, never in a candidate), which of
    its positions are punctuation, saying verbs, verbs and finite verbs, and the α candidates the
    two sentences before give."""

    def __init__(self, trees: Sequence[ParseTree], starts: Sequence[int], punct: set[int],
                 sentence: int):
        import numpy as np

        self.tags, self.words = {}, {}
        for k in range(sentence, max(-1, sentence - 3), -1):
            t = trees[k]
            for j, w in enumerate(t.leaves):
                self.tags[starts[k] + j], self.words[starts[k] + j] = _tag(t, j), w.lower()
        self.kids = _children(trees[sentence])
        n = len(trees[sentence].leaves)
        self.sentence_tags = [_tag(trees[sentence], j) for j in range(n)]
        self.base = starts[max(0, sentence - 2)]
        self.pos = np.arange(self.base, starts[sentence] + n + 1)
        self.keep = np.array([int(x) not in punct for x in self.pos])
        self.keep[-1] = False
        tags = [self.tags.get(int(x), "") for x in self.pos]
        words = [self.words.get(int(x)) for x in self.pos]
        self.flags = np.array([[w in SAYING for w in words], [t.startswith("VB") for t in tags],
                               [t in ("VBD", "VBZ", "VBP", "MD") for t in tags]])
        before = [(_before(trees[sentence - back], back), starts[sentence - back] - self.base)
                  for back in (1, 2) if sentence - back >= 0]
        self.before = [(_masks(c, shift, self.keep), [m[1:] for m in c]) for c, shift in before]


class Context:
    """What the features of one relation's candidates read: the keyword's sentence and the two
    before it (``shared``), the rules' and Algorithm 1's spans. A role's candidates are the rows
    of ``masks[role]`` over the token positions ``pos``, their (op, level, label) ``meta[role]``."""

    def __init__(self, trees: Sequence[ParseTree], starts: Sequence[int], punct: set[int],
                 rel, sentence: int, key: tuple[int, int], shared: _Sentence):
        import numpy as np

        self.rel, self.key, self.punct = rel, key, punct
        self.tree, self.off = trees[sentence], starts[sentence]
        self.tags, self.words = shared.tags, shared.words
        ks, ke = key[0] - self.off, key[1] - self.off
        previous = (starts[sentence - 1], self.off) if sentence > 0 else None
        _, p_alpha, p_beta = map_keyword(self.tree, ks, ke, rel.category, self.off, previous, "paper")
        self.rules = {"alpha": self._set(rel.alpha), "beta": self._set(rel.beta)}
        self.paper = {"alpha": self._set(p_alpha), "beta": self._set(p_beta)}
        n, pa, _ = keyword_node(self.tree, ks, ke)
        self.labels = (base_label(self.tree.labels[n]) if n >= 0 else "VIRT",
                       base_label(self.tree.labels[pa]) if pa >= 0 else "NONE")
        self.initial = all(i in self.punct for i in range(self.off, key[0]))
        self.previous_length = self.off - starts[sentence - 1] if sentence > 0 else 0
        own = dict(zip(("alpha", "beta"), _in_sentence(self.tree, shared.kids, ks, ke, pa)))
        for role, cands in own.items():
            cands += _variants(cands, shared.sentence_tags)
            firsts: dict = {}  # more than half are drawn twice (a node and its only child, …)
            for c in cands:
                firsts.setdefault(c[0], c)
            own[role] = list(firsts.values())
        spans = set().union(*self.rules.values(), *self.paper.values())
        # The rules' spans lie in the window; were one ever outside, the window grows to hold it.
        pad = (max(0, int(shared.pos[0]) - min(spans, default=shared.base)),
               max(0, max(spans, default=0) + 1 - int(shared.pos[-1])))
        self.pos, keep, self.flags = shared.pos, shared.keep, shared.flags
        if any(pad):
            self.pos = np.arange(shared.pos[0] - pad[0], shared.pos[-1] + 1 + pad[1])
            keep, self.flags = np.pad(keep, pad), np.pad(self.flags, ((0, 0), pad))
        # One matrix of spans, one of both roles' candidates: a numpy call costs more than its work.
        spans = self._rows([self.rules["alpha"], self.paper["alpha"], self.rules["beta"],
                            self.paper["beta"], self._set(rel.key)])
        self.span_rows = {"alpha": (spans[0:1], spans[1:2]), "beta": (spans[2:3], spans[3:4])}
        drawn = _masks(own["alpha"] + own["beta"], self.off - self.pos[0], keep)
        before = [np.pad(m, ((0, 0), pad)) if any(pad) else m for m, _ in shared.before]
        split = len(own["alpha"])
        blocks = [drawn[:split], *before, spans[0:2], drawn[split:], spans[2:4]]
        ends = (("rule", -1, "RULE"), ("paper", -1, "PAPER"))
        meta = {"alpha": [m[1:] for m in own["alpha"]] + [x for _, ms in shared.before for x in ms]
                + list(ends), "beta": [m[1:] for m in own["beta"]] + list(ends)}
        masks, n_alpha = np.vstack(blocks), len(meta["alpha"])
        first = self._first(masks, np.arange(len(masks)) >= n_alpha, spans[4])
        cut = int(np.searchsorted(first, n_alpha))
        self.masks = {"alpha": masks[first[:cut]], "beta": masks[first[cut:]]}
        self.meta = {"alpha": [meta["alpha"][i] for i in first[:cut].tolist()],
                     "beta": [meta["beta"][i - n_alpha] for i in first[cut:].tolist()]}

    def _set(self, ranges) -> frozenset:
        return frozenset(t for a, b in ranges for t in range(a, b) if t not in self.punct)

    def _rows(self, sets: list):
        """Token sets as rows of a boolean matrix over the positions ``pos``."""
        import numpy as np

        rows = np.zeros((len(sets), len(self.pos)), dtype=bool)
        cells = np.array([(r, t - self.pos[0]) for r, tokens in enumerate(sets) for t in tokens],
                         dtype=np.int64).reshape(-1, 2)
        rows[cells[:, 0], cells[:, 1]] = True
        return rows

    @staticmethod
    def _first(masks, role, key):
        """The rows that are the first of their token set within their role (``role``: True for
        β's), in order; those with no token beside the keyword's (``key``) left out: a keyword is
        never its own argument."""
        import numpy as np

        packed = np.ascontiguousarray(np.packbits(np.column_stack([role, masks]), axis=1))
        rows = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
        first = np.sort(np.unique(rows, return_index=True)[1])
        return first[(masks[first] & ~key).any(axis=1)]

    def tokens(self, role: str, i: int) -> frozenset:
        """The tokens of ``role``'s ``i``-th candidate."""
        import numpy as np

        return frozenset((np.flatnonzero(self.masks[role][i]) + int(self.pos[0])).tolist())

    @property
    def candidates(self) -> dict:
        """(tokens, op, level, label) of each candidate, by role."""
        return {role: [(self.tokens(role, i), *m) for i, m in enumerate(self.meta[role])]
                for role in ("alpha", "beta")}

    def feature_rows(self, role: str, code):
        """The features of every candidate of ``role``, one row each (:func:`feature_matrix`)."""
        return feature_matrix([self], role, code)


NUMERIC = 27


def feature_matrix(found: Sequence[Context], role: str, code):
    """The rows of every candidate of ``role`` of each Context, in order; ``code(name, value)``
    turns a category into its number (called in order of first sight within each category, so
    that training gives codes in that order)."""
    return feature_matrices(found, code, (role,))[role]


def feature_matrices(found: Sequence[Context], code, roles=("alpha", "beta")) -> dict:
    """:func:`feature_matrix` of each role. The Contexts of one sentence share their token window
    and their rows, both roles', are counted together with numpy: a call per Context and role
    cost more than the counting."""
    import numpy as np

    blocks: dict = {role: [] for role in roles}
    i = 0
    while i < len(found):
        j = i + 1
        while j < len(found) and found[j].pos is found[i].pos:
            j += 1
        parts = [(role, ctx) for role in roles for ctx in found[i:j] if ctx.meta[role]]
        if parts:
            rows, of = _window_rows(parts, code)
            for role in roles:
                blocks[role].append(rows[of == role])
        i = j
    empty = np.zeros((0, len(CATEGORICAL) + NUMERIC))
    return {role: np.vstack(blocks[role]) if blocks[role] else empty for role in roles}


def _window_rows(parts: list, code):
    """The rows of the (role, Context) ``parts``, Contexts that share their token window
    (``pos``), and each row's role."""
    import numpy as np

    first, metas = parts[0][1], [ctx.meta[role] for role, ctx in parts]
    g = np.repeat(np.arange(len(parts)), [len(m) for m in metas])  # each row's part
    group = [ctx for _, ctx in parts]
    meta = [m for ms in metas for m in ms]
    member, pos = np.vstack([ctx.masks[role] for role, ctx in parts]), first.pos
    off, n, tags, words = first.off, len(first.tree.leaves), first.tags, first.words
    ks, ke = np.array([ctx.key for ctx in group]).reshape(-1, 2).T[:, g]
    nr, npap = np.array([(len(ctx.rules[role]), len(ctx.paper[role]))
                         for role, ctx in parts]).reshape(-1, 2).T[:, g]
    lo = member.argmax(axis=1) + pos[0]
    hi = member.shape[1] - 1 - member[:, ::-1].argmax(axis=1) + pos[0]
    ops, los, his = [m[0] for m in meta], lo.tolist(), hi.tolist()
    rels = [ctx.rel for ctx in group]
    names = [rel.relation for rel in rels]
    # A part's columns are coded once a part; a row's, once a distinct value (in order of first
    # sight either way, as training needs).
    per_part = {"keyword": [rel.keyword.lower() for rel in rels], "relation": names,
                "category": [rel.category for rel in rels],
                "keyword_label": [ctx.labels[0] for ctx in group],
                "parent_label": [ctx.labels[1] for ctx in group]}
    part_names = np.array(names, dtype=object)[g]
    per_row = {"op": ops, "label": [m[2] for m in meta],
               "variant": [op.split("+")[-1] if "+" in op else "-" for op in ops],
               "relation_op": [f"{name}:{op.split('+')[0].split('-')[0]}"
                               for name, op in zip(part_names, ops)],
               "first_tag": [tags.get(x, "NONE") for x in los],
               "last_tag": [tags.get(x, "NONE") for x in his],
               "tag_before": [tags.get(x - 1, "NONE") for x in los],
               "tag_after": [tags.get(x + 1, "NONE") for x in his]}
    cats = np.empty((len(meta), len(CATEGORICAL)))
    for j, feature in enumerate(CATEGORICAL):
        values = per_part.get(feature) or per_row[feature]
        table = {v: code(feature, v) for v in dict.fromkeys(values)}
        coded = list(map(table.__getitem__, values))
        cats[:, j] = np.array(coded)[g] if feature in per_part else coded
    size = member.sum(axis=1)
    # How many of a candidate's tokens are in its Context's rules' and Algorithm 1's spans, before
    # and after its keyword; and, shared by the window, before the sentence, saying verbs, verbs.
    own = np.stack([np.vstack([ctx.span_rows[role][0][0], ctx.span_rows[role][1][0],
                               pos < ctx.key[0], pos >= ctx.key[1]]) for role, ctx in parts])
    in_rule, in_paper, before_key, after_key = (member[:, None, :] & own[g]).sum(axis=2).T
    shared = member.astype(float) @ np.column_stack([pos < off, *first.flags])
    before_sentence, saying, verb, finite = shared.T
    gaps = (member[:, :-1] & ~member[:, 1:]).sum(axis=1) - 1  # every run's end but hi's
    initial = np.array([int(ctx.initial) for ctx in group])[g]
    num = np.column_stack([
        [m[1] for m in meta], (in_rule == size) & (size == nr),
        (in_paper == size) & (size == npap), in_rule / (size + nr - in_rule),
        in_paper / (size + npap - in_paper), size, size / max(1, n),
        before_key / size, after_key / size, before_sentence / size, gaps,
        np.where(hi < ks, ks - hi, -1), np.where(lo >= ke, lo - ke, -1),
        initial, np.full(len(meta), n),
        np.full(len(meta), first.previous_length), in_rule / np.maximum(1, nr), in_rule / size,
        (lo >= off) & (hi < off + n), saying, verb, finite,
        size - in_rule, nr - in_rule, np.full(len(meta), int(words.get(off - 1) == "?")),
        (in_rule == size) & (size < nr), (in_rule == nr) & (size > nr)]).astype(float)
    return np.hstack([cats, num]), np.array([role for role, _ in parts])[g]


#: Sentences beyond these keep the default's spans: candidates grow with a sentence's length and
#: its keywords (a 600-token sentence of 300 keywords took 53 s, a flat 150-token one of 24 took
#: 1.3 s). In GDTB, train and dev, on the bundled parser's trees, with every keyword a relation,
#: the longest sentence with a binary relation has 110 tokens, the most relations in one are 15,
#: and the most candidates 1,516.
MAX_TOKENS, MAX_RELATIONS, MAX_CANDIDATES = 150, 24, 3000

def joins_phrases(tree: ParseTree, start: int, end: int) -> bool:
    """Whether the keyword at [start, end) of ``tree`` is a coordinator joining phrases. GDTB
    annotates relations between clauses only: its few such coordinators (132 of 4,780 on train)
    join clauses the parser misread, from which the model learns to widen α to the clause, where
    "apples and pears" means the two words. The learned choice leaves them the rules' spans (six
    inaugural addresses: 385 of 1,090 binary relations); training keeps them, which helps on the
    rest."""
    n, pa, _ = keyword_node(tree, start, end)
    return (n >= 0 and pa >= 0 and base_label(tree.labels[n]) in COORDINATORS
            and base_label(tree.labels[pa]) in PHRASES)


def contexts(trees: Sequence[ParseTree], starts: Sequence[int], tokens: Sequence[str],
             relations, phrases: bool = False) -> list[tuple[object, Context]]:
    """(relation, Context) for each binary relation of one document, but for those of a sentence
    beyond ``MAX_TOKENS``, ``MAX_RELATIONS`` or ``MAX_CANDIDATES`` and, unless ``phrases``
    (training), a coordinator joining phrases."""
    by_sentence: dict[int, list] = {}
    for rel in relations:
        if rel.category == UNARY or not rel.key:
            continue
        off = starts[rel.sentence]
        if phrases or not joins_phrases(trees[rel.sentence], rel.key[0][0] - off,
                                        rel.key[-1][1] - off):
            by_sentence.setdefault(rel.sentence, []).append(rel)
    out, punct = [], {i for i, t in enumerate(tokens) if is_punct(t)}
    for s, rels in by_sentence.items():
        if len(trees[s].leaves) > MAX_TOKENS or len(rels) > MAX_RELATIONS:
            continue
        shared = _Sentence(trees, starts, punct, s)
        found = [(rel, Context(trees, starts, punct, rel, s, (rel.key[0][0], rel.key[-1][1]),
                               shared)) for rel in rels]
        if sum(len(c.meta["alpha"]) + len(c.meta["beta"]) for _, c in found) <= MAX_CANDIDATES:
            out += found
    return out
