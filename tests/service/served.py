"""A uvicorn server on 127.0.0.1 in a thread of the test process, on a port the OS chooses."""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Iterator


@contextlib.contextmanager
def running(app, **config) -> Iterator[int]:
    """Serve ``app`` (uvicorn.Config's other settings in ``config``); yields the port, stops after."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                                           **config))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    try:
        yield server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)
