"""The service's routes: the API (``router``) and the pages (``pages``: the page to try it, the
API docs from local files). The shared resources, the Annotator, the work pool and the settings,
come in as FastAPI dependencies (``create_app`` puts them on ``app.state``), so a route names what
it uses, and tests may override them (``app.dependency_overrides``)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Optional, Union

from fastapi import APIRouter, Depends, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag

import logicparse
from logicparse import taxonomy
from logicparse.annotator import check_text, extends_lists
from logicparse.errors import Errors, LogicparseError
from logicparse.mapping import find_keywords
from logicparse.resources import model_name
from logicparse.tokens.document import Document

from .decisions import decided_none
from .errors import BadRequest, Loading, TooLarge
from .pool import WorkPool
from .settings import Settings

EXAMPLE = "But I try very hard not to go that way because it would be too easy for them."
DECIDED_NONE = ("Also list the keywords decided `none` (not a connective here, e.g. `in Paris`): "
                "each Document then has one more field, `decided_none`: [{keyword, key, sentence, "
                "source (rule|classifier), reason}]. Off by default: the answer is the Document "
                "record alone.")


# Answers of up to this many characters of text are written on the event loop (about 0.25 ms
# of JSON); longer ones on a thread, so that a long text's records do not hold the loop.
INLINE_ANSWER_CHARS = 2_000
BODY_TAGS = ("one text", "a list of texts")  # body: {"text": "..."} or {"text": [...]}
ITEM_TAGS = ("string", "{id, text}")  # an item of the list


class AnnotateOne(BaseModel):
    """One text; the answer is one Document."""

    model_config = ConfigDict(extra="forbid", title="One text",
                              json_schema_extra={"examples": [{"text": EXAMPLE}]})

    text: str = Field(description="The text to annotate (may be empty).")
    id: str = Field("", description="Document id to echo back.")
    decided_none: bool = Field(False, strict=True, description=DECIDED_NONE)


class TextItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Document id to echo back.")
    text: str


class AnnotateMany(BaseModel):
    """A list of texts annotated together; the answer is a list of Documents, in order."""

    model_config = ConfigDict(extra="forbid", title="A list of texts", json_schema_extra={
        "examples": [{"text": ["It rains.", {"id": "b", "text": "If it rains, we stay."}]}]})

    text: list[Annotated[Union[Annotated[str, Tag(ITEM_TAGS[0])],
                               Annotated[TextItem, Tag(ITEM_TAGS[1])]],
                         Discriminator(lambda v: ITEM_TAGS[isinstance(v, (dict, TextItem))])]] = Field(
        description="Texts, each a string (id: its position, '0', '1', ...) or {id, text}.")
    decided_none: bool = Field(False, strict=True, description=DECIDED_NONE)


def _shape(body) -> str:
    text = body.get("text") if isinstance(body, dict) else getattr(body, "text", None)
    return BODY_TAGS[isinstance(text, list)]


# The body is read as one model or the other by the type of its "text", so that a 422 lists the
# problems of that one (not of both); the tags, which pydantic puts in an error's location, are
# left out of the answer (app.py), which names the fields as the client sent them.
AnnotateRequest = Annotated[Union[Annotated[AnnotateOne, Tag(BODY_TAGS[0])],
                                  Annotated[AnnotateMany, Tag(BODY_TAGS[1])]], Discriminator(_shape)]


class ErrorBody(BaseModel):
    detail: str = Field(description="What went wrong and how to fix it, with its code in front.")
    code: str = Field(description="The error's code (E4xx), also the first word of detail.")


class FieldError(BaseModel):
    loc: list[Union[str, int]] = Field(description="Where in the body, as the client wrote it.")
    msg: str
    type: str


class ValidationErrorBody(ErrorBody):
    fields: list[FieldError] = Field(description="The first 20 problems, each with its place.")
    errors: int = Field(description="How many problems there are in all.")


class Labels(BaseModel):
    labels: list[str] = Field(description="The 35 label names; index = label id (0 = E).")


class Health(BaseModel):
    status: str


class Ready(BaseModel):
    status: str
    parser: str
    senses: Optional[str]
    threads: int
    capacity: int
    pending: int
    version: str


# -- shared resources, as dependencies ---------------------------------------------------------
# Coroutines, not plain functions: FastAPI runs a plain dependency on its thread pool, and three
# hand-offs to a thread and back cost a one-sentence request more than its JSON does.


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_annotator(request: Request):
    """The Annotator (None while the models load)."""
    return request.app.state.annotator


async def get_pool(request: Request) -> Optional[WorkPool]:
    """The work pool (None once the app has shut down)."""
    return request.app.state.pool


SettingsDep = Annotated[Settings, Depends(get_settings)]
AnnotatorDep = Annotated[object, Depends(get_annotator)]
PoolDep = Annotated[Optional[WorkPool], Depends(get_pool)]


async def texts_within_limit(request: Request, settings: SettingsDep) -> None:
    """Refuses a list of more than ``max_texts`` texts before the body is validated: validating
    (and answering 422 for) hundreds of thousands of items would hold the event loop for
    seconds. A dependency runs after the body is parsed as JSON (Starlette keeps the parsed
    value) and before it is validated."""
    try:
        data = await request.json()
    except Exception:  # noqa: BLE001 - unparseable: the framework answers that itself
        return
    texts = data.get("text") if isinstance(data, dict) else None
    if isinstance(texts, list) and len(texts) > settings.max_texts:
        raise TooLarge(Errors.E403.format(n=len(texts), limit=settings.max_texts))


def _require_ready(annotator, pool, settings: Settings) -> None:
    # Checked after the request's own checks: a bad request is refused as such while loading too.
    if annotator is None or pool is None:
        raise Loading(Errors.E411.format(retry=settings.retry_after),
                      {"Retry-After": settings.retry_after})


# -- the API ----------------------------------------------------------------------------------

router = APIRouter()

ERRORS_DOC = {
    400: {"model": ErrorBody, "description": "Request or body unreadable (HTTP, UTF-8, "
          "JSON), or text not valid Unicode."},
    408: {"model": ErrorBody, "description": "Headers or body not received in time."},
    413: {"model": ErrorBody, "description": "Too much text (bytes, characters, texts, tokens "
          "or keywords for the sense classifiers), or an answer over the response bound."},
    500: {"model": ErrorBody, "description": "Unexpected error (a bug; see the server log)."},
    503: {"model": ErrorBody, "description": "At capacity (too many requests, or too much work "
          "to end this one within the time limit) or still loading.",
          "headers": {"Retry-After": {"description": "Seconds to wait before retrying.",
                                      "schema": {"type": "integer"}}}},
    504: {"model": ErrorBody, "description": "Past the per-request time limit."},
    422: {"model": ValidationErrorBody, "description": "The body is not the request's shape "
          "(malformed JSON, a missing field, a wrong type, an unknown field) or not sent as JSON."},
}


@router.post("/v1/annotate", response_model=Union[Document, list[Document]],
             responses=ERRORS_DOC, tags=["annotate"], dependencies=[Depends(texts_within_limit)])
async def annotate(body: AnnotateRequest, settings: SettingsDep, annotator: AnnotatorDep,
                   pool: PoolDep):
    """Annotate one text (answer: a Document) or a list of texts (answer: a list of
    Documents, in order). Empty text gives an empty Document. A document the annotator
    cannot process comes back with `error` set, as in the batch shards."""
    single = isinstance(body, AnnotateOne)
    if single:
        texts, ids = [body.text], [body.id]
    else:
        texts = [t if isinstance(t, str) else t.text for t in body.text]
        ids = [str(i) if isinstance(t, str) else t.id for i, t in enumerate(body.text)]
    if len(texts) > settings.max_texts:
        raise TooLarge(Errors.E403.format(n=len(texts), limit=settings.max_texts))
    n_chars = sum(len(t) for t in texts)
    if n_chars > settings.max_chars:
        raise TooLarge(Errors.E402.format(n=n_chars, limit=settings.max_chars))
    for field, values in (("text", texts), ("id", ids)):
        for i, value in enumerate(values):
            try:
                check_text(value)
            except LogicparseError as e:
                where = "body." + (field if single else f"text[{i}]" + (
                    "" if field == "text" else ".id"))
                raise BadRequest(Errors.E407.format(where=where, reason=e)) from None

    _require_ready(annotator, pool, settings)
    await _check_work(annotator, texts, n_chars, settings)
    docs = await pool.run(texts, ids)

    def answer() -> bytes:
        records = [d.to_dict() for d in docs]
        if body.decided_none:
            senses = getattr(annotator, "senses", None)
            mapping = getattr(annotator, "mapping", "default")
            for d, record in zip(docs, records):
                record["decided_none"] = [asdict(n) for n in decided_none(d, senses, mapping)]
        return json.dumps(records[0] if single else records, ensure_ascii=False,
                          allow_nan=False, separators=(",", ":")).encode("utf-8")

    # The decisions a client asks for with decided_none run the tree rules again: a thread.
    short = n_chars <= INLINE_ANSWER_CHARS and not body.decided_none
    content = answer() if short else await asyncio.to_thread(answer)
    if len(content) > settings.max_response_bytes:
        raise TooLarge(Errors.E426.format(size=len(content), limit=settings.max_response_bytes))
    # Written here, not by FastAPI from the response model (the Document record, which
    # ``Document.to_dict`` builds): its size has to be known before anything is sent.
    return Response(content, media_type="application/json")


async def _check_work(annotator, texts: list[str], n_chars: int, settings: Settings) -> None:
    """The token bound (E418) and the bound on keywords for the sense classifiers (E425), both
    counted on spaCy's tokens before any parsing, off the loop. Counting costs about 0.2 s per
    100,000 characters, so it is skipped when the characters alone show both bounds are kept:
    a token is at least one character, and a text of n characters holds at most
    (n + 1) // (shortest + 1) occurrences: each as long as the shortest such keyword, and one
    character between two of them (none after a text's last)."""
    classified = sorted(getattr(getattr(annotator, "senses", None), "classified", ()))
    room = min((len(k) for k in classified), default=0) + 1
    over_tokens = n_chars > settings.max_tokens
    over_keywords = bool(classified) and sum(
        (len(t) + 1) // room for t in texts) > settings.max_ambiguous
    if not (over_tokens or over_keywords) or not hasattr(annotator, "segment"):
        return
    extended = extends_lists(getattr(annotator, "senses", None),
                             getattr(annotator, "mapping", "default"))
    n_tokens, n_keywords = await asyncio.to_thread(_count, annotator, texts, set(classified),
                                                   extended)
    if n_tokens > settings.max_tokens:
        raise TooLarge(Errors.E418.format(n=n_tokens, limit=settings.max_tokens))
    if n_keywords > settings.max_ambiguous:
        raise TooLarge(Errors.E425.format(n=n_keywords, keywords=", ".join(classified),
                                          limit=settings.max_ambiguous))


@router.get("/v1/labels", response_model=Labels, tags=["taxonomy"])
async def labels():
    """The 35 labels of the per-token `logic` layers; index = label id."""
    return {"labels": list(logicparse.LABELS)}


@router.get("/v1/taxonomy", tags=["taxonomy"])
async def get_taxonomy() -> dict:
    """The 12 relations with their roles and keywords (and each keyword's mapping
    category), the labels, and the ambiguous keywords."""
    return taxonomy.as_dict()


@router.get("/healthz", response_model=Health, tags=["health"])
async def healthz():
    """The process is alive."""
    return {"status": "ok"}


@router.get("/readyz", response_model=Ready, responses={503: ERRORS_DOC[503]},
            tags=["health"])
async def readyz(settings: SettingsDep, annotator: AnnotatorDep, pool: PoolDep):
    """The models are loaded and requests are served."""
    _require_ready(annotator, pool, settings)
    parser, senses = await asyncio.to_thread(model_names, annotator)
    return {"status": "ready", "parser": parser, "senses": senses, "threads": pool.threads,
            "capacity": pool.capacity, "pending": pool.pending,
            "version": logicparse.__version__}


# -- the pages --------------------------------------------------------------------------------

pages = APIRouter(include_in_schema=False)

STATIC = Path(__file__).resolve().parent / "static"


def load_pages() -> None:
    """Read the page and the API docs' files now (create_app): no request ever opens a file."""
    _page_files(), _swagger_files()


@lru_cache(maxsize=1)
def _page_files() -> dict[str, bytes]:
    return {name: (STATIC / name).read_bytes() for name in ("index.html", "app.js", "style.css")}


@lru_cache(maxsize=1)
def _swagger_files() -> dict[str, bytes]:
    import swagger_ui

    static = Path(swagger_ui.__file__).resolve().parent / "static"
    return {name: (static / name).read_bytes()
            for name in ("swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png")}


@pages.get("/docs")
async def docs(request: Request):
    return get_swagger_ui_html(openapi_url=request.app.openapi_url, title="logicparse API",
                               swagger_js_url="/docs/swagger-ui-bundle.js",
                               swagger_css_url="/docs/swagger-ui.css",
                               swagger_favicon_url="/docs/favicon.png")


@pages.get("/", response_class=HTMLResponse)
async def index():
    return HTMLResponse(_page_files()["index.html"])


def _file_route(files, name: str, media_type: str):
    async def serve():
        return Response(files()[name], media_type=media_type)
    return serve


# path -> (where its bytes are, file name, media type)
_FILES = {
    "/docs/swagger-ui-bundle.js": (_swagger_files, "swagger-ui-bundle.js", "text/javascript"),
    "/docs/swagger-ui.css": (_swagger_files, "swagger-ui.css", "text/css"),
    "/docs/favicon.png": (_swagger_files, "favicon-32x32.png", "image/png"),
    "/static/app.js": (_page_files, "app.js", "text/javascript"),
    "/static/style.css": (_page_files, "style.css", "text/css"),
}
for _path, (_files, _name, _media) in _FILES.items():
    pages.add_api_route(_path, _file_route(_files, _name, _media), methods=["GET"])


def _count(annotator, texts: list[str], classified: set, extended: bool) -> tuple[int, int]:
    """(tokens, occurrences of the ``classified`` keywords) in ``texts``, found as the
    annotator finds them (``extended``: see ``annotator.extends_lists``)."""
    tokens = keywords = 0
    for text in texts:
        for toks, _, _ in annotator.segment(text):
            tokens += len(toks)
            if classified:
                keywords += sum(m.keyword.text in classified
                                for m in find_keywords(toks, extended))
    return tokens, keywords


def parser_name(annotator) -> str:
    """The parser's name as shard manifests give it (with "(int8)" for an int8 network)."""
    return model_name(getattr(annotator, "parser", None)) or "None"


def model_names(annotator) -> tuple[str, Optional[str]]:
    """The parser's and the sense models' names as shard manifests give them (with "(int8)" for an
    int8 network)."""
    return parser_name(annotator), model_name(getattr(annotator, "senses", None))
