"""Records of .jsonl, Parquet and Arrow inputs, each one InputDoc: every record in, one row out.

What a record holds is checked here, value by value, so that no value can stop the run: a line
that is not JSON (or nests too deeply), a text that is not a string, a string that is not valid
Unicode (a lone surrogate escaped in JSON, invalid UTF-8 in an Arrow or Parquet string column),
a line or a text longer than the annotator can take. Each becomes a row with a coded error.
Numbers too long for Python's int conversion are read as decimals, not refused.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
from dataclasses import dataclass
from typing import BinaryIO, Iterator, Optional

from ..errors import DataFormatError, Errors
from . import filetypes, ipc

PREFIX_CHARS = 1000  # of a text too long to annotate, kept in its row

_MISSING = object()


@dataclass(frozen=True)
class InputDoc:
    """One document as read from an input, before annotation."""

    id: str
    text: Optional[str]
    fallback: bool = False  # decoded with the fallback encoding
    error: Optional[str] = None  # the record could not be read: its row carries this error


_SURROGATE = re.compile("[\ud800-\udfff]")


class _Number(str):
    """A JSON number kept as it is written, never converted: an id ``1e400`` stays ``1e400`` (as a
    float both it and ``2e400`` are ``inf``), ``1.10`` stays ``1.10``, ``-0`` stays ``-0``; and
    5,000 digits or an exponent of 10^20 cost nothing (an int of over 4,300 digits is refused by
    Python, a decimal of such an exponent by ``decimal``)."""

    @property
    def kind(self) -> str:
        return "float" if any(c in self for c in ".eE") else "int"


def _json(line):
    """A JSON record, its numbers as written (:class:`_Number`)."""
    return json.loads(line, parse_int=_Number, parse_float=_Number)


def line_limit(max_chars: int) -> int:
    """Most bytes of a .jsonl line: a text of ``max_chars`` characters, each escaped (up to 12
    bytes for a surrogate pair), and 1 MiB for the other fields."""
    return 12 * max_chars + (1 << 20)


def read_lines(stream: BinaryIO, limit: int) -> Iterator[tuple[int, Optional[bytes]]]:
    """(line number, bytes) of each line, reading at most ``limit`` + 1 bytes of any line at
    once; a longer line comes as (number, None), the rest of it skipped unread into memory."""
    lineno = 0
    while True:
        raw = stream.readline(limit + 1)
        if not raw:
            return
        lineno += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):
                raw = stream.readline(1 << 20)
            yield lineno, None
        else:
            yield lineno, raw


def jsonl_docs(stream: BinaryIO, stem: str, where: str, opts, decode) -> Iterator:
    limit = line_limit(opts.max_chars)
    for lineno, raw in read_lines(stream, limit):
        default_id = f"{stem}:{lineno}"
        if raw is None:
            yield InputDoc(default_id, None, error=Errors.E341.format(
                path=where, line=lineno, limit=limit, max_chars=opts.max_chars))
            continue
        if not raw.strip():
            continue
        line, fell_back = decode(raw, opts)
        try:
            obj = _json(line)
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
        yield checked_doc(doc_id, obj.get(opts.text_field, _MISSING), fell_back,
                          f"{where}, line {lineno}", opts, obj)


def check_first_record(stream: BinaryIO, path: str, opts, decode) -> int:
    """Records in a .jsonl file (its non-blank lines). A first record without the text field
    means the wrong --text-field, which would make every row an error: refused before any work."""
    n = 0
    for _, raw in read_lines(stream, line_limit(opts.max_chars)):
        if raw is not None and not raw.strip():
            continue
        n += 1
        if n == 1 and raw is not None:
            try:
                obj = _json(decode(raw, opts)[0])
            except (json.JSONDecodeError, RecursionError):
                continue  # one bad line: its own row says so
            if isinstance(obj, dict) and opts.text_field not in obj:
                raise DataFormatError(Errors.E304.format(path=path, line=1, field=opts.text_field,
                                                         keys=", ".join(sorted(obj))))
    return n


def parquet_file(path: str, source: BinaryIO, opts):
    """The Parquet file ``source`` (opened from ``path``, a regular file: inputs._open_regular),
    and the columns of ``opts`` it has. E355 where a row group of those columns would inflate past
    TABLE_INFLATE_LIMIT bytes: its pages are read whole (14 kB of Zstandard held a column chunk of
    300 MB), and their sizes are read from the file's metadata, as it declares them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(source)
    except (pa.ArrowInvalid, OSError) as e:
        raise DataFormatError(Errors.E338.format(path=path, reason=e)) from None
    cols = [c for c in (opts.id_field, opts.text_field) if c in pf.schema_arrow.names]
    meta = pf.metadata
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        # A column's leaves: itself, or a struct's fields ("doc.text"; a name may hold dots too).
        n = sum(column.total_uncompressed_size
                for column in map(group.column, range(group.num_columns))
                if any(column.path_in_schema == c or column.path_in_schema.startswith(c + ".")
                       for c in cols))
        if n > filetypes.TABLE_INFLATE_LIMIT:
            raise DataFormatError(Errors.E355.format(
                path=path, what=f"row group {g + 1}", n=n, limit=filetypes.TABLE_INFLATE_LIMIT,
                fix="smaller row groups (pyarrow: write_table(table, row_group_size=...))"))
    return pf, cols


def arrow_reader(path: str, source: BinaryIO):
    """(schema, batches, rows) of an Arrow IPC file or stream (``source``: opened from ``path``, a
    regular file), mapped into memory, not read; E355 where reading a batch would inflate more
    than TABLE_INFLATE_LIMIT bytes of compressed buffers."""
    import mmap

    import pyarrow as pa

    if isinstance(source, io.BytesIO):  # a compressed file, inflated (filetypes.opened)
        data = pa.py_buffer(source.getbuffer())
    else:
        fd = source.fileno()
        # mapped from the file already open: mapped by name, a FIFO swapped in would be waited on
        data = pa.py_buffer(mmap.mmap(fd, 0, access=mmap.ACCESS_READ) if os.fstat(fd).st_size
                            else b"")  # mmap refuses an empty file
    try:
        reader = pa.ipc.open_file(data)
        batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
    except (pa.ArrowInvalid, OSError) as e:  # OSError: a footer that fails verification
        if data.size >= 6 and data.slice(0, 6).to_pybytes() == b"ARROW1":
            raise DataFormatError(Errors.E309.format(path=path, reason=e)) from None
        try:
            reader = pa.ipc.open_stream(data)
        except (pa.ArrowInvalid, OSError) as e:
            raise DataFormatError(Errors.E309.format(path=path, reason=e)) from None
        batches = iter(reader)
    rows = _survey(path, data, isinstance(reader, pa.ipc.RecordBatchFileReader))
    return reader.schema, batches, rows


def _survey(path: str, data, is_file: bool) -> int:
    """The rows of an IPC input, its batches' inflated sizes checked first (ipc.py)."""
    import struct

    import pyarrow as pa

    try:
        rows, most = ipc.survey(data, is_file)
    except (ValueError, struct.error, pa.ArrowInvalid) as e:
        raise DataFormatError(Errors.E309.format(path=path, reason=f"a batch's metadata: {e}")
                              ) from None
    if most > filetypes.TABLE_INFLATE_LIMIT:
        raise DataFormatError(Errors.E355.format(
            path=path, what="one of its record batches, with the dictionaries kept beside it,",
            n=most, limit=filetypes.TABLE_INFLATE_LIMIT,
            fix="smaller batches (pyarrow: write_table(table, max_chunksize=...)) or without "
                "compression"))
    return rows


def table_schema(kind: str, path: str, opts, source: BinaryIO) -> int:
    """Checks a Parquet or Arrow input's columns (E308) and returns its number of rows."""
    if kind == "parquet":
        pf, _ = parquet_file(path, source, opts)
        names, rows = pf.schema_arrow.names, pf.metadata.num_rows
    else:
        schema, _, rows = arrow_reader(path, source)
        names = schema.names
    if opts.text_field not in names:
        raise DataFormatError(Errors.E308.format(path=path, field=opts.text_field,
                                                 cols=", ".join(names)))
    return rows


# Rows made into Python strings at once. A column's values may be many copies of one long text
# (a dictionary-encoded Parquet column: 542 bytes held 400 texts of 1.1 MB, which 1,024 rows at
# once made 1.5 GB of memory); 16 rows of texts of at most a document's longest stay small.
ROWS_AT_ONCE = 16


def table_docs(kind: str, path: str, opts, decode, source: BinaryIO) -> Iterator:
    if kind == "parquet":
        pf, cols = parquet_file(path, source, opts)
        names = pf.schema_arrow.names
        batches = pf.iter_batches(batch_size=ROWS_AT_ONCE, columns=cols)
    else:
        schema, batches, _ = arrow_reader(path, source)
        names = schema.names
    if opts.text_field not in names:
        raise DataFormatError(Errors.E308.format(path=path, field=opts.text_field,
                                                 cols=", ".join(names)))
    stem, shown = escape_id(filetypes.stem(path), name=True), escape_id(path, name=True)
    row = 0
    for batch in (b.slice(i, ROWS_AT_ONCE) for b in batches for i in range(0, b.num_rows, ROWS_AT_ONCE)):
        texts = _values(batch.column(opts.text_field))
        ids = (_values(batch.column(opts.id_field)) if opts.id_field in names
               else [None] * len(texts))
        for doc_id, text in zip(ids, texts):
            row += 1
            where = f"{shown}, row {row}"
            fell_back = False
            if isinstance(doc_id, _Invalid):
                yield _invalid_doc(doc_id.escaped, where, opts.id_field, doc_id.reason)
                continue
            doc_id = f"{stem}:{row}" if doc_id is None else str(doc_id)
            if isinstance(text, _Invalid):
                yield _invalid_doc(doc_id, where, opts.text_field, text.reason)
                continue
            if isinstance(text, (bytes, bytearray)):
                text, fell_back = decode(bytes(text), opts)
            yield checked_doc(doc_id, text, fell_back, where, opts)


class _Invalid:
    """A string value that is not valid UTF-8: its bytes, escaped, and why."""

    def __init__(self, data: bytes, error: UnicodeDecodeError):
        self.escaped = data.decode("utf-8", "backslashreplace")
        self.reason = f"invalid UTF-8 at byte {error.start}: {error.reason}"


def _values(column) -> list:
    """The column's Python values; a string column's values decoded one by one, so that invalid
    UTF-8 in one value spoils that value alone (pyarrow raises for the whole column)."""
    import pyarrow as pa

    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        return column.to_pylist()
    raw = column.view(pa.large_binary() if pa.types.is_large_string(column.type)
                      else pa.binary()).to_pylist()
    out = []
    for data in raw:
        try:
            out.append(None if data is None else data.decode("utf-8"))
        except UnicodeDecodeError as e:
            out.append(_Invalid(data, e))
    return out


def _invalid_doc(doc_id: str, where: str, field: str, reason: str):
    return InputDoc(escape_id(doc_id), None, error=Errors.E340.format(where=where, field=field,
                                                                      reason=reason))


def escape_id(doc_id: str, name: bool = False) -> str:
    """``doc_id`` as valid Unicode: lone surrogates written as backslash escapes, ``\\udc80``;
    for a file ``name`` (decoded by Python with surrogateescape), the bytes that are not UTF-8
    as ``\\xNN``."""
    if not _SURROGATE.search(doc_id):
        return doc_id
    out = []
    for ch in doc_id:
        if name and 0xDC80 <= ord(ch) <= 0xDCFF:  # an undecodable byte (surrogateescape)
            out.append(f"\\x{ord(ch) - 0xDC00:02x}")
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def over_long(doc_id: str, text: str, fell_back: bool, n, opts):
    """The row of a text longer than the annotator takes: an E333 error, a prefix of the text."""
    return InputDoc(doc_id, text[:PREFIX_CHARS], fell_back,
                    Errors.E333.format(n=n, limit=opts.max_chars))


# Longer ids are error rows: a .jsonl of 40 failing records with ids of 2 MB made a manifest of
# 202 MB, rewritten after every shard, and 20 MB of messages.
MAX_ID_CHARS = 10_000


def checked_doc(doc_id: str, text, fell_back: bool, where: str, opts,
                record: Optional[dict] = None):
    """The document, or a row with the error when its text is missing, null, not a string, not
    valid Unicode or too long, or when its id is not valid Unicode."""
    m = _SURROGATE.search(doc_id)
    if m:
        return InputDoc(escape_id(doc_id), None, fell_back, Errors.E340.format(
            where=where, field=opts.id_field, reason=f"lone surrogate at character {m.start()}"))
    if len(doc_id) > MAX_ID_CHARS:  # ids go into the manifest and messages, and are printed
        digest = hashlib.sha1(doc_id.encode("utf-8")).hexdigest()[:16]
        return InputDoc(f"{doc_id[:100]}…{digest}", None, fell_back, Errors.E354.format(
            where=where, field=opts.id_field, n=len(doc_id), limit=MAX_ID_CHARS))
    if isinstance(text, str) and not isinstance(text, _Number):
        m = _SURROGATE.search(text)
        if m:
            return InputDoc(doc_id, None, fell_back, Errors.E340.format(
                where=where, field=opts.text_field,
                reason=f"lone surrogate at character {m.start()}"))
        if len(text) > opts.max_chars:
            return over_long(doc_id, text, fell_back, f"{len(text):,}", opts)
        return InputDoc(doc_id, text, fell_back)
    if text is _MISSING:
        what = "missing (fields: " + escape_id(", ".join(sorted(record or {}))) + ")"
    else:
        kind = text.kind if isinstance(text, _Number) else type(text).__name__
        what = "null" if text is None else f"of type {kind}"
    return InputDoc(doc_id, None, fell_back,
                    Errors.E335.format(where=where, field=opts.text_field, what=what))
