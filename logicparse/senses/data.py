"""Labelled keyword occurrences: built from GDTB, read from and written to ``logicparse/annotations/*.jsonl``.

Gold labels from GDTB are fixed, once for all models, so that numbers compare across models: an occurrence of
a target keyword gets the relation of the Explicit GDTB relation whose connective is exactly that
word at that place, through :func:`gold_relation`; an occurrence no Explicit relation claims is
``none`` (not a connective: ``works as a teacher``, ``as tall as``). Occurrences are found with the
Annotator's own keyword matcher, so an ``as`` inside a longer taxonomy phrase (``as well as``,
``such as``, ``as soon as``, ``as long as``, ``as if``) is never a target, neither here nor at
annotation time.

Each occurrence's text is its sentence (tokens of one ``const/`` tree joined by single spaces):
the same form the Annotator sends in a :class:`~logicparse.senses.SenseQuery`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Iterable, Iterator, Optional, Sequence

from ..errors import DataFormatError, Errors
from ..taxonomy import RELATIONS, by_keyword_lists

NONE = "none"  # label of an occurrence that is not a logical connective
LABELS = tuple(RELATIONS) + (NONE,)
# PDTB sense prefix -> relation, checked in order (fixed: figures compare across models).
_SENSE_PREFIXES = (
    ("Temporal.", "temporal"),
    ("Contingency.Cause.", "causal"),
    ("Contingency.Purpose.", "causal"),
    ("Contingency.Condition.", "conditional"),
    ("Comparison.Concession.", "adversative"),
)
_SENSE_EXACT = {
    "Comparison.Contrast": "comparative",
    "Comparison.Similarity": "analogy",
    "Expansion.Conjunction": "conjunction",
}


def gold_relation(sense: str, keyword: Optional[str] = None) -> str:
    """The fixed PDTB-sense -> relation mapping; any other sense is ``none``. With ``keyword``,
    by the keyword lists (:func:`~logicparse.taxonomy.by_keyword_lists`): a comparison sense,
    Contrast or Concession, of a keyword listed as comparative is comparative."""
    relation = NONE
    if sense in _SENSE_EXACT:
        relation = _SENSE_EXACT[sense]
    else:
        for prefix, rel in _SENSE_PREFIXES:
            if sense.startswith(prefix):
                relation = rel
                break
    if keyword is None or relation == NONE:
        return relation
    return by_keyword_lists(keyword, relation) or NONE


def relabel_by_lists(annotations: Sequence[Annotation]) -> tuple[list[Annotation], dict]:
    """Labels of an older convention (contrast against concession read from the sentence) under
    the keyword-list convention of docs/labelling.md: each label through
    :func:`~logicparse.taxonomy.by_keyword_lists`, and ``not`` in ``not only …`` (``not just X
    but Y``) none. Returns the annotations and the moves, ``{"keyword: old -> new": count}``."""
    from dataclasses import replace

    from .clauses import not_only
    out, moves = [], {}
    for a in annotations:
        label = by_keyword_lists(a.keyword, None if a.label == NONE else a.label) or NONE
        if a.keyword == "not" and label != NONE and not_only(a.text.split(" "), *token_span(a)):
            label = NONE
        if label != a.label:
            key = f"{a.keyword}: {a.label} -> {label}"
            moves[key] = moves.get(key, 0) + 1
            a = replace(a, label=label)
        out.append(a)
    return out, moves


@dataclass(frozen=True)
class Annotation:
    keyword: str
    text: str  # the sentence, tokens joined by single spaces
    char_start: int
    char_end: int
    label: str  # a relation name or "none"
    source: str  # "gdtb:train", "gdtb:dev", "hand", ...
    doc: str = ""
    sense: str = ""  # what the label came from: GDTB's PDTB sense, a PTB node label, or ""
    tree: str = ""  # the sentence's bracketed tree, where the decision reads one ("" if not kept)

    def to_json(self) -> str:
        d = asdict(self)
        if not d["tree"]:
            del d["tree"]  # files without trees stay as they were
        return json.dumps(d, ensure_ascii=False)


def token_span(a: Annotation) -> tuple[int, int]:
    """The keyword's tokens in ``a.text`` (tokens joined by single spaces)."""
    start = a.text[:a.char_start].count(" ")
    return start, start + a.text[a.char_start:a.char_end].count(" ") + 1


def sentences(doc) -> Iterator[tuple[int, int]]:
    """[start, end) token range of each sentence of a GDTB document (one per const/ tree)."""
    from ..trees import read_tree

    pos = 0
    for tree in doc.trees:
        n = len(read_tree(tree))
        yield pos, pos + n
        pos += n
    if pos != len(doc.tokens):
        raise DataFormatError(Errors.E031.format(
            path=doc.const_path, line=0,
            reason=f"trees have {pos} leaves, raw/ has {len(doc.tokens)} tokens"))


def gdtb_annotations(docs, keywords: Sequence[str], source: str, trees: bool = False
                     ) -> list[Annotation]:
    """Every occurrence of ``keywords`` in the documents, labelled with GDTB gold; ``trees``
    keeps each sentence's bracketed tree (what the tree rules read)."""
    from ..mapping import find_keywords

    targets = set(keywords)
    out = []
    for doc in docs:
        # First Explicit relation per connective span (the file order), keyed by its one span.
        claimed: dict[tuple[int, int], tuple[str, str]] = {}
        for rel in doc.explicit:
            if len(rel.connective_spans) == 1:
                claimed.setdefault(rel.connective_spans[0], (rel.connective.lower(), rel.sense))
        starts = doc.token_starts
        for (s, e), tree in zip(sentences(doc), doc.trees):
            tokens = doc.tokens[s:e]
            offset = starts[s]
            for m in find_keywords(tokens):
                kw = m.keyword.text
                if kw not in targets:
                    continue
                a = starts[s + m.start]
                b = starts[s + m.end - 1] + len(doc.tokens[s + m.end - 1])
                connective, sense = claimed.get((a, b), ("", ""))
                label = gold_relation(sense, kw) if connective == kw else NONE
                out.append(Annotation(kw, " ".join(tokens), a - offset, b - offset, label, source,
                                      doc.name, sense if connective == kw else "",
                                      tree if trees else ""))
    return out


def relabel_since(annotations: Sequence[Annotation]) -> tuple[list[Annotation], int]:
    """GDTB annotates clausal connectives only, so a ``since`` heading a time expression
    (``since 1989``, ``has since learned``) is ``none`` there; the keyword guide makes it
    temporal. Relabels those occurrences from their trees (``since`` heading a PP, or an adverb
    standing alone: the tree rule for ``since``); returns the annotations and how many changed.
    Annotations without a tree are left as they are."""
    from dataclasses import replace

    from ..trees import read_tree
    from .rules import decide
    out, n = [], 0
    for a in annotations:
        if a.keyword == "since" and a.label == NONE and a.tree:
            start, end = token_span(a)
            if decide("since", read_tree(a.tree), start, end) == "temporal":
                a = replace(a, label="temporal", sense="relabelled: since + time expression")
                n += 1
        out.append(a)
    return out, n


def ptb_tmp_annotations(path: Path, keywords: Sequence[str] = ("in",)) -> list[Annotation]:
    """Occurrences of ``keywords`` in a Penn Treebank file with function tags (the NLTK WSJ
    sample), labelled from the treebank's own ``-TMP`` tags: a keyword heading a PP, SBAR or ADVP
    tagged ``-TMP`` is ``temporal``, any other occurrence ``none``. Right for keywords whose only
    relation is temporal (``in``, ``during``); for ``since`` or ``as`` a missing ``-TMP`` may be
    causal. Traces (``-NONE-``) are removed; each annotation keeps its sentence's tree."""
    from ..mapping import find_keywords
    from ..parser.treebank import read_trees
    from ..trees import read_tree

    targets, source = set(keywords), f"ptb-tmp:{Path(path).name}"
    out = []
    for i, raw in enumerate(read_trees(path, clean=False)):
        tree = _without_traces(raw)
        if tree is None:
            continue
        bracketed = tree.pformat(margin=1 << 30)
        parsed = read_tree(bracketed)
        tokens = parsed.leaves
        for m in find_keywords(tokens):
            if m.keyword.text not in targets:
                continue
            pre = parsed.leaf_parents[m.start]
            head = parsed.parents[pre]
            label = parsed.labels[head] if head >= 0 else ""
            # The keyword heads the phrase: it is the phrase's first word.
            tmp = parsed.starts[head] == m.start and label.split("-")[0] in ("PP", "SBAR", "ADVP") \
                and "TMP" in label.split("-")[1:]
            a = len(" ".join(tokens[:m.start])) + (1 if m.start else 0)
            b = a + len(" ".join(tokens[m.start:m.end]))
            out.append(Annotation(m.keyword.text, " ".join(tokens), a, b,
                                  "temporal" if tmp else NONE, source, f"{Path(path).name}#{i}",
                                  label, bracketed))
    return out


def _without_traces(tree):
    """The tree without ``-NONE-`` leaves and the constituents they leave empty; labels kept."""
    import nltk

    if tree.label() == "-NONE-":
        return None
    kids = [k if isinstance(k, str) else _without_traces(k) for k in tree]
    kids = [k for k in kids if k is not None]
    if not kids:
        return None
    return nltk.Tree(tree.label() or "ROOT", kids)


def read_hand(path: Path) -> list[Annotation]:
    """Hand-labelled occurrences from a TSV file: ``label<TAB>sentence`` with the keyword in
    ``[brackets]``; ``#`` starts a comment line."""
    path = Path(path)
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        label, _, marked = line.partition("\t")
        start, end = marked.find("["), marked.find("]")
        if not label or start < 0 or end < start:
            raise DataFormatError(Errors.E211.format(
                path=path, line=n, reason="expected label<TAB>sentence with the keyword in [brackets]"))
        text = marked[:start] + marked[start + 1:end] + marked[end + 1:]
        a = Annotation(marked[start + 1:end].lower(), text, start, end - 1, label.strip(), "hand")
        problem = _check(a)
        if problem:
            raise DataFormatError(Errors.E211.format(path=path, line=n, reason=problem))
        out.append(a)
    return out


def write_annotations(path: Path, annotations: Iterable[Annotation]) -> int:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for a in annotations:
            f.write(a.to_json() + "\n")
            n += 1
    return n


def _fields_problem(d) -> Optional[str]:
    """What is wrong with a line's object as an Annotation's fields, with the fields a line holds."""
    names = [f.name for f in fields(Annotation)]
    required = [f.name for f in fields(Annotation) if f.default is MISSING]
    if not isinstance(d, dict):
        problem = f"a JSON {type(d).__name__}, not an object"
    else:
        unknown = [k for k in d if k not in names]
        missing = [k for k in required if k not in d]
        if not unknown and not missing:
            return None
        problem = "; ".join(f"{what} field{'s' if len(ks) > 1 else ''} {', '.join(map(repr, ks))}"
                            for what, ks in (("unknown", unknown), ("missing", missing)) if ks)
    return (f"{problem}. Each line is one JSON object with {', '.join(required)} (optional: "
            f"{', '.join(k for k in names if k not in required)}): the keyword, its sentence "
            "(tokens joined by single spaces), the keyword's character offsets in it, the "
            "relation or 'none', and where the label came from")


def read_annotations(paths: Iterable[Path]) -> list[Annotation]:
    """Annotations from JSONL files, checked: a bad line is an error naming file and line."""
    out = []
    for path in paths:
        path = Path(path)
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except json.JSONDecodeError as e:
                raise DataFormatError(Errors.E211.format(path=path, line=n, reason=f"not JSON ({e})"
                                                         )) from None
            problem = _fields_problem(d)
            if problem:
                raise DataFormatError(Errors.E211.format(path=path, line=n, reason=problem))
            try:
                a = Annotation(**d)
            except TypeError as e:
                raise DataFormatError(Errors.E211.format(path=path, line=n, reason=e)) from None
            problem = _check(a)
            if problem:
                raise DataFormatError(Errors.E211.format(path=path, line=n, reason=problem))
            out.append(a)
    return out


def merge_annotations(annotations: Iterable[Annotation]) -> list[Annotation]:
    """One annotation per occurrence (keyword, sentence, span): a later one replaces an earlier,
    so that a hand label given after GDTB's (``--annotations gdtb_train.jsonl --annotations
    keywords_train.jsonl``) is the one trained on. Order of first appearance is kept."""
    out: dict[tuple, Annotation] = {}
    for a in annotations:
        out[(a.keyword, a.text, a.char_start, a.char_end)] = a
    return list(out.values())


def _check(a: Annotation) -> Optional[str]:
    if a.label not in LABELS:
        return f"label {a.label!r} is not one of {list(LABELS)}"
    if not 0 <= a.char_start < a.char_end <= len(a.text):
        return f"span [{a.char_start}, {a.char_end}) is outside the text"
    if a.text[a.char_start:a.char_end].lower() != a.keyword:
        return (f"text[{a.char_start}:{a.char_end}] is "
                f"{a.text[a.char_start:a.char_end]!r}, not the keyword {a.keyword!r}")
    return None


def data_hash(annotations: Sequence[Annotation]) -> str:
    """sha256 of the training data as used (order-independent), recorded with each model."""
    h = hashlib.sha256()
    for line in sorted(a.to_json() for a in annotations):
        h.update(line.encode())
        h.update(b"\n")
    return h.hexdigest()[:16]
