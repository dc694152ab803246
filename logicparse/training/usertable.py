"""The user's own labelled table as a training task (``--task table``): text classification, text
pairs or multiple choice from a CSV, TSV, JSONL or Parquet file, or a folder saved by
``datasets``. A choices column (a list, or in CSV and TSV the choices joined by `` | ``) makes it
multiple choice: the text is the context, a second text the question, the label the right
choice (its index from 0, or its text).

Columns are named by options or guessed from common names (``text``/``sentence``/``sentence1``,
``sentence2``/``hypothesis`` for a pair, ``label``); what was used is stated in the run's output.
Labels are read as strings and mapped to ids in a fixed order (numbers by value, other names
sorted), saved with the model as its ``id2label``. Every problem is a coded error naming the file,
the row (counted from 1, the header apart) and the column: a missing column, an empty text or
label, one class only, a label of the dev or test file that the training file lacks.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..errors import DataFormatError, Errors
from .tasks import MULTIPLE_CHOICE, PAIR, ChoiceExample, PairExample, Task

TEXT_GUESSES = ("text", "sentence", "sentence1", "premise", "question", "input")
PAIR_GUESSES = ("text_pair", "sentence2", "hypothesis")
LABEL_GUESSES = ("label", "labels", "class")
CHOICE_GUESSES = ("choices", "options", "endings")
SUFFIXES = (".csv", ".tsv", ".jsonl", ".json", ".parquet")
DEV_FRACTION = 0.1  # of the training rows carved as dev when no dev file is given
MIN_CARVE = 20  # fewer training rows than this: no dev carve (nothing left to learn from)


@dataclass(frozen=True)
class Columns:
    text: str
    pair: Optional[str]
    label: Optional[str]
    guessed: tuple  # the roles whose column was guessed, not named
    choices: Optional[str] = None  # multiple choice: the column of each row's choices


def read_rows(path: str) -> tuple[list[str], list[dict]]:
    """(column names, rows) of a table file or a ``datasets`` folder."""
    p = Path(path)
    if not p.exists():
        raise DataFormatError(Errors.E540.format(path=path, reason="it does not exist",
                                                 fix="Check the path"))
    if p.is_dir():
        return _dataset_rows(p)
    suffix = p.suffix.lower()
    if suffix not in SUFFIXES:
        raise DataFormatError(Errors.E540.format(
            path=path, reason=f"{suffix or 'no suffix'} is not a table format read here",
            fix=f"Give a {', '.join(SUFFIXES)} file or a folder saved by datasets' save_to_disk"))
    if suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(p)
        except (pa.ArrowInvalid, OSError) as e:
            raise DataFormatError(Errors.E540.format(path=path, reason=f"not Parquet ({e})",
                                                     fix="Check the file")) from None
        return table.column_names, table.to_pylist()
    try:
        with open(p, encoding="utf-8-sig", newline="") as f:
            if suffix in (".jsonl", ".json"):
                rows = [_json_row(path, n, line) for n, line in enumerate(f, 1) if line.strip()]
                columns = list(dict.fromkeys(k for r in rows for k in r))
            else:
                reader = csv.DictReader(f, delimiter="\t" if suffix == ".tsv" else ",")
                columns, rows = list(reader.fieldnames or []), list(reader)
    except UnicodeDecodeError as e:
        raise DataFormatError(Errors.E540.format(
            path=path, reason=f"not valid UTF-8 ({e.reason} at byte {e.start})",
            fix="Convert it, e.g. iconv -f latin1 -t utf-8 < FILE > FILE.utf8")) from None
    return columns, rows


def _json_row(path: str, n: int, line: str) -> dict:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as e:
        raise DataFormatError(Errors.E541.format(path=path, row=n, column="-",
                                                 reason=f"not JSON ({e.msg})",
                                                 fix="Write one JSON object per line")) from None
    if not isinstance(row, dict):
        raise DataFormatError(Errors.E541.format(path=path, row=n, column="-",
                                                 reason=f"a JSON {type(row).__name__}, not an object",
                                                 fix="Write one JSON object per line"))
    return row


def _dataset_rows(p: Path) -> tuple[list[str], list[dict]]:
    import datasets

    try:
        ds = datasets.load_from_disk(str(p))
    except (FileNotFoundError, ValueError) as e:
        raise DataFormatError(Errors.E540.format(
            path=p, reason=f"not a folder saved by datasets ({e})",
            fix="Save it with Dataset.save_to_disk, or give a table file")) from None
    if isinstance(ds, datasets.DatasetDict):
        raise DataFormatError(Errors.E540.format(
            path=p, reason=f"a DatasetDict of the splits {', '.join(ds)}",
            fix=f"Give one split's folder, e.g. --train {p / next(iter(ds))}"))
    return list(ds.column_names), ds.to_list()


def choose_columns(path: str, columns: list[str], text: Optional[str] = None,
                   pair: Optional[str] = None, label: Optional[str] = None,
                   need_label: bool = True, choices: Optional[str] = None) -> Columns:
    """The columns to read: those named, else the first common name present (no label column
    is None where ``need_label`` is False: rows to predict)."""
    guessed = []

    def pick(role: str, option: str, named: Optional[str], guesses: tuple, needed: bool):
        if named is not None:
            if named not in columns:
                raise DataFormatError(Errors.E540.format(
                    path=path, reason=f"no column {named!r} ({option}); its columns are "
                    f"{', '.join(map(repr, columns))}", fix=f"Name one of them with {option}"))
            return named
        found = next((c for c in guesses if c in columns), None)
        if found is None and needed:
            raise DataFormatError(Errors.E540.format(
                path=path, reason=f"no {role} column found (tried {', '.join(guesses)}); its "
                f"columns are {', '.join(map(repr, columns))}", fix=f"Name it with {option}"))
        if found is not None:
            guessed.append(role)
        return found

    text_col = pick("text", "--text-column", text, TEXT_GUESSES, True)
    label_col = pick("label", "--label-column", label, LABEL_GUESSES, need_label)
    pair_col = pick("pair", "--pair-column", pair,
                    tuple(c for c in PAIR_GUESSES if c not in (text_col, label_col)), False)
    choices_col = pick("choices", "--choices-column", choices, CHOICE_GUESSES, False)
    return Columns(text_col, pair_col, label_col, tuple(guessed), choices_col)


def _choices(path: str, n: int, row: dict, column: str) -> list[str]:
    value = raw = row.get(column)
    if isinstance(value, str):
        text = value.strip()
        try:
            value = json.loads(text) if text.startswith("[") else text.split("|")
        except json.JSONDecodeError:
            value = text.split("|")
    options = [str(o).strip() for o in value] if isinstance(value, (list, tuple)) else []
    if len(options) < 2 or not all(options):
        raise DataFormatError(Errors.E541.format(
            path=path, row=n, column=column, reason=f"{raw!r} is not two choices or more",
            fix="Give a list (JSONL, Parquet) or the choices joined by ' | ' (CSV, TSV), none empty"))
    return options


def choice_examples(path: str, rows: list[dict], cols: Columns) -> list[ChoiceExample]:
    """Multiple-choice examples: the label is the right choice's index (from 0) or its text (-1
    without a label column); every row has as many choices as the first."""
    out = []
    for n, row in enumerate(rows, 1):
        context = _cell(path, n, row, cols.text, "text")
        question = _cell(path, n, row, cols.pair, "question") if cols.pair else ""
        options = _choices(path, n, row, cols.choices)
        if out and len(options) != len(out[0].options):
            raise DataFormatError(Errors.E541.format(
                path=path, row=n, column=cols.choices, reason=f"{len(options)} choices where the "
                f"first row has {len(out[0].options)}", fix="Give every row as many choices"))
        if cols.label is None:
            out.append(ChoiceExample(f"{Path(path).stem}:{n}", context, question, options, -1))
            continue
        label = _cell(path, n, row, cols.label, "label").strip()
        index = int(label) if label.isdigit() and int(label) < len(options) else (
            options.index(label) if label in options else None)
        if index is None:
            raise DataFormatError(Errors.E541.format(
                path=path, row=n, column=cols.label, reason=f"the label {label!r} is neither a "
                f"choice's index (0 to {len(options) - 1}) nor one of the choices",
                fix="Give the right choice's index or its text"))
        out.append(ChoiceExample(f"{Path(path).stem}:{n}", context, question, options, index))
    return out


def _cell(path: str, n: int, row: dict, column: str, what: str) -> str:
    value = row.get(column)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise DataFormatError(Errors.E541.format(
            path=path, row=n, column=column, reason=f"the {what} is empty",
            fix="Fill it in, or remove the row"))
    return value if isinstance(value, str) else str(value)


def _order(labels) -> tuple:
    """Label names in their id order: numbers by value, anything else sorted as text."""
    try:
        return tuple(sorted(labels, key=float))
    except ValueError:
        return tuple(sorted(labels))


def examples(path: str, rows: list[dict], cols: Columns, classes: Optional[tuple] = None,
             train_path: str = "") -> tuple[list[PairExample], tuple]:
    """(examples, class names). ``classes``: those of the training file (a dev or test file's
    label outside them is refused); None: this is the training file, whose labels make them."""
    texts = []
    for n, row in enumerate(rows, 1):
        text = _cell(path, n, row, cols.text, "text")
        pair = _cell(path, n, row, cols.pair, "second text") if cols.pair else None
        label = _cell(path, n, row, cols.label, "label").strip() if cols.label else None
        texts.append((n, text, pair, label))
    if classes is None:
        classes = _order({label for *_, label in texts})
        if len(classes) < 2:
            raise DataFormatError(Errors.E540.format(
                path=path, reason=f"every row has the label {classes[0]!r} (column "
                f"{cols.label!r}): a classifier needs two classes or more",
                fix="Check the label column (--label-column), or add rows of the other classes"))
    index = {c: i for i, c in enumerate(classes)}
    out = []
    for n, text, pair, label in texts:
        if label is None:  # rows to predict: no label column
            out.append(PairExample(f"{Path(path).stem}:{n}", text, pair, -1))
            continue
        if label not in index:
            raise DataFormatError(Errors.E541.format(
                path=path, row=n, column=cols.label, reason=f"the label {label!r} does not occur "
                f"in the training file {train_path}, whose labels are {', '.join(map(repr, classes))}",
                fix="Correct the label, or add training rows with it"))
        out.append(PairExample(f"{Path(path).stem}:{n}", text, pair, index[label]))
    return out, classes


def read_table_splits(files: dict, columns: dict, dev_size: Optional[int]) -> tuple:
    """(task, split -> examples) for ``--task table``: the columns chosen on the training file,
    its labels as the classes, and unless a dev file or ``dev_size`` is given,
    :data:`DEV_FRACTION` of its rows to be carved as dev (the task's ``carve_dev``). The task's
    ``described`` says what was read, for the run's output."""
    names, train_rows = read_rows(files["train"])
    cols = choose_columns(files["train"], names, **columns)
    if cols.choices:
        train, classes = choice_examples(files["train"], train_rows, cols), ()
    else:
        train, classes = examples(files["train"], train_rows, cols)
    splits = {"train": train}
    for split in ("dev", "test"):
        if files.get(split):
            split_names, rows = read_rows(files[split])
            for col in (cols.text, cols.pair, cols.label, cols.choices):
                if col and col not in split_names:
                    raise DataFormatError(Errors.E540.format(
                        path=files[split], reason=f"no column {col!r}, which the training file "
                        f"has; its columns are {', '.join(map(repr, split_names))}",
                        fix="Give it the training file's columns"))
            splits[split] = choice_examples(files[split], rows, cols) if cols.choices else \
                examples(files[split], rows, cols, classes, files["train"])[0]
    n = len(splits["train"])
    carve = (dev_size if dev_size is not None else
             0 if "dev" in splits or n < MIN_CARVE else max(1, round(DEV_FRACTION * n)))
    kinds = (f"multiple choice of {len(splits['train'][0].options)} from column {cols.choices!r}"
             if cols.choices else f"{len(classes)} classes {', '.join(map(repr, classes))}")
    said = (f"table: text column {cols.text!r}" + (f", second text {cols.pair!r}" if cols.pair else "")
            + f", label column {cols.label!r}"
            + (f" (guessed: {', '.join(cols.guessed)}; name them with --text-column, "
               "--pair-column, --label-column, --choices-column)" if cols.guessed else "")
            + f"; {kinds}; {n} training rows"
            + (f", {carve} of them carved as dev" if carve and "dev" not in splits else ""))
    task = Task("table", MULTIPLE_CHOICE if cols.choices else PAIR, reader=None,
                files={"train": files["train"]}, classes=classes, carve_dev=carve, described=said)
    return task, splits
