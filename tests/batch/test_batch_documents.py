"""Documents made in process as a finished shard directory (logicparse.batch.shards.
write_documents), and the manifest a batch run starts and keeps up to date (logicparse.batch.
manifest) with a run built by hand: what a later run, a resumed run or `logicparse shards` reads,
and a folder written again."""

import json
import platform
from pathlib import Path
from types import SimpleNamespace

import pyarrow
import pytest

from logicparse.batch import manifest as mf
from logicparse.batch import shards as sh
from logicparse.batch.inputs import InputSpec, ReadOptions
from logicparse.batch.run import RunConfig
from logicparse.batch.worker import WorkerSpec
from logicparse.tokens import SCHEMA_VERSION, Document


# -- the manifest of a batch run (logicparse.batch.manifest) -----------------------------------
# A factory keeps WorkerSpec from looking the parser up: no model is loaded or named for real.
CONFIG = RunConfig(shard_size=2, read=ReadOptions(fallback="cp1252"), engine="ray", workers=3,
                   worker=WorkerSpec(parser="p-config", senses="s-config", mapping="paper",
                                     threads=2, factory="tests.stand_in:make"))
SPECS = [InputSpec("a.jsonl", "jsonl"), InputSpec("dir", "dir", [Path("x.txt"), Path("y.txt")])]
IDENTITY = {"settings": CONFIG.content_settings(), "inputs": ["as the identity module says"]}


def ok(doc_id):
    return Document(id=doc_id, text="fine")


def failed(doc_id):
    return Document.failed(doc_id, "bad", "[E320] the parser failed")


def shard(out, index, docs):
    return sh.write_shard(out, index, sh.documents_to_table(docs))


def test_a_new_run_starts_an_incomplete_manifest_of_what_it_will_do():
    m = mf.start(SPECS, CONFIG, None, 5, "fp", IDENTITY)
    assert m == {
        "format": "logicparse-shards", "schema_version": SCHEMA_VERSION, "complete": False,
        "documents": 5, "planned_shards": 3, "shard_size": 2, "compression": "zstd",
        "parser": "p-config", "senses": "s-config", "mapping": "paper",
        "settings": CONFIG.content_settings(), "fingerprint": "fp",
        "inputs": [{"path": "a.jsonl", "kind": "jsonl"}, {"path": "dir", "kind": "dir", "files": 2}],
        "versions": mf.versions("ray"), "shards": [], "identity": IDENTITY}
    assert "ray" in m["versions"]  # the engine's own version is recorded too
    # stdin: the number of documents is known only at the end
    m = mf.start(SPECS, CONFIG, None, None, "fp", IDENTITY)
    assert (m["documents"], m["planned_shards"]) == (None, None)
    assert mf.start(SPECS, CONFIG, None, 4, "fp", IDENTITY)["planned_shards"] == 2


def test_a_resumed_run_keeps_the_models_and_the_shards_of_the_run_it_resumes():
    entry = {"file": "shard-00000.arrow", "rows": 2, "failed": 0}
    previous = {"parser": "p-before", "senses": None, "shards": [entry], "documents": 9}
    m = mf.start(SPECS, CONFIG, previous, 5, "fp", IDENTITY)
    # senses None (run without senses) is kept as such, not replaced by the configured one
    assert (m["parser"], m["senses"], m["shards"]) == ("p-before", None, [entry])
    assert (m["documents"], m["planned_shards"], m["complete"]) == (5, 3, False)
    # a previous manifest without them (an old or hand-made one): the configuration's
    m = mf.start(SPECS, CONFIG, {"format": sh.FORMAT}, 5, "fp", IDENTITY)
    assert (m["parser"], m["senses"], m["shards"]) == ("p-config", "s-config", [])


def make_run(out, manifest, **changes):
    """The attributes of a batch run that ``manifest.write`` reads, as a run has them."""
    run = SimpleNamespace(
        out=out, config=CONFIG, specs=SPECS, manifest=manifest, entries={}, unchecked={},
        models={}, per_input={s.path: {"documents": 0, "decoding_fallback": 0, "fallback_ids": []}
                              for s in SPECS},
        n_duplicates=0, duplicates=[], memory_at_shards=[], worker_peak={}, load_seconds=0.0,
        ready_at=0.0, started_at=100.0, parse_s={}, resumed=0, rewritten=[],
        progress=SimpleNamespace(docs=0, sentences=0))
    run.__dict__.update(changes)
    return run


@pytest.fixture
def run(tmp_path):
    """A run of 5 documents in 2 shards, resumed from one that had listed shards 1 and 2."""
    e0 = shard(tmp_path, 0, [ok("a"), failed("b"), ok("c")])
    e1 = shard(tmp_path, 1, [failed("d"), failed("e")])
    stale = {**e1, "rows": 4, "failed": 0, "sha256": "0" * 64}
    e2 = {"file": "shard-00002.arrow", "rows": 7, "failed": 1}
    return make_run(
        tmp_path, mf.start(SPECS, CONFIG, {"shards": [stale, e2]}, 5, "fp", IDENTITY),
        entries={1: e1, 0: e0}, unchecked={1: stale, 2: e2},
        models={"parser": "p-loaded", "senses": "s-loaded"},
        per_input={"a.jsonl": {"documents": 3, "decoding_fallback": 0, "fallback_ids": []},
                   "dir": {"documents": 2, "decoding_fallback": 2, "fallback_ids": ["x", "y"]}},
        n_duplicates=3, duplicates=["a", "c"],
        memory_at_shards=[{"shard": 0, "workers_rss_mb": {"11": 300.5, "12": 410.25}},
                          {"shard": 2, "workers_rss_mb": {}},
                          {"shard": 1, "workers_rss_mb": {"11": 305.0}}],
        worker_peak={12: 420.0, 11: 310.0}, load_seconds=3.14159, ready_at=102.71828,
        parse_s={0: 1.0004, 1: 2.0002}, resumed=1,
        rewritten=[{"file": "shard-00001.arrow", "reason": "sha256 differs"}],
        progress=SimpleNamespace(docs=5, sentences=9))


def written(out):
    return json.loads((out / sh.MANIFEST).read_text())


def test_a_running_run_lists_every_shard_it_wrote_or_has_still_to_check(run):
    e0, e1, e2 = run.entries[0], run.entries[1], run.unchecked[2]
    before = dict(run.manifest)
    m = mf.write(run, complete=False)
    assert m is run.manifest and written(run.out) == m
    # the shards are sorted by index, a rewritten one replaces its unchecked entry, and the
    # counts are those of every listed shard; documents and planned shards stay the plan's
    assert m == {
        **before, "complete": False, "shards": [e0, e1, e2], "failed": 1 + 2 + 1,
        "parser": "p-loaded", "senses": "s-loaded",
        "inputs": [{"path": "a.jsonl", "kind": "jsonl", "documents": 3, "decoding_fallback": 0,
                    "fallback_ids": []},
                   {"path": "dir", "kind": "dir", "files": 2, "documents": 2,
                    "decoding_fallback": 2, "fallback_ids": ["x", "y"]}],
        "duplicate_ids": {"count": 3, "examples": ["a", "c"]},
        "decoding": {"encoding": "utf-8", "fallback": "cp1252", "documents": 2}}
    assert (m["documents"], m["planned_shards"]) == (5, 3)


def test_a_finished_run_counts_only_the_shards_it_wrote_or_verified(run):
    m = mf.write(run, complete=True, seconds=12.34567)
    assert written(run.out) == m
    peak = m["run"]["memory"].pop("main_peak_rss_mb")
    assert isinstance(peak, float) and peak > 0
    assert m["complete"] is True
    assert m["shards"] == [run.entries[0], run.entries[1]]  # shard 2 was never written again
    assert (m["documents"], m["planned_shards"], m["failed"]) == (5, 2, 3)
    assert m["failed_ids"] == ["b", "d", "e"]
    assert (m["parser"], m["senses"]) == ("p-loaded", "s-loaded")
    assert m["decoding"] == {"encoding": "utf-8", "fallback": "cp1252", "documents": 2}
    assert m["duplicate_ids"] == {"count": 3, "examples": ["a", "c"]}
    memory = run.memory_at_shards
    assert m["run"] == {
        "engine": "ray", "workers": 3, "threads_per_worker": 2, "seconds": 12.346,
        "model_load_seconds": 3.142, "startup_seconds": 2.718, "parse_seconds": 3.001,
        "resumed_shards": 1, "rewritten_shards": [{"file": "shard-00001.arrow",
                                                   "reason": "sha256 differs"}],
        "written_shards": 3, "documents_annotated": 5, "sentences_annotated": 9,
        "memory": {"peak_rss_mb_per_worker": {"11": 310.0, "12": 420.0},
                   "first_shard": memory[0], "last_shard": memory[2],
                   "workers_max_rss_mb_by_shard": [410.25, 0, 305.0]}}
    assert list(m["run"]["memory"]["peak_rss_mb_per_worker"]) == ["11", "12"]


def test_a_run_stopped_before_its_first_shard_keeps_what_it_started_with(tmp_path):
    m0 = mf.start(SPECS, CONFIG, {"parser": "p-before", "senses": "s-before"}, 5, "fp", IDENTITY)
    run = make_run(tmp_path, m0)  # no worker ready: no models, no memory, ready_at unset
    m = mf.write(run, complete=False, seconds=0.5)
    assert (m["parser"], m["senses"], m["shards"], m["failed"]) == ("p-before", "s-before", [], 0)
    assert "failed_ids" not in m and written(tmp_path) == m
    assert m["decoding"]["documents"] == 0
    memory = m["run"]["memory"]
    assert m["run"]["startup_seconds"] == 0.0 and m["run"]["written_shards"] == 0
    assert (memory["first_shard"], memory["last_shard"]) == (None, None)
    assert (memory["peak_rss_mb_per_worker"], memory["workers_max_rss_mb_by_shard"]) == ({}, [])
    # finished without a document (an empty input): complete, with nothing in it
    m = mf.write(run, complete=True)
    assert (m["complete"], m["documents"], m["planned_shards"], m["failed_ids"]) == (
        True, 0, 0, [])


def test_failed_ids_reads_only_shards_with_failures_up_to_the_limit(tmp_path):
    e0 = shard(tmp_path, 0, [ok("a"), failed("b"), failed("c")])
    e1 = shard(tmp_path, 1, [failed("d")])
    # listed without failures, or past the limit: never opened (it is not even there)
    absent = {"file": "shard-00009.arrow", "rows": 1, "failed": 0}
    assert mf.failed_ids(tmp_path, [e0, absent, e1]) == ["b", "c", "d"]
    assert mf.failed_ids(tmp_path, [e0, {**absent, "failed": 1}], limit=2) == ["b", "c"]
    assert mf.failed_ids(tmp_path, [e0, e1], limit=1) == ["b"]
    assert mf.failed_ids(tmp_path, []) == []
    many = shard(tmp_path, 2, [failed(f"f{i}") for i in range(1001)])
    assert mf.failed_ids(tmp_path, [many]) == [f"f{i}" for i in range(1000)]


def test_versions_name_every_package_that_decides_the_output(monkeypatch):
    names = ["logicparse", "pyarrow", "torch", "transformers", "spacy", "benepar", "numpy",
             "scikit-learn"]
    local = mf.versions("local")
    assert list(local) == ["python", *names]
    assert local["python"] == platform.python_version()
    assert local["pyarrow"] == pyarrow.__version__
    assert list(mf.versions("ray")) == ["python", *names, "ray"]
    monkeypatch.setattr(mf, "_VERSIONED", ("pyarrow", "no-such-package-here"))
    assert mf.versions("local") == {"python": local["python"], "pyarrow": pyarrow.__version__,
                                    "no-such-package-here": None}


def test_the_memory_helpers_give_mebibytes_to_one_decimal(monkeypatch):
    import psutil
    import resource

    assert 0.9 * mf.own_rss_mb() <= mf.own_peak_mb()  # the same unit, measured two ways
    rss = SimpleNamespace(rss=123_456_789)  # 117.737... MiB
    monkeypatch.setattr(psutil, "Process", lambda: SimpleNamespace(memory_info=lambda: rss))
    assert mf.own_rss_mb() == 117.7
    asked, maxrss = [], [123_456]

    def getrusage(who):
        asked.append(who)
        return SimpleNamespace(ru_maxrss=maxrss[0])

    monkeypatch.setattr(resource, "getrusage", getrusage)
    monkeypatch.setattr(mf.sys, "platform", "linux")  # ru_maxrss in kibibytes
    assert mf.own_peak_mb() == 120.6  # 120.5625
    monkeypatch.setattr(mf.sys, "platform", "darwin")  # in bytes
    maxrss[0] = 123_456_789
    assert mf.own_peak_mb() == 117.7
    assert asked == [resource.RUSAGE_SELF] * 2


# -- documents made in process (logicparse.batch.shards.write_documents) -----------------------
def test_documents_made_in_process_get_the_manifest_of_a_finished_one_shard_run(tmp_path):
    out = tmp_path / "mine"
    m = sh.write_documents(out, [ok("a"), failed("b"), ok("c")], parser="p", senses=None)
    assert sh.read_manifest(out) == m
    assert {k: v for k, v in m.items() if k != "shards"} == {
        "format": "logicparse-shards", "schema_version": SCHEMA_VERSION, "complete": True,
        "documents": 3, "planned_shards": 1, "compression": "zstd", "failed": 1,
        "parser": "p", "senses": None}
    assert [(e["file"], e["rows"], e["failed"]) for e in m["shards"]] == [
        ("shard-00000.arrow", 3, 1)]
    # named as a batch run names them, so what reads a run's manifest reads this one
    assert set(m) <= set(mf.start(SPECS, CONFIG, None, 3, "fp", IDENTITY)) | {"failed"}


# -- what a reader is told about a damaged folder (logicparse.batch.shards) --------------------

@pytest.mark.parametrize("content, reason", [
    (b"", "empty"),
    (b'{"shards": {}}', "'shards' is a dict, not a list"),
    (b'{"shards": [{"file": "shard-00000.arrow", "bytes": 1, "rows": 1, "failed": 0}]}',
     "shards[0].sha256 is missing or not a str"),
    (b'{"shards": [{"file": "notes.txt", "sha256": "0", "bytes": 1, "rows": 1, "failed": 0}]}',
     "shards[0].file 'notes.txt' is not a shard name (shard-NNNNN.arrow)"),
])
def test_a_damaged_manifest_is_E342_naming_the_file_and_what_is_wrong(tmp_path, content, reason):
    (tmp_path / sh.MANIFEST).write_bytes(content)
    with pytest.raises(sh.DataFormatError) as e:
        sh.read_manifest(tmp_path)
    assert str(e.value) == sh.Errors.E342.format(path=tmp_path / sh.MANIFEST, reason=reason)


def test_a_manifest_not_json_is_E342_quoting_the_parser(tmp_path):
    (tmp_path / sh.MANIFEST).write_bytes(b"{")
    with pytest.raises(sh.DataFormatError) as e:
        sh.read_manifest(tmp_path)
    try:
        json.loads("{")
    except ValueError as parse_error:
        reason = f"not JSON: {parse_error}"
    assert str(e.value) == sh.Errors.E342.format(path=tmp_path / sh.MANIFEST, reason=reason)


def test_a_shard_of_another_schema_version_or_not_arrow_is_refused_naming_both(tmp_path):
    old = tmp_path / "shard-00000.arrow"
    schema = pyarrow.schema([("id", pyarrow.string())], metadata={sh.VERSION_KEY: b"0"})
    with pyarrow.ipc.new_file(str(old), schema) as writer:
        writer.write_table(schema.empty_table())
    with pytest.raises(sh.DataFormatError) as e:
        sh.read_shard(old)
    assert str(e.value) == sh.Errors.E512.format(path=old, got="0", want=SCHEMA_VERSION)

    garbage = tmp_path / "shard-00001.arrow"
    garbage.write_bytes(b"not an arrow file at all")
    try:
        pyarrow.ipc.open_file(pyarrow.memory_map(str(garbage)))
    except pyarrow.ArrowInvalid as arrow_error:
        reason = str(arrow_error)
    with pytest.raises(sh.DataFormatError) as e:
        sh.read_shard(garbage)
    assert str(e.value) == sh.Errors.E513.format(path=garbage, reason=reason)
