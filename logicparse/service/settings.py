"""Service settings, read from ``LOGICPARSE_*`` environment variables (pydantic-settings).

``logicparse serve`` turns its flags into these variables before it starts uvicorn, so every
worker process reads the same settings whichever way they were given.
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ..resources import NO_SENSES, senses_spec


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="LOGICPARSE_", extra="ignore")

    host: str = Field("127.0.0.1", description="Interface to bind; 0.0.0.0 inside a container.")
    port: int = Field(8000, ge=0, le=65535, description="TCP port.")
    workers: int = Field(1, ge=1, description="Worker processes; each loads its own models.")
    parser: str = Field("default", description="'default' (bundled), a benepar model name, or a "
                        "path. On a CPU its network runs in int8 (LOGICPARSE_PARSER_PRECISION=fp32 "
                        "for the trained float32 weights).")
    senses: Optional[str] = Field(
        "default", description="Keyword decisions: 'default' (tree rules + sense classifiers), "
        "'rules' (no encoder), 'mpnet' (the optional stronger encoder), a path, or 'none' (every "
        "keyword its lexicon relation, no encoder).")
    mapping: Literal["default", "paper", "learned"] = Field(
        "default", description="α/β mapping: 'default' (widened to the arguments measured better "
        "on GDTB), 'paper' (Algorithm 1 exactly) or 'learned' (the default's spans or a "
        "candidate a classifier trained on GDTB scores higher).")
    device: str = Field("cpu", description="Torch device for the parser and sense encoder.")
    max_chars: int = Field(100_000, ge=1, description="Most characters of text in one request.")
    max_texts: int = Field(256, ge=1, description="Most texts in one request.")
    max_tokens: int = Field(
        50_000, ge=1, description="Most tokens of text in one request (spaCy's tokens, counted "
        "before any parsing). Sentences longer than the parser's limit (300 tokens) are split.")
    max_ambiguous: int = Field(
        1000, ge=1, description="Most occurrences in one request of the keywords the sense "
        "classifiers decide (with the default senses: as, since, then, while, yet; "
        "each costs about 12 ms of encoder work), counted before any parsing. No bound applies "
        "with --senses rules or none (no classifier runs).")
    max_response_bytes: int = Field(
        8 * 1024 * 1024, ge=1024, description="Most bytes of JSON in one answer; a larger one "
        "is refused (413) instead of sent.")
    # UTF-8 takes up to 4 bytes a character and JSON escapes up to 12 (a surrogate pair), so the
    # byte bound checked before parsing is looser than max_chars; max_chars is checked exactly
    # once the body is parsed.
    max_body_bytes: Optional[int] = Field(
        None, ge=1, description="Most bytes in a request body; default 4 * max_chars + 64 KiB.")
    threads: Optional[int] = Field(
        None, ge=1, description="Annotation threads per worker process; default: the CPUs it may "
        "use (its affinity and cgroup quota) divided among the workers, at least one; one on a "
        "GPU. The networks under ONNX Runtime divide the CPUs among the threads in turn "
        "(OMP_NUM_THREADS overrides): on 2 cores, two threads of one network thread each served "
        "1.28x the requests/s of one thread of two (measured: docs/service.md).")
    torch_threads: int = Field(
        1, ge=1, description="Torch threads per worker process. One is fastest for the short "
        "inputs of a service and when workers or other jobs share the cores (measured: "
        "docs/history.md).")
    batch_size: int = Field(
        16, ge=1, description="Most texts one thread annotates together: waiting requests are "
        "batched (a larger request runs alone).")
    gather_ms: float = Field(
        0.0, ge=0, le=1000, description="Milliseconds small requests may wait for others to "
        "arrive, so that concurrent clients' texts are annotated in one batch. Only when more "
        "requests were in flight at once lately (within 20 windows) than are waiting; a lone "
        "client does not wait. 0 (the default): every request starts at once; 5 lowered p99 "
        "under load but not requests/s (measured: docs/service.md).")
    queue: int = Field(16, ge=0, description="Requests that may wait for a thread before 503.")
    timeout: float = Field(30.0, gt=0, description="Seconds a request may take before 504; its "
                           "work stops then (between two chunks of parsing). A request whose work, "
                           "after the work admitted before it, would not end within it is refused "
                           "at once (503).")
    read_timeout: float = Field(
        10.0, gt=0, description="Seconds a client has to send a request's headers, and again its "
        "body, before 408 and the connection is closed.")
    max_header_bytes: int = Field(
        65536, ge=1024, description="Most bytes of a request's line and headers before 431 and "
        "the connection is closed (they are read before any other limit applies).")
    max_connections: int = Field(
        512, ge=1, description="Requests with a body in progress per worker before 503: bounds "
        "the memory of bodies and answers in flight (each body at most max_body_bytes).")
    retry_after: int = Field(1, ge=0, description="Retry-After seconds sent with 503.")
    log_level: str = Field("info", description="uvicorn log level.")

    @field_validator("senses", mode="before")
    @classmethod
    def _none_means_off(cls, v):
        # An environment variable cannot hold None: 'none' means no classifiers, as on the CLI.
        return senses_spec(v)

    @field_validator("parser")
    @classmethod
    def _parser_exists(cls, v):
        # A parser that names nothing is refused before uvicorn starts any worker.
        from ..errors import LogicparseError
        from ..parser import check_parser

        try:
            check_parser(v)
        except LogicparseError as e:  # an OSError for a missing directory: pydantic wants this
            raise ValueError(str(e)) from None
        return v

    @property
    def annotation_threads(self) -> int:
        """``threads``, or the CPUs this process may use divided among the workers (one on a GPU,
        where the threads would queue for one device)."""
        from ..onnx_export import available_cpus

        if self.threads or str(self.device).split(":")[0] != "cpu":
            return self.threads or 1
        return max(1, available_cpus() // self.workers)

    @property
    def body_limit(self) -> int:
        return self.max_body_bytes or 4 * self.max_chars + 65536

    def to_env(self) -> dict[str, str]:
        """The settings as ``LOGICPARSE_*`` variables, for worker processes."""
        out = {}
        for name, value in self.model_dump().items():
            if value is None and name != "senses":
                continue  # unset: the default applies in the worker too
            out[f"LOGICPARSE_{name.upper()}"] = NO_SENSES if value is None else str(value)
        return out
