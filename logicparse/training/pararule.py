"""PARARULE-Plus re-balanced: statements whose truth no single word of theirs gives away.

As released, PARARULE-Plus asks of each context "X is A." (always true) and "X is not A." (always
false), so the word "not" alone answers every statement. This module reads a context's facts and
rules, derives what follows from them by forward chaining (a closed world: what cannot be derived
is false, and "is not A" in a rule's condition holds when "is A" cannot be derived, as in the
released labels), and asks new statements in quartets:

    "X is A."  true     "X is not A."  false     (A follows for X after d rule applications)
    "Y is A."  false    "Y is not A."  true      (Y: another entity of the context, A not derived)

Every word of a quartet's statements (the entities, the attribute, "not") appears as often in true
as in false statements, so the best single-word predictor scores exactly 0.5 on the whole set;
only reading the context answers. The false statement "Y is A." is given the depth ``d`` of the
true one it is paired with. :func:`check_released` confirms the reasoner reproduces every released
label before anything is built on it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Optional

import numpy as np

from ..errors import DataFormatError, Errors

VERBS = ("sees", "visits", "likes", "attacks", "chases", "needs", "eats")
_ENTITY = r"(?:[A-Z][a-z]+|[Tt]he (?:bald )?[a-z]+)"
_VERB = "|".join(VERBS)
_COND = rf"(?:is (not )?([a-z]+)|({_VERB}) ({_ENTITY}))"
# "If someone is A and not B": the second condition's "is" is left out.
_COND2 = rf"(?:({_VERB}) ({_ENTITY})|(?:is )?(not )?([a-z]+))"
_FACT_IS = re.compile(rf"^({_ENTITY}) is (not )?([a-z]+)$")
_FACT_REL = re.compile(rf"^({_ENTITY}) ({_VERB}) ({_ENTITY})$")
_IF = re.compile(rf"^If (?:someone|something) {_COND}(?: and {_COND2})? then (?:they|it) "
                 rf"(?:(?:is|are) (not )?([a-z]+)|({_VERB}) ({_ENTITY}))$")
_ALL = re.compile(r"^(?:All )?([A-Za-z]+) (?:people|animals|things) are ([a-z]+)$")

Atom = tuple  # ("is", entity, attribute) or (verb, entity, entity)


def _entity(text: str) -> str:
    return text[0].lower() + text[1:] if text.lower().startswith("the ") else text


@dataclass
class Rule:
    positive: list[Atom]  # with "?" for the variable
    negative: list[Atom]
    conclusion: Atom


@dataclass
class Theory:
    facts: set = field(default_factory=set)
    rules: list = field(default_factory=list)
    entities: list = field(default_factory=list)  # in first-mention order


def sentences(context: str) -> list[str]:
    """A context's sentences (each ends with a full stop)."""
    return [s.strip() for s in re.split(r"(?<=\.)\s+", context.strip()) if s.strip()]


def parse_context(context: str, where: str = "context") -> Theory:
    """The facts and rules of one context; a sentence outside PARARULE-Plus's grammar is an E536
    naming it (the reasoner would otherwise silently drop what it says)."""
    theory = Theory()

    def mention(e: str) -> str:
        e = _entity(e)
        if e not in theory.entities:
            theory.entities.append(e)
        return e

    def condition(neg, attr, verb, obj) -> tuple[bool, Atom]:
        if attr:
            return bool(neg), ("is", "?", attr)
        return False, (verb, "?", mention(obj))

    for sentence in sentences(context):
        s = sentence.rstrip(".")
        if m := _FACT_IS.match(s):
            if m.group(2):  # released contexts state no negative facts; a closed world needs none
                raise DataFormatError(Errors.E536.format(where=where, sentence=sentence))
            theory.facts.add(("is", mention(m.group(1)), m.group(3)))
        elif m := _FACT_REL.match(s):
            theory.facts.add((m.group(2), mention(m.group(1)), mention(m.group(3))))
        elif m := _IF.match(s):
            g = m.groups()
            conds = [condition(*g[0:4])] + ([condition(g[6], g[7], g[4], g[5])] if g[4] or g[7] else [])
            if g[8] and g[9]:
                raise DataFormatError(Errors.E536.format(where=where, sentence=sentence))
            head = ("is", "?", g[9]) if g[9] else (g[10], "?", mention(g[11]))
            theory.rules.append(Rule([a for n, a in conds if not n], [a for n, a in conds if n], head))
        elif m := _ALL.match(s):
            theory.rules.append(Rule([("is", "?", m.group(1).lower())], [], ("is", "?", m.group(2))))
        else:
            raise DataFormatError(Errors.E536.format(where=where, sentence=sentence))
    return theory


def _bind(atom: Atom, x: str) -> Atom:
    return tuple(x if part == "?" else part for part in atom)


def _predicate(atom: Atom) -> tuple:
    return (atom[0], atom[2])


def strata(theory: Theory) -> list[list[Rule]]:
    """The rules in strata: a rule's conclusion sits above everything its positive conditions
    depend on, and strictly above every predicate of its negative conditions, so each negation is
    read only once nothing can still derive its atom. A cycle through a negation has no stratified
    reading: E537."""
    level: dict[tuple, int] = {}
    for _ in range(len(theory.rules) + 2):
        changed = False
        for r in theory.rules:
            want = max([level.get(_predicate(a), 0) for a in r.positive]
                       + [level.get(_predicate(a), 0) + 1 for a in r.negative] + [0])
            if want > level.get(_predicate(r.conclusion), 0):
                level[_predicate(r.conclusion)] = want
                changed = True
        if not changed:
            top = max(level.values(), default=0)
            return [[r for r in theory.rules if level.get(_predicate(r.conclusion), 0) == s]
                    for s in range(top + 1)]
    raise DataFormatError(Errors.E537.format(
        where="a context", reason="its rules derive an attribute from its own negation"))


def closure(theory: Theory) -> dict[Atom, int]:
    """Every atom that follows from ``theory`` with its depth: 0 for a fact, else one more than the
    deepest positive condition of the first rule application that derives it (rounds of forward
    chaining, stratum by stratum). A negative condition holds when its atom is not derived; the
    strata make that final before it is read."""
    depth = {a: 0 for a in theory.facts}
    for rules in strata(theory):
        while True:
            new = {}
            for rule in rules:
                for x in theory.entities:
                    head = _bind(rule.conclusion, x)
                    if head in depth or head in new:
                        continue
                    pos = [_bind(a, x) for a in rule.positive]
                    if all(p in depth for p in pos) and not any(_bind(a, x) in depth
                                                                for a in rule.negative):
                        new[head] = 1 + max((depth[p] for p in pos), default=0)
            if not new:
                break
            depth.update(new)
    return depth


_STATEMENT = re.compile(rf"^({_ENTITY}) is (not )?([a-z]+)\.?$")


def truth(derived: dict[Atom, int], statement: str) -> Optional[bool]:
    """The closed-world truth of "X is (not) A." given the derived atoms, or None for another form."""
    m = _STATEMENT.match(statement.strip())
    if not m:
        return None
    holds = ("is", _entity(m.group(1)), m.group(3)) in derived
    return holds != bool(m.group(2))


def check_released(rows: Iterable[dict], where: str = "file") -> dict:
    """Runs the reasoner on every released context and compares each question's label; returns the
    counts (``agree``, ``questions``, ``contexts``) and the first disagreement, if any."""
    out = {"contexts": 0, "questions": 0, "agree": 0, "first_disagreement": None}
    for n, row in enumerate(rows, 1):
        derived = closure(parse_context(row["context"], f"{where}, line {n}"))
        out["contexts"] += 1
        for q in row["questions"]:
            out["questions"] += 1
            if truth(derived, q["text"]) == (q["label"] == "true"):
                out["agree"] += 1
            elif out["first_disagreement"] is None:
                out["first_disagreement"] = {"line": n, "question": q["text"], "label": q["label"]}
    return out


def _statement(entity: str, attr: str, negated: bool) -> str:
    return f"{entity[0].upper()}{entity[1:]} is {'not ' if negated else ''}{attr}."


def quartet(theory: Theory, derived: dict[Atom, int], d: int, rng: np.random.Generator
            ) -> Optional[list[dict]]:
    """Four statements about one attribute derived at depth ``d`` for X and not derived for another
    entity Y of the context (one that has attributes of its own), or None when the context has no
    such pair."""
    subjects = [e for e in theory.entities if any(a[0] == "is" and a[1] == e for a in theory.facts)]
    pairs = []
    for (rel, x, attr), dep in sorted(derived.items()):
        if rel == "is" and dep == d and x in subjects:
            others = [y for y in subjects if y != x and ("is", y, attr) not in derived]
            pairs.extend((x, attr, y) for y in others)
    if not pairs:
        return None
    x, attr, y = pairs[int(rng.integers(len(pairs)))]
    return [{"text": _statement(e, attr, neg), "label": "true" if (e == x) != neg else "false",
             "meta": {"QDep": str(d), "negated": neg, "derived": e == x}}
            for e, neg in ((x, False), (x, True), (y, False), (y, True))]


def _is_fact(sentence: str) -> Optional[re.Match]:
    return _FACT_IS.match(sentence.rstrip(".")) or _FACT_REL.match(sentence.rstrip("."))


def fewer_entities(context: str, n: int, rng: np.random.Generator, where: str = "context") -> str:
    """``context`` with the facts of only ``n`` of the entities it states facts about (chosen at
    random) and every rule: a shorter context, in which a statement's fact is found among fewer."""
    theory = parse_context(context, where)
    subjects = [e for e in theory.entities if any(f[1] == e for f in theory.facts)]
    if len(subjects) <= n:
        return context
    chosen = {subjects[int(k)] for k in rng.choice(len(subjects), n, replace=False)}

    def kept(sentence: str) -> bool:
        m = _is_fact(sentence)
        return m is None or _entity(m.group(1)) in chosen  # a rule, or a chosen entity's fact

    return " ".join(s for s in sentences(context) if kept(s))


#: The warm-up sets, each made of depth-0 quartets over two entities' facts with the rules taken
#: out: "quartets" keeps all four statements; "binding" only those without *not* ("X is A." true,
#: "Y is A." false), asking only which of two entities the context gives an attribute.
WARM_UPS = ("binding", "quartets")


def warm_up_rows(rows: list[dict], kind: str = "binding") -> list[dict]:
    """Depth-0 quartets over two entities' facts (``balanced_rows(..., depths=(0,), entities=2)``)
    made a warm-up set (:data:`WARM_UPS`): the rules taken out of each context and, for
    "binding", the statements with *not* left out. A fact stated in the context needs no rule,
    and an attribute no rule derived for Y is not derived without them either, so every label
    holds."""
    return [dict(r, context=" ".join(s for s in sentences(r["context"]) if _is_fact(s)),
                 questions=[q for q in r["questions"]
                            if kind == "quartets" or not q["meta"]["negated"]])
            for r in rows]


def balanced_rows(rows: list[dict], n_statements: int, depths: tuple = (0, 1, 2), seed: int = 0,
                  where: str = "file", per_context: int = 1, entities: Optional[int] = None
                  ) -> list[dict]:
    """Contexts of ``rows`` (in a seeded order) with ``per_context`` quartets each (at most one per
    depth), their depths taken in turn from ``depths``, until ``n_statements`` statements are
    asked (fewer when the contexts run out). Each context keeps its id, so the training carve
    keeps it on one side; a statement is asked once per context. ``entities``: each context cut
    to the facts of that many entities (:func:`fewer_entities`), its statements derived anew."""
    rng = np.random.default_rng(seed)
    out, turn, asked = [], 0, 0
    for i in rng.permutation(len(rows)):
        if asked >= n_statements:
            break
        row = rows[int(i)]
        where_row = f"{where}, line {int(i) + 1}"
        if entities:
            row = dict(row, context=fewer_entities(row["context"], entities, rng, where_row))
        theory = parse_context(row["context"], where_row)
        derived = closure(theory)
        questions: list[dict] = []
        for k in range(len(depths)):  # the depth in turn, then the next ones the context allows
            if len(questions) >= 4 * per_context or asked + len(questions) >= n_statements:
                break
            four = quartet(theory, derived, depths[(turn + k) % len(depths)], rng)
            if four and not {q["text"] for q in four} & {q["text"] for q in questions}:
                questions += four
        if questions:
            turn += 1
            asked += len(questions)
            out.append({"id": row["id"], "context": row["context"],
                        "questions": [dict(q, id=f"{row['id']}-b{j}")
                                      for j, q in enumerate(questions)]})
    return out


def best_single_word(rows: Iterable[dict]) -> tuple[str, float]:
    """The word whose presence best predicts a statement's label (each word's best rule "true if
    present, else false" or its reverse, or always the majority), and that rule's accuracy."""
    statements = [(set(q["text"].lower().rstrip(".").split()), q["label"] == "true")
                  for r in rows for q in r["questions"]]
    n = len(statements)
    true = sum(y for _, y in statements)
    best = ("(majority)", max(true, n - true) / n if n else 0.0)
    present: Counter = Counter()
    present_true: Counter = Counter()
    for words, y in statements:
        present.update(words)
        present_true.update(w for w in words if y)
    for w, k in present.items():
        # "true iff present" is right on present_true + (absent and false) statements
        right = present_true[w] + (n - true) - (k - present_true[w])
        acc = max(right, n - right) / n
        if acc > best[1]:
            best = (w, acc)
    return best


def read_rows(path: str) -> list[dict]:
    """The objects of a JSONL file; a line that is not JSON is an E520 naming it."""
    from .tasks import _jsonl

    return [row for _, row in _jsonl(path)]


BALANCED_FILES = {"train": "train.jsonl", "dev": "dev.jsonl", "test": "test.jsonl"}


def build_balanced(data: str, out: Optional[str] = None, sizes: tuple = (2000, 500, 1000),
                   depths: tuple = (0, 1, 2), seed: int = 0, source_depth: int = 2,
                   per_context: int = 1, entities: Optional[int] = None,
                   warm_up: Optional[str] = None) -> dict:
    """Writes the re-balanced train, dev and test files (``sizes`` statements each) into ``out``
    (default ``DATA/balanced``): train and dev from disjoint contexts of ``depthN_dev.jsonl``,
    test from ``depthN_test.jsonl``. Refuses (E537) unless the reasoner reproduces every released
    label of both files. Returns what was built, with the best single word of each split.
    ``warm_up``: a warm-up set instead (:func:`warm_up_rows`), ``sizes`` statements each, by
    default into ``DATA/warm-up-<kind>/balanced``."""
    import os
    from pathlib import Path

    source = {split: Path(data) / f"depth{source_depth}_{split}.jsonl" for split in ("dev", "test")}
    for path in source.values():
        if not path.is_file():
            raise DataFormatError(Errors.E521.format(path=path, option="data",
                                                     task="pararule_plus",
                                                     files=", ".join(p.name for p in source.values())))
    released = {split: read_rows(str(path)) for split, path in source.items()}
    if warm_up:
        depths, entities, per_context = (0,), 2, 1
        if warm_up == "binding":  # half of each quartet is kept
            sizes = tuple(2 * n for n in sizes)
    summary: dict = {"seed": seed, "depths": list(depths), "source_depth": source_depth,
                     "per_context": per_context, "entities": entities, "warm_up": warm_up,
                     "reasoner": {}, "splits": {}}
    for split, rows in released.items():
        check = check_released(rows, str(source[split]))
        summary["reasoner"][source[split].name] = check
        if check["agree"] != check["questions"]:
            raise DataFormatError(Errors.E537.format(
                where=source[split], reason=f"it disagrees with {check['questions'] - check['agree']}"
                f" released labels, first {check['first_disagreement']}"))
    n_train, n_dev, n_test = sizes
    dev = balanced_rows(released["dev"], n_dev, depths, seed, str(source["dev"]), per_context,
                        entities)
    taken = {r["id"] for r in dev}
    train = balanced_rows([r for r in released["dev"] if r["id"] not in taken], n_train, depths,
                          seed + 1, str(source["dev"]), per_context, entities)
    test = balanced_rows(released["test"], n_test, depths, seed + 2, str(source["test"]),
                         per_context, entities)
    if warm_up:
        train, dev, test = (warm_up_rows(rows, warm_up) for rows in (train, dev, test))
    # a warm-up set never replaces the task's own files
    out_dir = Path(out) if out else \
        Path(data) / (f"warm-up-{warm_up}" if warm_up else "") / "balanced"
    out_dir.mkdir(parents=True, exist_ok=True)
    for split, rows in (("train", train), ("dev", dev), ("test", test)):
        final = out_dir / BALANCED_FILES[split]
        tmp = final.with_name(final.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        os.replace(tmp, final)  # a reader never sees half a file
        word, acc = best_single_word(rows)
        summary["splits"][split] = {"file": str(final), "contexts": len(rows),
                                    "statements": sum(len(r["questions"]) for r in rows),
                                    "best_single_word": word, "best_single_word_accuracy": acc}
    return summary


__all__ = ["BALANCED_FILES", "WARM_UPS", "balanced_rows", "build_balanced", "best_single_word",
           "check_released", "closure", "fewer_entities", "parse_context",
           "quartet", "read_rows", "truth", "warm_up_rows"]
