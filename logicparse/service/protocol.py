"""uvicorn's HTTP protocol (httptools), with a time limit on request headers and JSON errors.

uvicorn closes idle keep-alive connections, but a client that sends part of its headers and then
stalls keeps its socket forever. Here every connection must deliver a request's headers within
``read_timeout`` seconds of connecting or of the previous answer (the body has its own limit in
``BodyGuard``); otherwise it gets 408 and is closed. A request the HTTP parser rejects (say
``Content-Length: abc``) gets the service's ``{detail, code}`` body instead of uvicorn's plain
text. ``logicparse serve`` passes this class to uvicorn (``http=``).
"""

from __future__ import annotations

from typing import Optional

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from logicparse.errors import Errors

from .errors import BadRequest, SlowClient, raw_response


class ServiceProtocol(HttpToolsProtocol):
    read_timeout: Optional[float] = None  # from Settings on first use (LOGICPARSE_READ_TIMEOUT)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if ServiceProtocol.read_timeout is None:
            from .settings import Settings

            ServiceProtocol.read_timeout = Settings().read_timeout
        self._headers_timer = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and not self.pipeline:
            self._arm()  # the next request's headers are due within the limit too

    def send_400_response(self, msg: str) -> None:
        self._close_with(BadRequest(Errors.E419.format(reason=msg.rstrip("."))))

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
