"""The downstream tasks: the paper's section 5 (DREAM, LogiQA, DialogSum) and two that fit a CPU
(ConjNLI, PARARULE-Plus): readers for the formats of ``data/tasks/``. Their logic labels come
from ``labels.py``."""

from __future__ import annotations

import csv
import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from ..errors import DataFormatError, Errors, ModelLoadError
from .records import Record, expect, is_ident, is_texts

MULTIPLE_CHOICE, SEQ2SEQ, PAIR = "multiple_choice", "seq2seq", "pair_classification"


@dataclass
class ChoiceExample:
    id: str
    context: str
    question: str
    options: list[str]
    label: int

    def texts(self) -> list[str]:
        return [self.context, self.question, *self.options]


@dataclass
class SummaryExample:
    id: str
    dialogue: str
    summaries: list[str]  # one reference for train/dev, three for DialogSum test

    def texts(self) -> list[str]:
        return [self.dialogue]


@dataclass
class PairExample:
    id: str
    premise: str
    hypothesis: Optional[str]  # None: a single text (a user's table without a second column)
    label: int  # index into the task's ``classes``
    # Pairs that share a group (PARARULE-Plus: one context, many questions) are carved together,
    # so that no dev question is asked of a context the model was trained on.
    group: str = ""

    def texts(self) -> list[str]:
        return [self.premise] if self.hypothesis is None else [self.premise, self.hypothesis]


# --- readers ---------------------------------------------------------------------------------


def read_dream(path: str) -> list[ChoiceExample]:
    """DREAM JSON: a list of ``[turns, [{"question", "choice", "answer"}, ...], dialogue_id]``.
    The dialogue turns are joined by newlines into one context."""
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as e:
            raise DataFormatError(Errors.E520.format(path=path, where=f"line {e.lineno}, column "
                                                     f"{e.colno}", reason=f"not JSON ({e.msg})")) from None
        except RecursionError:
            raise DataFormatError(Errors.E520.format(path=path, where="the top level",
                                                     reason="nested too deeply to be read")) from None
    expect(data, lambda d: isinstance(d, list), path, "the top level", "the file",
           "a list of [turns, questions, id] items")
    out = []
    for n, item in enumerate(data):
        if not (isinstance(item, list) and len(item) == 3):
            raise DataFormatError(Errors.E520.format(path=path, where=f"item {n}",
                                                     reason="expected [turns, questions, id]"))
        turns, questions, dialogue_id = item
        expect(dialogue_id, is_ident, path, f"item {n}", "the id (third entry)", "a string")
        where = f"item {n} (dialogue {dialogue_id})"
        expect(turns, is_texts, path, where, "the turns (first entry)",
               "a non-empty list of strings")
        expect(questions, lambda v: isinstance(v, list), path, where,
               "the questions (second entry)", "a list of objects")
        for q, qa in enumerate(questions):
            qa = Record(qa, path, f"{where}, question {q}", "an object with 'question', "
                        "'choice' and 'answer'")
            question = qa.get("question", lambda v: isinstance(v, str), "a string")
            options = qa.get("choice", lambda v: is_texts(v, 2), "a list of at least two strings")
            answer = qa.get("answer", lambda v: isinstance(v, str), "a string")
            if answer not in options:
                raise qa.error(f"answer {answer!r} is not one of the choices")
            out.append(ChoiceExample(f"{dialogue_id}-{q}", "\n".join(turns), question,
                                     list(options), options.index(answer)))
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
    for n, row in _jsonl(path):
        row = Record(row, path, f"line {n}", "an object with 'dialogue' and 'summary' fields")
        dialogue = row.text("dialogue")
        refs = [row.get(k, lambda v: isinstance(v, str), "a string", optional=True)
                for k in ("summary", "summary1", "summary2", "summary3")]
        refs = [r for r in refs if r and r.strip()]
        if not refs:
            raise row.error("expected a non-empty 'summary' (or 'summary1' to 'summary3' on test)")
        out.append(SummaryExample(row.ident("fname", str(n)), dialogue, refs))
    return out


def _jsonl(path: str):
    """(line number, object) of each non-blank line; a line that is not JSON is an E520 naming it."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield n, json.loads(line)
            except (ValueError, RecursionError) as e:
                raise DataFormatError(Errors.E520.format(path=path, where=f"line {n}",
                                                         reason=f"not JSON ({e})")) from None


NLI_CLASSES = ("entailment", "neutral", "contradiction")


def read_conjnli(path: str) -> list[PairExample]:
    """ConjNLI TSV (UTF-8, a byte-order mark allowed): a header ``Premise, Hypothesis, Label``,
    then one pair per line; labels entailment / neutral / contradiction. Quotes are text."""
    out = []
    with open(path, encoding="utf-8-sig", newline="") as f:
        rows = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = [h.strip().lower() for h in next(rows, [])]
        if header[:3] != ["premise", "hypothesis", "label"]:
            raise DataFormatError(Errors.E520.format(
                path=path, where="line 1", reason=f"expected the header Premise, Hypothesis, Label "
                f"(tab-separated), got {header!r}; a file without labels cannot be trained or scored on"))
        for n, row in _csv_rows(rows, path):
            if not any(c.strip() for c in row):
                continue
            if len(row) != 3 or not row[0].strip() or not row[1].strip():
                raise DataFormatError(Errors.E520.format(
                    path=path, where=f"line {n}", reason=f"expected a premise, a hypothesis and a "
                    f"label separated by tabs, got {len(row)} field(s)"))
            label = row[2].strip().lower()
            if label not in NLI_CLASSES:
                raise DataFormatError(Errors.E520.format(
                    path=path, where=f"line {n}", reason=f"unknown label {row[2]!r} (expected one "
                    f"of {', '.join(NLI_CLASSES)})"))
            out.append(PairExample(f"{Path(path).stem}-{n}", row[0].strip(), row[1].strip(),
                                   NLI_CLASSES.index(label)))
    return out


def _csv_rows(rows, path: str):
    """(line number, fields) of each row after the header; a field past the csv module's size
    limit is an E520 naming its line, not a raw csv.Error."""
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except csv.Error as e:
            raise DataFormatError(Errors.E520.format(
                path=path, where=f"line {rows.line_num}", reason=f"{e}: a field over "
                f"{csv.field_size_limit():,} characters is no sentence pair; check the tabs of "
                "that line (a missing line break joins many lines into one field)")) from None
        yield rows.line_num, row


PARARULE_CLASSES = ("false", "true")


def read_pararule(path: str) -> list[PairExample]:
    """PARARULE-Plus JSONL: one ``{"id", "context", "questions": [{"id", "text", "label"}]}`` per
    line, labels true / false; each question is a pair (context, question) grouped by context."""
    out = []
    for n, row in _jsonl(path):
        row = Record(row, path, f"line {n}", "an object with a 'context' string and a "
                     "'questions' list")
        context = row.text("context").strip()
        questions = row.get("questions", lambda v: isinstance(v, list), "a list of objects")
        context_id = row.ident("id", str(n))
        for q, question in enumerate(questions):
            question = Record(question, path, f"line {n}, question {q}", "an object with a "
                              "'text' and a 'label'")
            # JSON true / false read as the label strings they spell.
            label = question.get("label", lambda v: isinstance(v, (str, bool)) and
                                 str(v).strip().lower() in PARARULE_CLASSES,
                                 " or ".join(PARARULE_CLASSES))
            out.append(PairExample(question.ident("id", f"{context_id}-{q}"), context,
                                   question.text("text").strip(),
                                   PARARULE_CLASSES.index(str(label).strip().lower()),
                                   group=context_id))
    return out


def read_pararule_statement_first(path: str) -> list[PairExample]:
    """The statement first: all-mpnet-base-v2 learnt the binding warm-up so, not context first."""
    return [replace(ex, premise=ex.hypothesis, hypothesis=ex.premise) for ex in read_pararule(path)]


_NEEDS = {SEQ2SEQ: "a sequence-to-sequence model (an encoder-decoder such as a local BART folder)",
          MULTIPLE_CHOICE: "a model with a multiple-choice head (an encoder such as MiniLM or BERT)",
          PAIR: "a model with a sequence-classification head (an encoder such as MiniLM or BERT)"}


@dataclass(frozen=True)
class Task:
    name: str
    kind: str
    reader: Callable[[str], list]
    files: dict = field(default_factory=dict)  # split -> default file name inside --data
    classes: tuple = ()  # label names of a pair-classification task
    # Pairs carved from the training file as the dev split when the task ships no dev file with
    # labels to spare (ConjNLI's only labelled evaluation file is its test set).
    carve_dev: int = 0
    described: str = ""  # what was read, in words (a user's table: its columns and classes)

    def model_class(self, path: str) -> tuple:
        """(the transformers Auto class that builds this task's model, the config at ``path``). A
        model without the task's head is refused before any text is annotated: transformers' own
        refusal comes only once the data is ready, as a ValueError listing every model type."""
        import transformers

        auto = {SEQ2SEQ: transformers.AutoModelForSeq2SeqLM, PAIR:
                transformers.AutoModelForSequenceClassification}.get(
                    self.kind, transformers.AutoModelForMultipleChoice)
        try:
            config = transformers.AutoConfig.from_pretrained(path)
        except (OSError, ValueError) as e:
            raise ModelLoadError(Errors.E524.format(path=path, reason=e)) from None
        heads = getattr(auto, "_model_mapping", None)  # config class -> model class
        if heads is not None and type(config) not in heads:
            raise ModelLoadError(Errors.E520.format(
                path=os.path.join(path, "config.json"), where=f"model_type {config.model_type!r}",
                reason=f"--task {self.name} needs {_NEEDS[self.kind]}, which this model is not; "
                "pass one with --model"))
        return auto, config

    def read(self, path: str) -> list:
        try:
            return self.reader(path)
        except UnicodeDecodeError as e:
            line, column = _first_bad_utf8(path)
            raise DataFormatError(Errors.E520.format(
                path=path, where=f"line {line}, column {column}",
                reason=f"not valid UTF-8 ({e.reason}; a Latin-1 or Windows file?). Task files are "
                f"read as UTF-8: convert it, e.g. iconv -f latin1 -t utf-8 < FILE > FILE.utf8"
                )) from None


def _first_bad_utf8(path: str) -> tuple[int, int]:
    """(line, column) of the first byte sequence of ``path`` that is not UTF-8, from 1."""
    with open(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as e:
                return n, e.start + 1
    return 0, 0


TASKS = {
    "dream": Task("dream", MULTIPLE_CHOICE, read_dream,
                  {"train": "train.json", "dev": "dev.json", "test": "test.json"}),
    "logiqa": Task("logiqa", MULTIPLE_CHOICE, read_logiqa,
                   {"train": "Train.txt", "dev": "Eval.txt", "test": "Test.txt"}),
    "dialogsum": Task("dialogsum", SEQ2SEQ, read_dialogsum,
                      {"train": "dialogsum.train.jsonl", "dev": "dialogsum.dev.jsonl",
                       "test": "dialogsum.test.jsonl"}),
    # ConjNLI's conj_dev.tsv is the test set (conj_test.tsv has no labels); dev is carved from train.
    "conjnli": Task("conjnli", PAIR, read_conjnli,
                    {"train": "adversarial_train_15k.tsv", "test": "conj_dev.tsv"},
                    classes=NLI_CLASSES, carve_dev=1000),
    # PARARULE-Plus ships no training file here: train and dev are carved from depth2_dev.jsonl
    # (by context), and depth2_test.jsonl is the test set.
    "pararule": Task("pararule", PAIR, read_pararule,
                     {"train": "depth2_dev.jsonl", "test": "depth2_test.jsonl"},
                     classes=PARARULE_CLASSES, carve_dev=1000),
    # Statements whose truth no single word gives away, built from the same files by
    # `logicparse tasks pararule-balanced DATA` (training/pararule.py) into DATA/balanced/.
    "pararule-balanced": Task("pararule-balanced", PAIR, read_pararule_statement_first,
                              {"train": "balanced/train.jsonl", "dev": "balanced/dev.jsonl",
                               "test": "balanced/test.jsonl"}, classes=PARARULE_CLASSES),
}


def get_task(name: str) -> Task:
    if name not in TASKS:
        raise DataFormatError(Errors.E506.format(what="task", name=name, opts=", ".join(TASKS)))
    return TASKS[name]


def split_files(task: Task, data: Optional[str], overrides: dict) -> dict[str, Optional[str]]:
    """Path of each split: an explicit ``--train/--dev/--test`` file, else the task's file name
    inside ``data`` when it exists. Training needs a train file; dev and test are optional."""
    out = {}
    for split in ("train", "dev", "test"):
        name = task.files.get(split)
        path = overrides.get(split) or (os.path.join(data, name) if data and name else None)
        if overrides.get(split) and not os.path.isfile(path):
            raise DataFormatError(Errors.E521.format(path=path, option=split, task=task.name,
                                                     files=", ".join(task.files.values())))
        out[split] = path if path and os.path.isfile(path) else None
    if out["train"] is None:
        raise DataFormatError(Errors.E521.format(
            path=overrides.get("train") or os.path.join(data or ".", task.files["train"]),
            option="train", task=task.name, files=", ".join(task.files.values())))
    return out


def check_splits(splits: dict[str, list], files: dict[str, Optional[str]]) -> None:
    """Refuses a split with no examples (a header-only file, a --limit of 0) before training:
    its figures would be those of an untrained model."""
    for split, examples in splits.items():
        if not examples:
            carved = not files.get(split)
            raise DataFormatError(Errors.E532.format(
                path=files.get(split) or files["train"], split=split,
                detail=" (carved from the training file)" if carved else ""))


def carve(train: list, dev_size: int, train_size: Optional[int], seed: int = 0) -> tuple[list, list]:
    """A seeded dev split of ``dev_size`` examples carved from ``train``, and the rest (its first
    ``train_size`` in a seeded order, or all). The same ``seed`` gives the same two sets whatever
    the training seed, so every run of a table trains and selects on the same examples. Examples
    with a ``group`` are carved whole groups at a time (the dev split then holds at least
    ``dev_size`` examples, and no group is on both sides)."""
    if any(getattr(ex, "group", "") for ex in train):
        return _carve_groups(train, dev_size, train_size, seed)
    order = np.random.default_rng(seed).permutation(len(train))
    if dev_size >= len(train):
        raise DataFormatError(Errors.E520.format(
            path="the training file", where=f"{len(train)} examples",
            reason=f"too few to carve a dev split of {dev_size}; lower --dev-size"))
    dev = [train[i] for i in sorted(order[:dev_size])]
    rest = order[dev_size:] if train_size is None else order[dev_size:dev_size + train_size]
    return [train[i] for i in rest], dev


def _carve_groups(train: list, dev_size: int, train_size: Optional[int], seed: int):
    groups: dict[str, list[int]] = {}
    for i, ex in enumerate(train):
        groups.setdefault(ex.group, []).append(i)
    names = list(groups)
    if dev_size >= len(train) or (dev_size and len(names) < 2):
        raise DataFormatError(Errors.E520.format(
            path="the training file", where=f"{len(train)} examples in {len(names)} groups",
            reason=f"too few to carve a dev split of {dev_size}; lower --dev-size"))
    dev, rest = [], []
    for g in np.random.default_rng(seed).permutation(len(names)):
        (dev if len(dev) < dev_size else rest).extend(groups[names[g]])
    if train_size is not None:
        rest = rest[:train_size]
    return [train[i] for i in rest], [train[i] for i in sorted(dev)]
