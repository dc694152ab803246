"""The shard directory: Arrow IPC shards of Documents plus ``manifest.json``.

Layout of ``DIR``::

    manifest.json        what the run was (inputs, models, versions) and what it wrote
    shard-00000.arrow    Arrow IPC file, zstd, schema = logicparse.tokens.ARROW_SCHEMA, one row
    shard-00001.arrow    per document, in input order; shard i holds documents
    ...                  [i * shard_size, (i + 1) * shard_size)

A shard is written under a hidden temporary name and renamed when whole, so a reader (or a
resumed run) never sees half a shard. Its bytes depend only on its rows: one record batch, fixed
compression, no timestamps, so the same input and models give byte-identical shards (same
sha256).

This module owns the format: writing (:func:`write_shard`, :func:`write_documents`), reading
(:func:`read_shards`, one ``pyarrow.Table``; :func:`iter_documents`, Documents, one shard in memory
at a time) and verifying (schema version, completeness, sha256 against the manifest). Any Arrow
reader works as well: ``pyarrow.ipc.open_file(path).read_all()``,
``datasets.load_dataset("arrow", data_files="DIR/shard-*.arrow")``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Iterator, Optional, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DataFormatError, Errors, OutputError
from ..resources import file_sha256
from ..taxonomy import LABELS
from ..tokens import ARROW_SCHEMA, SCHEMA_VERSION, Document

MANIFEST = "manifest.json"
SHARD_GLOB = "shard-*.arrow"
SHARD_RE = re.compile(r"^shard-(\d{5,})\.arrow$")
TMP_PREFIX = ".tmp-"
FORMAT = "logicparse-shards"
COMPRESSION = "zstd"
VERSION_KEY = b"logicparse.schema_version"  # in every shard's schema metadata


def shard_name(index: int) -> str:
    return f"shard-{index:05d}.arrow"


def documents_to_table(docs: Sequence[Document]) -> pa.Table:
    """The one way rows are built: ``Document.to_dict()`` through ``ARROW_SCHEMA``."""
    return pa.Table.from_pylist([d.to_dict() for d in docs], schema=ARROW_SCHEMA)


def conform(table: pa.Table) -> pa.Table:
    """``table`` with exactly ARROW_SCHEMA (columns in order, schema metadata restored): tables
    that went through another system (Ray's transport, a user's tool) may have lost the
    metadata."""
    table = table.select(ARROW_SCHEMA.names)
    if not table.schema.equals(ARROW_SCHEMA, check_metadata=False):
        table = table.cast(ARROW_SCHEMA)
    return table.replace_schema_metadata(ARROW_SCHEMA.metadata)


def write_shard(out_dir: Path, index: int, table: pa.Table) -> dict:
    """Write shard ``index`` atomically; returns its manifest entry."""
    table = conform(table).combine_chunks()
    final = out_dir / shard_name(index)
    tmp = out_dir / f"{TMP_PREFIX}{shard_name(index)}.{os.getpid()}"
    # use_threads=False: one thread per worker process is the budget; the bytes are the same.
    options = pa.ipc.IpcWriteOptions(compression=COMPRESSION, use_threads=False)
    try:
        with pa.OSFile(str(tmp), "wb") as sink:
            with pa.ipc.new_file(sink, ARROW_SCHEMA, options=options) as writer:
                # One record batch per shard, whatever the table's chunking: deterministic bytes.
                writer.write_table(table, max_chunksize=max(1, table.num_rows))
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, final)
    except OSError as e:  # read-only directory, full disk (pyarrow raises OSError too)
        raise OutputError(Errors.E337.format(path=final, reason=_reason(e))) from e
    finally:
        tmp.unlink(missing_ok=True)
    return shard_entry(final, table)


def _reason(e: OSError) -> str:
    return e.strerror or str(e) or type(e).__name__


def shard_entry(path: Path, table: Optional[pa.Table] = None,
                sha256: Optional[str] = None) -> dict:
    """The manifest entry of the shard at ``path`` (``table``: its rows, at least id and error;
    ``sha256``: its hash when just verified)."""
    if table is None:
        table = read_shard(path, columns=["id", "error"])
    ids = table.column("id")
    return {
        "file": path.name,
        "rows": table.num_rows,
        "bytes": path.stat().st_size,
        "sha256": sha256 or file_sha256(path),
        "failed": table.num_rows - table.column("error").null_count,
        "first_id": ids[0].as_py() if table.num_rows else None,
        "last_id": ids[-1].as_py() if table.num_rows else None,
    }


def read_shard(path: Path, columns: Optional[list[str]] = None) -> pa.Table:
    """One shard file, after its schema is checked (the version, then every column's name and
    type against the writer's ARROW_SCHEMA) and its label ids' range: a shard from elsewhere is
    a coded error here, never a crash in whatever reads the rows."""
    path = Path(path)
    if not path.is_file():
        kind = ("a folder" if path.is_dir() else "not a regular file" if path.exists()
                else "a link to nothing" if path.is_symlink() else "missing")
        raise DataFormatError(Errors.E513.format(path=path, reason=f"it is {kind}"))
    try:
        with pa.memory_map(str(path)) as source:
            reader = pa.ipc.open_file(source)
            meta = reader.schema.metadata or {}
            if VERSION_KEY not in meta:
                raise DataFormatError(Errors.E513.format(
                    path=path, reason=f"its schema metadata lacks {VERSION_KEY.decode()}"))
            version = meta[VERSION_KEY].decode(errors="replace")
            if version != SCHEMA_VERSION:
                raise DataFormatError(Errors.E512.format(path=path, got=version,
                                                         want=SCHEMA_VERSION))
            problem = schema_problem(reader.schema)
            if problem:
                raise DataFormatError(Errors.E513.format(path=path, reason=problem))
            table = reader.read_all()
    except (pa.ArrowException, OSError) as e:
        reason = _reason(e) if isinstance(e, OSError) else str(e)
        raise DataFormatError(Errors.E513.format(path=path, reason=reason)) from e
    check_label_ids(table, path)
    return table.select(columns) if columns else table


def schema_problem(schema: pa.Schema) -> Optional[str]:
    """Why ``schema`` is not the schema shards are written with (None: it is), naming the first
    column, or field within one, that differs."""
    want = ARROW_SCHEMA.names
    missing = [n for n in want if n not in schema.names]
    if missing:
        return f"it lacks the column {missing[0]!r}"
    if schema.names != want:
        return f"its columns are {', '.join(schema.names)}; shards have {', '.join(want)}"
    for field in ARROW_SCHEMA:
        problem = _type_problem(field.name, schema.field(field.name).type, field.type)
        if problem:
            return problem
    return None


def _type_problem(name: str, got: pa.DataType, want: pa.DataType) -> Optional[str]:
    if got.equals(want):
        return None
    if got.id == want.id and got.num_fields == want.num_fields:  # same kind of nesting: go in
        for i in range(want.num_fields):
            g, w = got.field(i), want.field(i)
            problem = (f"{name} has a field {g.name!r} where shards have {w.name!r}"
                       if g.name != w.name else _type_problem(f"{name}.{w.name}", g.type, w.type))
            if problem:
                return problem
    return f"column {name} is {got}, not {want}"[:300]


def check_label_ids(table: pa.Table, path: Path) -> None:
    """Refuse (E511) a label id past the label vocabulary, naming the document: it would index
    past ``LABELS`` wherever the labels are shown or embedded."""
    top = len(LABELS) - 1
    logic = table.column("logic").combine_chunks()
    tokens = logic.flatten()
    ids = tokens.flatten()
    if not len(ids) or (pc.max(ids).as_py() or 0) <= top:
        return
    at = pc.index(pc.greater(ids, top), True).as_py()
    row = pc.list_parent_indices(logic)[pc.list_parent_indices(tokens)[at].as_py()].as_py()
    doc = table.column("id")[row].as_py()
    raise DataFormatError(Errors.E511.format(where=f"{path}, document {doc!r}",
                                             value=ids[at].as_py()))


def carries_version(path: Path) -> bool:
    """Whether ``path`` is an Arrow IPC file whose schema carries logicparse's version key, of
    any version (only its footer is read): a shard that logicparse wrote."""
    try:
        with pa.memory_map(str(path)) as source:
            return VERSION_KEY in (pa.ipc.open_file(source).schema.metadata or {})
    except (OSError, pa.ArrowException):
        return False


def shard_paths(out_dir: Path) -> list[Path]:
    """The finished shards of a directory, in order (temporary files are never listed)."""
    return sorted(p for p in Path(out_dir).glob(SHARD_GLOB) if SHARD_RE.match(p.name))


def write_manifest(out_dir: Path, manifest: dict) -> None:
    tmp = out_dir / f"{TMP_PREFIX}{MANIFEST}.{os.getpid()}"
    try:
        tmp.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, out_dir / MANIFEST)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise OutputError(Errors.E337.format(path=out_dir / MANIFEST, reason=_reason(e))) from e


def mismatch(path: Path, entry: Optional[dict]) -> Optional[str]:
    """Why the shard file at ``path`` is not the one its manifest entry describes (None: it is)."""
    if entry is None:
        return "not listed in manifest.json"
    if not path.is_file():
        return "not a regular file"
    size = path.stat().st_size
    if entry.get("bytes") is not None and size != entry["bytes"]:
        return f"{size} bytes, manifest.json says {entry['bytes']}"
    if file_sha256(path) != entry.get("sha256"):
        return "sha256 differs from manifest.json"
    return None


def read_manifest(out_dir: Path) -> Optional[dict]:
    """The manifest of ``out_dir`` (None: there is none), checked as far as it is used: a
    damaged one is a DataFormatError (E342) naming what is wrong, never a traceback."""
    path = Path(out_dir) / MANIFEST
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, RecursionError, ValueError) as e:
        reason = "empty" if not path.stat().st_size else f"not JSON: {e}"
        raise DataFormatError(Errors.E342.format(path=path, reason=reason)) from None
    problem = _manifest_problem(manifest)
    if problem:
        raise DataFormatError(Errors.E342.format(path=path, reason=problem))
    return manifest


_ENTRY_TYPES = {"file": str, "sha256": str, "bytes": int, "rows": int, "failed": int}


def _manifest_problem(m) -> Optional[str]:
    if not isinstance(m, dict):
        return f"it holds a JSON {type(m).__name__}, not an object"
    shards = m.get("shards", [])
    if not isinstance(shards, list):
        return f"'shards' is a {type(shards).__name__}, not a list"
    for i, e in enumerate(shards):
        if not isinstance(e, dict):
            return f"shards[{i}] is a {type(e).__name__}, not an object"
        for key, kind in _ENTRY_TYPES.items():
            if not isinstance(e.get(key), kind) or isinstance(e.get(key), bool):
                return f"shards[{i}].{key} is missing or not a {kind.__name__}"
        if not SHARD_RE.match(e["file"]):
            return f"shards[{i}].file {e['file']!r} is not a shard name (shard-NNNNN.arrow)"
    return None


def checked_paths(out_dir, allow_incomplete: bool = False, verify: bool = False) -> list[Path]:
    """The shards of ``out_dir`` in order, once the directory is checked: a shard directory at
    all (E312), this schema version (E313), a finished run unless ``allow_incomplete`` (E319),
    and with ``verify`` every shard's size and sha256 against the manifest (E314)."""
    out_dir = Path(out_dir)
    manifest = read_manifest(out_dir)
    paths = shard_paths(out_dir)
    if manifest is None and not paths:
        why = ("no manifest.json and no shard-*.arrow files" if out_dir.is_dir() else
               "it does not exist" if not out_dir.exists() else "it is a file")
        raise DataFormatError(Errors.E312.format(path=out_dir, why=why))
    if manifest is not None:
        if manifest.get("schema_version") != SCHEMA_VERSION:
            raise DataFormatError(Errors.E313.format(path=out_dir, found=manifest.get(
                "schema_version"), expected=SCHEMA_VERSION))
        if not manifest.get("complete") and not allow_incomplete:
            raise DataFormatError(Errors.E319.format(
                path=out_dir, done=len(paths), total=manifest.get("planned_shards", "?")))
        if verify and manifest.get("complete"):
            for entry in manifest["shards"]:
                p = out_dir / entry["file"]
                if not p.exists():
                    raise DataFormatError(Errors.E314.format(path=p, reason="file missing"))
                reason = mismatch(p, entry)
                if reason is not None:
                    raise DataFormatError(Errors.E314.format(path=p, reason=reason))
    return paths


def read_shards(out_dir, columns: Optional[list[str]] = None, allow_incomplete: bool = False,
                verify: bool = False) -> pa.Table:
    """All shards of ``out_dir`` as one ``pyarrow.Table`` (schema ARROW_SCHEMA, input order).

    Raises DataFormatError for an unfinished run unless ``allow_incomplete``; ``verify`` checks
    every shard's sha256 against the manifest first."""
    paths = checked_paths(Path(out_dir), allow_incomplete, verify)
    tables = [read_shard(p, columns) for p in paths]
    if not tables:
        schema = (pa.schema([ARROW_SCHEMA.field(c) for c in columns]) if columns
                  else ARROW_SCHEMA)
        return schema.empty_table()
    return pa.concat_tables(tables)


def iter_documents(path, allow_incomplete: bool = False, verify: bool = False
                   ) -> Iterator[Document]:
    """Every Document of the shard directory ``path`` in input order, one shard in memory at a
    time (checked as :func:`checked_paths` says). A ``.json`` file (a list of Document dicts, as
    the service returns them) or a ``.jsonl`` file (one per line) is read as well."""
    path = Path(path)
    if path.is_file() and path.suffix in (".json", ".jsonl"):
        with open(path, encoding="utf-8") as f:
            rows = (json.load(f) if path.suffix == ".json"
                    else (json.loads(line) for line in f if line.strip()))
            yield from (Document.from_dict(row) for row in rows)
        return
    for p in checked_paths(path, allow_incomplete, verify):
        for row in read_shard(p).to_pylist():
            yield Document.from_dict(row)


def write_documents(out_dir, docs: Sequence[Document], **manifest) -> dict:
    """Documents made in process (not by ``logicparse annotate``) as a finished shard directory:
    one shard and its manifest, so they are read and verified like any run. ``manifest`` adds
    keys (``parser``, ``senses``); returns the manifest."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    entry = write_shard(out_dir, 0, documents_to_table(docs))
    m = {"format": FORMAT, "schema_version": SCHEMA_VERSION, "complete": True,
         "documents": entry["rows"], "planned_shards": 1, "compression": COMPRESSION,
         "failed": entry["failed"], **manifest, "shards": [entry]}
    write_manifest(out_dir, m)
    return m


# A folder of shard directories (a training cache: one run per label source) holds a handful of
# folders; more than this is some other tree (a link to / or to a home folder) whose walk would
# take hours.
MAX_SEARCH_DIRS = 10_000


def find_shard_dirs(root) -> list[Path]:
    """The shard directories at or under ``root`` (sorted): those with a manifest.json or with
    shard files. ``root`` itself may be a link; links to folders below it are not followed (they
    may lead anywhere, or back up), and a tree of more than MAX_SEARCH_DIRS folders is refused
    (E348) rather than walked."""
    root = Path(root)
    if not root.is_dir():
        return []
    found = []
    for i, (top, _, files) in enumerate(os.walk(root)):  # os.walk enters no link to a folder
        if i >= MAX_SEARCH_DIRS:
            raise DataFormatError(Errors.E348.format(path=root, n=MAX_SEARCH_DIRS))
        if MANIFEST in files or any(SHARD_RE.match(f) for f in files):
            found.append(Path(top))
    return sorted(found)


def find_document(out_dir, doc_id: str) -> Document:
    """The Document with ``doc_id`` (first match), reading only the id column of each shard
    until found."""
    paths = checked_paths(Path(out_dir), allow_incomplete=True, verify=False)
    examples, n = [], 0
    for p in paths:
        ids = read_shard(p, ["id"]).column("id")
        n += len(ids)
        hit = pc.index(ids, doc_id).as_py()
        if hit >= 0:
            return Document.from_dict(read_shard(p).slice(hit, 1).to_pylist()[0])
        examples.extend(ids.slice(0, 3 - len(examples)).to_pylist() if len(examples) < 3 else [])
    raise DataFormatError(Errors.E315.format(id=doc_id, path=out_dir, n=n,
                                             examples=", ".join(map(repr, examples)) or "(none)"))
