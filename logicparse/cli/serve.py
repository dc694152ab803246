"""`logicparse serve`: the REST service (logicparse/service/) under uvicorn."""

from __future__ import annotations

import os
from typing import Optional

import typer


def _help(name: str) -> str:
    from logicparse.service.settings import Settings

    field = Settings.model_fields[name]
    # A default of None is worked out at start-up, as the description says.
    return field.description if field.default is None else f"{field.description} (default: {field.default})"


def serve(
    host: Optional[str] = typer.Option(None, envvar="LOGICPARSE_HOST", help=_help("host"),
                                       show_default=False),
    port: Optional[int] = typer.Option(None, envvar="LOGICPARSE_PORT", help=_help("port")),
    workers: Optional[int] = typer.Option(None, envvar="LOGICPARSE_WORKERS", help=_help("workers")),
    parser: Optional[str] = typer.Option(None, envvar="LOGICPARSE_PARSER", help=_help("parser")),
    senses: Optional[str] = typer.Option(None, envvar="LOGICPARSE_SENSES", help=_help("senses")),
    mapping: Optional[str] = typer.Option(None, envvar="LOGICPARSE_MAPPING", help=_help("mapping")),
    device: Optional[str] = typer.Option(None, envvar="LOGICPARSE_DEVICE", help=_help("device")),
    max_chars: Optional[int] = typer.Option(None, envvar="LOGICPARSE_MAX_CHARS",
                                            help=_help("max_chars")),
    max_texts: Optional[int] = typer.Option(None, envvar="LOGICPARSE_MAX_TEXTS",
                                            help=_help("max_texts")),
    threads: Optional[int] = typer.Option(None, envvar="LOGICPARSE_THREADS", help=_help("threads")),
    torch_threads: Optional[int] = typer.Option(None, envvar="LOGICPARSE_TORCH_THREADS",
                                                help=_help("torch_threads")),
    batch_size: Optional[int] = typer.Option(None, envvar="LOGICPARSE_BATCH_SIZE",
                                             help=_help("batch_size")),
    gather_ms: Optional[float] = typer.Option(None, envvar="LOGICPARSE_GATHER_MS",
                                              help=_help("gather_ms")),
    queue: Optional[int] = typer.Option(None, envvar="LOGICPARSE_QUEUE", help=_help("queue")),
    timeout: Optional[float] = typer.Option(None, envvar="LOGICPARSE_TIMEOUT", help=_help("timeout")),
    max_tokens: Optional[int] = typer.Option(None, envvar="LOGICPARSE_MAX_TOKENS",
                                             help=_help("max_tokens")),
    max_ambiguous: Optional[int] = typer.Option(None, envvar="LOGICPARSE_MAX_AMBIGUOUS",
                                                help=_help("max_ambiguous")),
    max_response_bytes: Optional[int] = typer.Option(None, envvar="LOGICPARSE_MAX_RESPONSE_BYTES",
                                                     help=_help("max_response_bytes")),
    read_timeout: Optional[float] = typer.Option(None, envvar="LOGICPARSE_READ_TIMEOUT",
                                                 help=_help("read_timeout")),
    max_header_bytes: Optional[int] = typer.Option(None, envvar="LOGICPARSE_MAX_HEADER_BYTES",
                                                   help=_help("max_header_bytes")),
    max_connections: Optional[int] = typer.Option(None, envvar="LOGICPARSE_MAX_CONNECTIONS",
                                                  help=_help("max_connections")),
    log_level: Optional[str] = typer.Option(None, envvar="LOGICPARSE_LOG_LEVEL",
                                            help=_help("log_level")),
) -> None:
    """Serve the REST API and the page: POST /v1/annotate, GET /v1/labels, /v1/taxonomy, /healthz, /readyz, /docs, and the page at /.

    Every option can also be set by its LOGICPARSE_* environment variable; a flag wins over the variable. Models load once per worker before the port opens.
    """  # noqa: E501 - typer keeps docstring line breaks
    import uvicorn
    from pydantic import ValidationError

    from logicparse.errors import Errors, LogicparseError
    from logicparse.service.settings import Settings

    given = {k: v for k, v in locals().items()
             if k in Settings.model_fields and v is not None}
    try:
        settings = Settings(**given)
    except ValidationError as e:
        # pydantic's own words ("Value error, ") and each message's final period are dropped:
        # the problems are joined into one sentence of E422.
        problems = "; ".join(f"--{'-'.join(str(x) for x in err['loc']).replace('_', '-')} "
                             f"{err['input']!r}: "
                             f"{err['msg'].replace('Value error, ', '', 1).rstrip('.')}"
                             for err in e.errors())
        raise LogicparseError(Errors.E422.format(problems=problems)) from None
    from logicparse.resources import check_device

    check_device(settings.device)  # a bad device is named now, not blamed on the models later
    check_port(settings.host, settings.port)  # now, not after the models have loaded
    # Worker processes build their app from the environment: hand them the merged settings.
    os.environ.update(settings.to_env())
    from logicparse.terminal import safe

    typer.echo(f"loading models… (parser {safe(settings.parser)}, senses "
               f"{safe(settings.senses)}); the port opens when they are ready", err=True)
    uvicorn.run("logicparse.service.app:create_app", factory=True, host=settings.host, port=settings.port,
                workers=settings.workers, log_level=settings.log_level.lower(),
                # The connection bound is the app's (BodyGuard: bodies in progress, never GETs
                # such as /healthz); stalled clients are closed by the protocol's read timeout.
                http="logicparse.service.protocol:ServiceProtocol",
                timeout_graceful_shutdown=int(settings.timeout) + 1)


def check_port(host: str, port: int) -> None:
    """E428 when ``host:port`` cannot be bound (another server listens there, the port needs
    privileges, the address is not this machine's), tried as uvicorn binds it."""
    import socket

    from logicparse.errors import Errors, OptionError

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as e:
            raise OptionError(Errors.E428.format(host=host, port=port, reason=e.strerror or e)
                              ) from None


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
