"""logicparse as a spaCy pipeline component.

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")          # or any pipeline that sets sentence boundaries
    nlp.add_pipe("logicparse")           # found through the ``spacy_factories`` entry point
    doc = nlp("If you go, I go too.")
    doc._.logic        # per spaCy token: label ids, shallowest keyword first ([] = E)
    doc._.relations    # Relation objects as in Document.relations (rel.keyword, rel.alpha, ...);
                       # token ranges index the spaCy Doc
    doc._.relation_dicts  # the same as plain dicts (what Doc.to_bytes and DocBin store)
    doc.spans["logic"] # keys, alpha and beta pieces labelled like "conditional:alpha"
    displacy.render(doc, style="span", options=displacy_options())  # the service page's colours

The component annotates the Doc's own tokens and sentences (it does not re-tokenise), with the
same parser, sense decisions and mapping as :class:`logicparse.Annotator`; whitespace tokens (and
control characters, which the Annotator reads as spaces) get no labels. ``nlp.pipe(texts,
batch_size=...)`` parses the sentences of a whole batch together; with ``n_process=N`` the forked
workers share the loaded models, each on one torch thread (spawned ones load them again). A
document that fails keeps empty labels and gets its message in ``doc._.logic_error``.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Optional

from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup
from spacy.util import raise_error

from .annotator import Annotator, segment_doc
from .errors import Errors, InputTextError, OptionError
from .taxonomy import LABELS, RELATION_COLORS
from .tokens import Relation

SPANS_KEY = "logic"


def _relations(doc: Doc) -> list[Relation]:
    return [Relation(**d) for d in doc._.relation_dicts or []]


# Plain dicts are stored (Doc.to_bytes and DocBin serialise them); objects are built on access.
_EXTENSIONS = {"logic": (None, None), "relation_dicts": (None, None),
               "logic_error": (None, None), "relations": (None, _relations)}
for _name, (_default, _getter) in _EXTENSIONS.items():
    if not Doc.has_extension(_name):
        Doc.set_extension(_name, **({"getter": _getter} if _getter else {"default": _default}))


def _check_extensions() -> None:
    """Refuse a Doc extension of the component's names that other code registered (a user's own
    ``relations``): the component would set or read the other one, and say nothing."""
    for name, (default, getter) in _EXTENSIONS.items():
        have = Doc.get_extension(name)
        if have is None or have[0] != default or have[2] is not getter or have[1] or have[3]:
            raise OptionError(Errors.E041.format(name=name))

# displaCy writes its span labels in black, so the page's relation colours are lightened by
# role (key strongest). Opaque tints, not transparency: where the label of a short span runs
# under the next one, the next label covers it cleanly instead of mixing their letters.
_ROLE_STRENGTH = {"key": 0.7, "alpha": 0.4, "beta": 0.25}


def _tint(colour: str, strength: float) -> str:
    rgb = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(255 - (255 - c) * strength):02x}" for c in rgb)


DISPLACY_COLORS = {label: _tint(RELATION_COLORS[label.split(":")[0]],
                                _ROLE_STRENGTH[label.split(":")[1]]) for label in LABELS[1:]}


def displacy_options(spans_key: str = SPANS_KEY) -> dict:
    """Options for ``displacy.render(doc, style="span", options=...)``: the component's span
    group, each relation in the service page's colour (key, alpha, beta lighter in turn)."""
    return {"spans_key": spans_key, "colors": dict(DISPLACY_COLORS)}


@Language.factory(
    "logicparse",
    default_config={"parser": "default", "senses": "default", "mapping": "default",
                    "batch_size": 32, "device": "cpu", "spans_key": SPANS_KEY},
    assigns=["doc._.logic", "doc._.relation_dicts", "doc._.logic_error", "doc.spans"],
    requires=["token.is_sent_start"],
)
def make_logicparse(nlp: Language, name: str, parser: str, senses: Optional[str], mapping: str,
                    batch_size: int, device: str, spans_key: str) -> "LogicComponent":
    return LogicComponent(nlp, name, parser=parser, senses=senses, mapping=mapping,
                          batch_size=batch_size, device=device, spans_key=spans_key)


class LogicComponent:
    """Sets ``doc._.logic``, ``doc._.relation_dicts`` (read as Relation objects through
    ``doc._.relations``), ``doc._.logic_error`` and ``doc.spans[spans_key]`` on every Doc."""

    def __init__(self, nlp: Language, name: str = "logicparse", parser: str = "default",
                 senses: Optional[str] = "default", mapping: str = "default", batch_size: int = 32,
                 device: str = "cpu", spans_key: str = SPANS_KEY):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise OptionError(Errors.E506.format(what="batch_size", name=batch_size,
                                                 opts="1, 2, 3, ..."))
        _check_extensions()
        self.name = name
        self.batch_size = batch_size
        self.spans_key = spans_key
        self.settings = {"parser": parser, "senses": senses, "mapping": mapping, "device": device}
        self.annotator = Annotator(**self.settings)
        self.error_handler = raise_error

    def __reduce__(self):
        # spaCy pickles the pipeline for workers it spawns (macOS, Windows, or a set start method);
        # a worker loads the models again from the same settings.
        return _rebuild, (self.name, self.batch_size, self.spans_key, self.settings)

    def set_error_handler(self, handler) -> None:
        """What ``nlp.set_error_handler`` sets: called as ``handler(name, component, docs, error)``
        for a batch that fails; when it returns, that batch's Docs are left out (spaCy's rule)."""
        self.error_handler = handler

    def get_error_handler(self):
        return self.error_handler

    def __call__(self, doc: Doc) -> Doc:
        # nlp(text) hands what a component raises to the error handler itself.
        return self._annotate([doc], raise_error)[0]

    def pipe(self, docs: Iterable[Doc], batch_size: Optional[int] = None) -> Iterator[Doc]:
        size = max(1, batch_size or self.batch_size)
        batch: list[Doc] = []
        docs = iter(docs)
        while True:
            try:
                doc = next(docs)
            except StopIteration:
                break
            except Exception:
                # The Docs read before the failure are the caller's: annotate and yield them.
                yield from self._annotate(batch, self.error_handler)
                raise
            batch.append(doc)
            if len(batch) >= size:
                yield from self._annotate(batch, self.error_handler)
                batch = []
        if batch:
            yield from self._annotate(batch, self.error_handler)

    def _annotate(self, docs: list[Doc], handler) -> list[Doc]:
        """The Docs annotated; a Doc without sentence boundaries goes to the error handler alone
        (the default raises E040), so that the others of its batch are not lost with it."""
        limit = self.annotator.max_sentence_tokens
        good, items = [], []
        for doc in docs:
            if len(doc) and not doc.has_annotation("SENT_START"):
                handler(self.name, self, [doc], InputTextError(Errors.E040.format(name=self.name)))
                continue
            items.append((str(len(good)), doc.text, segment_doc(doc, limit) if len(doc) else []))
            good.append(doc)
        try:
            for doc, record in zip(good, self.annotator.annotate_segmented(items)):
                _set_annotations(doc, record, self.spans_key)
        except Exception as e:  # each Doc's own failure is its logic_error: this is the batch's
            handler(self.name, self, good, e)
            return []
        return good


def _rebuild(name: str, batch_size: int, spans_key: str, settings: dict) -> LogicComponent:
    return LogicComponent(None, name, batch_size=batch_size, spans_key=spans_key, **settings)


def _set_annotations(doc: Doc, record, spans_key: str) -> None:
    # A Document token is a non-space spaCy token; both start at the same character.
    by_char = {tok.idx: tok.i for tok in doc if not tok.is_space}
    index = [by_char[start] for start in record.token_starts]

    def to_doc(ranges):
        return [[index[a], index[b - 1] + 1] for a, b in ranges]

    logic: list[list[int]] = [[] for _ in doc]
    for i, ids in zip(index, record.logic):
        logic[i] = list(ids)
    # A relation's sentence is the spaCy sentence of its keyword (logicparse's own pieces differ
    # where a blank line or the parser's length limit cuts one).
    sentence = {tok.i: n for n, sent in enumerate(doc.sents) for tok in sent} \
        if record.relations else {}
    relations, spans = [], []
    for rel in record.relations:
        row = rel.to_dict()
        row["sentence"] = sentence[index[rel.key[0][0]]]
        for role in ("key", "alpha", "beta"):
            row[role] = to_doc(getattr(rel, role))
            spans.extend(Span(doc, a, b, label=f"{rel.relation}:{role}") for a, b in row[role])
        relations.append(row)
    doc._.logic = logic
    doc._.relation_dicts = relations
    doc._.logic_error = record.error
    doc.spans[spans_key] = SpanGroup(doc, name=spans_key, spans=spans)

