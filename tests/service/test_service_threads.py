"""Annotation threads by default: the CPUs a worker may use, divided among the workers; the
networks' threads divided among the annotation threads in turn; requests answered side by side
as they are alone."""

import asyncio

import httpx
import pytest

from logicparse import onnx_export
from logicparse.service.app import _load_annotator, create_app
from logicparse.service.settings import Settings


def post_at_once(app, texts: list[str]) -> list:
    """The answers to one request per text (ids d0, d1, …), all sent at once."""
    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            return await asyncio.gather(*(
                c.post("/v1/annotate", json={"text": t, "id": f"d{i}"}) for i, t in enumerate(texts)))

    return asyncio.run(scenario())


@pytest.fixture
def cpus(monkeypatch):
    """Sets how many CPUs the process may use; the process-wide division and torch's thread
    count are restored after."""
    import torch

    monkeypatch.setattr(onnx_export, "_session_threads", None)
    monkeypatch.setattr(torch, "set_num_threads", lambda n: None)
    for var in ("OMP_NUM_THREADS", "LOGICPARSE_THREADS", "LOGICPARSE_WORKERS"):
        monkeypatch.delenv(var, raising=False)
    return lambda n: monkeypatch.setattr(onnx_export, "available_cpus", lambda: n)


def test_threads_default_to_the_cpus_divided_among_the_workers(cpus):
    cpus(8)
    assert Settings().annotation_threads == 8
    assert Settings(workers=3).annotation_threads == 2
    assert Settings(workers=16).annotation_threads == 1
    assert Settings(threads=3, workers=2).annotation_threads == 3  # the operator's choice
    cpus(2)
    assert create_app(Settings(senses=None)).state.pool.threads == 2  # the app loads its models
    # An annotator loaded by its owner: its networks' threads were not divided, so one thread.
    assert create_app(Settings(senses=None), annotator=object()).state.pool.threads == 1
    assert create_app(Settings(senses=None, threads=3), annotator=object()).state.pool.threads == 3


def test_one_thread_on_a_gpu(cpus):
    cpus(8)
    assert Settings(device="cuda").annotation_threads == 1
    assert Settings(device="cuda:1", threads=2).annotation_threads == 2


def test_a_containers_cpu_quota_bounds_the_cpus(tmp_path, monkeypatch):
    quota = tmp_path / "cpu.max"
    monkeypatch.setattr(onnx_export, "CGROUP_CPU_MAX", quota)
    monkeypatch.setattr(onnx_export.os, "sched_getaffinity", lambda pid: set(range(8)))
    assert onnx_export.available_cpus() == 8  # no cgroup v2 file
    for text, cpus in (("max 100000\n", 8), ("150000 100000\n", 2), ("50000 100000", 1),
                       ("1600000 100000", 8), ("garbled", 8)):
        quota.write_text(text)
        assert onnx_export.available_cpus() == cpus, text


def test_network_threads_are_the_cpus_divided_among_the_annotation_threads(cpus, monkeypatch):
    cpus(8)
    assert onnx_export.cpu_threads() == 8  # nothing divided: every CPU, as in a batch worker
    onnx_export.divide_cpus(2)
    assert onnx_export.cpu_threads() == 4
    onnx_export.divide_cpus(16)
    assert onnx_export.cpu_threads() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # the operator's variable wins
    assert onnx_export.cpu_threads() == 3


def test_two_threads_answer_side_by_side_as_alone_with_one_network_thread_each(cpus):
    """The service's own load on 2 CPUs: its sessions take one thread each, and concurrent
    requests (two batches parsed at once) get the documents their texts get alone."""
    pytest.importorskip("onnxruntime")
    cpus(2)
    settings = Settings(threads=2, batch_size=2)
    annotator = _load_annotator(settings)
    assert settings.annotation_threads == 2 and onnx_export.cpu_threads() == 1
    network = annotator.parser.network
    assert network.session.get_session_options().intra_op_num_threads == 1
    texts = ["She left early since she had a train to catch.",
             "If it rains tomorrow, we will stay at home and read.",
             "He kept working while the others went out for lunch.",
             "As the prices rose, people bought less bread and milk.",
             "The plan was cheap; however, nobody liked it.",
             "Then he said nothing, yet everyone understood why."] * 2
    alone = [annotator.annotate(t, id=f"d{i}").to_dict() for i, t in enumerate(texts)]
    app = create_app(settings, annotator=annotator)
    answers = post_at_once(app, texts)
    assert len(app.state.pool._workers) == 2  # both threads served
    app.state.pool.shutdown()
    assert [r.status_code for r in answers] == [200] * len(texts)
    assert [r.json() for r in answers] == alone
