"""`--engine ray` on a local Ray instance with 2 CPUs gives the same rows (and shard bytes) as the
local engine, and a local instance listens on loopback only. Few tests: starting Ray is slow."""

import ipaddress
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from logicparse.batch import read_manifest, read_shards
from logicparse.batch.ray_engine import RayEngine
from logicparse.batch.worker import Chunk, ChunkAnnotator, WorkerSpec
from logicparse.cli import _register, app

FIX = Path(__file__).parents[1] / "fixtures" / "batch"
CORPUS = FIX / "corpus"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_ray_engine_rows_equal_the_local_engines(tmp_path):
    import ray  # noqa: F401 - a hard dependency: a broken install fails here

    _register()
    common = [str(CORPUS), "--shard-size", "2", "--senses", "none", "--quiet"]
    r = CliRunner().invoke(app, ["annotate", *common, "--out", str(tmp_path / "local")])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["annotate", *common, "--out", str(tmp_path / "ray"),
                                 "--engine", "ray", "--workers", "2"])
    assert r.exit_code == 0, r.output

    local, ray = read_shards(tmp_path / "local"), read_shards(tmp_path / "ray")
    assert ray.num_rows == 5 and ray.schema.equals(local.schema, check_metadata=True)
    assert ray.to_pylist() == local.to_pylist()
    ml, mr = read_manifest(tmp_path / "local"), read_manifest(tmp_path / "ray")
    assert [s["sha256"] for s in mr["shards"]] == [s["sha256"] for s in ml["shards"]]
    assert mr["run"]["engine"] == "ray" and "ray" in mr["versions"]
    assert mr["parser"] == ml["parser"] and mr["failed"] == 0


def _loopback(ip: str) -> bool:
    a = ipaddress.ip_address(ip)
    # A dual-stack socket bound to 127.0.0.1 shows as ::ffff:127.0.0.1.
    return a.is_loopback or bool(getattr(a, "ipv4_mapped", None) and a.ipv4_mapped.is_loopback)


def _listening(procs) -> list:
    import psutil

    out = []
    for p in procs:
        try:
            out += [(p.pid, p.name(), c.laddr.ip, c.laddr.port)
                    for c in p.net_connections(kind="tcp") if c.status == psutil.CONN_LISTEN]
        except psutil.Error:  # a worker that ended while being read
            pass
    return out


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_local_ray_listens_on_loopback_only(monkeypatch):
    """Ray runs code for whoever reaches its ports: a one-machine run must not open any beyond
    loopback (GCS, raylet, the driver's and every worker's gRPC server)."""
    import psutil
    import ray

    assert not ray.is_initialized()
    # The fake pipeline, found by the Ray workers (they inherit the environment, not sys.path).
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(FIX), os.environ.get(
        "PYTHONPATH")])))
    engine = RayEngine(WorkerSpec(senses=None, factory="fake_pipeline:flat"), workers=1)
    try:
        (result,) = engine.run([Chunk(0, 0, ("a",), ("We stay because it rains.",))])
        assert result.table.column("id").to_pylist() == ["a"]

        @ray.remote(num_cpus=0)
        class Alive:  # a worker that is certainly up while the sockets are read
            def pid(self):
                return os.getpid()

        alive = Alive.remote()  # kept: an actor whose handle is dropped is stopped
        worker = ray.get(alive.pid.remote())
        me = psutil.Process()
        listening = _listening([me, *me.children(recursive=True)])
        names = {name for _, name, _, _ in listening}
        assert {"gcs_server", "raylet"} <= names, listening
        assert worker in {pid for pid, _, _, _ in listening}, listening
        exposed = [x for x in listening if not _loopback(x[2])]
        assert not exposed, f"listening beyond loopback: {exposed}"
    finally:
        engine.close()
    assert not ray.is_initialized()


def test_a_local_ray_that_takes_another_address_is_stopped():
    """Should a Ray version give the local node the machine's address anyway, the instance is
    shut down before any work reaches it, and the user is told why (E344)."""
    from types import SimpleNamespace

    from ray._private import ray_constants

    from logicparse.batch.ray_engine import _start_on_loopback
    from logicparse.errors import LogicparseError

    calls, before = [], ray_constants.ENABLE_RAY_CLUSTER
    fake = SimpleNamespace(
        init=lambda **kw: calls.append(("init", kw["_node_ip_address"],
                                        ray_constants.ENABLE_RAY_CLUSTER)),
        shutdown=lambda: calls.append(("shutdown",)), __version__="9.9",
        util=SimpleNamespace(get_node_ip_address=lambda: "192.0.2.7"))
    with pytest.raises(LogicparseError, match=r"^\[E344\] Ray 9\.9 .* 192\.0\.2\.7"):
        _start_on_loopback(fake, 1)
    assert calls == [("init", "127.0.0.1", False), ("shutdown",)]
    assert ray_constants.ENABLE_RAY_CLUSTER == before


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory):
    """One local Ray instance of 2 CPUs for the fault tests (starting Ray takes seconds); the
    workers find the fake pipeline through PYTHONPATH, which they inherit at Ray's start."""
    import ray

    mp = pytest.MonkeyPatch()
    mp.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(FIX), os.environ.get("PYTHONPATH")])))
    mp.setenv("LOGICPARSE_TEST_DIED", str(tmp_path_factory.mktemp("died") / "mark"))
    mp.setenv("LOGICPARSE_CACHE", str(tmp_path_factory.mktemp("cache")))  # a first run
    engine = RayEngine(WorkerSpec(senses=None, factory="fake_pipeline:flat"), workers=2)
    engine._init()
    yield ray
    engine._started_here = True
    engine.close()
    mp.undo()


TEXTS = ("We stay because it rains.", "Either we leave or we stay.", "If it rains, we stay.",
         "It rains but we go.", "We go, so it rains.")


def _results(engine, texts):
    chunks = [Chunk(0, 0, ("a", "b", "c"), texts[:3]), Chunk(1, 0, ("d", "e"), texts[3:])]
    return sorted(engine.run(chunks), key=lambda r: (r.chunk.shard, r.chunk.start))


def _rows(engine, texts):
    return [row for r in _results(engine, texts) for row in r.table.to_pylist()]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_an_actor_that_dies_has_its_chunk_redone_whole_with_the_same_rows(local_ray, monkeypatch):
    """A node that goes away mid-chunk: the chunk runs again, whole (its documents keep their
    company), on an actor Ray restarts or another one, and its rows are an undisturbed run's."""
    texts = (TEXTS[0], TEXTS[1] + " DIE_ONCE", *TEXTS[2:])
    mark = os.environ["LOGICPARSE_TEST_DIED"]
    if os.path.exists(mark):  # a rerun in this session: die again
        os.remove(mark)
    monkeypatch.syspath_prepend(str(FIX))
    here = ChunkAnnotator(WorkerSpec(senses=None, factory="fake_pipeline:flat"))
    expected = [row for c in [Chunk(0, 0, ("a", "b", "c"), texts[:3]), Chunk(1, 0, ("d", "e"), texts[3:])]
                for row in here(c).table.to_pylist()]
    results = _results(RayEngine(WorkerSpec(senses=None, factory="fake_pipeline:dies_once"),
                                 workers=2), texts)
    assert os.path.exists(mark)  # an actor did die
    assert [(r.chunk.shard, r.chunk.start, r.table.num_rows) for r in results] == [(0, 0, 3), (1, 0, 2)]
    rows = [row for r in results for row in r.table.to_pylist()]
    assert [r["id"] for r in rows] == ["a", "b", "c", "d", "e"]
    assert all(r["error"] is None for r in rows) and rows == expected


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_document_that_kills_every_actor_gets_an_error_row_alone(local_ray):
    spec = WorkerSpec(senses=None, factory="fake_pipeline:flat")
    texts = (TEXTS[0], "It rains. KILL_THE_WORKER now.", *TEXTS[2:])
    rows = {r["id"]: r for r in _rows(RayEngine(spec, workers=2), texts)}
    assert sorted(rows) == ["a", "b", "c", "d", "e"]
    assert rows["b"]["error"].startswith("[E321]") and rows["b"]["tokens"] == []
    # Its chunk-mates were retried one by one and annotated for real.
    for doc in "acde":
        assert rows[doc]["error"] is None and rows[doc]["tokens"], doc
    assert {x["relation"] for x in rows["a"]["relations"]} == {"causal"}


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_lone_actor_killed_by_the_last_document_of_a_chunk_goes_on_to_the_next(local_ray):
    """One actor: once the document that kills it is isolated, the actor is restarting when its
    row is written, and the chunks not yet read must still be run."""
    spec = WorkerSpec(senses=None, factory="fake_pipeline:flat")
    chunks = [Chunk(0, 0, ("a", "b"), (TEXTS[0], "It rains. KILL_THE_WORKER now.")),
              Chunk(0, 2, ("c",), (TEXTS[2],)), Chunk(1, 0, ("d", "e"), TEXTS[3:])]
    rows = {row["id"]: row for r in RayEngine(spec, workers=1).run(chunks)
            for row in r.table.to_pylist()}
    assert sorted(rows) == ["a", "b", "c", "d", "e"]
    assert rows["b"]["error"].startswith("[E321]")
    assert all(rows[doc]["error"] is None and rows[doc]["tokens"] for doc in "acde")


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("factory,message", [
    ("cannot_load", r"^\[E351\] .*OSError: injected: the model file is missing"),
    ("coded_load_error", r"^\[E101\] Parser model at /nowhere")])  # a logicparse error as it is
def test_workers_that_cannot_load_the_models_stop_the_run_with_the_reason(local_ray, factory,
                                                                          message):
    from logicparse.errors import LogicparseError

    engine = RayEngine(WorkerSpec(senses=None, factory=f"fake_pipeline:{factory}"), workers=2)
    with pytest.raises(LogicparseError, match=message):
        list(engine.run([Chunk(0, 0, ("a",), (TEXTS[0],))]))


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_actors_on_a_first_run_prepare_the_cache_and_load_without_pytorch(local_ray):
    """On an empty cache the first actor of a machine has the models exported and recorded by a
    process of its own, so that every actor then loads from the cache (about 0.7 GB, not 1.2)."""
    from logicparse.batch.worker import needs_preparing

    spec = WorkerSpec(senses=None)
    assert needs_preparing(spec)  # the fixture's empty cache
    (result,) = RayEngine(spec, workers=2).run([Chunk(0, 0, ("a",), (TEXTS[0],))])
    assert not needs_preparing(spec)
    assert result.table.column("error").to_pylist() == [None]
    # Loaded with PyTorch the actor peaks at about 830 MB here; from the cache, about 330.
    assert "(int8)" in result.stats.parser and result.stats.peak_rss_mb < 600


def test_no_workers_is_refused_before_ray_starts():
    from logicparse.errors import LogicparseError

    with pytest.raises(LogicparseError, match=r"^\[E317\] workers must be at least 1, got 0"):
        RayEngine(WorkerSpec(senses=None, factory="fake_pipeline:flat"), workers=0)
