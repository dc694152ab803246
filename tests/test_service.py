"""The REST service: the same records as the batch path, bad input, bounds (413), the OpenAPI
contract (schemathesis), and `logicparse serve` as a real process.

The app runs the real bundled parser (lexicon senses, no encoder) through FastAPI's TestClient.
The work pool's bounds and deadlines (503/504) are tested in test_service_pool.py, on a clock
the test moves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time

import httpx
import pyarrow as pa
import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings

import logicparse
from logicparse.tokens.document import ARROW_SCHEMA, Document
from logicparse.service import Settings, create_app
from logicparse.service.decisions import decided_none
from logicparse.service.limits import BodyGuard

EXAMPLE = "But I try very hard not to go that way because it would be too easy for them."
TWO_SENTENCES = "If it rains, we stay home. We did not go out because it was raining."


@pytest.fixture(scope="module")
def client(lexicon_annotator):
    app = create_app(Settings(senses=None, max_chars=2000, max_texts=8), annotator=lexicon_annotator)
    with TestClient(app) as c:
        yield c


def arrow_row(doc: Document) -> dict:
    """The record as the shards store it: through an Arrow table with ARROW_SCHEMA and back."""
    return pa.Table.from_pylist([doc.to_dict()], schema=ARROW_SCHEMA).to_pylist()[0]


# --- same record as the batch path -----------------------------------------------------------

def test_confidence_over_rest_equals_the_document_read_from_a_shard(lexicon_annotator, tmp_path):
    import copy

    from logicparse.batch import iter_documents, write_documents
    from logicparse.senses import SenseDecision

    class Unsure:  # a classifier whose probabilities have many digits
        name = "unsure"

        def disambiguate(self, queries):
            return [SenseDecision(q.candidates[0], 0.87345678 - i / 7, "classifier")
                    for i, q in enumerate(queries)]

    annotator = copy.copy(lexicon_annotator)
    annotator.senses = Unsure()
    app = create_app(Settings(senses=None), annotator=annotator)
    with TestClient(app) as c:
        body = c.post("/v1/annotate", json={"text": TWO_SENTENCES, "id": "d"}).json()
    confidences = [r["confidence"] for r in body["relations"]]
    assert confidences[:2] == [0.8735, 0.7306] and len(confidences) >= 3
    write_documents(tmp_path / "s", [annotator.annotate(TWO_SENTENCES, id="d")])
    from_shard = next(iter_documents(tmp_path / "s"))
    assert from_shard.to_dict() == body == Document.from_dict(body).to_dict()


@pytest.mark.parametrize("text", [EXAMPLE, TWO_SENTENCES])
def test_annotate_equals_the_arrow_row(client, lexicon_annotator, text):
    r = client.post("/v1/annotate", json={"text": text, "id": "doc-1"})
    assert r.status_code == 200, r.text
    body = r.json()
    doc = lexicon_annotator.annotate(text, id="doc-1")
    assert body == doc.to_dict()
    assert body == arrow_row(doc)
    assert set(body) == set(ARROW_SCHEMA.names)


@pytest.mark.slow
def test_service_answers_what_the_batch_run_writes(client, tmp_path):
    """The shards of `logicparse annotate` (batch/run.py, its worker processes, Arrow files on
    disk) hold, row for row, what the service answers."""
    from logicparse.batch.run import RunConfig, annotate_corpus
    from logicparse.batch.shards import read_shards
    from logicparse.batch.worker import WorkerSpec

    texts = {"a": EXAMPLE, "b": TWO_SENTENCES, "c": "", "d": "Nothing happened until noon."}
    src = tmp_path / "docs.jsonl"
    src.write_text("".join(json.dumps({"id": k, "text": v}) + "\n" for k, v in texts.items()))
    annotate_corpus([str(src)], tmp_path / "shards", RunConfig(worker=WorkerSpec(senses=None)))
    rows = {row["id"]: row for row in read_shards(tmp_path / "shards").to_pylist()}
    assert set(rows) == set(texts)
    for doc_id, text in texts.items():
        r = client.post("/v1/annotate", json={"text": text, "id": doc_id})
        assert r.json() == rows[doc_id]


def test_example_keywords(client):
    body = client.post("/v1/annotate", json={"text": EXAMPLE}).json()
    assert [(r["keyword"], r["relation"]) for r in body["relations"]] == [
        ("But", "comparative"), ("not", "negation"), ("because", "causal")]
    labels = logicparse.LABELS
    because = body["tokens"].index("because")
    assert labels.index("causal:key") in body["logic"][because]
    assert body["id"] == "" and body["error"] is None


def test_list_of_texts_gives_documents_in_order(client, lexicon_annotator):
    texts = [EXAMPLE, "", TWO_SENTENCES]
    r = client.post("/v1/annotate", json={"text": texts})
    assert r.status_code == 200, r.text
    body = r.json()
    assert [d["id"] for d in body] == ["0", "1", "2"]
    assert [d["text"] for d in body] == texts
    batch = list(lexicon_annotator.pipe(texts, ids=["0", "1", "2"]))
    assert body == [arrow_row(d) for d in batch]

    r = client.post("/v1/annotate", json={"text": [{"id": "x", "text": "a."}, "b."]})
    assert [d["id"] for d in r.json()] == ["x", "1"]
    assert client.post("/v1/annotate", json={"text": []}).json() == []


@pytest.mark.parametrize("text", ["", "   \n\t "])
def test_empty_text_is_a_valid_empty_document(client, text):
    r = client.post("/v1/annotate", json={"text": text})
    assert r.status_code == 200
    body = r.json()
    assert body == arrow_row(Document(text=text, parse=[]))
    assert body["tokens"] == [] and body["relations"] == [] and body["error"] is None


# --- bad input -------------------------------------------------------------------------------

def test_body_over_the_limit_is_413(client):
    # 25 kB is under the byte bound (4 * max_chars + 64 KiB) but over max_chars: counted exactly.
    r = client.post("/v1/annotate", json={"text": "word " * 5000})
    assert r.status_code == 413 and r.json()["code"] == "E402"
    assert "2000" in r.json()["detail"]
    r = client.post("/v1/annotate", json={"text": "x" * 80_000})  # over the byte bound
    assert r.status_code == 413 and r.json()["code"] == "E401"
    r = client.post("/v1/annotate", json={"text": ["a"] * 9})
    assert r.status_code == 413 and r.json()["code"] == "E403"


def test_streamed_body_is_counted_without_content_length(client):
    def chunks():
        yield b'{"text": "'
        for _ in range(200):
            yield b"x" * 1000
        yield b'"}'

    r = client.post("/v1/annotate", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "E401"


def test_413_is_decided_before_the_body_is_read():
    """Content-Length over the bound: the answer goes out without one byte of body read."""
    sent, reached = [], []

    async def app(scope, receive, send):
        reached.append(scope)

    async def receive():
        raise AssertionError("the body was read")

    async def send(message):
        sent.append(message)

    guard = BodyGuard(app, limit=1000, max_chars=10)
    scope = {"type": "http", "method": "POST", "path": "/v1/annotate",
             "headers": [(b"content-type", b"application/json"), (b"content-length", b"1001")]}
    asyncio.run(guard(scope, receive, send))
    assert sent[0]["status"] == 413 and not reached
    assert json.loads(sent[1]["body"])["code"] == "E401"


@pytest.mark.parametrize("body, field", [
    ({"text": 5}, "text"),
    ({"text": [1, 2]}, "text"),
    ({}, "text"),
    ({"text": "a", "id": 3}, "id"),
    ({"text": "a", "colour": "red"}, "colour"),
    ({"text": ["a", {"text": "b"}]}, "id"),
    ({"text": ["a", "b"], "id": "x"}, "id"),
])
def test_wrong_types_are_422_naming_the_field(client, body, field):
    r = client.post("/v1/annotate", json=body)
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert any(field in [str(p) for p in d["loc"]] for d in detail), detail
    assert field in r.json().get("message", field)


def test_a_long_list_is_refused_before_validation_and_error_bodies_stay_small(client,
                                                                             lexicon_annotator):
    # 230,000 numbers: under the (default) body limit, far over the text count. Refused as too
    # many texts (not 460,000 validation errors in 100 MB).
    body = b'{"text":[' + b",".join([b"1"] * 230_000) + b"]}"
    with TestClient(create_app(Settings(senses=None), annotator=lexicon_annotator)) as c:
        r = c.post("/v1/annotate", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "E403", r.text[:200]
    assert "230000 texts" in r.json()["detail"] and len(r.content) < 1000
    # Under the count, every item wrong: the first errors are listed, and how many there are.
    r = client.post("/v1/annotate", json={"text": [{"id": 1, "text": 2, "x": 3}] * 8})
    assert r.status_code == 422 and r.json()["code"] == "E406"
    assert len(r.json()["detail"]) == 20 and r.json()["errors"] > 30
    assert len(r.content) < 10_000 and "more" in r.json()["message"]


@pytest.mark.parametrize("raw", [b'{"text": ', b"not json", b'{"text": "a",}', b""])
def test_malformed_json_is_422(client, raw):
    r = client.post("/v1/annotate", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["detail"]


def test_body_not_sent_as_json_says_so(client):
    # curl -d without -H sends a form content type: FastAPI does not parse it as JSON.
    r = client.post("/v1/annotate", content=b'{"text": "a"}',
                    headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 422 and r.json()["code"] == "E408"
    assert "application/json" in r.json()["message"]


def test_invalid_utf8_is_400(client):
    r = client.post("/v1/annotate", content=b'{"text": "caf\xe9 \xff"}',
                    headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "E404"
    assert "byte 13" in r.json()["detail"]
    # Valid JSON escapes that decode to a lone surrogate are not valid Unicode either.
    r = client.post("/v1/annotate", content=b'{"text": ["ok", {"id": "a\\ud800b", "text": "b"}]}',
                    headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "E407"
    assert "body.text[1].id" in r.json()["detail"]


def test_no_route_reads_files_named_by_the_request(client):
    for path in ("/static/../app.py", "/static/%2e%2e/settings.py", "/static/index.html",
                 "/static/", "/../pyproject.toml", "/etc/passwd"):
        assert client.get(path).status_code == 404, path


# --- capacity and time limit (the pool itself: test_service_pool.py) -----------------------

def test_concurrent_requests_each_get_their_own_document(lexicon_annotator):
    texts = [EXAMPLE, TWO_SENTENCES, "", "Nothing happened until noon, so we left.",
             "He stayed while she worked.", "It was cheap, but nobody bought it."]
    app = create_app(Settings(senses=None, batch_size=4), annotator=lexicon_annotator)

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            return await asyncio.gather(*(
                c.post("/v1/annotate", json={"text": t, "id": f"d{i}"}) for i, t in enumerate(texts)))

    answers = asyncio.run(scenario())
    app.state.pool.shutdown()
    for i, (text, r) in enumerate(zip(texts, answers)):
        assert r.status_code == 200
        assert r.json() == arrow_row(lexicon_annotator.annotate(text, id=f"d{i}"))


# --- the other endpoints ---------------------------------------------------------------------

def test_labels_taxonomy_health(client):
    assert client.get("/v1/labels").json() == {"labels": logicparse.LABELS}
    tax = client.get("/v1/taxonomy").json()
    assert tax == logicparse.taxonomy.as_dict()
    assert [r["name"] for r in tax["relations"]] == logicparse.RELATIONS
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"
    assert ready.json()["senses"] is None
    assert client.get("/docs").status_code == 200
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert client.get("/static/app.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/static/style.css").status_code == 200


def test_settings_reach_worker_processes_through_the_environment(monkeypatch):
    given = Settings(port=9123, senses=None, max_chars=50, queue=0, timeout=2.5)
    for name, value in given.to_env().items():
        monkeypatch.setenv(name, value)
    assert Settings() == given
    monkeypatch.setenv("LOGICPARSE_SENSES", "default")
    assert Settings().senses == "default"


def test_readyz_is_503_until_models_load():
    app = create_app(Settings(senses=None))  # no lifespan has run: nothing loaded yet
    c = TestClient(app)
    r = c.get("/readyz")
    assert r.status_code == 503 and "retry-after" in r.headers
    assert c.post("/v1/annotate", json={"text": "a"}).status_code == 503
    assert c.get("/healthz").status_code == 200


def test_response_model_is_the_document_dataclass(client):
    spec = client.get("/openapi.json").json()
    ok = spec["paths"]["/v1/annotate"]["post"]["responses"]["200"]["content"]["application/json"]
    refs = json.dumps(ok["schema"])
    assert "#/components/schemas/Document" in refs
    doc_schema = next(v for k, v in spec["components"]["schemas"].items() if k.startswith("Document"))
    import dataclasses

    assert list(doc_schema["properties"]) == [f.name for f in dataclasses.fields(Document)]


# --- the OpenAPI contract --------------------------------------------------------------------

def _operations(lexicon_annotator):
    app = create_app(Settings(senses=None, max_chars=3000), annotator=lexicon_annotator)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    return [result.ok() for result in schema.get_all_operations()]


@pytest.mark.slow
@pytest.mark.parametrize("mode", list(schemathesis.GenerationMode), ids=lambda m: m.value)
def test_openapi_contract(lexicon_annotator, mode):
    """Generated requests (valid ones, and invalid ones for the negative mode) against every
    operation: no 5xx, every answer as documented (status, headers, body schema), invalid
    requests refused and valid ones accepted. Bounded: 40 examples an operation and mode."""
    operations = _operations(lexicon_annotator)
    assert {op.path for op in operations} == {
        "/v1/annotate", "/v1/labels", "/v1/taxonomy", "/healthz", "/readyz"}
    for operation in operations:
        if mode == schemathesis.GenerationMode.NEGATIVE and operation.method != "post":
            continue  # nothing to make invalid: the GET operations take no parameters

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(max_examples=40, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def check(case):
            case.call_and_validate()

        check()


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
        assert ready["senses"] is None and ready["capacity"] == 3  # flag and env var both taken
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


# --- bounded work, every error in one shape ---------------------------------------------------

def test_every_refusal_has_detail_and_code(lexicon_annotator):
    """The framework's own 404/405/400 and an unexpected exception come in the service's shape."""
    app = create_app(Settings(senses=None, max_tokens=50),
                     annotator=lexicon_annotator)
    with TestClient(app) as c:
        r = c.get("/nowhere")
        assert r.status_code == 404 and r.json()["code"] == "E413" and "/v1/annotate" in r.json()["detail"]
        r = c.delete("/v1/annotate")
        assert r.status_code == 405 and r.json()["code"] == "E414"
        assert r.headers["allow"] == "POST"
        deep = b'{"text": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"
        r = c.post("/v1/annotate", content=deep, headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["code"] == "E415"
        assert "RecursionError" in r.json()["detail"]
        for response in (c.get("/nowhere"), c.delete("/v1/annotate")):
            assert set(response.json()) == {"detail", "code"}
        # The token bound: checked before any parsing (spaCy's tokens, not characters).
        r = c.post("/v1/annotate", json={"text": "a " * 51})
        assert r.status_code == 413 and r.json()["code"] == "E418" and "51 tokens" in r.json()["detail"]
        r = c.post("/v1/annotate", json={"text": "a," * 30})  # 60 characters, 60 tokens
        assert r.status_code == 413 and r.json()["code"] == "E418"
        assert c.post("/v1/annotate", json={"text": "a " * 50}).status_code == 200

    class Broken:
        parser = senses = None

        def pipe(self, texts, **kw):
            raise RuntimeError("secret internals")

    with TestClient(create_app(Settings(senses=None), annotator=Broken()),
                    raise_server_exceptions=False) as c:
        r = c.post("/v1/annotate", json={"text": "x"})
        assert r.status_code == 500 and r.json()["code"] == "E420"
        assert "secret" not in r.json()["detail"]  # internals stay in the server log


def test_status_table_is_the_one_place_for_statuses():
    from logicparse.errors import InputTextError
    from logicparse.service import errors as se

    expected = {se.BadRequest: 400, InputTextError: 400, se.NotFound: 404,
                se.MethodNotAllowed: 405, se.SlowClient: 408, se.TooLarge: 413,
                se.HeadersTooLarge: 431, se.Busy: 503,
                se.Loading: 503, se.TimedOut: 504, se.Internal: 500}
    assert se.STATUS == expected
    status, body, headers = se.error_body(se.Busy("[E409] full", {"Retry-After": 2}))
    assert status == 503 and json.loads(body) == {"detail": "[E409] full", "code": "E409"}
    assert headers == {"Retry-After": "2"}
    assert se.error_body(KeyError("x"))[0] == 500


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


def test_the_annotator_is_a_dependency_that_a_test_can_replace(lexicon_annotator):
    from logicparse.service.routes import get_annotator

    app = create_app(Settings(senses=None), annotator=lexicon_annotator)
    app.dependency_overrides[get_annotator] = lambda: None  # as while the models load
    with TestClient(app) as c:
        r = c.get("/readyz")
        assert r.status_code == 503 and r.json()["code"] == "E411"
        assert r.headers["Retry-After"] == "1"
        # The request's own checks come first: a bad request is refused as such while loading.
        r = c.post("/v1/annotate", json={"text": ["a"] * 1000})
        assert r.status_code == 413
        del app.dependency_overrides[get_annotator]
        assert c.get("/readyz").json()["status"] == "ready"


def test_no_senses_is_spelled_none_as_on_the_command_line():
    from logicparse.resources import NO_SENSES
    from logicparse.senses import load_senses

    assert Settings(senses="none").senses is None and Settings(senses=" None ").senses is None
    assert Settings(senses="rules").senses == "rules"
    assert Settings(senses=None).to_env()["LOGICPARSE_SENSES"] == NO_SENSES == "none"
    assert load_senses("none") is None


# --- keywords decided none, on request ----------------------------------------------------------

def test_decided_none_lists_the_keywords_left_out_with_their_reason(lexicon_annotator):
    rules = logicparse.Annotator(parser=lexicon_annotator.parser, senses="rules")
    app = create_app(Settings(senses="rules"), annotator=rules)
    text = "I like tea in Paris, and I stayed because it rained."
    with TestClient(app) as c:
        plain = c.post("/v1/annotate", json={"text": text}).json()
        asked = c.post("/v1/annotate", json={"text": text, "decided_none": True}).json()
        many = c.post("/v1/annotate", json={"text": [text, "It rained."],
                                            "decided_none": True}).json()
    # Off by default: the answer stays the Document record.
    assert plain == arrow_row(rules.annotate(text))
    assert {k: v for k, v in asked.items() if k != "decided_none"} == plain
    assert [r["keyword"] for r in plain["relations"]] == ["and", "because"]
    # The verb `like` and the `in` of a place: decided none by a tree rule.
    assert asked["decided_none"] == [
        {"keyword": "like", "key": [[1, 2]], "sentence": 0, "source": "rule",
         "reason": "a tree rule: not a connective in this sentence"},
        {"keyword": "in", "key": [[3, 4]], "sentence": 0, "source": "rule",
         "reason": "a tree rule: not a connective in this sentence"}]
    assert many[0]["decided_none"] == asked["decided_none"] and many[1]["decided_none"] == []
    # With lexicon senses every keyword keeps its relation: nothing is left out.
    assert decided_none(lexicon_annotator.annotate(text), None) == []


def test_decided_none_without_rules_names_the_classifier():
    # A sense model without tree rules: whatever it left out, its classifier decided.
    doc = logicparse.annotate_trees(["(S (NP (PRP I)) (VP (VBD stayed) (SBAR (IN as) (S (NP (PRP it)) "
                                     "(VP (VBD rained))))) (. .))"])
    assert [r.keyword for r in doc.relations] == ["as"]
    doc.relations = []
    (n,) = decided_none(doc, type("Senses", (), {"rules": False})())
    assert (n.keyword, n.key, n.source) == ("as", [[2, 3]], "classifier")


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


def test_a_websocket_is_refused_in_our_shape_under_a_server_that_upgrades(client):
    """`logicparse serve` refuses upgrades in its protocol; a server that upgrades by itself hands
    the app a WebSocket, which it refuses with {detail, code} too."""
    from starlette.testclient import WebSocketDenialResponse

    with pytest.raises(WebSocketDenialResponse) as e:
        with client.websocket_connect("/"):
            pass
    assert e.value.status_code == 400 and e.value.json()["code"] == "E424"
    assert set(e.value.json()) == {"detail", "code"}
