"""Shard files and their readers: schema, determinism, atomic writes, pyarrow and datasets,
manifest checks and the worker's memory (stats and the terminal view: test_batch_view.py).
Documents come from ``annotate_trees`` (no parser)."""

import json
import os
from pathlib import Path

import pyarrow as pa
import pytest

import logicparse
from logicparse.batch import shards as sh
from logicparse.errors import DataFormatError, LogicparseError
from logicparse.tokens import ARROW_SCHEMA, SCHEMA_VERSION, Document

TREES = [
    ["(S (NP (PRP I)) (VP (MD will) (RB not) (VP (VB go) (SBAR (IN if) (S (NP (PRP it)) "
     "(VP (VBZ rains)))))) (. .))"],
    ["(S (NP (NNS Cats) (CC and) (NNS dogs)) (VP (VBP play)) (. .))",
     "(S (CC But) (NP (PRP they)) (VP (VBP fight)) (. .))"],
]


def docs():
    out = [logicparse.annotate_trees(t, id=f"d{i}") for i, t in enumerate(TREES)]
    out.append(Document.failed("bad", "some text", "ValueError: boom"))
    return out


def write_dir(path, manifest_extra=None):
    path.mkdir(parents=True, exist_ok=True)
    entries = [sh.write_shard(path, 0, sh.documents_to_table(docs()[:2])),
               sh.write_shard(path, 1, sh.documents_to_table(docs()[2:]))]
    sh.write_manifest(path, {"format": sh.FORMAT, "schema_version": SCHEMA_VERSION,
                             "complete": True, "shards": entries, "parser": "p", "senses": None,
                             **(manifest_extra or {})})
    return entries


def test_shard_has_exactly_the_document_schema_and_round_trips(tmp_path):
    write_dir(tmp_path)
    with pa.memory_map(str(tmp_path / "shard-00000.arrow")) as f:
        table = pa.ipc.open_file(f).read_all()
    assert table.schema.equals(ARROW_SCHEMA, check_metadata=True)
    assert [Document.from_dict(r) for r in sh.read_shards(tmp_path).to_pylist()] == docs()
    assert list(sh.iter_documents(tmp_path)) == docs()


def test_confidence_is_one_number_in_shards_json_and_to_dict(tmp_path):
    # A classifier's probability (float64) is stored as float32 in a shard: the Document read
    # back must equal the one the service sends and to_dict() gives, to the last digit.
    doc = logicparse.annotate_trees(TREES[0], id="c")
    for rel, p in zip(doc.relations, (0.8734561298, 1 / 3, 0.1 + 0.2)):
        rel.confidence = p
    doc = Document.from_dict(doc.to_dict())
    sh.write_documents(tmp_path / "s", [doc])
    back = next(sh.iter_documents(tmp_path / "s"))
    rest = json.loads(json.dumps(doc.to_dict()))
    assert back.to_dict() == doc.to_dict() == rest
    assert [r["confidence"] for r in rest["relations"]] == [0.8735, 0.3333]
    # Arrow readers see the float32 of that number.
    table = sh.read_shards(tmp_path / "s")
    stored = table.column("relations").to_pylist()[0][0]["confidence"]
    assert round(stored, 4) == 0.8735


def test_same_rows_give_the_same_bytes_whatever_the_chunking(tmp_path):
    t = sh.documents_to_table(docs())
    a = sh.write_shard(tmp_path, 0, t)["sha256"]
    chunked = pa.concat_tables([t.slice(0, 1), t.slice(1)])
    assert chunked.column("id").num_chunks == 2
    b = sh.write_shard(tmp_path, 1, chunked)["sha256"]
    assert a == b


def test_zstd_compressed(tmp_path):
    table = sh.documents_to_table(docs() * 50)
    sh.write_shard(tmp_path, 0, table)
    with pa.memory_map(str(tmp_path / "shard-00000.arrow")) as f:
        assert pa.ipc.open_file(f).num_record_batches == 1
    plain = pa.BufferOutputStream()
    with pa.ipc.new_file(plain, table.schema) as w:
        w.write_table(table)
    # Arrow stores a buffer uncompressed where zstd would not shrink it; on real rows it does.
    assert (tmp_path / "shard-00000.arrow").stat().st_size < plain.getvalue().size / 3


def test_datasets_loads_the_shards(tmp_path):
    import datasets

    write_dir(tmp_path)
    ds = datasets.load_dataset("arrow", data_files=str(tmp_path / "shard-*.arrow"), split="train",
                               cache_dir=str(tmp_path / "hf-cache"))
    assert ds.num_rows == 3
    assert ds[0]["id"] == "d0" and ds[2]["error"] == "ValueError: boom"
    assert ds[1]["relations"][0]["relation"] == sh.read_shards(tmp_path).column(
        "relations")[1][0]["relation"].as_py()


def test_write_is_atomic_no_temporary_file_left(tmp_path, monkeypatch):
    class Boom(Exception):
        pass

    def broken_replace(a, b):
        raise Boom

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(Boom):
        sh.write_shard(tmp_path, 0, sh.documents_to_table(docs()))
    assert list(tmp_path.iterdir()) == []


def test_unfinished_run_is_refused_unless_allowed(tmp_path):
    write_dir(tmp_path, {"complete": False, "planned_shards": 5})
    with pytest.raises(DataFormatError, match="unfinished run \\(2 of 5 shards\\)"):
        sh.read_shards(tmp_path)
    assert sh.read_shards(tmp_path, allow_incomplete=True).num_rows == 3


def test_verify_detects_a_changed_shard(tmp_path):
    write_dir(tmp_path)
    sh.read_shards(tmp_path, verify=True)
    sh.write_shard(tmp_path, 1, sh.documents_to_table(docs()[:1]))
    with pytest.raises(DataFormatError, match="shard-00001.arrow does not match manifest.json"):
        sh.read_shards(tmp_path, verify=True)


def test_checked_paths_refuses_unfinished_runs_and_verifies_only_when_asked(tmp_path):
    # What stats and the aligner rely on when they call it with its defaults.
    write_dir(tmp_path / "unfinished", {"complete": False, "planned_shards": 5})
    with pytest.raises(DataFormatError, match="unfinished run"):
        sh.checked_paths(tmp_path / "unfinished")
    write_dir(tmp_path / "changed")
    sh.write_shard(tmp_path / "changed", 1, sh.documents_to_table(docs()[:1]))
    assert [p.name for p in sh.checked_paths(tmp_path / "changed")] == [
        "shard-00000.arrow", "shard-00001.arrow"]
    with pytest.raises(DataFormatError, match="does not match manifest.json"):
        sh.checked_paths(tmp_path / "changed", verify=True)


def test_schema_version_is_checked(tmp_path):
    write_dir(tmp_path, {"schema_version": "0"})
    with pytest.raises(DataFormatError, match="schema version 0"):
        sh.read_shards(tmp_path)


def test_not_a_shard_dir_says_what_it_is(tmp_path):
    with pytest.raises(DataFormatError, match="not a shard directory: no manifest.json"):
        sh.read_shards(tmp_path)
    with pytest.raises(DataFormatError, match="not a shard directory: it does not exist"):
        sh.read_shards(tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(DataFormatError, match="not a shard directory: it is a file"):
        sh.read_shards(tmp_path / "file")


def test_find_document(tmp_path):
    write_dir(tmp_path)
    assert sh.find_document(tmp_path, "bad").error == "ValueError: boom"
    assert sh.find_document(tmp_path, "d1") == docs()[1]
    with pytest.raises(DataFormatError, match="No document with id 'zz'.*3 documents"):
        sh.find_document(tmp_path, "zz")


def test_overwrite_removes_only_shards_manifest_and_temporary_files(tmp_path):
    from logicparse.batch.outdir import prepare as _prepare_dir

    write_dir(tmp_path)
    (tmp_path / ".tmp-shard-00002.arrow.123").write_bytes(b"half a shard")
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(DataFormatError, match="different run"):
        _prepare_dir(tmp_path, "another-fingerprint", overwrite=False)
    assert _prepare_dir(tmp_path, "another-fingerprint", overwrite=True) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_worker_hands_freed_heap_back_to_the_os():
    # A worker's RSS crept up chunk after chunk because glibc kept the pages of freed parse
    # charts; workers now trim after every chunk. Fragment the heap the same way: free most of
    # many small blocks while every 50th stays alive, so no free space sits at the heap's top.
    import psutil

    from logicparse.batch.worker import _libc_malloc_trim, release_free_memory

    if _libc_malloc_trim() is None:
        pytest.skip("not glibc: there is no malloc_trim, and nothing to trim")

    proc = psutil.Process()
    blocks = [bytearray(1000) for _ in range(300_000)]
    survivors = blocks[::50]
    del blocks
    before = proc.memory_info().rss
    release_free_memory()
    after = proc.memory_info().rss
    assert before - after > 100 * 2**20, (before, after)
    # Only free pages went back: the blocks still in use are intact.
    assert len(survivors) == 6000 and all(b == bytearray(1000) for b in survivors)


def test_worker_stats_travel_as_arrow_columns():
    from logicparse.batch.worker import WorkerStats

    stats = WorkerStats(pid=7, rss_mb=1.5, peak_rss_mb=2.0, parser="p", senses=None, load_s=0.1,
                        ready_at=3.0, parse_s=0.25)
    table = pa.table({"id": ["a", "b"]})
    for name, column in stats.arrow_columns(2, prefix="__").items():
        table = table.append_column(name, column)
    assert table.column("__pid").type == pa.int64() and table.column("__senses").null_count == 2
    assert WorkerStats.from_arrow(table.slice(1), prefix="__") == stats


def test_worker_trims_the_heap_after_every_chunk(monkeypatch):
    """Counted through the caller that must trim: the worker's chunk call, not the helper."""
    import sys

    from logicparse.batch import worker

    monkeypatch.syspath_prepend(str(Path(__file__).parents[1] / "fixtures" / "batch"))
    events = []
    monkeypatch.setattr(worker, "_libc_malloc_trim", lambda: lambda pad: events.append("trim"))
    annotator = worker.ChunkAnnotator(worker.WorkerSpec(factory="fake_pipeline:flat"))
    pipe = annotator.annotator.pipe

    def recorded_pipe(texts, **kw):
        events.append("annotate")
        return pipe(texts, **kw)

    annotator.annotator.pipe = recorded_pipe
    chunks = [worker.Chunk(0, i, (f"d{i}",), (f"Text {i} since it rained.",)) for i in range(3)]
    results = [annotator(c) for c in chunks]
    assert [r.table.num_rows for r in results] == [1, 1, 1]
    assert events == ["annotate", "trim"] * 3
    sys.modules.pop("fake_pipeline", None)


def test_verification_messages_name_the_shard_and_the_fault(tmp_path):
    entries = write_dir(tmp_path)
    assert sh.read_shards(tmp_path, verify=True).num_rows == 3
    shard = tmp_path / "shard-00001.arrow"
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, other bytes
    shard.write_bytes(bytes(data))
    with pytest.raises(DataFormatError, match=r"shard-00001.arrow does not match manifest.json "
                                              r"\(sha256 differs from manifest.json\)"):
        sh.read_shards(tmp_path, verify=True)
    sh.write_shard(tmp_path, 1, sh.documents_to_table(docs()[:1]))
    size = shard.stat().st_size
    with pytest.raises(DataFormatError, match=rf"shard-00001.arrow does not match manifest.json "
                                              rf"\({size} bytes, manifest.json says {entries[1]['bytes']}\)"):
        sh.read_shards(tmp_path, verify=True)
    assert sh.mismatch(shard, None) == "not listed in manifest.json"
    shard.unlink()
    with pytest.raises(DataFormatError, match=r"shard-00001.arrow does not match manifest.json "
                                              r"\(file missing\)"):
        sh.read_shards(tmp_path, verify=True)
    # Verification is asked for: a plain read of a changed directory does not hash the files.
    assert sh.read_shards(tmp_path).num_rows == 2 and entries[0]["rows"] == 2


def test_unfinished_runs_are_not_verified_and_unknown_totals_shown(tmp_path):
    write_dir(tmp_path, {"complete": False})
    (tmp_path / "shard-00001.arrow").unlink()  # listed, not there: an unfinished run may say so
    assert sh.read_shards(tmp_path, allow_incomplete=True, verify=True).num_rows == 2
    with pytest.raises(DataFormatError, match=rf"{tmp_path} is an unfinished run \(1 of \? shards\)"):
        sh.read_shards(tmp_path)


def test_schema_version_messages_name_directory_versions_and_files(tmp_path):
    write_dir(tmp_path, {"schema_version": "0"})
    with pytest.raises(DataFormatError, match=rf"{tmp_path} was written with shard schema version 0; "
                                              rf"this logicparse reads version {SCHEMA_VERSION}"):
        sh.read_shards(tmp_path)
    bare = tmp_path / "bare.arrow"  # an Arrow file without logicparse's schema version
    table = sh.documents_to_table(docs()).replace_schema_metadata(None)
    with pa.OSFile(str(bare), "wb") as f, pa.ipc.new_file(f, table.schema) as w:
        w.write_table(table)
    with pytest.raises(LogicparseError, match=r"\[E513\] .*bare.arrow is not a logicparse Arrow IPC "
                                              r"shard \(its schema metadata lacks"):
        sh.read_shard(bare)


def test_a_manifest_with_no_shards_yet_and_shards_without_a_manifest_are_readable(tmp_path):
    (tmp_path / "a").mkdir()
    sh.write_manifest(tmp_path / "a", {"format": sh.FORMAT, "schema_version": SCHEMA_VERSION,
                                       "complete": True, "shards": []})
    assert sh.read_shards(tmp_path / "a").num_rows == 0
    none_yet = sh.read_shards(tmp_path / "a", columns=["id", "error"])  # still the right schema
    assert none_yet.schema.equals(pa.schema([ARROW_SCHEMA.field("id"), ARROW_SCHEMA.field("error")]))
    write_dir(tmp_path / "b")
    (tmp_path / "b" / "manifest.json").unlink()
    assert sh.read_shards(tmp_path / "b").num_rows == 3
    with pytest.raises(DataFormatError, match=rf"{tmp_path / 'c'} is not a shard directory"):
        sh.read_shards(tmp_path / "c")


def test_columns_are_selected(tmp_path):
    write_dir(tmp_path)
    assert sh.read_shards(tmp_path, columns=["id"]).column_names == ["id"]
    assert sh.read_shard(tmp_path / "shard-00000.arrow", ["id", "error"]).column_names == ["id", "error"]


def test_shard_entry_counts_rows_failures_and_ids(tmp_path):
    entries = write_dir(tmp_path)
    assert [(e["file"], e["rows"], e["failed"], e["first_id"], e["last_id"]) for e in entries] == [
        ("shard-00000.arrow", 2, 0, "d0", "d1"), ("shard-00001.arrow", 1, 1, "bad", "bad")]
    assert entries[1]["sha256"] == sh.file_sha256(tmp_path / "shard-00001.arrow")
    # An entry read back from the file alone says the same.
    assert sh.shard_entry(tmp_path / "shard-00001.arrow") == entries[1]
    empty = sh.write_shard(tmp_path, 2, sh.documents_to_table([]))
    assert (empty["rows"], empty["failed"], empty["first_id"], empty["last_id"]) == (0, 0, None, None)


def test_manifest_with_non_ascii_paths_reads_back_under_any_locale(tmp_path):
    """A corpus under `données/` gives a manifest with non-ASCII text; it is written and read as
    UTF-8 whatever the locale's encoding (a C locale's is ASCII)."""
    import locale

    manifest = {"format": sh.FORMAT, "schema_version": SCHEMA_VERSION, "input": "données/é.txt"}
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        sh.write_manifest(tmp_path, manifest)
        assert sh.read_manifest(tmp_path) == manifest
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
