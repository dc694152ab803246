"""The downstream tasks of the paper's section 5 (DREAM, LogiQA, DialogSum): readers for the
formats of ``data/tasks/``, and their logic labels, annotated once and cached as Arrow shards.

Labels are looked up by text (a hash of it), not by position, so the same sentence shared by many
questions is annotated once, and shards made by ``logicparse annotate`` on a JSONL of
``{"id", "text"}`` rows serve as well as the cache this module writes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional

from ..errors import DataFormatError, Errors
from ..tokens import Document

log = logging.getLogger(__name__)

MULTIPLE_CHOICE, SEQ2SEQ = "multiple_choice", "seq2seq"


@dataclass
class ChoiceExample:
    id: str
    context: str
    question: str
    options: list[str]
    label: int


@dataclass
class SummaryExample:
    id: str
    dialogue: str
    summaries: list[str]  # one reference for train/dev, three for DialogSum test


# --- readers ---------------------------------------------------------------------------------


def read_dream(path: str) -> list[ChoiceExample]:
    """DREAM JSON: a list of ``[turns, [{"question", "choice", "answer"}, ...], dialogue_id]``.
    The dialogue turns are joined by newlines into one context."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    out = []
    for n, item in enumerate(data):
        if not (isinstance(item, list) and len(item) == 3):
            raise DataFormatError(Errors.E520.format(path=path, where=f"item {n}",
                                                     reason="expected [turns, questions, id]"))
        turns, questions, dialogue_id = item
        for q, qa in enumerate(questions):
            options = list(qa["choice"])
            if qa["answer"] not in options:
                raise DataFormatError(Errors.E520.format(
                    path=path, where=f"dialogue {dialogue_id} question {q}",
                    reason=f"answer {qa['answer']!r} is not one of the choices"))
            out.append(ChoiceExample(f"{dialogue_id}-{q}", "\n".join(turns), qa["question"],
                                     options, options.index(qa["answer"])))
    return out


_OPTION = re.compile(r"^\s*([A-D])\s*[.．、)]\s*")


def read_logiqa(path: str) -> list[ChoiceExample]:
    """LogiQA text: blocks of a blank line, the answer letter, context, question, four options
    ``A.`` to ``D.``."""
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\r\n") for line in f]
    out, i = [], 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        block = lines[i:i + 7]
        where = f"line {i + 1}"
        letter = block[0].strip().lower()
        if letter not in ("a", "b", "c", "d") or len(block) < 7:
            raise DataFormatError(Errors.E520.format(
                path=path, where=where, reason=f"expected an answer letter a-d and six lines "
                f"(context, question, options A-D), got {block[0][:40]!r}"))
        options = []
        for j, line in enumerate(block[3:7]):
            m = _OPTION.match(line)
            if m and m.group(1) == "ABCD"[j]:
                line = line[m.end():]
            elif f"{'ABCD'[j]}." in line:
                # The released files have a few options whose letter slipped into the sentence
                # ("Most of the spirits on the C.S City market ..."): the position still says which.
                line = line.replace(f"{'ABCD'[j]}.", "", 1)
            elif not line.strip():
                raise DataFormatError(Errors.E520.format(
                    path=path, where=f"line {i + 4 + j}", reason=f"option {'ABCD'[j]} is missing"))
            options.append(line.strip())
        out.append(ChoiceExample(f"{Path(path).stem}-{len(out)}", block[1].strip(),
                                 block[2].strip(), options, "abcd".index(letter)))
        i += 7
    return out


def read_dialogsum(path: str) -> list[SummaryExample]:
    """DialogSum JSONL: ``dialogue`` and ``summary`` (train/dev) or ``summary1..3`` (test)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            refs = [row[k] for k in ("summary", "summary1", "summary2", "summary3") if row.get(k)]
            if "dialogue" not in row or not refs:
                raise DataFormatError(Errors.E520.format(
                    path=path, where=f"line {n}", reason="expected 'dialogue' and 'summary' fields"))
            out.append(SummaryExample(str(row.get("fname", n)), row["dialogue"], refs))
    return out


@dataclass(frozen=True)
class Task:
    name: str
    kind: str
    reader: Callable[[str], list]
    files: dict = field(default_factory=dict)  # split -> default file name inside --data

    def read(self, path: str) -> list:
        return self.reader(path)


TASKS = {
    "dream": Task("dream", MULTIPLE_CHOICE, read_dream,
                  {"train": "train.json", "dev": "dev.json", "test": "test.json"}),
    "logiqa": Task("logiqa", MULTIPLE_CHOICE, read_logiqa,
                   {"train": "Train.txt", "dev": "Eval.txt", "test": "Test.txt"}),
    "dialogsum": Task("dialogsum", SEQ2SEQ, read_dialogsum,
                      {"train": "dialogsum.train.jsonl", "dev": "dialogsum.dev.jsonl",
                       "test": "dialogsum.test.jsonl"}),
}


def get_task(name: str) -> Task:
    if name not in TASKS:
        raise DataFormatError(Errors.E506.format(what="task", name=name, opts=", ".join(TASKS)))
    return TASKS[name]


def split_files(task: Task, data: Optional[str], overrides: dict) -> dict[str, Optional[str]]:
    """Path of each split: an explicit ``--train/--dev/--test`` file, else the task's file name
    inside ``data`` when it exists. Training needs a train file; dev and test are optional."""
    out = {}
    for split, name in task.files.items():
        path = overrides.get(split) or (os.path.join(data, name) if data else None)
        if overrides.get(split) and not os.path.isfile(path):
            raise DataFormatError(Errors.E521.format(path=path, option=split, task=task.name,
                                                     files=", ".join(task.files.values())))
        out[split] = path if path and os.path.isfile(path) else None
    if out["train"] is None:
        raise DataFormatError(Errors.E521.format(
            path=overrides.get("train") or os.path.join(data or ".", task.files["train"]),
            option="train", task=task.name, files=", ".join(task.files.values())))
    return out


# --- texts and their labels --------------------------------------------------------------------


def text_id(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:20]


def texts_of(examples: Iterable) -> list[str]:
    """Every text a model reads, once each, in first-seen order: contexts, questions and options
    (annotated apart: a question and an option are joined after annotation), or dialogues."""
    seen: dict[str, None] = {}
    for ex in examples:
        parts = [ex.context, ex.question, *ex.options] if isinstance(ex, ChoiceExample) \
            else [ex.dialogue]
        for t in parts:
            seen.setdefault(t, None)
    return list(seen)


def default_cache_dir(data_file: str) -> Path:
    """Next to the data when that directory is writable, else under ~/.cache/logicparse."""
    here = Path(data_file).resolve().parent
    # The mode bits as well as access(): root may write anywhere, but a directory that nobody
    # may write (a shared, read-only data set) is not ours to fill.
    if os.access(here, os.W_OK) and here.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return here / ".logicparse-shards"
    key = hashlib.sha1(str(here).encode()).hexdigest()[:12]
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return root / "logicparse" / "shards" / f"{here.name}-{key}"


def load_labels(shards: str, texts: list[str]) -> tuple[dict[str, Document], list[str]]:
    """Documents of the shard directories at or under ``shards`` for ``texts`` (by text),
    checked; returns them and the missing texts. A finished run is verified against its manifest
    (sha256); an unfinished one (an annotation that was interrupted) is not read, so its texts
    count as missing and are annotated again."""
    from ..batch.shards import find_shard_dirs, iter_documents, read_manifest
    from ..modeling.aligner import check_document, document_text

    wanted = {text_id(t): t for t in texts}
    found: dict[str, Document] = {}
    for run in find_shard_dirs(shards):
        manifest = read_manifest(run)
        if manifest is not None and not manifest.get("complete"):
            log.warning("%s is an unfinished annotation run: not read", run)
            continue
        for doc in iter_documents(run, verify=True):
            check_document(doc, str(run))
            key = text_id(doc.text) if doc.text else doc.id
            if key in wanted and key not in found:
                found[key] = doc
            elif doc.id in wanted and doc.id not in found:
                # Same id as the text's hash but another text: offsets would point at wrong words.
                if document_text(doc) != wanted[doc.id]:
                    raise DataFormatError(Errors.E516.format(where=shards, id=doc.id))
                found[doc.id] = doc
    missing = [t for k, t in wanted.items() if k not in found]
    return {wanted[k]: d for k, d in found.items()}, missing


def annotate_missing(texts: list[str], shards: Path, annotator=None, parser: str = "default",
                     senses: Optional[str] = "default", device: str = "cpu", workers: int = 1,
                     batch_size: int = 32) -> None:
    """Annotate ``texts`` into a new shard directory under ``shards`` (once; later runs read it).

    With no ``annotator`` this is the batch annotator (``logicparse annotate``) on a JSONL of the
    texts, so the same shards can be made ahead of time, on more workers, with that command.
    An ``annotator`` object (anything with ``.pipe(texts, batch_size=, ids=)``) runs in process.
    """
    digest = hashlib.sha1("\n\x00".join(texts).encode("utf-8")).hexdigest()[:12]
    out = shards / f"run-{digest}"
    out.parent.mkdir(parents=True, exist_ok=True)
    jsonl = shards / f"texts-{digest}.jsonl"
    with open(jsonl, "w", encoding="utf-8") as f:
        for t in texts:
            f.write(json.dumps({"id": text_id(t), "text": t}, ensure_ascii=False) + "\n")
    log.warning("annotating %d texts into %s (or run: logicparse annotate %s --out %s)",
                len(texts), out, jsonl, out)
    if annotator is not None:
        from ..batch.shards import write_documents

        docs = list(annotator.pipe(texts, batch_size=batch_size, ids=[text_id(t) for t in texts]))
        write_documents(out, docs)
        return
    from ..batch import RunConfig, WorkerSpec, annotate_corpus
    from ..batch.progress import make_progress

    config = RunConfig(workers=workers, overwrite=True,
                       worker=WorkerSpec(parser=parser, senses=senses, device=device))
    annotate_corpus([str(jsonl)], out, config, progress=make_progress(quiet=False))


def labels_for(texts: list[str], shards: Optional[str], data_file: str, annotate: bool = True,
               **annotate_kwargs) -> dict[str, Document]:
    """text -> Document for every text, annotating the missing ones once (cached)."""
    cache = Path(shards) if shards else default_cache_dir(data_file)
    found, missing = load_labels(str(cache), texts)
    if missing and annotate:
        annotate_missing(missing, cache, **annotate_kwargs)
        found, missing = load_labels(str(cache), texts)
    if missing:
        raise DataFormatError(Errors.E514.format(where=cache, id=text_id(missing[0]),
                                                 text=missing[0][:60]))
    failed = sum(1 for d in found.values() if d.error)
    if failed:
        log.warning("%d of %d texts failed annotation; their tokens take E", failed, len(found))
    return found
