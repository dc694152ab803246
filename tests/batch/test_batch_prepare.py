"""A first run on a machine: one process loads the models with PyTorch and leaves the cache
records before the workers start, so that every worker loads from the cache without PyTorch."""

import pytest

from logicparse.batch import local
from logicparse.batch.worker import WorkerSpec, needs_preparing

pytest.importorskip("onnxruntime")


def test_an_empty_cache_is_prepared_once_for_light_workers(tmp_path, monkeypatch):
    from logicparse.parser.light import load_light
    from logicparse.senses.light import load_light_encoder

    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path))  # the spawned process inherits it
    spec = WorkerSpec()
    assert needs_preparing(spec)
    assert not needs_preparing(WorkerSpec(factory="fake_pipeline:flat"))
    monkeypatch.setenv("LOGICPARSE_PARSER_RUNTIME", "torch")  # no light worker to prepare for
    assert not needs_preparing(spec)
    monkeypatch.delenv("LOGICPARSE_PARSER_RUNTIME")
    local.LocalEngine(spec, workers=2).prepare()
    assert not needs_preparing(spec)
    assert load_light("default") is not None and load_light_encoder("default") is not None


def test_a_run_prepares_before_its_workers_start(monkeypatch):
    calls = []

    def prepare(self):
        calls.append(self._pool)
        raise RuntimeError("prepared")

    monkeypatch.setattr(local.LocalEngine, "prepare", prepare)
    engine = local.LocalEngine(WorkerSpec(senses=None, factory="fake_pipeline:flat"))
    with pytest.raises(RuntimeError, match="prepared"):
        next(engine.run([]))
    assert calls == [None]  # no pool yet


def test_a_cache_that_cannot_be_written_is_not_prepared_and_the_run_goes_on(tmp_path, monkeypatch):
    """The workers then load the models with PyTorch, as before there was a preparing step."""
    from logicparse.batch.worker import prepare_first_run

    (tmp_path / "file").write_text("")
    monkeypatch.setenv("LOGICPARSE_CACHE", str(tmp_path / "file" / "cache"))
    spec = WorkerSpec()
    assert needs_preparing(spec)
    prepare_first_run(spec)  # no error, no process started
    assert needs_preparing(spec)
