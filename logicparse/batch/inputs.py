"""Readers for the inputs of ``logicparse annotate``: each document comes out as an InputDoc.

Accepted inputs (one argument each; mix them freely):

* a ``.txt`` file (or any file with an unknown suffix): one document, id = the file name without
  ``.txt``;
* a directory: every ``*.txt`` below it (recursive, sorted by path), id = the relative path
  without ``.txt``, with ``/`` separators;
* a ``.jsonl`` file: one JSON object per line, text in ``text_field``, id in ``id_field``
  (``<file stem>:<line number>`` when the object has none); blank lines are skipped;
* a ``.parquet`` file or an Arrow file (``.arrow``, ``.feather``, ``.ipc``; IPC file or stream
  format) with a ``text_field`` column and optionally an ``id_field`` column;
* ``-``: standard input, read as ``stdin_format`` (``lines``: one document per non-empty line,
  ``text``: all of it one document, ``jsonl``: as a .jsonl file).

Decoding. Bytes (text files, .jsonl lines, stdin) are decoded as ``encoding`` (UTF-8; a BOM is
dropped). A document that is not valid in it is never dropped: it is decoded with ``fallback``
instead, ``latin-1`` by default (every byte maps to one character, so nothing is lost and the
original bytes can be recovered), ``cp1252`` (Windows quotes and dashes; bytes it leaves undefined
fall back to Latin-1), or ``replace`` (undecodable bytes become U+FFFD). Each such document is
counted, per input, in ``manifest.json``.

Bad records never stop a run: a .jsonl line that is not JSON, a text that is not a string or is
null, a file that cannot be read (permissions, a symlink loop) each become one document with
``error`` set (a coded message naming the file and line), so that every record in gives one row
out. Only a mistake that would spoil every record is refused before work starts: a missing
text column, or a first .jsonl record without the text field (name it with ``--text-field``).

Order is part of the output contract: documents come out in argument order, and inside a
directory by sorted path, so the same command gives the same shards.
"""

from __future__ import annotations

import codecs
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterator, Optional

from ..errors import DataFormatError, Errors

TEXT_SUFFIXES = (".txt",)
JSONL_SUFFIXES = (".jsonl", ".ndjson")
PARQUET_SUFFIXES = (".parquet", ".pq")
ARROW_SUFFIXES = (".arrow", ".feather", ".ipc")
FALLBACKS = ("latin-1", "cp1252", "replace")
STDIN_FORMATS = ("lines", "text", "jsonl")


@dataclass(frozen=True)
class InputDoc:
    id: str
    text: Optional[str]
    fallback: bool = False  # decoded with the fallback encoding
    error: Optional[str] = None  # the record could not be read: its row carries this error


@dataclass
class InputSpec:
    """One input argument, resolved: what it is and how many documents it holds."""

    path: str  # as given on the command line ("-" for stdin)
    kind: str  # txt | dir | jsonl | parquet | arrow | stdin
    files: list[Path] = field(default_factory=list)  # the .txt files of a directory, sorted

    def describe(self) -> dict:
        d = {"path": self.path, "kind": self.kind}
        if self.kind == "dir":
            d["files"] = len(self.files)
        return d


@dataclass
class ReadOptions:
    text_field: str = "text"
    id_field: str = "id"
    encoding: str = "utf-8"
    fallback: str = "latin-1"
    stdin_format: str = "lines"

    def __post_init__(self):
        if self.fallback not in FALLBACKS:
            raise DataFormatError(Errors.E305.format(value=self.fallback,
                                                     opts=", ".join(FALLBACKS)))
        if self.stdin_format not in STDIN_FORMATS:
            raise DataFormatError(Errors.E306.format(value=self.stdin_format,
                                                     opts=", ".join(STDIN_FORMATS)))
        try:
            codecs.lookup(self.encoding)
        except LookupError:
            raise DataFormatError(Errors.E307.format(value=self.encoding)) from None


def resolve_inputs(paths: list[str]) -> list[InputSpec]:
    """Check every argument exists and decide how to read it, before any work starts."""
    if not paths:
        raise DataFormatError(Errors.E300)
    specs = []
    for p in paths:
        if p == "-":
            specs.append(InputSpec(p, "stdin"))
            continue
        path = Path(p)
        if path.is_dir():
            # A *.txt entry that is not a directory is a document, even one that cannot be read
            # (a symlink loop, a dangling link): its row says why.
            files = sorted((f for f in path.rglob("*") if f.suffix.lower() in TEXT_SUFFIXES
                            and not f.is_dir()), key=lambda f: f.relative_to(path).as_posix())
            if not files:
                raise DataFormatError(Errors.E302.format(path=p))
            specs.append(InputSpec(p, "dir", files))
        elif path.is_file():
            suffix = path.suffix.lower()
            kind = ("jsonl" if suffix in JSONL_SUFFIXES else "parquet" if suffix in PARQUET_SUFFIXES
                    else "arrow" if suffix in ARROW_SUFFIXES else "txt")
            specs.append(InputSpec(p, kind))
        else:
            raise DataFormatError(Errors.E301.format(path=p))
    return specs


def decode(data: bytes, opts: ReadOptions) -> tuple[str, bool]:
    """(text, used_fallback). Never raises: see the module docstring for the fallback rules."""
    enc = "utf-8-sig" if codecs.lookup(opts.encoding).name == "utf-8" else opts.encoding
    try:
        return data.decode(enc), False
    except UnicodeDecodeError:
        pass
    if opts.fallback == "replace":
        return data.decode(enc, errors="replace"), True
    if opts.fallback == "cp1252":
        return data.decode("cp1252", errors="_logicparse_latin1"), True
    return data.decode("latin-1"), True


def _latin1_for_undefined(err: UnicodeDecodeError):
    # cp1252 leaves 0x81, 0x8D, 0x8F, 0x90, 0x9D undefined: keep them as their Latin-1 characters
    # so that no byte is ever dropped.
    return err.object[err.start:err.end].decode("latin-1"), err.end


codecs.register_error("_logicparse_latin1", _latin1_for_undefined)


def count_documents(specs: list[InputSpec], opts: ReadOptions) -> Optional[int]:
    """How many documents the inputs hold (for the progress bar's ETA); None when stdin is read."""
    total = 0
    for spec in specs:
        if spec.kind == "stdin":
            return None
        if spec.kind == "txt":
            total += 1
        elif spec.kind == "dir":
            total += len(spec.files)
        else:
            try:
                total += _count_records(spec, opts)
            except OSError:
                total += 1  # unreadable: one row with the error
    return total


def _count_records(spec: InputSpec, opts: ReadOptions) -> int:
    if spec.kind == "jsonl":
        n = 0
        with open(spec.path, "rb") as f:
            for line in f:
                if line.strip():
                    if n == 0:
                        _check_first_record(line, spec.path, opts)
                    n += 1
        return n
    if spec.kind == "parquet":
        return _parquet_file(spec.path).metadata.num_rows
    return sum(b.num_rows for b in _arrow_batches(spec.path, [opts.text_field]))


def _check_first_record(line: bytes, path: str, opts: ReadOptions) -> None:
    """A first record without the text field means the wrong --text-field, which would make
    every row an error: refuse before any work."""
    try:
        obj = json.loads(decode(line, opts)[0])
    except json.JSONDecodeError:
        return  # one bad line: its own row says so
    if isinstance(obj, dict) and opts.text_field not in obj:
        raise DataFormatError(Errors.E304.format(path=path, line=1, field=opts.text_field,
                                                 keys=", ".join(sorted(obj))))


def read_documents(specs: list[InputSpec], opts: ReadOptions,
                   stdin: Optional[BinaryIO] = None) -> Iterator[tuple[InputSpec, InputDoc]]:
    """Every document of every input, in order, with the input it came from."""
    for spec in specs:
        for doc in _read_one(spec, opts, stdin):
            yield spec, doc


def _read_one(spec: InputSpec, opts: ReadOptions, stdin: Optional[BinaryIO]) -> Iterator[InputDoc]:
    if spec.kind == "txt":
        path = Path(spec.path)
        yield _file_doc(_strip_txt(path.name), path, opts)
    elif spec.kind == "dir":
        root = Path(spec.path)
        for f in spec.files:
            yield _file_doc(_strip_txt(f.relative_to(root).as_posix()), f, opts)
    elif spec.kind in ("jsonl", "parquet", "arrow"):
        n = 0
        try:
            for doc in _read_records(spec, opts):
                n += 1
                yield doc
        except OSError as e:
            if n:  # the file went bad midway (I/O error): not a record to skip silently
                raise DataFormatError(Errors.E336.format(path=spec.path, reason=_reason(e))) from None
            yield _unreadable(Path(spec.path).stem, spec.path, e)
    elif spec.kind == "stdin":
        stream = stdin if stdin is not None else sys.stdin.buffer
        if opts.stdin_format == "jsonl":
            yield from _jsonl_docs(stream, "stdin", "<stdin>", opts)
        elif opts.stdin_format == "text":
            yield _text_doc("stdin", stream.read(), opts)
        else:
            n = 0
            for raw in stream:
                raw = raw.rstrip(b"\r\n")
                if raw.strip():
                    n += 1
                    yield _text_doc(f"stdin:{n}", raw, opts)


def _read_records(spec: InputSpec, opts: ReadOptions) -> Iterator[InputDoc]:
    if spec.kind == "jsonl":
        with open(spec.path, "rb") as f:
            yield from _jsonl_docs(f, Path(spec.path).stem, spec.path, opts)
    elif spec.kind == "parquet":
        yield from _table_docs(spec.path, _parquet_batches(spec.path, opts), opts)
    else:
        yield from _table_docs(spec.path, _arrow_batches(spec.path, None), opts)


def _file_doc(doc_id: str, path: Path, opts: ReadOptions) -> InputDoc:
    try:
        data = path.read_bytes()
    except OSError as e:
        return _unreadable(doc_id, str(path), e)
    return _text_doc(doc_id, data, opts)


def _unreadable(doc_id: str, path: str, e: OSError) -> InputDoc:
    return InputDoc(doc_id, None, error=Errors.E336.format(path=path, reason=_reason(e)))


def _reason(e: OSError) -> str:
    return e.strerror or type(e).__name__


def _strip_txt(name: str) -> str:
    return name[:-4] if name.lower().endswith(".txt") else name


def _text_doc(doc_id: str, data: bytes, opts: ReadOptions) -> InputDoc:
    text, fell_back = decode(data, opts)
    return InputDoc(doc_id, text, fell_back)


def _jsonl_docs(stream: BinaryIO, stem: str, where: str, opts: ReadOptions) -> Iterator[InputDoc]:
    for lineno, raw in enumerate(stream, 1):
        if not raw.strip():
            continue
        line, fell_back = decode(raw, opts)
        default_id = f"{stem}:{lineno}"
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as e:
            reason = e.msg if isinstance(e, json.JSONDecodeError) else "nested too deeply"
            yield InputDoc(default_id, None, fell_back,
                           Errors.E303.format(path=where, line=lineno, reason=reason))
            continue
        if not isinstance(obj, dict):
            yield InputDoc(default_id, None, fell_back, Errors.E304.format(
                path=where, line=lineno, field=opts.text_field, keys=type(obj).__name__))
            continue
        doc_id = obj.get(opts.id_field)
        doc_id = default_id if doc_id is None else str(doc_id)
        yield _checked_doc(doc_id, obj.get(opts.text_field, _MISSING), fell_back,
                           f"{where}, line {lineno}", opts, obj)


def _parquet_file(path: str):
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path)
    except pa.ArrowInvalid as e:
        raise DataFormatError(Errors.E338.format(path=path, reason=e)) from None


def _parquet_batches(path: str, opts: ReadOptions):
    pf = _parquet_file(path)
    names = pf.schema_arrow.names
    cols = [c for c in (opts.id_field, opts.text_field) if c in names]
    if opts.text_field not in names:
        raise DataFormatError(Errors.E308.format(path=path, field=opts.text_field,
                                                 cols=", ".join(names)))
    yield from pf.iter_batches(batch_size=1024, columns=cols)


def _arrow_batches(path: str, need: Optional[list[str]]):
    import pyarrow as pa

    source = pa.memory_map(path)
    try:
        reader = pa.ipc.open_file(source)
        batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
    except pa.ArrowInvalid:
        source = pa.memory_map(path)
        try:
            batches = iter(pa.ipc.open_stream(source))
        except pa.ArrowInvalid as e:
            raise DataFormatError(Errors.E309.format(path=path, reason=e)) from None
    yield from batches


def _table_docs(path: str, batches, opts: ReadOptions) -> Iterator[InputDoc]:
    stem = Path(path).stem
    row = 0
    for batch in batches:
        names = batch.schema.names
        if opts.text_field not in names:
            raise DataFormatError(Errors.E308.format(path=path, field=opts.text_field,
                                                     cols=", ".join(names)))
        texts = batch.column(opts.text_field).to_pylist()
        ids = (batch.column(opts.id_field).to_pylist() if opts.id_field in names
               else [None] * len(texts))
        for doc_id, text in zip(ids, texts):
            row += 1
            fell_back = False
            if isinstance(text, (bytes, bytearray)):
                text, fell_back = decode(bytes(text), opts)
            yield _checked_doc(f"{stem}:{row}" if doc_id is None else str(doc_id), text,
                               fell_back, f"{path}, row {row}", opts)


_MISSING = object()


def _checked_doc(doc_id: str, text, fell_back: bool, where: str, opts: ReadOptions,
                 record: Optional[dict] = None) -> InputDoc:
    """The document, or a row with the error when its text is missing, null or not a string."""
    if isinstance(text, str):
        return InputDoc(doc_id, text, fell_back)
    if text is _MISSING:
        what = "missing (fields: " + ", ".join(sorted(record or {})) + ")"
    else:
        what = "null" if text is None else f"of type {type(text).__name__}"
    return InputDoc(doc_id, None, fell_back,
                    Errors.E335.format(where=where, field=opts.text_field, what=what))
