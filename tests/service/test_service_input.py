"""Bad input to the service: 400 (not UTF-8, not Unicode), 413 (bytes, characters, texts; by
Content-Length before the body is read), 422 naming the field as the client wrote it.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from fastapi.testclient import TestClient

from logicparse.service import Settings, create_app
from logicparse.service.limits import BodyGuard


@pytest.fixture(scope="module")
def client(lexicon_annotator):
    app = create_app(Settings(senses=None, max_chars=2000, max_texts=8), annotator=lexicon_annotator)
    with TestClient(app) as c:
        yield c


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
    assert json.loads(sent[1]["body"]) == {"code": "E401", "detail": (
        "[E401] Request body is 1001 bytes; this service accepts at most 1000 bytes. Send less "
        "text per request (the limit is 10 characters of text), or raise LOGICPARSE_MAX_CHARS / "
        "--max-chars on the server.")}


def test_bodies_past_max_bodies_are_503_with_retry_after_and_the_defaults():
    reached = []

    async def app(scope, receive, send):
        reached.append(scope["path"])

    async def receive():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    def call(guard):
        sent = []

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": "/v1/annotate",
                 "headers": [(b"content-type", b"application/json"), (b"content-length", b"2")]}
        asyncio.run(guard(scope, receive, send))
        return sent

    guard = BodyGuard(app, limit=1000, max_chars=10)
    assert (guard.read_timeout, guard.max_bodies, guard.retry_after) == (10.0, 512, 1)
    assert call(BodyGuard(app, limit=1000, max_chars=10, max_bodies=1)) == [] and reached
    guard.in_progress = 512  # as many bodies as it takes already being read
    sent = call(guard)
    assert sent[0]["status"] == 503 and (b"retry-after", b"1") in sent[0]["headers"]
    assert json.loads(sent[1]["body"])["detail"] == (
        "[E417] The service is receiving 512 request bodies already (its limit). Retry after 1 s, "
        "or raise LOGICPARSE_MAX_CONNECTIONS / --max-connections on the server.")
    assert reached == ["/v1/annotate"] and guard.in_progress == 512


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
    fields = r.json()["fields"]
    assert any(field in [str(p) for p in d["loc"]] for d in fields), fields
    assert field in r.json()["detail"]


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
    # Only the shape sent (a list) is reported: 8 items x 3 fields, not the one-text shape too.
    assert len(r.json()["fields"]) == 20 and r.json()["errors"] == 24
    assert len(r.content) < 10_000 and "more" in r.json()["detail"]


@pytest.mark.parametrize("raw", [b'{"text": ', b"not json", b'{"text": "a",}', b""])
def test_malformed_json_is_422(client, raw):
    r = client.post("/v1/annotate", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["detail"]


@pytest.mark.parametrize("ctype", ["application/x-www-form-urlencoded", "text/json",
                                   "application/json5", "text/plain; note=json"])
def test_body_not_sent_as_json_says_so(client, ctype):
    # curl -d without -H sends a form content type: FastAPI parses only application/json and
    # */*+json bodies as JSON, whatever else mentions json.
    r = client.post("/v1/annotate", content=b'{"text": "a"}', headers={"content-type": ctype})
    assert r.status_code == 422 and r.json()["code"] == "E408"
    assert repr(ctype) in r.json()["detail"] and "application/json" in r.json()["detail"]
    for sent_as_json in ("application/json; charset=utf-8", "application/ld+json"):
        r = client.post("/v1/annotate", content=b'{"text": 5}', headers={"content-type": sent_as_json})
        assert r.json()["code"] == "E406"


def test_a_compressed_body_is_400_naming_its_encoding(client):
    import gzip

    r = client.post("/v1/annotate", content=gzip.compress(b'{"text": "a"}'),
                    headers={"content-type": "application/json", "content-encoding": "gzip"})
    assert r.status_code == 400 and r.json()["code"] == "E429" and "'gzip'" in r.json()["detail"]


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


@pytest.mark.parametrize("method,path,body,status", [
    ("post", "/v1/annotate", {"text": 5}, 422),  # a wrong type
    ("post", "/v1/annotate", None, 422),  # not JSON
    ("put", "/v1/annotate", {"text": "a"}, 405),
    ("get", "/v1/nowhere", None, 404),
])
def test_every_error_has_one_shape_a_string_detail_and_its_code(client, method, path, body,
                                                                status):
    r = getattr(client, method)(path, **({"json": body} if body is not None else {}))
    assert r.status_code == status
    got = r.json()
    assert isinstance(got["detail"], str) and got["detail"].startswith(f"[{got['code']}] ")
    assert set(got) == ({"detail", "code", "fields", "errors"} if status == 422
                        else {"detail", "code"})
