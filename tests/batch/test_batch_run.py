"""`logicparse annotate` end to end with the real bundled parser (senses off): every input kind,
one row per document, failures recorded, crashes survived, resume, interruption, determinism.

Faults are injected by marker words through ``tests/fixtures/batch/fake_pipeline.py``, which
wraps the real bundled parser (the rest of the pipeline is the real one)."""

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from logicparse.batch import read_manifest, read_shards
from logicparse.batch.shards import file_sha256
from logicparse.cli import _register, app
from logicparse.errors import DataFormatError
from logicparse.tokens import ARROW_SCHEMA

pytestmark = pytest.mark.slow

FIX = Path(__file__).parents[1] / "fixtures" / "batch"
CORPUS = FIX / "corpus"
# Worker processes are spawned: they find the fault-injecting pipeline through sys.path.
sys.path.insert(0, str(FIX))
_register()

STDIN = b"Either we leave now or we miss the train.\nKILL_THE_WORKER if you can.\n"
EXPECTED_IDS = ["alpha", "beta", "letters/empty", "letters/gamma", "letters/latin1",
                "j-1", "j-2", "docs:4", "p-1", "t:2", "p-3", "stdin:1", "stdin:2"]


def cli(*args, stdin=None):
    return CliRunner().invoke(app, [str(a) for a in args], input=stdin)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("inputs")
    table = pa.table({"doc_id": ["p-1", None, "p-3"],
                      "body": ["Nothing happened, since the door was locked.",
                               "The plan failed because RAISE_IN_PARSER was set.", None]})
    pq.write_table(table, d / "t.parquet")
    return [CORPUS, FIX / "docs.jsonl", d / "t.parquet", "-"]


def annotate_args(inputs, out, *extra):
    return ["annotate", *inputs, "--out", out, "--shard-size", 2, "--senses", "none",
            "--text-field", "body", "--id-field", "doc_id",
            "--annotator", "fake_pipeline:bundled", *extra]


@pytest.fixture(scope="module")
def run(inputs, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "shards"
    r = cli(*annotate_args(inputs, out, "--workers", 2), stdin=STDIN)
    assert r.exit_code == 0, r.output
    return out, r


def test_every_document_gives_exactly_one_row_in_input_order(run):
    out, _ = run
    table = read_shards(out, verify=True)
    assert table.schema.equals(ARROW_SCHEMA, check_metadata=True)
    assert table.column("id").to_pylist() == EXPECTED_IDS
    m = read_manifest(out)
    assert m["complete"] and m["documents"] == 13
    assert [s["rows"] for s in m["shards"]] == [2, 2, 2, 2, 2, 2, 1]
    for s in m["shards"]:
        assert file_sha256(out / s["file"]) == s["sha256"]


def test_failures_are_rows_with_error_and_the_run_goes_on(run):
    out, r = run
    rows = {d["id"]: d for d in read_shards(out).to_pylist()}
    assert "injected parser failure" in rows["t:2"]["error"]
    assert "worker process died" in rows["stdin:2"]["error"]
    assert rows["p-3"]["error"].startswith("[E335]") and "is null" in rows["p-3"]["error"]
    failed = {"t:2", "stdin:2", "p-3"}
    for doc_id, row in rows.items():
        if doc_id in failed:
            assert row["tokens"] == [] and row["relations"] == []
        else:
            assert row["error"] is None, (doc_id, row["error"])
    # Their shard-mates were annotated for real (the crash retried them one by one).
    assert rows["stdin:1"]["tokens"][:3] == ["Either", "we", "leave"]
    assert {x["relation"] for x in rows["stdin:1"]["relations"]} == {"disjunction"}
    assert rows["letters/empty"]["tokens"] == [] and rows["letters/empty"]["error"] is None
    m = read_manifest(out)
    assert m["failed"] == 3 and set(m["failed_ids"]) == failed
    assert "failed ids:" in r.stderr


def test_manifest_records_models_versions_inputs_and_decoding(run):
    m = read_manifest(run[0])
    assert m["schema_version"] == "1" and m["compression"] == "zstd"
    assert m["parser"] and m["parser"] != "fake_pipeline:bundled" and m["senses"] is None
    assert {"logicparse", "pyarrow", "torch", "spacy", "benepar", "python"} <= set(m["versions"])
    assert [i["kind"] for i in m["inputs"]] == ["dir", "jsonl", "parquet", "stdin"]
    assert [i["documents"] for i in m["inputs"]] == [5, 3, 3, 2]
    assert m["inputs"][0]["decoding_fallback"] == 1
    assert m["inputs"][0]["fallback_ids"] == ["letters/latin1"]
    assert m["decoding"] == {"encoding": "utf-8", "fallback": "latin-1", "documents": 1}
    latin = next(d for d in read_shards(run[0]).to_pylist() if d["id"] == "letters/latin1")
    assert "café" in latin["text"] and "café" in latin["tokens"]
    mem = m["run"]["memory"]
    # Which of the 2 workers (or the replacement of the one the test kills) gets to report
    # depends on scheduling: a worker still loading its models may get no chunk at all.
    peaks = mem["peak_rss_mb_per_worker"]
    assert 1 <= len(peaks) <= 3 and all(v > 0 for v in peaks.values())
    assert mem["first_shard"]["workers_rss_mb"] and mem["last_shard"]["workers_rss_mb"]


def test_plain_progress_lines_when_not_a_terminal(run):
    err = run[1].stderr
    # stdin is among the inputs, so the total is not known in advance: counts without ETA.
    assert "annotate: 13 documents" in err and "docs/s" in err and "sentences/s" in err


def test_pyarrow_and_datasets_read_the_shards(run, tmp_path):
    import datasets

    out = run[0]
    with pa.memory_map(str(out / "shard-00000.arrow")) as f:
        assert pa.ipc.open_file(f).read_all().column("id").to_pylist() == ["alpha", "beta"]
    files = sorted(str(p) for p in out.glob("shard-*.arrow"))
    ds = datasets.load_dataset("arrow", data_files=files, split="train",
                               cache_dir=str(tmp_path / "hf"))
    assert ds["id"] == EXPECTED_IDS
    assert ds[0]["logic"] == read_shards(out).column("logic")[0].as_py()


def test_rerun_resumes_finished_shards_and_redoes_a_missing_one(run, inputs, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(run[0], out)
    before = read_manifest(out)["shards"]
    r = cli(*annotate_args(inputs, out, "--quiet"), stdin=STDIN)
    assert r.exit_code == 0, r.output
    m = read_manifest(out)
    assert m["run"]["resumed_shards"] == 7 and m["run"]["documents_annotated"] == 0
    assert m["shards"] == before
    (out / "shard-00002.arrow").unlink()
    r = cli(*annotate_args(inputs, out, "--quiet"), stdin=STDIN)
    assert r.exit_code == 0, r.output
    m = read_manifest(out)
    assert m["run"]["resumed_shards"] == 6 and m["run"]["documents_annotated"] == 2
    assert m["shards"] == before  # same bytes as the first time


def test_rerun_with_other_settings_is_refused(run, inputs, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(run[0], out)
    r = cli(*annotate_args(inputs, out, "--shard-size", 3), stdin=STDIN)
    assert r.exit_code == 2 and "different run" in r.output and "--overwrite" in r.output
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "notes.txt").write_text("mine")
    r = cli(*annotate_args(inputs, junk), stdin=STDIN)
    assert r.exit_code == 2 and "not a logicparse shard directory" in r.output
    assert (junk / "notes.txt").read_text() == "mine"


def test_sigterm_leaves_whole_shards_and_resume_matches_an_uninterrupted_run(run, inputs, tmp_path):
    """Interrupted with 1 worker, resumed: the shards equal the 2-worker run's, byte for byte."""
    out = tmp_path / "interrupted"
    args = annotate_args(inputs, out, "--workers", 1, "--quiet")
    args[args.index("fake_pipeline:bundled")] = "fake_pipeline:slow_bundled"
    cmd = [sys.executable, "-c", "from logicparse.cli import main; main()", *map(str, args)]
    path = os.pathsep.join([str(FIX), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdin.write(STDIN)
    proc.stdin.close()
    deadline = time.monotonic() + 240
    while not list(out.glob("shard-*.arrow")) and time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 130
    assert "rerun the same command to resume" in proc.stderr.read().decode()
    written = sorted(p.name for p in out.glob("shard-*.arrow"))
    assert 1 <= len(written) < 7
    assert not [p for p in out.iterdir() if p.name.startswith(".tmp-")]
    assert read_manifest(out)["complete"] is False
    with pytest.raises(DataFormatError, match="unfinished run"):
        read_shards(out)
    assert read_shards(out, allow_incomplete=True).num_rows == 2 * len(written)

    r = cli(*args, stdin=STDIN)
    assert r.exit_code == 0, r.output
    m = read_manifest(out)
    assert m["complete"] and m["run"]["resumed_shards"] == len(written)
    uninterrupted = read_manifest(run[0])["shards"]
    assert [s["sha256"] for s in m["shards"]] == [s["sha256"] for s in uninterrupted]


def test_resume_verifies_every_shard_and_redoes_those_that_differ(run, inputs, tmp_path):
    """A flipped byte, a truncated shard and a shard the manifest does not list are each
    annotated again (and named); the final shards equal the uninterrupted run's."""
    out = tmp_path / "copy"
    shutil.copytree(run[0], out)
    before = read_manifest(out)["shards"]
    flipped = bytearray((out / "shard-00001.arrow").read_bytes())
    flipped[len(flipped) // 2] ^= 0xFF
    (out / "shard-00001.arrow").write_bytes(bytes(flipped))
    (out / "shard-00003.arrow").write_bytes((out / "shard-00003.arrow").read_bytes()[:-10])
    m = read_manifest(out)
    m["shards"] = [e for e in m["shards"] if e["file"] != "shard-00005.arrow"]
    (out / "manifest.json").write_text(json.dumps(m))
    r = cli(*annotate_args(inputs, out, "--quiet"), stdin=STDIN)
    assert r.exit_code == 0, r.output
    m = read_manifest(out)
    assert m["run"]["resumed_shards"] == 4 and m["run"]["documents_annotated"] == 6
    assert m["run"]["rewritten_shards"] == [
        {"file": "shard-00001.arrow", "reason": "sha256 differs from manifest.json"},
        {"file": "shard-00003.arrow", "reason": f"{before[3]['bytes'] - 10} bytes, manifest.json "
                                                f"says {before[3]['bytes']}"},
        {"file": "shard-00005.arrow", "reason": "not listed in manifest.json"}]
    assert m["shards"] == before
    assert [file_sha256(p) for p in sorted(out.glob("shard-*.arrow"))] == [
        e["sha256"] for e in before]
    read_shards(out, verify=True)


def test_changed_inputs_are_named_with_the_way_on(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "a.txt").write_text("If it rains, we stay home.")
    (d / "b.txt").write_text("She left since it was late.")
    args = ["annotate", d, "--out", tmp_path / "out", "--senses", "none", "--shard-size", 1,
            "--annotator", "fake_pipeline:flat", "--quiet"]
    assert cli(*args).exit_code == 0
    (d / "a.txt").write_text("If it rains, we stay home and read.")
    (d / "c.txt").write_text("New.")
    r = cli(*args)
    assert r.exit_code == 2 and "[E310]" in r.output
    assert f"{d}/a.txt changed: 26 bytes, now 35" in r.output.replace("\n", "")
    assert "1 file(s) added to" in r.output and "c.txt" in r.output
    assert "--overwrite" in r.output and "restore the inputs" in r.output
    (d / "c.txt").unlink()
    (d / "a.txt").write_text("If it rains, we stay home.")
    r = cli(*args[:-1], "--chunk-chars", 10, "--quiet")
    assert r.exit_code == 2 and "setting chunk_chars was 20000, now 10" in r.output


def test_bad_records_are_rows_with_coded_errors_and_the_run_completes(tmp_path):
    src = tmp_path / "bad.jsonl"
    src.write_text('{"id": "ok", "text": "If it rains, we stay home."}\n{"id": "int", "text": 7}\n'
                   '{"id": "null", "text": null}\n{broken\n'
                   '{"id": "ok", "text": "Same id again."}\n')
    pq.write_table(pa.table({"text": [1, 2]}), tmp_path / "ints.parquet")
    (tmp_path / "huge.txt").write_text("word " * 200_001)
    r = cli("annotate", src, tmp_path / "ints.parquet", tmp_path / "huge.txt", "--out",
            tmp_path / "out", "--senses", "none", "--annotator", "fake_pipeline:flat")
    assert r.exit_code == 0, r.output
    rows = read_shards(tmp_path / "out").to_pylist()
    assert [(x["id"], (x["error"] or "")[:6]) for x in rows] == [
        ("ok", ""), ("int", "[E335]"), ("null", "[E335]"), ("bad:4", "[E303]"), ("ok", ""),
        ("ints:1", "[E335]"), ("ints:2", "[E335]"), ("huge", "[E333]")]
    # An over-long text keeps a prefix in its row, not all of it.
    assert rows[-1]["text"] == ("word " * 200_001)[:1000] and rows[-1]["tokens"] == []
    m = read_manifest(tmp_path / "out")
    assert m["failed"] == 6 and m["duplicate_ids"] == {"count": 1, "examples": ["ok"]}


def test_output_that_cannot_be_written_is_a_coded_error(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("not a directory")
    r = cli("annotate", CORPUS / "alpha.txt", "--out", tmp_path / "file" / "out", "--senses",
            "none", "--annotator", "fake_pipeline:flat")
    assert r.exit_code == 2 and "[E337] Cannot write" in r.output
    assert "Traceback" not in r.output

    import errno

    from logicparse.batch import shards as sh
    from logicparse.errors import OutputError

    def full(*a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(sh.pa, "OSFile", full)
    table = sh.documents_to_table([])
    with pytest.raises(OutputError) as e:
        sh.write_shard(tmp_path, 0, table)
    assert e.value.code == "E337" and "No space left on device" in str(e.value)
    assert not list(tmp_path.glob(".tmp-*"))


def test_table_schemas_are_refused_before_the_output_is_touched(tmp_path):
    pq.write_table(pa.table({"body": ["x"]}), tmp_path / "notext.parquet")
    with pa.OSFile(str(tmp_path / "notext.arrow"), "wb") as sink:
        with pa.ipc.new_file(sink, pa.schema([("body", pa.string())])) as w:
            w.write_table(pa.table({"body": ["x"]}))
    for name in ("notext.parquet", "notext.arrow"):
        out = tmp_path / f"out-{name}"
        r = cli("annotate", CORPUS / "alpha.txt", tmp_path / name, "--out", out, "--senses",
                "none", "--annotator", "fake_pipeline:flat")
        assert r.exit_code == 2 and "[E308]" in r.output and "--text-field" in r.output
        assert not out.exists()


@pytest.mark.parametrize("damage", ["", '{"format": "logicparse-shards", "shards": [',
                                    "[]", "shard-entry-string", "shards-not-list"])
def test_a_damaged_manifest_is_a_coded_error_for_every_command(tmp_path, damage):
    out = tmp_path / "out"
    args = ["annotate", CORPUS / "alpha.txt", "--out", out, "--senses", "none", "--annotator",
            "fake_pipeline:flat", "--quiet"]
    assert cli(*args).exit_code == 0
    m = json.loads((out / "manifest.json").read_text())
    text = {"shard-entry-string": json.dumps({**m, "shards": ["shard-00000.arrow"]}),
            "shards-not-list": json.dumps({**m, "shards": "all"})}.get(damage, damage)
    (out / "manifest.json").write_text(text)
    for command in (args, ["shards", "stats", out], ["shards", "show", out, "--id", "alpha"]):
        r = cli(*command)
        assert r.exit_code == 2 and "[E342]" in r.output, r.output
        assert "manifest.json is damaged" in r.output and "--overwrite" in r.output
    assert cli(*args, "--overwrite").exit_code == 0  # the fix the message names
    assert read_shards(out).column("id").to_pylist() == ["alpha"]


def test_overwrite_keeps_a_manifest_json_that_logicparse_did_not_write(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "manifest.json").write_text('{"name": "site", "files": []}')
    r = cli("annotate", CORPUS / "alpha.txt", "--out", out, "--senses", "none", "--annotator",
            "fake_pipeline:flat", "--quiet", "--overwrite")
    assert r.exit_code == 2 and "[E346]" in r.output and "Move it out" in r.output, r.output
    assert [p.name for p in out.iterdir()] == ["manifest.json"]
    assert (out / "manifest.json").read_text() == '{"name": "site", "files": []}'


def test_counts_are_rebuilt_from_the_shards_not_taken_from_the_manifest(tmp_path):
    src = tmp_path / "c.jsonl"
    src.write_text("".join(json.dumps({"id": f"d{i}", "text": "It rains."}) + "\n"
                           for i in range(5)) + '{"id": "bad", "text": 1}\n')
    out = tmp_path / "out"
    args = ["annotate", src, "--out", out, "--senses", "none", "--annotator",
            "fake_pipeline:flat", "--quiet", "--shard-size", "2"]
    assert cli(*args).exit_code == 0
    m = json.loads((out / "manifest.json").read_text())
    m["shards"] = [{**e, "rows": 500, "failed": 77} for e in m["shards"]]
    m["failed"], m["documents"] = 99, 999
    (out / "manifest.json").write_text(json.dumps(m))
    r = cli(*args)
    assert r.exit_code == 0 and "6 documents (1 failed" in r.output, r.output
    m = read_manifest(out)
    assert m["documents"] == 6 and m["failed"] == 1
    assert [e["rows"] for e in m["shards"]] == [2, 2, 2]
    assert [e["failed"] for e in m["shards"]] == [0, 0, 1] and m["failed_ids"] == ["bad"]


def test_one_run_per_output_folder_and_a_dead_runs_lock_is_taken_over(tmp_path):
    from logicparse.batch.outdir import LOCK, OutputLock

    out = tmp_path / "out"
    args = ["annotate", CORPUS / "alpha.txt", "--out", out, "--senses", "none", "--annotator",
            "fake_pipeline:flat", "--quiet"]
    with OutputLock(out):  # a run in progress holds the folder
        r = cli(*args)
        assert r.exit_code == 2 and "[E343]" in r.output
        assert f"(pid {os.getpid()})" in r.output and "another --out" in r.output
    assert not (out / LOCK).exists()  # released and removed when the run ends
    dead = subprocess.Popen(["true"])
    dead.wait()
    (out / LOCK).write_text(f"{dead.pid}\n")  # left by a run that was killed
    r = cli(*args)
    assert r.exit_code == 0, r.output
    assert read_shards(out).column("id").to_pylist() == ["alpha"]


def test_closed_stdin_and_line_inputs_in_utf16_are_refused_before_anything_is_written(
        tmp_path, monkeypatch):
    from logicparse.batch import RunConfig, annotate_corpus
    from logicparse.batch.inputs import ReadOptions

    out = tmp_path / "out"
    monkeypatch.setattr(sys, "stdin", None)  # what a run started with `<&-` sees
    with pytest.raises(DataFormatError, match=r"\[E352\] Standard input is closed"):
        annotate_corpus(["-"], out)
    records = tmp_path / "u16.jsonl"
    records.write_bytes('{"id": "a", "text": "It rained."}\n{"id": "b", "text": "Fine."}\n'
                        .encode("utf-16"))
    for inputs in ([str(records)], ["-"]):
        with pytest.raises(DataFormatError, match=r"\[E353\] --encoding utf-16 does not write"):
            annotate_corpus(inputs, out, RunConfig(read=ReadOptions(encoding="utf-16")),
                            stdin=io.BytesIO(records.read_bytes()))
    assert not out.exists()
