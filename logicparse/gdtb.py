"""Reader for GDTB (PDTB-style discourse relations over GUM documents; layout of data/gdtb).

``DIR/raw/DOC``: text, tokens separated by single spaces. ``DIR/gold/DOC``: one relation per line,
34 ``|``-separated PDTB standoff fields (1-based: 1 type, 2 connective spans, 8 connective string,
9 sense, 15 Arg1 spans, 21 Arg2 spans; spans ``a..b`` joined by ``;``, character offsets into raw).
``DIR/const/DOC.mrg``: one tree per sentence over the same tokens. ``DIR/SPLITS.json``: split ->
document names.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Optional

from .errors import DataFormatError, Errors

CharSpans = list[tuple[int, int]]


@dataclass
class GdtbRelation:
    type: str  # Explicit, Implicit, AltLex, EntRel, ...
    connective: str  # field 8, as annotated (lower-case in GDTB)
    sense: str  # field 9, e.g. Contingency.Cause.Reason
    connective_spans: CharSpans
    arg1: CharSpans
    arg2: CharSpans


@dataclass
class GdtbDocument:
    name: str
    text: str
    const_path: Path
    relations: list[GdtbRelation] = field(default_factory=list)

    @cached_property
    def tokens(self) -> list[str]:
        return self.text.split(" ")

    @cached_property
    def token_starts(self) -> list[int]:
        starts, pos = [], 0
        for tok in self.tokens:
            starts.append(pos)
            pos += len(tok) + 1
        return starts

    @cached_property
    def trees(self) -> list[str]:
        return [line for line in self.const_path.read_text(encoding="utf-8").splitlines() if line.strip()]

    def tokens_in(self, spans: CharSpans) -> set[int]:
        """Indices of the tokens that lie inside the character spans."""
        out: set[int] = set()
        starts = self.token_starts
        for a, b in spans:
            i = bisect.bisect_left(starts, a)
            while i < len(starts) and starts[i] + len(self.tokens[i]) <= b:
                out.add(i)
                i += 1
        return out

    @property
    def explicit(self) -> list[GdtbRelation]:
        return [r for r in self.relations if r.type == "Explicit"]


def _spans(value: str, path: Path, line: int) -> CharSpans:
    out = []
    for part in filter(None, value.split(";")):
        try:
            a, b = part.split("..")
            out.append((int(a), int(b)))
        except ValueError:
            raise DataFormatError(Errors.E031.format(path=path, line=line,
                                                     reason=f"bad span {part!r}")) from None
    return out


def read_relations(path: Path) -> list[GdtbRelation]:
    rels = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        f = line.split("|")
        if len(f) < 21:
            raise DataFormatError(Errors.E031.format(
                path=path, line=n, reason=f"{len(f)} fields, expected 34"))
        rels.append(GdtbRelation(type=f[0], connective=f[7], sense=f[8],
                                 connective_spans=_spans(f[1], path, n),
                                 arg1=_spans(f[14], path, n), arg2=_spans(f[20], path, n)))
    return rels


def split_names(root: Path, split: Optional[str]) -> Optional[list[str]]:
    if split is None:
        return None
    splits = json.loads((root / "SPLITS.json").read_text(encoding="utf-8"))
    if split not in splits:
        raise DataFormatError(Errors.E032.format(split=split, path=root / "SPLITS.json",
                                                 opts=sorted(splits)))
    return list(splits[split])


def read_gdtb(root, split: Optional[str] = None) -> list[GdtbDocument]:
    """Documents of a GDTB directory, optionally only one split ("train", "dev")."""
    root = Path(root)
    missing = [p for p in ("raw", "gold", "const") if not (root / p).is_dir()]
    if split is not None and not (root / "SPLITS.json").is_file():
        missing.append("SPLITS.json")
    if missing:
        raise DataFormatError(Errors.E030.format(path=root, missing=", ".join(missing)))
    names = split_names(root, split) or sorted(p.name for p in (root / "gold").iterdir())
    docs = []
    for name in names:
        text = (root / "raw" / name).read_text(encoding="utf-8").rstrip("\n")
        docs.append(GdtbDocument(name=name, text=text, const_path=root / "const" / f"{name}.mrg",
                                 relations=read_relations(root / "gold" / name)))
    return docs
