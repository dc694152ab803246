"""The fields of a JSON task record, each checked against the type its reader needs.

A record of another shape fails deep inside training with a TypeError or KeyError that names
neither file nor record, or does not fail at all: a string where a list of options belongs reads
as a list of its letters. Here it is an E520 naming the file, the record and what was expected.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Optional

from ..errors import DataFormatError, Errors

MISSING = object()


def shown(value: Any) -> str:
    """A JSON value as a message names it: "the string 'xy'", "the number 3", "a list of 2"."""
    if value is MISSING:
        return "nothing (no such field)"
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}" + ("..." if len(value) > 40 else "")
    if isinstance(value, list):
        return f"a list of {len(value)}"
    return "an object" if isinstance(value, dict) else type(value).__name__


def is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def is_texts(value: Any, at_least: int = 1) -> bool:
    return isinstance(value, list) and len(value) >= at_least and all(
        isinstance(v, str) for v in value)


def is_ident(value: Any) -> bool:
    # bool is an int to Python, but no id.
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def expect(value: Any, ok: Callable[[Any], bool], path: str, where: str, name: str,
           want: str) -> Any:
    """``value`` when ``ok(value)``; else the E520 saying that ``name`` must be ``want``."""
    if not ok(value):
        raise DataFormatError(Errors.E520.format(path=path, where=where,
                                                 reason=f"{name} must be {want}, got {shown(value)}"))
    return value


class Record:
    """One JSON object of ``path`` (``where``: "line 3", "item 0, question 1"), read field by field."""

    def __init__(self, value: Any, path: str, where: str, what: str = "an object"):
        self.path, self.where = path, where
        self.value = expect(value, lambda v: isinstance(v, dict), path, where, "the record", what)

    def error(self, reason: str) -> DataFormatError:
        return DataFormatError(Errors.E520.format(path=self.path, where=self.where, reason=reason))

    def get(self, key: str, ok: Callable[[Any], bool], want: str, optional: bool = False) -> Any:
        """The field ``key`` when ``ok`` says it is ``want``; None when ``optional`` and absent."""
        value = self.value.get(key, MISSING)
        if value is MISSING and optional:
            return None
        return expect(value, ok, self.path, self.where, repr(key), want)

    def text(self, key: str, optional: bool = False) -> Optional[str]:
        return self.get(key, is_text, "a non-empty string", optional)

    def ident(self, key: str, default: str) -> str:
        value = self.get(key, is_ident, "a string or a whole number", optional=True)
        return default if value is None else str(value)
