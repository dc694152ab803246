"""Does a surviving mutant of the keyword rules change any decision on the committed trees?

    python tools/mutant_decisions.py --mutants DIR NAME [NAME ...]

``DIR`` is a checkout where ``make mutate`` ran (``mutmut show NAME`` is read there). Each mutant's
edit is applied to this checkout's ``senses/rules.py`` or ``senses/listed.py`` in memory, and the
mutated rule is run beside the original on every occurrence of every rule keyword in every tree
of ``logicparse/annotations/`` (each distinct sentence once; the blind test set left out, so
that none of its sentences is shown). Printed per mutant: the number of occurrences compared,
how many decisions change, how many of those are labelled occurrences, and the first few
changes. Used to read the survivors listed in docs/testing.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from logicparse.resources import ANNOTATIONS_DIR  # noqa: E402
from logicparse.senses import rules  # noqa: E402
from logicparse.senses.data import read_annotations  # noqa: E402
from logicparse.senses.scoring import token_span  # noqa: E402
from logicparse.senses.site import CONNECTIVE, UNDECIDED, Site  # noqa: E402
from logicparse.trees import read_tree  # noqa: E402


def mutant_edit(name: str, mutants: Path) -> tuple[str, str, str]:
    """(module file, old text, new text) of one mutant, from ``mutmut show``."""
    diff = subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=mutants,
                          capture_output=True, text=True, check=True).stdout.splitlines()
    path = next(line[4:].strip() for line in diff if line.startswith("+++ "))
    body = diff[next(i for i, line in enumerate(diff) if line.startswith("@@")) + 1:]
    old = "\n".join(line[1:] for line in body if line[:1] in (" ", "-"))
    new = "\n".join(line[1:] for line in body if line[:1] in (" ", "+"))
    return path, old, new


def mutated_module(path: str, old: str, new: str):
    source = (ROOT / path).read_text(encoding="utf-8")
    if source.count(old) != 1:
        raise SystemExit(f"{path}: the mutant's function is not found once in this checkout")
    stem = Path(path).stem
    spec = importlib.util.spec_from_loader(f"logicparse.senses._mutant_{stem}", loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "logicparse.senses"
    exec(compile(source.replace(old, new), path, "exec"), module.__dict__)
    return module


# The blind test set's sentences are never shown: a mutant's changes there would be read.
BLIND = "keywords_inaugural_test.jsonl"


def occurrences():
    """(tree, start, end, keyword, labelled) for every rule keyword in the committed trees, the
    blind test set left out."""
    labelled, trees = set(), {}
    files = [f for f in sorted(ANNOTATIONS_DIR.glob("*.jsonl")) if f.name != BLIND]
    for a in read_annotations(files):
        if a.tree:
            trees.setdefault(a.tree, read_tree(a.tree))
            labelled.add((a.tree, a.keyword, token_span(a)[0]))
    for text, tree in trees.items():
        words = [w.lower() for w in tree.leaves]
        for kw in rules.RULES:
            parts = kw.split()
            for i in range(len(words) - len(parts) + 1):
                if words[i:i + len(parts)] == parts:
                    yield tree, i, i + len(parts), kw, (text, kw, i) in labelled


def shown(x) -> str:
    return "UNDECIDED" if x is UNDECIDED else "CONNECTIVE" if x is CONNECTIVE else repr(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mutants", type=Path, required=True)
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()
    occ = [(o, rules.RULES[o[3]](Site(*o[:3]))) for o in occurrences()]
    for name in args.names:
        module = mutated_module(*mutant_edit(name, args.mutants))
        changed = []
        for (tree, start, end, kw, is_labelled), before in occ:
            rule = module.RULES.get(kw)
            if rule is None:
                continue
            try:
                after = rule(Site(tree, start, end))
            except Exception as e:  # a mutant may crash where the original answers
                after = f"raises {type(e).__name__}"
            if after is not before and after != before:
                changed.append((is_labelled, kw, " ".join(tree.leaves), shown(before), shown(after)))
        print(f"{name}: {len(occ)} occurrences, {len(changed)} changed, "
              f"{sum(c[0] for c in changed)} labelled")
        for c in changed[:int(__import__("os").environ.get("SHOW", "3"))]:
            print(f"    {c[1]}: {c[3]} -> {c[4]}  | {c[2][:160]}")


if __name__ == "__main__":
    main()
