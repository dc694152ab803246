"""Which of mutmut's mutants of the default mapping change an α or β on a set of trees.

    mutmut results | grep survived | cut -d: -f1 | \\
        python tools/mutant_spans.py --mutants mutants --trees DATA/gdtb/const [DIR ...] [--jsonl FILE ...]

Imports the mutated package that `make mutate` left under ``--mutants``, maps every keyword of the
trees with the default mapping (lexicon senses, as ``mapping eval`` has them), once as written and
once with each mutant named on stdin switched on (mutmut's own switch, ``MUTANT_UNDER_TEST``), and
prints for each mutant how many relations' α or β change, with the first such relation. A ``--trees``
folder holds one document per ``*.mrg`` file, one tree per line (GDTB's gold trees, or parser trees
saved by ``mapping eval --save-trees``); a ``--jsonl`` file, rows with a ``tree`` (the committed
keyword sets): each tree is a one-sentence document.
"""

import argparse
import json
import os
import sys
from pathlib import Path

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--mutants", required=True, help="mutmut's mutants/ folder")
ap.add_argument("--trees", nargs="*", default=[], help="folders of DOC.mrg files")
ap.add_argument("--jsonl", nargs="*", default=[], help="JSONL files whose rows have a 'tree'")
args = ap.parse_args()

sys.path.insert(0, str(Path(args.mutants).resolve()))
os.environ["MUTANT_UNDER_TEST"] = ""
from logicparse.annotator import _tree_sentences, build_documents  # noqa: E402

items = []
for folder in args.trees:
    for f in sorted(Path(folder).glob("*.mrg")):
        lines = [x for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
        items.append((f"{Path(folder).name}/{f.stem}", "", _tree_sentences(lines)))
seen = set()
for name in args.jsonl:
    for row in map(json.loads, Path(name).read_text(encoding="utf-8").splitlines()):
        if row.get("tree") and row["tree"] not in seen:
            seen.add(row["tree"])
            items.append((f"{Path(name).name}#{len(seen)}", "", _tree_sentences([row["tree"]])))


def spans():
    docs = build_documents(items, None, "default")
    return [(d.id, r.keyword, r.key, r.alpha, r.beta) for d in docs for r in d.relations]


base = spans()
print(f"{len(items)} documents, {sum(len(i[2]) for i in items)} trees, {len(base)} relations",
      flush=True)
for mutant in (x.strip() for x in sys.stdin):
    if not mutant:
        continue
    os.environ["MUTANT_UNDER_TEST"] = mutant
    try:
        got = spans()
    except Exception as e:  # a mutant that fails on some tree changes that tree's output
        print(f"{mutant}: raises {type(e).__name__}: {e}", flush=True)
        continue
    finally:
        os.environ["MUTANT_UNDER_TEST"] = ""
    changed = [(b, g) for b, g in zip(base, got) if b != g]
    first = f"; first: {changed[0][0]} -> α {changed[0][1][3]} β {changed[0][1][4]}" if changed else ""
    print(f"{mutant}: {len(changed)} of {len(base)} relations change{first}", flush=True)
