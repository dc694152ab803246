"""Records of .jsonl inputs, each one InputDoc: every record in, one row out (tables.py: Parquet
and Arrow).

What a record holds is checked here, value by value, so that no value can stop the run: a line
that is not JSON (or nests too deeply), a text that is not a string, a string that is not valid
Unicode (a lone surrogate escaped in JSON), a line or a text longer than the annotator can take.
Each becomes a row with a coded error. Numbers are kept as written, never converted.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import re
from dataclasses import dataclass
from typing import BinaryIO, Iterator, Optional

from ..errors import DataFormatError, Errors

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
    float both it and ``2e400`` are ``inf``), ``1.10`` stays ``1.10``, ``-0`` stays ``-0``, ``NaN``
    (which Python's reader takes) stays ``NaN``; and 5,000 digits or an exponent of 10^20 cost
    nothing (Python refuses an int of over 4,300 digits, ``decimal`` such an exponent)."""

    @property
    def kind(self) -> str:
        return "int" if self.lstrip("-").isdigit() else "float"


def _json(line):
    """A JSON record, its numbers as written (:class:`_Number`)."""
    return json.loads(line, parse_int=_Number, parse_float=_Number, parse_constant=_Number)


def id_text(value, default: str) -> str:
    """An id as a string, written as the input wrote it: a JSON ``true`` stays ``true``, an object
    or array its compact JSON (numbers as written), bytes decoded as UTF-8 (other bytes as
    ``\\xNN``); a number from a table column as Python writes it. ``default`` for no id (JSON
    ``null``, a table's null) or one nested too deeply to write back."""
    if value is None:
        return default
    if isinstance(value, str):
        return str(value)  # a _Number as a plain string
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "backslashreplace")
    if isinstance(value, (bool, list, tuple, dict)):
        try:
            return _json_text(value)
        except RecursionError:
            return default
    return str(value)


def _json_text(value) -> str:
    if isinstance(value, _Number) or (isinstance(value, numbers.Number)
                                      and not isinstance(value, bool)):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(str(k), ensure_ascii=False)}:{_json_text(v)}"
                              for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_json_text(v) for v in value) + "]"
    if isinstance(value, (bytes, bytearray)):
        value = id_text(value, "")
    return json.dumps(value, ensure_ascii=False, default=str)


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
        doc_id = id_text(obj.get(opts.id_field), default_id)
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
