"""`logicparse annotate INPUT... --out DIR`: a corpus into Arrow shards (logicparse.batch)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from ..resources import senses_spec


def annotate(
    inputs: List[str] = typer.Argument(
        ..., metavar="INPUT...", show_default=False,
        help=".txt files (one document each), directories of .txt files, .jsonl, .parquet or "
        ".arrow files, any of them compressed (.gz, .bz2, .xz), or '-' for standard input. A file "
        "that is not text (an image, a PDF) is a row with an error, never annotated."),
    out: Path = typer.Option(..., "--out", "-o", help="Shard directory to write (created if "
                             "missing; an unfinished run there is resumed)."),
    workers: int = typer.Option(1, "--workers", "-w", min=1,
                                help="Worker processes (local) or actors (ray), each loading the "
                                "models once."),
    engine: str = typer.Option("local", "--engine", help="local: processes on this machine; "
                               "ray: Ray actors, on this machine or a cluster (--ray-address)."),
    ray_address: Optional[str] = typer.Option(
        None, "--ray-address", help="Existing Ray cluster ('auto', ray://host:10001); default: "
        "a local Ray instance with --workers CPUs, listening on 127.0.0.1 only."),
    shard_size: int = typer.Option(1000, "--shard-size", min=1, help="Documents per shard."),
    parser: str = typer.Option("default", "--parser", help="'default' (bundled), a benepar "
                               "model name such as benepar_en3, or a model directory. On a CPU "
                               "its network runs in int8 (LOGICPARSE_PARSER_PRECISION=fp32 for "
                               "the trained float32 weights); the manifest says which ran."),
    senses: str = typer.Option("default", "--senses", help="Keyword decisions: 'default' (tree "
                               "rules + bundled sense classifiers), 'rules' (no encoder), 'mpnet' "
                               "(logicparse[mpnet]), a directory, or 'none' for each keyword's "
                               "lexicon relation (the paper's literal behaviour; faster)."),
    mapping: str = typer.Option("default", "--mapping", help="α/β mapping: 'default' (widened to "
                                "the arguments measured better on GDTB), 'paper' (Algorithm 1 "
                                "exactly) or 'learned' (the default's spans or a candidate a "
                                "classifier trained on GDTB scores higher). Recorded in "
                                "manifest.json."),
    device: str = typer.Option("cpu", "--device", help="torch device of the models."),
    threads: int = typer.Option(1, "--threads", min=1, help="torch threads per worker. Use more "
                                "workers rather than more threads: processes scale better."),
    text_field: str = typer.Option("text", "--text-field", help="Text field of .jsonl objects "
                                   "and text column of .parquet/.arrow inputs."),
    id_field: str = typer.Option("id", "--id-field", help="Id field/column; rows without one "
                                 "get '<file stem>:<line or row number>'."),
    encoding: str = typer.Option("utf-8", "--encoding", help="Encoding of text bytes."),
    fallback: str = typer.Option("latin-1", "--fallback", help="Decoding of a document that is "
                                 "not valid in --encoding: latin-1 (every byte kept), cp1252, or "
                                 "replace (U+FFFD). Counted per input in manifest.json."),
    stdin_format: str = typer.Option("lines", "--stdin-format", help="How '-' is read: lines "
                                     "(one document per non-empty line), text (one document), "
                                     "jsonl."),
    chunk_chars: int = typer.Option(20_000, "--chunk-chars", min=1, help="Characters of text "
                                    "parsed together in one worker call (changes the plan: a "
                                    "resumed run must use the same value)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Delete the shards and manifest "
                                   "already in --out and start again (otherwise: resume)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress output."),
    annotator: Optional[str] = typer.Option(
        None, "--annotator", hidden=True, help="'module:function' returning an object with "
        ".pipe(texts, batch_size, ids), used instead of logicparse.Annotator (custom pipelines, "
        "fault-injection tests); --parser/--senses are then ignored."),
) -> None:
    """Annotate a corpus into Arrow IPC shards (zstd, the Document schema) plus manifest.json.

    Every input document gives exactly one row; a document that fails gets its `error` filled and the run goes on. Shards appear whole or not at all: after Ctrl-C, SIGTERM or a crash, run the same command again to resume. Same input and models give byte-identical shards.
    """  # noqa: E501 - typer keeps docstring line breaks
    from ..batch import Interrupted, ReadOptions, RunConfig, WorkerSpec, annotate_corpus
    from ..batch.progress import make_progress
    from ..mapping import MAPPINGS
    from ..terminal import safe

    if mapping not in MAPPINGS:
        raise typer.BadParameter(f"{mapping!r} is not one of {', '.join(map(repr, MAPPINGS))}.",
                                 param_hint="'--mapping'")
    try:
        config = RunConfig(
            shard_size=shard_size, chunk_chars=chunk_chars, engine=engine, workers=workers,
            ray_address=ray_address, overwrite=overwrite,
            read=ReadOptions(text_field=text_field, id_field=id_field, encoding=encoding,
                             fallback=fallback, stdin_format=stdin_format),
            worker=WorkerSpec(parser=parser, senses=senses_spec(senses),
                              device=device, threads=threads, mapping=mapping, factory=annotator))
        manifest = annotate_corpus(inputs, out, config, progress=make_progress(quiet=quiet))
    except Interrupted as e:
        typer.echo(str(e), err=True)
        raise typer.Exit(130) from None
    run = manifest["run"]
    rate = run["documents_annotated"] / run["seconds"] if run["seconds"] else 0.0
    resumed = f", {run['resumed_shards']} resumed" if run["resumed_shards"] else ""
    if run["rewritten_shards"]:  # each was also named in a warning as it was found
        resumed += (f", {len(run['rewritten_shards'])} annotated again (did not match "
                    "manifest.json)")
    dec = manifest["decoding"]
    typer.echo(f"{manifest['documents']} documents ({manifest['failed']} failed, "
               f"{dec['documents']} decoded with {dec['fallback']}) "
               f"in {len(manifest['shards'])} shards{resumed} -> {safe(out)} "
               f"[{run['seconds']:.1f}s, {rate:.2f} docs/s]")
    if manifest["failed"] and not quiet:
        shown = [safe(i) for i in manifest["failed_ids"][:5]]
        typer.echo(f"failed ids: {', '.join(shown)}{' ...' if manifest['failed'] > 5 else ''} "
                   f"(see `logicparse shards show {safe(out)} --id ID`)", err=True)


def register(app: typer.Typer) -> None:
    app.command("annotate")(annotate)
