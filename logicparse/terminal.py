"""Ids and text from inputs, shards and models, made safe to print on a terminal.

A document id or text may hold escape sequences: ESC [2J clears the screen, OSC 0 sets the window
title, OSC 52 writes the clipboard, OSC 8 shows a link under a fake caption, C1 controls do the
same in one byte, and bidi controls reorder what is shown. Invisible characters make two ids that
differ print alike, and tag characters (U+E0000 to U+E007F) spell out hidden ASCII. Every command
prints such values through :func:`safe`, which writes each of these characters as a visible Python
escape (``\\x1b``, ``\\u202e``, ``\\U000e0041``); ordinary text, accents and other scripts pass
unchanged. Zero-width joiners and variation selectors are shown escaped too, inside emoji as well:
what a field holds is what is shown.
"""

from __future__ import annotations

import json
import logging
import re

# DEL and C1; the line and paragraph separators; every format character (Unicode category Cf:
# bidi marks, zero-width spaces and joiners, the soft hyphen, BOM, the tag block) and every other
# default-ignorable code point (variation selectors, Hangul fillers), all of which print as nothing
# or act on their neighbours. With them C0 (all of it, or all but tab and newline). Written out
# rather than scanned from unicodedata at every start; a test checks it still covers Cf.
_OTHER = ("\x7f-\x9f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160"
          "\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f"
          "\ufeff\uffa0\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
          "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff")
_UNSAFE = re.compile(f"[\x00-\x1f{_OTHER}]")
_UNSAFE_KEEP_LINES = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHER}]")


def _escape(m: re.Match) -> str:
    return ascii(m.group())[1:-1]


def safe(value: object, lines: bool = False) -> str:
    """``str(value)`` with every control character escaped; ``lines=True`` keeps tab and newline
    (for multi-line text such as a document or an error message)."""
    return (_UNSAFE_KEEP_LINES if lines else _UNSAFE).sub(_escape, str(value))


def _json_escape(m: re.Match) -> str:
    c = ord(m.group())
    if c > 0xFFFF:  # JSON's \uXXXX holds 16 bits: a tag character takes a surrogate pair
        c -= 0x10000
        return f"\\u{0xD800 + (c >> 10):04x}\\u{0xDC00 + (c & 0x3FF):04x}"
    return f"\\u{c:04x}"


def safe_json(obj, **kwargs) -> str:
    """``json.dumps(obj)`` that stays safe with ``ensure_ascii=False``: JSON escapes C0 itself;
    the other characters :func:`safe` escapes are written as ``\\uXXXX``, the same string once
    parsed."""
    return _UNSAFE.sub(_json_escape, json.dumps(obj, **kwargs))


class SafeFormatter(logging.Formatter):
    """A logging formatter whose messages (which quote file names and ids) are escaped."""

    def format(self, record: logging.LogRecord) -> str:
        return safe(super().format(record), lines=True)


def _warning_line(message, category, filename, lineno, file=None, line=None) -> None:
    import sys

    stream = file if file is not None else sys.stderr
    if stream is None:  # no stderr (a detached process): nothing to show it on
        return
    try:
        stream.write(f"warning: {safe(message)}\n")
    except OSError:  # the terminal went away; a warning must not end the run
        pass


def warnings_as_lines() -> None:
    """Show every Python warning as one escaped line, ``warning: <message>``, without the
    source file, line number and source line Python's default adds (the command line's
    and its workers' choice; library users keep Python's)."""
    import warnings

    warnings.showwarning = _warning_line
