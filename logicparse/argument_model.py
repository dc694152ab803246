"""The learned α/β choice (``mapping="learned"``): the rules' spans, or a better candidate.

For each binary relation the rules of arguments.py have mapped, candidate spans are drawn from the
tree: for β the keyword's ancestors without the keyword, or what follows it (up to each later
sister); for α each ancestor's part before the keyword, the ancestor without the keyword's branch,
its other children (and those children without one of theirs), and in the two sentences before,
the whole sentence, its clauses, and the sentence without one of its children; each with the
coordinator or subordinator before it added, or a leading one removed. The rules' span and
Algorithm 1's are candidates too. One gradient-boosted classifier per role (trained on GDTB's
annotated arguments by ``logicparse mapping train``) scores whether a candidate is exactly the
argument, from the candidate's position and size, the tags at its edges, its agreement with the
rules' span and the keyword, relation and tree labels; the best-scored candidate replaces the
rules' span. Unary relations keep the rules' span.

Token sets leave punctuation out (as the GDTB scorer does); the chosen set becomes token ranges
with any punctuation between its tokens put back.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence

from .constituents import CLAUSES, base_label, children, is_punct
from .errors import Errors, ModelLoadError
from .mapping import keyword_node, map_keyword
from .taxonomy import UNARY
from .trees import ParseTree

#: Names of the categorical features, in order; the numeric ones follow them.
CATEGORICAL = ("op", "label", "keyword", "relation", "category", "keyword_label", "parent_label",
               "variant", "relation_op", "first_tag", "last_tag", "tag_before", "tag_after")
UNKNOWN = 250  # the code of a category not seen in training (HistGradientBoosting's limit is 255)
SAYING = frozenset({"said", "says", "say", "told", "according", "added", "noted", "reported",
                    "explained", "argued", "claimed", "think", "believe", "thinks", "believes",
                    "know", "mean", "guess"})
FORMAT = "logicparse-arguments/1"
# What skops must build for a HistGradientBoostingClassifier beyond the types it trusts: the
# trees' predictor and the input check sklearn wraps in a partial. Nothing else is accepted.
TRUSTED_TYPES = frozenset({"sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",
                           "sklearn.utils.validation.check_array", "functools.partial"})


def _ancestors(tree: ParseTree, node: int) -> list[int]:
    out = []
    while node >= 0:
        out.append(node)
        node = tree.parents[node]
    return out


def _span(tree: ParseTree, node: int) -> set[int]:
    return set(range(tree.starts[node], tree.ends[node]))


def _tag(tree: ParseTree, i: int) -> str:
    return base_label(tree.labels[tree.leaf_parents[i]]) if 0 <= i < len(tree.leaves) else "NONE"


def _in_sentence(tree: ParseTree, start: int, end: int, pa: int) -> tuple[list, list]:
    """α and β candidates inside the keyword's sentence (``pa``: the keyword node's parent):
    (tokens, op, level, label)."""
    key = set(range(start, end))
    alpha, beta = [], []
    for level, a in enumerate(_ancestors(tree, pa if pa >= 0 else 0)):
        s, e, label = tree.starts[a], tree.ends[a], base_label(tree.labels[a])
        kids = children(tree, a)
        branch = next((c for c in kids if tree.starts[c] <= start and tree.ends[c] >= end), None)
        whole = set(range(s, e))
        beta += [(whole - key, "key", level, label), (set(range(end, e)), "after", level, label)]
        alpha.append((set(range(s, start)), "before", level, label))
        if branch is not None:
            own = _span(tree, branch)
            alpha += [(whole - own, "minusbranch", level, label),
                      (set(range(s, tree.starts[branch])), "beforebranch", level, label),
                      (set(range(tree.ends[branch], e)), "afterbranch", level, label)]
            beta.append((own - key, "branch", level, base_label(tree.labels[branch])))
        for c in kids:
            if c == branch:
                continue
            own, cl = _span(tree, c), base_label(tree.labels[c])
            alpha.append((own, "child", level, cl))
            if tree.starts[c] >= end:
                beta.append((set(range(end, tree.ends[c])), "tochild", level, cl))
            if cl in CLAUSES or cl == "VP":
                for g in children(tree, c):
                    alpha.append((own - _span(tree, g), "childminus", level,
                                  base_label(tree.labels[g])))
    return alpha, beta


def _before(tree: ParseTree, back: int) -> list:
    """α candidates in the sentence ``back`` sentences before the keyword's."""
    whole = set(range(len(tree.leaves)))
    out = [(whole, "prevall", back, base_label(tree.labels[0]))]
    for x in range(1, len(tree.labels)):
        label = base_label(tree.labels[x])
        if label in CLAUSES or label in ("SBAR", "VP"):
            out.append((_span(tree, x), "prevnode", back, label))
    for c in children(tree, 0):
        out.append((whole - _span(tree, c), "prevminus", back, base_label(tree.labels[c])))
    return out


def _variants(cands: list, tree: ParseTree) -> list:
    """The coordinator or subordinator before a candidate added; a leading one removed."""
    out = []
    for toks, op, level, label in cands:
        if not toks:
            continue
        lo = min(toks)
        if lo > 0 and _tag(tree, lo - 1) in ("CC", "IN"):
            out.append((toks | {lo - 1}, op + "+prevword", level, label))
        if _tag(tree, lo) in ("CC", "IN", "RB") and len(toks) > 1:
            out.append((toks - {lo}, op + "-first", level, label))
    return out


def _lift(cands: list, offset: int, punct: set[int]) -> list:
    """Sentence-level candidates as document-level token sets, punctuation left out."""
    return [(frozenset(t + offset for t in toks if t + offset not in punct), op, lvl, lab)
            for toks, op, lvl, lab in cands]


class _Sentence:
    """What every relation of one sentence shares: the tags and words of it and the two sentences
    before it, and the α candidates those two sentences give."""

    def __init__(self, trees: Sequence[ParseTree], starts: Sequence[int], punct: set[int],
                 sentence: int):
        self.tags, self.words = {}, {}
        for k in range(sentence, max(-1, sentence - 3), -1):
            t = trees[k]
            for j, w in enumerate(t.leaves):
                self.tags[starts[k] + j], self.words[starts[k] + j] = _tag(t, j), w.lower()
        self.before = []
        for back in (1, 2):
            if sentence - back >= 0:
                self.before += _lift(_before(trees[sentence - back], back), starts[sentence - back],
                                     punct)
        if sentence >= 2:
            both = set(range(starts[sentence - 2], starts[sentence])) - punct
            self.before.append((frozenset(both), "prev2all", 2, "S"))


class Context:
    """What the features of one relation's candidates read: the keyword's sentence and the two
    before it (``shared``), the rules' and Algorithm 1's spans."""

    def __init__(self, trees: Sequence[ParseTree], starts: Sequence[int], punct: set[int],
                 rel, sentence: int, key: tuple[int, int], shared: _Sentence):
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
        alpha, beta = _in_sentence(self.tree, ks, ke, pa)
        alpha, beta = alpha + _variants(alpha, self.tree), beta + _variants(beta, self.tree)
        self.candidates = {"alpha": _lift(alpha, self.off, punct) + shared.before,
                           "beta": _lift(beta, self.off, punct)}
        for role in ("alpha", "beta"):
            self.candidates[role] = self._dedupe(role)

    def _set(self, ranges) -> frozenset:
        return frozenset(t for a, b in ranges for t in range(a, b) if t not in self.punct)

    def _dedupe(self, role: str) -> list:
        seen: dict = {}
        extra = [(self.rules[role], "rule", -1, "RULE"), (self.paper[role], "paper", -1, "PAPER")]
        for c in self.candidates[role] + extra:
            if c[0] and c[0] not in seen:
                seen[c[0]] = c
        return list(seen.values())

    def feature_rows(self, role: str, code):
        """The features of every candidate of ``role``, one row each, in order; ``code(name,
        value)`` turns a category into its number (called candidate by candidate, so that codes
        given in order of first sight are the same). The counts run over a window of token
        positions with numpy: candidate by candidate in Python they took most of the learned
        choice's time."""
        import numpy as np

        cands = self.candidates[role]
        rule, paper = self.rules[role], self.paper[role]
        off, n, (ks, ke) = self.off, len(self.tree.leaves), self.key
        tags, words, rel = self.tags, self.words, self.rel
        name = rel.relation
        lows, highs, cat_rows = [], [], []
        for toks, op, _, label in cands:
            lo, hi = min(toks), max(toks)
            lows.append(lo)
            highs.append(hi)
            cats = (op, label, rel.keyword.lower(), name, rel.category, *self.labels,
                    op.split("+")[-1] if "+" in op else "-",
                    f"{name}:{op.split('+')[0].split('-')[0]}", tags.get(lo, "NONE"),
                    tags.get(hi, "NONE"), tags.get(lo - 1, "NONE"), tags.get(hi + 1, "NONE"))
            cat_rows.append([code(k, v) for k, v in zip(CATEGORICAL, cats)])
        if not cands:
            return np.zeros((0, len(CATEGORICAL) + 27))
        base, top = min([*lows, *rule, *paper]), max([*highs, *rule, *paper])
        pos = np.arange(base, top + 2)  # one position past the window: never in a candidate
        member = np.zeros((len(cands), len(pos)), dtype=bool)
        for i, (toks, *_) in enumerate(cands):
            member[i, np.fromiter(toks, dtype=np.int64, count=len(toks)) - base] = True

        def of(tokens) -> np.ndarray:
            v = np.zeros(len(pos), dtype=bool)
            v[[t - base for t in tokens]] = True
            return v

        def count(mask) -> np.ndarray:
            return (member & mask).sum(axis=1)

        def where(test) -> np.ndarray:
            return np.array([test(int(x)) for x in pos])

        lo, hi = np.array(lows), np.array(highs)
        size = member.sum(axis=1)
        in_rule, in_paper = count(of(rule)), count(of(paper))
        nr, npap = len(rule), len(paper)
        gaps = (member[:, :-1] & ~member[:, 1:]).sum(axis=1) - 1  # every run's end but hi's
        num = np.column_stack([
            [c[2] for c in cands], (in_rule == size) & (size == nr),
            (in_paper == size) & (size == npap), in_rule / (size + nr - in_rule),
            in_paper / (size + npap - in_paper), size, size / max(1, n),
            count(pos < ks) / size, count(pos >= ke) / size, count(pos < off) / size, gaps,
            np.where(hi < ks, ks - hi, -1), np.where(lo >= ke, lo - ke, -1),
            np.full(len(cands), int(self.initial)), np.full(len(cands), n),
            np.full(len(cands), self.previous_length), in_rule / max(1, nr), in_rule / size,
            (lo >= off) & (hi < off + n), count(where(lambda x: words.get(x) in SAYING)),
            count(where(lambda x: tags.get(x, "").startswith("VB"))),
            count(where(lambda x: tags.get(x) in ("VBD", "VBZ", "VBP", "MD"))),
            size - in_rule, nr - in_rule, np.full(len(cands), int(words.get(off - 1) == "?")),
            (in_rule == size) & (size < nr), (in_rule == nr) & (size > nr)]).astype(float)
        return np.hstack([np.array(cat_rows, dtype=float), num])


#: Sentences beyond these keep the default's spans: candidates grow with a sentence's length and
#: its keywords (a 600-token sentence of 300 keywords took 53 s, a flat 150-token one of 24 took
#: 1.3 s). In GDTB, train and dev, on the bundled parser's trees, with every keyword a relation,
#: the longest sentence with a binary relation has 110 tokens, the most relations in one are 15,
#: and the most candidates 1,516.
MAX_TOKENS, MAX_RELATIONS, MAX_CANDIDATES = 150, 24, 3000


def contexts(trees: Sequence[ParseTree], starts: Sequence[int], tokens: Sequence[str],
             relations) -> list[tuple[object, Context]]:
    """(relation, Context) for each binary relation of one document, but for those of a sentence
    beyond ``MAX_TOKENS``, ``MAX_RELATIONS`` or ``MAX_CANDIDATES``."""
    by_sentence: dict[int, list] = {}
    for rel in relations:
        if rel.category != UNARY and rel.key:
            by_sentence.setdefault(rel.sentence, []).append(rel)
    out, punct = [], {i for i, t in enumerate(tokens) if is_punct(t)}
    for s, rels in by_sentence.items():
        if len(trees[s].leaves) > MAX_TOKENS or len(rels) > MAX_RELATIONS:
            continue
        shared = _Sentence(trees, starts, punct, s)
        found = [(rel, Context(trees, starts, punct, rel, s, (rel.key[0][0], rel.key[-1][1]),
                               shared)) for rel in rels]
        if sum(len(c.candidates["alpha"]) + len(c.candidates["beta"]) for _, c in found) \
                <= MAX_CANDIDATES:
            out += found
    return out


def to_ranges(toks: frozenset, tokens: Sequence[str]) -> list[list[int]]:
    """Token ranges of a set, a gap of punctuation only closed."""
    out: list[list[int]] = []
    for t in sorted(toks):
        if out and all(is_punct(tokens[i]) for i in range(out[-1][1], t)):
            out[-1][1] = t + 1
        else:
            out.append([t, t + 1])
    return out


class ArgumentModel:
    """The two classifiers (α, β) and the category codes they were trained with."""

    def __init__(self, estimators: dict, codes: dict, meta: dict):
        self.estimators, self.codes, self.meta = estimators, codes, meta

    def code(self, name: str, value: str) -> int:
        return self.codes[name].get(value, UNKNOWN)

    def choose(self, tokens: Sequence[str], found: list) -> None:
        """Replace the rules' α and β of each (relation, Context) by the best-scored candidate."""
        import numpy as np

        for role in ("alpha", "beta"):
            owner = [(i, cand[0]) for i, (_, ctx) in enumerate(found)
                     for cand in ctx.candidates[role]]
            if not owner:
                continue
            rows = np.vstack([ctx.feature_rows(role, self.code) for _, ctx in found])
            p = self.estimators[role].predict_proba(rows)[:, 1]
            best: dict[int, tuple[float, frozenset]] = {}
            for (i, toks), pi in zip(owner, p):
                if i not in best or pi > best[i][0]:
                    best[i] = (pi, toks)
            for i, (_, toks) in best.items():
                setattr(found[i][0], role, to_ranges(toks, tokens))


def bundled_model_dir() -> Path:
    return Path(__file__).parent / "models" / "arguments"


@lru_cache(maxsize=4)
def load_argument_model(directory: Optional[str] = None) -> ArgumentModel:
    """The model in ``directory`` (the bundled one by default), its files checked against the
    digests ``meta.json`` records and holding only the types a HistGradientBoosting needs."""
    from .senses.classifier import load_estimator

    path = Path(directory) if directory else bundled_model_dir()
    meta_path = path / "meta.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT:
            raise ValueError(f"{meta_path.name} says format {meta.get('format')!r}, not {FORMAT!r}")
        files, codes = meta["files"], meta["codes"]
        estimators = {role: load_estimator(path / files[role]["file"], files[role]["sha256"],
                                           trusted=TRUSTED_TYPES) for role in ("alpha", "beta")}
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise ModelLoadError(Errors.E542.format(path=path, reason=e)) from e
    return ArgumentModel(estimators, codes, meta)
