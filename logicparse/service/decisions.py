"""The keywords a Document leaves out because they were decided ``none`` (``in Paris``, the verb
``like``): the REST response lists them when asked (``"decided_none": true``), so that the page can
show every decision, not only the relations kept. They are not part of the Document record.

They are found again from the Document itself: detection over each sentence's tokens (the same
``find_keywords`` the Annotator runs), minus the keywords the Document keeps. Which step said
``none`` follows the order of :class:`logicparse.senses.decide.KeywordDecisions`: the tree rule
if it decides ``none`` on the sentence's tree, otherwise the sense classifier. No encoder runs.

A rule's reason is the case it matched: each ``return None`` of the rules carries a comment that
names its case (``return None  # particle ("coming in")``), and the rule is run under a profiler
that notes which of those lines returned, so the reason is the rules' own words and cannot drift
from them.
"""

from __future__ import annotations

import linecache
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ..annotator import extends_lists
from ..mapping import find_keywords
from ..senses.rules import decide
from ..tokens import Document
from ..trees import read_tree

REASONS = {
    "rule": "a tree rule: not a connective in this sentence",
    "classifier": "the sense classifier: not a connective in this sentence",
}
_RULES_DIR = str(Path(decide.__code__.co_filename).parent)
_COMMENT = re.compile(r"#\s*(.+?)\s*$")


def _case(path: str, line: int):
    """The comment that names the case of the ``return`` at ``line``: on the line itself, else
    the comment block above it (past the condition that leads to it), within its function."""
    here = _COMMENT.search(linecache.getline(path, line))
    if here:
        return here.group(1)
    block: list[str] = []
    for n in range(line - 1, max(0, line - 12), -1):
        text = linecache.getline(path, n).strip()
        if text.startswith("#"):
            block.append(text.lstrip("#").strip())
        elif block or not text or text.startswith("def ") or "return " in text:
            break
    return " ".join(reversed(block)) or None


def rule_reason(keyword: str, tree, start: int, end: int) -> str:
    """Why the tree rule decides ``none`` here (see :func:`rule_decision`); the generic reason
    where it decides otherwise."""
    return rule_decision(keyword, tree, start, end)[1] or REASONS["rule"]


def rule_decision(keyword: str, tree, start: int, end: int) -> tuple:
    """(the tree rule's decision, why it is ``none``), the rule run once: the reason is the rule
    function and the case its ``return None`` comment names (the outermost such line that
    returned), e.g. ``tree rule _in: particle ("coming in")``; the generic reason when the
    returning line has no comment; None when the rule does not decide ``none``."""
    returned: list[tuple[int, str, int]] = []  # (depth, file, line) of each None returned
    depth = [0]

    def profile(frame, event, arg):
        if event == "call":
            depth[0] += 1
        elif event == "return":
            depth[0] -= 1
            if arg is None and frame.f_code.co_filename.startswith(_RULES_DIR):
                returned.append((depth[0], frame.f_code.co_filename, frame.f_lineno,
                                 frame.f_code.co_name))

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        decision = decide(keyword, tree, start, end)
    finally:
        sys.setprofile(previous)
    if decision is not None:
        return decision, None
    for _, path, line, name in sorted(returned):
        case = _case(path, line)
        if case:
            return None, f"tree rule {name}: {case}"
    return None, REASONS["rule"]


@dataclass
class NoneDecision:
    keyword: str  # as written in the text (tokens joined by single spaces)
    key: list[list[int]]  # [[start, end)] token range, as Relation.key
    sentence: int
    source: str  # rule | classifier
    reason: str


def decided_none(doc: Document, senses, mapping: str = "default") -> list[NoneDecision]:
    """The keywords of ``doc`` decided ``none`` by ``senses`` (the Annotator's sense model; with
    None every keyword keeps its lexicon relation, so none is left out)."""
    if senses is None or doc.error is not None or not doc.parse:
        return []
    kept = {tuple(span) for r in doc.relations for span in r.key}
    rules = getattr(senses, "rules", False)
    out = []
    for s, ((a, b), bracketed) in enumerate(zip(doc.sentences, doc.parse)):
        tokens = doc.tokens[a:b]
        tree = None
        for m in find_keywords(tokens, extends_lists(senses, mapping)):
            if (a + m.start, a + m.end) in kept:
                continue
            if rules and tree is None:
                tree = read_tree(bracketed)
            reason = rule_decision(m.keyword.text, tree, m.start, m.end)[1] if rules else None
            out.append(NoneDecision(" ".join(tokens[m.start:m.end]), [[a + m.start, a + m.end]],
                                    s, "rule" if reason else "classifier",
                                    reason or REASONS["classifier"]))
    return out
