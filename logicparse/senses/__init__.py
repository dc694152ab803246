"""Keyword decisions: the relation each keyword occurrence signals, or none (paper section 3.1).

The Annotator hands every keyword occurrence, with its sentence's tree, to a :class:`SenseModel`
and maps the relation it returns; ``None`` means the occurrence is not a logical connective here
and is dropped. The default model (:class:`~logicparse.senses.decide.KeywordDecisions`) asks tree
rules first (``rules.py``), then a per-keyword classifier over encoder vectors, and otherwise keeps
the keyword's lexicon sense; ``SenseDecision.source`` says which decided.
"""

from __future__ import annotations

from typing import Optional

from .model import SOURCES, SenseDecision, SenseModel, SenseQuery  # noqa: F401 (re-exported)


def load_senses(spec="default", device: str = "cpu", encoder=None, rules: bool = True
                ) -> Optional[SenseModel]:
    """``None`` -> no decisions: every keyword keeps its lexicon sense (the paper's literal
    behaviour); ``"rules"`` -> the tree rules only (no encoder is loaded); ``"default"`` -> the
    rules, then the bundled SVMs with the offline encoder (all-MiniLM-L6-v2); ``"mpnet"`` -> the
    rules, then the bundled SVMs over all-mpnet-base-v2 (the optional extra
    ``logicparse[mpnet]``: more accurate, 438 MB, slower); a directory with
    ``meta.json`` -> the rules, then those SVMs with the encoder they were trained for; an encoder
    name or directory (``"albert-base-v2"`` in the local cache) -> the bundled SVMs with that
    encoder, refused unless they were trained for it. ``encoder`` overrides the encoder a model
    directory names (and is checked the same way); ``rules=False`` leaves out the tree rules.
    ``"none"`` is None, as on the command line."""
    from ..resources import senses_spec

    return load_checked(senses_spec(spec), device, encoder, rules)


def load_checked(spec, device: str = "cpu", encoder=None, rules: bool = True
                 ) -> Optional[SenseModel]:
    """:func:`load_senses` for a spec checked where it entered (``resources.senses_spec``: the
    Annotator, the command line, the service settings), which is not checked again here."""
    if spec is None:
        return None
    from .decide import KeywordDecisions

    if str(spec) == "rules":
        return KeywordDecisions(None, rules=True)
    from .classifier import load_senses as _load

    return KeywordDecisions(_load(spec, device=device, encoder=encoder), rules=rules)
