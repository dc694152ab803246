"""The service with its networks (the parser's, the sense encoder's) in int8 (the default) against
float32, each with one annotation thread and with two: 8 clients sending one sentence each, then lone 30-token requests,
the four settings alternating in one run. Ratios are against float32 with one thread.

Prints readable lines, then one JSON object as the last line of stdout.

    python benchmarks/speed/service_precision.py [--duration 20] [--rounds 2] [--lone 100]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service_load import load, run_server, single_latency  # noqa: E402

# name: (LOGICPARSE_PARSER_PRECISION and LOGICPARSE_ENCODER_PRECISION, extra `logicparse serve` flags)
SETTINGS = {"fp32, 1 thread": ("fp32", ["--threads", "1"]),
            "int8, 1 thread": ("int8", ["--threads", "1"]),
            "int8, 2 threads": ("int8", ["--threads", "2"]),
            "fp32, 2 threads": ("fp32", ["--threads", "2"])}
BASE = "fp32, 1 thread"


def summarize(runs: dict[str, list[dict]]) -> dict:
    """Per setting: requests/s over all its rounds (requests / seconds), the medians of its rounds'
    p50 and lone p50, and its requests/s over the base setting's."""
    out = {}
    for name, rs in runs.items():
        seconds = sum(r["seconds"] for r in rs)
        out[name] = {"rps": round(sum(r["requests"] for r in rs) / seconds, 2),
                     "p50_ms": statistics.median(r["p50_ms"] for r in rs),
                     "lone_p50_ms": statistics.median(r["lone_p50_ms"] for r in rs),
                     "5xx": sum(r["5xx"] for r in rs)}
    for name in out:
        out[name]["rps_ratio"] = round(out[name]["rps"] / out[BASE]["rps"], 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--duration", type=float, default=20.0, help="seconds of load per setting")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--lone", type=int, default=100, help="lone requests per setting")
    args = ap.parse_args()

    runs: dict[str, list[dict]] = {name: [] for name in SETTINGS}
    for _ in range(args.rounds):  # alternate, so that a change in the machine's load hits all
        for name, (precision, flags) in SETTINGS.items():
            for var in ("LOGICPARSE_PARSER_PRECISION", "LOGICPARSE_ENCODER_PRECISION"):
                os.environ[var] = precision  # the server inherits it
            with run_server("--senses", "default", *flags) as (url, _, _, _):
                asyncio.run(load(url, args.clients, 3.0, 200))  # warm-up
                r = asyncio.run(load(url, args.clients, args.duration, 100_000))
                r["lone_p50_ms"] = single_latency(url, args.lone)["p50_ms"]
            runs[name].append(r)
            print(f"{name}: {r['rps']} req/s, p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, "
                  f"lone p50 {r['lone_p50_ms']} ms, 5xx {r['5xx']}", flush=True)
    summary = summarize(runs)
    for name, s in summary.items():
        print(f"{name}: {s['rps']} req/s ({s['rps_ratio']}x), lone p50 {s['lone_p50_ms']} ms")
    print(json.dumps({"benchmark": "service_precision", "clients": args.clients,
                      "duration_s": args.duration, "rounds": args.rounds, "cpus": os.cpu_count(),
                      "load_average": os.getloadavg()[0], "settings": summary}))


if __name__ == "__main__":
    main()
