"""The default mapping's rules, each switched off in turn: GDTB figures with and without it.

    python benchmarks/mapping_ablation.py --gdtb ../shared/data/gdtb [--split dev] [--trees gold|DIR]

``--trees DIR`` takes saved parser trees (``logicparse mapping eval --trees parser --save-trees
DIR`` writes them), so that the parser runs once. Prints α F1, β F1 and exact match for the paper
mapping, the default mapping, and the default mapping without each rule (docs/mapping.md).
"""

import argparse
from pathlib import Path

from logicparse import arguments
from logicparse.gdtb import read_gdtb
from logicparse.scorer import evaluate_mapping

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--gdtb", required=True)
ap.add_argument("--split", default="dev")
ap.add_argument("--trees", default="gold", help="'gold' or a directory of saved DOC.mrg trees")
args = ap.parse_args()

docs = read_gdtb(args.gdtb, args.split)
trees = None
if args.trees != "gold":
    def trees(doc):
        text = (Path(args.trees) / f"{doc.name}.mrg").read_text(encoding="utf-8")
        return [line for line in text.splitlines() if line.strip()]


def run(name: str, mapping: str) -> None:
    r = evaluate_mapping(docs, mapping=mapping, trees=trees)
    print(f"{name:34s} alpha_f1 {r['alpha_f1']:.4f}  beta_f1 {r['beta_f1']:.4f}  exact {r['exact']:.4f}")


print(f"GDTB {args.split}, trees {args.trees}, {len(docs)} documents")
run("paper", "paper")
run("default", "default")
for rule in arguments.RULES:
    arguments.ACTIVE.discard(rule)
    try:
        run(f"default - {rule}", "default")
    finally:
        arguments.ACTIVE.add(rule)
