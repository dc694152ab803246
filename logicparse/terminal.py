"""Ids and text from inputs, shards and models, made safe to print on a terminal.

A document id or text may hold escape sequences: ESC [2J clears the screen, OSC 0 sets the window
title, OSC 8 shows a link under a fake caption, C1 controls do the same in one byte, and bidi
controls reorder what is shown. Every command prints such values through :func:`safe`, which
writes each control character as a visible Python escape (``\\x1b``, ``\\u202e``); ordinary text,
accents and other scripts pass unchanged.
"""

from __future__ import annotations

import json
import logging
import re

# DEL, C1, the bidi marks (embedding, override, isolate) and the line/paragraph separators; with
# them C0 (all of it, or all but tab and newline).
_OTHER = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[\x00-\x1f{_OTHER}]")
_UNSAFE_KEEP_LINES = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHER}]")


def _escape(m: re.Match) -> str:
    return ascii(m.group())[1:-1]


def safe(value: object, lines: bool = False) -> str:
    """``str(value)`` with every control character escaped; ``lines=True`` keeps tab and newline
    (for multi-line text such as a document or an error message)."""
    return (_UNSAFE_KEEP_LINES if lines else _UNSAFE).sub(_escape, str(value))


def safe_json(obj, **kwargs) -> str:
    """``json.dumps(obj)`` that stays safe with ``ensure_ascii=False``: JSON escapes C0 itself;
    C1, DEL and bidi controls are written as ``\\uXXXX`` (the same string once parsed)."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(obj, **kwargs))


class SafeFormatter(logging.Formatter):
    """A logging formatter whose messages (which quote file names and ids) are escaped."""

    def format(self, record: logging.LogRecord) -> str:
        return safe(super().format(record), lines=True)
