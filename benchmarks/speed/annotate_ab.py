"""Two checkouts of logicparse, back to back: ``logicparse annotate`` end to end, old, new, old,
new (``--rounds``), then the trees and labels of the two compared.

    python benchmarks/speed/annotate_ab.py --old ../main-at-commit [--new .] [--corpus DIR] [--workers 2]
    python benchmarks/speed/annotate_ab.py --old . --old-env LOGICPARSE_PARSER_PRECISION=fp32
    python benchmarks/speed/annotate_ab.py --compare OLD_SHARDS NEW_SHARDS      # identity only

Each run is the command a user types (``--workers``, the other options at their defaults, so
the sense classifiers run too), in a fresh process tree with the checkout first on
``PYTHONPATH``; its wall time includes start-up. Alternating the two spreads a slow spell of the
machine over both; the speed-up is reported for each order (old before new, new before old) and
over all rounds. Run it on an otherwise idle machine (``flock /work/heavy.lock`` where one is
shared).

``--old-env``/``--new-env NAME=VALUE`` set environment variables for one side (the same checkout
in two settings: the parser's float32 network against its int8 default, for instance), and
``--old-args``/``--new-args="--mapping learned"`` add options to one side's command.

Identity: sentence by sentence, whether the two runs wrote the same bracketed tree, the same
brackets with the part-of-speech tags left aside, and the F1 of the two runs' labelled brackets
(tags aside) taken as each other's gold; and for the documents whose trees all agree, whether
their labels (``logic``) and relations (keyword decisions, α/β) agree too. Differing trees are
printed side by side (``--examples``).

Each finished run is appended to ``--out``/runs.jsonl at once; the last stdout line is one JSON
object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CORPUS = ROOT.parent / "shared" / "data" / "corpora" / "inaugural"


def annotate(checkout: Path, corpus: Path, out: Path, workers: int, extra_env=(),
             extra_args=()) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    env.update(v.split("=", 1) for v in extra_env)
    cmd = [sys.executable, "-c", "from logicparse.cli import main; main()", "annotate",
           str(corpus), "--out", str(out), "--workers", str(workers), "--overwrite", "--quiet",
           *extra_args]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env, cwd=checkout)
    wall = time.perf_counter() - t0
    run = json.loads((out / "manifest.json").read_text())["run"]
    return {"wall_seconds": round(wall, 2), "run_seconds": run["seconds"],
            "startup_seconds": run["startup_seconds"],
            "sentences": run["sentences_annotated"],
            "parse_seconds_in_workers": run["parse_seconds"],
            "peak_rss_mb_per_worker": run["memory"]["peak_rss_mb_per_worker"],
            "load_average_1min": round(os.getloadavg()[0], 2)}


def brackets(tree: str) -> list[tuple[str, int, int]]:
    """The labelled brackets of a bracketed tree, its part-of-speech tags left out."""
    from logicparse.trees import read_tree

    t = read_tree(tree)
    tags = set(t.leaf_parents)
    return sorted((t.labels[i], t.starts[i], t.ends[i]) for i in range(len(t.labels))
                  if i not in tags)


def bracket_agreement(pairs) -> dict:
    """Over (old tree, new tree) pairs: identical trees, identical brackets (tags aside), and
    the F1 of the new brackets against the old ones."""
    same = same_brackets = matched = total = 0
    for a, b in pairs:
        same += a == b
        x, y = brackets(a), brackets(b)
        same_brackets += x == y
        matched += 2 * len(set(x) & set(y))
        total += len(set(x)) + len(set(y))
    n = max(1, len(pairs))
    return {"identical_trees": same, "identical_share": round(same / n, 5),
            "identical_brackets_share": round(same_brackets / n, 5),
            "bracket_f1": round(matched / max(1, total), 5)}


def compare(old_dir: Path, new_dir: Path, examples: int = 2) -> dict:
    """Sentence trees, labels and relations of two runs' shards, document by document."""
    sys.path.insert(0, str(ROOT))
    from logicparse.batch import iter_documents

    new_docs = {d.id: d for d in iter_documents(new_dir)}
    sentences = docs = docs_same_trees = labels_same = 0
    differing, label_diffs, all_pairs = [], [], []
    for old in iter_documents(old_dir):
        new = new_docs[old.id]
        docs += 1
        pairs = list(zip(old.parse, new.parse))
        if len(old.parse) != len(new.parse):
            raise SystemExit(f"{old.id}: {len(old.parse)} sentences before, {len(new.parse)} now")
        equal = [a == b for a, b in pairs]
        sentences += len(pairs)
        all_pairs += pairs
        differing += [(old.id, k, a, b) for k, ((a, b), e) in enumerate(zip(pairs, equal)) if not e]
        if all(equal):
            docs_same_trees += 1
            if old.logic == new.logic and [r.to_dict() for r in old.relations] == [
                    r.to_dict() for r in new.relations]:
                labels_same += 1
            else:
                label_diffs.append(old.id)
    return {"sentences": sentences, **bracket_agreement(all_pairs), "documents": docs, "documents_with_identical_trees": docs_same_trees,
            "of_those_identical_labels_and_relations": labels_same,
            "label_differences_despite_same_trees": label_diffs,
            "examples": [{"document": d, "sentence": k, "old": a, "new": b}
                         for d, k, a, b in differing[:examples]]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", type=Path, help="checkout to compare against (its root directory)")
    ap.add_argument("--new", type=Path, default=ROOT)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "annotate-ab")
    ap.add_argument("--examples", type=int, default=2)
    ap.add_argument("--compare", type=Path, nargs=2, metavar=("OLD_SHARDS", "NEW_SHARDS"))
    ap.add_argument("--old-env", nargs="*", default=[], metavar="NAME=VALUE")
    ap.add_argument("--new-env", nargs="*", default=[], metavar="NAME=VALUE")
    ap.add_argument("--old-args", default="", help="options added to the old side's command")
    ap.add_argument("--new-args", default="", help="options added to the new side's command")
    args = ap.parse_args()
    if args.compare:
        result = compare(*args.compare, examples=args.examples)
        for ex in result["examples"]:
            print(f"{ex['document']} sentence {ex['sentence']}:\n  old {ex['old']}\n  new {ex['new']}")
        print(json.dumps(result))
        return
    if args.old is None:
        ap.error("--old CHECKOUT is needed (or --compare OLD_SHARDS NEW_SHARDS)")
    for v in args.old_env + args.new_env:
        if "=" not in v:
            ap.error(f"{v!r}: environment settings are NAME=VALUE")
    if not args.corpus.is_dir():
        ap.error(f"corpus {args.corpus} not found: pass --corpus DIR")
    args.out = args.out.resolve()  # each run's working directory is its checkout
    args.out.mkdir(parents=True, exist_ok=True)
    log = args.out / "runs.jsonl"
    runs = {"old": [], "new": []}
    load_before = os.getloadavg()
    for r in range(args.rounds):
        for which in ("old", "new"):
            checkout = (args.old if which == "old" else args.new).resolve()
            env = args.old_env if which == "old" else args.new_env
            extra = shlex.split(args.old_args if which == "old" else args.new_args)
            res = annotate(checkout, args.corpus.resolve(), args.out / which, args.workers, env, extra)
            res.update(round=r, which=which, checkout=str(checkout), env=env, args=extra)
            runs[which].append(res)
            with log.open("a") as f:
                f.write(json.dumps(res) + "\n")
            print(f"round {r} {which}: {res['wall_seconds']} s wall ({res['run_seconds']} s run, "
                  f"{res['sentences']} sentences), peak RSS per worker "
                  f"{res['peak_rss_mb_per_worker']} MB", flush=True)
    old_s = [x["wall_seconds"] for x in runs["old"]]
    new_s = [x["wall_seconds"] for x in runs["new"]]
    # old-then-new pairs: (old r, new r); new-then-old pairs: (new r, old r + 1)
    old_first = [o / n for o, n in zip(old_s, new_s)]
    new_first = [o / n for n, o in zip(new_s, old_s[1:])]
    identity = compare(args.out / "old", args.out / "new", args.examples)
    result = {
        "corpus": str(args.corpus), "workers": args.workers, "rounds": args.rounds,
        "cpus": os.cpu_count(), "load_average_before": [round(x, 2) for x in load_before],
        "old_seconds": old_s, "new_seconds": new_s,
        "speedup_old_then_new": [round(x, 3) for x in old_first],
        "speedup_new_then_old": [round(x, 3) for x in new_first],
        "speedup_all": round(sum(old_s) / sum(new_s), 3),
        "old_peak_rss_mb_per_worker": [x["peak_rss_mb_per_worker"] for x in runs["old"]],
        "new_peak_rss_mb_per_worker": [x["peak_rss_mb_per_worker"] for x in runs["new"]],
        "identity": identity,
    }
    (args.out / "result.json").write_text(json.dumps(result, indent=1))
    print(f"speed-up, old then new: {result['speedup_old_then_new']}; new then old: "
          f"{result['speedup_new_then_old']}; all rounds: {result['speedup_all']}")
    print(f"identical trees: {identity['identical_trees']} of {identity['sentences']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
