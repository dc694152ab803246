"""Parser speed: load time, sentences/s parsing a treebank's sentences in batches, peak RSS.

    python benchmarks/speed/parser_speed.py [--treebank ../shared/data/treebanks/ptb_wsj23.mrg]
                                      [--parser default] [--batch-size 64] [--threads 2]

Only speed is measured here (the trees are not scored; `logicparse parser eval` scores them).
The network runs under ONNX Runtime on a CPU when it is installed; `LOGICPARSE_PARSER_RUNTIME=torch`
measures the PyTorch path (the JSON line says which ran: "runtime").
Prints one JSON object as the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time

from logicparse.resources import offline_environment  # noqa: E402

offline_environment()
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--treebank", default="../shared/data/treebanks/ptb_wsj23.mrg")
    ap.add_argument("--parser", default="default")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="first N sentences only (0 = all)")
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()

    t0 = time.perf_counter()
    import torch

    torch.set_num_threads(args.threads)
    from logicparse.parser import load_parser
    from logicparse.parser.treebank import read_trees
    from logicparse.ptb import raw_tokens

    t_import = time.perf_counter() - t0
    t0 = time.perf_counter()
    parser = load_parser(args.parser, device=args.device)
    t_load = time.perf_counter() - t0

    sentences = [raw_tokens(t.leaves()) for t in read_trees(args.treebank)]
    if args.limit:
        sentences = sentences[: args.limit]
    parser.batch_size = args.batch_size
    parser.parse(sentences[:8])  # warm-up: first-call allocations are not throughput
    t0 = time.perf_counter()
    done = 0
    chunk = args.batch_size * 4
    for a in range(0, len(sentences), chunk):
        part = sentences[a : a + chunk]
        parser.parse(part)
        done += len(part)
        print(f"{done}/{len(sentences)} sentences, {done / (time.perf_counter() - t0):.1f}/s",
              file=sys.stderr, flush=True)
    dt = time.perf_counter() - t0
    words = sum(len(s) for s in sentences)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({
        "parser": parser.name, "runtime": getattr(getattr(parser, "network", None), "name", None),
        "treebank": args.treebank, "device": args.device,
        "threads": args.threads, "batch_size": args.batch_size, "sentences": len(sentences),
        "words": words, "seconds": round(dt, 2),
        "sentences_per_second": round(len(sentences) / dt, 2),
        "words_per_second": round(words / dt, 1),
        "import_seconds": round(t_import, 2), "load_seconds": round(t_load, 2),
        "peak_rss_mb": round(peak_mb, 1), "cpu_count": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2), "machine": platform.machine(),
    }))


if __name__ == "__main__":
    main()
