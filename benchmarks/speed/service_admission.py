"""Long requests at once against a real `logicparse serve`: how many are answered within the time
limit, how the others are refused, and how long a one-sentence request waits beside them.

1. Starts `logicparse serve` (service defaults unless flags follow `--`) and sends one long
   request alone (about 64 KB: the load run's sentences repeated, a few hundred occurrences of
   since/as/while, within the keyword budget): its time is what the requests sent together
   compete for, and the pool measures its rate of work on it.
2. Sends REQUESTS copies of it at the same moment while a probe sends a one-sentence request
   every 0.25 s until all are answered: statuses, codes, Retry-After, seconds of each; the count
   of 200 within LIMIT seconds; the probe's p50 and slowest latency.

Prints readable lines, then one JSON object as the last line of stdout.

    python benchmarks/speed/service_admission.py                       # 10 requests, defaults
    python benchmarks/speed/service_admission.py --requests 4 --limit 60 -- --timeout 60
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service_load import SENTENCE_30, SENTENCES, percentile, run_server  # noqa: E402


def long_text(size: int) -> str:
    """The load run's sentences, repeated to at most ``size`` characters, whole sentences."""
    unit = " ".join(SENTENCES) + " "
    text = unit * (size // len(unit) + 1)
    return text[:text.rindex(".", 0, size) + 1]


def send(url: str, body: dict, out: dict, start: threading.Barrier | None = None) -> None:
    if start is not None:
        start.wait()
    t0 = time.monotonic()
    try:
        r = httpx.post(url + "/v1/annotate", json=body, timeout=300)
        out.update(status=r.status_code, retry_after=r.headers.get("retry-after"),
                   code=None if r.status_code == 200 else r.json().get("code"))
    except httpx.HTTPError as e:
        out.update(status=type(e).__name__, retry_after=None, code=None)
    out["seconds"] = round(time.monotonic() - t0, 2)


def probe(url: str, stop: threading.Event, out: list) -> None:
    with httpx.Client(base_url=url, timeout=300) as http:
        while not stop.is_set():
            t0 = time.monotonic()
            try:
                status = http.post("/v1/annotate", json={"text": SENTENCE_30}).status_code
            except httpx.HTTPError as e:
                status = type(e).__name__
            out.append((status, time.monotonic() - t0))
            stop.wait(0.25)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=10)
    ap.add_argument("--chars", type=int, default=64_000, help="characters of each long request")
    ap.add_argument("--limit", type=float, default=30.0, help="seconds an answer counts within")
    ap.add_argument("serve_flags", nargs="*", help="flags for logicparse serve, after --")
    args = ap.parse_args()
    body = {"text": long_text(args.chars)}

    with run_server(*args.serve_flags) as (url, _, _, startup):
        print(f"server ready in {startup:.1f} s; long request: {len(body['text']):,} characters")
        alone: dict = {}
        send(url, body, alone)
        print(f"alone: {alone['status']} in {alone['seconds']} s")
        outs = [{} for _ in range(args.requests)]
        start = threading.Barrier(args.requests)
        senders = [threading.Thread(target=send, args=(url, body, o, start)) for o in outs]
        stop, small = threading.Event(), []
        prober = threading.Thread(target=probe, args=(url, stop, small))
        prober.start()
        for t in senders:
            t.start()
        for t in senders:
            t.join()
        stop.set()
        prober.join()

    statuses: dict[str, int] = {}
    for o in outs:
        key = f"{o['status']} {o['code'] or ''}".strip()
        statuses[key] = statuses.get(key, 0) + 1
    within = sum(o["status"] == 200 and o["seconds"] <= args.limit for o in outs)
    times = [s for _, s in small]
    print(f"{args.requests} at once: {statuses}; 200 within {args.limit:.0f} s: {within}")
    for o in sorted(outs, key=lambda o: o["seconds"]):
        print(f"  {o['status']} {o['code'] or ''} after {o['seconds']} s"
              + (f", Retry-After {o['retry_after']}" if o["retry_after"] else ""))
    print(f"one-sentence requests beside them: {len(small)}, statuses "
          f"{sorted({str(st) for st, _ in small})}, p50 {1000 * statistics.median(times):.0f} ms, "
          f"p90 {1000 * percentile(times, 0.9):.0f} ms, slowest {1000 * max(times):.0f} ms")
    print(json.dumps({
        "benchmark": "service_admission", "requests": args.requests,
        "chars": len(body["text"]), "serve_flags": args.serve_flags, "alone": alone,
        "statuses": statuses, "ok_within_limit": within, "limit_s": args.limit, "answers": outs,
        "small": {"n": len(small), "all_200": all(st == 200 for st, _ in small),
                  "p50_ms": round(1000 * statistics.median(times), 1),
                  "p90_ms": round(1000 * percentile(times, 0.9), 1),
                  "max_ms": round(1000 * max(times), 1)},
    }))


if __name__ == "__main__":
    main()
