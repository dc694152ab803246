"""The REST service: the same records as the batch path, bad input, the other endpoints, the
OpenAPI contract (schemathesis), every refusal in one shape, keywords decided none.

The app runs the real bundled parser (lexicon senses, no encoder) through FastAPI's TestClient.
The work pool is tested in test_service_pool.py, `logicparse serve` as a process in
test_service_served.py, the bounds on work and answers in test_service_bounds.py.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings

import logicparse
from logicparse.tokens.document import ARROW_SCHEMA, Document
from logicparse.service import Settings, create_app
from logicparse.service.decisions import decided_none

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
    # The bundled parser's network runs in int8 on a CPU, as shard manifests also say.
    assert ready.json()["parser"] == "logicparse-minilm-v4 (int8)"
    assert client.get("/docs").status_code == 200
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    # The table's columns are explained under it: each category, and what a sense source means.
    columns = page.text.split('id="columns"')[1].split("</p>")[0]
    for word in ("category", "unary", "intrinsic", "extrinsic", "sense", "rule", "classifier",
                 "lexicon"):
        assert f"<i>{word}</i>" in columns or f"<b>{word}</b>" in columns, word
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
                se.Loading: 503, se.ShuttingDown: 503, se.TimedOut: 504, se.Internal: 500}
    assert se.STATUS == expected
    status, body, headers = se.error_body(se.Busy("[E409] full", {"Retry-After": 2}))
    assert status == 503 and json.loads(body) == {"detail": "[E409] full", "code": "E409"}
    assert headers == {"Retry-After": "2"}
    assert se.error_body(KeyError("x"))[0] == 500

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
    # The verb `like` and the `in` of a place: decided none by a tree rule, which is named with
    # the case it matched, in the rules' own words.
    assert asked["decided_none"] == [
        {"keyword": "like", "key": [[1, 2]], "sentence": 0, "source": "rule",
         "reason": "tree rule _like: verb, adjective (native-like), filler, quotative"},
        {"keyword": "in", "key": [[3, 4]], "sentence": 0, "source": "rule",
         "reason": 'tree rule _in: not a time: a place, a thing, a state ("in Paris", "in the '
                   'box", "in love")'}]
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


def test_a_websocket_is_refused_in_our_shape_under_a_server_that_upgrades(client):
    """`logicparse serve` refuses upgrades in its protocol; a server that upgrades by itself hands
    the app a WebSocket, which it refuses with {detail, code} too."""
    from starlette.testclient import WebSocketDenialResponse

    with pytest.raises(WebSocketDenialResponse) as e:
        with client.websocket_connect("/"):
            pass
    assert e.value.status_code == 400 and e.value.json()["code"] == "E424"
    assert set(e.value.json()) == {"detail", "code"}


def test_the_service_warms_the_sense_encoder_before_it_takes_requests(monkeypatch):
    import logicparse
    from logicparse.service import app as app_module

    calls = []

    class Loaded:
        def __init__(self, **kwargs):
            self.senses = type("Senses", (), {"warm_up": lambda self: calls.append("warm_up")})()

        def annotate(self, text):
            calls.append("annotate")

    monkeypatch.setattr(logicparse, "Annotator", Loaded)
    monkeypatch.setattr("torch.set_num_threads", lambda n: None)  # process-wide: not in a test
    monkeypatch.setattr("logicparse.onnx_export._session_threads", None)  # restored after
    app_module._load_annotator(Settings(senses=None))
    assert calls == ["annotate", "warm_up"]
