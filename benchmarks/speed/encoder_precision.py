"""The sense classifiers' decisions with the encoder in int8 (the default) against float32: every
occurrence of a keyword they decide, in each annotation set given (default: the bundled ones), the
classifiers alone (no tree rules). Counts the decisions that differ and those right against each
set's labels ("none" for not a connective).

Prints one line per set, then one JSON object as the last line of stdout.

    python benchmarks/speed/encoder_precision.py [FILE.jsonl ...]
"""

from __future__ import annotations

import argparse
import glob
import json
from collections import Counter
from pathlib import Path


def occurrences(path: Path, keywords: set) -> list[dict]:
    """The rows of an annotation set (``keywords_*.jsonl`` format) whose keyword is in ``keywords``."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if str(r.get("keyword", "")).lower() in keywords and "char_start" in r]


def compare(first, second, rows: list[dict]) -> dict:
    """Decisions of two sense models (``disambiguate``) on ``rows``: how many differ, how many of
    each are right."""
    from logicparse.senses.model import SenseQuery
    from logicparse.taxonomy import keywords as taxonomy

    queries = [SenseQuery(r["keyword"].lower(), taxonomy()[r["keyword"].lower()].senses, r["text"],
                          r["char_start"], r["char_end"]) for r in rows]
    a, b = first.disambiguate(queries), second.disambiguate(queries)
    return {"n": len(rows), "differ": sum(x.relation != y.relation for x, y in zip(a, b)),
            "right_first": sum((x.relation or "none") == r["label"] for x, r in zip(a, rows)),
            "right_second": sum((y.relation or "none") == r["label"] for y, r in zip(b, rows))}


def main(argv=None) -> dict:
    from logicparse.resources import ANNOTATIONS_DIR
    from logicparse.senses.classifier import SVMSenseModel, bundled_models_dir
    from logicparse.senses.features import Encoder

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", type=Path,
                   help="Annotation sets (default: the bundled logicparse/annotations/*.jsonl).")
    args = p.parse_args(argv)
    files = args.files or [Path(f) for f in sorted(glob.glob(str(ANNOTATIONS_DIR / "*.jsonl")))]
    fp32, int8 = (SVMSenseModel(bundled_models_dir(), encoder=Encoder("default", precision=p))
                  for p in ("fp32", "int8"))
    total, sets = Counter(), {}
    for path in files:
        rows = occurrences(path, set(fp32.estimators))
        if rows:
            sets[path.name] = c = compare(fp32, int8, rows)
            total.update(c)
            print(f"{path.name}: {c['n']} occurrences, {c['differ']} decided differently; right "
                  f"{c['right_first']} (fp32) / {c['right_second']} (int8)")
    out = {"sets": sets, "all": {"n": total["n"], "differ": total["differ"],
                                 "right_fp32": total["right_first"], "right_int8": total["right_second"]}}
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
