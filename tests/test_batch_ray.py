"""`--engine ray` on a local Ray instance with 2 CPUs gives the same rows (and shard bytes) as the
local engine. One test: starting Ray is slow."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from logicparse.batch import read_manifest, read_shards
from logicparse.cli import _register, app

CORPUS = Path(__file__).parent / "fixtures" / "batch" / "corpus"


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
