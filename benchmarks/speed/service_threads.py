"""Why the service runs one torch thread per worker: latency of one 30-token sentence with 1 and
with all cores' torch threads, measured in one run, alternating, in this process.

On a CPU that other work shares (other workers, other jobs), several intra-op threads wait on
each other; one sentence is too little work to split. Prints readable lines, then one JSON object
as the last line of stdout.

    python benchmarks/speed/service_threads.py [--parser default] [--n 30]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import torch

import logicparse

SENTENCE_30 = ("Although the committee did not approve the plan because it was too expensive, "
               "the mayor said that she would present it again to the city council next year.")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parser", default="default")
    ap.add_argument("--n", type=int, default=30, help="timed calls per setting and round")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()

    annotator = logicparse.Annotator(parser=args.parser, senses=None)
    many = os.cpu_count() or 1
    settings = sorted({1, many})
    times: dict[int, list[float]] = {n: [] for n in settings}
    for _ in range(args.rounds):  # alternate, so that a change in the machine's load hits both
        for n in settings:
            torch.set_num_threads(n)
            annotator.annotate(SENTENCE_30)
            for _ in range(args.n):
                t0 = time.perf_counter()
                annotator.annotate(SENTENCE_30)
                times[n].append(time.perf_counter() - t0)
    p50 = {n: 1000 * statistics.median(v) for n, v in times.items()}
    load = os.getloadavg()[0]
    for n in settings:
        print(f"torch threads {n}: p50 {p50[n]:.1f} ms over {len(times[n])} calls")
    ratio = p50[many] / p50[1]
    print(f"{many} threads / 1 thread: {ratio:.2f}x the latency (load average {load:.1f}, "
          f"{os.cpu_count()} cpus)")
    print(json.dumps({"benchmark": "service_threads", "parser": annotator.parser.name,
                      "cpus": os.cpu_count(), "load_average": round(load, 2),
                      "p50_ms": {str(n): round(v, 1) for n, v in p50.items()},
                      "ratio_many_over_one": round(ratio, 2)}))


if __name__ == "__main__":
    main()
