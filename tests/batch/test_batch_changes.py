"""An input that changes while a run reads it (appended to, truncated, edited to the same size,
its time set back or not, swapped for a link, deleted, swapped for a FIFO) gives rows with an
E322 error, never rows of the new content under the old identity; a resume with the inputs
restored annotates those rows again. Between runs, content changed under the same size and time
is found from the documents read (each shard's input digest) and annotated again."""

import json
import os
import sys
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import logicparse.batch.run as run_module
from logicparse.batch import read_manifest, read_shards
from logicparse.batch.changes import file_stats
from logicparse.batch.inputs import ReadOptions, read_documents, resolve_inputs
from logicparse.cli import _register, app

FIX = Path(__file__).parents[1] / "fixtures" / "batch"
sys.path.insert(0, str(FIX))  # the flat fake pipeline, found by the worker processes
_register()

LONG = "It rains, so we stay. " * 300  # 6,600 bytes: the size of the file truncated in the report


def test_a_text_file_changed_after_the_start_is_an_error_row(tmp_path):
    a, b, c = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "c.txt"
    for f in (a, b, c):
        f.write_text(LONG)
    specs = resolve_inputs([str(a), str(b), str(c)])
    stats = file_stats(specs)
    with a.open("a") as f:
        f.write(" Appended.")
    b.write_text("")
    docs = {d.id: d for _, d in read_documents(specs, ReadOptions(), stats=stats)}
    assert docs["a"].error.startswith("[E322]") and "6,600 bytes when the run started" in docs["a"].error
    assert docs["b"].error.startswith("[E322]") and "6,600 bytes when the run started, 0 " in docs["b"].error
    assert docs["c"].error is None and docs["c"].text == LONG
    # Without the recorded stats (the library's reader alone) nothing is checked.
    assert all(d.error is None for _, d in read_documents(specs, ReadOptions()))


@pytest.mark.parametrize("change", ["append", "truncate"])
def test_a_jsonl_file_changed_midway_marks_the_rest(tmp_path, change):
    f = tmp_path / "d.jsonl"
    f.write_text("".join(json.dumps({"id": f"r{i}", "text": f"Text {i}."}) + "\n" for i in range(6)))
    specs = resolve_inputs([str(f)])
    stats = file_stats(specs)
    docs = read_documents(specs, ReadOptions(), stats=stats)
    first = [next(docs)[1] for _ in range(2)]
    if change == "append":
        with f.open("a") as out:
            out.write(json.dumps({"id": "new", "text": "New."}) + "\n")
    else:
        os.truncate(f, 10)
    rest = [d for _, d in docs]
    assert [d.error for d in first] == [None, None]
    assert rest and all(d.error and d.error.startswith("[E322]") for d in rest)



def test_a_record_file_changed_after_its_last_record_adds_an_error_row(tmp_path):
    f = tmp_path / "d.jsonl"
    f.write_text("".join(json.dumps({"id": f"r{i}", "text": f"Text {i}."}) + "\n" for i in range(3)))
    specs = resolve_inputs([str(f)])
    docs = read_documents(specs, ReadOptions(), stats=file_stats(specs))
    first = [next(docs)[1] for _ in range(3)]
    os.truncate(f, 10)  # e.g. truncated while the reader had the rest buffered
    rest = [d for _, d in docs]
    assert [d.error for d in first] == [None] * 3
    assert [d.id for d in rest] == ["d:changed"] and rest[0].error.startswith("[E322]")


def _annotate(inputs, out):
    return CliRunner().invoke(app, ["annotate", *map(str, inputs), "--out", str(out),
                                    "--senses", "none", "--workers", "1", "--shard-size", "2",
                                    "--annotator", "fake_pipeline:flat"])


def test_run_records_changes_and_resume_with_restored_inputs_redoes_them(tmp_path, monkeypatch):
    src = tmp_path / "in"
    src.mkdir()
    for name in ("a", "b", "c"):
        (src / f"{name}.txt").write_text(LONG)
    times = {f: f.stat().st_mtime_ns for f in src.iterdir()}
    real = run_module.file_stats

    def stats_then_change(specs):  # the inputs change right after the run has looked at them
        stats = real(specs)
        with (src / "a.txt").open("a") as f:
            f.write(" Appended while the run read.")
        (src / "b.txt").write_text("")
        return stats

    monkeypatch.setattr(run_module, "file_stats", stats_then_change)
    res = _annotate([src], tmp_path / "out")
    assert res.exit_code == 0, res.output
    rows = {r["id"]: r for r in read_shards(tmp_path / "out").to_pylist()}
    assert rows["a"]["error"].startswith("[E322]") and rows["b"]["error"].startswith("[E322]")
    assert rows["c"]["error"] is None and len(rows["c"]["tokens"]) > 0
    assert read_manifest(tmp_path / "out")["failed"] == 2

    monkeypatch.setattr(run_module, "file_stats", real)
    for f, t in times.items():  # restored: the same bytes and modification times
        f.write_text(LONG)
        os.utime(f, ns=(t, t))
    res = _annotate([src], tmp_path / "out")
    assert res.exit_code == 0, res.output
    m = read_manifest(tmp_path / "out")
    rows = {r["id"]: r for r in read_shards(tmp_path / "out").to_pylist()}
    assert m["complete"] and m["failed"] == 0
    assert all(r["error"] is None and len(r["tokens"]) > 0 for r in rows.values())
    assert m["run"]["rewritten_shards"] and m["run"]["resumed_shards"] == 1


def test_rows_moved_by_a_changed_input_are_redone_not_refused(tmp_path, monkeypatch):
    d = tmp_path / "d.jsonl"
    original = "".join(json.dumps({"id": f"r{i}", "text": f"Text {i}."}) + "\n" for i in range(2))
    d.write_text(original)
    texts = [tmp_path / f"c{i}.txt" for i in range(3)]
    for f in texts:
        f.write_text("It rains, so we stay.")
    t = d.stat().st_mtime_ns
    real = run_module.file_stats

    def stats_then_append(specs):
        stats = real(specs)
        with d.open("a") as f:
            f.write(json.dumps({"id": "new", "text": "New."}) + "\n")
        return stats

    monkeypatch.setattr(run_module, "file_stats", stats_then_append)
    assert _annotate([d, *texts], tmp_path / "out").exit_code == 0
    ids = read_shards(tmp_path / "out").column("id").to_pylist()
    assert ids == ["r0", "r1", "new", "c0", "c1", "c2"]  # shards of 2: the last holds c1, c2
    monkeypatch.setattr(run_module, "file_stats", real)
    d.write_text(original)
    os.utime(d, ns=(t, t))
    res = _annotate([d, *texts], tmp_path / "out")
    assert res.exit_code == 0, res.output
    table = read_shards(tmp_path / "out")
    assert table.column("id").to_pylist() == ["r0", "r1", "c0", "c1", "c2"]
    assert table.column("error").to_pylist() == [None] * 5


# -- changes that keep a file's size (and time): an edit, a link swapped in, a file lost --------
SAME = "it" + LONG[2:]  # one letter other than LONG's: the same size


def _three_files(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    for name in ("a", "b", "c"):
        (src / f"{name}.txt").write_text(LONG)
    return src


def _edit(f, tmp_path, time_set_back=True):
    t = f.stat().st_mtime_ns
    time.sleep(0.05)  # a file's ctime comes from the kernel's coarse clock: let it move on
    f.write_text(SAME)
    os.utime(f, ns=(t, t) if time_set_back else (t + 10**9, t + 10**9))


def _swap_for_link(f, tmp_path):
    t = f.stat().st_mtime_ns
    other = tmp_path / "elsewhere.txt"
    other.write_text(SAME)
    os.utime(other, ns=(t, t))
    f.unlink()
    f.symlink_to(other)


CHANGES = {"edit": lambda f, tmp: _edit(f, tmp, time_set_back=False),
           "edit, time set back": _edit, "swap for a link": _swap_for_link}


def _after_first_document(monkeypatch, change):
    """The run's reader, with ``change`` made once the first document has been read."""
    real = run_module.read_documents

    def reading(*args, **kwargs):
        docs = real(*args, **kwargs)
        yield next(docs)
        change()
        yield from docs

    monkeypatch.setattr(run_module, "read_documents", reading)
    return real


@pytest.mark.parametrize("change, reason", [
    ("edit", "it was modified after the run started (same size)"),
    ("edit, time set back", "it was written to after the run started, its size and time kept"),
    ("swap for a link", "it was replaced by another file after the run started")])
def test_a_same_size_change_mid_run_is_noticed(tmp_path, monkeypatch, change, reason):
    src = _three_files(tmp_path)
    _after_first_document(monkeypatch, lambda: CHANGES[change](src / "b.txt", tmp_path))
    res = _annotate([src], tmp_path / "out")
    assert res.exit_code == 0, res.output
    rows = {r["id"]: r for r in read_shards(tmp_path / "out").to_pylist()}
    assert rows["b"]["error"].startswith("[E322]") and reason in rows["b"]["error"]
    assert rows["a"]["error"] is None and rows["c"]["error"] is None


@pytest.mark.parametrize("change", ["edit, time set back", "swap for a link"])
def test_a_rerun_redoes_what_changed_under_the_same_size_and_time(tmp_path, change):
    src = _three_files(tmp_path)
    assert _annotate([src], tmp_path / "out").exit_code == 0
    CHANGES[change](src / "b.txt", tmp_path)
    res = _annotate([src], tmp_path / "out")
    assert res.exit_code == 0, res.output
    rows = {r["id"]: r for r in read_shards(tmp_path / "out").to_pylist()}
    assert rows["b"]["text"] == SAME and rows["b"]["error"] is None
    assert rows["b"]["tokens"][0] == "it"
    m = read_manifest(tmp_path / "out")
    assert m["complete"] and m["failed"] == 0 and m["run"]["resumed_shards"] == 1
    [rewritten] = m["run"]["rewritten_shards"]
    assert rewritten["file"] == "shard-00000.arrow" and "differ from those" in rewritten["reason"]


@pytest.mark.parametrize("loss, reason", [("deleted", "it is gone or unreadable now"),
                                          ("fifo", "it is a FIFO (named pipe) now")])
def test_an_input_lost_mid_run_and_restored_is_redone_by_the_next_run(tmp_path, monkeypatch,
                                                                     loss, reason):
    src = _three_files(tmp_path)
    b = src / "b.txt"
    t = b.stat().st_mtime_ns

    def lose():
        b.unlink()
        if loss == "fifo":
            os.mkfifo(b)

    real = _after_first_document(monkeypatch, lose)
    res = _annotate([src], tmp_path / "out")
    assert res.exit_code == 0, res.output
    assert read_manifest(tmp_path / "out")["failed_ids"] == ["b"]
    error = {r["id"]: r for r in read_shards(tmp_path / "out").to_pylist()}["b"]["error"]
    assert error.startswith("[E322]") and reason in error
    assert "rerun the same command" in error  # not --overwrite: that would redo everything

    monkeypatch.setattr(run_module, "read_documents", real)
    b.unlink(missing_ok=True)
    b.write_text(LONG)  # restored exactly: the same bytes and time
    os.utime(b, ns=(t, t))
    res = _annotate([src], tmp_path / "out")
    assert res.exit_code == 0, res.output
    m = read_manifest(tmp_path / "out")
    assert m["complete"] and m["failed"] == 0 and m["failed_ids"] == []
    assert m["run"]["resumed_shards"] == 1 and m["run"]["documents_annotated"] == 2
    assert [s["file"] for s in m["run"]["rewritten_shards"]] == ["shard-00000.arrow"]
    assert all(r["error"] is None for r in read_shards(tmp_path / "out").to_pylist())


def _read_or_release(specs, stats, fifo):
    """The documents read; a reader that waits on ``fifo`` is let go and the test fails."""
    got = []
    reader = threading.Thread(daemon=True, target=lambda: got.extend(
        d for _, d in read_documents(specs, ReadOptions(), stats=stats)))
    reader.start()
    reader.join(10)
    if reader.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # a writer ends the reader's wait
        reader.join(10)
        pytest.fail(f"reading {fifo} waited for a writer")
    return got


@pytest.mark.parametrize("suffix", ["parquet", "arrow"])
def test_a_table_input_swapped_for_a_fifo_is_a_row_never_a_wait(tmp_path, suffix):
    f = tmp_path / f"t.{suffix}"
    table = pa.table({"id": ["x"], "text": ["It rains."]})
    if suffix == "parquet":
        pq.write_table(table, f)
    else:
        feather.write_feather(table, f)
    specs = resolve_inputs([str(f)])
    stats = file_stats(specs)
    f.unlink()
    os.mkfifo(f)
    docs = _read_or_release(specs, stats, f)
    assert [d.id for d in docs] == ["t"]
    assert docs[0].error.startswith("[E322]") and "it is a FIFO (named pipe) now" in docs[0].error
    docs = _read_or_release(specs, None, f)  # the library's reader alone: not a regular file
    assert [d.id for d in docs] == ["t"] and docs[0].error.startswith("[E339]")
