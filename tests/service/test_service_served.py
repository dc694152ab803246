"""`logicparse serve` as a real process: settings from flags and variables, a pathological
request beside small ones, slow clients, oversized headers, upgrades and pipelining, bad
settings; no traceback in the server's output.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest

from logicparse.onnx_export import available_cpus

EXAMPLE = "But I try very hard not to go that way because it would be too easy for them."

# --- `logicparse serve` as a process ---------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_logicparse_serve_process(tmp_path):
    port = _free_port()
    env = dict(os.environ, LOGICPARSE_SENSES="none", LOGICPARSE_MAX_CHARS="300",
               LOGICPARSE_LOG_LEVEL="warning")
    proc = subprocess.Popen(
        [sys.executable, "-c", "from logicparse.cli import main; main()", "serve", "--host", "127.0.0.1", "--port",
         str(port), "--queue", "2"],
        env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            assert proc.poll() is None, proc.stdout.read()
            try:
                if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "service did not become ready"
            time.sleep(0.3)
        ready = httpx.get(url + "/readyz").json()
        # Flag and env var both taken; one thread per CPU by default (one worker).
        assert ready["senses"] is None and ready["threads"] == available_cpus()
        assert ready["capacity"] == ready["threads"] + 2
        r = httpx.post(url + "/v1/annotate", json={"text": EXAMPLE}, timeout=60)
        assert r.status_code == 200
        assert [k["keyword"] for k in r.json()["relations"]] == ["But", "not", "because"]
        r = httpx.post(url + "/v1/annotate", json={"text": "a" * 301}, timeout=60)
        assert r.status_code == 413
    finally:
        proc.terminate()
        proc.wait(30)
    # The seconds of model loading are announced before anything else.
    assert proc.stdout.read().splitlines()[0].startswith("loading models… (parser default, senses None)")


# --- `logicparse serve` under attack ----------------------------------------------------------

def _start(tmp_path, *flags):
    port = _free_port()
    env = dict(os.environ, LOGICPARSE_SENSES="none", LOGICPARSE_LOG_LEVEL="warning")
    proc = subprocess.Popen(
        [sys.executable, "-c", "from logicparse.cli import main; main()", "serve", "--host",
         "127.0.0.1", "--port", str(port), *flags],
        env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while True:
        assert proc.poll() is None, proc.stdout.read()
        try:
            if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                return proc, url, port
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "service did not become ready"
        time.sleep(0.3)


@contextlib.contextmanager
def _served(tmp_path, *flags):
    """A real `logicparse serve` (lexicon senses); its output must hold no traceback."""
    proc, url, port = _start(tmp_path, *flags)
    try:
        yield url, port
    finally:
        proc.terminate()
        out = proc.communicate(timeout=60)[0]
    assert "Traceback" not in out


def _read_until_closed(sock: socket.socket, limit: float) -> bytes:
    sock.settimeout(limit)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


@pytest.mark.slow
def test_served_pathological_request_neither_blocks_others_nor_runs_on(tmp_path):
    """`{"text": "a " * 50000}` (within the limits): a one-sentence request sent while it runs is
    answered 200 before it ends; it gets 504 at its deadline and its work stops, so that the
    capacity comes back."""
    with _served(tmp_path, "--timeout", "6") as (url, _):
        big = {}
        t = threading.Thread(target=lambda: big.update(r=httpx.post(
            url + "/v1/annotate", json={"text": "a " * 50000}, timeout=120)))
        t.start()
        deadline = time.monotonic() + 60
        while httpx.get(url + "/readyz").json()["pending"] == 0:  # admitted: the idle thread takes it
            assert time.monotonic() < deadline, "the long request was not admitted"
            time.sleep(0.05)
        r = httpx.post(url + "/v1/annotate", json={"text": EXAMPLE}, timeout=60)
        assert r.status_code == 200 and r.json()["relations"]
        assert t.is_alive()  # answered while the long request was still being worked on
        t.join()
        assert big["r"].status_code == 504 and big["r"].json()["code"] == "E410"
        deadline = time.monotonic() + 30
        while httpx.get(url + "/readyz").json()["pending"] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert httpx.get(url + "/readyz").json()["pending"] == 0


@pytest.mark.slow
def test_served_slow_clients_are_timed_out_and_health_stays_reachable(tmp_path):
    with _served(tmp_path, "--max-connections", "3", "--read-timeout", "2") as (url, port):
        stalled = []
        for _ in range(3):  # headers, then one byte of a 100,000-byte body
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"POST /v1/annotate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                      b"\r\nContent-Length: 100000\r\n\r\n{")
            stalled.append(s)
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"POST /v1/annotate HTTP/1.1\r\nHost: x\r\n")  # headers never finished
        stalled.append(s)
        assert httpx.get(url + "/healthz", timeout=5).status_code == 200
        deadline = time.monotonic() + 30
        while (r := httpx.post(url + "/v1/annotate", json={"text": EXAMPLE},
                               timeout=30)).status_code == 200:  # until the server holds all three
            assert time.monotonic() < deadline, "the stalled bodies were never counted"
        assert r.status_code == 503 and r.json()["code"] == "E417" and "retry-after" in r.headers
        for s in stalled:  # each is answered 408 and closed by the server
            data = _read_until_closed(s, 30)
            s.close()
            assert data.startswith(b"HTTP/1.1 408"), data[:80]
            assert json.loads(data.partition(b"\r\n\r\n")[2])["code"] == "E416"
        r = httpx.post(url + "/v1/annotate", json={"text": EXAMPLE}, timeout=30)
        assert r.status_code == 200
        # The HTTP parser's own refusal, in the service's shape.
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(b"POST /v1/annotate HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}")
            data = _read_until_closed(s, 30)
        assert data.startswith(b"HTTP/1.1 400")
        assert json.loads(data.partition(b"\r\n\r\n")[2])["code"] == "E419"


@pytest.mark.slow
def test_serve_reports_bad_settings_and_unloadable_models_without_a_traceback(tmp_path):
    cmd = [sys.executable, "-c", "from logicparse.cli import main; main()", "serve", "--host",
           "127.0.0.1", "--port", str(_free_port()), "--senses", "none"]
    r = subprocess.run(cmd + ["--timeout", "-1", "--max-tokens", "0"], capture_output=True,
                       text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "[E422] Invalid service setting: " in r.stderr
    assert "--timeout -1.0: Input should be greater than 0" in r.stderr and "--max-tokens 0" in r.stderr
    r = subprocess.run(cmd + ["--parser", str(tmp_path / "missing")], capture_output=True,
                       text=True, timeout=300, cwd=tmp_path)
    assert r.returncode != 0 and "Traceback" not in r.stdout + r.stderr
    # A parser that names nothing is a bad setting, refused before any worker starts.
    assert "[E422] Invalid service setting: --parser" in r.stderr and "[E100]" in r.stderr
    # A setting's own coded message, quoted in one sentence: not pydantic's words, no "..".
    assert "Value error" not in r.stderr and ".." not in r.stderr


def test_a_port_in_use_is_named_before_the_models_load(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = subprocess.run([sys.executable, "-c", "from logicparse.cli import main; main()", "serve",
                            "--port", str(port), "--senses", "none"], capture_output=True, text=True,
                           timeout=120, cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"[E428] Cannot listen on 127.0.0.1 port {port}: Address already in use" in r.stderr
    assert "--port" in r.stderr
    assert "loading models" not in r.stderr


def _answers(data: bytes) -> list[tuple[int, dict]]:
    """(status, JSON body) of each response in ``data``, in order."""
    out = []
    while data.startswith(b"HTTP/1.1 "):
        head, _, rest = data.partition(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        out.append((int(head.split()[1]), json.loads(rest[:length])))
        data = rest[length:]
    return out


@pytest.mark.slow
def test_served_heads_upgrades_and_pipelined_errors_are_refused_in_our_shape(tmp_path):
    with _served(tmp_path, "--max-header-bytes", "20000") as (url, port):
        def exchange(request: bytes) -> list:
            with socket.create_connection(("127.0.0.1", port)) as s:
                try:
                    s.sendall(request)
                except OSError:  # closed before everything was sent: the answer is there
                    pass
                return _answers(_read_until_closed(s, 30))

        # A header over the limit: 431 before the server has read it all (10 MB sent).
        got = exchange(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 10_000_000
                       + b"\r\n\r\n")
        assert [(st, b["code"]) for st, b in got] == [(431, "E423")], got
        # Under it: served.
        r = httpx.get(url + "/healthz", headers={"X-Big": "a" * 15_000})
        assert r.status_code == 200
        # A WebSocket upgrade is refused with {detail, code}.
        got = exchange(b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade"
                       b"\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                       b"Sec-WebSocket-Version: 13\r\n\r\n")
        assert [(st, b["code"]) for st, b in got] == [(400, "E424")], got
        assert set(got[0][1]) == {"detail", "code"}
        # A valid request pipelined with a malformed one: its answer first, then the refusal.
        body = json.dumps({"text": EXAMPLE}).encode()
        valid = (b"POST /v1/annotate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(body)) + body
        got = exchange(valid + b"POST /v1/annotate HTTP/1.1\r\nHost: x\r\nContent-Length: abc"
                       b"\r\n\r\n{}")
        assert [st for st, _ in got] == [200, 400] and got[1][1]["code"] == "E419"
        assert got[0][1]["relations"]
