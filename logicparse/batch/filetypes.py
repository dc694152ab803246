"""What an input file holds: its compression, read transparently, and whether it is text at all.

A file named ``*.gz``, ``*.bz2`` or ``*.xz`` is decompressed as it is read, and the name without
that suffix says what is inside (``chat.txt.gz`` a text, ``notes.jsonl.xz`` JSON lines); no more
is inflated than the reader takes, so a small file that inflates to gigabytes costs no memory.
(Zstandard is not read: Python's standard library has no reader for it before 3.14.)

Text is annotated, nothing else. Before a text file's bytes are decoded, :func:`not_text` looks at
its first :data:`SNIFF_BYTES` bytes: a known binary format by its magic number (PNG, PDF, ZIP,
a compressed file under a text name, …), zero bytes (binary data, or UTF-16 text under another
encoding), or mostly control characters. Such a file is a row with an error, never annotated:
decoded as Latin-1 it would put rows of byte garbage into someone's training data.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import lzma
import zlib
from pathlib import PurePath
from typing import BinaryIO, Optional

from ..errors import Errors

COMPRESSIONS = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}
# What a damaged or mislabelled compressed file raises while it is read.
DECOMPRESSION_ERRORS = (EOFError, OSError, zlib.error, lzma.LZMAError)
TABLE_INFLATE_LIMIT = 1 << 31  # a compressed Parquet or Arrow file is inflated into memory
SNIFF_BYTES = 8000  # as git and file(1): enough to tell, little to read twice
CONTROL_SHARE = 0.05  # control characters in a text's first bytes beyond which it is not text

_CONVERT = "leave it out, or convert it to plain text first"
_RENAME = "name it with the suffix {suffix}, which is read transparently"
# (magic number at offset 0, what the file is, how to fix it)
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image", _CONVERT),
    (b"%PDF-", "a PDF document", "extract its text first (e.g. pdftotext), then annotate that"),
    (b"\xff\xd8\xff", "a JPEG image", _CONVERT),
    (b"GIF87a", "a GIF image", _CONVERT),
    (b"GIF89a", "a GIF image", _CONVERT),
    (b"II*\x00", "a TIFF image", _CONVERT),
    (b"MM\x00*", "a TIFF image", _CONVERT),
    (b"PK\x03\x04", "a ZIP archive (or a .docx, .xlsx, .odt, .epub)", _CONVERT),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Microsoft Office document", _CONVERT),
    (b"\x1f\x8b", "gzip-compressed data", _RENAME.format(suffix=".gz")),
    (b"\xfd7zXZ\x00", "xz-compressed data", _RENAME.format(suffix=".xz")),
    (b"BZh", "bzip2-compressed data", _RENAME.format(suffix=".bz2")),
    (b"\x28\xb5\x2f\xfd", "Zstandard-compressed data", "decompress it first (zstd -d)"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", _CONVERT),
    (b"Rar!\x1a\x07", "a RAR archive", _CONVERT),
    (b"PAR1", "a Parquet file", "name it with the suffix .parquet"),
    (b"ARROW1", "an Arrow file", "name it with the suffix .arrow"),
    (b"SQLite format 3\x00", "an SQLite database", _CONVERT),
    (b"\x7fELF", "an executable (ELF)", _CONVERT),
    (b"OggS", "an Ogg audio or video file", _CONVERT),
    (b"fLaC", "a FLAC audio file", _CONVERT),
    (b"ID3\x03", "an MP3 audio file", _CONVERT),
    (b"ID3\x04", "an MP3 audio file", _CONVERT),
)
# Control characters other than tab, newline, vertical tab, form feed, carriage return and
# escape (terminal colours in logs).
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 11, 12, 13, 27)) + b"\x7f"


def compression(name) -> Optional[str]:
    """The suffix (``".gz"``, ``".bz2"``, ``".xz"``) of a compressed file's name, else None."""
    suffix = PurePath(str(name)).suffix.lower()
    return suffix if suffix in COMPRESSIONS else None


def inner_name(name) -> str:
    """The name without its compression suffix: what the file holds (``a.txt.gz`` -> ``a.txt``)."""
    name = str(name)
    return name[:-len(compression(name))] if compression(name) else name


def stem(name) -> str:
    """The file's name without its compression suffix and the suffix of what it holds."""
    return PurePath(inner_name(PurePath(str(name)).name)).stem


def decompressing(raw: BinaryIO, suffix: Optional[str]) -> BinaryIO:
    """``raw`` read through the decompressor of ``suffix`` (itself when None). Closing the
    result closes ``raw``; ``fileno()`` is still ``raw``'s."""
    if suffix is None:
        return raw
    opener = {".gz": lambda f: gzip.GzipFile(fileobj=f, mode="rb"),
              ".bz2": lambda f: bz2.BZ2File(f, mode="rb"),
              ".xz": lambda f: lzma.LZMAFile(f, mode="rb")}[suffix]
    return _Closing(opener(raw), raw)


class Inflated(Exception):
    """A compressed table that inflates to more than TABLE_INFLATE_LIMIT bytes."""


def opened(raw: BinaryIO, name: str, table: bool = False) -> BinaryIO:
    """``raw`` (the file ``name``, open) read through its decompressor when it is compressed. A
    compressed table is inflated into memory, at most TABLE_INFLATE_LIMIT bytes (the Parquet and
    Arrow readers seek)."""
    f = decompressing(raw, compression(name))
    if not table or not compression(name):
        return f
    with f:
        data = f.read(TABLE_INFLATE_LIMIT + 1)
    if len(data) > TABLE_INFLATE_LIMIT:
        raise Inflated(f"it inflates to more than {TABLE_INFLATE_LIMIT:,} bytes")
    return io.BytesIO(data)


def inflating(name, e: BaseException) -> bool:
    """Whether ``e``, raised reading the file ``name``, is its decompression failing (not the
    disk: an OSError with an errno)."""
    if not compression(PurePath(str(name)).name):
        return False
    return isinstance(e, (Inflated, EOFError, zlib.error, lzma.LZMAError)) or (
        isinstance(e, OSError) and e.errno is None)


def inflate_error(where: str, name, e: BaseException) -> str:
    """The E350 message of the compressed file ``name`` that ``e`` stopped (shown as ``where``)."""
    fix = ("decompress it first, or annotate it as .jsonl" if isinstance(e, Inflated)
           else "re-create the file, or drop the suffix if it is not compressed")
    return Errors.E350.format(where=where, fmt=COMPRESSIONS[compression(PurePath(str(name)).name)],
                              reason=str(e) or type(e).__name__, fix=fix)


class _Closing:
    """A decompressing reader that also closes the file under it (gzip and the others leave a
    file object they were given open)."""

    def __init__(self, reader, raw):
        self._reader, self._raw = reader, raw

    def __getattr__(self, name):
        return getattr(self._reader, name)

    def fileno(self) -> int:
        return self._raw.fileno()

    def close(self) -> None:
        try:
            self._reader.close()
        finally:
            self._raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def not_text(data: bytes, encoding: str = "utf-8") -> Optional[tuple[str, str]]:
    """(what the bytes are, how to fix it) when ``data`` (a file's first bytes, or all of them)
    is not text in ``encoding``; None when it may be."""
    head = data[:SNIFF_BYTES]
    for magic, what, fix in _MAGIC:
        if head.startswith(magic):
            return what, fix
    if head[4:8] == b"ftyp":
        return "an MP4, QuickTime or HEIF file", _CONVERT
    if head[:4] == b"RIFF" and head[8:12] in (b"WAVE", b"AVI ", b"WEBP"):
        return "a RIFF file (WAV, AVI or WebP)", _CONVERT
    wide = codecs.lookup(encoding).name.startswith(("utf-16", "utf-32"))
    if b"\x00" in head and not wide:
        if head[:2] in (b"\xff\xfe", b"\xfe\xff") or head.count(0) * 3 > len(head):
            return "UTF-16 text by its zero bytes", "pass --encoding utf-16"
        return "binary data (it holds zero bytes)", _CONVERT
    controls = len(head) - len(head.translate(None, _CONTROL))
    if not wide and controls >= 8 and controls > CONTROL_SHARE * len(head):
        return (f"mostly binary: {controls:,} control characters in its first {len(head):,} "
                "bytes"), _CONVERT
    return None
