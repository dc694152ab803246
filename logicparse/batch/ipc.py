"""What reading an Arrow IPC input's record batches would allocate, known before any is read.

An IPC file or stream may compress its buffers (LZ4 or Zstandard, one frame per buffer): reading a
batch inflates all of them, and 11 kB of Zstandard held a batch of 300 MB, so a small file could
exhaust a worker's memory. Each compressed buffer opens with its inflated length (8 bytes,
little-endian; -1 for a buffer stored as it is), and the message that holds a batch lists its
buffers, so the sum is read from the message's metadata and those 8-byte prefixes, without
inflating anything. The metadata are FlatBuffers tables (Arrow's ``Message.fbs``: Message, its
RecordBatch or DictionaryBatch header, the Buffer structs; ``File.fbs``: the Footer's Blocks),
read with the ``flatbuffers`` runtime; the field numbers below are those of the format's schema.
"""

from __future__ import annotations

from typing import Iterator

import flatbuffers.encode as encode
import flatbuffers.number_types as types
from flatbuffers.table import Table

# Field numbers of Arrow's FlatBuffers schema (Message.fbs, File.fbs).
_MESSAGE_HEADER = 2
_DICTIONARY_ID, _DICTIONARY_DATA, _DICTIONARY_DELTA = 0, 1, 2
_BATCH_LENGTH, _BATCH_BUFFERS, _BATCH_COMPRESSION = 0, 2, 3
_FOOTER_DICTIONARIES, _FOOTER_BATCHES = 2, 3
_BUFFER_BYTES, _BLOCK_BYTES = 16, 24  # struct Buffer {offset, length}; Block {offset, int, length}
_FILE_MAGIC = b"ARROW1"


def _field(table: Table, number: int) -> int:
    """The offset of a field in ``table`` (0 where absent): vtable slot 4 + 2 · number."""
    return table.Offset(4 + 2 * number)


def _child(table: Table, number: int) -> Table | None:
    o = _field(table, number)
    return Table(table.Bytes, table.Indirect(table.Pos + o)) if o else None


def _root(buf: bytes) -> Table:
    return Table(buf, encode.Get(types.UOffsetTFlags.packer_type, buf, 0))


def _int64(buf, at: int) -> int:
    return encode.Get(types.Int64Flags.packer_type, buf, at)


def _vector(table: Table, number: int, item: int) -> tuple[int, int]:
    """(start, length) of a vector of structs of ``item`` bytes; ValueError where it would run
    past its buffer (a damaged length could otherwise make billions of reads)."""
    o = _field(table, number)
    if not o:
        return 0, 0
    start, n = table.Vector(o), table.VectorLen(o)
    if n < 0 or start + n * item > len(table.Bytes):
        raise ValueError(f"a vector of {n} items runs past its {len(table.Bytes)} bytes")
    return start, n


def _message_header(message) -> tuple[bytes, Table]:
    """The metadata of a message and its header table (a RecordBatch or a DictionaryBatch)."""
    meta = message.metadata.to_pybytes()
    header = _child(_root(meta), _MESSAGE_HEADER)
    if header is None:
        raise ValueError(f"a {message.type} message without its header")
    return meta, header


def _header(message) -> tuple[bytes, Table]:
    """The metadata of a record batch or dictionary message and its RecordBatch table."""
    meta, header = _message_header(message)
    if message.type == "dictionary":
        header = _child(header, _DICTIONARY_DATA)
        if header is None:
            raise ValueError("a dictionary message without its data")
    return meta, header


def inflated_bytes(message) -> int:
    """The bytes that reading a record batch or dictionary message (``pyarrow.ipc.Message``)
    inflates: 0 where its buffers are stored as they are (read in place), else the sum of their
    inflated lengths. Raises ValueError for metadata that do not describe its body."""
    meta, header = _header(message)
    body = message.body
    if not _field(header, _BATCH_COMPRESSION):
        return 0
    start, n = _vector(header, _BATCH_BUFFERS, _BUFFER_BYTES)
    total = 0
    for i in range(n):
        at = start + i * _BUFFER_BYTES
        offset, length = _int64(meta, at), _int64(meta, at + 8)
        if length < 8:
            continue  # an empty buffer
        if offset < 0 or offset + 8 > body.size:
            raise ValueError(f"buffer {i} lies outside the message body")
        inflated = int.from_bytes(body.slice(offset, 8).to_pybytes(), "little", signed=True)
        if inflated < -1:  # a negative length would cancel others in the sum
            raise ValueError(f"buffer {i} declares {inflated} bytes")
        total += length - 8 if inflated == -1 else inflated
    return total


def _dictionary_key(message) -> tuple[int, bool]:
    """(id, whether it adds to the dictionary of that id) of a dictionary message."""
    meta, header = _message_header(message)
    o, delta = _field(header, _DICTIONARY_ID), _field(header, _DICTIONARY_DELTA)
    return (_int64(meta, header.Pos + o) if o else 0,
            bool(meta[header.Pos + delta]) if delta else False)


def _rows(message) -> int:
    """The rows of a record batch message, from its metadata."""
    meta, header = _header(message)
    o = _field(header, _BATCH_LENGTH)
    return _int64(meta, header.Pos + o) if o else 0


def _file_messages(data) -> Iterator:
    """The dictionary and record batch messages an IPC file's footer points to."""
    import pyarrow as pa

    size = data.size
    tail = data.slice(size - 10, 10).to_pybytes() if size >= 10 else b""
    if tail[4:] != _FILE_MAGIC:
        raise ValueError("no Arrow file footer")
    length = int.from_bytes(tail[:4], "little", signed=True)
    if not 0 < length <= size - 10:
        raise ValueError("a footer length outside the file")
    footer = data.slice(size - 10 - length, length).to_pybytes()
    root = _root(footer)
    for number in (_FOOTER_DICTIONARIES, _FOOTER_BATCHES):
        start, n = _vector(root, number, _BLOCK_BYTES)
        for i in range(n):
            at = start + i * _BLOCK_BYTES
            offset = _int64(footer, at)
            n = encode.Get(types.Int32Flags.packer_type, footer, at + 8) + _int64(footer, at + 16)
            if offset < 0 or n < 0 or offset + n > size:
                raise ValueError(f"block {i} lies outside the file")
            yield pa.ipc.read_message(data.slice(offset, n))


def survey(data, is_file: bool) -> tuple[int, int]:
    """(rows, the most bytes that reading one record batch inflates) of the IPC file or stream
    ``data`` (a ``pyarrow.Buffer``), read from the messages' metadata. The dictionaries in force
    stay in memory beside a batch, so theirs are added to it (a delta adds to its dictionary, a
    new dictionary of the same id replaces it). Raises ValueError, struct.error or
    pyarrow.ArrowInvalid for messages that are not what they say."""
    import pyarrow as pa

    messages = (_file_messages(data) if is_file
                else pa.ipc.MessageReader.open_stream(pa.BufferReader(data)))
    rows = most = 0
    held: dict[int, int] = {}  # the inflated bytes of each dictionary in force, by id
    for message in messages:
        if message.type == "record batch":
            most = max(most, inflated_bytes(message) + sum(held.values()))
            rows += _rows(message)
        elif message.type == "dictionary":
            key, delta = _dictionary_key(message)
            n = inflated_bytes(message)
            held[key] = held.get(key, 0) + n if delta else n  # a new one replaces the old
    return rows, most
