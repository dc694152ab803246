"""The Document record: one per input document.

The same record is an Arrow row in the shards, the REST response body, and ``Document.to_dict()``.
Its fields are declared once, here; each carries its Arrow type in ``Annotated`` metadata, and the
Arrow schema (``ARROW_SCHEMA``) and the service's response model are derived from these classes.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from typing import Annotated, Optional

import pyarrow as pa

# Bump when a field is added, removed or changes type: shards record it, readers check it.
SCHEMA_VERSION = "1"

# Decimals kept of a relation's confidence. Shards store it as float32 and JSON as float64: rounded
# when the Relation is made (and again when one is read back), both give the same number.
CONFIDENCE_DECIMALS = 4

Span = list[list[int]]  # [[start, end), ...] document-level token ranges, sorted, disjoint
_SPAN = pa.list_(pa.list_(pa.int32()))


@dataclass
class Relation:
    keyword: Annotated[str, pa.string()]  # as written in the text
    relation: Annotated[str, pa.string()]  # one of the 12 RELATIONS
    category: Annotated[str, pa.string()]  # unary | intrinsic | extrinsic
    sentence: Annotated[int, pa.int32()]
    depth: Annotated[int, pa.int32()]  # depth of the keyword node, root = 0
    key: Annotated[Span, _SPAN]
    alpha: Annotated[Span, _SPAN]
    beta: Annotated[Span, _SPAN]
    sense_source: Annotated[str, pa.string()] = "lexicon"  # lexicon | rule | classifier
    confidence: Annotated[float, pa.float32()] = 1.0  # rounded to CONFIDENCE_DECIMALS

    def __post_init__(self):
        self.confidence = round(float(self.confidence), CONFIDENCE_DECIMALS)
        # Spans are lists of [start, end] lists whatever they came as (spaCy's DocBin and
        # msgpack give tuples back), so a record equals itself after a round trip.
        for role in ("key", "alpha", "beta"):
            span = getattr(self, role)
            if span and not all(type(piece) is list for piece in span):
                setattr(self, role, [list(piece) for piece in span])
            elif type(span) is not list:
                setattr(self, role, list(span))

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass
class Document:
    id: Annotated[str, pa.string()] = ""
    text: Annotated[str, pa.string()] = ""  # empty when built from trees
    tokens: Annotated[list[str], pa.list_(pa.string())] = field(default_factory=list)
    # Character offsets into text; for a Document built from trees (text empty) they index the
    # tokens joined by single spaces.
    token_starts: Annotated[list[int], pa.list_(pa.int32())] = field(default_factory=list)
    token_ends: Annotated[list[int], pa.list_(pa.int32())] = field(default_factory=list)
    sentence_starts: Annotated[list[int], pa.list_(pa.int32())] = field(default_factory=list)
    # Per token: label ids sorted by keyword depth (shallowest first, ties by keyword position).
    logic: Annotated[list[list[int]], pa.list_(pa.list_(pa.uint8()))] = field(default_factory=list)
    relations: Annotated[list[Relation], "relations"] = field(default_factory=list)
    parse: Annotated[Optional[list[str]], pa.list_(pa.string())] = None
    error: Annotated[Optional[str], pa.string()] = None

    def to_dict(self) -> dict:
        """The record with plain Python types (JSON-ready)."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["relations"] = [r.to_dict() for r in self.relations]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Document":
        rels = [Relation(**r) for r in d.get("relations") or []]
        kw = {f.name: d.get(f.name, f.default if f.default is not dataclasses.MISSING else None)
              for f in dataclasses.fields(cls) if f.name != "relations"}
        for name in ("tokens", "token_starts", "token_ends", "sentence_starts", "logic"):
            kw[name] = list(kw[name] or [])
        return cls(relations=rels, **kw)

    @classmethod
    def failed(cls, id: str, text: str, error: str) -> "Document":
        """The row for a document that could not be annotated: id, text and error, rest empty."""
        return cls(id=id, text=text, error=error)

    @property
    def sentences(self) -> list[tuple[int, int]]:
        """[start, end) token range of each sentence."""
        ends = self.sentence_starts[1:] + [len(self.tokens)]
        return list(zip(self.sentence_starts, ends))

    def labels(self, token: int) -> list[str]:
        """Label names of one token, in layer order."""
        from ..taxonomy import LABELS

        return [LABELS[i] for i in self.logic[token]]


def _arrow_type(hint) -> pa.DataType:
    meta = typing.get_args(hint)[1]
    if meta == "relations":
        return pa.list_(pa.struct(_arrow_fields(Relation)))
    return meta


def _arrow_fields(cls) -> list[pa.Field]:
    hints = typing.get_type_hints(cls, include_extras=True)
    return [pa.field(f.name, _arrow_type(hints[f.name])) for f in dataclasses.fields(cls)]


ARROW_SCHEMA: pa.Schema = pa.schema(_arrow_fields(Document), metadata={
    b"logicparse.schema_version": SCHEMA_VERSION.encode()})
