"""Readers for the inputs of ``logicparse annotate``: each document comes out as an InputDoc.

Accepted inputs (one argument each; mix them freely):

* a ``.txt`` file (or any unknown suffix): one document, id = the file name without ``.txt``;
* a directory: every ``*.txt`` below it (recursive, sorted by path), id = the relative path
  without ``.txt``, with ``/`` separators;
* any of these compressed, ``.gz``, ``.bz2`` or ``.xz`` after the suffix (``chat.txt.gz``, id
  ``chat``; a directory's ``*.txt.gz``): read through the decompressor (filetypes.py);
* a ``.jsonl`` file: one JSON object per line, text in ``text_field``, id in ``id_field``
  (``<file stem>:<line number>`` when the object has none); blank lines are skipped;
* a ``.parquet`` file or an Arrow file (``.arrow``, ``.feather``, ``.ipc``; IPC file or stream
  format) with a ``text_field`` column and optionally an ``id_field`` column;
* ``-``: standard input, read as ``stdin_format`` (``lines``: one document per non-empty line,
  ``text``: all of it one document, ``jsonl``: as a .jsonl file).

Decoding. Bytes (text files, .jsonl lines, stdin) are decoded as ``encoding`` (UTF-8; a BOM is
dropped). A document not valid in it is decoded with ``fallback`` instead: ``latin-1`` by default
(every byte one character), ``cp1252`` (Windows quotes and dashes; its undefined bytes as Latin-1)
or ``replace`` (U+FFFD); each is counted, per input, in ``manifest.json``. A file that is not text
(a PNG, a PDF, zero bytes: ``filetypes.not_text``) is a row with E349, never decoded; a compressed
file that cannot be decompressed is a row with E350.

Bad records never stop a run: a .jsonl line that is not JSON, a text that is not a string or is
null or not valid Unicode, a file that cannot be read (permissions, a symlink loop) or is not a
regular file (a FIFO, a socket, a device, a file of /proc) each become one document with ``error``
set (a coded message naming the file and line), so that every record in gives one row out. No
more of a file or line is read than a text of ``max_chars`` characters can take: a longer one
is a row with E333 and a prefix of its text. Only a mistake that would spoil every record is
refused before work starts (``count_documents``): a missing text column, or a first .jsonl
record without the text field (name it with ``--text-field``).

Order is part of the output contract: argument order, and inside a directory sorted paths.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterator, Optional

from ..errors import DataFormatError, Errors
from . import changes, filetypes, records, tables
from .records import InputDoc

TEXT_SUFFIXES = (".txt",)
JSONL_SUFFIXES = (".jsonl", ".ndjson")
PARQUET_SUFFIXES = (".parquet", ".pq")
ARROW_SUFFIXES = (".arrow", ".feather", ".ipc")
FALLBACKS = ("latin-1", "cp1252", "replace")
STDIN_FORMATS = ("lines", "text", "jsonl")


@dataclass
class InputSpec:
    """One input argument, resolved: what it is and how many documents it holds."""

    path: str  # as given on the command line ("-" for stdin)
    kind: str  # txt | dir | jsonl | parquet | arrow | stdin
    files: list[Path] = field(default_factory=list)  # the .txt files of a directory, sorted

    def describe(self) -> dict:
        d = {"path": records.escape_id(self.path, name=True), "kind": self.kind}
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
    # The annotator's limit (spaCy's nlp.max_length): a longer text is a row with an E333 error
    # and a prefix of the text, and no more of a file than such a text can take is ever read.
    max_chars: int = 1_000_000

    def __post_init__(self):
        if self.fallback not in FALLBACKS:
            raise DataFormatError(Errors.E305.format(value=self.fallback,
                                                     opts=", ".join(FALLBACKS)))
        if self.stdin_format not in STDIN_FORMATS:
            raise DataFormatError(Errors.E306.format(value=self.stdin_format,
                                                     opts=", ".join(STDIN_FORMATS)))
        try:
            codec = codecs.lookup(self.encoding)
        except LookupError:
            raise DataFormatError(Errors.E307.format(value=self.encoding, why=" Python knows")) from None
        if not codec._is_text_encoding or codec.name == "undefined":  # rot13, hex, zlib ...
            raise DataFormatError(Errors.E307.format(value=self.encoding, why=": it does not decode bytes"))


def resolve_inputs(paths: list[str]) -> list[InputSpec]:
    """Check every argument exists and decide how to read it, before any work starts."""
    if not paths:
        raise DataFormatError(Errors.E300)
    specs = []
    for p in _expanded(paths):
        if p == "-":
            specs.append(InputSpec(p, "stdin"))
            continue
        path = Path(p)
        if path.is_dir():
            # A *.txt entry that is not a directory is a document, even one that cannot be read
            # (a symlink loop, a dangling link): its row says why.
            files = sorted((f for f in path.rglob("*") if _suffix(f) in TEXT_SUFFIXES
                            and not f.is_dir()), key=lambda f: f.relative_to(path).as_posix())
            if not files:
                raise DataFormatError(Errors.E302.format(path=p))
            specs.append(InputSpec(p, "dir", files))
        elif path.is_file():
            suffix = _suffix(path)
            kind = ("jsonl" if suffix in JSONL_SUFFIXES else "parquet" if suffix in PARQUET_SUFFIXES
                    else "arrow" if suffix in ARROW_SUFFIXES else "txt")
            specs.append(InputSpec(p, kind))
        elif path.exists():  # a FIFO, a socket, a device: one document, whose row says why
            specs.append(InputSpec(p, "txt"))
        else:
            raise DataFormatError(Errors.E301.format(path=p, what=""))
    return specs


def _expanded(paths: list[str]) -> list[str]:
    """Each argument, or the files a glob pattern matches (``"corpus/**/*.txt.gz"``, quoted so
    that the shell leaves it, or on a system whose shell does not expand), sorted."""
    out = []
    for p in paths:
        if p != "-" and not os.path.lexists(p) and any(c in p for c in "*?["):
            found = _glob(p)
            if not found:
                raise DataFormatError(Errors.E301.format(path=p, what=": the pattern matches "
                                                         "no file"))
            out.extend(found)
        else:
            out.append(p)
    return out


def _glob(pattern: str) -> list[str]:
    """The files ``pattern`` matches, sorted, ``**`` entering no linked directory, as for a
    directory argument (glob.glob's went round ``d/a/up -> ..``); hidden names as in glob.glob."""
    parts = Path(pattern).parts
    first = next(i for i, part in enumerate(parts) if any(c in part for c in "*?["))
    base, rel = Path(*parts[:first]) if first else Path("."), Path(*parts[first:])
    hidden_ok = any(part.startswith(".") for part in rel.parts)
    return sorted(str(f) for f in base.glob(str(rel))
                  if hidden_ok or not any(n.startswith(".") for n in f.relative_to(base).parts))


def _suffix(path: Path) -> str:
    """The suffix of what the file holds: ``.txt`` for ``a.txt`` and ``a.txt.gz``."""
    return Path(filetypes.inner_name(path.name)).suffix.lower()


def decode(data: bytes, opts: ReadOptions) -> tuple[str, bool]:
    """(text, used_fallback). Never raises: see the module docstring for the fallback rules."""
    enc = "utf-8-sig" if codecs.lookup(opts.encoding).name == "utf-8" else opts.encoding
    try:
        return data.decode(enc), False
    except UnicodeError:  # punycode's, for one, is not a UnicodeDecodeError
        pass
    if opts.fallback == "replace":
        with contextlib.suppress(UnicodeError):  # a codec that fails whatever the errors
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
    """How many documents the inputs hold (for the progress bar's ETA; None when stdin is read).
    It reads what each record file declares, so it also refuses, before any work, a Parquet or
    Arrow input without the text column or a .jsonl input whose first record lacks the text
    field (E308, E304): call it before the output is touched."""
    total = 0
    for spec in specs:
        if spec.kind == "stdin":
            return None
        if spec.kind == "txt":
            total += 1
        elif spec.kind == "dir":
            total += len(spec.files)
        elif spec.kind == "jsonl":
            try:
                with _open_input(Path(spec.path)) as f:
                    total += records.check_first_record(f, spec.path, opts, decode)
            except (_NotRegular, filetypes.Inflated, *filetypes.DECOMPRESSION_ERRORS):
                total += 1  # unreadable: one row with the error
        else:
            try:
                with _open_input(Path(spec.path), table=True) as f:
                    total += tables.table_schema(spec.kind, spec.path, opts, f)
            except (_NotRegular, filetypes.Inflated, *filetypes.DECOMPRESSION_ERRORS):
                total += 1
    return total


def read_documents(specs: list[InputSpec], opts: ReadOptions, stdin: Optional[BinaryIO] = None,
                   stats: Optional[dict] = None) -> Iterator[tuple[InputSpec, InputDoc]]:
    """Every document of every input, in order, with the input it came from. ``stats``: each
    file's stat when the run started (changes.file_stats); a document read from a file that
    differs from it since, or that is gone or no longer a regular file, is a row with an E322
    error."""
    for spec in specs:
        for doc in _read_one(spec, opts, stdin, stats):
            yield spec, doc


def _read_one(spec: InputSpec, opts: ReadOptions, stdin: Optional[BinaryIO],
              stats: Optional[dict] = None) -> Iterator[InputDoc]:
    if spec.kind == "txt":
        path = Path(spec.path)
        yield _file_doc(file_id(path.name), path, opts, stats)
    elif spec.kind == "dir":
        root = Path(spec.path)
        for f in spec.files:
            yield _file_doc(file_id(f.relative_to(root).as_posix()), f, opts, stats)
    elif spec.kind in ("jsonl", "parquet", "arrow"):
        n = 0
        stem = file_id(filetypes.stem(spec.path))
        docs = _read_records(spec, opts)
        if stats is not None:
            docs = changes.watch_records(docs, Path(spec.path), stats.get(str(Path(spec.path))),
                                         stem)
        try:
            for doc in docs:
                n += 1
                yield doc
        except (_NotRegular, filetypes.Inflated, *filetypes.DECOMPRESSION_ERRORS) as e:
            if filetypes.inflating(spec.path, e):  # the rest of the file is one row saying why
                where = _shown(spec.path) + (f" after record {n}" if n else "")
                yield InputDoc(f"{stem}:{n + 1}" if n else stem, None,
                               error=filetypes.inflate_error(where, spec.path, e))
                return
            if n:  # the file went bad midway (I/O error): not a record to skip silently
                raise DataFormatError(Errors.E336.format(path=_shown(spec.path),
                                                         reason=_reason(e))) from None
            yield _lost(_unreadable(stem, spec.path, e), spec.path, e, stats)
    elif spec.kind == "stdin":
        stream = stdin if stdin is not None else sys.stdin.buffer
        if opts.stdin_format == "jsonl":
            yield from records.jsonl_docs(stream, "stdin", "<stdin>", opts, decode)
        elif opts.stdin_format == "text":
            data = stream.read(_byte_limit(opts) + 1)
            yield _text_doc("stdin", data, opts, truncated=len(data) > _byte_limit(opts),
                            where="<stdin>")
        else:
            n = 0
            for _, raw in records.read_lines(stream, _byte_limit(opts)):
                if raw is None:
                    n += 1
                    yield records.over_long(f"stdin:{n}", "", False,
                                            f"more than {opts.max_chars:,}", opts)
                    continue
                raw = raw.rstrip(b"\r\n")
                if raw.strip():
                    n += 1
                    yield _text_doc(f"stdin:{n}", raw, opts, where=f"<stdin>, line {n}")


def _read_records(spec: InputSpec, opts: ReadOptions) -> Iterator[InputDoc]:
    # Tables too are read from the file opened here: opened by name, a FIFO swapped in since
    # the run started would wait for a writer.
    with _open_input(Path(spec.path), table=spec.kind != "jsonl") as f:
        if spec.kind == "jsonl":
            yield from records.jsonl_docs(f, file_id(filetypes.stem(spec.path)),
                                          _shown(spec.path), opts, decode)
        else:
            yield from tables.table_docs(spec.kind, spec.path, opts, decode, f)


def file_id(name: str) -> str:
    """The id of a text file: its path (relative to the directory given) without ``.txt``.
    Bytes of the name that are not UTF-8 are written as backslash escapes (``caf\\xe9``): the
    id stays valid Unicode and tells the file apart."""
    name = filetypes.inner_name(name)
    return records.escape_id(name[:-4] if name.lower().endswith(".txt") else name, name=True)


class _NotRegular(Exception):
    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


_PROC_DEVICE = os.stat("/proc").st_dev if os.path.isdir("/proc") else None
_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISDIR, "a directory"))


def _open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading if it is a regular file (a link is followed), else
    _NotRegular: reading a FIFO could wait forever, a device never end, and so could a file of
    /proc, which stat calls regular (/proc/kmsg waits for the kernel's next message)."""
    _check_regular(os.stat(path).st_mode)  # a socket cannot even be opened
    # Non-blocking: opening a FIFO would otherwise wait for a writer (it may have replaced the
    # file since the check).
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        _check_regular((st := os.fstat(fd)).st_mode)
        if st.st_dev == _PROC_DEVICE:
            raise _NotRegular("a file of /proc (its reads may wait without end)")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _check_regular(mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise _NotRegular(next((what for test, what in _KINDS if test(mode)), "not a regular file"))


def _open_input(path: Path, table: bool = False) -> BinaryIO:
    """``path`` opened (a regular file: _open_regular), through its decompressor if it has one
    (a compressed table inflated into memory: filetypes.opened)."""
    return filetypes.opened(_open_regular(path), path.name, table)


def _byte_limit(opts: ReadOptions) -> int:
    """Most bytes of a text of ``max_chars`` characters (up to 4 bytes each, and a BOM)."""
    return 4 * opts.max_chars + 4


def _file_doc(doc_id: str, path: Path, opts: ReadOptions, stats: Optional[dict] = None) -> InputDoc:
    limit = _byte_limit(opts)
    try:
        with _open_input(path) as f:
            data = f.read(limit + 1)
            st = os.fstat(f.fileno())  # after the read: any write before or during it shows
    except (_NotRegular, *filetypes.DECOMPRESSION_ERRORS) as e:
        if filetypes.inflating(path, e):
            return InputDoc(doc_id, None, error=filetypes.inflate_error(_shown(path), path, e))
        return _lost(_unreadable(doc_id, path, e), path, e, stats)
    doc = _text_doc(doc_id, data, opts, truncated=len(data) > limit, where=_shown(path))
    if stats is not None:
        # Bytes read are the file's size only when nothing was inflated.
        whole = len(data) <= limit and not filetypes.compression(path.name)
        reason = changes.difference(stats.get(str(path)), changes.stat_of(st),
                                    len(data) if whole else None)
        if reason:
            return changes.mark(doc, path, reason)
    return doc


def _shown(path) -> str:
    return records.escape_id(str(path), name=True)


def _unreadable(doc_id: str, path: str, e) -> InputDoc:
    if isinstance(e, _NotRegular):
        return InputDoc(doc_id, None, error=Errors.E339.format(path=_shown(path), what=e.what))
    return InputDoc(doc_id, None, error=Errors.E336.format(path=_shown(path), reason=_reason(e)))


def _lost(doc: InputDoc, path, e, stats: Optional[dict]) -> InputDoc:
    """The error row ``doc`` of ``path``, which cannot be read (``e``), as a row of a changed
    input (E322) when the file could be read as the run started: lost or swapped mid-run."""
    if stats is None:
        return doc
    reason = (f"it is {e.what} now" if isinstance(e, _NotRegular)
              else f"it is gone or unreadable now: {_reason(e)}")
    return changes.lost(doc, path, stats.get(str(path)), reason)


def _reason(e: OSError) -> str:  # the system's words, or pyarrow's (a stream cut short)
    return getattr(e, "strerror", None) or str(e)[:300] or type(e).__name__


def _text_doc(doc_id: str, data: bytes, opts: ReadOptions, truncated: bool = False,
              where: str = "") -> InputDoc:
    bad = filetypes.not_text(data, opts.encoding)
    if bad:
        return InputDoc(doc_id, None, error=Errors.E349.format(where=where or doc_id, what=bad[0],
                                                                fix=bad[1]))
    if truncated:  # more bytes than the longest text can take: only a prefix was read
        text, fell_back = decode(data[:4 * records.PREFIX_CHARS], opts)
        return records.over_long(doc_id, text, fell_back, f"more than {opts.max_chars:,}", opts)
    text, fell_back = decode(data, opts)
    if len(text) > opts.max_chars:
        return records.over_long(doc_id, text, fell_back, f"{len(text):,}", opts)
    return InputDoc(doc_id, text, fell_back)
