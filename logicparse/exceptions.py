"""The exceptions logicparse raises on purpose; their messages, with codes, are in errors.py."""

from __future__ import annotations

import re
from typing import Optional

_CODE = re.compile(r"^\[([EW]\d{3})\] ")


class LogicparseError(Exception):
    """Base class of every error logicparse raises on purpose."""

    @property
    def code(self) -> Optional[str]:
        """The message's code (``"E204"``), or None for a message built without one."""
        m = _CODE.match(str(self))
        return m.group(1) if m else None


class InputTextError(LogicparseError, ValueError):
    """The input text cannot be annotated as given."""


class ModelLoadError(LogicparseError, OSError):
    """A model (parser, sense classifier, encoder) is missing, corrupted or incompatible."""


class ParseError(LogicparseError, RuntimeError):
    """The parser could not produce a tree for a sentence."""


class DataFormatError(LogicparseError, ValueError):
    """An input data file (treebank, GDTB, task data, shard) is not in the expected format."""


class OptionError(LogicparseError, ValueError):
    """An option names a choice logicparse does not have."""


class ModelingError(LogicparseError, ValueError):
    """A model cannot be logicalized as asked, or its inputs (logic_ids) do not fit it."""


class TreeFormatError(DataFormatError):
    """A bracketed tree string is malformed."""


class OutputError(LogicparseError, OSError):
    """An output (shard directory, file) cannot be written: permissions, a full disk."""
