"""``logicparse mapping train``: the learned α/β choice (argument_model.py) fitted on GDTB.

Every Explicit GDTB relation whose connective is a keyword, and that the annotator (lexicon
relations, the default mapping) maps as a binary relation, gives one example per role: the
candidates of argument_model.py, labelled 1 for the one that equals the annotated argument (Arg1
for α, Arg2 for β; punctuation left out) and 0 for the others. One LightGBM booster per role
(binary, the categories as LightGBM categories); the same data and seed give the same model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Optional, Sequence

from .argument_candidates import CATEGORICAL, UNKNOWN, Context, contexts, feature_matrix
from .argument_model import FORMAT
from .constituents import is_punct
from .resources import file_sha256

#: LightGBM's settings (one thread and ``deterministic``, so that a seed gives one model) and the
#: number of boosting rounds, chosen on 5 folds of GDTB train by document.
PARAMS = {"objective": "binary", "learning_rate": 0.1, "num_leaves": 31, "min_data_in_leaf": 20,
          "deterministic": True, "force_row_wise": True, "num_threads": 1, "verbose": -1}
ROUNDS = 100


def gdtb_examples(docs, trees: Optional[Callable] = None, parser=None
                  ) -> list[tuple[Context, dict]]:
    """(Context, {"alpha": gold tokens, "beta": gold tokens}) per GDTB relation the annotator maps
    as binary. ``trees``: None for the gold trees (or ``parser``'s over the same tokens), else a
    function from a document to its bracketed trees."""
    from .annotator import build_documents
    from .scorer import gdtb_sentences
    from .taxonomy import keywords

    kw = keywords()
    out = []
    for doc in docs:
        sentences = gdtb_sentences(doc, parser, trees(doc) if trees is not None else None)
        mapped = build_documents([(doc.name, doc.text, sentences)], senses=None)[0]
        found = {tuple(range(r.key[0][0], r.key[-1][1])): ctx
                 for r, ctx in contexts([s.tree for s in sentences], mapped.sentence_starts,
                                        mapped.tokens, mapped.relations, phrases=True)}
        punct = {i for i, t in enumerate(mapped.tokens) if is_punct(t)}
        for rel in doc.explicit:
            if rel.connective.lower() not in kw:
                continue
            ctx = found.get(tuple(sorted(doc.tokens_in(rel.connective_spans))))
            if ctx is not None:
                out.append((ctx, {"alpha": frozenset(doc.tokens_in(rel.arg1) - punct),
                                  "beta": frozenset(doc.tokens_in(rel.arg2) - punct)}))
    return out


class _Codes:
    """Category codes in order of first sight, at most ``UNKNOWN`` per feature."""

    def __init__(self) -> None:
        self.codes: dict[str, dict[str, int]] = {name: {} for name in CATEGORICAL}

    def __call__(self, name: str, value: str) -> int:
        table = self.codes[name]
        if value not in table and len(table) < UNKNOWN:
            table[value] = len(table)
        return table.get(value, UNKNOWN)


def fit(examples: Sequence[tuple[Context, dict]], seed: int = 0):
    """(boosters by role, category codes)."""
    import lightgbm
    import numpy as np

    codes, boosters = _Codes(), {}
    for role in ("alpha", "beta"):
        rows = feature_matrix([ctx for ctx, _ in examples], role, codes)
        labels = [int(cand[0] == gold[role]) for ctx, gold in examples
                  for cand in ctx.candidates[role]]
        data = lightgbm.Dataset(rows, np.asarray(labels),
                                categorical_feature=list(range(len(CATEGORICAL))))
        boosters[role] = lightgbm.train({**PARAMS, "seed": seed}, data, num_boost_round=ROUNDS)
    return boosters, codes.codes


def parsed_trees(docs, parser) -> Callable:
    """A function from each of ``docs`` to its bracketed trees, every document parsed once by
    ``parser`` over GDTB's tokens and sentences."""
    from .scorer import gdtb_sentences

    parsed = {d.name: [s.bracketed for s in gdtb_sentences(d, parser)] for d in docs}
    return lambda doc: parsed[doc.name]


def cross_validate(docs, folds: int, trees: Optional[Callable] = None, seed: int = 0,
                   progress: Optional[Callable] = None, path="GDTB") -> dict:
    """``mapping eval``'s figures for ``mapping="learned"`` over ``docs``, each document mapped by
    a model fitted on the other folds' documents (document ``i`` of the sorted names is in fold
    ``i % folds``). ``trees``: as for :func:`gdtb_examples` (None: the gold trees)."""
    from .argument_model import ArgumentModel
    from .scorer import evaluate_mapping

    docs = sorted(docs, key=lambda d: d.name)
    fold_of = {d.name: i % folds for i, d in enumerate(docs)}
    examples = {d.name: gdtb_examples([d], trees) for d in docs}
    models = []
    for k in range(folds):
        learn = [ex for d in docs if fold_of[d.name] != k for ex in examples[d.name]]
        if not learn:
            from .errors import DataFormatError, Errors

            raise DataFormatError(Errors.E543.format(path=path, fold=k + 1, folds=folds))
        boosters, codes = fit(learn, seed)
        models.append(ArgumentModel(boosters, codes, {"fold": k}))
        if progress is not None:
            progress(k)
    result = evaluate_mapping(docs, mapping="learned", trees=trees,
                              arguments=lambda doc: models[fold_of[doc.name]])
    result["folds"] = folds
    return result


def save(out: Path, boosters: dict, codes: dict, info: dict) -> None:
    """Write ``alpha.txt``, ``beta.txt`` (LightGBM's text format) and ``meta.json`` (their
    digests, the codes)."""
    out.mkdir(parents=True, exist_ok=True)
    files = {}
    for role, booster in boosters.items():
        path = out / f"{role}.txt"
        booster.save_model(str(path))
        files[role] = {"file": path.name, "sha256": file_sha256(path)}
    meta = {"format": FORMAT, "files": files, "codes": codes,
            "params": {**PARAMS, "rounds": ROUNDS}, **info}
    (out / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n",
                                   encoding="utf-8")
