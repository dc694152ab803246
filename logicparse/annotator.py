"""Text -> Document: tokenise and split sentences (spaCy, segmentation.py), parse (benepar),
detect and map keywords (mapping.py), disambiguate senses (senses/), layer the labels.

``annotate_trees`` runs the same steps from given trees, without a parser.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Generator, Iterable, Iterator, Optional, Sequence, Union

from .edges import tidy_arguments
from .errors import Errors, InputTextError, LogicparseError, TreeFormatError
from .language import warn_if_not_english
from .mapping import DEFAULT_MAPPING, Match, check_mapping, find_keywords, layer_labels, map_keyword
from .ptb import split_trees
from .retry import drain, one_by_one_steps
from .segmentation import CONTROL, Segment, load_spacy, segment_doc
from .senses import SenseDecision, SenseModel, load_checked, load_senses
from .senses.decide import query as sense_query
from .taxonomy import RELATIONS, category
from .tokens import Document, Relation
from .trees import ParseTree, read_tree, strip_wrappers

logger = logging.getLogger(__name__)

_SURROGATE = re.compile(r"[\ud800-\udfff]")
_NO_ID = object()

# The parser's work on a sentence grows faster than its length (the chart is quadratic), and so
# do its time and memory: a 300-token sentence took 72 times as long as a 25-token one (6 times
# per token), and four of them parsed together raised the process's peak RSS by 1 GB
# (benchmarks/speed/parse_cost.py). So the sentences of a batch are parsed in chunks whose summed
# squared lengths stay under this bound: one sentence of the parser's longest (300 tokens), or a
# few hundred ordinary ones.
PARSE_CHUNK_COST = 300 ** 2

# Keyword occurrences handed to the sense model at once. With the default classifiers one costs
# about 12 ms (encoder included, one torch thread), so a chunk is under half a second of work:
# a scheduler that steps the work (the service's pool) can interleave other requests and stop
# it between chunks, which it could not do while thousands of occurrences were one call.
DECIDE_CHUNK = 32


@dataclass
class Sentence:
    tokens: list[str]
    starts: list[int]  # character offsets of the tokens in the document text
    ends: list[int]
    tree: ParseTree
    bracketed: str


def check_text(text, max_chars: Optional[int] = None) -> str:
    """Validate input text; returns it unchanged. Bytes must be valid UTF-8 (they are decoded);
    a str with lone surrogates (undecodable bytes smuggled through surrogateescape) is refused,
    and so is a text longer than ``max_chars`` characters."""
    if isinstance(text, (bytes, bytearray)):
        try:
            return bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputTextError(Errors.E003.format(pos=e.start, reason=e.reason)) from None
    if not isinstance(text, str):
        raise InputTextError(Errors.E001.format(type=type(text).__name__))
    m = _SURROGATE.search(text)
    if m:
        raise InputTextError(Errors.E002.format(pos=m.start(), char=m.group()))
    if max_chars is not None and len(text) > max_chars:
        raise InputTextError(Errors.E333.format(n=len(text), limit=max_chars))
    return text


def parse_chunks(lengths: Sequence[int], budget: int = PARSE_CHUNK_COST) -> list[tuple[int, int]]:
    """[start, end) ranges of consecutive sentences (given by their token counts) whose squared
    lengths sum to at most ``budget``; a longer sentence is a chunk of its own."""
    out, start, cost = [], 0, 0
    for i, n in enumerate(lengths):
        if i > start and cost + n * n > budget:
            out.append((start, i))
            start, cost = i, 0
        cost += n * n
    if start < len(lengths):
        out.append((start, len(lengths)))
    return out


def _resolve_senses(senses, device: str = "cpu") -> Optional[SenseModel]:
    """None, a SenseModel object, or a spec for ``load_senses`` ("default", a path)."""
    if senses is None or hasattr(senses, "disambiguate"):
        return senses
    return load_senses(senses, device=device)


def _decide_steps(matches: Sequence[tuple[Sentence, Match]], senses: Optional[SenseModel]):
    """Steps (see ``logicparse.retry.drain``) returning one decision per match: with
    ``senses=None`` the lexicon's sense (the paper's literal behaviour); otherwise the sense
    model's, which gets every occurrence with its sentence's tree (tree rules, then classifiers,
    then the lexicon: ``logicparse.senses.decide``), ``DECIDE_CHUNK`` occurrences at a time with
    a step before each chunk."""
    if senses is None:
        return [SenseDecision(m.keyword.senses[0], 1.0, "lexicon") for _, m in matches]
    decisions: list[SenseDecision] = []
    for a in range(0, len(matches), DECIDE_CHUNK):
        yield
        chunk = matches[a:a + DECIDE_CHUNK]
        decisions.extend(senses.disambiguate([sense_query(m.keyword, sent.tokens, m.start, m.end,
                                                          sent.tree) for sent, m in chunk]))
    for (_, m), d in zip(matches, decisions):
        if d.relation is not None and d.relation not in RELATIONS:
            raise LogicparseError(Errors.E022.format(
                relation=d.relation, keyword=m.keyword.text, opts=RELATIONS))
    return decisions


def extends_lists(senses, mapping: str) -> bool:
    """Whether the keyword lists' extensions (``never``, ``whereas``, …) are matched: by the
    default annotator only; ``senses=None`` or ``mapping="paper"`` keep the paper's lists."""
    return senses is not None and mapping in ("default", "learned")


def build_documents(items: Sequence[tuple[str, str, list[Sentence]]],
                    senses: Optional[SenseModel] = None, mapping: str = DEFAULT_MAPPING,
                    arguments=None) -> list[Document]:
    """(id, text, sentences) -> Documents. Sense queries of all items go to the classifier
    together (in chunks of ``DECIDE_CHUNK``), so that ``pipe`` encodes many keywords per encoder
    call. ``mapping``: "default", "paper" (Algorithm 1 exactly; mapping.py) or "learned"
    (argument_model.py; ``arguments``: its ArgumentModel, the bundled one by default)."""
    return drain(build_documents_steps(items, senses, mapping, arguments))


def build_documents_steps(items: Sequence[tuple[str, str, list[Sentence]]],
                          senses: Optional[SenseModel] = None, mapping: str = DEFAULT_MAPPING,
                          arguments=None):
    """``build_documents`` as steps: one before each chunk of decisions, one before mapping."""
    found: list[tuple[int, int, int, Sentence, Match]] = []  # (item, sentence, offset, ...)
    extended = extends_lists(senses, mapping)
    for d, (_, _, sentences) in enumerate(items):
        offset = 0
        for s, sent in enumerate(sentences):
            for m in find_keywords(sent.tokens, extended):
                found.append((d, s, offset, sent, m))
            offset += len(sent.tokens)
    decisions = yield from _decide_steps([(f[3], f[4]) for f in found], senses)
    yield  # before mapping and labelling
    per_doc: list[list[Relation]] = [[] for _ in items]
    rules = "default" if mapping == "learned" else mapping  # the learned choice starts from them
    sent_starts: list[list[int]] = []
    for _, _, sentences in items:
        starts, off = [], 0
        for sent in sentences:
            starts.append(off)
            off += len(sent.tokens)
        sent_starts.append(starts)
    for (d, s, offset, sent, m), dec in zip(found, decisions):
        if dec.relation is None:
            continue
        cat = category(m.keyword.text, dec.relation)
        previous = (sent_starts[d][s - 1], offset) if s > 0 else None
        depth, alpha, beta = map_keyword(sent.tree, m.start, m.end, cat, offset, previous, rules)
        per_doc[d].append(Relation(
            keyword=" ".join(sent.tokens[m.start:m.end]), relation=dec.relation, category=cat,
            sentence=s, depth=depth, key=[[m.start + offset, m.end + offset]], alpha=alpha,
            beta=beta, sense_source=dec.source, confidence=float(dec.confidence)))

    all_tokens = [[t for s in sentences for t in s.tokens] for _, _, sentences in items]
    learned: list = []  # (relation, its candidates) of every document: scored in one call
    for (_, _, sentences), tokens, relations, starts in zip(items, all_tokens, per_doc,
                                                             sent_starts):
        if rules == "default":
            tidy_arguments(tokens, relations)
        if mapping == "learned":
            from .argument_candidates import contexts

            learned += contexts([s.tree for s in sentences], starts, tokens, relations)
    if learned:
        from .argument_model import load_argument_model

        (arguments or load_argument_model()).choose(learned)
    return [Document(id=doc_id, text=text, tokens=tokens,
                     token_starts=[o for s in sentences for o in s.starts],
                     token_ends=[o for s in sentences for o in s.ends],
                     sentence_starts=starts, logic=layer_labels(len(tokens), relations),
                     relations=relations, parse=[s.bracketed for s in sentences])
            for (doc_id, text, sentences), tokens, relations, starts
            in zip(items, all_tokens, per_doc, sent_starts)]


def _tree_sentences(trees: Union[str, Sequence[str]]) -> list[Sentence]:
    if isinstance(trees, str):
        trees = list(split_trees(trees))
    elif not isinstance(trees, (list, tuple)):
        raise TreeFormatError(Errors.E013.format(type=type(trees).__name__))
    if any(isinstance(s, (list, tuple)) for s in trees):
        raise TreeFormatError(Errors.E025.format(n=len(trees)))
    sentences, pos = [], 0
    for s in trees:
        tree = read_tree(s)
        starts, ends = [], []
        for tok in tree.leaves:
            starts.append(pos)
            ends.append(pos + len(tok))
            pos += len(tok) + 1
        sentences.append(Sentence(tree.leaves, starts, ends, tree, s.strip()))
    return sentences


def annotate_trees(trees: Union[str, Sequence[str]], senses=None, id: str = "",
                   mapping: str = DEFAULT_MAPPING) -> Document:
    """Detection and mapping on given bracketed trees (one per sentence, in order, or one string
    holding them all), without a parser. ``text`` stays empty; token offsets index the tokens
    joined by single spaces. ``senses`` defaults to None here, unlike :class:`Annotator`: each
    keyword keeps its lexicon relation (the paper's literal behaviour) unless ``senses="default"``
    (tree rules + sense classifiers, as the Annotator decides) or another sense spec is given.
    ``mapping="paper"`` is Algorithm 1 exactly; "default" widens α and β to the arguments
    measured better on GDTB (docs/mapping.md)."""
    return build_documents([(id, "", _tree_sentences(trees))], _resolve_senses(senses),
                           check_mapping(mapping))[0]


class Annotator:
    """Text -> Document with spaCy (tokens, sentences), a constituency parser and sense models.

    ``parser``: "default" (the bundled model), a benepar model name such as "benepar_en3", or a
    path. ``senses``: "default" (bundled SVMs), a path, or None to keep each keyword's lexicon sense
    (no encoder is loaded); the default decides, unlike :func:`annotate_trees`, whose default is
    None. ``spacy_model``: None for spaCy's rule-based English tokenizer and
    sentencizer (no download needed), or an installed pipeline name such as "en_core_web_sm".
    ``mapping``: "default" (α/β widened to the arguments measured better on GDTB), "learned"
    (the default's spans or a candidate the bundled classifier scores higher) or "paper"
    (Algorithm 1 exactly).
    """

    def __init__(self, parser="default", senses="default", device: str = "cpu",
                 spacy_model: Optional[str] = None, mapping: str = DEFAULT_MAPPING):
        from .parser import check_parser, load_parser
        from .resources import check_device, senses_spec

        self.mapping = check_mapping(mapping)
        check_device(device)
        # Both values are checked before either model loads: a typo costs no loading time.
        if not hasattr(senses, "disambiguate"):
            senses = senses_spec(senses)
        if not hasattr(parser, "parse"):
            check_parser(parser)
        self.parser = parser if hasattr(parser, "parse") else load_parser(parser, device=device)
        self.senses = senses if hasattr(senses, "disambiguate") else \
            load_checked(senses, device=device)  # checked above, where it entered
        self.nlp = load_spacy(spacy_model)
        if self.mapping == "learned":  # a missing or altered model fails here, not mid-run
            from .argument_model import load_argument_model

            load_argument_model()

    @property
    def max_chars(self) -> int:
        """The longest text accepted, in characters: spaCy's ``nlp.max_length`` (1,000,000 by
        default; raise it on ``annotator.nlp`` for longer texts, memory permitting)."""
        return self.nlp.max_length

    def annotate(self, text, id: str = "") -> Document:
        """One document. Raises InputTextError for text that is not valid Unicode or longer than
        ``max_chars``; empty or whitespace-only text gives an empty Document. For many texts
        use :meth:`pipe`."""
        if isinstance(text, (list, tuple, Iterator)):
            raise InputTextError(Errors.E004.format(type=type(text).__name__))
        return self._annotate_batch([(id, check_text(text, self.max_chars))])[0]

    def pipe(self, texts: Iterable, batch_size: int = 32, ids: Optional[Iterable[str]] = None,
             ) -> Iterator[Document]:
        """Annotate many documents, parsing the sentences of ``batch_size`` documents together.
        A document that fails yields a Document with ``error`` set (never dropped, never raised),
        so that every input gives exactly one output, in order.

        ``ids``, when given, must hold one id per text. If ``texts`` (or ``ids``) raises, or the
        ids run out before the texts, the documents already read are annotated and yielded
        first; then the error is raised. More ids than texts is raised after the last document.
        """
        if isinstance(texts, (str, bytes)):
            raise InputTextError(Errors.E005.format(type=type(texts).__name__))
        ids_it = iter(ids) if ids is not None else None
        texts_it = iter(texts)
        batch: list[tuple[str, object]] = []
        failure: Optional[BaseException] = None
        n = 0
        while True:
            try:
                text = next(texts_it)
                doc_id = str(n) if ids_it is None else next(ids_it, _NO_ID)
            except StopIteration:
                break
            except Exception as e:  # noqa: BLE001 - raised below, once the batch read is out
                failure = e
                break
            if doc_id is _NO_ID:
                failure = InputTextError(Errors.E330.format(n=n, index=n))
                break
            batch.append((doc_id, text))
            n += 1
            if len(batch) >= batch_size:
                yield from self._pipe_batch(batch)
                batch = []
        if batch:
            yield from self._pipe_batch(batch)
        if failure is None and ids_it is not None and next(ids_it, _NO_ID) is not _NO_ID:
            failure = InputTextError(Errors.E331.format(n=n))
        if failure is not None:
            raise failure

    def pipe_steps(self, texts: Sequence, ids: Sequence[str]) -> Generator[None, None, list[Document]]:
        """``pipe`` over one batch, as a generator: it yields after each chunk of parser work
        (bounded in time and memory, see ``PARSE_CHUNK_COST``) and returns the Documents. A
        scheduler steps it to interleave other work, or closes it to stop the work between two
        chunks (threads cannot be stopped from outside)."""
        if len(texts) != len(ids):
            raise InputTextError(Errors.E330.format(n=len(ids), index=len(ids)) if len(ids) < len(
                texts) else Errors.E331.format(n=len(texts)))
        return (yield from self._pipe_batch_steps(list(zip(ids, texts))))

    def _pipe_batch(self, batch: list[tuple[str, object]]) -> list[Document]:
        return drain(self._pipe_batch_steps(batch))

    def _pipe_batch_steps(self, batch: list[tuple[str, object]]):
        checked: list[tuple[str, str]] = []
        errors: dict[int, Document] = {}
        for i, (doc_id, text) in enumerate(batch):
            try:
                checked.append((doc_id, check_text(text, self.max_chars)))
            except LogicparseError as e:
                errors[i] = Document.failed(doc_id, text if isinstance(text, str) else "", str(e))
        done = iter((yield from self._segmented_steps(checked, segment=True)))
        return [errors[i] if i in errors else next(done) for i in range(len(batch))]

    def annotate_segmented(self, items: Sequence[tuple[str, str, list[Segment]]]) -> list[Document]:
        """(id, text, sentences) -> Documents, the sentences already tokenised (see ``segment``;
        the spaCy component passes a spaCy Doc's). The sentences are parsed in bounded chunks
        (``PARSE_CHUNK_COST``); if that fails, the documents are annotated one by one, so that
        only the failing ones come back with ``error`` set (E320)."""
        return drain(self._segmented_steps(items))

    def _segmented_steps(self, items: Sequence[tuple], segment: bool = False):
        """Steps over (id, text, sentences) items, or (id, text) items to ``segment`` first; the
        error policy of logicparse.retry: a document that fails alone gets ``error`` (E320)."""
        def run(batch):
            if segment:
                batch = [(doc_id, text, self.segment(text)) for doc_id, text in batch]
            return (yield from self._parse_and_build(batch))

        return (yield from one_by_one_steps(items, run, lambda item, e: Document.failed(
            item[0], item[1], Errors.E320.format(type=type(e).__name__, message=e))))

    def _annotate_batch(self, docs: Sequence[tuple[str, str]]) -> list[Document]:
        return drain(self._parse_and_build([(d, t, self.segment(t)) for d, t in docs]))

    def _parse_and_build(self, items: Sequence[tuple[str, str, list[Segment]]]):
        """Steps: one before each chunk of parsing, each chunk of decisions, and the mapping."""
        flat = [toks for _, _, sents in items for toks, _, _ in sents]
        # Shortest first over all the documents of the batch, so that the parser's batches hold
        # sentences of about the same length (little padding); the trees go back in order.
        order = sorted(range(len(flat)), key=lambda i: len(flat[i]))
        trees: list = [None] * len(flat)
        for a, b in parse_chunks([len(flat[i]) for i in order]):
            yield
            for i, tree in zip(order[a:b], self.parser.parse([flat[i] for i in order[a:b]])):
                trees[i] = tree
        parsed = iter(trees)
        out = []
        for doc_id, text, sents in items:
            sentences = []
            for toks, starts, ends in sents:
                tree = next(parsed)
                sentences.append(Sentence(toks, starts, ends, strip_wrappers(tree), tree.to_string()))
            out.append((doc_id, text, sentences))
        warn_if_not_english(out)
        return (yield from build_documents_steps(out, self.senses, self.mapping))

    @property
    def max_sentence_tokens(self) -> int:
        return max(1, int(getattr(self.parser, "max_length", 512)))

    def segment(self, text: str) -> list[Segment]:
        """Sentences as (tokens, starts, ends), by spaCy; see ``segment_doc``."""
        clean = CONTROL.sub(" ", text)  # offsets still index the original text
        if not clean.strip():
            return []
        return segment_doc(self.nlp(clean), self.max_sentence_tokens)
