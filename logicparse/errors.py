"""Every user-facing message of logicparse, with a code (spaCy style).

A message names the problem and the fix. Raise with ``raise SomeError(Errors.E001.format(...))``.
Code ranges: E0xx core (text, trees, mapping, Document), E1xx parser, E2xx senses, E3xx batch
annotation and shards, E4xx service, E5xx modeling and training. Add new messages inside your
range's block.
"""

from __future__ import annotations


class LogicparseError(Exception):
    """Base class of every error logicparse raises on purpose."""


class InputTextError(LogicparseError, ValueError):
    """The input text cannot be annotated as given."""


class TreeFormatError(LogicparseError, ValueError):
    """A bracketed tree string is malformed."""


class ModelLoadError(LogicparseError, OSError):
    """A model (parser, sense classifier, encoder) is missing, corrupted or incompatible."""


class ParseError(LogicparseError, RuntimeError):
    """The parser could not produce a tree for a sentence."""


class DataFormatError(LogicparseError, ValueError):
    """An input data file (treebank, GDTB, task data, shard) is not in the expected format."""


class Errors:
    # --- E0xx: core -------------------------------------------------------------------------
    E001 = ("Text must be a str, got {type}. Decode bytes first (for example "
            "data.decode('utf-8', errors='replace')).")
    E002 = ("Text contains invalid UTF-8 at character {pos} (lone surrogate {char!r}). Decode the "
            "input with errors='replace' or fix the source encoding.")
    E003 = ("Bytes input is not valid UTF-8 at byte {pos}: {reason}. Decode it yourself with the "
            "right encoding, or pass errors='replace'.")
    E010 = "Malformed tree at character {pos}: {reason}. Tree text: {snippet!r}"
    E011 = "Empty tree string: each sentence needs one bracketed tree such as '(S (NN word))'."
    E012 = ("Tree {index} has {n_leaves} leaves but the sentence has {n_tokens} tokens: a tree's "
            "leaves must be the sentence's tokens, in order.")
    E013 = "Expected a list of bracketed tree strings (one per sentence), got {type}."
    E020 = "Unknown relation {name!r}. Relations: {opts}."
    E021 = ("Unknown parser {name!r}: not 'default', not an installed benepar model and not a "
            "directory. Install benepar models with benepar.download('{name}') or pass a path.")
    E022 = ("Sense disambiguation gave relation {relation!r} for keyword {keyword!r}; expected one "
            "of the relations {opts} or None.")
    E030 = "GDTB directory {path} lacks {missing}. Expected raw/, gold/, const/ and SPLITS.json."
    E031 = "GDTB gold file {path}, line {line}: {reason}."
    E032 = "Unknown split {split!r} in {path}. Splits: {opts}."

    # --- E1xx: parser -----------------------------------------------------------------------

    # --- E2xx: senses -----------------------------------------------------------------------

    # --- E3xx: batch annotation and shards --------------------------------------------------

    # --- E4xx: service ----------------------------------------------------------------------

    # --- E5xx: modeling and training --------------------------------------------------------
