"""The logicparse REST service: FastAPI app factory.

``create_app()`` reads :class:`~logicparse.service.settings.Settings` from ``LOGICPARSE_*`` variables; uvicorn
calls it in each worker (``uvicorn --factory logicparse.service.app:create_app``, or ``logicparse serve``).
Models load once per process at startup; annotation runs on a bounded, batching thread pool
(service/pool.py), behind a request-body guard (service/limits.py). The routes are in
service/routes.py, with the Annotator, the pool and the settings as FastAPI dependencies.
Responses are ``Document.to_dict()`` records, validated against a model derived from the
Document dataclass itself, so the REST body, the Arrow row and the Python object share one
definition.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import asynccontextmanager
from typing import Optional

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

import logicparse
from logicparse.errors import Errors, LogicparseError

from .errors import BadRequest, MethodNotAllowed, NotFound, error_body
from .limits import BodyGuard
from .pool import WorkPool
from .routes import BODY_TAGS, EXAMPLE, ITEM_TAGS, load_pages, model_names, pages, router
from .settings import Settings

logger = logging.getLogger("logicparse.service")
MAX_ERRORS = 20  # validation errors listed in a 422 answer (their total is given too)


def _error_response(exc: BaseException) -> Response:
    status, body, headers = error_body(exc)
    return Response(body, status_code=status, headers=headers, media_type="application/json")


def _load_annotator(settings: Settings):
    import torch

    from ..onnx_export import divide_cpus

    # Process-wide: several intra-op threads spin against each other (and against the other
    # workers) on a busy CPU; one sentence is too little work to split.
    torch.set_num_threads(settings.torch_threads)
    # Each annotation thread's ONNX Runtime calls get their share of the CPUs: the threads'
    # calls run side by side instead of one call waking threads on every core.
    divide_cpus(settings.annotation_threads * settings.workers)
    annotator = logicparse.Annotator(parser=settings.parser, senses=settings.senses,
                                     device=settings.device, mapping=settings.mapping)
    # Warm-up calls so that the first client does not pay for lazy initialisation (the sense
    # encoder's blocks open at the first pass that reaches them, which EXAMPLE may not make).
    annotator.annotate(EXAMPLE)
    warm_up = getattr(getattr(annotator, "senses", None), "warm_up", None)
    if warm_up is not None:
        warm_up()
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
        # Naming an encoder not yet run chooses its runtime (an export, at most): off the loop.
        names = await asyncio.to_thread(model_names, app.state.annotator)
        logger.info("logicparse service ready (parser=%s, senses=%s)", *names)
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
        # Starlette's redirect builds an absolute Location from the Host header, which the
        # client chooses: _slash_redirect answers with a relative one instead.
        redirect_slashes=False,
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
        # An annotator given here was loaded by its owner, its networks' threads not divided:
        # one thread unless the settings say otherwise.
        threads = settings.threads or (1 if annotator is not None else settings.annotation_threads)
        return WorkPool(work, threads=threads, queue=settings.queue,
                        timeout=settings.timeout, batch_size=settings.batch_size,
                        retry_after=settings.retry_after, gather_s=settings.gather_ms / 1000)

    # Threads start on the first request, so an app that never serves costs nothing.
    app.state.pool = new_pool()
    app.state.settings = settings
    app.add_middleware(BodyGuard, limit=settings.body_limit, max_chars=settings.max_chars,
                       read_timeout=settings.read_timeout, max_bodies=settings.max_connections,
                       retry_after=settings.retry_after)
    app.state.startup_error = None
    app.add_middleware(_StartupReport, state=app.state)
    app.add_middleware(_HeadAsGet)

    load_pages()
    _error_handlers(app)

    app.include_router(router)
    app.include_router(pages)
    return app


def _error_handlers(app: FastAPI) -> None:
    """Every refusal in the service's one error shape, whoever raises it."""
    @app.exception_handler(LogicparseError)
    async def _ours(request: Request, exc: LogicparseError):
        return _error_response(exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        # The framework's own refusals (no route, wrong method, unreadable body) in our shape.
        path = request.url.path
        if exc.status_code == 404:
            return _slash_redirect(request) or _error_response(NotFound(Errors.E413.format(path=path)))
        if exc.status_code == 405:
            allowed = (exc.headers or {}).get("Allow", "")
            method = "HEAD" if request.scope.get(HEAD) else request.method
            return _error_response(MethodNotAllowed(
                Errors.E414.format(method=method, path=path, allowed=allowed or "?"),
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
        # The input is left out of the answer: it can be large, or not encodable as JSON. The
        # first errors only, and their count: the answer stays small whatever the body held.
        every = exc.errors()
        errors = [{"loc": _client_loc(e["loc"]), "msg": e["msg"], "type": e["type"]}
                  for e in every[:MAX_ERRORS]]
        fields = "; ".join(_where(e) + f": {e['msg']}" for e in errors)
        if len(every) > MAX_ERRORS:
            fields += f"; ... {len(every) - MAX_ERRORS} more"
        code, message = "E406", Errors.E406.format(fields=fields)
        ctype = request.headers.get("content-type", "")
        kind = ctype.split(";")[0].strip().lower()
        if not (kind.startswith("application/") and (kind == "application/json" or kind.endswith("+json"))):
            # FastAPI parses only a body sent as application/json or */*+json (not text/json, not
            # application/json5); say so rather than "not a dictionary".
            code, message = "E408", Errors.E408.format(ctype=ctype or "no Content-Type")
        # The shape of every error ({detail, code}), with the fields' list and its full count.
        return JSONResponse(jsonable_encoder({"detail": message, "code": code, "fields": errors,
                                              "errors": len(every)}), status_code=422)


HEAD = "logicparse.head"  # set in the scope of a HEAD request answered as GET


class _HeadAsGet:
    """ASGI middleware: HEAD is answered as GET without the body, wherever GET is (/, /healthz,
    /readyz, ...: load balancers and uptime checks send HEAD)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "HEAD":
            return await self.app(scope, receive, send)

        async def headers_only(message):
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        return await self.app({**scope, "method": "GET", HEAD: True}, receive, headers_only)


def _slash_redirect(request: Request) -> Optional[Response]:
    """A 307 to the same path without (or with) its trailing slash when that path is a route,
    with a relative Location: never built from the Host header."""
    path = request.url.path
    other = path[:-1] if path.endswith("/") else path + "/"
    if not other or other.startswith("//"):
        return None
    scope = {**request.scope, "path": other}
    if not any(route.matches(scope)[0] != Match.NONE for route in request.app.router.routes):
        return None
    query = request.url.query
    return RedirectResponse(other + ("?" + query if query else ""), status_code=307)


class _StartupReport:
    """ASGI middleware: a failed startup is reported to the server by its coded message (E412)
    instead of the framework's traceback, and a WebSocket is refused with ``{detail, code}``."""

    def __init__(self, app, state):
        self.app, self.state = app, state

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket":  # a server that upgrades before asking the app
            return await _refuse_websocket(scope, send)
        if scope["type"] != "lifespan":
            return await self.app(scope, receive, send)

        async def report(message):
            if message["type"] == "lifespan.startup.failed" and self.state.startup_error:
                message = {**message, "message": self.state.startup_error}
            await send(message)

        return await self.app(scope, receive, report)


async def _refuse_websocket(scope, send) -> None:
    """``logicparse serve`` refuses upgrades in its protocol (service/protocol.py); under another
    server the refusal is an HTTP answer where the server allows it (the ASGI WebSocket Denial
    Response extension), else a close."""
    upgrade = dict(scope.get("headers", [])).get(b"upgrade", b"websocket").decode("latin-1")
    if "websocket.http.response" not in scope.get("extensions", {}):
        await send({"type": "websocket.close", "code": 1008})
        return
    status, body, _ = error_body(BadRequest(Errors.E424.format(upgrade=upgrade)))
    await send({"type": "websocket.http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "websocket.http.response.body", "body": body})


def _client_loc(loc) -> list:
    """An error's location in the body as the client wrote it: without the tags pydantic adds
    for the body's two shapes and a list item's two (routes.py)."""
    loc = list(loc)
    if len(loc) > 1 and loc[0] == "body" and loc[1] in BODY_TAGS:
        del loc[1]
        if len(loc) > 3 and loc[1] == "text" and isinstance(loc[2], int) and loc[3] in ITEM_TAGS:
            del loc[3]
    return loc


def _where(error: dict) -> str:
    loc = error["loc"]
    if error["type"] == "json_invalid" and len(loc) == 2:
        return f"body at character {loc[1]}"
    return ".".join(str(p) for p in loc)
