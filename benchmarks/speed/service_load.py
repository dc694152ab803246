"""Load run against a real `logicparse serve` on 127.0.0.1, then single-client latency.

1. Starts `logicparse serve` (a subprocess, a free port) and waits for /readyz.
2. Load: CLIENTS concurrent clients (httpx, asyncio) send one-sentence requests for DURATION
   seconds (and at most --max-requests): status counts (5xx must be 0), latency p50/p90/p99,
   requests/s, and the server's RSS before and after (growth must stay under 10%).
3. Latency of one 30-token sentence, one client, sequential requests: p50 (target: 150 ms).

Prints readable lines, then one JSON object as the last line of stdout.

    python benchmarks/speed/service_load.py                      # 8 clients, 60 s, service defaults
    python benchmarks/speed/service_load.py --senses none --duration 20
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import time

import httpx
import psutil

# One-sentence requests with keywords of several relations (some ambiguous: since, as, while).
SENTENCES = [
    "But I try very hard not to go that way because it would be too easy for them.",
    "If it rains tomorrow, we will stay at home and read.",
    "She left early since she had a train to catch.",
    "The plan was cheap; however, nobody liked it.",
    "He kept working while the others went out for lunch.",
    "You can take the bus or you can walk, unless it snows.",
    "As the prices rose, people bought less bread and milk.",
    "Although the team played well, they did not win the final.",
    "Fruits such as apples and pears are sold at the market.",
    "The road was closed due to the storm, so we went back.",
    "Moreover, the report shows that sales fell after the launch.",
    "Nothing was said about the delay until the meeting ended.",
]
# 30 tokens with spaCy's English tokenizer (checked against the response).
SENTENCE_30 = ("Although the committee did not approve the plan because it was too expensive, "
               "the mayor said that she would present it again to the city council next year.")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    """Resident memory of the server and its worker processes, MiB."""
    proc = psutil.Process(pid)
    procs = [proc] + proc.children(recursive=True)
    return sum(p.memory_info().rss for p in procs) / 2**20


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


async def load(url: str, clients: int, duration: float, max_requests: int) -> dict:
    latencies: list[float] = []
    statuses: dict[str, int] = {}
    sent = 0
    deadline = time.perf_counter() + duration

    async def client(c: int, http: httpx.AsyncClient):
        nonlocal sent
        i = c
        while time.perf_counter() < deadline and sent < max_requests:
            sent += 1
            text = SENTENCES[i % len(SENTENCES)]
            i += clients
            t0 = time.perf_counter()
            try:
                r = await http.post("/v1/annotate", json={"text": text})
                key = str(r.status_code)
                if r.status_code == 200:
                    latencies.append(time.perf_counter() - t0)
            except httpx.HTTPError as e:
                key = type(e).__name__
            statuses[key] = statuses.get(key, 0) + 1

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:
        t0 = time.perf_counter()
        await asyncio.gather(*(client(c, http) for c in range(clients)))
        elapsed = time.perf_counter() - t0
    n = sum(statuses.values())
    return {
        "requests": n, "seconds": round(elapsed, 2), "rps": round(n / elapsed, 2),
        "statuses": statuses,
        "5xx": sum(v for k, v in statuses.items() if k.startswith("5")),
        "client_errors": sum(v for k, v in statuses.items() if not k.isdigit()),
        "p50_ms": round(1000 * percentile(latencies, 0.50), 1),
        "p90_ms": round(1000 * percentile(latencies, 0.90), 1),
        "p99_ms": round(1000 * percentile(latencies, 0.99), 1),
    }


def single_latency(url: str, n: int) -> dict:
    with httpx.Client(base_url=url, timeout=60) as http:
        doc = http.post("/v1/annotate", json={"text": SENTENCE_30}).json()
        for _ in range(5):  # warm the connection and the model
            http.post("/v1/annotate", json={"text": SENTENCE_30})
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            r = http.post("/v1/annotate", json={"text": SENTENCE_30})
            times.append(time.perf_counter() - t0)
            r.raise_for_status()
    return {"tokens": len(doc["tokens"]), "n": n,
            "p50_ms": round(1000 * statistics.median(times), 1),
            "p90_ms": round(1000 * percentile(times, 0.9), 1),
            "relations": [r["keyword"] for r in doc["relations"]]}


@contextlib.contextmanager
def run_server(*flags: str, log=None, ready_within: float = 600.0):
    """`logicparse serve FLAGS` on a free port of 127.0.0.1, once it is ready; yields (url, port,
    process, startup seconds) and stops it with SIGTERM after. ``log``: a file for its output."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    out = open(log, "w") if log else None
    cmd = [sys.executable, "-c", "from logicparse.cli import main; main()", "serve",
           "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", *flags]
    server = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT if out else None)
    try:
        t0 = time.perf_counter()
        while True:
            if server.poll() is not None:
                said = f": {open(log).read()}" if log else ""
                sys.exit(f"logicparse serve exited with {server.returncode}{said}")
            try:
                if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.perf_counter() - t0 > ready_within:
                sys.exit(f"logicparse serve did not become ready in {ready_within:.0f} s")
            time.sleep(0.3)
        yield url, port, server, time.perf_counter() - t0
    finally:
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(60)
            except subprocess.TimeoutExpired:
                server.kill()
        if out:
            out.close()


@contextlib.contextmanager
def serve(parser: str = "default", senses: str = "default", workers: int = 1, queue: int = 16,
          batch_size: int = 16):
    """The service as the load runs use it; yields (url, pid, startup seconds, readyz)."""
    with run_server("--parser", parser, "--senses", senses, "--workers", str(workers),
                    "--queue", str(queue), "--batch-size", str(batch_size)) as (url, _, proc, t):
        yield url, proc.pid, t, httpx.get(url + "/readyz").json()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    ap.add_argument("--max-requests", type=int, default=100_000, help="upper bound on requests")
    ap.add_argument("--latency-requests", type=int, default=100)
    ap.add_argument("--parser", default="default")
    ap.add_argument("--senses", default="default", help="'default' (the service default) or 'none'")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--queue", type=int, default=16)
    ap.add_argument("--batch-size", type=int, default=16)
    args = ap.parse_args()

    with serve(args.parser, args.senses, args.workers, args.queue, args.batch_size) as (
            url, pid, startup, ready):
        print(f"server ready in {startup:.1f} s: parser={ready['parser']} senses={ready['senses']}"
              f" workers={args.workers} batch_size={args.batch_size} cpus={os.cpu_count()}")
        # Warm-up, so that "before" is the steady state and not the first-call allocations.
        asyncio.run(load(url, args.clients, 3.0, 200))
        rss_before = rss_mb(pid)
        print(f"load: {args.clients} clients, {args.duration:.0f} s, one-sentence requests ...")
        result = asyncio.run(load(url, args.clients, args.duration, args.max_requests))
        rss_after = rss_mb(pid)
        growth = 100 * (rss_after - rss_before) / rss_before
        print(f"  {result['requests']} requests, {result['rps']} req/s, statuses {result['statuses']}")
        print(f"  latency p50 {result['p50_ms']} ms, p90 {result['p90_ms']} ms, "
              f"p99 {result['p99_ms']} ms")
        print(f"  RSS {rss_before:.0f} MiB before, {rss_after:.0f} MiB after ({growth:+.1f}%)")
        single = single_latency(url, args.latency_requests)
        print(f"one {single['tokens']}-token sentence, one client: p50 {single['p50_ms']} ms "
              f"(p90 {single['p90_ms']} ms, n={single['n']})")

    print(json.dumps({
        "benchmark": "service_load", "parser": ready["parser"], "senses": ready["senses"],
        "workers": args.workers, "batch_size": args.batch_size, "clients": args.clients, "duration_s": args.duration,
        "cpus": os.cpu_count(), "startup_s": round(startup, 1), **{
            k: result[k] for k in ("requests", "rps", "statuses", "5xx", "client_errors",
                                   "p50_ms", "p90_ms", "p99_ms")},
        "rss_before_mb": round(rss_before, 1), "rss_after_mb": round(rss_after, 1),
        "rss_growth_pct": round(growth, 2),
        "latency_30_tokens": single,
    }))


if __name__ == "__main__":
    main()
