"""Service cases of benchmarks/robustness/robustness.py: what a client sends (latency and
refusals)."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import httpx
from robustness_common import SENTENCE, check, serve
from service_load import rss_mb  # benchmarks/speed/, put on sys.path by robustness_common


class Probe:
    """One-sentence requests and /healthz, each on its own thread, every 0.25 s until stopped:
    the latency a small client sees beside whatever else is in flight."""

    def __init__(self, url: str):
        self.url = url
        self.small: list[tuple[object, float]] = []
        self.health: list[tuple[object, float]] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(m, p, b, out), daemon=True)
                         for m, p, b, out in (
                             ("POST", "/v1/annotate", {"text": SENTENCE}, self.small),
                             ("GET", "/healthz", None, self.health))]

    def _run(self, method, path, body, out) -> None:
        while not self._stop.is_set():
            t0 = time.monotonic()
            try:
                status = httpx.request(method, self.url + path, json=body, timeout=60).status_code
            except httpx.HTTPError as e:
                status = type(e).__name__
            out.append((status, time.monotonic() - t0))
            self._stop.wait(0.25)

    def __enter__(self):
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        for t in self._threads:
            t.join(90)

    @staticmethod
    def summary(samples) -> tuple[bool, float, str]:
        """(all 200?, slowest seconds, a readable line)"""
        worst = max((s for _, s in samples), default=float("nan"))
        statuses = sorted({str(st) for st, _ in samples})
        ok = bool(samples) and all(st == 200 for st, _ in samples)
        return ok, worst, f"{len(samples)} requests, statuses {statuses}, slowest {worst:.2f} s"


def _post_in_background(url: str, body: bytes, out: dict) -> threading.Thread:
    def send():
        t0 = time.monotonic()
        try:
            r = httpx.post(url + "/v1/annotate", content=body, timeout=120,
                           headers={"Content-Type": "application/json"})
            code = None
            try:
                code = r.json().get("code") if isinstance(r.json(), dict) else None
            except ValueError:
                pass
            out.update(status=r.status_code, code=code, bytes=len(r.content))
        except httpx.HTTPError as e:
            out.update(status=type(e).__name__, code=None, bytes=0)
        out["seconds"] = time.monotonic() - t0

    t = threading.Thread(target=send, daemon=True)
    t.start()
    return t


def case_starvation(tmp: Path) -> None:
    print("8. small requests beside pathological ones (timings: run under the machine lock)",
          flush=True)
    with serve(log=tmp / "serve8.log") as (url, _, proc):
        # Two pathological texts (each at the character limit) in flight at once.
        long_body = json.dumps({"text": "a " * 50000}).encode()
        outs = [{}, {}]
        senders = [_post_in_background(url, long_body, o) for o in outs]
        time.sleep(2.0)  # both are being worked on
        with Probe(url) as probe:
            for s in senders:
                s.join(120)
        ok, worst, line = Probe.summary(probe.small)
        check(8, "beside two pathological texts: one-sentence requests 200 within 5 s",
              ok and worst < 5, line)
        ok, worst, line = Probe.summary(probe.health)
        check(8, "beside two pathological texts: /healthz within 1 s", ok and worst < 1, line)
        # The second may be refused at once (503 E409): the first's work fills the time limit.
        check(8, "the two pathological texts are answered (200, a coded 504 or 503)",
              all((o.get("status"), o.get("code")) in ((200, None), (504, "E410"), (503, "E409"))
                  for o in outs),
              "; ".join(f"{o.get('status')} {o.get('code')} after {o.get('seconds', 0):.1f} s"
                        for o in outs))

        # A list of 230,000 numbers: 460 KB, under the body limit, over the text-count limit.
        items = (b"[" + b",".join([b"1"] * 230_000) + b"]")
        list_body = b'{"text":' + items + b"}"
        out: dict = {}
        peak = [rss_mb(proc.pid)]
        with Probe(url) as probe:
            sender = _post_in_background(url, list_body, out)
            while sender.is_alive():
                peak.append(rss_mb(proc.pid))
                sender.join(0.2)
            time.sleep(1.0)  # a few probes after the answer too
        check(8, "a 230,000-item list: a coded 413 within 2 s, a small body",
              out.get("status") == 413 and out.get("code") == "E403" and out["seconds"] < 2
              and out["bytes"] < 4096,
              f"{len(list_body):,} bytes sent: {out.get('status')} {out.get('code')} after "
              f"{out.get('seconds', 0):.2f} s, {out.get('bytes', 0):,} bytes back, server peak "
              f"RSS {max(peak):.0f} MiB")
        ok, worst, line = Probe.summary(probe.small)
        check(8, "beside the list: one-sentence requests 200 within 5 s", ok and worst < 5, line)
        ok, worst, line = Probe.summary(probe.health)
        check(8, "beside the list: /healthz within 1 s", ok and worst < 1, line)


def _exchange(port: int, request: bytes, wait: float = 30) -> bytes:
    """Send ``request`` in one write; everything the server answers until it closes (or
    ``wait`` s pass)."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        try:
            s.sendall(request)
        except OSError:  # the server may close before it has read everything
            pass
        data = b""
        try:
            while chunk := s.recv(65536):
                data += chunk
        except OSError:
            pass
    return data


def _answers(data: bytes) -> list[tuple[int, object]]:
    """(status, JSON body or None) of each response in ``data``, in order."""
    out = []
    while data.startswith(b"HTTP/1.1 "):
        head, _, rest = data.partition(b"\r\n\r\n")
        status = int(head.split()[1])
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        body, data = rest[:length], rest[length:]
        try:
            out.append((status, json.loads(body)))
        except ValueError:
            out.append((status, None))
    return out


def _coded(answer) -> bool:
    status, body = answer
    return isinstance(body, dict) and set(body) == {"detail", "code"} and \
        str(body["code"]).startswith("E4")


def case_protocol(tmp: Path) -> None:
    print("15. headers, upgrades and pipelining", flush=True)
    with serve("--senses", "none", log=tmp / "serve15.log") as (url, port, proc):
        start = rss_mb(proc.pid)
        big = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 77_000_000 + b"\r\n\r\n"
        got = _answers(_exchange(port, big))
        check(15, "one 77 MB header: 431 {detail, code}",
              bool(got) and got[0][0] == 431 and _coded(got[0]),
              f"{[a[0] for a in got]} {got[0][1] if got else ''}"[:160])
        results: list = [None] * 8
        header = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 29_000_000 + b"\r\n\r\n"

        def one(i):
            results[i] = _answers(_exchange(port, header))

        threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
        peak = start
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            peak = max(peak, rss_mb(proc.pid))
            time.sleep(0.05)
        statuses = [r[0][0] if r else None for r in results]
        check(15, "8 connections x 29 MB of headers: each 431, server RSS +100 MiB at most",
              statuses == [431] * 8 and peak - start < 100,
              f"statuses {statuses}, RSS {start:.0f} -> peak {peak:.0f} MiB")
        ws = (b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        got = _answers(_exchange(port, ws, wait=10))
        check(15, "a WebSocket upgrade: refused with {detail, code}",
              bool(got) and 400 <= got[0][0] < 500 and _coded(got[0]),
              f"{[a[0] for a in got]} {got[0][1] if got else ''}"[:160])
        valid = (b"POST /v1/annotate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(json.dumps({"text": SENTENCE}))
                 + json.dumps({"text": SENTENCE}).encode())
        malformed = b"POST /v1/annotate HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}"
        got = _answers(_exchange(port, valid + malformed))
        check(15, "a valid request pipelined with a malformed one: 200, then a coded 400",
              [a[0] for a in got] == [200, 400] and _coded(got[1]),
              f"statuses {[a[0] for a in got]}")
        health = httpx.get(url + "/healthz", timeout=10)
        check(15, "the service still answers", health.status_code == 200,
              str(health.status_code))


AMBIGUOUS = "As it rains, we stay since it is late while they go. "
LONG_64KB = AMBIGUOUS * (64_000 // len(AMBIGUOUS))  # 63,971 characters, 3,621 as/since/while


class Repeater:
    """One client sending ``body`` again as soon as each answer comes: [(status, code, s)]."""

    def __init__(self, url: str, body: dict):
        self.url, self.body, self.answers = url, body, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            out: dict = {}
            _post_in_background(self.url, json.dumps(self.body).encode(), out).join(120)
            self.answers.append((out.get("status"), out.get("code"), out.get("seconds", 0.0)))

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(120)


def case_one_request_holds(tmp: Path) -> None:
    print("16. the 64 KB ambiguous-keyword request repeated (timings: run under the machine lock)",
          flush=True)
    import asyncio

    from service_load import load

    with serve(log=tmp / "serve16a.log") as (url, _, proc):
        start = rss_mb(proc.pid)
        with Repeater(url, {"text": LONG_64KB}) as long, Probe(url) as probe:
            result = asyncio.run(load(url, clients=8, duration=60, max_requests=10 ** 9))
        end = rss_mb(proc.pid)
        codes = sorted({f"{st} {code}" for st, code, _ in long.answers})
        check(16, "defaults: the 64 KB request refused at once, coded (E425), each time",
              codes == ["413 E425"] and max(s for _, _, s in long.answers) < 2,
              f"{len(long.answers)} sent: {codes}, slowest "
              f"{max(s for _, _, s in long.answers):.2f} s")
        ok, worst, line = Probe.summary(probe.small)
        check(16, "defaults, beside it: one-sentence requests 200 within 2 s", ok and worst <= 2,
              line)
        check(16, "defaults, beside it: 8 clients x 60 s, no 5xx, RSS growth under 10%",
              result["5xx"] == 0 and result["client_errors"] == 0 and end < start * 1.1,
              f"{result['requests']} requests, {result['rps']} req/s, statuses "
              f"{result['statuses']}, p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms, "
              f"RSS {start:.0f} -> {end:.0f} MiB ({100 * (end / start - 1):+.1f}%)")

    # With the budget raised the work runs, in steps; under a time limit shorter than the work
    # (about 11 s), the deadline stops it between two steps.
    with serve("--max-ambiguous", "100000", "--timeout", "5", log=tmp / "serve16b.log") as (
            url, _, proc):
        out: dict = {}
        _post_in_background(url, json.dumps({"text": LONG_64KB}).encode(), out).join(120)
        t0, pending = time.monotonic(), None
        while time.monotonic() - t0 < 60:
            pending = httpx.get(url + "/readyz", timeout=10).json()["pending"]
            if pending == 0:
                break
            time.sleep(0.05)
        freed = time.monotonic() - t0
        check(16, "budget raised, --timeout 5: the request gets its 504 and frees the thread "
              "within 2 s", out.get("status") == 504 and out.get("code") == "E410"
              and pending == 0 and freed < 2,
              f"{out.get('status')} {out.get('code')} after {out.get('seconds', 0):.1f} s, "
              f"thread free {freed:.2f} s later")
        with Repeater(url, {"text": LONG_64KB}) as long, Probe(url) as probe:
            time.sleep(45)
        ok, worst, line = Probe.summary(probe.small)
        check(16, "budget raised, one client repeating it: one-sentence requests 200 within 2 s",
              ok and worst <= 2,
              line + f"; long: {[(st, round(s, 1)) for st, _, s in long.answers]}")


def case_amplification(tmp: Path) -> None:
    print("17. answers much larger than their request", flush=True)
    with serve("--senses", "none", "--max-response-bytes", "1000000",
               log=tmp / "serve17.log") as (url, _, _):
        one = "if " * 299 + "."
        body = json.dumps({"text": one}).encode()
        r = httpx.post(url + "/v1/annotate", content=body, timeout=120,
                       headers={"Content-Type": "application/json"})
        most = max((len(labels) for labels in r.json().get("logic", [[]])), default=0) \
            if r.status_code == 200 else None
        check(17, '{"text": "if " * 299 + "."}: 200, at most 16 labels a token',
              r.status_code == 200 and most is not None and most <= 16,
              f"{len(body):,} B in, {len(r.content):,} B out ({len(r.content) / len(body):.0f}x), "
              f"most labels on a token {most}")
        body = json.dumps({"text": " ".join([one] * 15)}).encode()
        r = httpx.post(url + "/v1/annotate", content=body, timeout=120,
                       headers={"Content-Type": "application/json"})
        code = r.json().get("code") if r.status_code != 200 else None
        check(17, "15 such sentences with --max-response-bytes 1000000: a coded 413 (E426), "
              "a small body", r.status_code == 413 and code == "E426" and len(r.content) < 1000,
              f"{len(body):,} B in: {r.status_code} {code}, {len(r.content):,} B out")


def case_http_details(tmp: Path) -> None:
    print("18. Host, HEAD and the names in a 422", flush=True)
    with serve("--senses", "none", log=tmp / "serve18.log") as (url, port, _):
        raw = _exchange(port, b"GET /v1/labels/ HTTP/1.1\r\nHost: evil.example\r\n"
                              b"Connection: close\r\n\r\n")
        got = _answers(raw)
        location = next((line.split(b":", 1)[1].strip().decode() for line in
                         raw.split(b"\r\n\r\n")[0].split(b"\r\n")
                         if line.lower().startswith(b"location:")), None)
        check(18, "a trailing-slash redirect: Location relative, never the client's Host",
              bool(got) and got[0][0] in (307, 308) and location == "/v1/labels",
              f"{got[0][0] if got else None} Location {location!r}")
        for path in ("/", "/healthz"):
            r = httpx.head(url + path, timeout=10)
            check(18, f"HEAD {path}: 200 without a body", r.status_code == 200 and not r.content,
                  f"{r.status_code}, {len(r.content)} B")
        r = httpx.post(url + "/v1/annotate", json={"text": 5}, timeout=10)
        check(18, "a 422 names the field as sent, not the server's models",
              r.status_code == 422 and "Annotate" not in r.text
              and r.json()["detail"][0]["loc"] == ["body", "text"],
              r.json().get("message", "")[:120])
