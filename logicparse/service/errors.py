"""The service's errors and the one table that gives each its HTTP status.

Every answer outside 2xx is ``{"detail": message, "code": "Exxx"}`` (422 adds the per-field list,
see app.py), whoever produced it: a route, the body guard, the work pool, the HTTP protocol
(a malformed request, a client too slow to send one) or an unexpected exception. They all go
through :func:`error_response` (routes) or :func:`send_error` (raw ASGI and the protocol).
"""

from __future__ import annotations

import json
from typing import Optional

from logicparse.errors import Errors, InputTextError, LogicparseError


class ServiceError(LogicparseError):
    """A request the service refuses or cannot answer; ``headers`` go out with the answer."""

    def __init__(self, message: str, headers: Optional[dict] = None):
        super().__init__(message)
        self.headers = {k: str(v) for k, v in (headers or {}).items()}


class BadRequest(ServiceError):
    """The request cannot be read: body not UTF-8 or not parseable, malformed HTTP."""


class NotFound(ServiceError):
    pass


class MethodNotAllowed(ServiceError):
    pass


class SlowClient(ServiceError):
    """The client did not send its headers or body within the read timeout."""


class TooLarge(ServiceError):
    """Over a size bound: bytes, characters, texts or tokens."""


class HeadersTooLarge(ServiceError):
    """The request line and headers are over their size bound."""


class Busy(ServiceError):
    """At capacity: work pool full, or too many bodies being received."""


class Loading(ServiceError):
    """Models not loaded yet."""


class ShuttingDown(ServiceError):
    """The service stopped before it answered: the same request may be sent again."""


class TimedOut(ServiceError):
    """The request's work ran past the time limit."""


class Internal(ServiceError):
    """Anything unexpected: a bug, logged with its traceback."""


# The one place where error types meet HTTP statuses.
STATUS: dict[type, int] = {
    BadRequest: 400,
    InputTextError: 400,
    NotFound: 404,
    MethodNotAllowed: 405,
    SlowClient: 408,
    TooLarge: 413,
    HeadersTooLarge: 431,
    Busy: 503,
    Loading: 503,
    ShuttingDown: 503,
    TimedOut: 504,
    Internal: 500,
}

def status_of(exc: BaseException) -> int:
    for cls in type(exc).__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return 500


def code_of(exc: BaseException) -> str:
    return getattr(exc, "code", None) or "E420"


def as_service_error(exc: BaseException) -> LogicparseError:
    """``exc`` if it is ours; otherwise the generic 500 (the caller logs the traceback)."""
    if isinstance(exc, LogicparseError) and status_of(exc) != 500:
        return exc
    return Internal(Errors.E420.format(type=type(exc).__name__))


def error_body(exc: BaseException) -> tuple[int, bytes, dict]:
    """(status, JSON body, headers) of the answer to ``exc``."""
    exc = as_service_error(exc)
    body = json.dumps({"detail": str(exc), "code": code_of(exc)}).encode()
    return status_of(exc), body, dict(getattr(exc, "headers", None) or {})


async def send_error(send, exc: BaseException) -> None:
    """The answer to ``exc`` on a raw ASGI ``send``; the connection is closed after it, since
    the rest of the request may be unread."""
    status, body, headers = error_body(exc)
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        *((k.lower().encode(), v.encode()) for k, v in headers.items())]})
    await send({"type": "http.response.body", "body": body})


def raw_response(exc: BaseException) -> bytes:
    """The answer to ``exc`` as HTTP/1.1 bytes, for the protocol layer (no ASGI app runs)."""
    status, body, headers = error_body(exc)
    reason = {400: b"Bad Request", 408: b"Request Timeout",
              431: b"Request Header Fields Too Large"}.get(status, b"Error")
    lines = [b"HTTP/1.1 %d %s" % (status, reason), b"content-type: application/json",
             b"content-length: %d" % len(body), b"connection: close",
             *(f"{k.lower()}: {v}".encode() for k, v in headers.items())]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body
