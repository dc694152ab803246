"""The service's HTTP protocol under a real uvicorn server: a client that pipelines requests
faster than it reads the answers is read no further ahead than PIPELINE_LIMIT requests, and every
request is still answered, in order. (Heads, upgrades and refusals: test_service_served.py.)"""

from __future__ import annotations

import asyncio
import socket
import time

from served import running

from logicparse.service import protocol


class Watched(protocol.ServiceProtocol):
    """The protocol, recording the longest queue of parsed requests it held."""

    most = 0

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        Watched.most = max(Watched.most, len(self.pipeline))


async def slow_app(scope, receive, send):
    await asyncio.sleep(0.001)
    body = scope["path"].encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def test_a_pipelining_client_is_read_no_further_ahead_than_the_limit_and_answered_in_order():
    n = 3000
    with running(slow_app, http=Watched, lifespan="off") as port:
        with socket.create_connection(("127.0.0.1", port)) as s:
            # All of them at once (about 100 KB, more than one read), no answer read meanwhile.
            s.sendall(b"".join(b"GET /r%d HTTP/1.1\r\nHost: a\r\n\r\n" % i for i in range(n)))
            time.sleep(1)
            data = b""
            s.settimeout(30)
            while data.count(b"HTTP/1.1 200") < n:
                chunk = s.recv(1 << 16)
                assert chunk, "connection closed early"
                data += chunk
        assert Watched.most <= protocol.PIPELINE_LIMIT + protocol._PIECE // 30
        bodies = [part.rsplit(b"\r\n\r\n", 1)[-1] for part in data.split(b"HTTP/1.1 200 OK")[1:]]
        assert bodies == [b"/r%d" % i for i in range(n)]
