"""The logicparse REST service: FastAPI app factory.

``create_app()`` reads :class:`~logicparse.service.settings.Settings` from ``LOGICPARSE_*`` variables; uvicorn
calls it in each worker (``uvicorn --factory logicparse.service.app:create_app``, or ``logicparse serve``).
Models load once per process at startup; annotation runs on a bounded, batching thread pool
(service/limits.py). Responses are ``Document.to_dict()`` records, validated against a model
derived from the Document dataclass itself, so the REST body, the Arrow row and the Python object
share one definition.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Optional, Union

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

import logicparse
from logicparse import taxonomy
from logicparse.annotator import check_text
from logicparse.errors import Errors, LogicparseError
from logicparse.tokens.document import Document

from .errors import BadRequest, Loading, MethodNotAllowed, NotFound, TooLarge, error_body
from .limits import BodyGuard, WorkPool
from .settings import Settings

logger = logging.getLogger("logicparse.service")

EXAMPLE = "But I try very hard not to go that way because it would be too easy for them."


class AnnotateOne(BaseModel):
    """One text; the answer is one Document."""

    model_config = ConfigDict(extra="forbid", title="One text",
                              json_schema_extra={"examples": [{"text": EXAMPLE}]})

    text: str = Field(description="The text to annotate (may be empty).")
    id: str = Field("", description="Document id to echo back.")


class TextItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Document id to echo back.")
    text: str


class AnnotateMany(BaseModel):
    """A list of texts annotated together; the answer is a list of Documents, in order."""

    model_config = ConfigDict(extra="forbid", title="A list of texts", json_schema_extra={
        "examples": [{"text": ["It rains.", {"id": "b", "text": "If it rains, we stay."}]}]})

    text: list[Union[str, TextItem]] = Field(
        description="Texts, each a string (id: its position, '0', '1', ...) or {id, text}.")


AnnotateRequest = Union[AnnotateOne, AnnotateMany]


class ErrorBody(BaseModel):
    detail: str
    code: str


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


def _error_response(exc: BaseException) -> Response:
    status, body, headers = error_body(exc)
    return Response(body, status_code=status, headers=headers, media_type="application/json")


STATIC = Path(__file__).resolve().parent / "static"


def _static(name: str) -> bytes:
    # Read once when the app is built: no request ever opens a file.
    return (STATIC / name).read_bytes()


def _swagger_files() -> dict[str, bytes]:
    import swagger_ui

    static = Path(swagger_ui.__file__).resolve().parent / "static"
    return {name: (static / name).read_bytes()
            for name in ("swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png")}


def _load_annotator(settings: Settings):
    import torch

    # Process-wide: several intra-op threads spin against each other (and against the other
    # workers) on a busy CPU; one sentence is too little work to split.
    torch.set_num_threads(settings.torch_threads)
    annotator = logicparse.Annotator(parser=settings.parser, senses=settings.senses,
                                     device=settings.device, mapping=settings.mapping)
    # One warm-up call so that the first client does not pay for lazy initialisation.
    annotator.annotate(EXAMPLE)
    return annotator


def create_app(settings: Optional[Settings] = None, annotator=None) -> FastAPI:
    """The app. ``annotator`` (anything with ``annotate`` and ``pipe``) replaces the one built from
    ``settings``, for embedding the service in another process or testing it."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if app.state.pool is None:  # shut down by a previous run of this app
            app.state.pool = new_pool()
        if app.state.annotator is None:
            # Off the loop, though nothing is served yet: uvicorn binds the port after startup.
            try:
                app.state.annotator = await asyncio.to_thread(_load_annotator, settings)
            except Exception as e:
                # The operator's to fix: uvicorn reports this message, not a traceback.
                app.state.startup_error = Errors.E412.format(type=type(e).__name__, reason=e)
                logger.debug("model loading failed", exc_info=True)
                raise
        logger.info("logicparse service ready (parser=%s, senses=%s)",
                    _parser_name(app.state.annotator), settings.senses)
        try:
            yield
        finally:
            app.state.pool.shutdown()
            app.state.pool = None

    app = FastAPI(
        title="logicparse",
        version=logicparse.__version__,
        summary="Logical structure of English text (Logical Transformers, Wang et al. 2023).",
        description="Keywords of 12 logical relations, their alpha/beta spans, and per-token "
        "layered logic labels. `POST /v1/annotate` returns the Document record of the batch "
        "shards. A page to try it is at `/`.",
        lifespan=lifespan,
        docs_url=None,  # served below from local files: FastAPI's default loads them from a CDN
        redoc_url=None,
    )
    app.state.annotator = annotator

    def work(texts: list[str], ids: list[str]):
        annotator = app.state.annotator
        if hasattr(annotator, "pipe_steps"):  # stepped: interleaved with other work, stoppable
            return annotator.pipe_steps(texts, ids)
        return list(annotator.pipe(texts, batch_size=max(1, len(texts)), ids=ids))

    def new_pool() -> WorkPool:
        return WorkPool(work, threads=settings.threads, queue=settings.queue,
                        timeout=settings.timeout, batch_size=settings.batch_size,
                        retry_after=settings.retry_after)

    # Threads start on the first request, so an app that never serves costs nothing.
    app.state.pool = new_pool()
    app.state.settings = settings
    app.add_middleware(BodyGuard, limit=settings.body_limit, max_chars=settings.max_chars,
                       read_timeout=settings.read_timeout, max_bodies=settings.max_connections,
                       retry_after=settings.retry_after)
    app.state.startup_error = None
    app.add_middleware(_StartupReport, state=app.state)

    page = {name: _static(name) for name in ("index.html", "app.js", "style.css")}
    swagger = _swagger_files()

    @app.exception_handler(LogicparseError)
    async def _ours(request: Request, exc: LogicparseError):
        return _error_response(exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        # The framework's own refusals (no route, wrong method, unreadable body) in our shape.
        path = request.url.path
        if exc.status_code == 404:
            return _error_response(NotFound(Errors.E413.format(path=path)))
        if exc.status_code == 405:
            allowed = (exc.headers or {}).get("Allow", "")
            return _error_response(MethodNotAllowed(
                Errors.E414.format(method=request.method, path=path, allowed=allowed or "?"),
                {"Allow": allowed} if allowed else None))
        if exc.status_code == 400:
            cause = exc.__cause__
            reason = f"{type(cause).__name__}: {cause}" if cause else exc.detail
            return _error_response(BadRequest(Errors.E415.format(reason=reason)))
        body = {"detail": Errors.E421.format(status=exc.status_code, reason=exc.detail),
                "code": "E421"}
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception):
        logger.exception("unexpected error on %s %s", request.method, request.url.path)
        return _error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        # The input is left out of the answer: it can be large, or not encodable as JSON.
        errors = [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]} for e in exc.errors()]
        fields = "; ".join(_where(e) + f": {e['msg']}" for e in errors)
        code, message = "E406", Errors.E406.format(fields=fields)
        ctype = request.headers.get("content-type", "")
        if "json" not in ctype.lower():
            # FastAPI only parses JSON sent as JSON; say so rather than "not a dictionary".
            code, message = "E408", Errors.E408.format(ctype=ctype or "no Content-Type")
        return JSONResponse(jsonable_encoder({"detail": errors, "code": code, "message": message}),
                            status_code=422)

    errors_doc = {
        400: {"model": ErrorBody, "description": "Request or body unreadable (HTTP, UTF-8, "
              "JSON), or text not valid Unicode."},
        408: {"model": ErrorBody, "description": "Headers or body not received in time."},
        413: {"model": ErrorBody, "description": "Too much text (bytes, characters, texts or "
              "tokens)."},
        500: {"model": ErrorBody, "description": "Unexpected error (a bug; see the server log)."},
        503: {"model": ErrorBody, "description": "At capacity or still loading.",
              "headers": {"Retry-After": {"description": "Seconds to wait before retrying.",
                                          "schema": {"type": "integer"}}}},
        504: {"model": ErrorBody, "description": "Past the per-request time limit."},
    }

    @app.post("/v1/annotate", response_model=Union[Document, list[Document]],
              responses=errors_doc, tags=["annotate"])
    async def annotate(body: AnnotateRequest):
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

        state = app.state
        if state.annotator is None or state.pool is None:
            raise Loading(Errors.E411.format(retry=settings.retry_after),
                          {"Retry-After": settings.retry_after})
        # A token is at least one character: only a text longer than the bound needs counting.
        if n_chars > settings.max_tokens and hasattr(state.annotator, "segment"):
            n_tokens = await asyncio.to_thread(_count_tokens, state.annotator, texts)
            if n_tokens > settings.max_tokens:
                raise TooLarge(Errors.E418.format(n=n_tokens, limit=settings.max_tokens))
        docs = await state.pool.run(texts, ids)
        records = [d.to_dict() for d in docs]
        return records[0] if single else records

    @app.get("/v1/labels", response_model=Labels, tags=["taxonomy"])
    async def labels():
        """The 35 labels of the per-token `logic` layers; index = label id."""
        return {"labels": list(logicparse.LABELS)}

    @app.get("/v1/taxonomy", tags=["taxonomy"])
    async def get_taxonomy() -> dict:
        """The 12 relations with their roles and keywords (and each keyword's mapping
        category), the labels, and the ambiguous keywords."""
        return taxonomy.as_dict()

    @app.get("/healthz", response_model=Health, tags=["health"])
    async def healthz():
        """The process is alive."""
        return {"status": "ok"}

    @app.get("/readyz", response_model=Ready, responses={503: errors_doc[503]},
             tags=["health"])
    async def readyz():
        """The models are loaded and requests are served."""
        state = app.state
        if state.annotator is None or state.pool is None:
            raise Loading(Errors.E411.format(retry=settings.retry_after),
                          {"Retry-After": settings.retry_after})
        return {"status": "ready", "parser": _parser_name(state.annotator),
                "senses": _senses_name(state.annotator), "threads": state.pool.threads,
                "capacity": state.pool.capacity, "pending": state.pool.pending,
                "version": logicparse.__version__}

    @app.get("/docs", include_in_schema=False)
    async def docs():
        return get_swagger_ui_html(openapi_url=app.openapi_url, title="logicparse API",
                                   swagger_js_url="/docs/swagger-ui-bundle.js",
                                   swagger_css_url="/docs/swagger-ui.css",
                                   swagger_favicon_url="/docs/favicon.png")

    @app.get("/docs/swagger-ui-bundle.js", include_in_schema=False)
    async def docs_js():
        return Response(swagger["swagger-ui-bundle.js"], media_type="text/javascript")

    @app.get("/docs/swagger-ui.css", include_in_schema=False)
    async def docs_css():
        return Response(swagger["swagger-ui.css"], media_type="text/css")

    @app.get("/docs/favicon.png", include_in_schema=False)
    async def docs_icon():
        return Response(swagger["favicon-32x32.png"], media_type="image/png")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index():
        return HTMLResponse(page["index.html"])

    @app.get("/static/app.js", include_in_schema=False)
    async def app_js():
        return Response(page["app.js"], media_type="text/javascript")

    @app.get("/static/style.css", include_in_schema=False)
    async def style_css():
        return Response(page["style.css"], media_type="text/css")

    return app


class _StartupReport:
    """ASGI middleware: a failed startup is reported to the server by its coded message (E412)
    instead of the framework's traceback."""

    def __init__(self, app, state):
        self.app, self.state = app, state

    async def __call__(self, scope, receive, send):
        if scope["type"] != "lifespan":
            return await self.app(scope, receive, send)

        async def report(message):
            if message["type"] == "lifespan.startup.failed" and self.state.startup_error:
                message = {**message, "message": self.state.startup_error}
            await send(message)

        return await self.app(scope, receive, report)


def _count_tokens(annotator, texts: list[str]) -> int:
    return sum(len(toks) for text in texts for toks, _, _ in annotator.segment(text))


def _where(error: dict) -> str:
    loc = error["loc"]
    if error["type"] == "json_invalid" and len(loc) == 2:
        return f"body at character {loc[1]}"
    return ".".join(str(p) for p in loc)


def _parser_name(annotator) -> str:
    parser = getattr(annotator, "parser", None)
    return str(getattr(parser, "name", type(parser).__name__))


def _senses_name(annotator) -> Optional[str]:
    senses = getattr(annotator, "senses", None)
    return None if senses is None else str(getattr(senses, "name", type(senses).__name__))
