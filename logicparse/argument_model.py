"""The learned α/β choice (``mapping="learned"``): the rules' spans, or a better candidate.

The candidates of each binary relation the rules have mapped (argument_candidates.py) are scored by
one LightGBM booster per role (trained on GDTB's annotated arguments by ``logicparse mapping
train``) for whether a candidate is exactly the argument; the best-scored α and β replace the
rules' spans, or, where those two share a token, the best pair that shares none. Unary relations
and coordinators joining phrases keep the rules' spans. The chosen token set becomes token ranges with
any punctuation between its tokens put back.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Optional

from .argument_candidates import UNKNOWN, feature_matrices
from .errors import Errors, ModelLoadError

FORMAT = "logicparse-arguments/2"
MAX_MODEL_BYTES = 50_000_000  # a booster's text is read whole: a larger file is refused first


def to_ranges(toks: frozenset, punct: set[int]) -> list[list[int]]:
    """Token ranges of a set, a gap of punctuation (token positions ``punct``) only closed."""
    out: list[list[int]] = []
    for t in sorted(toks):
        if out and all(i in punct for i in range(out[-1][1], t)):
            out[-1][1] = t + 1
        else:
            out.append([t, t + 1])
    return out


class ArgumentModel:
    """The two boosters (α, β) and the category codes they were trained with."""

    def __init__(self, boosters: dict, codes: dict, meta: dict):
        self.boosters, self.codes, self.meta = boosters, codes, meta

    def code(self, name: str, value: str) -> int:
        return self.codes[name].get(value, UNKNOWN)

    def choose(self, found: list) -> None:
        """Replace the rules' α and β of each (relation, Context) by the best-scored candidates
        that share no token, where such a pair exists (:func:`disjoint_pair`); ``found`` may hold
        many documents' relations, which are scored in one call per role."""
        import numpy as np

        matrices = feature_matrices([ctx for _, ctx in found], self.code)
        scores = {}
        for role in ("alpha", "beta"):
            sizes = [len(ctx.meta[role]) for _, ctx in found]
            p = (self.boosters[role].predict(matrices[role], num_threads=1) if sum(sizes)
                 else np.zeros(0))
            ends = np.cumsum(sizes).tolist()
            scores[role] = [p[e - n:e] for n, e in zip(sizes, ends)]
        for (rel, ctx), pa, pb in zip(found, scores["alpha"], scores["beta"]):
            if len(pa) and len(pb):
                best = zip(("alpha", "beta"),
                           disjoint_pair(ctx.masks["alpha"], ctx.masks["beta"], pa, pb))
            else:  # argmax: the first of equal scores, in candidate order
                best = [(role, int(np.argmax(p))) for role, p in (("alpha", pa), ("beta", pb))
                        if len(p)]
            for role, i in best:
                setattr(rel, role, to_ranges(ctx.tokens(role, i), ctx.punct))


def disjoint_pair(alpha_masks, beta_masks, pa, pb) -> tuple[int, int]:
    """The best-scored α and β (rows of token masks, their probabilities), or, where those two
    share a token, the disjoint pair of the highest product of probabilities: GDTB's two
    arguments share no token (20 of 4,780 relations of train aside). The best pair is kept
    where no disjoint pair exists."""
    import numpy as np

    a, b = int(np.argmax(pa)), int(np.argmax(pb))
    if not (alpha_masks[a] & beta_masks[b]).any():
        return a, b
    shared = alpha_masks.astype(np.float32) @ beta_masks.T.astype(np.float32) > 0  # BLAS
    joint = np.log(np.asarray(pa) + 1e-9)[:, None] + np.log(np.asarray(pb) + 1e-9)[None, :]
    joint[shared] = -np.inf
    if np.isinf(joint).all():
        return a, b
    i, j = np.unravel_index(int(np.argmax(joint)), joint.shape)
    return int(i), int(j)


def bundled_model_dir() -> Path:
    return Path(__file__).parent / "models" / "arguments"


def _booster(path: Path, sha256: str):
    """A LightGBM booster from its text file, checked: present, of a sane size, and unchanged
    since training (LightGBM's text holds trees and numbers only)."""
    import lightgbm

    size = path.stat().st_size
    if size > MAX_MODEL_BYTES:
        raise ValueError(f"{path.name} has {size:,} bytes, over {MAX_MODEL_BYTES:,}")
    text = path.read_bytes()
    if hashlib.sha256(text).hexdigest() != sha256:
        raise ValueError(f"{path.name} does not match the sha256 meta.json records (altered or "
                         "from another training)")
    try:
        return lightgbm.Booster(model_str=text.decode("utf-8"))
    except lightgbm.basic.LightGBMError as e:
        raise ValueError(f"{path.name} is not a LightGBM model ({e})") from e


@lru_cache(maxsize=4)
def load_argument_model(directory: Optional[str] = None) -> ArgumentModel:
    """The model in ``directory`` (the bundled one by default), its files checked against the
    digests ``meta.json`` records."""
    path = Path(directory) if directory else bundled_model_dir()
    meta_path = path / "meta.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT:
            raise ValueError(f"{meta_path.name} says format {meta.get('format')!r}, not {FORMAT!r}")
        files, codes = meta["files"], meta["codes"]
        boosters = {role: _booster(path / files[role]["file"], files[role]["sha256"])
                    for role in ("alpha", "beta")}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError,
            ValueError) as e:
        raise ModelLoadError(Errors.E542.format(path=path, reason=e)) from e
    return ArgumentModel(boosters, codes, meta)
