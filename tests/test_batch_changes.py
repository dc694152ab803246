"""An input that changes while a run reads it (appended to, truncated) gives rows with an E322
error, never rows of the new content under the old identity; a resume with the inputs restored
annotates those rows again."""

import json
import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import logicparse.batch.run as run_module
from logicparse.batch import read_manifest, read_shards
from logicparse.batch.changes import file_stats
from logicparse.batch.inputs import ReadOptions, read_documents, resolve_inputs
from logicparse.cli import _register, app

FIX = Path(__file__).parent / "fixtures" / "batch"
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
