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
    text: str
    fallback: bool = False  # decoded with the fallback encoding


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
            files = sorted((f for f in path.rglob("*") if f.suffix.lower() in TEXT_SUFFIXES
                            and f.is_file()), key=lambda f: f.relative_to(path).as_posix())
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
        elif spec.kind == "jsonl":
            with open(spec.path, "rb") as f:
                total += sum(1 for line in f if line.strip())
        elif spec.kind == "parquet":
            import pyarrow.parquet as pq

            total += pq.ParquetFile(spec.path).metadata.num_rows
        else:
            total += sum(b.num_rows for b in _arrow_batches(spec.path, [opts.text_field]))
    return total


def read_documents(specs: list[InputSpec], opts: ReadOptions,
                   stdin: Optional[BinaryIO] = None) -> Iterator[tuple[InputSpec, InputDoc]]:
    """Every document of every input, in order, with the input it came from."""
    for spec in specs:
        for doc in _read_one(spec, opts, stdin):
            yield spec, doc


def _read_one(spec: InputSpec, opts: ReadOptions, stdin: Optional[BinaryIO]) -> Iterator[InputDoc]:
    if spec.kind == "txt":
        path = Path(spec.path)
        yield _text_doc(_strip_txt(path.name), path.read_bytes(), opts)
    elif spec.kind == "dir":
        root = Path(spec.path)
        for f in spec.files:
            yield _text_doc(_strip_txt(f.relative_to(root).as_posix()), f.read_bytes(), opts)
    elif spec.kind == "jsonl":
        with open(spec.path, "rb") as f:
            yield from _jsonl_docs(f, Path(spec.path).stem, spec.path, opts)
    elif spec.kind == "parquet":
        yield from _table_docs(spec.path, _parquet_batches(spec.path, opts), opts)
    elif spec.kind == "arrow":
        yield from _table_docs(spec.path, _arrow_batches(spec.path, None), opts)
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
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise DataFormatError(Errors.E303.format(path=where, line=lineno,
                                                     reason=e.msg)) from None
        if not isinstance(obj, dict) or not isinstance(obj.get(opts.text_field), str):
            keys = ", ".join(sorted(obj)) if isinstance(obj, dict) else type(obj).__name__
            raise DataFormatError(Errors.E304.format(path=where, line=lineno,
                                                     field=opts.text_field, keys=keys))
        doc_id = obj.get(opts.id_field)
        doc_id = f"{stem}:{lineno}" if doc_id is None else str(doc_id)
        yield InputDoc(doc_id, obj[opts.text_field], fell_back)


def _parquet_batches(path: str, opts: ReadOptions):
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
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
            if isinstance(text, (bytes, bytearray)):
                text, fell_back = decode(bytes(text), opts)
            else:
                fell_back = False
            # A null text is still a document: it becomes a row with `error` filled.
            yield InputDoc(f"{stem}:{row}" if doc_id is None else str(doc_id),
                           text if text is not None else None, fell_back)
