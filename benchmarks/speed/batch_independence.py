"""Does a sentence get the same tree alone as in a batch? The first N sentences of a treebank parsed
together, then each alone, by the bundled parser (its network in int8 unless
LOGICPARSE_PARSER_PRECISION says fp32); and the parse time of the batch.

Prints one readable line, then one JSON object as the last line of stdout.

    python benchmarks/speed/batch_independence.py --treebank DATA/treebanks/ptb_wsj23.mrg [--n 400]
"""

from __future__ import annotations

import argparse
import json
import time


def same_alone_and_batched(parser, sentences: list[list[str]]) -> dict:
    """How many of ``sentences`` get the same bracketed tree parsed alone as parsed together."""
    t0 = time.perf_counter()
    batched = [t.to_string() for t in parser.parse(sentences)]
    seconds = time.perf_counter() - t0
    alone = [parser.parse([s])[0].to_string() for s in sentences]
    same = sum(a == b for a, b in zip(alone, batched))
    return {"sentences": len(sentences), "same": same, "batch_seconds": round(seconds, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--treebank", required=True, help="a bracketed treebank file (.mrg)")
    ap.add_argument("--n", type=int, default=400, help="its first N sentences")
    args = ap.parse_args()

    from logicparse.parser import load_parser
    from logicparse.parser.treebank import read_trees
    from logicparse.ptb import raw_tokens

    parser = load_parser("default")
    sentences = [raw_tokens(t.leaves()) for t in read_trees(args.treebank)[:args.n]]
    result = {"parser": parser.name, "precision": parser.precision, **same_alone_and_batched(
        parser, sentences)}
    print(f"{result['same']} of {result['sentences']} sentences get the same tree alone as "
          f"batched ({parser.precision}); the batch parsed in {result['batch_seconds']} s")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
