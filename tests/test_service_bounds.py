"""Bounds on the work of one request and on its answer: sense decisions in chunks that a
deadline can stop, the keyword budget (413 E425), the label cap per token, the answer size
(413 E426); and the smaller points of HTTP: HEAD, relative redirects, 422 in the client's terms.

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
from logicparse.service.limits import WorkPool

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
    assert [d["loc"] for d in r.json()["detail"]] == [loc]
    for internal in ("AnnotateOne", "AnnotateMany", "TextItem", "one text", "list of texts"):
        assert internal not in json.dumps(r.json())
