"""Parquet and Arrow inputs, each record one InputDoc (records.py): every record in, one row out.

What a file declares is checked before it is read: its columns (E308, E356), the bytes a batch or
row group would inflate to (E355; ipc.py reads an Arrow file's metadata). Each batch is validated
in full before a value is read, so that a damaged file is a row with E357 and never reaches native
code with bad offsets; a Parquet file that yields fewer rows than it declares gets one more such
row. Values are decoded one by one (invalid UTF-8 spoils its own row, E340), 16 rows at a time.
"""

from __future__ import annotations

import io
import os
from typing import BinaryIO, Iterator

from ..errors import DataFormatError, Errors
from . import filetypes, ipc
from .records import InputDoc, checked_doc, escape_id, id_text


def _as_bytes() -> dict:
    import pyarrow as pa

    pairs = {pa.string(): pa.binary(), pa.large_string(): pa.large_binary()}
    if hasattr(pa, "string_view"):  # pyarrow 16
        pairs[pa.string_view()] = pa.binary_view()
    return pairs


_AS_BYTES = _as_bytes()


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
    try:
        return pf, _parquet_columns(path, pf, opts)
    except DataFormatError:
        raise
    except (UnicodeDecodeError, pa.ArrowException, OSError, ValueError) as e:  # damaged metadata
        raise DataFormatError(Errors.E338.format(path=path, reason=e)) from None


def _parquet_columns(path: str, pf, opts) -> list:
    """The columns of ``opts`` the file has, their row groups' sizes checked (E355)."""
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
    return cols


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
        batches = _FileBatches(reader)
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
    _check_columns(path, names, opts)
    return rows


def _check_columns(path: str, names: list, opts) -> None:
    """E308 without the text column, E356 for a column read whose name two columns share."""
    if opts.text_field not in names:
        raise DataFormatError(Errors.E308.format(path=path, field=opts.text_field,
                                                 cols=", ".join(names)))
    for field in (opts.text_field, opts.id_field):
        if names.count(field) > 1:
            raise DataFormatError(Errors.E356.format(path=path, field=field,
                                                     n=names.count(field)))


# Rows made into Python strings at once. A column's values may be many copies of one long text
# (a dictionary-encoded Parquet column: 542 bytes held 400 texts of 1.1 MB, which 1,024 rows at
# once made 1.5 GB of memory); 16 rows of texts of at most a document's longest stay small.
ROWS_AT_ONCE = 16


def table_docs(kind: str, path: str, opts, decode, source: BinaryIO) -> Iterator:
    stem, shown = escape_id(filetypes.stem(path), name=True), escape_id(path, name=True)
    if kind == "parquet":
        pf, cols = parquet_file(path, source, opts)
        names, declared = pf.schema_arrow.names, pf.metadata.num_rows
        batches = pf.iter_batches(batch_size=ROWS_AT_ONCE, columns=cols)
    else:
        try:
            schema, batches, declared = arrow_reader(path, source)
        except OSError as e:
            if e.errno is not None:  # the system's: unreadable, as any file (E336)
                raise
            # pyarrow's: a message cut short (a download stopped midway)
            yield InputDoc(stem, None, error=Errors.E357.format(where=f"{shown}, after row 0",
                                                                reason=_Damaged(e).reason))
            return
        names = schema.names
    _check_columns(path, names, opts)
    batches = _checked(batches, [f for f in (opts.id_field, opts.text_field) if f in names])
    row, damaged = 0, False
    for batch in batches:
        if isinstance(batch, _Damaged):  # the rest of a stream, or one batch of a file
            damaged = True
            yield InputDoc(f"{stem}:{row + 1}", None, error=Errors.E357.format(
                where=f"{shown}, after row {row}", reason=batch.reason))
            continue
        for i in range(0, batch.num_rows, ROWS_AT_ONCE):
            part = batch.slice(i, ROWS_AT_ONCE)
            texts = _values(part.column(opts.text_field))
            ids = (_values(part.column(opts.id_field)) if opts.id_field in names
                   else [None] * len(texts))
            for doc_id, text in zip(ids, texts):
                row += 1
                yield _record_doc(doc_id, text, stem, row, f"{shown}, row {row}", opts, decode)
    if not damaged and row != declared:  # a damaged count in the metadata: rows not read
        yield InputDoc(f"{stem}:{row + 1}", None, error=Errors.E357.format(
            where=f"{shown}, after row {row}",
            reason=f"the file declares {declared:,} rows and {row:,} were read"))


def _record_doc(doc_id, text, stem: str, row: int, where: str, opts, decode) -> InputDoc:
    if isinstance(doc_id, _Invalid):
        return _invalid_doc(doc_id.escaped, where, opts.id_field, doc_id.reason)
    doc_id = id_text(doc_id, f"{stem}:{row}")
    if isinstance(text, _Invalid):
        return _invalid_doc(doc_id, where, opts.text_field, text.reason)
    fell_back = False
    if isinstance(text, (bytes, bytearray)):
        text, fell_back = decode(bytes(text), opts)
    return checked_doc(doc_id, text, fell_back, where, opts)


class _FileBatches:
    """An IPC file's batches by index: unlike a generator, it goes on after a batch that fails."""

    def __init__(self, reader):
        self.reader, self.next = reader, 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.next >= self.reader.num_record_batches:
            raise StopIteration
        self.next += 1
        return self.reader.get_batch(self.next - 1)


class _Damaged:
    """A batch that could not be read, or whose buffers do not hold what its metadata say."""

    def __init__(self, e: BaseException, rows=None):
        self.reason = (f"{rows:,} rows; " if rows is not None else "") + \
            f"{type(e).__name__}: {str(e)[:200]}"


def _checked(batches: Iterator, fields: list) -> Iterator:
    """The batches, the columns ``fields`` of each validated in full (offsets, lengths,
    dictionary indices) before a value is read: a damaged file's offsets would otherwise reach
    native code (a flipped byte made pyarrow segfault). A batch that fails is a _Damaged; after
    one, a stream or Parquet reader has no next batch to give, a file reader has."""
    import pyarrow as pa

    while True:
        batch = None
        try:
            batch = next(batches)
            for field in fields:
                _structure(batch.column(field)).validate(full=True)
        except StopIteration:
            return
        except (pa.ArrowException, OSError, ValueError, SystemError, IndexError) as e:
            yield _Damaged(e, batch.num_rows if batch is not None else None)
            continue
        yield batch


def _structure(column):
    """The column with string values seen as bytes, so that validation checks offsets and
    lengths but not UTF-8 (invalid UTF-8 spoils its own row: _values)."""
    import pyarrow as pa

    if pa.types.is_dictionary(column.type):
        return pa.DictionaryArray.from_arrays(column.indices, _structure(column.dictionary))
    return column.view(_AS_BYTES[column.type]) if column.type in _AS_BYTES else column


class _Invalid:
    """A string value that is not valid UTF-8: its bytes, escaped, and why."""

    def __init__(self, data: bytes, error: UnicodeDecodeError):
        self.escaped = id_text(data, "")  # the bytes that are not UTF-8 as \xNN
        self.reason = f"invalid UTF-8 at byte {error.start}: {error.reason}"


def _values(column) -> list:
    """The column's Python values; string values decoded one by one, so that invalid UTF-8 in one
    value spoils that value alone (pyarrow raises for the whole column). A dictionary's values are
    decoded once each, and its rows share them (one long text for 16 rows was 16 strings)."""
    import pyarrow as pa

    if pa.types.is_dictionary(column.type):
        indices = column.indices.to_pylist()
        used = sorted({i for i in indices if i is not None})
        values = dict(zip(used, _values(column.dictionary.take(pa.array(used, pa.int64())))))
        return [None if i is None else values[i] for i in indices]
    if column.type not in _AS_BYTES:
        return column.to_pylist()
    out = []
    for data in column.view(_AS_BYTES[column.type]).to_pylist():
        try:
            out.append(None if data is None else data.decode("utf-8"))
        except UnicodeDecodeError as e:
            out.append(_Invalid(data, e))
    return out


def _invalid_doc(doc_id: str, where: str, field: str, reason: str):
    return InputDoc(escape_id(doc_id), None, error=Errors.E340.format(where=where, field=field,
                                                                      reason=reason))
