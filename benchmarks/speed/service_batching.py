"""What batching waiting requests buys: the same load against `logicparse serve --batch-size 1`
(each request parsed alone) and `--batch-size 16` (the default), in one run, alternating.

Prints readable lines, then one JSON object as the last line of stdout.

    python benchmarks/speed/service_batching.py [--duration 20] [--rounds 2] [--senses none]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service_load import load, serve  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--duration", type=float, default=20.0, help="seconds of load per setting")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--parser", default="default")
    ap.add_argument("--senses", default="default")
    args = ap.parse_args()

    runs: dict[int, list[dict]] = {1: [], 16: []}
    for _ in range(args.rounds):  # alternate, so that a change in the machine's load hits both
        for batch_size in runs:
            with serve(args.parser, args.senses, batch_size=batch_size) as (url, _, _, _):
                asyncio.run(load(url, args.clients, 3.0, 200))  # warm-up
                r = asyncio.run(load(url, args.clients, args.duration, 100_000))
            runs[batch_size].append(r)
            print(f"batch_size {batch_size:2d}: {r['rps']} req/s, p50 {r['p50_ms']} ms, "
                  f"p99 {r['p99_ms']} ms, 5xx {r['5xx']}")
    summary = {}
    for batch_size, rs in runs.items():
        n = sum(r["requests"] for r in rs)
        seconds = sum(r["seconds"] for r in rs)
        summary[str(batch_size)] = {
            "requests": n, "rps": round(n / seconds, 2),
            "p50_ms": round(sum(r["p50_ms"] for r in rs) / len(rs), 1),
            "p99_ms": round(sum(r["p99_ms"] for r in rs) / len(rs), 1),
            "5xx": sum(r["5xx"] for r in rs)}
    ratio = summary["16"]["rps"] / summary["1"]["rps"]
    print(f"throughput, batch_size 16 / batch_size 1: {ratio:.2f}x "
          f"({args.clients} clients, {os.cpu_count()} cpus, load average {os.getloadavg()[0]:.1f})")
    print(json.dumps({"benchmark": "service_batching", "clients": args.clients,
                      "duration_s": args.duration, "rounds": args.rounds, "senses": args.senses,
                      "cpus": os.cpu_count(), "by_batch_size": summary,
                      "rps_ratio_16_over_1": round(ratio, 2)}))


if __name__ == "__main__":
    main()
