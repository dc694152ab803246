"""uvicorn's HTTP protocol (httptools), with limits on request heads and JSON errors.

What it adds, for what reaches the server before any app code runs:

* a time limit on request headers: every connection must deliver a request's headers within
  ``read_timeout`` seconds of connecting or of the previous answer (the body has its own limit in
  ``BodyGuard``); otherwise 408 and the connection is closed (uvicorn closes idle keep-alive
  connections, but not a client that sends part of its headers and stalls);
* a size limit on the request line and headers, ``max_header_bytes``: over it, 431 and the
  connection is closed, before the parser has buffered more than the limit and one read;
* a WebSocket upgrade is refused (400) instead of being handed to the app, which has no
  WebSocket routes;
* every such refusal, and a request the HTTP parser rejects (say ``Content-Length: abc``), gets
  the service's ``{detail, code}`` body instead of uvicorn's plain text. When earlier requests
  of the same connection (HTTP pipelining) are still being answered, the refusal is sent after
  their answers, not instead of them.

``logicparse serve`` passes this class to uvicorn (``http=``).
"""

from __future__ import annotations

from typing import Optional

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from logicparse.errors import Errors

from .errors import BadRequest, HeadersTooLarge, SlowClient, raw_response

# Data is fed to the parser in pieces of this size, so that the size of a request's head is
# known, within one piece, before the parser has buffered it.
_PIECE = 8192
# Requests of one connection parsed ahead of the one being answered (HTTP pipelining). uvicorn
# resumes reading after every answer, so a client that sends GETs faster than it reads answers
# made the queue, and memory, grow without end (4 connections: 3 GB in 26 s). Past this many,
# what has arrived is held unparsed and the connection is not read until the queue is shorter.
PIPELINE_LIMIT = 32


class ServiceProtocol(HttpToolsProtocol):
    # from Settings on first use (LOGICPARSE_READ_TIMEOUT, LOGICPARSE_MAX_HEADER_BYTES)
    read_timeout: Optional[float] = None
    max_header_bytes: Optional[int] = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if ServiceProtocol.read_timeout is None:
            from .settings import Settings

            settings = Settings()
            ServiceProtocol.read_timeout = settings.read_timeout
            ServiceProtocol.max_header_bytes = settings.max_header_bytes
        self._headers_timer = None
        self._head: Optional[int] = 0  # bytes of the current request's head; None: body next
        self._refusal: Optional[Exception] = None  # sent once the answers in progress are
        self._held = b""  # data not fed to the parser while the pipeline is full

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        data, self._held = self._held + data, b""
        for i in range(0, len(data), _PIECE):
            if self._refusal is not None or self.transport.is_closing():
                return  # nothing more is read from a connection being refused
            if len(self.pipeline) >= PIPELINE_LIMIT:
                self._held = data[i:]
                self.flow.pause_reading()
                return
            piece = data[i:i + _PIECE]
            if self._head is not None:
                self._head += len(piece)
                if self._head > self.max_header_bytes:
                    self._refuse(HeadersTooLarge(Errors.E423.format(limit=self.max_header_bytes)))
                    return
            super().data_received(piece)

    def on_headers_complete(self) -> None:
        self._disarm()
        self._head = None
        upgrade = next((v for k, v in self.headers if k == b"upgrade"), None)
        if upgrade is not None and b"websocket" in upgrade.lower():
            self._refuse(BadRequest(Errors.E424.format(upgrade=upgrade.decode("latin-1"))))
            return
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._head = 0  # what comes next is the next request's head
        if self._serving():
            super().on_message_complete()

    def on_body(self, body: bytes) -> None:
        if self._serving():
            super().on_body(body)

    def _serving(self) -> bool:
        """The request being parsed has a cycle (it was not refused at its headers)."""
        return self.cycle is not None and self._refusal is None and \
            not self.transport.is_closing()

    def _should_upgrade(self) -> bool:
        return False  # no WebSocket routes: an upgrade request is refused in on_headers_complete

    def _unsupported_upgrade_warning(self) -> None:
        pass  # answered already (E424), or an upgrade to another protocol, served as plain HTTP

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._refusal is not None:
            if self.cycle is None or self.cycle.response_complete:  # the last answer is out
                refusal, self._refusal = self._refusal, None
                self._close_with(refusal)
            return
        if self.transport.is_closing():
            return
        if len(self.pipeline) >= PIPELINE_LIMIT:
            self.flow.pause_reading()  # uvicorn has just resumed it
        elif self._held:
            self.data_received(b"")
        if not self.pipeline:
            self._arm()  # the next request's headers are due within the limit too

    def send_400_response(self, msg: str) -> None:
        self._refuse(BadRequest(Errors.E419.format(reason=msg.rstrip("."))))

    def _refuse(self, exc: Exception) -> None:
        """Answer ``exc`` and close; after the answers to earlier requests if some are still
        being made (pipelining), so that they are not lost."""
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete and not cycle.more_body:
            self._refusal = exc
            self._disarm()
            self.flow.pause_reading()
            return
        self._close_with(exc)

    def _arm(self) -> None:
        self._disarm()
        self._headers_timer = self.loop.call_later(self.read_timeout, self._headers_late)

    def _disarm(self) -> None:
        if self._headers_timer is not None:
            self._headers_timer.cancel()
            self._headers_timer = None

    def _headers_late(self) -> None:
        self._headers_timer = None
        if self.cycle is None or self.cycle.response_complete:
            self._close_with(SlowClient(Errors.E416.format(part="headers",
                                                           timeout=self.read_timeout)))

    def _close_with(self, exc: Exception) -> None:
        if not self.transport.is_closing():
            self.transport.write(raw_response(exc))
            self.transport.close()
