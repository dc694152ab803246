"""The default mapping's rules, each switched off in turn: GDTB figures with and without it.

    python benchmarks/downstream/mapping_ablation.py --gdtb ../shared/data/gdtb [--split dev|train]
        [--trees gold|DIR] [--rules NAME ...]

``--trees DIR`` takes saved parser trees (``logicparse mapping eval --trees parser --save-trees
DIR`` writes them), so that the parser runs once. Prints α F1, β F1 and exact match for the paper
mapping, the default mapping, and the default mapping without each rule (or only the ``--rules``
named), with what the rule is worth (default minus without, in points) (docs/mapping.md).
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
ap.add_argument("--rules", nargs="+", choices=arguments.RULES, metavar="NAME",
                help="switch off only these rules (default: each rule in turn)")
args = ap.parse_args()

docs = read_gdtb(args.gdtb, args.split)
trees = None
if args.trees != "gold":
    def trees(doc):
        text = (Path(args.trees) / f"{doc.name}.mrg").read_text(encoding="utf-8")
        return [line for line in text.splitlines() if line.strip()]

METRICS = ("alpha_f1", "beta_f1", "exact")


def run(name: str, mapping: str, base=None) -> dict:
    r = evaluate_mapping(docs, mapping=mapping, trees=trees)
    line = f"{name:34s} alpha_f1 {r['alpha_f1']:.4f}  beta_f1 {r['beta_f1']:.4f}  exact {r['exact']:.4f}"
    if base is not None:
        line += "  rule worth " + " / ".join(f"{100 * (base[m] - r[m]):+.2f}" for m in METRICS)
    print(line, flush=True)
    return r


print(f"GDTB {args.split}, trees {args.trees}, {len(docs)} documents")
run("paper", "paper")
default = run("default", "default")
for rule in args.rules or arguments.RULES:
    arguments.ACTIVE.discard(rule)
    try:
        run(f"default - {rule}", "default", default)
    finally:
        arguments.ACTIVE.add(rule)
