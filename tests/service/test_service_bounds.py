"""Bounds on the work of one request and on its answer: sense decisions in chunks that a
deadline can stop, the keyword budget (413 E425), the label cap per token, the answer size
(413 E426); and the smaller points of HTTP: HEAD, relative redirects, 422 in the client's terms.
The body guard's bounds (413, 400, 408, 503 at their exact edges) are driven as raw ASGI.

The real bundled parser runs; the sense model is a stand-in that records what it is asked, so
that what runs (and what does not) is certain, not a matter of timing.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
from fastapi.testclient import TestClient

import logicparse
from logicparse.annotator import DECIDE_CHUNK
from logicparse.mapping import MAX_TOKEN_LABELS, layer_labels
from logicparse.senses import SenseDecision
from logicparse.service import Settings, create_app
from logicparse.errors import Errors
from logicparse.service.limits import BodyGuard
from logicparse.service.pool import WorkPool

SINCE = "We stay since it rains. "


class Senses:
    """A sense model with classifiers for since/as/while: records the size of each call; the
    call named ``hold_at`` waits at ``gate`` once it has said so (``held``)."""

    name = "recording"
    classified = frozenset({"since", "as", "while"})

    def __init__(self, hold_at=None):
        self.calls: list[int] = []
        self.hold_at = hold_at
        self.held, self.gate = threading.Event(), threading.Event()

    def disambiguate(self, queries):
        self.calls.append(len(queries))
        if len(self.calls) == self.hold_at:
            self.held.set()
            assert self.gate.wait(60)
        return [SenseDecision(q.candidates[0], 0.9, "classifier") for q in queries]


@pytest.fixture(scope="module")
def parser(lexicon_annotator):
    return lexicon_annotator.parser


def annotator(parser, senses):
    return logicparse.Annotator(parser=parser, senses=senses)


# --- decisions in chunks ------------------------------------------------------------------------

def test_decisions_run_in_chunks_and_stop_between_them(parser):
    """100 keywords to decide: asked 32 at a time, and work closed after the first chunk (a
    deadline, in the service) decides no more of them."""
    senses = Senses()
    steps = annotator(parser, senses).pipe_steps([SINCE * 100], ["d"])
    while not senses.calls:
        next(steps)
    steps.close()
    assert senses.calls == [DECIDE_CHUNK]
    # Run to the end, the chunks decide every keyword once, and the Document is the same.
    senses = Senses()
    doc = annotator(parser, senses).annotate(SINCE * 100)
    assert senses.calls == [32, 32, 32, 4] and len(doc.relations) == 100


def test_a_small_request_is_decided_between_the_chunks_of_a_long_one(parser):
    senses = Senses(hold_at=1)  # the long request's first chunk waits until the small is queued
    ann = annotator(parser, senses)

    async def scenario():
        pool = WorkPool(ann.pipe_steps, threads=1, queue=4, timeout=120)
        long = asyncio.ensure_future(pool.run([SINCE * 100], ["long"]))
        assert await asyncio.to_thread(senses.held.wait, 60)
        small = asyncio.ensure_future(pool.run(["We left since it was late."], ["small"]))
        deadline = time.monotonic() + 30
        while pool.pending < 2:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.01)
        senses.gate.set()
        out = await asyncio.gather(long, small)
        pool.shutdown()
        return out

    long, small = asyncio.run(scenario())
    assert len(long[0].relations) == 100 and len(small[0].relations) == 1
    # The small request's one keyword was decided right after the long one's first chunk.
    assert senses.calls == [32, 1, 32, 32, 4]


# --- the keyword budget -----------------------------------------------------------------------

def test_a_request_over_the_keyword_budget_is_413_before_any_work(parser):
    senses = Senses()
    app = create_app(Settings(senses=None, max_ambiguous=5), annotator=annotator(parser, senses))
    with TestClient(app) as c:
        r = c.post("/v1/annotate", json={"text": SINCE * 6})
        assert r.status_code == 413 and r.json()["code"] == "E425"
        assert "6 occurrences" in r.json()["detail"] and "as, since, while" in r.json()["detail"]
        assert senses.calls == []  # nothing was decided (nor parsed)
        # Summed over the texts of a list; "as well as" is a keyword of its own, not counted.
        r = c.post("/v1/annotate", json={"text": [SINCE * 3, SINCE * 3]})
        assert r.status_code == 413 and r.json()["code"] == "E425"
        r = c.post("/v1/annotate", json={"text": SINCE * 5 + "We sing as well as dance. " * 3})
        assert r.status_code == 200 and len(r.json()["relations"]) == 8


def test_the_keyword_budget_counts_occurrences_however_little_text_holds_them(parser):
    """256 texts of "as as as as": 1,024 occurrences in 2,816 characters, under the 3 characters
    an occurrence takes with its separator, since a text's last one needs none."""
    senses = Senses()
    app = create_app(Settings(senses=None), annotator=annotator(parser, senses))
    with TestClient(app) as c:
        r = c.post("/v1/annotate", json={"text": ["as as as as"] * 256})
    assert r.status_code == 413 and r.json() == {"code": "E425", "detail": Errors.E425.format(
        n=1024, keywords="as, since, while", limit=1000)}
    assert senses.calls == []


def test_no_budget_applies_without_classifiers(lexicon_annotator):
    app = create_app(Settings(senses=None, max_ambiguous=5), annotator=lexicon_annotator)
    with TestClient(app) as c:
        r = c.post("/v1/annotate", json={"text": SINCE * 6})
    assert r.status_code == 200 and len(r.json()["relations"]) == 6


# --- labels per token and the answer's size ---------------------------------------------------

def test_a_token_lists_at_most_the_16_shallowest_labels(lexicon_annotator):
    text = "if " * 40 + "."
    doc = lexicon_annotator.annotate(text)
    every = layer_labels(len(doc.tokens), doc.relations, max_labels=10 ** 6)
    assert max(len(labels) for labels in every) > MAX_TOKEN_LABELS == 16
    assert doc.logic == [labels[:16] for labels in every]
    # The same Document over REST.
    with TestClient(create_app(Settings(senses=None), annotator=lexicon_annotator)) as c:
        r = c.post("/v1/annotate", json={"text": text})
    assert r.status_code == 200 and r.json()["logic"] == doc.logic


def test_an_answer_over_the_response_bound_is_413(lexicon_annotator):
    app = create_app(Settings(senses=None, max_response_bytes=4000), annotator=lexicon_annotator)
    with TestClient(app) as c:
        small = c.post("/v1/annotate", json={"text": "It rains."})
        r = c.post("/v1/annotate", json={"text": "if " * 30 + "."})
    assert small.status_code == 200 and len(small.content) <= 4000
    assert r.status_code == 413 and r.json()["code"] == "E426"
    assert "4,000" in r.json()["detail"] and len(r.content) < 1000


# --- HEAD, redirects, 422 -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def client(lexicon_annotator):
    with TestClient(create_app(Settings(senses=None), annotator=lexicon_annotator)) as c:
        yield c


@pytest.mark.parametrize("path", ["/", "/healthz", "/readyz", "/v1/labels"])
def test_head_answers_as_get_without_a_body(client, path):
    get, head = client.get(path), client.head(path)
    assert head.status_code == get.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == get.headers["content-type"]


def test_head_on_a_post_route_is_405_with_allow(client):
    r = client.head("/v1/annotate")
    assert r.status_code == 405 and r.headers["allow"] == "POST"


def test_a_trailing_slash_redirects_relatively_whatever_the_host(client):
    r = client.get("/v1/labels/?x=1", headers={"Host": "evil.example"}, follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/v1/labels?x=1"
    r = client.get("/nothing/", headers={"Host": "evil.example"}, follow_redirects=False)
    assert r.status_code == 404 and r.json()["code"] == "E413"


@pytest.mark.parametrize("body, loc", [
    ({"text": 5}, ["body", "text"]),
    ({"text": [5]}, ["body", "text", 0]),
    ({"text": ["a", {"id": 1, "text": "b"}]}, ["body", "text", 1, "id"]),
    ({"text": "a", "colour": "red"}, ["body", "colour"]),
    ({"text": "a", "decided_none": 1}, ["body", "decided_none"]),  # a boolean, as documented
])
def test_422_names_the_fields_as_sent_not_the_models(client, body, loc):
    r = client.post("/v1/annotate", json=body)
    assert r.status_code == 422 and r.json()["code"] == "E406"
    assert [d["loc"] for d in r.json()["fields"]] == [loc]
    for internal in ("AnnotateOne", "AnnotateMany", "TextItem", "one text", "list of texts"):
        assert internal not in json.dumps(r.json())


# --- the body guard, driven as raw ASGI ---------------------------------------------------------

END = {"type": "http.disconnect"}  # what the client sends after its body, for the app to read


class Recorder:
    """The app behind the guard: reads two messages, records them with the scope and the number
    of bodies in progress, then answers 200 (or fails)."""

    def __init__(self, fail=False):
        self.calls, self.fail, self.guard = [], fail, None

    async def __call__(self, scope, receive, send):
        self.calls.append((scope, [await receive(), await receive()], self.guard.in_progress))
        if self.fail:
            raise RuntimeError("the app failed")
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def body_guard(fail=False, **settings):
    app = Recorder(fail)
    app.guard = BodyGuard(app, **{"limit": 10, "max_chars": 3, **settings})
    return app.guard, app


def chunk(data=None, more=None):
    """An http.request message; a key left out is left out (ASGI gives defaults for both)."""
    m = {"type": "http.request"}
    if data is not None:
        m["body"] = data
    if more is not None:
        m["more_body"] = more
    return m


def request(guard, *messages, headers=(), method="POST", scope=None, stall=False):
    """Sends one request through ``guard``: the client sends ``messages`` and then, if
    ``stall``, nothing more. Returns the scope, the answer (status, headers, JSON body; status
    None if nothing was sent) and how many messages were never read."""
    script, sent = list(messages), []
    scope = scope or {"type": "http", "method": method, "path": "/v1/annotate",
                      "headers": [(k.encode(), v.encode()) for k, v in headers]}

    async def receive():
        if script:
            return script.pop(0)
        assert stall, "read past what the client sent"
        await asyncio.Event().wait()

    async def send(message):
        sent.append(message)

    # The bound is never reached by a guard that keeps its read timeout: one that waits without
    # end fails here instead of hanging the run.
    asyncio.run(asyncio.wait_for(guard(scope, receive, send), 5))
    if not sent:
        return scope, (None, {}, None), len(script)
    body = sent[1]["body"]
    hdrs = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    answer = (sent[0]["status"], hdrs, body if body == b"ok" else json.loads(body))
    return scope, answer, len(script)


def refused(status, message):
    """The status and JSON body of a refusal: the code is the message's own."""
    return status, {"code": message[1:5], "detail": message}


@pytest.mark.parametrize("headers", [[("content-length", "10")], []])
def test_a_body_of_exactly_the_limit_reaches_the_app_once_whole(headers):
    guard, app = body_guard()
    assert guard.in_progress == 0
    scope, (status, _, body), unread = request(
        guard, chunk(b"12345", True), chunk(more=True), chunk(b"67890"), END, headers=headers)
    assert (status, body, unread, guard.in_progress) == (200, b"ok", 0, 0)
    # Replayed as one message; the app's next read is the client's own (here, it went away).
    assert app.calls == [(scope, [chunk(b"1234567890", False), END], 1)]


def test_an_empty_body_with_content_length_0_reaches_the_app():
    guard, app = body_guard()
    scope, (status, _, _), _ = request(guard, chunk(), END, headers=[("content-length", "0")])
    assert status == 200 and app.calls == [(scope, [chunk(b"", False), END], 1)]


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH"])
def test_content_length_one_over_the_limit_is_413_before_a_byte_is_read(method):
    guard, app = body_guard()
    _, (status, headers, body), unread = request(
        guard, chunk(b"12345678901"), END, headers=[("content-length", "11")], method=method)
    assert (status, body) == refused(413, Errors.E401.format(size=11, limit=10, max_chars=3))
    assert "body is 11 bytes; this service accepts at most 10 bytes" in body["detail"]
    assert headers["connection"] == "close" and unread == 2 and not app.calls
    assert guard.in_progress == 0


@pytest.mark.parametrize("headers", [[], [("content-length", "5")]])
def test_a_stream_is_counted_and_refused_at_the_first_chunk_over_the_limit(headers):
    """Without Content-Length (chunked), or with one that understates the body: no chunk is
    over the limit, their sum is, and reading stops there."""
    guard, app = body_guard()
    _, (status, _, body), unread = request(
        guard, chunk(b"123456", True), chunk(b"78901", True), chunk(b"2"), END, headers=headers)
    assert (status, body) == refused(413, Errors.E401.format(size="at least 11", limit=10,
                                                             max_chars=3))
    assert unread == 2 and not app.calls and guard.in_progress == 0


@pytest.mark.parametrize("value", ["-1", "ten", "1.5", ""])
def test_a_content_length_not_a_non_negative_integer_is_400_naming_it(value):
    guard, app = body_guard()
    _, (status, _, body), unread = request(guard, chunk(b"{}"), END,
                                           headers=[("content-length", value)])
    assert (status, body) == refused(400, f"[E405] Invalid Content-Length header {value!r}: it "
                                          "must be a non-negative integer.")
    assert unread == 2 and not app.calls and guard.in_progress == 0


def test_a_body_not_utf8_is_400_with_the_byte_and_the_reason():
    guard, app = body_guard()
    _, (status, _, body), _ = request(guard, chunk(b'{"a": "\xff"}'), END)
    assert (status, body) == refused(400, Errors.E404.format(pos=7, reason="invalid start byte"))
    assert not app.calls and guard.in_progress == 0


def test_a_stalled_body_is_408_naming_the_read_timeout():
    guard, app = body_guard(read_timeout=0.05)
    _, (status, _, body), _ = request(guard, chunk(b"1234", True), stall=True)
    assert (status, body) == refused(408, Errors.E416.format(part="body", timeout=0.05))
    assert "body did not arrive within 0.05 s" in body["detail"]
    assert not app.calls and guard.in_progress == 0


@pytest.mark.parametrize("messages", [[END], [chunk(b"1234", True), END]])
def test_a_client_that_goes_away_gets_no_answer_and_the_app_is_not_called(messages):
    guard, app = body_guard()
    assert request(guard, *messages)[1:] == ((None, {}, None), 0)
    assert not app.calls and guard.in_progress == 0


def test_the_count_of_bodies_comes_back_when_the_app_fails():
    guard, app = body_guard(fail=True)
    with pytest.raises(RuntimeError, match="the app failed"):
        request(guard, chunk(b"{}"), END)
    assert app.calls[0][2] == 1 and guard.in_progress == 0


def test_503_comes_exactly_at_max_bodies_and_spares_requests_without_a_body():
    guard, app = body_guard(max_bodies=3, retry_after=7)
    guard.in_progress = 2  # one slot left: taken while the app runs, given back after
    assert request(guard, chunk(b"{}"), END)[1][0] == 200
    assert app.calls[-1][2] == 3 and guard.in_progress == 2
    guard.in_progress = 3
    _, (status, headers, body), unread = request(guard, chunk(b"{}"), END)
    assert (status, body) == refused(503, Errors.E417.format(n=3, retry=7))
    assert "receiving 3 request bodies already (its limit). Retry after 7 s" in body["detail"]
    assert headers["retry-after"] == "7" and unread == 2 and guard.in_progress == 3
    # Passed through untouched, full or not: no body read, none replayed, no bound applied.
    for scope in ({"type": "http", "method": "GET", "path": "/healthz",
                   "headers": [(b"content-length", b"99")]},
                  {"type": "websocket", "path": "/", "headers": []}, {"type": "lifespan"}):
        first = chunk(b"x" * 20, True)
        assert request(guard, first, END, scope=scope)[1:] == ((200, {}, b"ok"), 0)
        assert app.calls[-1] == (scope, [first, END], 3)
