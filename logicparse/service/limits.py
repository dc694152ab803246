"""The request-body guard: an oversized or stalled body is refused before it is read whole, so
that memory stays bounded whatever clients send (the work itself is bounded by ``pool.py``)."""

from __future__ import annotations

import asyncio
from typing import Optional

from logicparse.errors import Errors

from .errors import BadRequest, Busy, SlowClient, TooLarge, send_error

__all__ = ["BodyGuard"]

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class BodyGuard:
    """ASGI middleware for requests with a body.

    * 503 when ``max_bodies`` requests with a body are already in progress (the memory of
      bodies and answers in flight stays bounded; GET requests such as /healthz never wait);
    * 413 for a body over ``limit`` bytes, judged by Content-Length before any byte is read, or
      by counting the stream when the length is not declared (chunked);
    * 408 when the whole body has not arrived ``read_timeout`` seconds after the headers (a
      stalled client is disconnected instead of holding its slot);
    * 400 for a body that is not UTF-8.

    The checked body is then replayed to the app, which parses it."""

    def __init__(self, app, limit: int, max_chars: int, read_timeout: float = 10.0,
                 max_bodies: int = 512, retry_after: int = 1):
        self.app = app
        self.limit = limit
        self.max_chars = max_chars
        self.read_timeout = read_timeout
        self.max_bodies = max_bodies
        self.retry_after = retry_after
        self.in_progress = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in _BODY_METHODS:
            return await self.app(scope, receive, send)
        if self.in_progress >= self.max_bodies:
            return await send_error(send, Busy(
                Errors.E417.format(n=self.in_progress, retry=self.retry_after),
                {"Retry-After": self.retry_after}))
        self.in_progress += 1
        try:
            return await self._guarded(scope, receive, send)
        finally:
            self.in_progress -= 1

    async def _guarded(self, scope, receive, send):
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                size = int(declared)
                if size < 0:
                    raise ValueError
            except ValueError:
                return await send_error(send, BadRequest(Errors.E405.format(
                    value=declared.decode("latin-1"))))
            if size > self.limit:
                return await send_error(send, self._too_large(size))
        try:
            body = await asyncio.wait_for(self._read(receive), self.read_timeout)
        except asyncio.TimeoutError:
            return await send_error(send, SlowClient(Errors.E416.format(
                part="body", timeout=self.read_timeout)))
        except TooLarge as e:
            return await send_error(send, e)
        if body is None:  # the client went away
            return
        encoding = headers.get(b"content-encoding", b"identity").strip().lower()
        if encoding not in (b"", b"identity"):  # the body would be read as the compressed bytes
            return await send_error(send, BadRequest(Errors.E429.format(
                encoding=encoding.decode("latin-1")[:40])))
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as e:
            return await send_error(send, BadRequest(Errors.E404.format(pos=e.start,
                                                                        reason=e.reason)))
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)

    async def _read(self, receive) -> Optional[bytes]:
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                raise self._too_large(f"at least {size}")
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _too_large(self, size) -> TooLarge:
        return TooLarge(Errors.E401.format(size=size, limit=self.limit, max_chars=self.max_chars))
